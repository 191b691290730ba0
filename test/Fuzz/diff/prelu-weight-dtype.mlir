// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by the compile-refusal rule: a float16 weight for a 0-d float64
// input; torch 1.13 refuses a weight of another dtype ("Found dtype Half but expected
// Double").
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: expects a weight of the input's dtype 'f64'
module attributes {fuzz.inputs = [dense<7.500000e-01> : tensor<1xf16>, dense<4.500000e+00> : tensor<f64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1xf16>, %x1: tensor<f64>) -> tensor<f64> {
      %prelu_out = call_function "torch.nn.functional.prelu"(input=%x1, weight=%x0) : (tensor<f64>, tensor<1xf16>) -> tensor<f64>
      output %prelu_out : tensor<f64>
    }
  }
}
