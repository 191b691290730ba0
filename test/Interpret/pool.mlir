// RUN: traced-translate --interpret %s | FileCheck %s

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>, tensor<1x1x2x2xf32>, tuple<tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>>) {
    %x = constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
    // 2x2 windows, stride 1.
    // CHECK: output #0: tensor<1x1x2x2xf32> {{\[\[\[}}[5, 6], [8, 9]]]]
    %0 = call_function "torch.nn.functional.max_pool2d"(%x, 2, 1) : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
    // ceil_mode keeps the partial window at the edge.
    // CHECK: output #1: tensor<1x1x2x2xf32> {{\[\[\[}}[3, 4.5], [7.5, 9]]]]
    %1 = call_function "torch.nn.functional.avg_pool2d"(%x, 2, 2, 0, True) : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
    // CHECK: output #2: tensor<1x1x1x1xf32> {{\[\[\[}}[5]]]]
    %2 = call_function "torch.nn.functional.adaptive_avg_pool2d"(%x, 1) : (tensor<1x1x3x3xf32>) -> tensor<1x1x1x1xf32>
    // Overlapping adaptive windows: [0, 2) and [1, 3).
    // CHECK: output #3: tensor<1x1x2x2xf32> {{\[\[\[}}[3, 4], [6, 7]]]]
    %3 = call_function "torch.nn.functional.adaptive_avg_pool2d"(%x, [2, 2]) : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
    // CHECK: output #4: (tensor<1x1x1x1xf32> {{\[\[\[}}[9]]]], tensor<1x1x1x1xi64> {{\[\[\[}}[8]]]])
    %4 = call_function "torch.nn.functional.max_pool2d"(%x, 3, return_indices=True) : (tensor<1x1x3x3xf32>) -> tuple<tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>>
    output %0, %1, %2, %3, %4 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>, tensor<1x1x2x2xf32>, tuple<tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>>
  }
}
