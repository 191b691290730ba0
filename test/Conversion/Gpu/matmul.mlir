// The GPU pipeline on the matmul family: kernels are outlined into
// gpu.modules of NVVM ops and launched from the host; with serialization
// the gpu.binary holds PTX with the kernel entries, and the host side
// exports the C entry point.
// RUN: traced-opt %s --traced-gpu-pipeline=binary=false | FileCheck %s --check-prefix=NVVM
// RUN: traced-opt %s --traced-gpu-pipeline | FileCheck %s --check-prefix=PTX

traced.module root @M class "m.M" {
  parameter @w : tensor<4x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
  parameter @b : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<2x4xf32> {
    %w = getattr %self["w"] : !traced.module<@M> -> tensor<4x3xf32>
    %b = getattr %self["b"] : !traced.module<@M> -> tensor<4xf32>
    %y = call_function "torch.nn.functional.linear"(input=%x, weight=%w, bias=%b) : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    output %y : tensor<2x4xf32>
  }
}

// (The zero fill and the bias are taken in by the matmul: one kernel, the tiled gemm.)
// NVVM:     gpu.launch_func async [{{.*}}] @forward_gemm_0::@forward_gemm_0 blocks in
// NVVM-NOT: gpu.launch_func
// NVVM:     gpu.module @forward_gemm_0 [#nvvm.target<O = 3, chip = "sm_90"
// NVVM:       llvm.func @forward_gemm_0(
// NVVM-SAME:    nvvm.kernel
// NVVM:         nvvm.read.ptx.sreg.tid.x
// NVVM-NOT: linalg.
// NVVM-NOT: traced.

// PTX:      gpu.binary @forward_gemm_0 [#gpu.object<#nvvm.target<O = 3, chip = "sm_90"{{.*}}.target sm_90{{.*}}.entry forward_gemm_0(
// PTX:      llvm.func @traced_forward(
// PTX-NOT:  gpu.module
