// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{tile-n=16 parallel=true min-parallel-flops=0 lower-vectors=false},canonicalize,cse))' --mlir-elide-resource-strings-if-larger=1 | FileCheck %s
// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{tile-n=16 lower-vectors=false},canonicalize,cse))' --mlir-elide-resource-strings-if-larger=1 | FileCheck %s --check-prefix=SERIAL
// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{tile-n=16 winograd=false lower-vectors=false},canonicalize,cse))' | FileCheck %s --check-prefix=OFF

// A 3x3 convolution of unit stride with a constant filter, 32 channels in
// and out, as Winograd F(2x2, 3x3). The filter is transformed at compile
// time into 16 matrices of 32 x 32. With threads, 8 x 8 tiles an image
// make blocks of 4 tile rows (32 tiles: 16 x 32 x 32 floats, within the
// budget), and one scf.forall over (image, block) transforms a block's
// tiles of every input channel (two 16-wide loads of each input row,
// deinterleaved into even and odd lanes), multiplies them (one batch
// matmul of 16 x 32 x 32 by 16 x 32 x 32, on the forall's thread) and
// transforms the products into the block's 8 output rows, writing the
// zero-filled output (no fill).

func.func @blocks(%x: tensor<2x32x18x18xf32>) -> tensor<2x32x16x16xf32> {
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %e = tensor.empty() : tensor<2x32x16x16xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x32x16x16xf32>) -> tensor<2x32x16x16xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x32x18x18xf32>, tensor<32x32x3x3xf32>) outs(%f : tensor<2x32x16x16xf32>) -> tensor<2x32x16x16xf32>
  return %r : tensor<2x32x16x16xf32>
}

// CHECK-LABEL: func.func @blocks
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK:         %[[U:.*]] = arith.constant dense_resource<winograd_{{[0-9a-f]+}}> : tensor<16x32x32xf32>
// CHECK:         %[[OUT:.*]] = tensor.empty() : tensor<2x32x16x16xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         scf.forall (%[[I:.*]], %[[B:.*]]) in (2, 2) shared_outs(%[[SH:.*]] = %[[OUT]])
// CHECK:           %[[ROWS:.*]] = tensor.extract_slice %[[SH]][%[[I]], 0, %{{.*}}, 0] [1, 32, 8, 16] [1, 1, 1, 1] : tensor<2x32x16x16xf32> to tensor<32x8x16xf32>
// CHECK:           tensor.empty() : tensor<16x32x4x8xf32>
// CHECK:           scf.for
// CHECK:             vector.transfer_read %{{.*}}[%[[I]], %{{.*}}, %{{.*}}, %c0], %{{.*}} {in_bounds = [true]} : tensor<2x32x18x18xf32>, vector<16xf32>
// CHECK:             vector.deinterleave %{{.*}} : vector<16xf32> -> vector<8xf32>
// CHECK:             vector.transfer_read %{{.*}}[%[[I]], %{{.*}}, %{{.*}}, %c2]
// CHECK-COUNT-16:    vector.transfer_write %{{.*}} : vector<8xf32>, tensor<16x4x8xf32>
// CHECK:           tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<16x32x4x8xf32> into tensor<16x32x32xf32>
// CHECK:           linalg.fill
// CHECK-SAME:        tensor<16x32x32xf32>
// CHECK-NOT:       scf.forall
// CHECK:           vector.contract
// CHECK:           tensor.expand_shape
// CHECK:           scf.for
// CHECK-COUNT-16:    vector.transfer_read %{{.*}} : tensor<16x32x4x8xf32>, vector<8xf32>
// CHECK:             vector.interleave %{{.*}}, %{{.*}} : vector<8xf32> -> vector<16xf32>
// CHECK-NOT:         vector.transfer_read
// CHECK:             vector.transfer_write %{{.*}} : vector<16xf32>, tensor<8x16xf32>
// CHECK:           scf.forall.in_parallel
// CHECK:             tensor.parallel_insert_slice %{{.*}} into %[[SH]][%[[I]], 0, %{{.*}}, 0] [1, 32, 8, 16]

// Without threads: the same blocks, as two scf.for (image, block).
// SERIAL-LABEL: func.func @blocks
// SERIAL-NOT:     scf.forall
// SERIAL:         scf.for %{{.*}} = %c0 to %c2 step %c1
// SERIAL:           scf.for %{{.*}} = %c0 to %c2 step %c1
// SERIAL:             tensor.empty() : tensor<16x32x4x8xf32>
// SERIAL:             linalg.fill {{.*}} -> tensor<16x32x32xf32>

// OFF-LABEL: func.func @blocks
// OFF-NOT:     winograd
// OFF-NOT:     linalg.batch_matmul

// -----

// Odd output sizes (7 x 8 of 9 x 10): the last tile row's fourth input row
// is past the input and reads row 8 again (arith.minsi), and its second
// output row (row 7) is not written (scf.if). An odd height makes no
// blocks: whole images, the product one position at a time, each filling
// its slice of the products. The output is not zero-filled: the transform
// adds to it. 4 tiles a row: vectors of 4.

func.func @odd(%x: tensor<1x32x9x10xf32>, %init: tensor<1x40x7x8xf32>) -> tensor<1x40x7x8xf32> {
  %w = arith.constant dense<0.5> : tensor<40x32x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x9x10xf32>, tensor<40x32x3x3xf32>) outs(%init : tensor<1x40x7x8xf32>) -> tensor<1x40x7x8xf32>
  return %r : tensor<1x40x7x8xf32>
}

// SERIAL-LABEL: func.func @odd(
// SERIAL-SAME:    %[[X:.*]]: tensor<1x32x9x10xf32>, %[[INIT:.*]]: tensor<1x40x7x8xf32>)
// SERIAL:         tensor.empty() : tensor<16x32x1x4x4xf32>
// SERIAL:         arith.minsi %{{.*}}, %c8 : index
// SERIAL:         vector.deinterleave %{{.*}} : vector<8xf32> -> vector<4xf32>
// SERIAL:         scf.for %[[P:.*]] = %c0 to %c16 step %c1
// SERIAL:           linalg.fill {{.*}} -> tensor<1x40x16xf32>
// SERIAL:           tensor.extract_slice %{{.*}}[%[[P]], 0, 0] [1, 40, 32] [1, 1, 1] : tensor<16x40x32xf32> to tensor<1x40x32xf32>
// SERIAL:           vector.contract
// SERIAL:         scf.for %[[F:.*]] = %c0 to %c40 step %c1 iter_args(%{{.*}} = %[[INIT]])
// SERIAL:           vector.transfer_read {{.*}} : tensor<7x8xf32>, vector<8xf32>
// SERIAL:           arith.addf
// SERIAL:           vector.transfer_write {{.*}} : vector<8xf32>, tensor<7x8xf32>
// SERIAL:           arith.cmpi slt, %{{.*}}, %c7 : index
// SERIAL:           scf.if

// -----

// Not Winograd: a stride of 2, a filter that is not a constant, fewer than
// 3 channels (winograd-min-channels), a 5x5 filter.

func.func @others(%x: tensor<1x32x17x17xf32>, %wv: tensor<32x32x3x3xf32>,
                  %y: tensor<1x2x10x10xf32>) -> (tensor<1x32x8x8xf32>, tensor<1x32x15x15xf32>, tensor<1x2x8x8xf32>, tensor<1x32x13x13xf32>) {
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %w2 = arith.constant dense<0.5> : tensor<2x2x3x3xf32>
  %w5 = arith.constant dense<0.5> : tensor<32x32x5x5xf32>
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x32x8x8xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %r0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x32x17x17xf32>, tensor<32x32x3x3xf32>) outs(%f0 : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %e1 = tensor.empty() : tensor<1x32x15x15xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<1x32x15x15xf32>) -> tensor<1x32x15x15xf32>
  %r1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wv : tensor<1x32x17x17xf32>, tensor<32x32x3x3xf32>) outs(%f1 : tensor<1x32x15x15xf32>) -> tensor<1x32x15x15xf32>
  %e2 = tensor.empty() : tensor<1x2x8x8xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %r2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %w2 : tensor<1x2x10x10xf32>, tensor<2x2x3x3xf32>) outs(%f2 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %e3 = tensor.empty() : tensor<1x32x13x13xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<1x32x13x13xf32>) -> tensor<1x32x13x13xf32>
  %r3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w5 : tensor<1x32x17x17xf32>, tensor<32x32x5x5xf32>) outs(%f3 : tensor<1x32x13x13xf32>) -> tensor<1x32x13x13xf32>
  return %r0, %r1, %r2, %r3 : tensor<1x32x8x8xf32>, tensor<1x32x15x15xf32>, tensor<1x2x8x8xf32>, tensor<1x32x13x13xf32>
}

// SERIAL-LABEL: func.func @others
// SERIAL-NOT:     winograd
// SERIAL-NOT:     linalg.batch_matmul
// SERIAL-NOT:     vector.deinterleave
// SERIAL:         return
