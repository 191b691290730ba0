// RUN: traced-opt %s --traced-cpu-pipeline=tile-n=32 --mlir-print-ir-after=traced-cpu-expand-copies -o /dev/null 2>&1 | FileCheck %s
// RUN: traced-opt %s --traced-cpu-pipeline="arena=false tile-n=32" --mlir-print-ir-after=traced-cpu-expand-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF

// A function's temporaries are planned into one buffer at compile time
// (an internal pass after EarlyDeallocs): each lives from its alloc to its
// dealloc, and two whose lives do not overlap share bytes. Here the packed
// right-hand side (2 x 64 x 32 floats, 16 KiB) lives throughout, and of
// the three intermediate products (16 KiB each) the first is dead before
// the third is written, which takes its bytes (offset 16384): 48 KiB,
// not 64. The last product is the caller's
// output buffer.

func.func @chain(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %a = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %b = linalg.matmul ins(%a, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %c = linalg.matmul ins(%b, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %d = linalg.matmul ins(%c, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// CHECK-LABEL: IR Dump After TracedCpuExpandCopies
// CHECK:       func.func @chain(
// CHECK-NEXT:    %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<49152xi8>
// CHECK-NOT:     memref.alloc
// CHECK:         memref.view %[[ARENA]][%{{.*}}][] : memref<49152xi8> to memref<2x64x32xf32>
// CHECK:         %[[A:.*]] = memref.view %[[ARENA]][%c16384{{(_[0-9]+)?}}][] : memref<49152xi8> to memref<64x2x32xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[A]] :
// CHECK:         memref.view %[[ARENA]][%c32768{{(_[0-9]+)?}}][] : memref<49152xi8> to memref<64x2x32xf32>
// CHECK:         %[[C:.*]] = memref.view %[[ARENA]][%c16384{{(_[0-9]+)?}}][] : memref<49152xi8> to memref<64x2x32xf32>
// CHECK-NOT:     memref.dealloc
// CHECK:         memref.dealloc %[[ARENA]]
// CHECK-NEXT:    return

// OFF-LABEL:   IR Dump After TracedCpuExpandCopies
// OFF:         func.func @chain(
// OFF-NOT:       memref.view
// OFF:           memref.alloc() {alignment = 64 : i64} : memref<64x2x32xf32>
