// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): its choice stream,
// from an older op table, builds another graph today, and a replay with
// the entry names of that table (TRACED_FUZZ_OPS) did not build it either. The input is the stream's.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: computes in int32, which is not supported
module attributes {fuzz.inputs = [dense<6> : tensor<i32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<i32>) -> tensor<i32> {
      %0 = call_function "torch.ops.aten.gelu_backward.default"(grad_output=%x0, input=%x0) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      output %0 : tensor<i32>
    }
  }
}
