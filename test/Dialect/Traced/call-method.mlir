// RUN: traced-opt %s | FileCheck %s
// RUN: traced-opt %s --mlir-print-op-generic | traced-opt | FileCheck %s
// RUN: traced-opt %s -emit-bytecode | traced-opt | FileCheck %s

// CallMethod exprs: Tensor methods, calls of traced submodule graphs, and
// calls of leaf modules.

traced.module root @Net class "__main__.Net" {
  submodule @block : @Block
  submodule @fc : @Fc
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@Net>, %x: tensor<2x3x4xf32>) -> (tensor<2x5xf32>, i64) {
    // `*args` methods take their arguments as one list.
    // CHECK: %view_out = call_method %x["view"](size=[2, 12]) : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    %0 = call_method %x["view"](2, 12) : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    // CHECK: %size_out = call_method %x["size"](dim=0) : (tensor<2x3x4xf32>) -> i64
    %1 = call_method %x["size"](0) : (tensor<2x3x4xf32>) -> i64
    // CHECK: %permute_out = call_method %x["permute"](dims=[2, 0, 1]) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    %2 = call_method %x["permute"](2, 0, 1) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    // A call of a traced submodule's graph, positional like TracedModule.
    // CHECK: %block = getattr %self["block"]
    // CHECK: %block_out = call_method %block["forward"](%view_out) : (!traced.module<@Block>, tensor<2x12xf32>) -> tensor<2x12xf32>
    %3 = getattr %self["block"] : !traced.module<@Net> -> !traced.module<@Block>
    %4 = call_method %3["forward"](%0) : (!traced.module<@Block>, tensor<2x12xf32>) -> tensor<2x12xf32>
    // By keyword, with the graph's input name.
    // CHECK: %block_out_0 = call_method %block["forward"](x=%block_out)
    %5 = call_method %3["forward"](x=%4) : (!traced.module<@Block>, tensor<2x12xf32>) -> tensor<2x12xf32>
    // A leaf module: checked as F.linear(x, self.fc.weight, self.fc.bias).
    // CHECK: %fc_out = call_method %fc["forward"](%block_out_0) : (!traced.module<@Fc>, tensor<2x12xf32>) -> tensor<2x5xf32>
    %6 = getattr %self["fc"] : !traced.module<@Net> -> !traced.module<@Fc>
    %7 = call_method %6["forward"](%5) : (!traced.module<@Fc>, tensor<2x12xf32>) -> tensor<2x5xf32>
    output %7, %1 : tensor<2x5xf32>, i64
  }
}

traced.module @Block class "__main__.Block" {
  graph @forward(%self: !traced.module<@Block>, %x: tensor<2x12xf32>) -> tensor<2x12xf32> {
    // CHECK: %relu_out = call_method %x["relu"]() : (tensor<2x12xf32>) -> tensor<2x12xf32>
    %0 = call_method %x["relu"]() : (tensor<2x12xf32>) -> tensor<2x12xf32>
    output %0 : tensor<2x12xf32>
  }
}

traced.module @Fc class "torch.nn.Linear" {
  parameter @weight : tensor<5x12xf32> = dense<0.5> : tensor<5x12xf32>
  parameter @bias : tensor<5xf32> = dense<0.0> : tensor<5xf32>
  attribute @in_features : i64 = 12
  attribute @out_features : i64 = 5
}
