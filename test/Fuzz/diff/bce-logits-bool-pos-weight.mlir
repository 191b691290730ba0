// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): its choice stream,
// from an older op table, builds another graph today, and a replay with
// the entry names of that table (TRACED_FUZZ_OPS) did not build it either. The inputs are the stream's first two.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: with a bool tensor is not supported (pos_weight)
module attributes {fuzz.inputs = [dense<[[7.500000e-01, -3.750000e+00, -2.250000e+00, 7.500000e-01], [-4.500000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-3.000000e+00, -4.500000e+00, 3.750000e+00, 1.500000e+00]]> : tensor<3x4xbf16>, dense<[[true], [true], [false]]> : tensor<3x1xi1>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x4xbf16>, %x1: tensor<3x1xi1>) -> tensor<bf16> {
      %0 = call_function "torch.nn.functional.binary_cross_entropy_with_logits"(input=%x0, target=%x0, pos_weight=%x1) : (tensor<3x4xbf16>, tensor<3x4xbf16>, tensor<3x1xi1>) -> tensor<bf16>
      output %0 : tensor<bf16>
    }
  }
}
