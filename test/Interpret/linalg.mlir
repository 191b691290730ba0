// RUN: traced-translate --interpret %s | FileCheck %s

// Convolutions and matrix products, small enough to check by hand.

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>) -> (tensor<1x1x2x2xf32>, tensor<1x2x2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2x1x1xf32>, tensor<1x1x3xf32>) {
    // A 3x3 input, 2x2 all-ones kernel: sums of 2x2 windows.
    %x = constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
    %w = constant dense<1.0> : tensor<1x1x2x2xf32>
    %b = constant dense<[0.5]> : tensor<1xf32>
    // CHECK: output #0: tensor<1x1x2x2xf32> {{\[\[\[}}[12.5, 16.5], [24.5, 28.5]]]]
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, %b) : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
    // Depthwise with stride 2 and padding 1: two groups, kernel [[1]] and [[2]].
    %x2 = constant dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]]> : tensor<1x2x2x2xf32>
    %dw = constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
    // CHECK: output #1: tensor<1x2x2x2xf32> {{\[\[\[}}[0, 0], [0, 4]], {{\[\[}}0, 0], [0, 16]]]]
    %1 = call_function "torch.nn.functional.conv2d"(%x2, %dw, None, 2, 1, 1, 2) : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
    // linear: x @ W^T + b.
    %a = constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %lw = constant dense<[[1.0, 0.0], [1.0, 1.0]]> : tensor<2x2xf32>
    %lb = constant dense<[10.0, 20.0]> : tensor<2xf32>
    // CHECK: output #2: tensor<2x2xf32> {{\[}}[11, 23], [13, 27]]
    %2 = call_function "torch.nn.functional.linear"(%a, %lw, %lb) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
    // matmul of a matrix and a vector.
    %v = constant dense<[1.0, -1.0]> : tensor<2xf32>
    // CHECK: output #3: tensor<2xf32> [-1, -1]
    %3 = call_function "torch.matmul"(%a, %v) : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32>
    // bmm over a batch of two 1x2 by 2x1 products.
    %p = constant dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xf32>
    %q = constant dense<[[[5.0], [6.0]], [[7.0], [8.0]]]> : tensor<2x2x1xf32>
    // CHECK: output #4: tensor<2x1x1xf32> {{\[\[\[}}17]], {{\[\[}}53]]]
    %4 = call_function "torch.bmm"(%p, %q) : (tensor<2x1x2xf32>, tensor<2x2x1xf32>) -> tensor<2x1x1xf32>
    // conv1d.
    %s = constant dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
    %k = constant dense<[[[1.0, -1.0]]]> : tensor<1x1x2xf32>
    // CHECK: output #5: tensor<1x1x3xf32> {{\[\[}}[-1, -1, -1]]]
    %5 = call_function "torch.nn.functional.conv1d"(%s, %k) : (tensor<1x1x4xf32>, tensor<1x1x2xf32>) -> tensor<1x1x3xf32>
    output %0, %1, %2, %3, %4, %5 : tensor<1x1x2x2xf32>, tensor<1x2x2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2x1x1xf32>, tensor<1x1x3xf32>
  }
}
