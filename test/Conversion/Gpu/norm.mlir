// The GPU pipeline on the norm family: kernels are outlined into
// gpu.modules of NVVM ops and launched from the host; with serialization
// the gpu.binary holds PTX with the kernel entries, and the host side
// exports the C entry point.
// RUN: traced-opt %s --traced-gpu-pipeline=binary=false | FileCheck %s --check-prefix=NVVM
// RUN: traced-opt %s --traced-gpu-pipeline | FileCheck %s --check-prefix=PTX

traced.module root @M class "m.M" {
  buffer @mean : tensor<3xf32> = dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
  buffer @var : tensor<3xf32> = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  parameter @weight : tensor<3xf32> = dense<2.0> : tensor<3xf32>
  parameter @bias : tensor<3xf32> = dense<0.5> : tensor<3xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
    %m = getattr %self["mean"] : !traced.module<@M> -> tensor<3xf32>
    %v = getattr %self["var"] : !traced.module<@M> -> tensor<3xf32>
    %w = getattr %self["weight"] : !traced.module<@M> -> tensor<3xf32>
    %b = getattr %self["bias"] : !traced.module<@M> -> tensor<3xf32>
    %y = call_function "torch.nn.functional.batch_norm"(input=%x, running_mean=%m, running_var=%v, weight=%w, bias=%b, training=False, momentum=0.1, eps=0.001) : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
    output %y : tensor<2x3x4x4xf32>
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
