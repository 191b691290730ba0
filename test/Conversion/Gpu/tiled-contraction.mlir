// traced-gpu-tile-contractions: float32 matmuls, batch matmuls and NCHW
// convolutions become shared-memory tiled GEMM kernels; K is split over
// grid z (atomic adds into C) when the tiles alone would leave the GPU idle.
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions))' | FileCheck %s
// (ptxas assembles them: test_gpu.py compiles resnet18's kernels.)
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions))' | FileCheck %s --check-prefix=NOLINALG

// A matmul off the tile sizes: 2 x 2 blocks of 64 x 64, 256 threads; the
// loads past the edges are guarded (zero there). The first tiles are loaded
// before the loop; each step stores the loaded tiles to workgroup memory,
// waits, issues the next tiles' global loads, does its 4 x 4 FMAs per k and
// waits again. Index arithmetic is 32-bit.
// CHECK-LABEL: func.func @matmul
// CHECK:       gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c2{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) workgroup(%[[A:.*]] : memref<16x68xf32, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK:       arith.index_castui %{{.*}} : index to i32
// CHECK:       scf.if
// CHECK:         memref.load %arg0
// CHECK:       scf.for {{.*}} iter_args(
// CHECK:         memref.store {{.*}}, %[[A]]
// CHECK:         memref.store {{.*}}, %[[B]]
// CHECK:         gpu.barrier
// CHECK:         memref.load %arg0
// CHECK:         memref.load %arg1
// CHECK-COUNT-16: math.fma
// CHECK:         gpu.barrier
// CHECK:         scf.yield
// CHECK:       memref.load %arg2
// CHECK:       arith.addf
// CHECK:       memref.store {{.*}}, %arg2
// CHECK-NOT:   memref.atomic_rmw
// CHECK:       gpu.terminator
func.func @matmul(%a: memref<100x33xf32>, %b: memref<33x70xf32>, %c: memref<100x70xf32>) {
  linalg.matmul ins(%a, %b : memref<100x33xf32>, memref<33x70xf32>) outs(%c : memref<100x70xf32>)
  return
}

// Large enough for 128 x 128 tiles with 8 x 8 per thread, 8 along K; the
// tiles divide the operands, so no load or store is guarded, and the rows of
// A and B are read from global memory 4 floats at a time.
// CHECK-LABEL: func.func @big
// CHECK:       workgroup({{.*}} : memref<8x132xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<8x128xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT:   scf.if
// CHECK:       vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<256x64xf32>, vector<4xf32>
// CHECK:       vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<64x256xf32>, vector<4xf32>
// CHECK:       scf.for
// CHECK-NOT:   scf.if
// CHECK:         vector.store {{.*}} {alignment = 16 : i64} : memref<8x128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:         vector.load {{.*}} {alignment = 16 : i64} : memref<8x132xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-COUNT-64: math.fma
// CHECK-NOT:   scf.if
// CHECK:       gpu.terminator
func.func @big(%a: memref<256x64xf32>, %b: memref<64x256xf32>, %c: memref<256x256xf32>) {
  linalg.matmul ins(%a, %b : memref<256x64xf32>, memref<64x256xf32>) outs(%c : memref<256x256xf32>)
  return
}

// A convolution at 7 x 7 with K = 512 x 9: 8 tiles, so K is split 32 ways
// over grid z and the partial tiles are added atomically.
// CHECK-LABEL: func.func @conv
// CHECK:       gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c8{{.*}}, {{.*}} = %c32{{.*}})
// CHECK:         memref.load %arg1[{{.*}}] : memref<512x512x3x3xf32>
// CHECK:         memref.load %arg0[{{.*}}] : memref<1x512x9x9xf32>
// CHECK:       memref.atomic_rmw addf {{.*}}, %arg2[{{.*}}] : (f32, memref<1x512x7x7xf32>) -> f32
func.func @conv(%x: memref<1x512x9x9xf32>, %w: memref<512x512x3x3xf32>, %y: memref<1x512x7x7xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : memref<1x512x9x9xf32>, memref<512x512x3x3xf32>) outs(%y : memref<1x512x7x7xf32>)
  return
}

// Batch matmul: the batch is grid z. M = 17 but N = 130: 64 x 128 tiles
// (4 x 8 per thread).
// CHECK-LABEL: func.func @bmm
// CHECK:       gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c3{{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}}) workgroup({{.*}} : memref<16x68xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<16x128xf32, #gpu.address_space<workgroup>>)
// CHECK:         memref.load %arg0[{{.*}}, {{.*}}, {{.*}}] : memref<3x17x5xf32>
func.func @bmm(%a: memref<3x17x5xf32>, %b: memref<3x5x130xf32>, %c: memref<3x17x130xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x17x5xf32>, memref<3x5x130xf32>) outs(%c : memref<3x17x130xf32>)
  return
}

// Not float32, or not the default maps: left to the generic loops.
// NOLINALG-LABEL: func.func @kept
// NOLINALG:       linalg.matmul ins({{.*}} : memref<8x8xf16>
// NOLINALG:       linalg.matmul indexing_maps
func.func @kept(%a: memref<8x8xf16>, %c: memref<8x8xf16>, %x: memref<8x8xf32>, %y: memref<8x8xf32>) {
  linalg.matmul ins(%a, %a : memref<8x8xf16>, memref<8x8xf16>) outs(%c : memref<8x8xf16>)
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
    ins(%x, %x : memref<8x8xf32>, memref<8x8xf32>) outs(%y : memref<8x8xf32>)
  return
}

// The K step is 8 or 16.
// RUN: not traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{k-step=12}))' 2>&1 | FileCheck %s --check-prefix=STEP
// STEP: error: traced-gpu-tile-contractions: k-step 12 (8 or 16)
