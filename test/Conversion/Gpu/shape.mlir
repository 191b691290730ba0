// The GPU pipeline on the shape family: kernels are outlined into
// gpu.modules of NVVM ops and launched from the host; with serialization
// the gpu.binary holds PTX with the kernel entries, and the host side
// exports the C entry point.
// RUN: traced-opt %s --traced-gpu-pipeline=binary=false | FileCheck %s --check-prefix=NVVM
// RUN: traced-opt %s --traced-gpu-pipeline | FileCheck %s --check-prefix=PTX

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x4x3xf32>) {
    %a = call_function "torch.permute"(input=%x, dims=[2, 0, 1]) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    %b = call_function "torch.transpose"(input=%x, dim0=1, dim1=-1) : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
    output %a, %b : tensor<4x2x3xf32>, tensor<2x4x3xf32>
  }
}

// NVVM:     gpu.launch_func async [{{.*}}] @forward_kernel{{.*}}::@forward_kernel blocks in
// NVVM:     gpu.module @forward_kernel{{.*}} [#nvvm.target<O = 3, chip = "sm_90"
// NVVM:       llvm.func @forward_kernel(
// NVVM-SAME:    nvvm.kernel
// NVVM:         nvvm.read.ptx.sreg.tid.x
// NVVM-NOT: linalg.
// NVVM-NOT: traced.

// PTX:      gpu.binary @forward_kernel{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90"{{.*}}.target sm_90{{.*}}.entry forward_kernel(
// PTX:      llvm.func @traced_forward(
// PTX-NOT:  gpu.module
