// RUN: traced-opt %s | FileCheck %s

// Convolutions, linear and matrix products, with their output shapes.

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %dw: tensor<32x1x3x3xf32>, %y: tensor<1x32x112x112xf32>, %s: tensor<2x4x10xf32>, %w1: tensor<6x4x3xf32>, %t: tensor<2x7x64xf32>, %lw: tensor<192x64xf32>, %lb: tensor<192xf32>) {
    // ResNet's stem: 7x7, stride 2, padding 3.
    // CHECK: call_function "torch.nn.functional.conv2d"(input=%x, weight=%w, stride=[2, 2], padding=[3, 3]) : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, None, [2, 2], [3, 3]) : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
    // MobileNet's depthwise conv: groups = channels.
    // CHECK: call_function "torch.nn.functional.conv2d"(input=%y, weight=%dw, padding=[1, 1], groups=32) : (tensor<1x32x112x112xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x112x112xf32>
    %1 = call_function "torch.nn.functional.conv2d"(%y, %dw, padding=1, groups=32) : (tensor<1x32x112x112xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x112x112xf32>
    // Dilation.
    // CHECK: call_function "torch.nn.functional.conv2d"(input=%y, weight=%dw, dilation=[2, 2], groups=32) : (tensor<1x32x112x112xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x108x108xf32>
    %2 = call_function "torch.nn.functional.conv2d"(%y, %dw, dilation=2, groups=32) : (tensor<1x32x112x112xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x108x108xf32>
    // CHECK: call_function "torch.nn.functional.conv1d"(input=%s, weight=%w1, stride=[2]) : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x4xf32>
    %3 = call_function "torch.nn.functional.conv1d"(%s, %w1, stride=2) : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x4xf32>
    // Linear on a batch of sequences (multi-head attention's in-projection).
    // CHECK: call_function "torch._C._nn.linear"(input=%t, weight=%lw, bias=%lb) : (tensor<2x7x64xf32>, tensor<192x64xf32>, tensor<192xf32>) -> tensor<2x7x192xf32>
    %4 = call_function "torch._C._nn.linear"(%t, %lw, %lb) : (tensor<2x7x64xf32>, tensor<192x64xf32>, tensor<192xf32>) -> tensor<2x7x192xf32>
    output
  }

  // CHECK-LABEL: graph @products
  graph @products(%self: !traced.module<@M>, %q: tensor<8x7x16xf32>, %k: tensor<8x16x7xf32>, %m: tensor<7x16xf32>, %v: tensor<16xf32>, %b: tensor<3x1x7x16xf32>, %bias: tensor<8x7x7xf32>, %m2: tensor<16x5xf32>) {
    // CHECK: call_function "torch.bmm"(input=%q, mat2=%k) : (tensor<8x7x16xf32>, tensor<8x16x7xf32>) -> tensor<8x7x7xf32>
    %0 = call_function "torch.bmm"(%q, %k) : (tensor<8x7x16xf32>, tensor<8x16x7xf32>) -> tensor<8x7x7xf32>
    // CHECK: call_function "torch.baddbmm"(input=%bias, batch1=%q, batch2=%k) : (tensor<8x7x7xf32>, tensor<8x7x16xf32>, tensor<8x16x7xf32>) -> tensor<8x7x7xf32>
    %1 = call_function "torch.baddbmm"(%bias, %q, %k) : (tensor<8x7x7xf32>, tensor<8x7x16xf32>, tensor<8x16x7xf32>) -> tensor<8x7x7xf32>
    // torch.matmul: matrix-vector, batched with broadcasting, vector-vector.
    // CHECK: call_function "torch.matmul"(input=%m, other=%v) : (tensor<7x16xf32>, tensor<16xf32>) -> tensor<7xf32>
    %2 = call_function "torch.matmul"(%m, %v) : (tensor<7x16xf32>, tensor<16xf32>) -> tensor<7xf32>
    // CHECK: call_method %b["__matmul__"](other=%k) : (tensor<3x1x7x16xf32>, tensor<8x16x7xf32>) -> tensor<3x8x7x7xf32>
    %3 = call_method %b["__matmul__"](%k) : (tensor<3x1x7x16xf32>, tensor<8x16x7xf32>) -> tensor<3x8x7x7xf32>
    // CHECK: call_function "torch.matmul"(input=%v, other=%v) : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>
    %4 = call_function "torch.matmul"(%v, %v) : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>
    // CHECK: call_method %m["mm"](mat2=%m2) : (tensor<7x16xf32>, tensor<16x5xf32>) -> tensor<7x5xf32>
    %5 = call_method %m["mm"](%m2) : (tensor<7x16xf32>, tensor<16x5xf32>) -> tensor<7x5xf32>
    output
  }
}

// nn.MultiheadAttention's functional, as one call: (output, weights).
traced.module @Attn class "__main__.Attn" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@Attn>, %x: tensor<7x2x64xf32>, %wi: tensor<192x64xf32>, %bi: tensor<192xf32>, %wo: tensor<64x64xf32>, %bo: tensor<64xf32>) {
    // CHECK: call_function "torch.nn.functional.multi_head_attention_forward"(query=%x, key=%x, value=%x, embed_dim_to_check=64, num_heads=4, in_proj_weight=%wi, in_proj_bias=%bi, bias_k=None, bias_v=None, add_zero_attn=False, dropout_p=0.1, out_proj_weight=%wo, out_proj_bias=%bo, training=False, need_weights=False) : {{.*}} -> tuple<tensor<7x2x64xf32>, !traced.none>
    %0 = call_function "torch.nn.functional.multi_head_attention_forward"(%x, %x, %x, 64, 4, %wi, %bi, None, None, False, 0.1, %wo, %bo, training=False, need_weights=False) : (tensor<7x2x64xf32>, tensor<7x2x64xf32>, tensor<7x2x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tuple<tensor<7x2x64xf32>, !traced.none>
    // CHECK: -> tuple<tensor<7x2x64xf32>, tensor<2x4x7x7xf32>>
    %1 = call_function "torch.nn.functional.multi_head_attention_forward"(%x, %x, %x, 64, 4, %wi, %bi, None, None, False, 0.0, %wo, %bo, training=False, average_attn_weights=False) : (tensor<7x2x64xf32>, tensor<7x2x64xf32>, tensor<7x2x64xf32>, tensor<192x64xf32>, tensor<192xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tuple<tensor<7x2x64xf32>, tensor<2x4x7x7xf32>>
    output
  }
}
