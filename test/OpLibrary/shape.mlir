// RUN: traced-opt %s | FileCheck %s

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4x5xf32>, %v: tensor<7x2x64xf32>, %n: i64) {
    // CHECK: call_function "torch.flatten"(input=%x, start_dim=1) : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
    %0 = call_function "torch.flatten"(%x, 1) : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
    // CHECK: call_method %x["flatten"](start_dim=1, end_dim=2) : (tensor<2x3x4x5xf32>) -> tensor<2x12x5xf32>
    %1 = call_method %x["flatten"](1, 2) : (tensor<2x3x4x5xf32>) -> tensor<2x12x5xf32>
    // CHECK: call_method %x["reshape"](shape=[-1, 20]) : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
    %2 = call_method %x["reshape"](-1, 20) : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
    // A traced size (from x.size(0)): only the rank is known.
    // CHECK: call_method %x["view"](size=[%n, -1]) : (tensor<2x3x4x5xf32>, i64) -> tensor<?x?xf32>
    %3 = call_method %x["view"](%n, -1) : (tensor<2x3x4x5xf32>, i64) -> tensor<?x?xf32>
    // CHECK: call_function "torch.permute"(input=%x, dims=[0, 2, 3, 1]) : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32>
    %4 = call_function "torch.permute"(%x, [0, 2, 3, 1]) : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32>
    // CHECK: call_method %v["transpose"](dim0=0, dim1=1) : (tensor<7x2x64xf32>) -> tensor<2x7x64xf32>
    %5 = call_method %v["transpose"](0, 1) : (tensor<7x2x64xf32>) -> tensor<2x7x64xf32>
    // CHECK: call_method %v["contiguous"]() : (tensor<7x2x64xf32>) -> tensor<7x2x64xf32>
    %6 = call_method %v["contiguous"]() : (tensor<7x2x64xf32>) -> tensor<7x2x64xf32>
    // CHECK: call_method %v["unsqueeze"](dim=-1) : (tensor<7x2x64xf32>) -> tensor<7x2x64x1xf32>
    %7 = call_method %v["unsqueeze"](-1) : (tensor<7x2x64xf32>) -> tensor<7x2x64x1xf32>
    // CHECK: call_method %unsqueeze_out["squeeze"](dim=-1) : (tensor<7x2x64x1xf32>) -> tensor<7x2x64xf32>
    %8 = call_method %7["squeeze"](-1) : (tensor<7x2x64x1xf32>) -> tensor<7x2x64xf32>
    // CHECK: call_method %unsqueeze_out["squeeze"]() : (tensor<7x2x64x1xf32>) -> tensor<7x2x64xf32>
    %9 = call_method %7["squeeze"]() : (tensor<7x2x64x1xf32>) -> tensor<7x2x64xf32>
    // Multi-head attention's in-projection split: unflatten(-1, (3, 64)).
    // CHECK: call_method %v["unflatten"](dim=-1, sizes=[4, -1]) : (tensor<7x2x64xf32>) -> tensor<7x2x4x16xf32>
    %10 = call_method %v["unflatten"](-1, (4, -1)) : (tensor<7x2x64xf32>) -> tensor<7x2x4x16xf32>
    // CHECK: call_method %unsqueeze_out["expand"](size=[-1, -1, -1, 3]) : (tensor<7x2x64x1xf32>) -> tensor<7x2x64x3xf32>
    %11 = call_method %7["expand"](-1, -1, -1, 3) : (tensor<7x2x64x1xf32>) -> tensor<7x2x64x3xf32>
    // CHECK: call_function "torch.cat"(tensors=[%x, %x], dim=1) : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) -> tensor<2x6x4x5xf32>
    %12 = call_function "torch.cat"([%x, %x], 1) : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) -> tensor<2x6x4x5xf32>
    // CHECK: call_function "torch.stack"(tensors=[%v, %v]) : (tensor<7x2x64xf32>, tensor<7x2x64xf32>) -> tensor<2x7x2x64xf32>
    %13 = call_function "torch.stack"((%v, %v)) : (tensor<7x2x64xf32>, tensor<7x2x64xf32>) -> tensor<2x7x2x64xf32>
    // chunk gives a tuple; getitem takes its parts.
    // CHECK: %chunk_out = call_method %v["chunk"](chunks=3, dim=-1) : (tensor<7x2x64xf32>) -> tuple<tensor<7x2x22xf32>, tensor<7x2x22xf32>, tensor<7x2x20xf32>>
    %14 = call_method %v["chunk"](3, -1) : (tensor<7x2x64xf32>) -> tuple<tensor<7x2x22xf32>, tensor<7x2x22xf32>, tensor<7x2x20xf32>>
    // CHECK: call_function "operator.getitem"(input=%chunk_out, index=-1) : (tuple<tensor<7x2x22xf32>, tensor<7x2x22xf32>, tensor<7x2x20xf32>>) -> tensor<7x2x20xf32>
    %15 = call_function "operator.getitem"(%14, -1) : (tuple<tensor<7x2x22xf32>, tensor<7x2x22xf32>, tensor<7x2x20xf32>>) -> tensor<7x2x20xf32>
    // CHECK: %size_out = call_method %x["size"]() : (tensor<2x3x4x5xf32>) -> tuple<i64, i64, i64, i64>
    %16 = call_method %x["size"]() : (tensor<2x3x4x5xf32>) -> tuple<i64, i64, i64, i64>
    // CHECK: call_function "operator.getitem"(input=%size_out, index=0) : (tuple<i64, i64, i64, i64>) -> i64
    %17 = call_function "operator.getitem"(%16, 0) : (tuple<i64, i64, i64, i64>) -> i64
    // CHECK: call_method %x["dim"]() : (tensor<2x3x4x5xf32>) -> i64
    %18 = call_method %x["dim"]() : (tensor<2x3x4x5xf32>) -> i64
    // torch.fx records `x.shape` as getattr(x, "shape").
    // CHECK: call_function "builtins.getattr"(input=%x, name="shape") : (tensor<2x3x4x5xf32>) -> tuple<i64, i64, i64, i64>
    %19 = call_function "builtins.getattr"(%x, "shape") : (tensor<2x3x4x5xf32>) -> tuple<i64, i64, i64, i64>
    output
  }
}
