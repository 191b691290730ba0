// RUN: traced-opt %s | FileCheck %s

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x64x112x112xf32>, %y: tensor<1x8x7x7xf32>, %z: tensor<2x3x8xf32>, %v: tensor<1x2x4x6x6xf32>, %w: tensor<1x4x6xi64>) {
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
    // 1-D and 3-D windows; a one-element list is repeated, as torch does.
    // CHECK: call_function "torch.nn.functional.max_pool1d"(input=%z, kernel_size=[3], stride=[2], padding=[1], ceil_mode=True) : (tensor<2x3x8xf32>) -> tensor<2x3x5xf32>
    %8 = call_function "torch.nn.functional.max_pool1d"(%z, 3, 2, 1, ceil_mode=True) : (tensor<2x3x8xf32>) -> tensor<2x3x5xf32>
    // CHECK: call_function "torch.nn.functional.avg_pool3d"(input=%v, kernel_size=[2], stride=[1, 2, 2]) : (tensor<1x2x4x6x6xf32>) -> tensor<1x2x3x3x3xf32>
    %9 = call_function "torch.nn.functional.avg_pool3d"(%v, [2], [1, 2, 2]) : (tensor<1x2x4x6x6xf32>) -> tensor<1x2x3x3x3xf32>
    // The *_with_indices entries always return (values, int64 indices).
    // CHECK: call_function "torch.nn.functional.max_pool3d_with_indices"(input=%v, kernel_size=[2, 2, 2]) : (tensor<1x2x4x6x6xf32>) -> tuple<tensor<1x2x2x3x3xf32>, tensor<1x2x2x3x3xi64>>
    %10 = call_function "torch.nn.functional.max_pool3d_with_indices"(%v, 2) : (tensor<1x2x4x6x6xf32>) -> tuple<tensor<1x2x2x3x3xf32>, tensor<1x2x2x3x3xi64>>
    // CHECK: call_function "torch.nn.functional.adaptive_max_pool3d"(input=%v, output_size=(2, None, 5), return_indices=True) : (tensor<1x2x4x6x6xf32>) -> tuple<tensor<1x2x2x6x5xf32>, tensor<1x2x2x6x5xi64>>
    %11 = call_function "torch.nn.functional.adaptive_max_pool3d"(%v, (2, None, 5), return_indices=True) : (tensor<1x2x4x6x6xf32>) -> tuple<tensor<1x2x2x6x5xf32>, tensor<1x2x2x6x5xi64>>
    // CHECK: call_function "torch.nn.functional.adaptive_avg_pool1d"(input=%z, output_size=10) : (tensor<2x3x8xf32>) -> tensor<2x3x10xf32>
    %12 = call_function "torch.nn.functional.adaptive_avg_pool1d"(%z, 10) : (tensor<2x3x8xf32>) -> tensor<2x3x10xf32>
    // lp_pool's root makes an int64 input float32.
    // CHECK: call_function "torch.nn.functional.lp_pool2d"(input=%w, norm_type=2, kernel_size=[2, 3]) : (tensor<1x4x6xi64>) -> tensor<1x2x2xf32>
    %13 = call_function "torch.nn.functional.lp_pool2d"(%w, 2, [2, 3]) : (tensor<1x4x6xi64>) -> tensor<1x2x2xf32>
    output
  }
}
