// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=true lower-vectors=false},canonicalize,cse))' | FileCheck %s

// An im2col convolution of one image takes the output without its unit
// image dim as its accumulator: a collapse_shape of the zero-filled output,
// not a rank-reducing slice of it written back with insert_slice. CSE
// shared such slice pairs between same-shaped convolutions, and
// one-shot-bufferize then copied the fill for each of them, serially
// (MobileNetV2, 1 and 2 threads: about 5% of its time; docs/cpu.md).

func.func @pointwise(%x: tensor<1x16x56x56xf32>) -> tensor<1x32x56x56xf32> {
  %w = arith.constant dense<0.5> : tensor<32x16x1x1xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x56x56xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x56x56xf32>) -> tensor<1x32x56x56xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x56x56xf32>, tensor<32x16x1x1xf32>) outs(%f : tensor<1x32x56x56xf32>) -> tensor<1x32x56x56xf32>
  return %r : tensor<1x32x56x56xf32>
}

// CHECK-LABEL: func.func @pointwise
// CHECK-NOT:     tensor.extract_slice %{{.*}}[0, 0, 0] [1, 32, 3136]
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : tensor<1x32x56x56xf32> into tensor<32x3136xf32>
// CHECK-NOT:     tensor.insert_slice %{{.*}}[0, 0, 0] [1, 32, 3136]
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] output_shape [1, 32, 56, 56] : tensor<32x3136xf32> into tensor<1x32x56x56xf32>
// CHECK:         return
