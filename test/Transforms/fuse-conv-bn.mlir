// RUN: traced-opt %s -traced-fuse-conv-bn | FileCheck %s
// RUN: traced-translate --interpret %s | FileCheck %s --check-prefix=OUT
// RUN: traced-opt %s -traced-fuse-conv-bn | traced-translate --interpret | FileCheck %s --check-prefix=OUT

// The same numbers before and after fusion: y = bn(conv(x)) with w = 2,
// conv bias 1, mean 1, var 3, gamma 2, beta 0.5, eps 1, so the scale is
// 2 / sqrt(4) = 1 and y = 2x + 1 - 1 + 0.5.
// OUT: output #0: tensor<1x1x1x2xf32> {{\[\[\[}}[2.5, 4.5]]]]
// OUT: output #1: tensor<1x1x1x2xf32> {{\[\[\[}}[2.5, 4.5]]]]
// Two channels in f64, stored bytes (not a splat), no conv bias: scales
// 1 / sqrt(3 + 1) = 0.5 and 2 / sqrt(0 + 1) = 2, so channel 0 is 0.5 x and
// channel 1 is 2 (3x - 1).
// OUT: output #2: tensor<1x2x1x2xf64> {{\[\[\[}}[0.5, 1]], {{\[}}[4, 10]]]]

traced.module root @M class "m.M" {
  submodule @conv : @Conv
  submodule @bn : @Bn
  buffer @mean : tensor<1xf32> = dense<1.0> : tensor<1xf32>
  buffer @var : tensor<1xf32> = dense<3.0> : tensor<1xf32>
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>) -> (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>, tensor<1x2x1x2xf64>) {
    %x = constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>
    // A functional conv and batch_norm.
    // CHECK: %[[W:.*]] = constant dense_resource<{{.*}}_weight> : tensor<1x1x1x1xf32>
    // CHECK: %[[B:.*]] = constant dense_resource<{{.*}}_bias> : tensor<1xf32>
    // CHECK: call_function "torch.nn.functional.conv2d"(input=%{{.*}}, weight=%[[W]], bias=%[[B]])
    // CHECK-NOT: batch_norm
    %w = constant dense<2.0> : tensor<1x1x1x1xf32>
    %cb = constant dense<1.0> : tensor<1xf32>
    %m = getattr %self["mean"] : !traced.module<@M> -> tensor<1xf32>
    %v = getattr %self["var"] : !traced.module<@M> -> tensor<1xf32>
    %g = constant dense<2.0> : tensor<1xf32>
    %be = constant dense<0.5> : tensor<1xf32>
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, %cb) : (tensor<1x1x1x2xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
    %1 = call_function "torch.nn.functional.batch_norm"(%0, %m, %v, %g, %be, False, 0.1, 1.0) : (tensor<1x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
    // Leaf-module Conv2d and BatchNorm2d: the fused weight and bias are
    // written into the conv's own parameters (below), which only this call
    // reads, as torch.fx's fuse does.
    // CHECK: %[[CW:.*]] = getattr %{{.*}}["weight"] : !traced.module<@Conv>
    // CHECK: %[[CB:.*]] = getattr %{{.*}}["bias"] : !traced.module<@Conv>
    // CHECK: call_function "torch.nn.functional.conv2d"(input=%{{.*}}, weight=%[[CW]], bias=%[[CB]])
    %conv = getattr %self["conv"] : !traced.module<@M> -> !traced.module<@Conv>
    %2 = call_method %conv["forward"](%x) : (!traced.module<@Conv>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    %bn = getattr %self["bn"] : !traced.module<@M> -> !traced.module<@Bn>
    %3 = call_method %bn["forward"](%2) : (!traced.module<@Bn>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    // CHECK: %[[W2:.*]] = constant dense_resource<{{.*}}_weight> : tensor<2x1x1x1xf64>
    // CHECK: %[[B2:.*]] = constant dense_resource<{{.*}}_bias> : tensor<2xf64>
    // CHECK: call_function "torch.nn.functional.conv2d"(input=%{{.*}}, weight=%[[W2]], bias=%[[B2]])
    // CHECK-NOT: batch_norm
    %x2 = constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf64>
    %w2 = constant dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf64>
    %m2 = constant dense<[0.0, 1.0]> : tensor<2xf64>
    %v2 = constant dense<[3.0, 0.0]> : tensor<2xf64>
    %g2 = constant dense<[1.0, 2.0]> : tensor<2xf64>
    %be2 = constant dense<0.0> : tensor<2xf64>
    %4 = call_function "torch.nn.functional.conv2d"(%x2, %w2) : (tensor<1x1x1x2xf64>, tensor<2x1x1x1xf64>) -> tensor<1x2x1x2xf64>
    %5 = call_function "torch.nn.functional.batch_norm"(%4, %m2, %v2, %g2, %be2, False, 0.1, 1.0) : (tensor<1x2x1x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<1x2x1x2xf64>
    output %1, %3, %5 : tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>, tensor<1x2x1x2xf64>
  }
}

// CHECK-LABEL: traced.module @Conv
// CHECK: parameter @weight : tensor<1x1x1x1xf32> = dense_resource<Conv_weight_fused>
// CHECK: parameter @bias : tensor<1xf32> = dense_resource<Conv_bias_fused>
traced.module @Conv class "torch.nn.modules.conv.Conv2d" {
  parameter @weight : tensor<1x1x1x1xf32> = dense<2.0> : tensor<1x1x1x1xf32>
  parameter @bias : tensor<1xf32> = dense<1.0> : tensor<1xf32>
  attribute @stride : tuple<i64, i64> = (1, 1)
  attribute @padding : tuple<i64, i64> = (0, 0)
  attribute @dilation : tuple<i64, i64> = (1, 1)
  attribute @groups : i64 = 1
}

traced.module @Bn class "torch.nn.modules.batchnorm.BatchNorm2d" {
  parameter @weight : tensor<1xf32> = dense<2.0> : tensor<1xf32>
  parameter @bias : tensor<1xf32> = dense<0.5> : tensor<1xf32>
  buffer @running_mean : tensor<1xf32> = dense<1.0> : tensor<1xf32>
  buffer @running_var : tensor<1xf32> = dense<3.0> : tensor<1xf32>
  attribute @training : i1 = False
  attribute @momentum : f64 = 0.1
  attribute @eps : f64 = 1.0
}
