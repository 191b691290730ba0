// Export to ONNX and import back: the calls come back as op-library calls,
// the weights as root parameters (initializers of 16 elements or fewer as
// constants), the input and output names and shapes kept.
// RUN: traced-translate --export-onnx %s | traced-translate --import-onnx | FileCheck %s

// CHECK: traced.module root @SimpleModule class "onnx.SimpleModule"
// CHECK: parameter @linear.weight : tensor<5x4xf32>
// CHECK-NOT: parameter
// CHECK: graph @forward(%self: !traced.module<@SimpleModule>, %x: tensor<3x4xf32>) -> tensor<3x5xf32>
// CHECK: call_function "torch.add"
// CHECK: call_function "torch.nn.functional.relu"
// CHECK: %[[BIAS:.*]] = constant dense<2.500000e-01> : tensor<5xf32>
// CHECK: call_function "torch.nn.functional.linear"(input={{.*}}, weight=%linear.weight, bias=%[[BIAS]])
// CHECK: output

traced.module root @SimpleModule class "__main__.SimpleModule" {
  submodule @linear : @Linear
  parameter @param : tensor<1xf32> = dense<2.0> : tensor<1xf32>
  graph @forward(%self: !traced.module<@SimpleModule>, %x: tensor<3x4xf32>) -> tensor<3x5xf32> {
    %const_tensor = constant dense<1.0> : tensor<1xf32>
    %add_out = call_method %x["__add__"](%const_tensor) : (tensor<3x4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
    %relu_out = call_function "nn.relu"(%add_out) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %linear = getattr %self["linear"] : !traced.module<@SimpleModule> -> !traced.module<@Linear>
    %param = getattr %self["param"] : !traced.module<@SimpleModule> -> tensor<1xf32>
    %add_out_1 = call_method %relu_out["__add__"](%param) : (tensor<3x4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
    %linear_out = call_method %linear["forward"](%add_out_1) : (!traced.module<@Linear>, tensor<3x4xf32>) -> tensor<3x5xf32>
    output %linear_out : tensor<3x5xf32>
  }
}

traced.module @Linear class "megengine.module.Linear" {
  parameter @weight : tensor<5x4xf32> = dense<0.5> : tensor<5x4xf32>
  parameter @bias : tensor<5xf32> = dense<0.25> : tensor<5xf32>
  attribute @in_features : i64 = 4
  attribute @out_features : i64 = 5
}
