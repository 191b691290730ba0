// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at bd05a5b (62162d6^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<251> : tensor<1xui8>, dense<[[[-3.750000e+00, -3.750000e+00, -3.750000e+00], [-3.750000e+00, -3.750000e+00, -3.750000e+00], [-3.750000e+00, -3.750000e+00, -3.750000e+00]], [[-3.750000e+00, -3.750000e+00, -3.750000e+00], [-3.750000e+00, -3.750000e+00, -3.750000e+00], [-3.750000e+00, -3.750000e+00, -3.750000e+00]], [[-3.750000e+00, -3.000000e+00, 7.500000e-01], [3.000000e+00, 3.000000e+00, 3.000000e+00], [-7.500000e-01, -4.500000e+00, -4.500000e+00]]]> : tensor<3x3x3xf64>, dense<[[[-4.500000e+00, -7.500000e-01, -4.500000e+00, 1.500000e+00]], [[-3.000000e+00, -4.500000e+00, 2.250000e+00, 2.250000e+00]]]> : tensor<2x1x4xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1xui8>, %x1: tensor<3x3x3xf64>, %x2: tensor<2x1x4xf64>) -> tensor<2x1x4xf64> {
      %default_out = call_function "torch.ops.aten.threshold_backward.default"(grad_output=%x2, input=%x0, threshold=-1) : (tensor<2x1x4xf64>, tensor<1xui8>) -> tensor<2x1x4xf64>
      output %default_out : tensor<2x1x4xf64>
    }
  }
}
