// A small graph for limits.mlir's environment-variable runs.
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>) -> tensor<20x20xf32> {
    %0 = call_function "torch.ones"([20, 20]) : () -> tensor<20x20xf32>
    output %0 : tensor<20x20xf32>
  }
}
