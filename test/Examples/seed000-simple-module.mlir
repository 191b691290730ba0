// The hand-written seed 000 example in docs/ parses, verifies, and reads
// like TracedModule's graph print.
// RUN: traced-opt %test_src/../docs/examples/simple_module.mlir | FileCheck %s
// RUN: traced-translate --traced-to-graph-text %test_src/../docs/examples/simple_module.mlir | FileCheck %s --check-prefix=GRAPH

// CHECK-LABEL: traced.module root @SimpleModule class "__main__.SimpleModule" {
// CHECK-NEXT:    submodule @linear : @Linear
// CHECK-NEXT:    parameter @param : tensor<1xf32> = dense_resource<param> : tensor<1xf32>
// CHECK-NEXT:    graph @forward(%self: !traced.module<@SimpleModule>, %x: tensor<3x4xf32>) -> tensor<3x5xf32> {
// CHECK-NEXT:      %const_tensor = constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT:      %add_out = call_method %x["__add__"](other=%const_tensor)
// CHECK-NEXT:      %relu_out = call_function "nn.relu"(input=%add_out)
// CHECK-NEXT:      %linear = getattr %self["linear"]
// CHECK-NEXT:      %param = getattr %self["param"]
// CHECK-NEXT:      %add_out_0 = call_method %relu_out["__add__"](other=%param)
// CHECK-NEXT:      %linear_out = call_method %linear["forward"](%add_out_0) : (!traced.module<@Linear>, tensor<3x4xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:      output %linear_out : tensor<3x5xf32>
// CHECK:       traced.module @Linear class "megengine.module.Linear" {

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
