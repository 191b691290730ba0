// RUN: traced-translate --interpret %s | FileCheck %s

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>) -> (tensor<1x2x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>) {
    %x = constant dense<[[[1.0, 3.0], [10.0, 30.0]]]> : tensor<1x2x2xf32>
    %mean = constant dense<[2.0, 20.0]> : tensor<2xf32>
    %var = constant dense<[4.0, 100.0]> : tensor<2xf32>
    %g = constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = constant dense<[0.0, 1.0]> : tensor<2xf32>
    // (x - mean) / sqrt(var + eps) * weight + bias, with eps = 0.
    // CHECK: output #0: tensor<1x2x2xf32> {{\[\[}}[-0.5, 0.5], [-1, 3]]]
    %0 = call_function "torch.nn.functional.batch_norm"(%x, %mean, %var, %g, %b, False, 0.1, 0.0) : (tensor<1x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2xf32>
    %y = constant dense<[[1.0, 3.0], [2.0, 2.0]]> : tensor<2x2xf32>
    // A row with zero variance normalizes to zeros (eps keeps it finite).
    // CHECK: output #1: tensor<2x2xf32> {{\[}}[-0.999995, 0.999995], [0, 0]]
    %1 = call_function "torch.nn.functional.layer_norm"(%y, [2]) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %z = constant dense<[[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]> : tensor<2x3xf32>
    // CHECK: output #2: tensor<2x3xf32> {{\[}}[0.33333334, 0.33333334, 0.33333334], [0.09003057, 0.24472848, 0.66524094]]
    %2 = call_function "torch.nn.functional.softmax"(%z, -1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    // Eval-mode dropout is the identity.
    // CHECK: output #3: tensor<2x3xf32> {{\[}}[0, 0, 0], [1, 2, 3]]
    %3 = call_function "torch.nn.functional.dropout"(%z, 0.5, False) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    // CHECK: output #4: tensor<2x2xf32> {{\[}}[-2.126928, -0.12692805], [-0.6931472, -0.6931472]]
    %4 = call_function "torch.nn.functional.log_softmax"(%y, 1) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    output %0, %1, %2, %3, %4 : tensor<1x2x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>
  }
}
