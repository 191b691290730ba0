// Constant globals of rank 2 and more become rank 1 before the LLVM
// lowering (LLVM IR would hold one uniqued constant per innermost row of a
// nested array: ~50 bytes per 3x3 filter row). A dense_resource value
// shares its blob; each get_global is expanded back to the original shape.
// Mutable globals, rank-1 and rank-0 ones are left alone. The compiled
// result is unchanged (the run below).
// RUN: traced-opt %s --traced-cpu-flatten-globals | FileCheck %s
// RUN: traced-opt %s --traced-cpu-flatten-globals --finalize-memref-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: module @filters
// CHECK:       memref.global "private" constant @w : memref<12xf32> = dense_resource<w_blob>
// CHECK:       memref.global "private" constant @d : memref<4xi32> = dense<[1, 2, 3, 4]>
// CHECK:       memref.global "private" constant @v : memref<3xf32>
// CHECK:       memref.global "private" constant @s : memref<f32>
// CHECK:       memref.global "private" @m : memref<2x2xf32>
// CHECK-LABEL: func.func @f
// CHECK:         %[[W:.*]] = memref.get_global @w : memref<12xf32>
// CHECK:         memref.expand_shape %[[W]] {{\[\[}}0, 1, 2, 3]] output_shape [1, 2, 2, 3] : memref<12xf32> into memref<1x2x2x3xf32>
// CHECK:         %[[D:.*]] = memref.get_global @d : memref<4xi32>
// CHECK:         memref.expand_shape %[[D]] {{\[\[}}0, 1]] output_shape [2, 2] : memref<4xi32> into memref<2x2xi32>
// CHECK:         memref.get_global @m : memref<2x2xf32>
// A nested symbol table's global of the same name is its own: untouched.
// CHECK:       gpu.module @kernels
// CHECK:         memref.global "private" constant @w : memref<2x2xf32>
// CHECK:         memref.get_global @w : memref<2x2xf32>
// LLVM-LABEL: module @filters
// LLVM:       llvm.mlir.global private constant @w(dense_resource<w_blob> : tensor<12xf32>) {{.*}} : !llvm.array<12 x f32>
// LLVM:       llvm.mlir.global private constant @d(dense<[1, 2, 3, 4]> : tensor<4xi32>) {{.*}} : !llvm.array<4 x i32>
module @filters {
  memref.global "private" constant @w : memref<1x2x2x3xf32> = dense_resource<w_blob>
  memref.global "private" constant @d : memref<2x2xi32> = dense<[[1, 2], [3, 4]]>
  memref.global "private" constant @v : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
  memref.global "private" constant @s : memref<f32> = dense<1.0>
  memref.global "private" @m : memref<2x2xf32> = dense<0.0>
  func.func @f() -> (f32, i32, f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %w = memref.get_global @w : memref<1x2x2x3xf32>
    %d = memref.get_global @d : memref<2x2xi32>
    %m = memref.get_global @m : memref<2x2xf32>
    %a = memref.load %w[%c0, %c1, %c1, %c1] : memref<1x2x2x3xf32>
    %b = memref.load %d[%c1, %c0] : memref<2x2xi32>
    %c = memref.load %m[%c1, %c0] : memref<2x2xf32>
    return %a, %b, %c : f32, i32, f32
  }
  gpu.module @kernels {
    memref.global "private" constant @w : memref<2x2xf32> = dense<1.0>
    func.func @g() -> memref<2x2xf32> {
      %w = memref.get_global @w : memref<2x2xf32>
      return %w : memref<2x2xf32>
    }
  }
}

{-#
  dialect_resources: {
    builtin: {
      w_blob: "0x04000000000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041"
    }
  }
#-}
