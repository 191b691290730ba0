// The GPU pipeline's memory: device memory only (no managed allocation),
// weights resident (traced_gpu_resident returns the device copy uploaded on
// the first call), the argument copied in and the results copied out with
// gpu.memcpy, and every copy, launch and free queued on one stream (one
// gpu.wait async, one final gpu.wait). A reduction to a 0-d result and its
// initial store run as one-thread kernels, not as host code.
// RUN: traced-opt %s --traced-gpu-pipeline=binary=false | FileCheck %s
// RUN: traced-opt %s --traced-gpu-pipeline | FileCheck %s --check-prefix=LLVM

traced.module root @M class "m.M" {
  parameter @w : tensor<4x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<f32>) {
    %w = getattr %self["w"] : !traced.module<@M> -> tensor<4x3xf32>
    %y = call_function "torch.nn.functional.linear"(input=%x, weight=%w) : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
    %s = call_function "torch.sum"(input=%y) : (tensor<2x4xf32>) -> tensor<f32>
    output %y, %s : tensor<2x4xf32>, tensor<f32>
  }
}

// CHECK-NOT: host_shared
// CHECK:     func.func private @traced_gpu_resident(i64, i64) -> i64
// CHECK-NOT: host_shared
// CHECK: func.func @forward(%[[X:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<2x4xf32>, %[[S:.*]]: memref<f32>)
// CHECK:     %[[HOST:.*]] = memref.get_global @__constant_3x4xf32
// CHECK:     memref.extract_aligned_pointer_as_index %[[HOST]]
// CHECK:     call @traced_gpu_resident(%{{.*}}, %c48_i64) : (i64, i64) -> i64
// CHECK:     %[[W:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<12xf32>
// CHECK:     %[[T0:.*]] = gpu.wait async
// CHECK-NOT: gpu.wait
// CHECK:     gpu.alloc async
// CHECK-NOT: gpu.wait
// CHECK:     gpu.memcpy async [%{{.*}}] %[[XD:.*]], %[[X]] : memref<2x3xf32>, memref<2x3xf32>
// CHECK-NOT: gpu.wait
// CHECK:     memref.extract_strided_metadata %[[W]]
// (The matmul, its zero fill taken in, reads the argument's device copy.)
// CHECK:     gpu.launch_func async {{.*}} args({{.*}}%[[XD]] : memref<2x3xf32>
// The 0-d sum: its initial value and its loop, each one thread of one block.
// (Its constants are sunk into the kernel: only the buffer is passed.)
// CHECK:     gpu.launch_func async {{.*}} blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<f32>)
// CHECK:     gpu.launch_func async {{.*}} blocks in (%c1, %c1, %c1)
// CHECK-NOT: gpu.wait
// CHECK:     gpu.memcpy async [%{{.*}}] %[[Y]], %{{.*}} : memref<2x4xf32>, memref<2x4xf32>
// CHECK:     gpu.dealloc async
// CHECK:     gpu.memcpy async [%{{.*}}] %[[S]], %{{.*}} : memref<f32>, memref<f32>
// CHECK:     gpu.dealloc async
// CHECK-NOT: gpu.wait async
// CHECK:     gpu.wait [%{{.*}}]
// CHECK-NEXT: return
// CHECK-NOT: host_shared

// In the LLVM dialect: device allocations (isHostShared = 0) on the one
// stream the call gets from mgpuStreamCreate (the runtime's pool, or the
// caller's stream after traced_gpu_set_stream).
// LLVM:     %[[FALSE:.*]] = llvm.mlir.constant(0 : i8) : i8
// LLVM:     llvm.call @traced_gpu_resident(
// LLVM:     %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// LLVM-NOT: llvm.call @mgpuStreamCreate
// LLVM:     llvm.call @mgpuMemAlloc(%{{.*}}, %[[STREAM]], %[[FALSE]]) : (i64, !llvm.ptr, i8) -> !llvm.ptr
// LLVM:     llvm.call @mgpuMemcpy(
// LLVM:     llvm.call @mgpuStreamSynchronize(
// LLVM-NEXT: llvm.call @mgpuStreamDestroy(
