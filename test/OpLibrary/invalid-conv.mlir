// RUN: traced-opt %s --split-input-file --verify-diagnostics

// The convolution family's checks (decodeConv), as torch makes them.

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x5x5xf32>, %w: tensor<3x2x2x2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv2d' padding='same' is not supported for strided convolutions}}
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, stride=2, padding="same") : (tensor<1x2x5x5xf32>, tensor<3x2x2x2xf32>) -> tensor<1x3x3x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x5x5xf32>, %w: tensor<3x2x2x2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv2d' 'padding' must be ints, "same" or "valid", got "full"}}
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, padding="full") : (tensor<1x2x5x5xf32>, tensor<3x2x2x2xf32>) -> tensor<1x3x3x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x5xf32>, %w: tensor<2x3x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv_transpose1d' output padding must be smaller than either stride or dilation, but got output_padding=[2] stride=[2] dilation=[1]}}
    %0 = call_function "torch.nn.functional.conv_transpose1d"(%x, %w, stride=2, output_padding=2) : (tensor<1x2x5xf32>, tensor<2x3x3xf32>) -> tensor<1x3x13xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x1x5xf32>, %w: tensor<1x1x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.convolution' the output size -1 of spatial dim 0 is too small (input [5], padding [4])}}
    %0 = call_function "torch.convolution"(%x, %w, None, [1], [4], [1], True, [0], 1) : (tensor<1x1x5xf32>, tensor<1x1x3xf32>) -> tensor<1x1x1xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x5xui8>, %w: tensor<2x3x3xui8>) {
    // expected-error @below {{'traced.call_function' op 'torch.convolution' has no CPU kernel for a transposed convolution in 'ui8'}}
    %0 = call_function "torch.convolution"(%x, %w, None, [1], [0], [1], True, [0], 1) : (tensor<1x2x5xui8>, tensor<2x3x3xui8>) -> tensor<1x3x7xui8>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x5xf32>, %w: tensor<4x3x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv_transpose1d' weight's 4 input channels are not divisible by groups=3}}
    %0 = call_function "torch.nn.functional.conv_transpose1d"(%x, %w, groups=3) : (tensor<1x4x5xf32>, tensor<4x3x3xf32>) -> tensor<1x9x7xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x5xf32>, %w: tensor<4x3x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv_transpose1d' input has 3 channels, but the transposed convolution's weight [4, 3, 3] expects 4}}
    %0 = call_function "torch.nn.functional.conv_transpose1d"(%x, %w) : (tensor<1x3x5xf32>, tensor<4x3x3xf32>) -> tensor<1x3x7xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x5x5xf32>, %w: tensor<3x2x2x2xf32>, %b: tensor<3xf64>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv2d' expects a bias of the input's dtype, got 'tensor<3xf64>' for 'tensor<1x2x5x5xf32>'}}
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, %b) : (tensor<1x2x5x5xf32>, tensor<3x2x2x2xf32>, tensor<3xf64>) -> tensor<1x3x4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x3xf32>, %w: tensor<3x2x2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv1d' padding 3 is too large for padding_mode='reflect' of an input of size 3}}
    %0 = call_function "torch.nn.functional.conv1d"(%x, %w, padding=3, padding_mode="reflect") : (tensor<1x2x3xf32>, tensor<3x2x2xf32>) -> tensor<1x3x8xf32>
    output
  }
}
