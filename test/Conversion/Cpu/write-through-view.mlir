// A write through a view (`cache[0][:, :, 3:5] = k`, recorded as the
// view's update inserted back into the cache) followed by a read of the
// view (`cache[0][:, :, :5]`): the canonicalizer folds that read to the
// updated view's value, read after the cache was written. Before
// bufferization the read is rebuilt from the written cache, so one-shot
// bufferization keeps the update in place; the copy of the view onto
// itself it then leaves is erased. Donated, the cache is written with the
// two new rows and nothing else.
// RUN: traced-opt %s --traced-cpu-pipeline="donate=1:1" --mlir-print-ir-after=traced-cpu-check-donations -o /dev/null 2>&1 | FileCheck %s
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[K:[^:]*]]: memref<1x4x2x16xf32>, %[[CACHE:[^:]*]]: memref<2x1x4x64x16xf32> {traced.aliasing_output = 1 : i64}
// CHECK-NOT:     memref.alloc() {{.*}} : memref<1x1x4x64x16xf32>
// CHECK-NOT:     memref.alloc() {{.*}} : memref<1x4x64x16xf32>
// CHECK:         memref.copy %[[K]], %{{.*}} : memref<1x4x2x16xf32> to memref<1x4x2x16xf32, strided<[4096, 1024, 16, 1], offset: 48>>
// CHECK-NOT:     memref.copy %{{.*}} : memref<1x1x4x64x16xf32, {{.*}}> to memref<1x1x4x64x16xf32
// CHECK:         scf.if
// CHECK-NEXT:      memref.copy %[[CACHE]], %{{.*}} : memref<2x1x4x64x16xf32> to memref<2x1x4x64x16xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %k: tensor<1x4x2x16xf32>, %cache: tensor<2x1x4x64x16xf32>) -> (tensor<1x4x16xf32>, tensor<2x1x4x64x16xf32>) {
    %a = call_method %cache["__getitem__"](index=0) : (tensor<2x1x4x64x16xf32>) -> tensor<1x4x64x16xf32>
    %b = call_method %a["__setitem__"](index=(slice(None, None, None), slice(None, None, None), slice(3, 5, None)), value=%k) : (tensor<1x4x64x16xf32>, tensor<1x4x2x16xf32>) -> tensor<1x4x64x16xf32>
    %c = call_function "operator.setitem"(input=%cache, index=0, value=%b) : (tensor<2x1x4x64x16xf32>, tensor<1x4x64x16xf32>) -> tensor<2x1x4x64x16xf32>
    %d = call_method %c["__getitem__"](index=0) : (tensor<2x1x4x64x16xf32>) -> tensor<1x4x64x16xf32>
    %e = call_method %d["__getitem__"](index=(slice(None, None, None), slice(None, None, None), slice(None, 5, None))) : (tensor<1x4x64x16xf32>) -> tensor<1x4x5x16xf32>
    %s = call_method %e["sum"](dim=[2]) : (tensor<1x4x5x16xf32>) -> tensor<1x4x16xf32>
    output %s, %c : tensor<1x4x16xf32>, tensor<2x1x4x64x16xf32>
  }
}
