// RUN: traced-opt %s -traced-fold-scale | FileCheck %s
// RUN: traced-translate --interpret %s | FileCheck %s --check-prefix=OUT
// RUN: traced-opt %s -traced-fold-scale | traced-translate --interpret | FileCheck %s --check-prefix=OUT

// Seed 001's box head: relu(conv(x) * s) / t with s = 3 (a buffer) and
// t = 2 folds into the conv (weight 1 -> 1.5, bias 2 -> 3); negative scales
// would change relu's meaning and are left alone.
// OUT: output #0: tensor<1x1x1x2xf32> {{\[\[\[}}[0, 6]]]]
// OUT: output #1: tensor<1x1x1x2xf32> {{\[\[\[}}[1, 0]]]]

traced.module root @Head class "m.Head" {
  buffer @scale : tensor<1xf32> = dense<3.0> : tensor<1xf32>
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@Head>) -> (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) {
    %x = constant dense<[[[[-4.0, 2.0]]]]> : tensor<1x1x1x2xf32>
    %w = constant dense<1.0> : tensor<1x1x1x1xf32>
    %b = constant dense<2.0> : tensor<1xf32>
    %s = getattr %self["scale"] : !traced.module<@Head> -> tensor<1xf32>
    // CHECK: %[[W:.*]] = constant dense_resource<folded_scale_0_weight>
    // CHECK: %[[B:.*]] = constant dense_resource<folded_scale_0_bias>
    // CHECK: %[[C:.*]] = call_function "torch.nn.functional.conv2d"(input=%{{.*}}, weight=%[[W]], bias=%[[B]])
    // CHECK: %[[R:.*]] = call_function "torch.nn.functional.relu"(input=%[[C]])
    %0 = call_function "torch.nn.functional.conv2d"(%x, %w, %b) : (tensor<1x1x1x2xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
    %1 = call_function "operator.mul"(%0, %s) : (tensor<1x1x1x2xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
    %2 = call_function "torch.nn.functional.relu"(%1) : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    %3 = call_function "operator.truediv"(%2, 2) : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    // A negative scale stays.
    // CHECK: call_function "torch.mul"(input=%{{.*}}, other=-1)
    %4 = call_function "torch.nn.functional.conv2d"(%x, %w, %b) : (tensor<1x1x1x2xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
    %5 = call_function "torch.mul"(%4, -1) : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    %6 = call_function "torch.nn.functional.relu"(%5) : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    %7 = call_function "torch.div"(%6, 2) : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    // CHECK: output %[[R]]
    output %3, %7 : tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>
  }
}
