// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): its choice stream,
// from an older op table, builds another graph today, and a replay with
// the entry names of that table (TRACED_FUZZ_OPS) did not build it either. The input is the stream's.
module attributes {fuzz.inputs = [dense<[[[253], [6], [250]]]> : tensor<1x3x1xui8>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1x3x1xui8>) -> tensor<1x3x1xui8> {
      %0 = call_function "torch.pow"(input=%x0, exponent=%x0) : (tensor<1x3x1xui8>, tensor<1x3x1xui8>) -> tensor<1x3x1xui8>
      output %0 : tensor<1x3x1xui8>
    }
  }
}
