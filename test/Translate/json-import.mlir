// Seed 000's SimpleModule as a JSON trace (weights inline as base64) comes in
// as the IR of docs/examples/simple_module.mlir: calls of known targets are
// normalized like the parser does, weights become dense_resource blobs with
// the same bytes.
// RUN: traced-translate --import-trace %S/Inputs/json-simple-module.json | FileCheck %s
// RUN: traced-translate --import-trace %S/Inputs/json-simple-module.json | traced-translate --traced-to-graph-text | FileCheck %s --check-prefix=GRAPH

// CHECK-LABEL: module {
// CHECK-NEXT:    traced.module root @SimpleModule class "__main__.SimpleModule" {
// CHECK-NEXT:      submodule @linear : @Linear
// CHECK-NEXT:      parameter @param : tensor<1xf32> = dense_resource<SimpleModule_param> : tensor<1xf32>
// CHECK-NEXT:      graph @forward(%self: !traced.module<@SimpleModule>, %x: tensor<3x4xf32>) -> tensor<3x5xf32> {
// CHECK-NEXT:        %const_tensor = constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT:        %add_out = call_method %x["__add__"](other=%const_tensor) : (tensor<3x4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:        %relu_out = call_function "nn.relu"(input=%add_out) : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:        %linear = getattr %self["linear"] : !traced.module<@SimpleModule> -> !traced.module<@Linear>
// CHECK-NEXT:        %param = getattr %self["param"] : !traced.module<@SimpleModule> -> tensor<1xf32>
// CHECK-NEXT:        %add_out_0 = call_method %relu_out["__add__"](other=%param) : (tensor<3x4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:        %linear_out = call_method %linear["forward"](%add_out_0) : (!traced.module<@Linear>, tensor<3x4xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:        output %linear_out : tensor<3x5xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    traced.module @Linear class "megengine.module.Linear" {
// CHECK-NEXT:      parameter @weight : tensor<5x4xf32> = dense_resource<Linear_weight> : tensor<5x4xf32>
// CHECK-NEXT:      parameter @bias : tensor<5xf32> = dense_resource<Linear_bias> : tensor<5xf32>
// CHECK-NEXT:      attribute @in_features : i64 = 4
// CHECK-NEXT:      attribute @out_features : i64 = 5
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// The blobs hold docs/examples/simple_module.mlir's bytes, 4-byte aligned.
// CHECK:       dialect_resources: {
// CHECK-NEXT:    builtin: {
// CHECK-NEXT:      SimpleModule_param: "0x040000000000803F",
// CHECK-NEXT:      Linear_weight: "0x040000000000803F0000003F000080BE0000803E0000003F000080BF0000803E0000003F000000BF0000003E000080BF0000803F0000803E000000BF0000003F000080BE0000803F0000003E0000003F0000803E",
// CHECK-NEXT:      Linear_bias: "0x040000000000803F000000BF00000000000000BF0000803E"

// GRAPH:      SimpleModule.Graph (self, x) {
// GRAPH-NEXT:   %2: const_tensor = Constant(tensor<1xf32>) -> (Tensor)
// GRAPH-NEXT:   %3: add_out = x.__add__(other=const_tensor)
// GRAPH-NEXT:   %4: relu_out = nn.relu(input=add_out)
// GRAPH-NEXT:   %5: linear = getattr(self, "linear") -> (Linear)
// GRAPH-NEXT:   %6: param = getattr(self, "param") -> (Tensor)
// GRAPH-NEXT:   %7: add_out_0 = relu_out.__add__(other=param)
// GRAPH-NEXT:   %8: linear_out = linear(add_out_0)
// GRAPH-NEXT:   return linear_out
// GRAPH-NEXT: }
