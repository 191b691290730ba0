// RUN: traced-opt %s | FileCheck %s

// torchvision mobilenet_v2's features[3]: an InvertedResidual with a
// residual connection (24 -> 144 -> 24 channels), expand, depthwise and
// project convs with BatchNorm and ReLU6, written with functional calls as
// traced-normalize will produce them.

traced.module root @Block class "torchvision.models.mobilenetv2.InvertedResidual" {
  parameter @expand_w : tensor<144x24x1x1xf32> = dense<0.01> : tensor<144x24x1x1xf32>
  parameter @dw_w : tensor<144x1x3x3xf32> = dense<0.01> : tensor<144x1x3x3xf32>
  parameter @project_w : tensor<24x144x1x1xf32> = dense<0.01> : tensor<24x144x1x1xf32>
  parameter @bn144_w : tensor<144xf32> = dense<1.0> : tensor<144xf32>
  parameter @bn144_b : tensor<144xf32> = dense<0.0> : tensor<144xf32>
  buffer @bn144_mean : tensor<144xf32> = dense<0.0> : tensor<144xf32>
  buffer @bn144_var : tensor<144xf32> = dense<1.0> : tensor<144xf32>
  parameter @bn24_w : tensor<24xf32> = dense<1.0> : tensor<24xf32>
  parameter @bn24_b : tensor<24xf32> = dense<0.0> : tensor<24xf32>
  buffer @bn24_mean : tensor<24xf32> = dense<0.0> : tensor<24xf32>
  buffer @bn24_var : tensor<24xf32> = dense<1.0> : tensor<24xf32>
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@Block>, %x: tensor<1x24x56x56xf32>) -> tensor<1x24x56x56xf32> {
    %ew = getattr %self["expand_w"] : !traced.module<@Block> -> tensor<144x24x1x1xf32>
    %dw = getattr %self["dw_w"] : !traced.module<@Block> -> tensor<144x1x3x3xf32>
    %pw = getattr %self["project_w"] : !traced.module<@Block> -> tensor<24x144x1x1xf32>
    %g1 = getattr %self["bn144_w"] : !traced.module<@Block> -> tensor<144xf32>
    %b1 = getattr %self["bn144_b"] : !traced.module<@Block> -> tensor<144xf32>
    %m1 = getattr %self["bn144_mean"] : !traced.module<@Block> -> tensor<144xf32>
    %v1 = getattr %self["bn144_var"] : !traced.module<@Block> -> tensor<144xf32>
    %g2 = getattr %self["bn24_w"] : !traced.module<@Block> -> tensor<24xf32>
    %b2 = getattr %self["bn24_b"] : !traced.module<@Block> -> tensor<24xf32>
    %m2 = getattr %self["bn24_mean"] : !traced.module<@Block> -> tensor<24xf32>
    %v2 = getattr %self["bn24_var"] : !traced.module<@Block> -> tensor<24xf32>
    // CHECK: "torch.nn.functional.conv2d"(input=%x, weight=%expand_w) : {{.*}} -> tensor<1x144x56x56xf32>
    %0 = call_function "torch.nn.functional.conv2d"(%x, %ew) : (tensor<1x24x56x56xf32>, tensor<144x24x1x1xf32>) -> tensor<1x144x56x56xf32>
    %1 = call_function "torch.nn.functional.batch_norm"(%0, %m1, %v1, %g1, %b1, False, 0.1, 1.0e-05) : (tensor<1x144x56x56xf32>, tensor<144xf32>, tensor<144xf32>, tensor<144xf32>, tensor<144xf32>) -> tensor<1x144x56x56xf32>
    // CHECK: "torch.nn.functional.relu6"(input=%batch_norm_out, inplace=True)
    %2 = call_function "torch.nn.functional.relu6"(%1, True) : (tensor<1x144x56x56xf32>) -> tensor<1x144x56x56xf32>
    // CHECK: "torch.nn.functional.conv2d"(input=%relu6_out, weight=%dw_w, padding=[1, 1], groups=144) : {{.*}} -> tensor<1x144x56x56xf32>
    %3 = call_function "torch.nn.functional.conv2d"(%2, %dw, None, [1, 1], [1, 1], [1, 1], 144) : (tensor<1x144x56x56xf32>, tensor<144x1x3x3xf32>) -> tensor<1x144x56x56xf32>
    %4 = call_function "torch.nn.functional.batch_norm"(%3, %m1, %v1, %g1, %b1, False, 0.1, 1.0e-05) : (tensor<1x144x56x56xf32>, tensor<144xf32>, tensor<144xf32>, tensor<144xf32>, tensor<144xf32>) -> tensor<1x144x56x56xf32>
    %5 = call_function "torch.nn.functional.relu6"(%4, True) : (tensor<1x144x56x56xf32>) -> tensor<1x144x56x56xf32>
    // CHECK: "torch.nn.functional.conv2d"(input=%relu6_out_{{[0-9]+}}, weight=%project_w) : {{.*}} -> tensor<1x24x56x56xf32>
    %6 = call_function "torch.nn.functional.conv2d"(%5, %pw) : (tensor<1x144x56x56xf32>, tensor<24x144x1x1xf32>) -> tensor<1x24x56x56xf32>
    %7 = call_function "torch.nn.functional.batch_norm"(%6, %m2, %v2, %g2, %b2, False, 0.1, 1.0e-05) : (tensor<1x24x56x56xf32>, tensor<24xf32>, tensor<24xf32>, tensor<24xf32>, tensor<24xf32>) -> tensor<1x24x56x56xf32>
    // CHECK: call_method %x["__add__"](other=%batch_norm_out_{{[0-9]+}})
    %8 = call_method %x["__add__"](%7) : (tensor<1x24x56x56xf32>, tensor<1x24x56x56xf32>) -> tensor<1x24x56x56xf32>
    output %8 : tensor<1x24x56x56xf32>
  }
}
