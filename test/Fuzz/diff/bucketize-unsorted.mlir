// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 60bf813 (4a3b336^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[-4.500000e+00, -4.500000e+00, -7.500000e-01, 3.750000e+00]> : tensor<4xf32>, dense<[7.500000e-01, -4.500000e+00, -4.500000e+00, -4.500000e+00]> : tensor<4xf64>, dense<-4.500000e+00> : tensor<1x1xf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<4xf32>, %x1: tensor<4xf64>, %x2: tensor<1x1xf16>) -> tensor<4xi64> {
      %bucketize_out = call_function "torch.bucketize"(input=%x0, boundaries=%x1, right=False) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xi64>
      output %bucketize_out : tensor<4xi64>
    }
  }
}
