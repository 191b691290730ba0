// RUN: traced-opt %s | FileCheck %s

// Calls of known targets print in one normalized form: every argument by
// keyword, in signature order, without those equal to their defaults, and
// list parameters as lists (`stride=2` is `stride=[2, 2]`). The spellings
// below all mean the same call and print alike.

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
    // CHECK-COUNT-5: call_function "torch.nn.functional.conv2d"(input=%x, weight=%w, bias=%b, stride=[2, 2], padding=[1, 1]) :
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, %b, 2, 1) : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
    %1 = call_function "torch.nn.functional.conv2d"(%x, %w, %b, stride=2, padding=1) : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
    %2 = call_function "torch.nn.functional.conv2d"(padding=1, stride=2, bias=%b, weight=%w, input=%x) : (tensor<4xf32>, tensor<4x2x3x3xf32>, tensor<1x2x5x5xf32>) -> tensor<1x4x3x3xf32>
    %3 = call_function "torch.nn.functional.conv2d"(%x, %w, %b, 2, 1, 1, 1) : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
    %4 = call_function "torch.nn.functional.conv2d"(%x, weight=%w, bias=%b, groups=1, stride=(2, 2), padding=[1, 1], dilation=(1, 1)) : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
    // The alias keeps its spelling; its signature is the canonical target's.
    // CHECK: call_function "F.relu"(input=%x) :
    %5 = call_function "F.relu"(%x, False) : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
    // CHECK: call_function "torch.relu"(input=%x, inplace=True) :
    %6 = call_function "torch.relu"(%x, inplace=True) : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
    output
  }
}
