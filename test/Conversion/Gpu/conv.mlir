// The GPU pipeline on the conv family: kernels are outlined into
// gpu.modules of NVVM ops and launched from the host; with serialization
// the gpu.binary holds PTX with the kernel entries, and the host side
// exports the C entry point.
// RUN: traced-opt %s --traced-gpu-pipeline=binary=false | FileCheck %s --check-prefix=NVVM
// RUN: traced-opt %s --traced-gpu-pipeline | FileCheck %s --check-prefix=PTX

traced.module root @M class "m.M" {
  parameter @w : tensor<8x3x3x3xf32> = dense<1.0> : tensor<8x3x3x3xf32>
  parameter @b : tensor<8xf32> = dense<0.5> : tensor<8xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x8x8xf32>) -> tensor<1x8x4x4xf32> {
    %w = getattr %self["w"] : !traced.module<@M> -> tensor<8x3x3x3xf32>
    %b = getattr %self["b"] : !traced.module<@M> -> tensor<8xf32>
    %y = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w, bias=%b, stride=2, padding=1) : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    output %y : tensor<1x8x4x4xf32>
  }
}

// (The padding, the zero fill and the bias are taken in by the convolution: one kernel, the tiled conv.)
// NVVM:     gpu.launch_func async [{{.*}}] @forward_conv_0::@forward_conv_0 blocks in
// NVVM-NOT: gpu.launch_func
// NVVM:     gpu.module @forward_conv_0 [#nvvm.target<O = 3, chip = "sm_90"
// NVVM:       llvm.func @forward_conv_0(
// NVVM-SAME:    nvvm.kernel
// NVVM:         nvvm.read.ptx.sreg.tid.x
// NVVM-NOT: linalg.
// NVVM-NOT: traced.

// PTX:      gpu.binary @forward_conv_0 [#gpu.object<#nvvm.target<O = 3, chip = "sm_90"{{.*}}.target sm_90{{.*}}.entry forward_conv_0(
// PTX:      llvm.func @traced_forward(
// PTX-NOT:  gpu.module
