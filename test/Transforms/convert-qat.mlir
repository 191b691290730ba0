// RUN: traced-opt %s --split-input-file --traced-convert-qat --traced-dce -verify-diagnostics | FileCheck %s

// A QAT ConvBnReLU (prepare_qat_fx's form after traced-flatten and
// traced-normalize): the norm folds into the bias, the fake quantizations
// become quantize calls at the parameters torch's convert computes from the
// observers' running min and max (not the scale buffers), the weight's
// quantization folds to a constant, max pooling runs on the quantized
// tensor, and the islands become int8 ops.

// CHECK-LABEL: graph @forward
// CHECK:      %[[X:.*]] = call_function "torch.quantize_per_tensor"(input=%x, scale=0.007843137718737125, zero_point=127, dtype=dtype(!quant.any<u8:f32>))
// CHECK:      %[[W:.*]] = constant dense<{{.}}{{.}}{{.}}{{.}}127]], {{.}}{{.}}-127]]], {{.}}{{.}}{{.}}64]], {{.}}{{.}}127]]]]> : tensor<2x2x1x1xi8>
// CHECK:      %[[B:.*]] = constant dense_resource<qat_folded_bias> : tensor<2xf32>
// CHECK:      %[[C:.*]] = call_function "traced.quantized.conv_relu2d"(input=%[[X]], weight=%[[W]], bias=%[[B]], scale=0.003921568859368563)
// CHECK-SAME: -> tensor<1x2x2x2x!quant.uniform<u8:f32, 0.0039215688593685627>>
// CHECK:      %[[P:.*]] = call_function "torch.nn.functional.max_pool2d"(input=%[[C]], kernel_size=[2, 2])
// CHECK-SAME: -> tensor<1x2x1x1x!quant.uniform<u8:f32, 0.0039215688593685627>>
// CHECK:      %[[D:.*]] = call_function "torch.dequantize"(input=%[[P]])
// CHECK:      output %[[D]]
// CHECK-NOT:  batch_norm
// CHECK-NOT:  fake_quant
// (b' = (b - mean) * gamma / sqrt(var + eps) + beta = (0.5 - 0.25) * 2 / 2 + 1)
// CHECK:      qat_folded_bias: "0x080000000000A03F0000A03F"
traced.module root @M class "M" {
  buffer @on : tensor<1xi64> = dense<1> : tensor<1xi64>
  buffer @off : tensor<1xi64> = dense<0> : tensor<1xi64>
  buffer @x_min : tensor<f32> = dense<-1.0> : tensor<f32>
  buffer @x_max : tensor<f32> = dense<1.0> : tensor<f32>
  buffer @x_scale : tensor<1xf32> = dense<0.5> : tensor<1xf32>
  buffer @x_zp : tensor<1xi32> = dense<0> : tensor<1xi32>
  parameter @weight : tensor<2x2x1x1xf32> = dense<[[[[1.0]], [[-1.0]]], [[[0.5]], [[1.0]]]]> : tensor<2x2x1x1xf32>
  buffer @w_min : tensor<2xf32> = dense<[-1.0, 0.5]> : tensor<2xf32>
  buffer @w_max : tensor<2xf32> = dense<[1.0, 1.0]> : tensor<2xf32>
  buffer @w_scale : tensor<2xf32> = dense<1.0> : tensor<2xf32>
  buffer @w_zp : tensor<2xi32> = dense<0> : tensor<2xi32>
  parameter @bias : tensor<2xf32> = dense<0.5> : tensor<2xf32>
  buffer @mean : tensor<2xf32> = dense<0.25> : tensor<2xf32>
  buffer @var : tensor<2xf32> = dense<3.0> : tensor<2xf32>
  parameter @gamma : tensor<2xf32> = dense<2.0> : tensor<2xf32>
  parameter @beta : tensor<2xf32> = dense<1.0> : tensor<2xf32>
  buffer @y_min : tensor<f32> = dense<0.0> : tensor<f32>
  buffer @y_max : tensor<f32> = dense<1.0> : tensor<f32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x2x2xf32>) -> tensor<1x2x1x1xf32> {
    %on = getattr %self["on"] : !traced.module<@M> -> tensor<1xi64>
    %off = getattr %self["off"] : !traced.module<@M> -> tensor<1xi64>
    %x_min = getattr %self["x_min"] : !traced.module<@M> -> tensor<f32>
    %x_max = getattr %self["x_max"] : !traced.module<@M> -> tensor<f32>
    %x_scale = getattr %self["x_scale"] : !traced.module<@M> -> tensor<1xf32>
    %x_zp = getattr %self["x_zp"] : !traced.module<@M> -> tensor<1xi32>
    %xf = call_function "torch.fused_moving_avg_obs_fake_quant"(input=%x, observer_on=%off, fake_quant_on=%on, running_min=%x_min, running_max=%x_max, scale=%x_scale, zero_point=%x_zp, averaging_const=0.01, quant_min=0, quant_max=255, ch_axis=-1) : (tensor<1x2x2x2xf32>, tensor<1xi64>, tensor<1xi64>, tensor<f32>, tensor<f32>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x2x2x2xf32>
    %var = getattr %self["var"] : !traced.module<@M> -> tensor<2xf32>
    %gamma = getattr %self["gamma"] : !traced.module<@M> -> tensor<2xf32>
    %v = call_function "torch.add"(input=%var, other=1.0) : (tensor<2xf32>) -> tensor<2xf32>
    %sd = call_function "torch.sqrt"(input=%v) : (tensor<2xf32>) -> tensor<2xf32>
    %s = call_function "torch.div"(input=%gamma, other=%sd) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %s0 = call_function "torch.reshape"(input=%s, shape=[-1, 1, 1, 1]) : (tensor<2xf32>) -> tensor<2x1x1x1xf32>
    %weight = getattr %self["weight"] : !traced.module<@M> -> tensor<2x2x1x1xf32>
    %ws = call_function "torch.mul"(input=%weight, other=%s0) : (tensor<2x2x1x1xf32>, tensor<2x1x1x1xf32>) -> tensor<2x2x1x1xf32>
    %w_min = getattr %self["w_min"] : !traced.module<@M> -> tensor<2xf32>
    %w_max = getattr %self["w_max"] : !traced.module<@M> -> tensor<2xf32>
    %w_scale = getattr %self["w_scale"] : !traced.module<@M> -> tensor<2xf32>
    %w_zp = getattr %self["w_zp"] : !traced.module<@M> -> tensor<2xi32>
    %wf = call_function "torch.fused_moving_avg_obs_fake_quant"(input=%ws, observer_on=%off, fake_quant_on=%on, running_min=%w_min, running_max=%w_max, scale=%w_scale, zero_point=%w_zp, averaging_const=0.01, quant_min=-128, quant_max=127, ch_axis=0, per_row_fake_quant=True, symmetric_quant=True) : (tensor<2x2x1x1xf32>, tensor<1xi64>, tensor<1xi64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>) -> tensor<2x2x1x1xf32>
    %bias = getattr %self["bias"] : !traced.module<@M> -> tensor<2xf32>
    %zero = call_function "torch.zeros_like"(input=%bias) : (tensor<2xf32>) -> tensor<2xf32>
    %conv = call_function "torch.nn.functional.conv2d"(input=%xf, weight=%wf, bias=%zero) : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
    %s1 = call_function "torch.reshape"(input=%s, shape=[1, -1, 1, 1]) : (tensor<2xf32>) -> tensor<1x2x1x1xf32>
    %unscaled = call_function "torch.div"(input=%conv, other=%s1) : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
    %b1 = call_function "torch.reshape"(input=%bias, shape=[1, -1, 1, 1]) : (tensor<2xf32>) -> tensor<1x2x1x1xf32>
    %biased = call_function "torch.add"(input=%unscaled, other=%b1) : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
    %mean = getattr %self["mean"] : !traced.module<@M> -> tensor<2xf32>
    %var2 = getattr %self["var"] : !traced.module<@M> -> tensor<2xf32>
    %gamma2 = getattr %self["gamma"] : !traced.module<@M> -> tensor<2xf32>
    %beta = getattr %self["beta"] : !traced.module<@M> -> tensor<2xf32>
    %bn = call_function "torch.nn.functional.batch_norm"(input=%biased, running_mean=%mean, running_var=%var2, weight=%gamma2, bias=%beta, eps=1.0) : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
    %relu = call_function "torch.nn.functional.relu"(input=%bn) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
    %y_min = getattr %self["y_min"] : !traced.module<@M> -> tensor<f32>
    %y_max = getattr %self["y_max"] : !traced.module<@M> -> tensor<f32>
    %yf = call_function "torch.fused_moving_avg_obs_fake_quant"(input=%relu, observer_on=%off, fake_quant_on=%on, running_min=%y_min, running_max=%y_max, scale=%x_scale, zero_point=%x_zp, averaging_const=0.01, quant_min=0, quant_max=255, ch_axis=-1) : (tensor<1x2x2x2xf32>, tensor<1xi64>, tensor<1xi64>, tensor<f32>, tensor<f32>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x2x2x2xf32>
    %pool = call_function "torch.nn.functional.max_pool2d"(input=%yf, kernel_size=[2, 2]) : (tensor<1x2x2x2xf32>) -> tensor<1x2x1x1xf32>
    // A fake quantization that is off goes.
    %pf = call_function "torch.fused_moving_avg_obs_fake_quant"(input=%pool, observer_on=%off, fake_quant_on=%off, running_min=%y_min, running_max=%y_max, scale=%x_scale, zero_point=%x_zp, averaging_const=0.01, quant_min=0, quant_max=255, ch_axis=-1) : (tensor<1x2x1x1xf32>, tensor<1xi64>, tensor<1xi64>, tensor<f32>, tensor<f32>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x2x1x1xf32>
    output %pf : tensor<1x2x1x1xf32>
  }
}

// -----

// An observer still on: its scale would still change.
traced.module root @M class "M" {
  buffer @on : tensor<1xi64> = dense<1> : tensor<1xi64>
  buffer @lo : tensor<f32> = dense<-1.0> : tensor<f32>
  buffer @hi : tensor<f32> = dense<1.0> : tensor<f32>
  buffer @s : tensor<1xf32> = dense<0.5> : tensor<1xf32>
  buffer @z : tensor<1xi32> = dense<0> : tensor<1xi32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %on = getattr %self["on"] : !traced.module<@M> -> tensor<1xi64>
    %lo = getattr %self["lo"] : !traced.module<@M> -> tensor<f32>
    %hi = getattr %self["hi"] : !traced.module<@M> -> tensor<f32>
    %s = getattr %self["s"] : !traced.module<@M> -> tensor<1xf32>
    %z = getattr %self["z"] : !traced.module<@M> -> tensor<1xi32>
    // expected-error @+1 {{observer is on}}
    %f = call_function "torch.fused_moving_avg_obs_fake_quant"(input=%x, observer_on=%on, fake_quant_on=%on, running_min=%lo, running_max=%hi, scale=%s, zero_point=%z, averaging_const=0.01, quant_min=0, quant_max=255, ch_axis=-1) : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<f32>, tensor<f32>, tensor<1xf32>, tensor<1xi32>) -> tensor<4xf32>
    output %f : tensor<4xf32>
  }
}

// -----

// An empty range: left in float, with a warning.
traced.module root @M class "M" {
  buffer @off : tensor<1xi64> = dense<0> : tensor<1xi64>
  buffer @on : tensor<1xi64> = dense<1> : tensor<1xi64>
  buffer @lo : tensor<f32> = dense<-1.0> : tensor<f32>
  buffer @hi : tensor<f32> = dense<1.0> : tensor<f32>
  buffer @s : tensor<1xf32> = dense<0.5> : tensor<1xf32>
  buffer @z : tensor<1xi32> = dense<0> : tensor<1xi32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %off = getattr %self["off"] : !traced.module<@M> -> tensor<1xi64>
    %on = getattr %self["on"] : !traced.module<@M> -> tensor<1xi64>
    %lo = getattr %self["lo"] : !traced.module<@M> -> tensor<f32>
    %hi = getattr %self["hi"] : !traced.module<@M> -> tensor<f32>
    %s = getattr %self["s"] : !traced.module<@M> -> tensor<1xf32>
    %z = getattr %self["z"] : !traced.module<@M> -> tensor<1xi32>
    // expected-warning @+1 {{left this fake quantization in float: its range [5, 3] is empty}}
    %f = call_function "torch.fused_moving_avg_obs_fake_quant"(input=%x, observer_on=%off, fake_quant_on=%on, running_min=%lo, running_max=%hi, scale=%s, zero_point=%z, averaging_const=0.01, quant_min=5, quant_max=3, ch_axis=-1) : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<f32>, tensor<f32>, tensor<1xf32>, tensor<1xi32>) -> tensor<4xf32>
    output %f : tensor<4xf32>
  }
}
