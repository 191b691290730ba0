// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by the compile-refusal rule (the lowering has no bool pow):
// torch 1.13 has none either ("pow" not implemented for 'Bool').
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: 'torch.pow' computes in bool, which is not supported
module attributes {fuzz.inputs = [dense<-5> : tensor<1xi32>, dense<0> : tensor<ui8>, dense<-4.500000e+00> : tensor<1xf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1xi32>, %x1: tensor<ui8>, %x2: tensor<1xf16>) -> tensor<1xi1> {
      %logical_or_out = call_function "torch.logical_or"(input=%x1, other=%x0) : (tensor<ui8>, tensor<1xi32>) -> tensor<1xi1>
      %pow_out = call_function "torch.pow"(input=%logical_or_out, exponent=%logical_or_out) : (tensor<1xi1>, tensor<1xi1>) -> tensor<1xi1>
      output %pow_out : tensor<1xi1>
    }
  }
}
