// RUN: traced-opt %s | FileCheck %s
// RUN: traced-opt %s --mlir-print-op-generic | traced-opt | FileCheck %s
// RUN: traced-opt %s -emit-bytecode | traced-opt | FileCheck %s

// CallFunction exprs: Python call syntax over operands and constants.

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>, %n: i64) -> tensor<1x12xf32> {
    // Constants are Python values; operands may sit inside lists.
    // CHECK: %conv2d_out = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w, padding=[1, 1]) : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, None, 1, [1, 1]) : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
    // CHECK: %cat_out = call_function "torch.cat"(tensors=[%conv2d_out, %conv2d_out], dim=1) : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x6x4x4xf32>
    %1 = call_function "torch.cat"([%0, %0], 1) : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x6x4x4xf32>
    // A traced int inside a shape: only the rank is known.
    // CHECK: %reshape_out = call_function "torch.reshape"(input=%cat_out, shape=[%n, -1]) : (tensor<1x6x4x4xf32>, i64) -> tensor<?x?xf32>
    %2 = call_function "torch.reshape"(%1, (%n, -1)) : (tensor<1x6x4x4xf32>, i64) -> tensor<?x?xf32>
    // CHECK: %getitem_out = call_function "operator.getitem"(input=%reshape_out, index=(slice(None, None, None), slice(0, 12, None))) : (tensor<?x?xf32>) -> tensor<?x12xf32>
    %3 = call_function "operator.getitem"(%2, (slice(None, None, None), slice(0, 12, None))) : (tensor<?x?xf32>) -> tensor<?x12xf32>
    // CHECK: %getitem_out_0 = call_function "operator.getitem"(input=%getitem_out, index=(..., None)) : (tensor<?x12xf32>) -> tensor<?x12x1xf32>
    %4 = call_function "operator.getitem"(%3, (..., None)) : (tensor<?x12xf32>) -> tensor<?x12x1xf32>
    // CHECK: %flatten_out = call_function "torch.flatten"(input=%getitem_out_0, start_dim=1) : (tensor<?x12x1xf32>) -> tensor<?x12xf32>
    %5 = call_function "torch.flatten"(%4, start_dim=1) : (tensor<?x12x1xf32>) -> tensor<?x12xf32>
    // CHECK: %reshape_out_1 = call_function "torch.reshape"(input=%flatten_out, shape=[1, 12]) : (tensor<?x12xf32>) -> tensor<1x12xf32>
    %6 = call_function "torch.reshape"(%5, shape=[1, 12]) : (tensor<?x12xf32>) -> tensor<1x12xf32>
    output %6 : tensor<1x12xf32>
  }
}
