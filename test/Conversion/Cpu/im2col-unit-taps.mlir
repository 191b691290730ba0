// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=true min-parallel-flops=0},canonicalize,cse))' | FileCheck %s
// RUN: traced-opt %s --traced-cpu-pipeline -o /dev/null

// Unit dims next to the taps: a 1 x 3 filter over one output row (a 1-D
// convolution, as ConvTranspose1d lowers to). The tap loop's kh loop has
// one iteration and folds away; the patches' row block is a full-rank
// slice, so no unit dim is ambiguous when the canonicalizer folds the
// slices (with a rank-reduced one it built an out-of-bounds slice:
// "slice along dimension 2 runs out-of-bounds: 1 >= 1").

func.func @row(%x: tensor<1x2x1x16xf32>, %w: tensor<3x2x1x3xf32>) -> tensor<1x3x1x14xf32> {
  %e = tensor.empty() : tensor<1x3x1x14xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x3x1x14xf32>) -> tensor<1x3x1x14xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x1x16xf32>, tensor<3x2x1x3xf32>) outs(%f : tensor<1x3x1x14xf32>) -> tensor<1x3x1x14xf32>
  return %r : tensor<1x3x1x14xf32>
}

// CHECK-LABEL: func.func @row
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK:         scf.for %[[J:.*]] = %c0 to %c3 step %c1 iter_args(%[[P:.*]] = %{{.*}}) -> (tensor<1x2x1x3x1x14xf32>)
// CHECK:           tensor.extract_slice %arg0[0, 0, 0, %[[J]]] [1, 2, 1, 14] [1, 1, 1, 1]
// CHECK:           tensor.extract_slice %[[P]][0, 0, 0, %[[J]], 0, 0] [1, 2, 1, 1, 1, 14] [1, 1, 1, 1, 1, 1] : tensor<1x2x1x3x1x14xf32> to tensor<1x2x1x1x1x14xf32>
