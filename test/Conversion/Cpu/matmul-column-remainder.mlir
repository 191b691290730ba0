// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{lower-vectors=false},canonicalize,cse))' | FileCheck %s

// 60 columns are neither a whole number of 8 x 32 register tiles nor of
// 16-float vectors: the contraction is split into one whole tile (32
// columns), whole vectors (16) and a remainder (12), each tiled on its
// own. Tiled whole, the register tile would be 8 x 30 or 8 x 20, vectors
// that LLVM splits into lanes and shuffles: resnext50's grouped 3 x 3
// convolutions on 14 x 14 outputs (P = 196 columns, tiles of 28) ran at
// 6 GFLOP/s.

func.func @columns(%a: tensor<8x20xf32>, %b: tensor<20x60xf32>, %c: tensor<8x60xf32>) -> tensor<8x60xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x20xf32>, tensor<20x60xf32>) outs(%c : tensor<8x60xf32>) -> tensor<8x60xf32>
  return %r : tensor<8x60xf32>
}

// CHECK-LABEL: func.func @columns
// CHECK-NOT:     vector<8x30xf32>
// CHECK-NOT:     vector<8x20xf32>
// CHECK:         tensor.extract_slice %arg1[0, 0] [20, 32] [1, 1]
// CHECK:         scf.for {{.*}} to %c20 step %c1 iter_args({{.*}}) -> (vector<8x32xf32>)
// CHECK:         tensor.extract_slice %arg1[0, 32] [20, 28] [1, 1]
// CHECK:         scf.for {{.*}} to %c20 step %c1 iter_args({{.*}}) -> (vector<8x16xf32>)
// CHECK:         scf.for {{.*}} to %c20 step %c1 iter_args({{.*}}) -> (vector<8x12xf32>)
// CHECK-NOT:     vector<8x30xf32>
// CHECK-NOT:     vector<8x20xf32>

// -----

// Four rows (a grouped convolution's four output channels a group) fill
// half of the 8 x 32 register tile; the tile takes 64 columns instead, so
// that it still holds 16 vectors of accumulators. 112 columns (two output
// rows of 56) make one such tile, then 4 x 32 and 4 x 16 ones, not seven
// 4 x 16 tiles, and no 4 x 48 one (LLVM turns a vector<48xf32> into lanes
// and shuffles).

func.func @short_rows(%a: tensor<4x20xf32>, %b: tensor<20x112xf32>, %c: tensor<4x112xf32>) -> tensor<4x112xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x20xf32>, tensor<20x112xf32>) outs(%c : tensor<4x112xf32>) -> tensor<4x112xf32>
  return %r : tensor<4x112xf32>
}

// CHECK-LABEL: func.func @short_rows
// CHECK-NOT:     vector<4x48xf32>
// CHECK:         scf.for {{.*}} to %c20 step %c1 iter_args({{.*}}) -> (vector<4x64xf32>)
// CHECK:         scf.for {{.*}} to %c20 step %c1 iter_args({{.*}}) -> (vector<4x32xf32>)
// CHECK:         scf.for {{.*}} to %c20 step %c1 iter_args({{.*}}) -> (vector<4x16xf32>)
// CHECK-NOT:     vector<4x48xf32>
