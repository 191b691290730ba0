// RUN: traced-opt %s --traced-cpu-pipeline | FileCheck %s

// Two outputs that CSE makes one buffer (x * 2 twice, and 0-d reductions
// of one input) still get two out-parameters: the repeat is copied before
// buffer-results-to-out-params, which would otherwise crash on it.
// CHECK-LABEL: llvm.func @forward(
// CHECK: llvm.func @traced_forward(
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>, %y: tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>) {
    %a = call_function "torch.mul"(input=%x, other=2.0) : (tensor<3xf32>) -> tensor<3xf32>
    %b = call_function "torch.mul"(input=%x, other=2.0) : (tensor<3xf32>) -> tensor<3xf32>
    %c = call_function "torch.ops.aten.mean.dim"(input=%y, dim=[0]) : (tensor<f32>) -> tensor<f32>
    %d = call_function "torch.sum"(input=%y, dim=[-1]) : (tensor<f32>) -> tensor<f32>
    output %a, %b, %c, %d : tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>
  }
}
