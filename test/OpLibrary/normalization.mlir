// RUN: traced-opt %s | FileCheck %s

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x4x5x5xf32>, %c: tensor<4xf32>, %t: tensor<2x7x64xf32>, %g: tensor<64xf32>) {
    // CHECK: call_function "torch.nn.functional.batch_norm"(input=%x, running_mean=%c, running_var=%c, weight=%c, bias=%c, eps=0.001) : (tensor<2x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5x5xf32>
    %0 = call_function "torch.nn.functional.batch_norm"(%x, %c, %c, %c, %c, False, 0.1, 0.001) : (tensor<2x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5x5xf32>
    // CHECK: call_function "torch.nn.functional.layer_norm"(input=%t, normalized_shape=[64], weight=%g, bias=%g) : (tensor<2x7x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x7x64xf32>
    %1 = call_function "torch.nn.functional.layer_norm"(%t, (64,), %g, %g, 1.0e-05) : (tensor<2x7x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x7x64xf32>
    // CHECK: call_function "torch.nn.functional.dropout"(input=%t, p=0.1, training=False) : (tensor<2x7x64xf32>) -> tensor<2x7x64xf32>
    %2 = call_function "torch.nn.functional.dropout"(%t, 0.1, False) : (tensor<2x7x64xf32>) -> tensor<2x7x64xf32>
    // CHECK: call_function "torch.dropout"(input=%t, p=0.1, train=False) : (tensor<2x7x64xf32>) -> tensor<2x7x64xf32>
    %3 = call_function "torch.dropout"(%t, 0.1, False) : (tensor<2x7x64xf32>) -> tensor<2x7x64xf32>
    output
  }
}
