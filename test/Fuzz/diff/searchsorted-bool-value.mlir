// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// searchsorted(seq, False): the decomposition declined a bool value (torch compares it as 0),
// so the compiler refused a call the interpreter ran.
module attributes {fuzz.inputs = [dense<[[4.500000e+00, 7.500000e-01, -2.250000e+00], [1.500000e+00, -3.000000e+00, -2.250000e+00], [-2.250000e+00, -2.250000e+00, 2.250000e+00]]> : tensor<3x3xbf16>, dense<-3.000000e+00> : tensor<1x1xf32>, dense<[-7.500000e-01, 0.000000e+00, -4.500000e+00, 1.500000e+00]> : tensor<4xf32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x3xbf16>, %x1: tensor<1x1xf32>, %x2: tensor<4xf32>) -> tensor<i64> {
      %searchsorted_out = call_function "torch.searchsorted"(sorted_sequence=%x2, input=False) : (tensor<4xf32>) -> tensor<i64>
      output %searchsorted_out : tensor<i64>
    }
  }
}
