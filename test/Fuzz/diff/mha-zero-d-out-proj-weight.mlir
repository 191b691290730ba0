// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): its choice stream,
// from an older op table, builds another graph today, and a replay with
// the entry names of that table (TRACED_FUZZ_OPS) did not build it either.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: out_proj_weight must be a matrix of 4 columns
module attributes {fuzz.inputs = [dense<7.500000e-01> : tensor<2x1x4xf32>, dense<2.500000e-01> : tensor<12x4xf32>, dense<0.000000e+00> : tensor<12xf32>, dense<1.500000e+00> : tensor<f32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<2x1x4xf32>, %x1: tensor<12x4xf32>, %x2: tensor<12xf32>, %x3: tensor<f32>) -> tensor<2x1x4xf32> {
      %0 = call_function "torch.nn.functional.multi_head_attention_forward"(%x0, %x0, %x0, 4, 2, %x1, %x2, None, None, False, 0.0, %x3, None, training=False) : (tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<12x4xf32>, tensor<12xf32>, tensor<f32>) -> tuple<tensor<2x1x4xf32>, tensor<1x2x2xf32>>
      %1 = call_function "operator.getitem"(%0, 0) : (tuple<tensor<2x1x4xf32>, tensor<1x2x2xf32>>) -> tensor<2x1x4xf32>
      output %1 : tensor<2x1x4xf32>
    }
  }
}
