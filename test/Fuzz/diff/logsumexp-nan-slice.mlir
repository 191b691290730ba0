// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at a222757 (e05025f^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[[-2.250000e+00, 4.500000e+00, -7.500000e-01, 3.750000e+00], [-3.000000e+00, -2.250000e+00, 7.500000e-01, -3.750000e+00], [-2.250000e+00, 2.250000e+00, 3.000000e+00, 4.500000e+00]], [[-2.250000e+00, 4.500000e+00, 4.500000e+00, -7.500000e-01], [-4.500000e+00, 3.750000e+00, -1.500000e+00, 3.000000e+00], [7.500000e-01, -4.500000e+00, 3.000000e+00, 4.500000e+00]]]> : tensor<2x3x4xf32>, dense<[[[0], [255], [6]]]> : tensor<1x3x1xui8>, dense<[-7.500000e-01, 2.250000e+00, 7.500000e-01, -4.500000e+00]> : tensor<4xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<2x3x4xf32>, %x1: tensor<1x3x1xui8>, %x2: tensor<4xf64>) -> (tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<2x3x4xf32>) {
      %tril_out = call_function "torch.tril"(input=%x0) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
      %log10_out = call_function "torch.log10"(input=%x0) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
      %logsumexp_out = call_function "torch.logsumexp"(input=%log10_out, dim=[1]) : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
      %log10_out_0 = call_function "torch.log10"(input=%log10_out) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
      output %log10_out, %logsumexp_out, %log10_out_0 : tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<2x3x4xf32>
    }
  }
}
