// With `tf32` (opt-in), a float32 matmul on the 128 x 128 tiles multiplies
// on tensor cores: the operands are rounded to TF32 (cvt.rna) as they are
// stored to the shared tiles (B's rows padded by 8), and each step of 8
// along K is 16 mma.sync m16n8k8 per warp (8 warps of 64 x 32). 64 x 64
// tiles and the default keep the FMA kernel (exact-tf32.mlir: operands
// widened from 16 bits take the tensor cores without the option).
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{tf32=true}))' | FileCheck %s
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions))' | FileCheck %s --check-prefix=FMA

// CHECK-LABEL: func.func @big
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256{{.*}}) workgroup(%[[A:.*]] : memref<8x132xf32, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<8x136xf32, #gpu.address_space<workgroup>>)
// CHECK:         scf.for
// CHECK:           nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK:           memref.store %{{.*}}, %[[A]]
// CHECK:           gpu.barrier
// CHECK-COUNT-16:  nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
// CHECK-NOT:       math.fma
// CHECK:           gpu.barrier
// FMA-LABEL:   func.func @big
// FMA-NOT:     nvvm.mma.sync
// FMA:         math.fma
func.func @big(%a: memref<256x64xf32>, %b: memref<64x256xf32>, %c: memref<256x256xf32>) {
  linalg.matmul ins(%a, %b : memref<256x64xf32>, memref<64x256xf32>) outs(%c : memref<256x256xf32>)
  return
}

// A 64 x 64 tile: the FMA kernel even with tf32.
// CHECK-LABEL: func.func @small
// CHECK-NOT:   nvvm.mma.sync
// CHECK:       math.fma
func.func @small(%a: memref<100x33xf32>, %b: memref<33x70xf32>, %c: memref<100x70xf32>) {
  linalg.matmul ins(%a, %b : memref<100x33xf32>, memref<33x70xf32>) outs(%c : memref<100x70xf32>)
  return
}
