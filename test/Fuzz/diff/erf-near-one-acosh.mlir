// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream (the diff smoke run's
// stream 522 with the op table at 7110715). torch.erf's compiled polynomial
// gave exactly 1 at 3.75 where torch gives 1 - 2^-23, and acosh of it 0
// instead of NaN; erf past |x| = 2 is now 1 - erfc(|x|).
module attributes {fuzz.inputs = [dense<[[[5]], [[253]], [[255]], [[2]]]> : tensor<4x1x1xui8>, dense<[[[-1.500000e+00, -3.750000e+00, 3.750000e+00, -4.500000e+00]], [[7.500000e-01, 3.750000e+00, 3.750000e+00, -3.750000e+00]]]> : tensor<2x1x4xf32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<4x1x1xui8>, %x1: tensor<2x1x4xf32>) -> tensor<2x1x4xf32> {
      %lerp_out = call_function "torch.lerp"(input=%x1, end=%x1, weight=1) : (tensor<2x1x4xf32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
      %erf_out = call_function "torch.erf"(input=%lerp_out) : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
      %acosh_out = call_function "torch.acosh"(input=%erf_out) : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
      output %acosh_out : tensor<2x1x4xf32>
    }
  }
}
