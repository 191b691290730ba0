// traced-gpu-device-buffers uses the caller's memory in place when the
// runtime says it is device memory the kernels can use
// (traced_gpu_in_place: device memory of its context, not managed,
// 256-byte aligned): an input no kernel or copy writes, a result that
// overlaps no other argument. Each such argument's buffer is an
// arith.select between the caller's memory and the function's device
// buffer; the copies in and out are unchanged (the runtime skips a copy
// of a buffer onto itself) and the device buffer is what is freed. The
// decisions come before the first GPU op, so the stream is not waited on.
// RUN: traced-opt %s --traced-gpu-device-buffers -split-input-file | FileCheck %s

// CHECK:       func.func private @traced_gpu_in_place(i64) -> i32
// CHECK-LABEL: func.func @reads
// CHECK-SAME:    (%[[A:.*]]: memref<64xf32>, %[[R:.*]]: memref<64xf32>)
// CHECK:       %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:       %[[A0:.*]] = arith.index_cast %[[PA]] : index to i64
// CHECK:       %[[A1:.*]] = arith.addi %[[A0]], %c256_i64
// CHECK:       %[[PR:.*]] = memref.extract_aligned_pointer_as_index %[[R]]
// CHECK:       %[[R0:.*]] = arith.index_cast %[[PR]] : index to i64
// CHECK:       %[[R1:.*]] = arith.addi %[[R0]], %c256_i64
// CHECK:       %[[ADEV:.*]] = call @traced_gpu_in_place(%[[A0]]) : (i64) -> i32
// CHECK:       %[[AIN:.*]] = arith.cmpi ne, %[[ADEV]], %c0_i32
// The result: device memory, and disjoint from the input.
// CHECK:       %[[RDEV:.*]] = call @traced_gpu_in_place(%[[R0]]) : (i64) -> i32
// CHECK:       %[[ROK:.*]] = arith.cmpi ne, %[[RDEV]], %c0_i32
// CHECK:       %[[BEFORE:.*]] = arith.cmpi ule, %[[R1]], %[[A0]] : i64
// CHECK:       %[[AFTER:.*]] = arith.cmpi ule, %[[A1]], %[[R0]] : i64
// CHECK:       %[[DISJOINT:.*]] = arith.ori %[[BEFORE]], %[[AFTER]]
// CHECK:       %[[RIN:.*]] = arith.andi %[[ROK]], %[[DISJOINT]]
// CHECK-NOT:   call
// CHECK:       %[[RD:.*]] = gpu.alloc () : memref<64xf32>
// CHECK:       %[[RB:.*]] = arith.select %[[RIN]], %[[R]], %[[RD]] : memref<64xf32>
// CHECK:       %[[AD:.*]] = gpu.alloc () : memref<64xf32>
// CHECK:       %[[AB:.*]] = arith.select %[[AIN]], %[[A]], %[[AD]] : memref<64xf32>
// CHECK:       gpu.memcpy %[[AB]], %[[A]]
// CHECK:       gpu.launch
// CHECK:         memref.load %[[AB]]
// CHECK:         memref.store %{{.*}}, %[[RB]]
// CHECK:       gpu.dealloc %[[AD]]
// CHECK:       gpu.memcpy %[[R]], %[[RB]]
// CHECK:       gpu.dealloc %[[RD]]
// CHECK:       return
func.func @reads(%a: memref<64xf32>, %r: memref<64xf32>) attributes {traced.entry = (tensor<64xf32>) -> tensor<64xf32>} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%x1 = %c1, %y1 = %c1, %z1 = %c1) {
    %v = memref.load %a[%tx] : memref<64xf32>
    memref.store %v, %r[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// An input a kernel writes (through a view) is always copied: the caller's
// tensor must not change.
// CHECK-LABEL: func.func @writes_input
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[R:.*]]: memref<4x16xf32>)
// CHECK:       call @traced_gpu_in_place(%[[RADDR:.*]])
// CHECK-NOT:   call @traced_gpu_in_place
// CHECK:       arith.select %{{.*}}, %[[R]], %{{.*}} : memref<4x16xf32>
// CHECK-NOT:   arith.select
// CHECK:       %[[AD:.*]] = gpu.alloc () : memref<4x16xf32>
// CHECK-NEXT:  gpu.memcpy %[[AD]], %[[A]]
// CHECK:       memref.collapse_shape %[[AD]]
func.func @writes_input(%a: memref<4x16xf32>, %r: memref<4x16xf32>) attributes {traced.entry = (tensor<4x16xf32>) -> tensor<4x16xf32>} {
  %c1 = arith.constant 1 : index
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x16xf32> into memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%x1 = %c1, %y1 = %c1, %z1 = %c1) {
    %v = memref.load %flat[%tx] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %flat[%tx] : memref<64xf32>
    memref.store %w, %r[%tx, %tx] : memref<4x16xf32>
    gpu.terminator
  }
  return
}
