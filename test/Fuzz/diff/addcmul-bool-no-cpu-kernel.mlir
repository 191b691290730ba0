// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): its choice stream,
// from an older op table, builds another graph today, and a replay with
// the entry names of that table (TRACED_FUZZ_OPS) did not build it either. The inputs are the stream's.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: 'torch.addcmul' computes in 'i1', which is not supported
module attributes {fuzz.inputs = [dense<[[[true, false, true, true], [true, false, false, true], [true, true, true, true]], [[true, true, true, true], [false, true, true, true], [true, true, true, true]]]> : tensor<2x3x4xi1>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<2x3x4xi1>) -> tensor<2x3x4xi1> {
      %0 = call_function "torch.addcmul"(input=%x0, tensor1=%x0, tensor2=%x0) : (tensor<2x3x4xi1>, tensor<2x3x4xi1>, tensor<2x3x4xi1>) -> tensor<2x3x4xi1>
      output %0 : tensor<2x3x4xi1>
    }
  }
}
