// RUN: traced-opt %s | FileCheck %s

// GetAttr of submodules, parameters, buffers and plain attributes, through
// chains (`self.layer1[0].conv1`); results are named after the attribute.

traced.module root @Net class "__main__.Net" {
  submodule @layer1 : @Seq
  buffer @mean : tensor<3xf32> = dense<0.5> : tensor<3xf32>
  attribute @eps : f64 = 1.0e-05
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@Net>) -> (tensor<3xf32>, f64, tensor<1xf32>) {
    // CHECK:      %layer1 = getattr %self["layer1"] : !traced.module<@Net> -> !traced.module<@Seq>
    // CHECK-NEXT: %layer1_0 = getattr %layer1["0"] : !traced.module<@Seq> -> !traced.module<@Block>
    // CHECK-NEXT: %w = getattr %layer1_0["w"] : !traced.module<@Block> -> tensor<1xf32>
    // CHECK-NEXT: %mean = getattr %self["mean"] : !traced.module<@Net> -> tensor<3xf32>
    // CHECK-NEXT: %eps = getattr %self["eps"] : !traced.module<@Net> -> f64
    // CHECK-NEXT: output %mean, %eps, %w
    %0 = getattr %self["layer1"] : !traced.module<@Net> -> !traced.module<@Seq>
    %1 = getattr %0["0"] : !traced.module<@Seq> -> !traced.module<@Block>
    %2 = getattr %1["w"] : !traced.module<@Block> -> tensor<1xf32>
    %3 = getattr %self["mean"] : !traced.module<@Net> -> tensor<3xf32>
    %4 = getattr %self["eps"] : !traced.module<@Net> -> f64
    output %3, %4, %2 : tensor<3xf32>, f64, tensor<1xf32>
  }
}

traced.module @Seq class "torch.nn.Sequential" {
  submodule @"0" : @Block
}

traced.module @Block class "__main__.Block" {
  parameter @w : tensor<1xf32> = dense<2.0> : tensor<1xf32>
}
