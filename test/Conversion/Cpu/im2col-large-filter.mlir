// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=true min-parallel-flops=0},canonicalize,cse))' | FileCheck %s

// A filter of more than 64 taps (ViT's 16 x 16 stride-16 patch embedding)
// fills its im2col patches with the same tap loop as a small one: one
// strided copy per (kh, kw) iteration. Before, such filters used one
// gather generic, scalar loops that LLVM unrolled into gathers.

func.func @patchify(%x: tensor<1x3x64x64xf32>, %w: tensor<32x3x16x16xf32>) -> tensor<1x32x4x4xf32> {
  %e = tensor.empty() : tensor<1x32x4x4xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<16> : tensor<2xi64>} ins(%x, %w : tensor<1x3x64x64xf32>, tensor<32x3x16x16xf32>) outs(%f : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %r : tensor<1x32x4x4xf32>
}

// CHECK-LABEL: func.func @patchify
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK:         scf.for %[[I:.*]] = %c0 to %c16 step %c1 iter_args({{.*}}) -> (tensor<1x3x16x16x4x4xf32>)
// CHECK:           scf.for %[[J:.*]] = %c0 to %c16 step %c1
// CHECK:             tensor.extract_slice %arg0[0, 0, %[[I]], %[[J]]] [1, 3, 4, 4] [1, 1, 16, 16]
// CHECK-NOT:     linalg.generic
