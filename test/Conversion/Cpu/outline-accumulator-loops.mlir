// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-before=convert-scf-to-openmp -o /dev/null 2>&1 | FileCheck %s

// A chain of small matmuls (too small to tile or thread): each one's
// k-loop carries its accumulators as vectors. Such a loop at the
// function's top level moves out of line too, into a function that
// returns the accumulators, so that `forward` is a sequence of calls
// (bench/compile_scale.py: left inline, thousands of these loops made
// scf-to-cf and LLVM superlinear). The two matmuls' loops are the same
// function once their inputs are arguments.

func.func @forward(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m0 = linalg.matmul ins(%x, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m1 = linalg.matmul ins(%m0, %m0 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m1 : tensor<8x8xf32>
}

// CHECK-LABEL: IR Dump Before ConvertSCFToOpenMPPass
// CHECK:       func.func private @[[K:forward_loop_[0-9]+]](%{{.*}}: memref<8x8xf32{{.*}}>, %{{.*}}: vector<8x8xf32>) -> vector<8x8xf32> attributes {passthrough = ["noinline"]}
// CHECK:         %[[ACC:.*]] = scf.for {{.*}} -> (vector<8x8xf32>)
// CHECK:         return %[[ACC]] : vector<8x8xf32>
// CHECK:       func.func @forward(
// CHECK-NOT:     scf.for
// CHECK:         call @[[K]](
// CHECK-NOT:     scf.for
// CHECK:         call @[[K]](
// CHECK-NOT:     scf.for
// CHECK:         return
