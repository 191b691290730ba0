// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at e05025f (496251c^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[3.000000e+00, 3.750000e+00, 2.250000e+00], [0.000000e+00, -3.750000e+00, 0.000000e+00], [7.500000e-01, -3.750000e+00, -1.500000e+00]]> : tensor<3x3xbf16>, dense<[-1.500000e+00, -1.500000e+00, -3.750000e+00, 3.000000e+00]> : tensor<4xbf16>, dense<[[-2.250000e+00], [-4.500000e+00], [3.750000e+00]]> : tensor<3x1xf32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x3xbf16>, %x1: tensor<4xbf16>, %x2: tensor<3x1xf32>) -> (tensor<3x3xi64>, tensor<3x4xf32>) {
      %logit_out = call_function "torch.logit"(input=%x2, eps=-1.25) : (tensor<3x1xf32>) -> tensor<3x1xf32>
      %bucketize_out = call_function "torch.bucketize"(input=%x0, boundaries=%x1) : (tensor<3x3xbf16>, tensor<4xbf16>) -> tensor<3x3xi64>
      %default_out = call_function "torch.ops.aten.sigmoid_backward.default"(grad_output=%logit_out, output=%x1) : (tensor<3x1xf32>, tensor<4xbf16>) -> tensor<3x4xf32>
      output %bucketize_out, %default_out : tensor<3x3xi64>, tensor<3x4xf32>
    }
  }
}
