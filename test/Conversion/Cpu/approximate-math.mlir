// RUN: traced-opt %s --traced-cpu-pipeline | FileCheck %s

// f32 exp, tanh and erf become vector polynomials (upstream's
// approximations) with vector FMAs; f64 ones and f32 log keep libm.
// python/tests/test_compile_math.py checks their accuracy against torch.

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<64xf32>, %d: tensor<64xf64>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf64>) {
    %e = call_function "torch.exp"(%x) : (tensor<64xf32>) -> tensor<64xf32>
    %t = call_function "torch.tanh"(%x) : (tensor<64xf32>) -> tensor<64xf32>
    %r = call_function "torch.erf"(%x) : (tensor<64xf32>) -> tensor<64xf32>
    %l = call_function "torch.log"(%x) : (tensor<64xf32>) -> tensor<64xf32>
    %f = call_function "torch.erf"(%d) : (tensor<64xf64>) -> tensor<64xf64>
    output %e, %t, %r, %l, %f : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf64>
  }
}

// CHECK-NOT:  llvm.call @expf
// CHECK-NOT:  llvm.call @tanhf
// CHECK-NOT:  llvm.call @erff
// CHECK-NOT:  llvm.call @fmaf
// CHECK:      llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK-DAG:  llvm.call @logf
// CHECK-DAG:  llvm.call @erf(
