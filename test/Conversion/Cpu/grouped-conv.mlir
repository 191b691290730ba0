// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=true min-parallel-flops=0},canonicalize,cse))' | FileCheck %s

// A grouped convolution (not depthwise) becomes im2col plus a batched
// matmul with the groups as its batch: the patches are filled tap by tap
// from strided views of the input (vectorized copies, as for the plain
// convolution). Its patches (P = 64 output positions) are large against
// a group's filter (8 channels), so the output rows go in blocks of 2 (16
// columns: one vector), one scf.forall iteration each, as for the plain
// convolution (im2col-blocks.mlir). As a convolution it ran as scalar
// loops on one thread.

func.func @grouped(%x: tensor<1x4x2x10x10xf32>, %w: tensor<4x8x2x3x3xf32>) -> tensor<1x4x8x8x8xf32> {
  %e = tensor.empty() : tensor<1x4x8x8x8xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x8x8x8xf32>) -> tensor<1x4x8x8x8xf32>
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x2x10x10xf32>, tensor<4x8x2x3x3xf32>) outs(%f : tensor<1x4x8x8x8xf32>) -> tensor<1x4x8x8x8xf32>
  return %r : tensor<1x4x8x8x8xf32>
}

// CHECK-LABEL: func.func @grouped
// CHECK-NOT:     linalg.conv_2d_ngchw_gfchw
// CHECK:         tensor.collapse_shape %arg1 {{.*}} : tensor<4x8x2x3x3xf32> into tensor<4x8x18xf32>
// CHECK:         scf.forall (%{{.*}}) in (4) shared_outs
// CHECK:           %[[IN:.*]] = tensor.extract_slice %arg0[0, 0, 0, %{{.*}}, 0] [1, 4, 2, 4, 10] [1, 1, 1, 1, 1]
// CHECK:           scf.for %[[I:.*]] = %c0 to %c3
// CHECK:             scf.for %[[J:.*]] = %c0 to %c3
// CHECK:               tensor.extract_slice %[[IN]][0, 0, 0, %[[I]], %[[J]]] [1, 4, 2, 2, 8] [1, 1, 1, 1, 1]
// CHECK:               tensor.insert_slice {{.*}}[0, 0, 0, %[[I]], %[[J]], 0, 0] [1, 4, 2, 1, 1, 2, 8]
// CHECK:           tensor.collapse_shape {{.*}} : tensor<1x4x2x3x3x2x8xf32> into tensor<4x18x16xf32>
// CHECK-NOT:       scf.forall
// CHECK:           scf.for {{.*}} to %c18 step %c1 iter_args({{.*}}) -> (vector<1x8x16xf32>)
// CHECK:             vector.broadcast {{.*}} : f32 to vector<16xf32>
// CHECK:         scf.forall.in_parallel

// -----

// Output positions too few for blocks of rows (P = 16 < 4 x 8): blocks of
// whole groups instead, one scf.forall iteration each (the most groups
// whose patches fit the budget, at least min(8, G) blocks an image: here
// one group a block). Each fills its group's patches from its group's
// input channels and multiplies them by its group's filter.

func.func @groups(%x: tensor<1x4x2x6x6xf32>, %w: tensor<4x8x2x3x3xf32>) -> tensor<1x4x8x4x4xf32> {
  %e = tensor.empty() : tensor<1x4x8x4x4xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x8x4x4xf32>) -> tensor<1x4x8x4x4xf32>
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x2x6x6xf32>, tensor<4x8x2x3x3xf32>) outs(%f : tensor<1x4x8x4x4xf32>) -> tensor<1x4x8x4x4xf32>
  return %r : tensor<1x4x8x4x4xf32>
}

// CHECK-LABEL: func.func @groups
// CHECK:         %[[F:.*]] = tensor.collapse_shape %arg1 {{.*}} into tensor<4x8x18xf32>
// CHECK:         scf.forall (%[[G:.*]]) in (4) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<1x4x8x16xf32>)
// CHECK:           tensor.extract_slice %arg0[0, %[[G]], 0, 0, 0] [1, 1, 2, 6, 6]
// CHECK:           scf.for %{{.*}} = %c0 to %c3
// CHECK:             scf.for %{{.*}} = %c0 to %c3
// CHECK:           tensor.collapse_shape {{.*}} : tensor<1x1x2x3x3x4x4xf32> into tensor<1x18x16xf32>
// CHECK:           tensor.extract_slice %[[F]][%[[G]], 0, 0] [1, 8, 18]
// CHECK:           tensor.extract_slice %[[OUT]][0, %[[G]], 0, 0] [1, 1, 8, 16]
// CHECK-NOT:       scf.forall
// CHECK:           scf.for {{.*}} to %c18 step %c1 iter_args({{.*}}) -> (vector<1x8x16xf32>)
// CHECK:         scf.forall.in_parallel
// CHECK:           tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, %[[G]], 0, 0] [1, 1, 8, 16]
