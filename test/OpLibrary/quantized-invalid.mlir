// RUN: traced-opt %s -split-input-file -verify-diagnostics

// What torch refuses on quantized tensors is refused here too, with a
// reason; nothing computes on storage integers as if they were values.

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %q: tensor<2x2x!quant.uniform<i8:f32, 0.5>>) {
    // expected-error @below {{'torch.matmul' does not take quantized tensors (argument 'input' is 'tensor<2x2x!quant.uniform<i8:f32, 5.000000e-01>>'): torch 1.13 has no quantized CPU kernel for it; dequantize() it first}}
    %0 = call_function "torch.matmul"(%q, %q) : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>, tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %q: tensor<2x2x!quant.uniform<u8:f32, 0.5>>, %x: tensor<2x2xf32>) {
    // expected-error @below {{'torch.add' does not take quantized tensors}}
    %0 = call_function "torch.add"(%q, %x) : (tensor<2x2x!quant.uniform<u8:f32, 0.5>>, tensor<2x2xf32>) -> tensor<2x2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %q: tensor<2x2x!quant.uniform<u8:f32, 0.5>>, %p: tensor<2x2x!quant.uniform<u8:f32, 0.25>>) {
    // torch.cat requantizes to the first tensor's parameters, not another's.
    // expected-error @below {{'torch.cat' result #0 is inferred as 'tensor<4x2x!quant.uniform<u8:f32, 5.000000e-01>>', but the op declares 'tensor<4x2x!quant.uniform<u8:f32, 2.500000e-01>>'}}
    %0 = call_function "torch.cat"([%q, %p]) : (tensor<2x2x!quant.uniform<u8:f32, 0.5>>, tensor<2x2x!quant.uniform<u8:f32, 0.25>>) -> tensor<4x2x!quant.uniform<u8:f32, 0.25>>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x2xf32>) {
    // expected-error @below {{zero_point 300 is out of range of torch.quint8 [0, 255]}}
    %0 = call_function "torch.quantize_per_tensor"(%x, 0.5, 300, dtype(!quant.any<u8:f32>)) : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<u8:f32, 0.5:300>>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x2xf32>) {
    // expected-error @below {{scale 0.000000e+00 is not a positive finite number}}
    %0 = call_function "torch.quantize_per_tensor"(%x, 0.0, 0, dtype(!quant.any<u8:f32>)) : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<u8:f32, 1.0>>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x2xf32>) {
    // expected-error @below {{expects a quantized dtype (torch.quint8, torch.qint8 or torch.qint32), not}}
    %0 = call_function "torch.quantize_per_tensor"(%x, 0.5, 0, dtype(f32)) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x2xi64>) {
    // expected-error @below {{quantizes float32 tensors only, not 'tensor<2x2xi64>'}}
    %0 = call_function "torch.quantize_per_tensor"(%x, 0.5, 0, dtype(!quant.any<u8:f32>)) : (tensor<2x2xi64>) -> tensor<2x2x!quant.uniform<u8:f32, 0.5>>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %q: tensor<2x2x!quant.uniform<u8:f32, 0.5>>) {
    // The declared result disagrees with the scale given.
    // expected-error @below {{result #0 is inferred as}}
    %0 = call_function "torch.ops.quantized.add"(%q, %q, 0.25, 0) : (tensor<2x2x!quant.uniform<u8:f32, 0.5>>, tensor<2x2x!quant.uniform<u8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<u8:f32, 0.5>>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %q: tensor<2x2x!quant.uniform<u8:f32, 0.5>>, %x: tensor<2x2xf32>) {
    // expected-error @below {{expects a quantized tensor for 'qb', but got 'tensor<2x2xf32>'}}
    %0 = call_function "torch.ops.quantized.add"(%q, %x, 0.25, 0) : (tensor<2x2x!quant.uniform<u8:f32, 0.5>>, tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<u8:f32, 0.25>>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{value of type 'tensor<2xi32>' does not match the declared type}}
  parameter @w : tensor<2x!quant.uniform<i8:f32, 0.5>> = dense<1> : tensor<2xi32>
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %q: tensor<2x2x!quant.uniform<u8:f32, 0.5>>, %x: tensor<2x2xf32>) {
    // expected-error @below {{'torch.cat' takes quantized tensors only, but argument 'tensors' is 'tensor<2x2xf32>' where another is 'tensor<2x2x!quant.uniform<u8:f32, 5.000000e-01>>'}}
    %0 = call_function "torch.cat"([%q, %x]) : (tensor<2x2x!quant.uniform<u8:f32, 0.5>>, tensor<2x2xf32>) -> tensor<4x2x!quant.uniform<u8:f32, 0.5>>
    output
  }
}
