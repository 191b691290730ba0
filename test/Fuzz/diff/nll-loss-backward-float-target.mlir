// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): its choice stream,
// from an older op table, builds another graph today, and a replay with
// the entry names of that table (TRACED_FUZZ_OPS) did not build it either. The input is the stream's.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: expects an int64 target
module attributes {fuzz.inputs = [dense<[[[1.500000e+00], [1.500000e+00], [2.250000e+00]]]> : tensor<1x3x1xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1x3x1xf64>) -> tensor<1x3x1xf64> {
      %0 = call_function "torch.ops.aten.nll_loss_backward.default"(grad_output=%x0, input=%x0, target=%x0, weight=None, reduction=0, ignore_index=-100, total_weight=%x0) : (tensor<1x3x1xf64>, tensor<1x3x1xf64>, tensor<1x3x1xf64>, tensor<1x3x1xf64>) -> tensor<1x3x1xf64>
      output %0 : tensor<1x3x1xf64>
    }
  }
}
