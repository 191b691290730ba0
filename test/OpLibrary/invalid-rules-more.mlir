// RUN: traced-opt %s -split-input-file -verify-diagnostics

// The rest of the rules' errors, one case each.

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>, %c: tensor<4xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.batch_norm' expects an input of rank 2 or more, got 'tensor<4xf32>'}}
    %0 = call_function "torch.nn.functional.batch_norm"(%x, %c, %c) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x1xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.batch_norm' Expected more than 1 value per channel when training, got input size [1, 3, 1]}}
    %0 = call_function "torch.nn.functional.batch_norm"(%x, None, None, training=True) : (tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x4x4xf32>, %w: tensor<2x2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv2d' expects a weight of rank 4, got rank 2}}
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2xf32>) -> tensor<1x2x4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4x4xf32>, %w: tensor<2x2x1x1xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv2d' expects an input of rank 3 or 4 for a weight of rank 4, got rank 2}}
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w) : (tensor<4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv2d' groups must be positive, got 0}}
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, groups=0) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %b: tensor<3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv2d' bias must have shape [2], got [3]}}
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, %b) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<3xf32>) -> tensor<1x2x4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.conv2d' 'stride' must be positive, got [0, 0]}}
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, stride=0) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x4xf32>, %w: tensor<2x3x4xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.linear' expects an input of rank >= 1 and a weight of rank 1 or 2, got 'tensor<2x4xf32>' and 'tensor<2x3x4xf32>'}}
    %0 = call_function "torch.nn.functional.linear"(%x, %w) : (tensor<2x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<5xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.linear' bias 'tensor<5xf32>' does not broadcast into the output's shape [2, 3]}}
    %0 = call_function "torch.nn.functional.linear"(%x, %w, %b) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<5xf32>) -> tensor<2x3xf32>
    output
  }
}

// -----

// The bias is added in place into the product, as torch does: a vector
// product's 0-d result takes no [1] bias (found by fuzz-diff, whose
// lowering then crashed), and a batched input is flattened to [batch, out].
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1xf64>, %y: tensor<5x2x3xf32>, %w: tensor<4x3xf32>, %b: tensor<2x4xf32>) {
    // expected-error @below {{'torch.nn.functional.linear' bias 'tensor<1xf64>' does not broadcast into the output's shape []}}
    %0 = call_function "torch.nn.functional.linear"(%x, %x, %x) : (tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> tensor<f64>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %y: tensor<5x2x3xf32>, %w: tensor<4x3xf32>, %b: tensor<2x4xf32>) {
    // expected-error @below {{'torch.nn.functional.linear' bias 'tensor<2x4xf32>' does not broadcast into the output's shape [10, 4]}}
    %0 = call_function "torch.nn.functional.linear"(%y, %w, %b) : (tensor<5x2x3xf32>, tensor<4x3xf32>, tensor<2x4xf32>) -> tensor<5x2x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %y: tensor<2x3xf32>, %w: tensor<3xf32>, %b: tensor<2xf32>) {
    // expected-error @below {{'torch.nn.functional.linear' with a bias, the weight must be a matrix, got 'tensor<3xf32>'}}
    %0 = call_function "torch.nn.functional.linear"(%y, %w, %b) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<f32>, %b: tensor<3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.matmul' both arguments must be at least 1-D, got 'tensor<f32>' and 'tensor<3xf32>'}}
    %0 = call_function "torch.matmul"(%a, %b) : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.bmm' expects 3-D tensors, got 'tensor<2x3xf32>' and 'tensor<3x4xf32>'}}
    %0 = call_function "torch.bmm"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<8x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.max_pool2d' expects a 3-D or 4-D (batched) input with non-empty channel and spatial dims, got 'tensor<8x8xf32>'}}
    %0 = call_function "torch.nn.functional.max_pool2d"(%x, 2) : (tensor<8x8xf32>) -> tensor<4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x8x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.max_pool2d' kernel_size must be a single int or a tuple of two ints, got 3 values}}
    %0 = call_function "torch.nn.functional.max_pool2d"(%x, [2, 2, 2]) : (tensor<1x8x8xf32>) -> tensor<1x4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x8x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.avg_pool2d' stride should be greater than zero, but got 0}}
    %0 = call_function "torch.nn.functional.avg_pool2d"(%x, 2, 0) : (tensor<1x8x8xf32>) -> tensor<1x4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.max_pool2d' given input size (2x2), the calculated output size (0x0) is too small}}
    %0 = call_function "torch.nn.functional.max_pool2d"(%x, 3, 1, 1, 2) : (tensor<1x2x2xf32>) -> tensor<1x1x1xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<8x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.adaptive_avg_pool2d' expects a 3-D or 4-D (batched) input with non-empty channel and spatial dims, got 'tensor<8x8xf32>'}}
    %0 = call_function "torch.nn.functional.adaptive_avg_pool2d"(%x, 1) : (tensor<8x8xf32>) -> tensor<1x1xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x8x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.adaptive_avg_pool2d' output_size must have 2 elements, got 3}}
    %0 = call_function "torch.nn.functional.adaptive_avg_pool2d"(%x, [1, 1, 1]) : (tensor<1x8x8xf32>) -> tensor<1x1x1xf32>
    output
  }
}

// -----

// The 1-D and 3-D pools check their own ranks and list lengths.
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x8x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.max_pool3d' expects a 4-D or 5-D (batched) input with non-empty channel and spatial dims, got 'tensor<2x8x8xf32>'}}
    %0 = call_function "torch.nn.functional.max_pool3d"(%x, 2) : (tensor<2x8x8xf32>) -> tensor<1x4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.avg_pool1d' kernel_size must be a single int or a tuple of one int, got 2 values}}
    %0 = call_function "torch.nn.functional.avg_pool1d"(%x, [2, 2]) : (tensor<1x2x8xf32>) -> tensor<1x2x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x8x8x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.avg_pool3d' pad should be at most half of kernel size, but got pad=2 and kernel_size=2}}
    %0 = call_function "torch.nn.functional.avg_pool3d"(%x, 2, padding=2) : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x6x6x6xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x8x8x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.avg_pool3d' divisor must be not zero}}
    %0 = call_function "torch.nn.functional.avg_pool3d"(%x, 2, divisor_override=0) : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x4x4x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x8x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.max_pool2d_with_indices' pad must be non-negative, but got pad: -1}}
    %0 = call_function "torch.nn.functional.max_pool2d_with_indices"(%x, 2, padding=-1) : (tensor<1x8x8xf32>) -> tuple<tensor<1x4x4xf32>, tensor<1x4x4xi64>>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x8x8xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.adaptive_max_pool2d' output_size must be non-negative, got -1}}
    %0 = call_function "torch.nn.functional.adaptive_max_pool2d"(%x, -1) : (tensor<1x8x8xf32>) -> tensor<1x1x1xf32>
    output
  }
}

// -----

// lp_pool with an int p keeps an int32 input int32, which avg_pool has no
// kernel for.
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x8xi32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.lp_pool1d' x ** norm_type is 'i32', which avg_pool has no kernel for}}
    %0 = call_function "torch.nn.functional.lp_pool1d"(%x, 2, 2) : (tensor<1x2x8xi32>) -> tensor<1x2x4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.mean' dim 2 is out of range for a tensor of rank 2}}
    %0 = call_function "torch.mean"(%x, 2) : (tensor<2x3xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.reshape' invalid dimension -2 in [-2, 3]}}
    %0 = call_function "torch.reshape"(%x, [-2, 3]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.permute' dims [1, 0, 2] do not match the rank of 'tensor<2x3xf32>'}}
    %0 = call_function "torch.permute"(%x, [1, 0, 2]) : (tensor<2x3xf32>) -> tensor<3x2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.unsqueeze' dim 3 is out of range for a tensor of rank 3}}
    %0 = call_function "torch.unsqueeze"(%x, 3) : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x1xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.squeeze' dim -3 is out of range for a tensor of rank 2}}
    %0 = call_function "torch.squeeze"(%x, -3) : (tensor<2x1xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x6xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.unflatten' (Tensor.unflatten) shape [4, -1] is invalid for an input of 6 elements}}
    %0 = call_function "torch.unflatten"(%x, 1, [4, -1]) : (tensor<2x6xf32>) -> tensor<2x4x2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<2x3xf32>, %b: tensor<3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.cat' tensors must have the same rank, got 'tensor<2x3xf32>' and 'tensor<3xf32>'}}
    %0 = call_function "torch.cat"([%a, %b]) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.stack' stack expects tensors of one shape, got 'tensor<2x3xf32>' and 'tensor<3x2xf32>'}}
    %0 = call_function "torch.stack"([%a, %b]) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.chunk' chunks must be positive, got 0}}
    %0 = call_function "torch.chunk"(%x, 0) : (tensor<4xf32>) -> tuple<tensor<4xf32>>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %t: tuple<i64, i64>) {
    // expected-error @below {{'traced.call_function' op 'operator.getitem' index 2 is out of range for 'tuple<i64, i64>'}}
    %0 = call_function "operator.getitem"(%t, 2) : (tuple<i64, i64>) -> i64
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op 'operator.getitem' too many indices for 'tensor<2xf32>'}}
    %0 = call_function "operator.getitem"(%x, (0, 0)) : (tensor<2xf32>) -> tensor<f32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>) {
    // expected-error @below {{'traced.call_function' op 'operator.getitem' slice step must be a positive int}}
    %0 = call_function "operator.getitem"(%x, slice(None, None, 0)) : (tensor<4xf32>) -> tensor<4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_method' op 'Tensor.expand' -1 is not allowed for a new leading dimension in expand}}
    %0 = call_method %x["expand"](-1, 2, 3) : (tensor<2x3xf32>) -> tensor<2x2x3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_method' op 'Tensor.expand' cannot expand 'tensor<2x3xf32>' to [3]: fewer dimensions}}
    %0 = call_method %x["expand"](3) : (tensor<2x3xf32>) -> tensor<3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_method' op 'Tensor.size' dim 2 is out of range for a tensor of rank 2}}
    %0 = call_method %x["size"](2) : (tensor<2x3xf32>) -> i64
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>, %w: tensor<4x4xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.multi_head_attention_forward' expects query and key of rank 2 (unbatched) or 3 (L, N, E), got 'tensor<4xf32>' and 'tensor<4xf32>'}}
    %0 = call_function "torch.nn.functional.multi_head_attention_forward"(%x, %x, %x, 4, 2, None, None, None, None, False, 0.0, %w, None, need_weights=False) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x4xf32>) -> tuple<tensor<4xf32>, !traced.none>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>, %w: tensor<4x4xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.multi_head_attention_forward' query has embedding size 4, but embed_dim_to_check is 8}}
    %0 = call_function "torch.nn.functional.multi_head_attention_forward"(%x, %x, %x, 8, 2, None, None, None, None, False, 0.0, %w, None, need_weights=False) : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>) -> tuple<tensor<3x4xf32>, !traced.none>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>, %w: tensor<4x4xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.multi_head_attention_forward' embed_dim 4 is not divisible by num_heads 3}}
    %0 = call_function "torch.nn.functional.multi_head_attention_forward"(%x, %x, %x, 4, 3, None, None, None, None, False, 0.0, %w, None, need_weights=False) : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>) -> tuple<tensor<3x4xf32>, !traced.none>
    output
  }
}

// -----

// The addmm family converts beta and alpha to an integer result's type, and
// refuses one that does not fit, as torch does.
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x2xui8>) {
    // expected-error @below {{'traced.call_function' op 'torch.baddbmm' 'alpha' (-1.7) cannot be converted to 'ui8' without overflow}}
    %0 = call_function "torch.baddbmm"(%x, %x, %x, beta=1.5, alpha=-1.7) : (tensor<1x2x2xui8>, tensor<1x2x2xui8>, tensor<1x2x2xui8>) -> tensor<1x2x2xui8>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %i: tensor<2xi8>, %a: tensor<2x3xi8>, %b: tensor<3x2xi8>) {
    // expected-error @below {{'traced.call_function' op 'torch.addmm' 'beta' (200) cannot be converted to 'i8' without overflow}}
    %0 = call_function "torch.addmm"(%i, %a, %b, beta=200, alpha=1) : (tensor<2xi8>, tensor<2x3xi8>, tensor<3x2xi8>) -> tensor<2x2xi8>
    output
  }
}

// -----

// nll_loss_backward checks what its kernel indexes by: an int64 target of
// one class a sample (the fuzzer's float target overflowed the kernel).
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x1xf64>, %t: tensor<0xf64>) {
    // expected-error @below {{'traced.call_function' op 'torch.ops.aten.nll_loss_backward.default' expects an int64 target, got 'tensor<1x3x1xf64>'}}
    %0 = call_function "torch.ops.aten.nll_loss_backward.default"(grad_output=%x, input=%x, target=%x, weight=%x, reduction=2, ignore_index=-2, total_weight=%x) : (tensor<1x3x1xf64>, tensor<1x3x1xf64>, tensor<1x3x1xf64>, tensor<1x3x1xf64>, tensor<1x3x1xf64>) -> tensor<1x3x1xf64>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %g: tensor<f32>, %x: tensor<2x3xf32>, %t: tensor<3xi64>, %w: tensor<f32>) {
    // expected-error @below {{'traced.call_function' op 'torch.ops.aten.nll_loss_backward.default' expects a target of 2 elements for input 'tensor<2x3xf32>', got 'tensor<3xi64>'}}
    %0 = call_function "torch.ops.aten.nll_loss_backward.default"(grad_output=%g, input=%x, target=%t, weight=None, reduction=1, ignore_index=-100, total_weight=%w) : (tensor<f32>, tensor<2x3xf32>, tensor<3xi64>, tensor<f32>) -> tensor<2x3xf32>
    output
  }
}

// -----

// torch 1.13's nll_loss_backward takes a 1-D or 2-D input only
// (nll_loss2d_backward is another op).
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %g: tensor<2x4xf32>, %x: tensor<2x3x4xf32>, %t: tensor<2x4xi64>, %w: tensor<f32>) {
    // expected-error @below {{'traced.call_function' op 'torch.ops.aten.nll_loss_backward.default' expects a 1-D or 2-D input, got 'tensor<2x3x4xf32>'}}
    %0 = call_function "torch.ops.aten.nll_loss_backward.default"(grad_output=%g, input=%x, target=%t, weight=None, reduction=0, ignore_index=-100, total_weight=%w) : (tensor<2x4xf32>, tensor<2x3x4xf32>, tensor<2x4xi64>, tensor<f32>) -> tensor<2x3x4xf32>
    output
  }
}

// -----

// For a 1-D input, torch wants one grad_output element whatever the
// reduction.
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %g: tensor<3xf32>, %x: tensor<3xf32>, %t: tensor<3xi64>, %w: tensor<f32>) {
    // expected-error @below {{'traced.call_function' op 'torch.ops.aten.nll_loss_backward.default' expects grad_output of one element for this reduction, got 'tensor<3xf32>'}}
    %0 = call_function "torch.ops.aten.nll_loss_backward.default"(grad_output=%g, input=%x, target=%t, weight=None, reduction=0, ignore_index=-100, total_weight=%w) : (tensor<3xf32>, tensor<3xf32>, tensor<3xi64>, tensor<f32>) -> tensor<3xf32>
    output
  }
}

// -----

// ATen's _softmax(x, dim, half_to_float): torch refuses the conversion on
// the CPU, and so does the rule.
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.ops.aten._softmax.default' (torch.nn.functional.softmax) softmax with half to float conversion is not supported on CPU}}
    %0 = call_function "torch.ops.aten._softmax.default"(input=%x, dim=1, half_to_float=True) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    output
  }
}

// -----

// ATen's _reshape_alias is a reshape only with the contiguous strides of its
// size; other strides read the storage in another order.
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<6x4xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.ops.aten._reshape_alias.default' (Tensor.view) strides [1, 4] are not the contiguous ones of size [4, 6]: such a view is not supported}}
    %0 = call_function "torch.ops.aten._reshape_alias.default"(input=%x, size=[4, 6], stride=[1, 4]) : (tensor<6x4xf32>) -> tensor<4x6xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xi64>) {
    // expected-error @below {{'traced.call_function' op 'torch.bincount' bincount only supports 1-d non-negative integral inputs.}}
    %0 = call_function "torch.bincount"(%x) : (tensor<2x3xi64>) -> tensor<4xi64>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xi64>) {
    // expected-error @below {{'traced.call_function' op 'torch.bincount' minlength should be >= 0}}
    %0 = call_function "torch.bincount"(%x, minlength=-1) : (tensor<3xi64>) -> tensor<4xi64>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xi64>, %w: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.bincount' weights should be 1-d and have the same length as input}}
    %0 = call_function "torch.bincount"(%x, %w) : (tensor<3xi64>, tensor<2xf32>) -> tensor<4xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xi64>, %w: tensor<3xf16>) {
    // A result dtype other than the weights give (float32 weights give
    // float32, all others float64).
    // expected-error @below {{'traced.call_function' op 'torch.bincount' result #0 is inferred as 'tensor<?xf64>', but the op declares 'tensor<4xf16>'}}
    %0 = call_function "torch.bincount"(%x, %w) : (tensor<3xi64>, tensor<3xf16>) -> tensor<4xf16>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %r: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.ops.aten.repeat_interleave.Tensor' "repeat_interleave_cpu" not implemented for 'Float'}}
    %0 = call_function "torch.ops.aten.repeat_interleave.Tensor"(%r) : (tensor<2xf32>) -> tensor<3xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %r: tensor<2x2xi64>) {
    // expected-error @below {{'traced.call_function' op 'torch.ops.aten.repeat_interleave.Tensor' repeat_interleave only accept 1D vector as repeat}}
    %0 = call_function "torch.ops.aten.repeat_interleave.Tensor"(%r) : (tensor<2x2xi64>) -> tensor<3xi64>
    output
  }
}
