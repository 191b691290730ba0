// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=true lower-vectors=false},canonicalize,cse))' | FileCheck %s

// linalg.transpose (attention's head split and merge, permute) takes the
// elementwise strategy like an all-parallel generic: tiled to 16-wide
// vectors along the output's last dim, spread over threads. Before, it was
// left to convert-linalg-to-loops, scalar loops that LLVM vectorized into
// gathers and scatters.

func.func @heads(%x: tensor<1x197x12x64xf32>) -> tensor<1x12x197x64xf32> {
  %e = tensor.empty() : tensor<1x12x197x64xf32>
  %t = linalg.transpose ins(%x : tensor<1x197x12x64xf32>) outs(%e : tensor<1x12x197x64xf32>) permutation = [0, 2, 1, 3]
  return %t : tensor<1x12x197x64xf32>
}

// CHECK-LABEL: func.func @heads
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.forall (%{{.*}}) in (12)
// CHECK:           vector.transfer_read {{.*}} vector<1x1x1x16xf32>
// CHECK:           vector.transfer_write {{.*}} vector<1x1x1x16xf32>
