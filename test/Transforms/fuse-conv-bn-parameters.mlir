// RUN: traced-opt %s -split-input-file -traced-fuse-conv-bn | FileCheck %s
// RUN: traced-translate --interpret %s --split-input-file | FileCheck %s --check-prefix=OUT
// RUN: traced-opt %s -split-input-file -traced-fuse-conv-bn | traced-translate --interpret --split-input-file | FileCheck %s --check-prefix=OUT

// Where the fused weight and bias go (torch.fx's fuse keeps them in the
// conv's parameters, so the state_dict keeps torch's keys).

// A conv without a bias (`bias = None`): its weight is rewritten and a bias
// parameter takes the attribute's place. y = 2 * (3x - 1) / sqrt(3 + 1) = 3x - 1.
// OUT: output #0: tensor<1x1x1x2xf32> {{\[\[\[}}[2, 5]]]]
// CHECK-LABEL: traced.module root @M
// CHECK: %[[W:.*]] = getattr %{{.*}}["weight"] : !traced.module<@Conv>
// CHECK: %[[B:.*]] = getattr %{{.*}}["bias"] : !traced.module<@Conv>
// CHECK: call_function "torch.nn.functional.conv2d"(input=%{{.*}}, weight=%[[W]], bias=%[[B]])
// CHECK-NOT: batch_norm
// CHECK-LABEL: traced.module @Conv
// CHECK-NEXT: parameter @weight : tensor<1x1x1x1xf32> = dense_resource<Conv_weight_fused>
// CHECK-NEXT: parameter @bias : tensor<1xf32> = dense_resource<Conv_bias_fused>
// CHECK-NOT: attribute @bias
traced.module root @M class "m.M" {
  submodule @conv : @Conv
  submodule @bn : @Bn
  graph @forward(%self: !traced.module<@M>) -> tensor<1x1x1x2xf32> {
    %x = constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>
    %conv = getattr %self["conv"] : !traced.module<@M> -> !traced.module<@Conv>
    %0 = call_method %conv["forward"](%x) : (!traced.module<@Conv>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    %bn = getattr %self["bn"] : !traced.module<@M> -> !traced.module<@Bn>
    %1 = call_method %bn["forward"](%0) : (!traced.module<@Bn>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    output %1 : tensor<1x1x1x2xf32>
  }
}
traced.module @Conv class "torch.nn.modules.conv.Conv2d" {
  parameter @weight : tensor<1x1x1x1xf32> = dense<3.0> : tensor<1x1x1x1xf32>
  attribute @bias : !traced.none = None
  attribute @stride : tuple<i64, i64> = (1, 1)
  attribute @padding : tuple<i64, i64> = (0, 0)
  attribute @dilation : tuple<i64, i64> = (1, 1)
  attribute @groups : i64 = 1
}
traced.module @Bn class "torch.nn.modules.batchnorm.BatchNorm2d" {
  parameter @weight : tensor<1xf32> = dense<2.0> : tensor<1xf32>
  parameter @bias : tensor<1xf32> = dense<0.0> : tensor<1xf32>
  buffer @running_mean : tensor<1xf32> = dense<1.0> : tensor<1xf32>
  buffer @running_var : tensor<1xf32> = dense<3.0> : tensor<1xf32>
  attribute @training : i1 = False
  attribute @momentum : f64 = 0.1
  attribute @eps : f64 = 1.0
}

// -----

// A weight read twice (a tied weight, or a second call of the conv) keeps
// its value: the fused one is a constant of this call.
// OUT: output #0: tensor<1x1x1x2xf32> {{\[\[\[}}[2, 5]]]]
// OUT: output #1: tensor<1x1x1x2xf32> {{\[\[\[}}[3, 6]]]]
// CHECK-LABEL: traced.module root @M
// CHECK: constant dense_resource<fused_conv_bn_{{[0-9]+}}_weight>
// CHECK-LABEL: traced.module @Conv
// CHECK-NEXT: parameter @weight : tensor<1x1x1x1xf32> = dense<3.000000e+00>
traced.module root @M class "m.M" {
  submodule @conv : @Conv
  submodule @bn : @Bn
  graph @forward(%self: !traced.module<@M>) -> (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) {
    %x = constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>
    %conv = getattr %self["conv"] : !traced.module<@M> -> !traced.module<@Conv>
    %0 = call_method %conv["forward"](%x) : (!traced.module<@Conv>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    %bn = getattr %self["bn"] : !traced.module<@M> -> !traced.module<@Bn>
    %1 = call_method %bn["forward"](%0) : (!traced.module<@Bn>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    %2 = call_method %conv["forward"](%x) : (!traced.module<@Conv>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    output %1, %2 : tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>
  }
}
traced.module @Conv class "torch.nn.modules.conv.Conv2d" {
  parameter @weight : tensor<1x1x1x1xf32> = dense<3.0> : tensor<1x1x1x1xf32>
  attribute @bias : !traced.none = None
  attribute @stride : tuple<i64, i64> = (1, 1)
  attribute @padding : tuple<i64, i64> = (0, 0)
  attribute @dilation : tuple<i64, i64> = (1, 1)
  attribute @groups : i64 = 1
}
traced.module @Bn class "torch.nn.modules.batchnorm.BatchNorm2d" {
  parameter @weight : tensor<1xf32> = dense<2.0> : tensor<1xf32>
  parameter @bias : tensor<1xf32> = dense<0.0> : tensor<1xf32>
  buffer @running_mean : tensor<1xf32> = dense<1.0> : tensor<1xf32>
  buffer @running_var : tensor<1xf32> = dense<3.0> : tensor<1xf32>
  attribute @training : i1 = False
  attribute @momentum : f64 = 0.1
  attribute @eps : f64 = 1.0
}
