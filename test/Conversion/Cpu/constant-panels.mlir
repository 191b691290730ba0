// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{tile-n=16 winograd=false},canonicalize,cse))' | FileCheck %s
// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{tile-n=16 winograd=false lower-vectors=false},canonicalize,cse))' | FileCheck %s --check-prefix=CONTRACT
// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{tile-n=16 winograd=false parallel=true min-parallel-flops=0},canonicalize,cse))' | FileCheck %s --check-prefix=THREADS

// A constant right-hand side (a Linear's weight) is packed into column
// panels at compile time: panels[j, k, l] = B[k, 16 j + l], a new blob, and
// no copy runs per call. B here is 0, 1, ..., 63 row by row (K = 2, N = 32),
// so the blob starts with panel 0's first row (0 .. 15) and then its
// second row (32, 33, ...).

func.func @weight(%a: tensor<16x2xf32>) -> tensor<16x32xf32> {
  %b = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0], [32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0]]> : tensor<2x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x2xf32>, tensor<2x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// CHECK-LABEL: func.func @weight
// CHECK:         arith.constant dense_resource<panels_{{[0-9a-f]+}}> : tensor<2x2x16xf32>
// CHECK-NOT:     tensor.insert_slice {{.*}} into tensor<2x2x16xf32>
// CHECK:         vector.broadcast {{.*}} : f32 to vector<16xf32>
// CHECK:         {-#
// CHECK:         panels_{{[0-9a-f]+}}: "0x08000000000000000000803F0000004000004040000080400000A0400000C0400000E04000000041000010410000204100003041000040410000504100006041000070410000004200000442

// -----

// A convolution whose output plane (7 x 7) is not a whole number of
// vectors but whose channels are: the transposed product, P x F. The
// patches are still filled tap by tap (K x P), read transposed, so a
// register tile of 7 output positions loads one contiguous row of the
// patches; the filter is packed into 16-channel panels at compile time;
// the P x F product is added into the F x P result by one transposing
// elementwise op.

func.func @conv(%x: tensor<1x8x9x9xf32>) -> tensor<1x32x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<32x8x3x3xf32>
  %e = tensor.empty() : tensor<1x32x7x7xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x9xf32>, tensor<32x8x3x3xf32>) outs(%f : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %r : tensor<1x32x7x7xf32>
}

// CHECK-LABEL: func.func @conv
// CHECK-DAG:     arith.constant dense_resource<panels_{{[0-9a-f]+}}> : tensor<2x72x16xf32>
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK:         scf.for %[[I:.*]] = %c0 to %c3
// CHECK:           scf.for %[[J:.*]] = %c0 to %c3
// CHECK:             tensor.extract_slice %arg0[0, 0, %[[I]], %[[J]]] [1, 8, 7, 7] [1, 1, 1, 1]
// CHECK:             tensor.insert_slice {{.*}}[0, 0, %[[I]], %[[J]], 0, 0] [1, 8, 1, 1, 7, 7]
// CHECK:         tensor.collapse_shape {{.*}} : tensor<1x8x3x3x7x7xf32> into tensor<72x49xf32>
// CHECK:         scf.for {{.*}} to %c49 step %c7
// CHECK:           scf.for {{.*}} to %c72 step %c1 iter_args({{.*}}) -> (vector<7x16xf32>)
// CHECK:             tensor.extract_slice {{.*}} [1, 7] [1, 1] : tensor<72x49xf32> to tensor<1x7xf32>
// CHECK:             vector.broadcast {{.*}} : f32 to vector<16xf32>

// CONTRACT-LABEL: func.func @conv
// CONTRACT:         vector.contract
// CONTRACT-SAME:      vector<1x7xf32>, vector<1x16xf32> into vector<7x16xf32>

// -----

// Threads: a packed matmul with one block of rows spreads its panels over
// threads (each forall iteration one 16-column panel).

func.func @panels(%a: tensor<64x512xf32>, %b: tensor<512x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x512xf32>, tensor<512x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// THREADS-LABEL: func.func @panels
// THREADS:         scf.forall ({{.*}}) in (4) shared_outs({{.*}}) -> (tensor<64x4x16xf32>)
// THREADS:           scf.for {{.*}} to %c512 step %c256
// THREADS:           scf.for {{.*}} to %c64 step %c8
