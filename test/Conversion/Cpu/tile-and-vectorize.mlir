// A matmul becomes cache blocks around an 8x32 register tile whose
// accumulator stays in vector registers along the reduction loop, and one
// broadcast multiply-add per accumulator row. Its right-hand side is first
// packed into contiguous 32-column panels (pack-rhs).
// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize,canonicalize,cse))' | FileCheck %s
// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{pack-rhs=false},canonicalize,cse))' | FileCheck %s --check-prefix=UNPACKED
// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{lower-vectors=false},canonicalize,cse))' | FileCheck %s --check-prefix=CONTRACT

func.func @mm(%a: tensor<128x512xf32>, %b: tensor<512x512xf32>) -> tensor<128x512xf32> {
  %e = tensor.empty() : tensor<128x512xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x512xf32>, tensor<512x512xf32>) outs(%f : tensor<128x512xf32>) -> tensor<128x512xf32>
  return %r : tensor<128x512xf32>
}

// CHECK-LABEL: func.func @mm
// CHECK-NOT:     linalg.matmul
// The 512 x 512 right-hand side as 16 panels of 512 x 32, copied 16 floats
// at a time (canonicalize folds the vector tile back to slices; after
// bufferization traced-cpu-expand-copies makes them vector transfers).
// CHECK:         %[[SPLIT:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [512, 16, 32]
// CHECK:         tensor.empty() : tensor<16x512x32xf32>
// CHECK:         tensor.extract_slice %[[SPLIT]]{{.*}} [1, 1, 16] [1, 1, 1] : tensor<512x16x32xf32> to tensor<1x1x16xf32>
// CHECK:         tensor.insert_slice {{.*}} [1, 1, 16] [1, 1, 1] : tensor<1x1x16xf32> into tensor<16x512x32xf32>
// Cache blocks (all 128 rows: up to four 64-row blocks make one, so the
// right-hand side streams by once; 256 reductions), one panel at a time,
// row tiles of 8 around the reduction loop, which reads a 1 x 32 row of
// the panel.
// CHECK-NOT:     scf.for {{.*}} to %c128 step %c64
// CHECK:         scf.for {{.*}} to %c512 step %c256
// CHECK:         scf.for {{.*}} to %c16 step %c1
// CHECK:         tensor.extract_slice %{{.*}} [1, 256, 32] [1, 1, 1] : tensor<1x256x32xf32> to tensor<256x32xf32>
// CHECK:         scf.for {{.*}} to %c128 step %c8
// CHECK:         scf.for {{.*}} to %c256 step %c1 iter_args({{.*}}) -> (vector<8x32xf32>)
// CHECK:           tensor.extract_slice %{{.*}} [1, 32] [1, 1] : tensor<256x32xf32> to tensor<1x32xf32>
// CHECK:           vector.broadcast %{{.*}} : f32 to vector<32xf32>
// CHECK:           arith.mulf {{.*}} fastmath<contract> : vector<32xf32>
// CHECK:           arith.addf {{.*}} fastmath<contract> : vector<32xf32>
// CHECK-NOT:       vector.transfer_write
// CHECK:           scf.yield {{.*}} vector<8x32xf32>
// CHECK:         tensor.collapse_shape {{.*}} : tensor<128x16x32xf32> into tensor<128x512xf32>

// Unpacked: cache blocks (128 rows, 256 reductions, 256 columns), then
// column strips of 32 and row tiles of 8 around the reduction loop.
// UNPACKED-LABEL: func.func @mm
// UNPACKED-NOT:     tensor.expand_shape
// UNPACKED-NOT:     scf.for {{.*}} to %c128 step %c64
// UNPACKED:         scf.for {{.*}} to %c512 step %c256
// UNPACKED:         scf.for {{.*}} to %c512 step %c256
// UNPACKED:         scf.for {{.*}} to %c256 step %c32
// UNPACKED:         scf.for {{.*}} to %c128 step %c8
// UNPACKED:         scf.for {{.*}} to %c256 step %c1 iter_args({{.*}}) -> (vector<8x32xf32>)
// UNPACKED:           tensor.extract_slice %{{.*}} [1, 32] [1, 1] : tensor<256x256xf32> to tensor<1x32xf32>
// UNPACKED-NOT:       vector.transfer_write
// UNPACKED:           scf.yield {{.*}} vector<8x32xf32>

// CONTRACT:      vector.contract
// CONTRACT-SAME:   vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>

// -----

// An elementwise chain is tiled to one 16-wide vector.
func.func @relu(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// CHECK-LABEL: func.func @relu
// CHECK:         scf.for {{.*}} step %c16
// CHECK:           arith.maximumf {{.*}} : vector<1x16xf32>

// -----

// A contraction of bf16 operands into an f32 accumulator (bilinear's
// first product in bf16, as its decomposition builds it) extends each
// operand before the broadcast multiply-add, as vector.contract defines
// mixed types. (The broadcast of a bf16 scalar into an f32 row did not
// verify.)
func.func @contract_bf16(%a: tensor<3x4xbf16>, %w: tensor<4x2x5xbf16>) -> tensor<3x2x5xf32> {
  %e = tensor.empty() : tensor<3x2x5xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x2x5xf32>) -> tensor<3x2x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %w : tensor<3x4xbf16>, tensor<4x2x5xbf16>) outs(%f : tensor<3x2x5xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %y : bf16 to f32
    %1 = arith.extf %x : bf16 to f32
    %2 = arith.mulf %1, %0 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<3x2x5xf32>
  return %r : tensor<3x2x5xf32>
}

// CHECK-LABEL: func.func @contract_bf16
// CHECK:         arith.extf %{{.*}} : vector<5xbf16> to vector<5xf32>
// CHECK:         arith.extf %{{.*}} : bf16 to f32
// CHECK:         vector.broadcast %{{.*}} : f32 to vector<5xf32>
// CHECK:         arith.mulf {{.*}} fastmath<contract> : vector<5xf32>
