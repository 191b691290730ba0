// A leaf-module call lowers through its class's functional without
// traced-flatten/traced-normalize; its parameters become constants and the
// constant weight is transposed at compile time.
// RUN: traced-opt %s --convert-traced-to-linalg | FileCheck %s

traced.module root @M class "m.M" {
  submodule @fc : @Fc
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<2x4xf32> {
    %fc = getattr %self["fc"] : !traced.module<@M> -> !traced.module<@Fc>
    %y = call_method %fc["forward"](%x) : (!traced.module<@Fc>, tensor<2x3xf32>) -> tensor<2x4xf32>
    output %y : tensor<2x4xf32>
  }
}
traced.module @Fc class "torch.nn.modules.linear.Linear" {
  parameter @weight : tensor<4x3xf32> = dense<1.0> : tensor<4x3xf32>
  parameter @bias : tensor<4xf32> = dense<0.5> : tensor<4xf32>
}

// CHECK-LABEL: func.func @forward(%{{.*}}: tensor<2x3xf32>) -> tensor<2x4xf32>
// CHECK-DAG:     %[[W:.*]] = arith.constant dense_resource<transposed_{{[0-9a-f]+}}> : tensor<3x4xf32>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %[[W]] : tensor<2x3xf32>, tensor<3x4xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[MM]], %[[B]] : tensor<2x4xf32>, tensor<4xf32>)
// CHECK-NOT:     traced.
