// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at cd5d963 (d84b300^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<true> : tensor<i1>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<i1>) -> (tensor<i1>, tensor<i1>) {
      %sum_out = call_function "torch.sum"(input=%x0) : (tensor<i1>) -> tensor<i64>
      %copysign_out = call_function "torch.copysign"(input=%x0, other=True) : (tensor<i1>) -> tensor<f32>
      %isposinf_out = call_function "torch.isposinf"(input=%copysign_out) : (tensor<f32>) -> tensor<i1>
      %isclose_out = call_function "torch.isclose"(input=%isposinf_out, other=%x0, atol=1.0) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      output %isposinf_out, %isclose_out : tensor<i1>, tensor<i1>
    }
  }
}
