// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): its choice stream,
// from an older op table, builds another graph today, and a replay with
// the entry names of that table (TRACED_FUZZ_OPS) did not build it either. The input is the stream's.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: Dimension specified as 0 but tensor has no dimensions
module attributes {fuzz.inputs = [dense<1.500000e+00> : tensor<bf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<bf16>) -> tensor<bf16> {
      %0 = call_function "torch._weight_norm"(v=%x0, g=%x0, dim=0) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
      output %0 : tensor<bf16>
    }
  }
}
