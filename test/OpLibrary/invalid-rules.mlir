// RUN: traced-opt %s -split-input-file -verify-diagnostics

// Each result rule reports impossible calls with PyTorch's reasons.

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.add' shapes [2, 3] and [4, 3] cannot be broadcast together}}
    %0 = call_function "torch.add"(%a, %b) : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x4x4xf32>, %w: tensor<8x3x5x5xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv2d' kernel size 5 (dilation 1) is larger than the padded input size 4}}
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w) : (tensor<1x3x4x4xf32>, tensor<8x3x5x5xf32>) -> tensor<1x8x1x1xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x8x4x4xf32>, %w: tensor<6x2x1x1xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv2d' weight's 6 output channels are not divisible by groups=4}}
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, groups=4) : (tensor<1x8x4x4xf32>, tensor<6x2x1x1xf32>) -> tensor<1x6x4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv2d' 'stride' needs 2 values, got 3}}
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, stride=[1, 1, 1]) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x5xf32>, %w: tensor<3x4xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.linear' input has 5 features, but weight 'tensor<3x4xf32>' expects 4}}
    %0 = call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x5xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.matmul' cannot multiply 'tensor<2x3xf32>' and 'tensor<4x5xf32>': contracted sizes 3 and 4 differ}}
    %0 = call_function "torch.matmul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.bmm' batch sizes of 'tensor<2x3x4xf32>' and 'tensor<3x4x5xf32>' differ}}
    %0 = call_function "torch.bmm"(%a, %b) : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x2x2xf32>, %c: tensor<3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.batch_norm' 'running_mean' must have shape [4], got 'tensor<3xf32>'}}
    %0 = call_function "torch.nn.functional.batch_norm"(%x, %c, %c) : (tensor<1x4x2x2xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x4x2x2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x7x64xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.layer_norm' normalized_shape [32] does not match the trailing dimensions of 'tensor<2x7x64xf32>'}}
    %0 = call_function "torch.nn.functional.layer_norm"(%x, [32]) : (tensor<2x7x64xf32>) -> tensor<2x7x64xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x8x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.max_pool2d' pad should be at most half of kernel size, but got pad=2 and kernel_size=3}}
    %0 = call_function "torch.nn.functional.max_pool2d"(%x, 3, 1, 2) : (tensor<1x2x8x8xf32>) -> tensor<1x2x10x10xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_method' op 'Tensor.permute' (torch.permute) dims [0, 0] repeat dimension 0}}
    %0 = call_method %x["permute"](0, 0) : (tensor<2x3xf32>) -> tensor<2x2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_method' op 'Tensor.transpose' (torch.transpose) dim 2 is out of range for a tensor of rank 2}}
    %0 = call_method %x["transpose"](0, 2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_method' op 'Tensor.reshape' (torch.reshape) only one dimension can be inferred in [-1, -1]}}
    %0 = call_method %x["reshape"](-1, -1) : (tensor<2x3xf32>) -> tensor<6x1xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.cat' sizes of 'tensor<2x3xf32>' and 'tensor<2x4xf32>' differ in dimension 1}}
    %0 = call_function "torch.cat"([%a, %b]) : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'operator.getitem' index 2 is out of range for dimension 0 of size 2}}
    %0 = call_function "operator.getitem"(%x, 2) : (tensor<2x3xf32>) -> tensor<3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_method' op 'Tensor.expand' cannot expand 'tensor<2x3xf32>' to [4, 3]}}
    %0 = call_method %x["expand"](4, 3) : (tensor<2x3xf32>) -> tensor<4x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_method' op 'Tensor.flatten' (torch.flatten) start_dim 1 comes after end_dim 0}}
    %0 = call_method %x["flatten"](1, 0) : (tensor<2x3xf32>) -> tensor<6xf32>
    output
  }
}
