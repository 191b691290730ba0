// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): its choice stream,
// from an older op table, builds another graph today, and a replay with
// the entry names of that table (TRACED_FUZZ_OPS) did not build it either.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: kernel size should be greater than zero, got 0
module attributes {fuzz.inputs = [dense<7.500000e-01> : tensor<1x4x4xf32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1x4x4xf32>) -> tensor<1x1x2x2xf32> {
      %0 = call_function "torch.nn.functional.fold"(input=%x0, output_size=[2, 2], kernel_size=0) : (tensor<1x4x4xf32>) -> tensor<1x1x2x2xf32>
      output %0 : tensor<1x1x2x2xf32>
    }
  }
}
