// RUN: traced-opt %s | FileCheck %s
// RUN: traced-translate --traced-to-graph-text %s | FileCheck %s --check-prefix=GRAPH

// torchvision resnet18's layer1[0] as symbolic tracing keeps it: the
// Sequential and the BasicBlock are traced modules, convs and norms leaves.

// CHECK-LABEL: traced.module root @ResNet
traced.module root @ResNet class "torchvision.models.resnet.ResNet" {
  submodule @layer1 : @layer1
  graph @forward(%self: !traced.module<@ResNet>, %x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
    // CHECK: %layer1_out = call_method %layer1["forward"](%x)
    %0 = getattr %self["layer1"] : !traced.module<@ResNet> -> !traced.module<@layer1>
    %1 = call_method %0["forward"](%x) : (!traced.module<@layer1>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    output %1 : tensor<1x64x56x56xf32>
  }
}

traced.module @layer1 class "torch.nn.modules.container.Sequential" {
  submodule @"0" : @layer1_0
  graph @forward(%self: !traced.module<@layer1>, %input: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
    // CHECK: %[[B:.*]] = getattr %self["0"] : !traced.module<@layer1> -> !traced.module<@layer1_0>
    // CHECK: call_method %[[B]]["forward"](%input)
    %0 = getattr %self["0"] : !traced.module<@layer1> -> !traced.module<@layer1_0>
    %1 = call_method %0["forward"](%input) : (!traced.module<@layer1_0>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    output %1 : tensor<1x64x56x56xf32>
  }
}

// CHECK-LABEL: traced.module @layer1_0 class "torchvision.models.resnet.BasicBlock"
traced.module @layer1_0 class "torchvision.models.resnet.BasicBlock" {
  submodule @conv1 : @layer1_0_conv1
  submodule @bn1 : @layer1_0_bn1
  submodule @relu : @layer1_0_relu
  submodule @conv2 : @layer1_0_conv2
  submodule @bn2 : @layer1_0_bn2
  attribute @downsample : !traced.none = None
  attribute @stride : i64 = 1
  graph @forward(%self: !traced.module<@layer1_0>, %x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
    // CHECK: %conv1_out = call_method %conv1["forward"](%x)
    // CHECK: %bn1_out = call_method %bn1["forward"](%conv1_out)
    // CHECK: %relu_out = call_method %relu["forward"](%bn1_out)
    // CHECK: %conv2_out = call_method %conv2["forward"](%relu_out)
    // CHECK: %bn2_out = call_method %bn2["forward"](%conv2_out)
    // CHECK: %iadd_out = call_function "operator.iadd"(%bn2_out, %x)
    // CHECK: %relu_out_0 = call_method %relu["forward"](%iadd_out)
    %conv1 = getattr %self["conv1"] : !traced.module<@layer1_0> -> !traced.module<@layer1_0_conv1>
    %0 = call_method %conv1["forward"](%x) : (!traced.module<@layer1_0_conv1>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    %bn1 = getattr %self["bn1"] : !traced.module<@layer1_0> -> !traced.module<@layer1_0_bn1>
    %1 = call_method %bn1["forward"](%0) : (!traced.module<@layer1_0_bn1>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    %relu = getattr %self["relu"] : !traced.module<@layer1_0> -> !traced.module<@layer1_0_relu>
    %2 = call_method %relu["forward"](%1) : (!traced.module<@layer1_0_relu>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    %conv2 = getattr %self["conv2"] : !traced.module<@layer1_0> -> !traced.module<@layer1_0_conv2>
    %3 = call_method %conv2["forward"](%2) : (!traced.module<@layer1_0_conv2>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    %bn2 = getattr %self["bn2"] : !traced.module<@layer1_0> -> !traced.module<@layer1_0_bn2>
    %4 = call_method %bn2["forward"](%3) : (!traced.module<@layer1_0_bn2>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    // `out += identity`: operator.iadd is not in the op library, so it
    // stays an opaque call.
    %5 = call_function "operator.iadd"(%4, %x) : (tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    %6 = call_method %relu["forward"](%5) : (!traced.module<@layer1_0_relu>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    output %6 : tensor<1x64x56x56xf32>
  }
}

traced.module @layer1_0_conv1 class "torch.nn.modules.conv.Conv2d" {
  parameter @weight : tensor<64x64x3x3xf32> = dense<0.01> : tensor<64x64x3x3xf32>
  attribute @bias : !traced.none = None
  attribute @stride : tuple<i64, i64> = (1, 1)
  attribute @padding : tuple<i64, i64> = (1, 1)
  attribute @dilation : tuple<i64, i64> = (1, 1)
  attribute @groups : i64 = 1
}
traced.module @layer1_0_bn1 class "torch.nn.modules.batchnorm.BatchNorm2d" {
  parameter @weight : tensor<64xf32> = dense<1.0> : tensor<64xf32>
  parameter @bias : tensor<64xf32> = dense<0.0> : tensor<64xf32>
  buffer @running_mean : tensor<64xf32> = dense<0.0> : tensor<64xf32>
  buffer @running_var : tensor<64xf32> = dense<1.0> : tensor<64xf32>
  attribute @training : i1 = False
  attribute @momentum : f64 = 0.1
  attribute @eps : f64 = 1.0e-05
}
traced.module @layer1_0_relu class "torch.nn.modules.activation.ReLU" {
  attribute @inplace : i1 = True
}
traced.module @layer1_0_conv2 class "torch.nn.modules.conv.Conv2d" {
  parameter @weight : tensor<64x64x3x3xf32> = dense<0.01> : tensor<64x64x3x3xf32>
  attribute @bias : !traced.none = None
  attribute @stride : tuple<i64, i64> = (1, 1)
  attribute @padding : tuple<i64, i64> = (1, 1)
  attribute @dilation : tuple<i64, i64> = (1, 1)
  attribute @groups : i64 = 1
}
traced.module @layer1_0_bn2 class "torch.nn.modules.batchnorm.BatchNorm2d" {
  parameter @weight : tensor<64xf32> = dense<1.0> : tensor<64xf32>
  parameter @bias : tensor<64xf32> = dense<0.0> : tensor<64xf32>
  buffer @running_mean : tensor<64xf32> = dense<0.0> : tensor<64xf32>
  buffer @running_var : tensor<64xf32> = dense<1.0> : tensor<64xf32>
  attribute @training : i1 = False
  attribute @momentum : f64 = 0.1
  attribute @eps : f64 = 1.0e-05
}

// GRAPH-LABEL: ResNet.Graph (self, x) {
// GRAPH-LABEL: Sequential.Graph (self, input) {
// GRAPH-LABEL: BasicBlock.Graph (self, x) {
// GRAPH:         conv1 = getattr(self, "conv1") -> (Conv2d)
// GRAPH:         conv1_out = conv1(x)
// GRAPH:         iadd_out = operator.iadd(bn2_out, x)
// GRAPH:         return relu_out_0
