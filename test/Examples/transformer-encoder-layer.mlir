// RUN: traced-opt %s | FileCheck %s

// nn.TransformerEncoderLayer(64, 4, 128, batch_first=True) on a (2, 7, 64)
// input, as concrete tracing records it: torch.fx cannot trace the layer,
// so the hooks see multi-head attention's functional pieces.

// CHECK-LABEL: traced.module root @Layer
traced.module root @Layer class "torch.nn.modules.transformer.TransformerEncoderLayer" {
  parameter @in_proj_weight : tensor<192x64xf32> = dense<0.01> : tensor<192x64xf32>
  parameter @in_proj_bias : tensor<192xf32> = dense<0.0> : tensor<192xf32>
  parameter @out_proj_weight : tensor<64x64xf32> = dense<0.01> : tensor<64x64xf32>
  parameter @out_proj_bias : tensor<64xf32> = dense<0.0> : tensor<64xf32>
  parameter @linear1_weight : tensor<128x64xf32> = dense<0.01> : tensor<128x64xf32>
  parameter @linear1_bias : tensor<128xf32> = dense<0.0> : tensor<128xf32>
  parameter @linear2_weight : tensor<64x128xf32> = dense<0.01> : tensor<64x128xf32>
  parameter @linear2_bias : tensor<64xf32> = dense<0.0> : tensor<64xf32>
  parameter @norm_weight : tensor<64xf32> = dense<1.0> : tensor<64xf32>
  parameter @norm_bias : tensor<64xf32> = dense<0.0> : tensor<64xf32>
  // CHECK: graph @forward(%self: !traced.module<@Layer>, %src: tensor<2x7x64xf32>) -> tensor<2x7x64xf32>
  graph @forward(%self: !traced.module<@Layer>, %src: tensor<2x7x64xf32>) -> tensor<2x7x64xf32> {
    %wi = getattr %self["in_proj_weight"] : !traced.module<@Layer> -> tensor<192x64xf32>
    %bi = getattr %self["in_proj_bias"] : !traced.module<@Layer> -> tensor<192xf32>
    %wo = getattr %self["out_proj_weight"] : !traced.module<@Layer> -> tensor<64x64xf32>
    %bo = getattr %self["out_proj_bias"] : !traced.module<@Layer> -> tensor<64xf32>
    %w1 = getattr %self["linear1_weight"] : !traced.module<@Layer> -> tensor<128x64xf32>
    %b1 = getattr %self["linear1_bias"] : !traced.module<@Layer> -> tensor<128xf32>
    %w2 = getattr %self["linear2_weight"] : !traced.module<@Layer> -> tensor<64x128xf32>
    %b2 = getattr %self["linear2_bias"] : !traced.module<@Layer> -> tensor<64xf32>
    %gn = getattr %self["norm_weight"] : !traced.module<@Layer> -> tensor<64xf32>
    %bn = getattr %self["norm_bias"] : !traced.module<@Layer> -> tensor<64xf32>
    // batch_first: the sequence dimension goes first.
    %x = call_method %src["transpose"](1, 0) : (tensor<2x7x64xf32>) -> tensor<7x2x64xf32>
    // In-projection, then split into q, k, v.
    // CHECK: "torch.nn.functional.linear"(input=%transpose_out, weight=%in_proj_weight, bias=%in_proj_bias) : {{.*}} -> tensor<7x2x192xf32>
    %proj = call_function "torch.nn.functional.linear"(%x, %wi, %bi) : (tensor<7x2x64xf32>, tensor<192x64xf32>, tensor<192xf32>) -> tensor<7x2x192xf32>
    // CHECK: call_method %linear_out["unflatten"](dim=-1, sizes=[3, 64]) : (tensor<7x2x192xf32>) -> tensor<7x2x3x64xf32>
    %u = call_method %proj["unflatten"](-1, (3, 64)) : (tensor<7x2x192xf32>) -> tensor<7x2x3x64xf32>
    %u1 = call_method %u["unsqueeze"](0) : (tensor<7x2x3x64xf32>) -> tensor<1x7x2x3x64xf32>
    %u2 = call_method %u1["transpose"](0, -2) : (tensor<1x7x2x3x64xf32>) -> tensor<3x7x2x1x64xf32>
    %u3 = call_method %u2["squeeze"](-2) : (tensor<3x7x2x1x64xf32>) -> tensor<3x7x2x64xf32>
    %qkv = call_method %u3["contiguous"]() : (tensor<3x7x2x64xf32>) -> tensor<3x7x2x64xf32>
    %q0 = call_function "operator.getitem"(%qkv, 0) : (tensor<3x7x2x64xf32>) -> tensor<7x2x64xf32>
    %k0 = call_function "operator.getitem"(%qkv, 1) : (tensor<3x7x2x64xf32>) -> tensor<7x2x64xf32>
    %v0 = call_function "operator.getitem"(%qkv, 2) : (tensor<3x7x2x64xf32>) -> tensor<7x2x64xf32>
    // Heads: (7, 2*4, 16) then batch first.
    %q1 = call_method %q0["view"](7, 8, 16) : (tensor<7x2x64xf32>) -> tensor<7x8x16xf32>
    %q = call_method %q1["transpose"](0, 1) : (tensor<7x8x16xf32>) -> tensor<8x7x16xf32>
    %k1 = call_method %k0["view"](7, 8, 16) : (tensor<7x2x64xf32>) -> tensor<7x8x16xf32>
    %k = call_method %k1["transpose"](0, 1) : (tensor<7x8x16xf32>) -> tensor<8x7x16xf32>
    %v1 = call_method %v0["view"](7, 8, 16) : (tensor<7x2x64xf32>) -> tensor<7x8x16xf32>
    %v = call_method %v1["transpose"](0, 1) : (tensor<7x8x16xf32>) -> tensor<8x7x16xf32>
    // Scaled dot-product attention.
    // CHECK: call_method %transpose_out_{{[0-9]+}}["__truediv__"](other=4.0) : (tensor<8x7x16xf32>) -> tensor<8x7x16xf32>
    %qs = call_method %q["__truediv__"](4.0) : (tensor<8x7x16xf32>) -> tensor<8x7x16xf32>
    %kt = call_method %k["transpose"](-2, -1) : (tensor<8x7x16xf32>) -> tensor<8x16x7xf32>
    // CHECK: call_function "torch.bmm"(input=%truediv_out, mat2=%transpose_out_{{[0-9]+}}) : (tensor<8x7x16xf32>, tensor<8x16x7xf32>) -> tensor<8x7x7xf32>
    %s = call_function "torch.bmm"(%qs, %kt) : (tensor<8x7x16xf32>, tensor<8x16x7xf32>) -> tensor<8x7x7xf32>
    // CHECK: "torch.nn.functional.softmax"(input=%bmm_out, dim=-1)
    %p = call_function "torch.nn.functional.softmax"(%s, dim=-1) : (tensor<8x7x7xf32>) -> tensor<8x7x7xf32>
    %pd = call_function "torch.nn.functional.dropout"(%p, p=0.1, training=False) : (tensor<8x7x7xf32>) -> tensor<8x7x7xf32>
    %o = call_function "torch.bmm"(%pd, %v) : (tensor<8x7x7xf32>, tensor<8x7x16xf32>) -> tensor<8x7x16xf32>
    %o1 = call_method %o["transpose"](0, 1) : (tensor<8x7x16xf32>) -> tensor<7x8x16xf32>
    %o2 = call_method %o1["contiguous"]() : (tensor<7x8x16xf32>) -> tensor<7x8x16xf32>
    %o3 = call_method %o2["view"](14, 64) : (tensor<7x8x16xf32>) -> tensor<14x64xf32>
    %o4 = call_function "torch.nn.functional.linear"(%o3, %wo, %bo) : (tensor<14x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<14x64xf32>
    %o5 = call_method %o4["view"](7, 2, 64) : (tensor<14x64xf32>) -> tensor<7x2x64xf32>
    %attn = call_method %o5["transpose"](1, 0) : (tensor<7x2x64xf32>) -> tensor<2x7x64xf32>
    // Residual, norm, feed-forward, residual, norm.
    %r1 = call_method %src["__add__"](%attn) : (tensor<2x7x64xf32>, tensor<2x7x64xf32>) -> tensor<2x7x64xf32>
    // CHECK: "torch.nn.functional.layer_norm"(input=%add_out, normalized_shape=[64], weight=%norm_weight, bias=%norm_bias)
    %n1 = call_function "torch.nn.functional.layer_norm"(%r1, (64,), %gn, %bn, 1.0e-05) : (tensor<2x7x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x7x64xf32>
    %h = call_function "torch.nn.functional.linear"(%n1, %w1, %b1) : (tensor<2x7x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<2x7x128xf32>
    %ha = call_function "torch.nn.functional.relu"(%h) : (tensor<2x7x128xf32>) -> tensor<2x7x128xf32>
    %hd = call_function "torch.nn.functional.dropout"(%ha, 0.1, False) : (tensor<2x7x128xf32>) -> tensor<2x7x128xf32>
    %f = call_function "torch.nn.functional.linear"(%hd, %w2, %b2) : (tensor<2x7x128xf32>, tensor<64x128xf32>, tensor<64xf32>) -> tensor<2x7x64xf32>
    %r2 = call_method %n1["__add__"](%f) : (tensor<2x7x64xf32>, tensor<2x7x64xf32>) -> tensor<2x7x64xf32>
    %n2 = call_function "torch.nn.functional.layer_norm"(%r2, [64], %gn, %bn) : (tensor<2x7x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x7x64xf32>
    // CHECK: output %layer_norm_out_{{[0-9]+}} : tensor<2x7x64xf32>
    output %n2 : tensor<2x7x64xf32>
  }
}
