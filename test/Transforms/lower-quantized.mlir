// RUN: traced-opt %s --traced-lower-quantized | FileCheck %s
// RUN: traced-opt %s --traced-lower-quantized --traced-lower-quantized | FileCheck %s

// Quantized values take their storage types; quantize, relu and
// dequantize become integer and float calls with the parameters folded in
// (docs/quantization.md, "Compiling"); views stay.

// CHECK-LABEL: graph @forward
// CHECK-SAME: (%self: !traced.module<@M>, %x: tensor<2x3x4xf32>) -> tensor<2x12xf32>
traced.module root @M class "M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
    // quantize: x * (1 / 0.5), rounded, plus the zero point, clamped, cast.
    // CHECK: call_function "torch.mul"(input=%x, other=2.0)
    // CHECK: call_function "torch.round"
    // CHECK: call_function "torch.nan_to_num"
    // CHECK: call_function "torch.add"({{.*}}other=3.0)
    // CHECK: call_function "torch.clamp"({{.*}}min=0.0, max=255.0)
    // CHECK: ["to"](dtype=dtype(ui8)) : (tensor<2x3x4xf32>) -> tensor<2x3x4xui8>
    %q = call_function "torch.quantize_per_tensor"(%x, 0.5, 3, dtype(!quant.any<u8:f32>)) : (tensor<2x3x4xf32>) -> tensor<2x3x4x!quant.uniform<u8:f32, 0.5:3>>
    // CHECK: call_function "torch.flatten"({{.*}}) : (tensor<2x3x4xui8>) -> tensor<2x12xui8>
    %f = call_function "torch.flatten"(%q, 1) : (tensor<2x3x4x!quant.uniform<u8:f32, 0.5:3>>) -> tensor<2x12x!quant.uniform<u8:f32, 0.5:3>>
    // relu: the storage integers at least the zero point.
    // CHECK: call_function "torch.clamp"({{.*}}min=3, max=255) : (tensor<2x12xui8>) -> tensor<2x12xui8>
    %r = call_function "torch.nn.functional.relu"(%f) : (tensor<2x12x!quant.uniform<u8:f32, 0.5:3>>) -> tensor<2x12x!quant.uniform<u8:f32, 0.5:3>>
    // dequantize: q * 0.5 + 0.5 * -3.
    // CHECK: ["to"](dtype=dtype(f32)) : (tensor<2x12xui8>) -> tensor<2x12xf32>
    // CHECK: call_function "torch.mul"({{.*}}other=0.5)
    // CHECK: call_function "torch.add"({{.*}}other=-1.5)
    %d = call_method %r["dequantize"]() : (tensor<2x12x!quant.uniform<u8:f32, 0.5:3>>) -> tensor<2x12xf32>
    // CHECK-NOT: quant.
    output %d : tensor<2x12xf32>
  }
}
