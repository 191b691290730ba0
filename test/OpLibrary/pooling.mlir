// RUN: traced-opt %s | FileCheck %s

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x64x112x112xf32>, %y: tensor<1x8x7x7xf32>) {
    // ResNet's max pool: 3x3, stride 2, padding 1.
    // CHECK: call_function "torch.nn.functional.max_pool2d"(input=%x, kernel_size=[3, 3], stride=[2, 2], padding=[1, 1]) : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
    %0 = call_function "torch.nn.functional.max_pool2d"(%x, 3, 2, 1) : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
    // ceil_mode keeps the partial window.
    // CHECK: call_function "torch.nn.functional.max_pool2d"(input=%y, kernel_size=[2, 2], ceil_mode=True) : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
    %1 = call_function "torch.nn.functional.max_pool2d"(%y, 2, ceil_mode=True) : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
    // CHECK: call_function "torch.nn.functional.max_pool2d"(input=%y, kernel_size=[2, 2]) : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32>
    %2 = call_function "torch.nn.functional.max_pool2d"(%y, 2) : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32>
    // return_indices returns a tuple (output, indices).
    // CHECK: call_function "torch.nn.functional.max_pool2d"(input=%y, kernel_size=[3, 3], stride=[1, 1], return_indices=True) : (tensor<1x8x7x7xf32>) -> tuple<tensor<1x8x5x5xf32>, tensor<1x8x5x5xi64>>
    %3 = call_function "torch.nn.functional.max_pool2d"(%y, [3, 3], [1, 1], return_indices=True) : (tensor<1x8x7x7xf32>) -> tuple<tensor<1x8x5x5xf32>, tensor<1x8x5x5xi64>>
    // CHECK: call_function "torch.nn.functional.avg_pool2d"(input=%y, kernel_size=[3, 3], stride=[2, 2], padding=[1, 1]) : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
    %4 = call_function "torch.nn.functional.avg_pool2d"(%y, 3, 2, 1) : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
    // CHECK: call_function "torch.nn.functional.adaptive_avg_pool2d"(input=%x, output_size=(1, 1)) : (tensor<1x64x112x112xf32>) -> tensor<1x64x1x1xf32>
    %5 = call_function "torch.nn.functional.adaptive_avg_pool2d"(%x, (1, 1)) : (tensor<1x64x112x112xf32>) -> tensor<1x64x1x1xf32>
    // None keeps a dimension's size.
    // CHECK: call_function "torch.nn.functional.adaptive_avg_pool2d"(input=%y, output_size=[None, 2]) : (tensor<1x8x7x7xf32>) -> tensor<1x8x7x2xf32>
    %6 = call_function "torch.nn.functional.adaptive_avg_pool2d"(%y, [None, 2]) : (tensor<1x8x7x7xf32>) -> tensor<1x8x7x2xf32>
    // CHECK: call_function "torch.nn.functional.adaptive_avg_pool2d"(input=%y, output_size=7) : (tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
    %7 = call_function "torch.nn.functional.adaptive_avg_pool2d"(%y, 7) : (tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
    output
  }
}
