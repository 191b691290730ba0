// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 0f6d8f2 (c6d2993^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[-5, 3, -6, 0], [5, 2, -6, -6], [1, -1, 6, 0]]> : tensor<3x4xi64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x4xi64>) -> tensor<12xi64> {
      %take_along_dim_out = call_function "torch.take_along_dim"(input=%x0, indices=%x0) : (tensor<3x4xi64>, tensor<3x4xi64>) -> tensor<12xi64>
      output %take_along_dim_out : tensor<12xi64>
    }
  }
}
