// traced-gpu-device-buffers counts a tensor-map marker (an i64 cast of a
// buffer carrying `traced.tensor_map`, from traced-gpu-tile-contractions'
// TMA kernels) as a device use of the buffer; traced-gpu-tensor-maps then
// replaces each marker with a call of the runtime's traced_gpu_tensor_map
// over the device copy: sizes innermost first, row pitches in bytes, the
// box. An argument is copied to the device first (or used in place, when
// it is device memory: test/Conversion/Gpu/in-place-arguments.mlir), and
// the map is built over whichever buffer the kernel reads; a weight is resident,
// and the map is built over the resident copy, never the host constant.
// RUN: traced-opt %s --traced-gpu-device-buffers --traced-gpu-tensor-maps -split-input-file -verify-diagnostics | FileCheck %s

// CHECK:       func.func private @traced_gpu_tensor_map(i64, i32, i32, i64, i64, i64, i64, i64, i32, i32, i32) -> i64
// CHECK:       func.func private @traced_gpu_resident(i64, i64) -> i64
// CHECK-LABEL: func.func @maps
// CHECK:       %[[HOSTW:.*]] = memref.get_global @w
// CHECK:       %[[RES:.*]] = call @traced_gpu_resident
// CHECK:       %[[W:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<{{.*}}> to memref<2x64x32xbf16>
// CHECK:       %[[IN:.*]] = arith.cmpi ne
// CHECK:       %[[AD:.*]] = gpu.alloc () : memref<100x40xf16>
// CHECK:       %[[A:.*]] = arith.select %[[IN]], %arg0, %[[AD]]
// CHECK:       gpu.memcpy %[[A]], %arg0
// CHECK:       %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:       %[[PA64:.*]] = arith.index_cast %[[PA]] : index to i64
// CHECK:       %[[MA:.*]] = call @traced_gpu_tensor_map(%[[PA64]], %c1_i32{{(_[0-9]+)?}}, %c2_i32{{(_[0-9]+)?}}, %c40_i64{{(_[0-9]+)?}}, %c100_i64{{(_[0-9]+)?}}, %c1_i64{{(_[0-9]+)?}}, %c80_i64{{(_[0-9]+)?}}, %c0_i64{{(_[0-9]+)?}}, %c64_i32{{(_[0-9]+)?}}, %c256_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}})
// CHECK:       %[[PW:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK:       %[[PW64:.*]] = arith.index_cast %[[PW]] : index to i64
// CHECK:       %[[MW:.*]] = call @traced_gpu_tensor_map(%[[PW64]], %c0_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}}, %c32_i64{{(_[0-9]+)?}}, %c64_i64{{(_[0-9]+)?}}, %c2_i64{{(_[0-9]+)?}}, %c64_i64{{(_[0-9]+)?}}, %c4096_i64{{(_[0-9]+)?}}, %c64_i32{{(_[0-9]+)?}}, %c64_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}})
// CHECK-NOT:   traced.tensor_map
// CHECK:       gpu.launch
// CHECK:         llvm.inttoptr %[[MA]]
// CHECK:         llvm.inttoptr %[[MW]]
memref.global "private" constant @w : memref<2x64x32xbf16> = dense<1.0>
func.func @maps(%a: memref<100x40xf16>) attributes {traced.entry = (tensor<100x40xf16>) -> ()} {
  %w = memref.get_global @w : memref<2x64x32xbf16>
  %ma = builtin.unrealized_conversion_cast %a : memref<100x40xf16> to i64 {traced.tensor_map = array<i64: 64, 256, 1>}
  %mw = builtin.unrealized_conversion_cast %w : memref<2x64x32xbf16> to i64 {traced.tensor_map = array<i64: 64, 64, 1>}
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%x1 = %c1, %y1 = %c1, %z1 = %c1) {
    %pa = llvm.inttoptr %ma : i64 to !llvm.ptr
    %pw = llvm.inttoptr %mw : i64 to !llvm.ptr
    gpu.terminator
  }
  return
}

// -----

// Only 16-bit floating-point buffers have tensor maps here.
func.func @f32_map(%a: memref<64x64xf32>) attributes {traced.entry = (tensor<64x64xf32>) -> ()} {
  // expected-error @below {{a tensor map needs a static, row-major buffer of bfloat16 or float16 of rank 1 to 3 and a box of 3 sizes; got 'memref<64x64xf32>'}}
  %m = builtin.unrealized_conversion_cast %a : memref<64x64xf32> to i64 {traced.tensor_map = array<i64: 64, 64, 1>}
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%x1 = %c1, %y1 = %c1, %z1 = %c1) {
    %p = llvm.inttoptr %m : i64 to !llvm.ptr
    gpu.terminator
  }
  return
}
