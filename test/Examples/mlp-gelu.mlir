// RUN: traced-opt %s | FileCheck %s

// An MLP with GELU, as symbolic tracing records it with functional calls
// in the user's forward.

// CHECK-LABEL: traced.module root @MLP
traced.module root @MLP class "__main__.MLP" {
  submodule @fc1 : @fc1
  submodule @fc2 : @fc2
  // CHECK: graph @forward(%self: !traced.module<@MLP>, %x: tensor<8x16xf32>) -> tensor<8x4xf32>
  graph @forward(%self: !traced.module<@MLP>, %x: tensor<8x16xf32>) -> tensor<8x4xf32> {
    // CHECK: %fc1_out = call_method %fc1["forward"](%x) : (!traced.module<@fc1>, tensor<8x16xf32>) -> tensor<8x32xf32>
    // CHECK: %gelu_out = call_function "torch.nn.functional.gelu"(input=%fc1_out) : (tensor<8x32xf32>) -> tensor<8x32xf32>
    // CHECK: %fc2_out = call_method %fc2["forward"](%gelu_out) : (!traced.module<@fc2>, tensor<8x32xf32>) -> tensor<8x4xf32>
    %fc1 = getattr %self["fc1"] : !traced.module<@MLP> -> !traced.module<@fc1>
    %0 = call_method %fc1["forward"](%x) : (!traced.module<@fc1>, tensor<8x16xf32>) -> tensor<8x32xf32>
    %1 = call_function "torch.nn.functional.gelu"(%0) : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %fc2 = getattr %self["fc2"] : !traced.module<@MLP> -> !traced.module<@fc2>
    %2 = call_method %fc2["forward"](%1) : (!traced.module<@fc2>, tensor<8x32xf32>) -> tensor<8x4xf32>
    output %2 : tensor<8x4xf32>
  }
}

traced.module @fc1 class "torch.nn.modules.linear.Linear" {
  parameter @weight : tensor<32x16xf32> = dense<0.01> : tensor<32x16xf32>
  parameter @bias : tensor<32xf32> = dense<0.0> : tensor<32xf32>
  attribute @in_features : i64 = 16
  attribute @out_features : i64 = 32
}
traced.module @fc2 class "torch.nn.modules.linear.Linear" {
  parameter @weight : tensor<4x32xf32> = dense<0.01> : tensor<4x32xf32>
  parameter @bias : tensor<4xf32> = dense<0.0> : tensor<4xf32>
  attribute @in_features : i64 = 32
  attribute @out_features : i64 = 4
}
