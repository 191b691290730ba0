// RUN: traced-opt %s --traced-fuse-quantized | FileCheck %s

// A reference model's islands (dequantize, float op, quantize) become the
// int8 ops (docs/quantization.md).

// CHECK-LABEL: graph @forward
traced.module root @M class "M" {
  parameter @w : tensor<4x3x1x1x!quant.uniform<i8:f32:0, {0.01,0.02,0.03,0.04}>> = dense<3> : tensor<4x3x1x1xi8>
  parameter @b : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x4x4xf32>) -> tensor<1x4x2x2xf32> {
    %xq = call_function "torch.quantize_per_tensor"(%x, 0.05, 3, dtype(!quant.any<u8:f32>)) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4x!quant.uniform<u8:f32, 0.05:3>>
    %wq = getattr %self["w"] : !traced.module<@M> -> tensor<4x3x1x1x!quant.uniform<i8:f32:0, {0.01,0.02,0.03,0.04}>>
    %b = getattr %self["b"] : !traced.module<@M> -> tensor<4xf32>
    %xd = call_function "torch.dequantize"(%xq) : (tensor<1x3x4x4x!quant.uniform<u8:f32, 0.05:3>>) -> tensor<1x3x4x4xf32>
    %wd = call_function "torch.dequantize"(%wq) : (tensor<4x3x1x1x!quant.uniform<i8:f32:0, {0.01,0.02,0.03,0.04}>>) -> tensor<4x3x1x1xf32>
    // CHECK: call_function "traced.quantized.conv_relu2d"(input=%quantize_per_tensor_out, weight=%w, bias=%b, scale=0.1)
    // CHECK-SAME: -> tensor<1x4x4x4x!quant.uniform<u8:f32, 1.000000e-01>>
    // CHECK-NOT: "torch.nn.functional.conv2d"
    // CHECK-NOT: "torch.nn.functional.relu"
    %y = call_function "torch.nn.functional.conv2d"(%xd, %wd, %b) : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
    %r = call_function "torch.nn.functional.relu"(%y) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
    %rq = call_function "torch.quantize_per_tensor"(%r, 0.1, 0, dtype(!quant.any<u8:f32>)) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4x!quant.uniform<u8:f32, 0.1>>
    // Max pooling between a dequantize and a quantize at the same parameters
    // runs on the quantized tensor.
    // CHECK: call_function "torch.nn.functional.max_pool2d"(input=%conv_relu2d_out, kernel_size=[2, 2]) : (tensor<1x4x4x4x!quant.uniform<u8:f32, 1.000000e-01>>) -> tensor<1x4x2x2x!quant.uniform<u8:f32, 1.000000e-01>>
    %rd = call_function "torch.dequantize"(%rq) : (tensor<1x4x4x4x!quant.uniform<u8:f32, 0.1>>) -> tensor<1x4x4x4xf32>
    %p = call_function "torch.nn.functional.max_pool2d"(%rd, 2) : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
    %pq = call_function "torch.quantize_per_tensor"(%p, 0.1, 0, dtype(!quant.any<u8:f32>)) : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2x!quant.uniform<u8:f32, 0.1>>
    // CHECK: call_function "torch.dequantize"(input=%max_pool2d_out)
    %out = call_function "torch.dequantize"(%pq) : (tensor<1x4x2x2x!quant.uniform<u8:f32, 0.1>>) -> tensor<1x4x2x2xf32>
    output %out : tensor<1x4x2x2xf32>
  }
}
