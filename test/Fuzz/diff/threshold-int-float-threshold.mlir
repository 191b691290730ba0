// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at bfef9ec (b3116e0^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[2, 0, 5]> : tensor<3xi32>, dense<[0.000000e+00, 4.500000e+00, 3.750000e+00, 0.000000e+00]> : tensor<4xbf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3xi32>, %x1: tensor<4xbf16>) -> tensor<3xi32> {
      %relu_out = call_function "torch.nn.functional.relu"(input=%x0) : (tensor<3xi32>) -> tensor<3xi32>
      %threshold_out = call_function "torch.nn.functional.threshold"(input=%x0, threshold=-0.25, value=1.25) : (tensor<3xi32>) -> tensor<3xi32>
      output %threshold_out : tensor<3xi32>
    }
  }
}
