// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=true min-parallel-flops=0 lower-vectors=false},canonicalize,cse))' | FileCheck %s
// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=true min-parallel-flops=0 lower-vectors=false block-m=128},canonicalize,cse))' | FileCheck %s --check-prefix=M128

// Cache blocks of a contraction's rows, spread over threads: block-m
// (default 64) rows a block where there are more than 4 x block-m rows;
// up to that, all rows make one block (a convolution's filter then streams
// by once), and the threads take the column panels instead. (128-row
// blocks read the packed right-hand side of a 1024^3 matmul half as often;
// on this VM that measured within the noise at 1 and 2 threads, so the
// default stays 64: docs/cpu.md.)

func.func @rows1024(%a: tensor<1024x64xf32>, %b: tensor<64x64xf32>) -> tensor<1024x64xf32> {
  %e = tensor.empty() : tensor<1024x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1024x64xf32>) -> tensor<1024x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x64xf32>, tensor<64x64xf32>) outs(%f : tensor<1024x64xf32>) -> tensor<1024x64xf32>
  return %r : tensor<1024x64xf32>
}

// CHECK-LABEL: func.func @rows1024
// CHECK:         scf.forall (%[[I:.*]]) = (0) to (1024) step (64)
// CHECK:           tensor.extract_slice %{{.*}}[%[[I]], 0] [64, 64] [1, 1] : tensor<1024x64xf32> to tensor<64x64xf32>
// CHECK:           vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// M128-LABEL:  func.func @rows1024
// M128:          scf.forall (%{{.*}}) = (0) to (1024) step (128)

// -----

// 512 rows: more than 4 x 64, so 64-row blocks; with block-m=128, one
// block, and two threads over the two column panels.

func.func @rows512(%a: tensor<512x64xf32>, %b: tensor<64x64xf32>) -> tensor<512x64xf32> {
  %e = tensor.empty() : tensor<512x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<512x64xf32>) -> tensor<512x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<512x64xf32>, tensor<64x64xf32>) outs(%f : tensor<512x64xf32>) -> tensor<512x64xf32>
  return %r : tensor<512x64xf32>
}

// CHECK-LABEL: func.func @rows512
// CHECK:         scf.forall (%{{.*}}) = (0) to (512) step (64)
// M128-LABEL:  func.func @rows512
// M128:          scf.forall (%{{.*}}) in (2) {{.*}} -> (tensor<512x2x32xf32>)

// -----

// 256 rows make one block: the threads take the column panels.

func.func @rows256(%a: tensor<256x64xf32>, %b: tensor<64x64xf32>) -> tensor<256x64xf32> {
  %e = tensor.empty() : tensor<256x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x64xf32>) -> tensor<256x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x64xf32>) outs(%f : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %r : tensor<256x64xf32>
}

// CHECK-LABEL: func.func @rows256
// CHECK-NOT:     step (64)
// CHECK:         scf.forall (%{{.*}}) in (2) {{.*}} -> (tensor<256x2x32xf32>)
// CHECK-NOT:     step (64)
// CHECK:         return
