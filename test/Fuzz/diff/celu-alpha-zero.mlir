// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): its choice stream,
// from an older op table, builds another graph today, and a replay with
// the entry names of that table (TRACED_FUZZ_OPS) did not build it either.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: alpha cannot be 0 for CELU
module attributes {fuzz.inputs = [dense<[-1.500000e+00, 0.000000e+00, 2.250000e+00]> : tensor<3xf32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3xf32>) -> tensor<3xf32> {
      %0 = call_function "torch.nn.functional.celu"(input=%x0, alpha=0.0) : (tensor<3xf32>) -> tensor<3xf32>
      output %0 : tensor<3xf32>
    }
  }
}
