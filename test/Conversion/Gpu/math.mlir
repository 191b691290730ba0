// Float math on the GPU pipeline: every math op of the new elementwise
// lowerings becomes a libdevice call or NVVM arithmetic inside the kernels
// (trunc is built from floor and ceil: convert-gpu-to-nvvm has no lowering
// of math.trunc).
// RUN: traced-opt %s --traced-gpu-pipeline=binary=false | FileCheck %s

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %a = call_function "torch.trunc"(input=%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = call_function "torch.erfc"(input=%x) : (tensor<4xf32>) -> tensor<4xf32>
    %c = call_function "torch.atan2"(input=%x, other=%x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d = call_function "torch.round"(input=%x) : (tensor<4xf32>) -> tensor<4xf32>
    %e = call_function "torch.remainder"(input=%x, other=%x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    output %a, %b, %c, %d, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}

// CHECK: gpu.module
// CHECK-NOT: math.
// CHECK: llvm.call @__nv_ceilf
// CHECK: llvm.call @__nv_floorf
// CHECK: gpu.module
// CHECK: llvm.call @__nv_erfcf
// CHECK: gpu.module
// CHECK: llvm.call @__nv_atan2f
// CHECK: gpu.module
// CHECK: llvm.call @__nv_rintf
// CHECK: gpu.module
// CHECK: llvm.call @__nv_fmodf
// CHECK-NOT: math.
