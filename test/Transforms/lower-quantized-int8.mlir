// RUN: traced-opt %s --split-input-file --traced-lower-quantized --verify-diagnostics | FileCheck %s
// RUN: traced-opt %s --split-input-file --traced-lower-quantized=int8-kernels=false --verify-diagnostics | FileCheck %s --check-prefix=FLOAT

// (The GPU pipeline's front end turns int8-kernels off: the float path.)
// FLOAT-NOT: traced.int8.conv2d
// FLOAT-NOT: traced.int8.linear

// A quint8 conv2d and linear with constant qint8 weights (zero points 0)
// become traced.int8.conv2d and traced.int8.linear (docs/quantization.md,
// "int8 code"): the weight packed once, one row per output, k in (kernel
// row, kernel column, channel) order with the channels padded to 4 and the
// row to 64; the multiplier s_in * s_w[c] / s_out per channel; the offset
// bias / s_out.

// CHECK-LABEL: graph @forward
// The bias over s_out: a float32 multiply, as the float path computes it.
// CHECK: constant dense<"0x0103050002040600{{0+}}FFFDFB00FEFCFA00{{0+}}"> : tensor<2x64xi8>
// zx * sum_k w[o][k]: 7 * 21 and 7 * -21.
// CHECK: constant dense<[147, -147]> : tensor<2xi32>
// CHECK: call_function "torch.mul"(input=%b, other=2.5)
traced.module root @M class "M" {
  parameter @w : tensor<2x3x1x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>> = dense<[[[[1, 2]], [[3, 4]], [[5, 6]]], [[[-1, -2]], [[-3, -4]], [[-5, -6]]]]> : tensor<2x3x1x2xi8>
  parameter @b : tensor<2xf32> = dense<[1.0, -2.0]> : tensor<2xf32>
  parameter @lw : tensor<3x5x!quant.uniform<i8:f32, 0.5>> = dense<[[1, 2, 3, 4, 5], [0, 0, 0, 0, 0], [-1, -1, -1, -1, -1]]> : tensor<3x5xi8>
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x4x4x!quant.uniform<u8:f32, 0.1:7>>, %v: tensor<2x5x!quant.uniform<u8:f32, 0.2:3>>) -> (tensor<1x2x4x3x!quant.uniform<u8:f32, 0.4:9>>, tensor<2x3x!quant.uniform<u8:f32, 1.0:0>>) {
    %w = getattr %self["w"] : !traced.module<@M> -> tensor<2x3x1x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
    %b = getattr %self["b"] : !traced.module<@M> -> tensor<2xf32>
    // CHECK: call_function "traced.int8.conv2d"(input=%x, weight={{%[a-z0-9_]+}}, multiplier={{%[a-z0-9_]+}}, offset={{%[a-z0-9_]+}}, compensation={{%[a-z0-9_]+}}, kernel_size=[1, 2], input_zero_point=7, output_zero_point=9, relu=True) : (tensor<1x3x4x4xui8>, tensor<2x64xi8>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2x4x3xui8>
    %c = call_function "traced.quantized.conv_relu2d"(%x, %w, %b, 1, [0, 0], 1, 1, "zeros", 0.4, 9) : (tensor<1x3x4x4x!quant.uniform<u8:f32, 0.1:7>>, tensor<2x3x1x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>, tensor<2xf32>) -> tensor<1x2x4x3x!quant.uniform<u8:f32, 0.4:9>>
    %lw = getattr %self["lw"] : !traced.module<@M> -> tensor<3x5x!quant.uniform<i8:f32, 0.5>>
    // CHECK: call_function "traced.int8.linear"(input=%v, weight={{%[a-z0-9_]+}}, multiplier={{%[a-z0-9_]+}}, offset={{%[a-z0-9_]+}}, compensation={{%[a-z0-9_]+}}, input_zero_point=3) : (tensor<2x5xui8>, tensor<3x64xi8>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xui8>
    %l = call_function "torch.ao.nn.quantized.functional.linear"(%v, %lw, None, 1.0, 0) : (tensor<2x5x!quant.uniform<u8:f32, 0.2:3>>, tensor<3x5x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3x!quant.uniform<u8:f32, 1.0:0>>
    output %c, %l : tensor<1x2x4x3x!quant.uniform<u8:f32, 0.4:9>>, tensor<2x3x!quant.uniform<u8:f32, 1.0:0>>
  }
}

// -----

// A weight with a zero point other than 0, and a grouped convolution,
// keep the float path (exact float sums of the centered integers).
// CHECK-LABEL: graph @forward
traced.module root @N class "N" {
  parameter @w : tensor<2x1x1x1x!quant.uniform<i8:f32, 0.5:1>> = dense<[[[[1]]], [[[2]]]]> : tensor<2x1x1x1xi8>
  graph @forward(%self: !traced.module<@N>, %x: tensor<1x2x2x2x!quant.uniform<u8:f32, 0.1:7>>) -> tensor<1x2x2x2x!quant.uniform<u8:f32, 0.4:9>> {
    %w = getattr %self["w"] : !traced.module<@N> -> tensor<2x1x1x1x!quant.uniform<i8:f32, 0.5:1>>
    // CHECK-NOT: traced.int8
    // CHECK: call_function "torch.nn.functional.conv2d"
    %c = call_function "torch.ao.nn.quantized.functional.conv2d"(%x, %w, None, 1, 0, 1, 2, "zeros", 0.4, 9) : (tensor<1x2x2x2x!quant.uniform<u8:f32, 0.1:7>>, tensor<2x1x1x1x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x2x2x2x!quant.uniform<u8:f32, 0.4:9>>
    output %c : tensor<1x2x2x2x!quant.uniform<u8:f32, 0.4:9>>
  }
}

// -----

traced.module root @Bad class "Bad" {
  graph @forward(%self: !traced.module<@Bad>, %x: tensor<1x3x4x4xui8>, %w: tensor<2x32xi8>, %m: tensor<2xf32>, %k: tensor<2xi32>) -> tensor<1x2x4x4xui8> {
    // expected-error @+1 {{expects a weight packed in rows of 64, not 'tensor<2x32xi8>'}}
    %c = call_function "traced.int8.conv2d"(%x, %w, %m, %m, %k, [1, 1]) : (tensor<1x3x4x4xui8>, tensor<2x32xi8>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2x4x4xui8>
    output %c : tensor<1x2x4x4xui8>
  }
}

// -----

// The shape is the float convolution's (decodeConv over the unpacked
// weight [2, 3, 3, 3]), with its diagnostics.
traced.module root @NoOutput class "NoOutput" {
  graph @forward(%self: !traced.module<@NoOutput>, %x: tensor<1x3x2x2xui8>, %w: tensor<2x64xi8>, %m: tensor<2xf32>, %k: tensor<2xi32>) -> tensor<1x2x1x1xui8> {
    // expected-error @+1 {{kernel size 3 (dilation 1) is larger than the padded input size 2}}
    %c = call_function "traced.int8.conv2d"(%x, %w, %m, %m, %k, [3, 3]) : (tensor<1x3x2x2xui8>, tensor<2x64xi8>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2x1x1xui8>
    output %c : tensor<1x2x1x1xui8>
  }
}

// -----

// A quantized add_relu of an int8 convolution's result (read by nothing
// else) and a residual of its shape fuses into the convolution's epilogue:
// the convolution's output parameters, the residual's and the sum's become
// its add arguments. A second add of a result the graph also returns stays
// a separate add (the float path).
// CHECK-LABEL: graph @forward
// CHECK: %[[FUSED:.+]] = call_function "traced.int8.conv2d"(input=%x, {{.*}}output_zero_point=9, residual=%r, output_scale=0.4, residual_scale=0.25, residual_zero_point=5, sum_scale=0.5, sum_zero_point=2, sum_relu=True) : (tensor<1x2x2x2xui8>, tensor<2x64xi8>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<1x2x2x2xui8>) -> tensor<1x2x2x2xui8>
// CHECK-NOT: torch.ops.quantized.add_relu
// CHECK: %[[SHARED:.+]] = call_function "traced.int8.conv2d"(input=%x, {{.*}}output_zero_point=9) :
// CHECK: torch.round
// CHECK: output %[[FUSED]], {{%[a-z0-9_]+}}, %[[SHARED]]
// FLOAT-LABEL: graph @forward
// FLOAT-NOT: residual=
traced.module root @Add class "Add" {
  parameter @w : tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5>> = dense<[[[[1]], [[2]]], [[[-3]], [[4]]]]> : tensor<2x2x1x1xi8>
  graph @forward(%self: !traced.module<@Add>, %x: tensor<1x2x2x2x!quant.uniform<u8:f32, 0.1:7>>, %r: tensor<1x2x2x2x!quant.uniform<u8:f32, 0.25:5>>) -> (tensor<1x2x2x2x!quant.uniform<u8:f32, 0.5:2>>, tensor<1x2x2x2x!quant.uniform<u8:f32, 0.5:2>>, tensor<1x2x2x2x!quant.uniform<u8:f32, 0.4:9>>) {
    %w = getattr %self["w"] : !traced.module<@Add> -> tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5>>
    %c = call_function "torch.ao.nn.quantized.functional.conv2d"(%x, %w, None, 1, 0, 1, 1, "zeros", 0.4, 9) : (tensor<1x2x2x2x!quant.uniform<u8:f32, 0.1:7>>, tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2x2x2x!quant.uniform<u8:f32, 0.4:9>>
    %s = call_function "torch.ops.quantized.add_relu"(%c, %r, 0.5, 2) : (tensor<1x2x2x2x!quant.uniform<u8:f32, 0.4:9>>, tensor<1x2x2x2x!quant.uniform<u8:f32, 0.25:5>>) -> tensor<1x2x2x2x!quant.uniform<u8:f32, 0.5:2>>
    %d = call_function "torch.ao.nn.quantized.functional.conv2d"(%x, %w, None, 1, 0, 1, 1, "zeros", 0.4, 9) : (tensor<1x2x2x2x!quant.uniform<u8:f32, 0.1:7>>, tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2x2x2x!quant.uniform<u8:f32, 0.4:9>>
    %t = call_function "torch.ops.quantized.add"(%r, %d, 0.5, 2) : (tensor<1x2x2x2x!quant.uniform<u8:f32, 0.25:5>>, tensor<1x2x2x2x!quant.uniform<u8:f32, 0.4:9>>) -> tensor<1x2x2x2x!quant.uniform<u8:f32, 0.5:2>>
    output %s, %t, %d : tensor<1x2x2x2x!quant.uniform<u8:f32, 0.5:2>>, tensor<1x2x2x2x!quant.uniform<u8:f32, 0.5:2>>, tensor<1x2x2x2x!quant.uniform<u8:f32, 0.4:9>>
  }
}

// -----

// The fused add's operands are checked: a residual of the result's shape
// and dtype, positive finite scales, zero points in [0, 255].
traced.module root @BadAdd class "BadAdd" {
  graph @forward(%self: !traced.module<@BadAdd>, %x: tensor<1x3x2x2xui8>, %w: tensor<2x64xi8>, %m: tensor<2xf32>, %k: tensor<2xi32>, %r: tensor<1x2x2x1xui8>, %q: tensor<1x2x2x2xui8>) -> tensor<1x2x2x2xui8> {
    // expected-error @+1 {{expects a residual of the result's shape and dtype ('tensor<1x2x2x2xui8>'), not 'tensor<1x2x2x1xui8>'}}
    %c = call_function "traced.int8.conv2d"(input=%x, weight=%w, multiplier=%m, offset=%m, compensation=%k, kernel_size=[1, 1], residual=%r) : (tensor<1x3x2x2xui8>, tensor<2x64xi8>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<1x2x2x1xui8>) -> tensor<1x2x2x2xui8>
    output %c : tensor<1x2x2x2xui8>
  }
}

// -----

traced.module root @BadAdd class "BadAdd" {
  graph @forward(%self: !traced.module<@BadAdd>, %x: tensor<1x3x2x2xui8>, %w: tensor<2x64xi8>, %m: tensor<2xf32>, %k: tensor<2xi32>, %r: tensor<1x2x2x1xui8>, %q: tensor<1x2x2x2xui8>) -> tensor<1x2x2x2xui8> {
    // expected-error @+1 {{expects a positive finite residual_scale, not 0}}
    %c = call_function "traced.int8.conv2d"(input=%x, weight=%w, multiplier=%m, offset=%m, compensation=%k, kernel_size=[1, 1], residual=%q, residual_scale=0.0) : (tensor<1x3x2x2xui8>, tensor<2x64xi8>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<1x2x2x2xui8>) -> tensor<1x2x2x2xui8>
    output %c : tensor<1x2x2x2xui8>
  }
}

// -----

traced.module root @BadAdd class "BadAdd" {
  graph @forward(%self: !traced.module<@BadAdd>, %x: tensor<1x3x2x2xui8>, %w: tensor<2x64xi8>, %m: tensor<2xf32>, %k: tensor<2xi32>, %r: tensor<1x2x2x1xui8>, %q: tensor<1x2x2x2xui8>) -> tensor<1x2x2x2xui8> {
    // expected-error @+1 {{expects a sum_zero_point in [0, 255], not 256}}
    %c = call_function "traced.int8.conv2d"(input=%x, weight=%w, multiplier=%m, offset=%m, compensation=%k, kernel_size=[1, 1], residual=%q, sum_zero_point=256) : (tensor<1x3x2x2xui8>, tensor<2x64xi8>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<1x2x2x2xui8>) -> tensor<1x2x2x2xui8>
    output %c : tensor<1x2x2x2xui8>
  }
}
