// RUN: traced-translate --interpret %s | FileCheck %s

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>) -> (tensor<2xf32>, tensor<1x3xf32>, tensor<i64>, tensor<3x2xf32>, tensor<2x1xf32>, tensor<1x2xf32>, tensor<4x3xf32>, tensor<3xf32>, tuple<i64, i64>, tensor<2x2xf32>, tensor<6xf32>) {
    %x = constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    // CHECK: output #0: tensor<2xf32> [2, 5]
    %0 = call_method %x["mean"](-1) : (tensor<2x3xf32>) -> tensor<2xf32>
    // CHECK: output #1: tensor<1x3xf32> {{\[}}[5, 7, 9]]
    %1 = call_function "torch.sum"(%x, 0, True) : (tensor<2x3xf32>) -> tensor<1x3xf32>
    %b = constant dense<[true, false, true]> : tensor<3xi1>
    // Sums of bools are int64.
    // CHECK: output #2: tensor<i64> 2
    %2 = call_function "torch.sum"(%b) : (tensor<3xi1>) -> tensor<i64>
    // CHECK: output #3: tensor<3x2xf32> {{\[}}[1, 4], [2, 5], [3, 6]]
    %3 = call_method %x["transpose"](0, 1) : (tensor<2x3xf32>) -> tensor<3x2xf32>
    // x[:, 1:3:2] and x[None, :, 0].
    // CHECK: output #4: tensor<2x1xf32> {{\[}}[2], [5]]
    %4 = call_function "operator.getitem"(%x, (slice(None, None, None), slice(1, 3, 2))) : (tensor<2x3xf32>) -> tensor<2x1xf32>
    // CHECK: output #5: tensor<1x2xf32> {{\[}}[1, 4]]
    %5 = call_function "operator.getitem"(%x, (None, slice(None, None, None), 0)) : (tensor<2x3xf32>) -> tensor<1x2xf32>
    // CHECK: output #6: tensor<4x3xf32> {{\[}}[1, 2, 3], [4, 5, 6], [1, 2, 3], [4, 5, 6]]
    %6 = call_function "torch.cat"([%x, %x]) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    // chunk returns a tuple; getitem takes a part.
    %c = call_method %x["chunk"](2) : (tensor<2x3xf32>) -> tuple<tensor<1x3xf32>, tensor<1x3xf32>>
    %c1 = call_function "operator.getitem"(%c, 1) : (tuple<tensor<1x3xf32>, tensor<1x3xf32>>) -> tensor<1x3xf32>
    // CHECK: output #7: tensor<3xf32> [4, 5, 6]
    %7 = call_method %c1["flatten"]() : (tensor<1x3xf32>) -> tensor<3xf32>
    // CHECK: output #8: (2, 3)
    %8 = call_method %x["size"]() : (tensor<2x3xf32>) -> tuple<i64, i64>
    // view with a size computed in the graph.
    %n = call_method %x["size"](0) : (tensor<2x3xf32>) -> i64
    %flat = call_method %x["reshape"](-1) : (tensor<2x3xf32>) -> tensor<6xf32>
    %sl = call_function "operator.getitem"(%flat, slice(None, 4, None)) : (tensor<6xf32>) -> tensor<4xf32>
    // CHECK: output #9: tensor<2x2xf32> {{\[}}[1, 2], [3, 4]]
    %9 = call_method %sl["view"](%n, -1) : (tensor<4xf32>, i64) -> tensor<2x2xf32>
    // CHECK: output #10: tensor<6xf32> [1, 4, 2, 5, 3, 6]
    %p = call_method %x["permute"](1, 0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %10 = call_function "torch.flatten"(%p) : (tensor<3x2xf32>) -> tensor<6xf32>
    output %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<2xf32>, tensor<1x3xf32>, tensor<i64>, tensor<3x2xf32>, tensor<2x1xf32>, tensor<1x2xf32>, tensor<4x3xf32>, tensor<3xf32>, tuple<i64, i64>, tensor<2x2xf32>, tensor<6xf32>
  }
}
