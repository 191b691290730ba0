// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at e9934fe (27e0700^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[[5, -3, -6], [5, -6, -2], [-2, 0, 5]], [[3, 1, -4], [3, -3, 6], [3, -3, -5]], [[1, 6, -4], [1, -5, 5], [0, -5, 5]]]> : tensor<3x3x3xi64>, dense<[-2.250000e+00, -4.500000e+00, 3.750000e+00]> : tensor<3xbf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x3x3xi64>, %x1: tensor<3xbf16>) -> tensor<3x3x3xf32> {
      %logit_out = call_function "torch.logit"(input=%x0, eps=0.75) : (tensor<3x3x3xi64>) -> tensor<3x3x3xf32>
      output %logit_out : tensor<3x3x3xf32>
    }
  }
}
