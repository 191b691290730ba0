// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-before=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s

// CSE merges the same-shaped `tensor.empty`s of the elementwise ops and the
// matmul's fill into one; before one-shot-bufferize each use gets its own
// again (traced-cpu-duplicate-fills). With one empty for all, the
// bufferization analysis checked every writer of it against every other:
// quadratic in a graph of thousands of small ops (bench/compile_scale.py).

func.func @forward(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x8xf32>
  %r0 = linalg.exp ins(%x : tensor<8x8xf32>) outs(%e0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%r0, %r0 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %r1 = linalg.exp ins(%m : tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r1 : tensor<8x8xf32>
}

// CHECK-LABEL: IR Dump Before OneShotBufferizePass
// CHECK:       %[[E0:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT:  %[[E1:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT:  %[[E2:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK:       linalg.exp ins(%arg0 : tensor<8x8xf32>) outs(%[[E2]] : tensor<8x8xf32>)
// CHECK:       linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<8x8xf32>)
// CHECK:       linalg.exp ins(%{{.*}} : tensor<8x8xf32>) outs(%[[E0]] : tensor<8x8xf32>)
