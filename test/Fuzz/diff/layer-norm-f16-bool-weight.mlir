// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by the deterministic smoke run (stream 378 of
// random.Random(1)): F.layer_norm of a float16 input with a 0-d bool weight,
// which the interpreter ran and the compiler could not lower; torch 1.13
// refuses both ("LayerNormKernelImpl" not implemented for 'Half'; a weight
// not of normalized_shape's shape and the input's dtype). Written by hand
// from the finding: after the fix the stream builds another graph.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: computes in float16, which is not supported
module attributes {fuzz.inputs = [dense<true> : tensor<i1>, dense<[[3.000000e+00], [-1.500000e+00], [-2.250000e+00]]> : tensor<3x1xf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<i1>, %x1: tensor<3x1xf16>) -> tensor<3x1xf16> {
      %0 = call_function "torch.nn.functional.layer_norm"(input=%x1, normalized_shape=[1], weight=%x0) : (tensor<3x1xf16>, tensor<i1>) -> tensor<3x1xf16>
      output %0 : tensor<3x1xf16>
    }
  }
}
