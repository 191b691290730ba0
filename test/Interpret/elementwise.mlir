// RUN: traced-translate --interpret %s | FileCheck %s

// Activations and broadcasting arithmetic, with PyTorch's type promotion.

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xi64>, i64, f64, tensor<5xf32>, tensor<3xf32>) {
    %x = constant dense<[-2.0, -0.5, 0.0, 3.0, 7.0]> : tensor<5xf32>
    // CHECK: output #0: tensor<5xf32> [0, 0, 0, 3, 7]
    %0 = call_function "torch.nn.functional.relu"(%x) : (tensor<5xf32>) -> tensor<5xf32>
    // CHECK: output #1: tensor<5xf32> [0, 0, 0, 3, 6]
    %1 = call_function "torch.nn.functional.relu6"(%x) : (tensor<5xf32>) -> tensor<5xf32>
    // CHECK: output #2: tensor<5xf32> [-0.33333334, -0.20833333, 0, 3, 7]
    %2 = call_function "torch.nn.functional.hardswish"(%x) : (tensor<5xf32>) -> tensor<5xf32>
    // CHECK: output #3: tensor<5xf32> [-1, -0.5, 0, 1, 1]
    %3 = call_function "torch.nn.functional.hardtanh"(%x) : (tensor<5xf32>) -> tensor<5xf32>
    // Broadcasting [2, 1] + [3].
    %a = constant dense<[[10.0], [20.0]]> : tensor<2x1xf32>
    %b = constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    // CHECK: output #4: tensor<2x3xf32> {{\[}}[11, 12, 13], [21, 22, 23]]
    %4 = call_method %a["__add__"](%b) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    // An int tensor divided by an int: true division gives floats.
    %i = constant dense<[1, 2, 3]> : tensor<3xi64>
    // CHECK: output #5: tensor<3xf32> [0.5, 1, 1.5]
    %5 = call_method %i["__truediv__"](2) : (tensor<3xi64>) -> tensor<3xf32>
    // CHECK: output #6: tensor<3xi64> [0, -1, -2]
    %6 = call_method %i["__rsub__"](1) : (tensor<3xi64>) -> tensor<3xi64>
    // Python numbers stay Python numbers.
    %n = constant 7 : i64
    // CHECK: output #7: 3
    %7 = call_function "operator.floordiv"(%n, 2) : (i64) -> i64
    // CHECK: output #8: 3.5
    %8 = call_function "operator.truediv"(%n, 2) : (i64) -> f64
    // GELU with erf, computed in double and rounded once (torch 1.13 gives
    // -0.0455001, -0.154269, 0, 2.99595, 7).
    // CHECK: output #9: tensor<5xf32> [-0.045500264, -0.15426877, 0, 2.9959502, 7]
    %9 = call_function "torch.nn.functional.gelu"(%x) : (tensor<5xf32>) -> tensor<5xf32>
    // CHECK: output #10: tensor<3xf32> [1, 1, 1.5]
    %10 = call_function "torch.clamp"(%5, 1) : (tensor<3xf32>) -> tensor<3xf32>
    output %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xi64>, i64, f64, tensor<5xf32>, tensor<3xf32>
  }
}
