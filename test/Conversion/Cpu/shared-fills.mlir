// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-after=traced-cpu-expand-copies -o /dev/null 2>&1 | FileCheck %s

// One zero-filled accumulator shared by two contractions (what CSE makes
// of two same-shaped Linear layers). 13 rows are split into 8 (one
// register tile) and 5, each part reading and writing back its slice of
// the accumulator. Each contraction gets its own fill before
// bufferization, so both write their accumulators in place: no
// temporary, no copy of the fill. (With the fill shared, one-shot-bufferize
// copied it for the first writer; in ViT those copies were most of the
// generated code.)

func.func @two(%x: tensor<13x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> (tensor<13x64xf32>, tensor<13x64xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<13x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<13x64xf32>) -> tensor<13x64xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<13x64xf32>, tensor<64x64xf32>) outs(%f : tensor<13x64xf32>) -> tensor<13x64xf32>
  %b = linalg.matmul ins(%x, %w2 : tensor<13x64xf32>, tensor<64x64xf32>) outs(%f : tensor<13x64xf32>) -> tensor<13x64xf32>
  return %a, %b : tensor<13x64xf32>, tensor<13x64xf32>
}

// CHECK-LABEL: IR Dump After TracedCpuExpandCopies
// CHECK:       func.func @two
// CHECK-COUNT-2: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<13x64xf32>)
// CHECK-NOT:   memref.alloc
// CHECK-NOT:   memref.copy
// CHECK-NOT:   linalg.copy
// CHECK:       return
