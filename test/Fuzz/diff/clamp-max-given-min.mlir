// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 0a3f923 (b5dc498^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[[1.500000e+00, 1.500000e+00, 1.500000e+00, 1.500000e+00]], [[1.500000e+00, 1.500000e+00, 1.500000e+00, -1.500000e+00]]]> : tensor<2x1x4xf64>, dense<1.500000e+00> : tensor<2x1x4xf64>, dense<[[[7.500000e-01, 3.000000e+00, 3.750000e+00, 1.500000e+00]], [[1.500000e+00, 1.500000e+00, 1.500000e+00, 1.500000e+00]]]> : tensor<2x1x4xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<2x1x4xf64>, %x1: tensor<2x1x4xf64>, %x2: tensor<2x1x4xf64>) -> tensor<2x1x4xf64> {
      %clamp_max_out = call_function "torch.clamp_max"(input=%x0, max=%x0) : (tensor<2x1x4xf64>, tensor<2x1x4xf64>) -> tensor<2x1x4xf64>
      %clamp_max_out_0 = call_function "torch.clamp_max"(input=%clamp_max_out, max=%clamp_max_out) : (tensor<2x1x4xf64>, tensor<2x1x4xf64>) -> tensor<2x1x4xf64>
      %clamp_max_out_1 = call_function "torch.clamp_max"(input=%clamp_max_out, max=%x0) : (tensor<2x1x4xf64>, tensor<2x1x4xf64>) -> tensor<2x1x4xf64>
      %clamp_max_out_2 = call_function "torch.clamp_max"(input=%clamp_max_out, max=%clamp_max_out) : (tensor<2x1x4xf64>, tensor<2x1x4xf64>) -> tensor<2x1x4xf64>
      output %clamp_max_out_2 : tensor<2x1x4xf64>
    }
  }
}
