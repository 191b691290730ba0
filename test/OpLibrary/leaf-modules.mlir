// RUN: traced-opt %s | FileCheck %s

// Leaf modules of known classes (by their short or their full Python name):
// each call is checked as the class's functional with the module's
// attributes bound.

traced.module root @M class "__main__.M" {
  submodule @conv : @Conv
  submodule @bn : @Bn
  submodule @act : @Act
  submodule @pool : @Pool
  submodule @gap : @Gap
  submodule @flat : @Flat
  submodule @drop : @Drop
  submodule @fc : @Fc
  submodule @ln : @Ln
  submodule @gelu : @Gelu
  submodule @hs : @Hs
  submodule @sm : @Sm
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x32x32xf32>) -> tensor<1x10xf32> {
    %conv = getattr %self["conv"] : !traced.module<@M> -> !traced.module<@Conv>
    // CHECK: %conv_out = call_method %conv["forward"](%x) : (!traced.module<@Conv>, tensor<1x3x32x32xf32>) -> tensor<1x8x16x16xf32>
    %0 = call_method %conv["forward"](%x) : (!traced.module<@Conv>, tensor<1x3x32x32xf32>) -> tensor<1x8x16x16xf32>
    %bn = getattr %self["bn"] : !traced.module<@M> -> !traced.module<@Bn>
    // CHECK: %bn_out = call_method %bn["forward"](%conv_out)
    %1 = call_method %bn["forward"](%0) : (!traced.module<@Bn>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %act = getattr %self["act"] : !traced.module<@M> -> !traced.module<@Act>
    // CHECK: %act_out = call_method %act["forward"](input=%bn_out)
    %2 = call_method %act["forward"](input=%1) : (!traced.module<@Act>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %pool = getattr %self["pool"] : !traced.module<@M> -> !traced.module<@Pool>
    // CHECK: %pool_out = call_method %pool["forward"](%act_out) : (!traced.module<@Pool>, tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
    %3 = call_method %pool["forward"](%2) : (!traced.module<@Pool>, tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
    %gap = getattr %self["gap"] : !traced.module<@M> -> !traced.module<@Gap>
    // CHECK: %gap_out = call_method %gap["forward"](%pool_out) : (!traced.module<@Gap>, tensor<1x8x8x8xf32>) -> tensor<1x8x1x1xf32>
    %4 = call_method %gap["forward"](%3) : (!traced.module<@Gap>, tensor<1x8x8x8xf32>) -> tensor<1x8x1x1xf32>
    %flat = getattr %self["flat"] : !traced.module<@M> -> !traced.module<@Flat>
    // CHECK: %flat_out = call_method %flat["forward"](%gap_out) : (!traced.module<@Flat>, tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
    %5 = call_method %flat["forward"](%4) : (!traced.module<@Flat>, tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
    %ln = getattr %self["ln"] : !traced.module<@M> -> !traced.module<@Ln>
    %6 = call_method %ln["forward"](%5) : (!traced.module<@Ln>, tensor<1x8xf32>) -> tensor<1x8xf32>
    %gelu = getattr %self["gelu"] : !traced.module<@M> -> !traced.module<@Gelu>
    %7 = call_method %gelu["forward"](%6) : (!traced.module<@Gelu>, tensor<1x8xf32>) -> tensor<1x8xf32>
    %hs = getattr %self["hs"] : !traced.module<@M> -> !traced.module<@Hs>
    %8 = call_method %hs["forward"](%7) : (!traced.module<@Hs>, tensor<1x8xf32>) -> tensor<1x8xf32>
    %drop = getattr %self["drop"] : !traced.module<@M> -> !traced.module<@Drop>
    %9 = call_method %drop["forward"](%8) : (!traced.module<@Drop>, tensor<1x8xf32>) -> tensor<1x8xf32>
    %fc = getattr %self["fc"] : !traced.module<@M> -> !traced.module<@Fc>
    // CHECK: %fc_out = call_method %fc["forward"](%drop_out) : (!traced.module<@Fc>, tensor<1x8xf32>) -> tensor<1x10xf32>
    %10 = call_method %fc["forward"](%9) : (!traced.module<@Fc>, tensor<1x8xf32>) -> tensor<1x10xf32>
    %sm = getattr %self["sm"] : !traced.module<@M> -> !traced.module<@Sm>
    %11 = call_method %sm["forward"](%10) : (!traced.module<@Sm>, tensor<1x10xf32>) -> tensor<1x10xf32>
    output %11 : tensor<1x10xf32>
  }
}

traced.module @Conv class "torch.nn.Conv2d" {
  parameter @weight : tensor<8x3x3x3xf32> = dense<0.1> : tensor<8x3x3x3xf32>
  parameter @bias : tensor<8xf32> = dense<0.0> : tensor<8xf32>
  attribute @in_channels : i64 = 3
  attribute @out_channels : i64 = 8
  attribute @kernel_size : tuple<i64, i64> = (3, 3)
  attribute @stride : tuple<i64, i64> = (2, 2)
  attribute @padding : tuple<i64, i64> = (1, 1)
  attribute @dilation : tuple<i64, i64> = (1, 1)
  attribute @groups : i64 = 1
  attribute @padding_mode : !traced.str = "zeros"
}
traced.module @Bn class "torch.nn.modules.batchnorm.BatchNorm2d" {
  parameter @weight : tensor<8xf32> = dense<1.0> : tensor<8xf32>
  parameter @bias : tensor<8xf32> = dense<0.0> : tensor<8xf32>
  buffer @running_mean : tensor<8xf32> = dense<0.0> : tensor<8xf32>
  buffer @running_var : tensor<8xf32> = dense<1.0> : tensor<8xf32>
  buffer @num_batches_tracked : tensor<i64> = dense<0> : tensor<i64>
  attribute @training : i1 = False
  attribute @momentum : f64 = 0.1
  attribute @eps : f64 = 1.0e-05
}
traced.module @Act class "torch.nn.ReLU6" {
  attribute @inplace : i1 = True
}
traced.module @Pool class "torch.nn.MaxPool2d" {
  attribute @kernel_size : i64 = 2
  attribute @stride : i64 = 2
  attribute @padding : i64 = 0
  attribute @dilation : i64 = 1
  attribute @ceil_mode : i1 = False
  attribute @return_indices : i1 = False
}
traced.module @Gap class "torch.nn.AdaptiveAvgPool2d" {
  attribute @output_size : tuple<i64, i64> = (1, 1)
}
traced.module @Flat class "torch.nn.Flatten" {
  attribute @start_dim : i64 = 1
  attribute @end_dim : i64 = -1
}
traced.module @Ln class "torch.nn.LayerNorm" {
  parameter @weight : tensor<8xf32> = dense<1.0> : tensor<8xf32>
  parameter @bias : tensor<8xf32> = dense<0.0> : tensor<8xf32>
  attribute @normalized_shape : tuple<i64> = (8,)
  attribute @eps : f64 = 1.0e-05
}
traced.module @Gelu class "torch.nn.GELU" {
  attribute @approximate : !traced.str = "none"
}
traced.module @Hs class "torch.nn.Hardswish" {
  attribute @inplace : i1 = False
}
traced.module @Drop class "torch.nn.Dropout" {
  attribute @p : f64 = 0.5
  attribute @training : i1 = False
  attribute @inplace : i1 = False
}
traced.module @Fc class "megengine.module.Linear" {
  parameter @weight : tensor<10x8xf32> = dense<0.1> : tensor<10x8xf32>
  parameter @bias : tensor<10xf32> = dense<0.0> : tensor<10xf32>
}
traced.module @Sm class "torch.nn.Softmax" {
  attribute @dim : i64 = 1
}
