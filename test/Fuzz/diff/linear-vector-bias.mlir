// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): its choice stream,
// from an older op table, builds another graph today, and a replay with
// the entry names of that table (TRACED_FUZZ_OPS) did not build it either. The input is the stream's.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: does not broadcast into the output's shape []
module attributes {fuzz.inputs = [dense<-2.250000e+00> : tensor<1xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1xf64>) -> tensor<f64> {
      %0 = call_function "torch.nn.functional.linear"(input=%x0, weight=%x0, bias=%x0) : (tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> tensor<f64>
      output %0 : tensor<f64>
    }
  }
}
