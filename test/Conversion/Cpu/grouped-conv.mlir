// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=true min-parallel-flops=0},canonicalize,cse))' | FileCheck %s

// A grouped convolution (not depthwise) becomes im2col plus one batched
// matmul per image with the groups as its batch: the patches are filled tap
// by tap from strided views of the input (vectorized copies, as for the
// plain convolution), and the contraction strategy spreads the groups over
// threads around a register-tiled kernel. As a convolution it ran as
// scalar loops on one thread.

func.func @grouped(%x: tensor<1x4x2x10x10xf32>, %w: tensor<4x8x2x3x3xf32>) -> tensor<1x4x8x8x8xf32> {
  %e = tensor.empty() : tensor<1x4x8x8x8xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x8x8x8xf32>) -> tensor<1x4x8x8x8xf32>
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x2x10x10xf32>, tensor<4x8x2x3x3xf32>) outs(%f : tensor<1x4x8x8x8xf32>) -> tensor<1x4x8x8x8xf32>
  return %r : tensor<1x4x8x8x8xf32>
}

// CHECK-LABEL: func.func @grouped
// CHECK-NOT:     linalg.conv_2d_ngchw_gfchw
// CHECK:         scf.for %[[I:.*]] = %c0 to %c3
// CHECK:           scf.for %[[J:.*]] = %c0 to %c3
// CHECK:             tensor.extract_slice %arg0[0, 0, 0, %[[I]], %[[J]]] [1, 4, 2, 8, 8] [1, 1, 1, 1, 1]
// CHECK:             tensor.insert_slice {{.*}}[0, 0, 0, %[[I]], %[[J]], 0, 0] [1, 4, 2, 1, 1, 8, 8]
// CHECK:         tensor.collapse_shape {{.*}} : tensor<1x4x2x3x3x8x8xf32> into tensor<1x4x18x64xf32>
// CHECK:         tensor.collapse_shape %arg1 {{.*}} : tensor<4x8x2x3x3xf32> into tensor<4x8x18xf32>
// CHECK:         scf.forall (%{{.*}}) in (4)
// CHECK:           scf.for {{.*}} to %c18 step %c1 iter_args({{.*}}) -> (vector<1x8x32xf32>)
// CHECK:             vector.broadcast {{.*}} : f32 to vector<32xf32>
