// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at d260af5 (ef5e016^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<254> : tensor<1xui8>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1xui8>) -> (tensor<1xui8>, tensor<1xi1>) {
      %relu6_out = call_function "torch.nn.functional.relu6"(input=%x0) : (tensor<1xui8>) -> tensor<1xui8>
      %squeeze_out = call_function "torch.squeeze"(input=%relu6_out, dim=0) : (tensor<1xui8>) -> tensor<ui8>
      %t_out = call_function "torch.t"(input=%x0) : (tensor<1xui8>) -> tensor<1xui8>
      %isclose_out = call_function "torch.isclose"(input=%relu6_out, other=%x0, rtol=0.75, atol=0.75, equal_nan=False) : (tensor<1xui8>, tensor<1xui8>) -> tensor<1xi1>
      output %t_out, %isclose_out : tensor<1xui8>, tensor<1xi1>
    }
  }
}
