// RUN: traced-opt %s | FileCheck %s

// Basic tensor indexing: ints, slices, None and Ellipsis.

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x197x768xf32>, %l: !traced.list<tensor<3xf32>>, %n: i64) {
    // ViT's class token: x[:, 0].
    // CHECK: call_function "operator.getitem"(input=%x, index=(slice(None, None, None), 0)) : (tensor<2x197x768xf32>) -> tensor<2x768xf32>
    %0 = call_function "operator.getitem"(%x, (slice(None, None, None), 0)) : (tensor<2x197x768xf32>) -> tensor<2x768xf32>
    // CHECK: call_method %x["__getitem__"](index=(..., slice(1, None, 2))) : (tensor<2x197x768xf32>) -> tensor<2x197x384xf32>
    %1 = call_method %x["__getitem__"]((..., slice(1, None, 2))) : (tensor<2x197x768xf32>) -> tensor<2x197x384xf32>
    // CHECK: call_function "operator.getitem"(input=%x, index=(None, slice(-5, None, None), -1)) : (tensor<2x197x768xf32>) -> tensor<1x2x768xf32>
    %2 = call_function "operator.getitem"(%x, (None, slice(-5, None, None), -1)) : (tensor<2x197x768xf32>) -> tensor<1x2x768xf32>
    // CHECK: call_function "operator.getitem"(input=%x, index=1) : (tensor<2x197x768xf32>) -> tensor<197x768xf32>
    %3 = call_function "operator.getitem"(%x, 1) : (tensor<2x197x768xf32>) -> tensor<197x768xf32>
    // CHECK: call_function "operator.getitem"(input=%l, index=%n) : (!traced.list<tensor<3xf32>>, i64) -> tensor<3xf32>
    %4 = call_function "operator.getitem"(%l, %n) : (!traced.list<tensor<3xf32>>, i64) -> tensor<3xf32>
    // A traced slice bound: the size is unknown and not checked.
    // CHECK: call_function "operator.getitem"(input=%x, index=(slice(None, %n, None),)) : (tensor<2x197x768xf32>, i64) -> tensor<?x197x768xf32>
    %5 = call_function "operator.getitem"(%x, (slice(None, %n, None),)) : (tensor<2x197x768xf32>, i64) -> tensor<?x197x768xf32>
    output
  }
}
