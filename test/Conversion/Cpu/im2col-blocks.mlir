// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{tile-n=16 winograd=false parallel=true min-parallel-flops=0 lower-vectors=false},canonicalize,cse))' | FileCheck %s
// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{tile-n=16 winograd=false lower-vectors=false},canonicalize,cse))' | FileCheck %s --check-prefix=SERIAL

// Patches much larger than the filter (P = 256 output positions, 32
// channels): the output rows are cut into blocks of 2 (8 blocks an image),
// and one scf.forall over (image, block) fills a block's patches (36 x 32)
// and multiplies them, the product on the forall's thread (no forall of
// its own). The output was zero-filled: the blocks write their products
// into it (no fill, no add). The block reads the input rows its taps need: 2 output rows
// at stride 2 and dilation 2 read (2 - 1) * 2 + (3 - 1) * 2 + 1 = 7
// input rows, from row 4 * block on.

func.func @blocks(%x: tensor<2x4x35x35xf32>) -> tensor<2x32x16x16xf32> {
  %w = arith.constant dense<0.5> : tensor<32x4x3x3xf32>
  %e = tensor.empty() : tensor<2x32x16x16xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x32x16x16xf32>) -> tensor<2x32x16x16xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<2x4x35x35xf32>, tensor<32x4x3x3xf32>) outs(%f : tensor<2x32x16x16xf32>) -> tensor<2x32x16x16xf32>
  return %r : tensor<2x32x16x16xf32>
}

// CHECK-DAG:   #[[COL:.*]] = affine_map<(d0) -> (d0 * 32)>
// CHECK-DAG:   #[[ROW:.*]] = affine_map<(d0) -> (d0 * 4)>
// CHECK-LABEL: func.func @blocks
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<2x32x16x16xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[EMPTY]]
// CHECK:         scf.forall (%[[I:.*]], %[[B:.*]]) in (2, 8) shared_outs(%[[OUT:.*]] = %[[FLAT]]) -> (tensor<2x32x256xf32>)
// CHECK:           %[[C:.*]] = affine.apply #[[COL]](%[[B]])
// CHECK:           tensor.extract_slice %[[OUT]][%[[I]], 0, %[[C]]] [1, 32, 32] [1, 1, 1]
// CHECK:           %[[R:.*]] = affine.apply #[[ROW]](%[[B]])
// CHECK:           tensor.extract_slice %arg0[%[[I]], 0, %[[R]], 0] [1, 4, 7, 35] [1, 1, 1, 1]
// CHECK:           tensor.empty() : tensor<1x4x3x3x2x16xf32>
// CHECK:           tensor.collapse_shape {{.*}} into tensor<36x32xf32>
// CHECK-NOT:       scf.forall
// CHECK:           vector.contract
// CHECK-NOT:       arith.addf
// CHECK:         scf.forall.in_parallel
// CHECK-NEXT:      tensor.parallel_insert_slice {{.*}} into %[[OUT]][%[[I]], 0, %[[C]]] [1, 32, 32] [1, 1, 1]

// Without threads, one image at a time: an scf.for over the batch fills
// one image's patches (K x P) and multiplies them.

// SERIAL-LABEL: func.func @blocks
// SERIAL-NOT:     scf.forall
// SERIAL:         scf.for %[[I:.*]] = %c0 to %c2 step %c1 iter_args({{.*}}) -> (tensor<2x32x256xf32>)
// SERIAL:           tensor.extract_slice %arg0[%[[I]], 0, 0, 0] [1, 4, 35, 35] [1, 1, 1, 1]
// SERIAL:           tensor.empty() : tensor<1x4x3x3x16x16xf32>
// SERIAL:           tensor.collapse_shape {{.*}} into tensor<36x256xf32>

// -----

// The filter larger than the patches (P = 49 < 4 F): whole images, the
// product's cache blocks spread over threads as for any contraction.

func.func @whole(%x: tensor<1x64x9x9xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %e = tensor.empty() : tensor<1x64x7x7xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x9x9xf32>, tensor<64x64x3x3xf32>) outs(%f : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %r : tensor<1x64x7x7xf32>
}

// CHECK-LABEL: func.func @whole
// CHECK:         tensor.empty() : tensor<1x64x3x3x7x7xf32>
// CHECK:         tensor.collapse_shape {{.*}} into tensor<576x49xf32>
// CHECK:         scf.forall ({{.*}}) in (4) shared_outs

// -----

// The plain product (F x K times K x P: P a whole number of vectors and
// K <= F) keeps whole images even where its patches are large: in blocks
// it made MobileNetV2's pointwise convolutions 2x slower.

func.func @plain(%x: tensor<1x16x32x32xf32>) -> tensor<1x24x32x32xf32> {
  %w = arith.constant dense<0.5> : tensor<24x16x1x1xf32>
  %e = tensor.empty() : tensor<1x24x32x32xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x24x32x32xf32>) -> tensor<1x24x32x32xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x32x32xf32>, tensor<24x16x1x1xf32>) outs(%f : tensor<1x24x32x32xf32>) -> tensor<1x24x32x32xf32>
  return %r : tensor<1x24x32x32xf32>
}

// CHECK-LABEL: func.func @plain
// CHECK:         tensor.empty() : tensor<1x16x1x1x32x32xf32>
// CHECK:         tensor.collapse_shape {{.*}} into tensor<16x1024xf32>
