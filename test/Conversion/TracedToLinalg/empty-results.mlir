// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// A pure call whose results are all empty computes nothing: it becomes an
// empty constant whatever its target, even one with no lowering for its
// dtype (torch returns an empty integer softmax early, in its own dtype).
// CHECK-LABEL: func.func @forward(
// CHECK-NOT: linalg.generic
// CHECK: %[[E:.+]] = arith.constant dense<> : tensor<0x3xi64>
// CHECK-NOT: linalg.generic
// CHECK: return %[[E]], %{{.+}} : tensor<0x3xi64>, tensor<0x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<0x3xi64>, %y: tensor<0x3xf32>) -> (tensor<0x3xi64>, tensor<0x3xf32>) {
    %s = call_function "torch.nn.functional.softmax"(input=%x, dim=1) : (tensor<0x3xi64>) -> tensor<0x3xi64>
    %t = call_function "torch.tanh"(input=%y) : (tensor<0x3xf32>) -> tensor<0x3xf32>
    output %s, %t : tensor<0x3xi64>, tensor<0x3xf32>
  }
}

// -----

// An input the trace saw as None (a forward's `bias=None`) is a constant of
// the compiled function, which does not take it.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<4x3xf32>) -> tensor<2x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>, %b: !traced.none, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
    %y = call_function "torch.nn.functional.linear"(input=%x, weight=%w, bias=%b) : (tensor<2x3xf32>, tensor<4x3xf32>, !traced.none) -> tensor<2x4xf32>
    output %y : tensor<2x4xf32>
  }
}

// -----

// Python numbers a graph returns come out as 0-d tensors of their types
// (bool stored as i8); the entry lists them in traced.scalar_outputs.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: -> (tensor<i64>, tensor<2xf32>, tensor<f64>, tensor<i8>)
// CHECK-SAME: traced.scalar_outputs = array<i64: 0, 2, 3>
// CHECK-DAG: %[[N:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[F:.+]] = arith.constant 2.5{{0*}}e+00 : f64
// CHECK-DAG: %[[B:.+]] = arith.extui %{{.+}} : i1 to i8
// CHECK-DAG: %[[TN:.+]] = tensor.from_elements %[[N]] : tensor<i64>
// CHECK-DAG: %[[TF:.+]] = tensor.from_elements %[[F]] : tensor<f64>
// CHECK-DAG: %[[TB:.+]] = tensor.from_elements %[[B]] : tensor<i8>
// CHECK: return %[[TN]], %{{.+}}, %[[TF]], %[[TB]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> (i64, tensor<2xf32>, f64, i1) {
    %n = constant 2 : i64
    %f = constant 2.5 : f64
    %b = constant True : i1
    %y = call_function "torch.neg"(input=%x) : (tensor<2xf32>) -> tensor<2xf32>
    output %n, %y, %f, %b : i64, tensor<2xf32>, f64, i1
  }
}
