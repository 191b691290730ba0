// RUN: traced-opt %s | FileCheck %s

// Quantized tensors have the quant dialect's element types
// (docs/quantization.md): torch.quint8 is `u8`, torch.qint8 `i8`, per
// tensor or per channel; a quantized dtype argument is `!quant.any`.

// CHECK-LABEL: traced.module root @M
traced.module root @M class "__main__.M" {
  submodule @conv : @QConv
  buffer @s : tensor<f32> = dense<5.000000e-01> : tensor<f32>
  buffer @z : tensor<i64> = dense<3> : tensor<i64>
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
    // Constant parameters: the result type follows from them.
    // CHECK: call_function "torch.quantize_per_tensor"(input=%x, scale=0.5, zero_point=3, dtype=dtype(!quant.any<u8:f32>)) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>
    %q = call_function "torch.quantize_per_tensor"(%x, 0.5, 3, dtype(!quant.any<u8:f32>)) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>
    // Parameters that are traced (torch.fx's buffers): known when it runs.
    %s = getattr %self["s"] : !traced.module<@M> -> tensor<f32>
    %z = getattr %self["z"] : !traced.module<@M> -> tensor<i64>
    // CHECK: call_function "torch.quantize_per_tensor"(input=%x, scale=%s, zero_point=%z
    %q2 = call_function "torch.quantize_per_tensor"(%x, %s, %z, dtype(!quant.any<u8:f32>)) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i64>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>
    // Ops that move elements keep the quantization.
    // CHECK: call_function "torch.flatten"(input=%quantize_per_tensor_out, start_dim=1) : (tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>) -> tensor<1x32x!quant.uniform<u8:f32, 5.000000e-01:3>>
    %f = call_function "torch.flatten"(%q, 1) : (tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>) -> tensor<1x32x!quant.uniform<u8:f32, 5.000000e-01:3>>
    // CHECK: call_function "torch.cat"
    %c = call_function "torch.cat"([%q, %q2], 1) : (tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>, tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>) -> tensor<1x4x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>
    // CHECK: call_method %quantize_per_tensor_out["relu"]() : (tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>
    %r = call_method %q["relu"]() : (tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>
    // CHECK: call_function "torch.ops.quantized.add_relu"(qa=%relu_out, qb=%quantize_per_tensor_out, scale=0.25, zero_point=0) : {{.*}} -> tensor<1x2x4x4x!quant.uniform<u8:f32, 2.500000e-01>>
    %a = call_function "torch.ops.quantized.add_relu"(%r, %q, 0.25, 0) : (tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>, tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 2.500000e-01>>
    // A quantized module: its result has the module's scale and zero point.
    %conv = getattr %self["conv"] : !traced.module<@M> -> !traced.module<@QConv>
    // CHECK: %conv_out = call_method %conv["forward"](%add_relu_out) : {{.*}} -> tensor<1x3x4x4x!quant.uniform<u8:f32, 1.000000e-01:2>>
    %y = call_method %conv["forward"](%a) : (!traced.module<@QConv>, tensor<1x2x4x4x!quant.uniform<u8:f32, 2.500000e-01>>) -> tensor<1x3x4x4x!quant.uniform<u8:f32, 1.000000e-01:2>>
    // CHECK: call_method %conv_out["dequantize"]() : (tensor<1x3x4x4x!quant.uniform<u8:f32, 1.000000e-01:2>>) -> tensor<1x3x4x4xf32>
    %d = call_method %y["dequantize"]() : (tensor<1x3x4x4x!quant.uniform<u8:f32, 1.000000e-01:2>>) -> tensor<1x3x4x4xf32>
    output %d : tensor<1x3x4x4xf32>
  }
}
// A per-channel weight: its value holds the storage integers.
// CHECK: parameter @weight : tensor<3x2x1x1x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01,3.000000e-01:1}>> = dense<1> : tensor<3x2x1x1xi8>
traced.module @QConv class "torch.ao.nn.quantized.modules.conv.Conv2d" {
  parameter @weight : tensor<3x2x1x1x!quant.uniform<i8:f32:0, {0.1,0.2,0.3:1}>> = dense<1> : tensor<3x2x1x1xi8>
  parameter @bias : tensor<3xf32> = dense<0.5> : tensor<3xf32>
  attribute @stride : tuple<i64, i64> = (1, 1)
  attribute @padding : tuple<i64, i64> = (0, 0)
  attribute @dilation : tuple<i64, i64> = (1, 1)
  attribute @groups : i64 = 1
  attribute @padding_mode : !traced.str = "zeros"
  attribute @scale : f64 = 0.1
  attribute @zero_point : i64 = 2
}
