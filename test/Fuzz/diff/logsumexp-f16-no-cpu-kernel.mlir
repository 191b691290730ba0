// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by CI's smoke run (the compile-refusal rule): the
// interpreter computed logsumexp of a float16 tensor, which torch 1.13 refuses
// ("exp_vml_cpu" not implemented for 'Half'), and the compiler refused its
// decomposition's exp. The graph keeps the finding's logsumexp call alone.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: 'torch.logsumexp' computes in float16, which is not supported
module attributes {fuzz.inputs = [dense<-2.250000e+00> : tensor<f16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<f16>) -> tensor<f16> {
      %0 = call_function "torch.logsumexp"(input=%x0, dim=[-1]) : (tensor<f16>) -> tensor<f16>
      output %0 : tensor<f16>
    }
  }
}
