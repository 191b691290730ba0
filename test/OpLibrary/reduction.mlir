// RUN: traced-opt %s | FileCheck %s

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4x5xf32>, %i: tensor<6xi32>) {
    // ShuffleNet's global pool: x.mean([2, 3]).
    // CHECK: call_method %x["mean"](dim=[2, 3]) : (tensor<2x3x4x5xf32>) -> tensor<2x3xf32>
    %0 = call_method %x["mean"]([2, 3]) : (tensor<2x3x4x5xf32>) -> tensor<2x3xf32>
    // CHECK: call_function "torch.mean"(input=%x, dim=[-1], keepdim=True) : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x1xf32>
    %1 = call_function "torch.mean"(%x, -1, True) : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x1xf32>
    // CHECK: call_function "torch.sum"(input=%x) : (tensor<2x3x4x5xf32>) -> tensor<f32>
    %2 = call_function "torch.sum"(%x) : (tensor<2x3x4x5xf32>) -> tensor<f32>
    // CHECK: call_method %i["sum"](dim=[0], dtype=dtype(i64)) : (tensor<6xi32>) -> tensor<i64>
    %3 = call_method %i["sum"](0, dtype=dtype(i64)) : (tensor<6xi32>) -> tensor<i64>
    output
  }
}
