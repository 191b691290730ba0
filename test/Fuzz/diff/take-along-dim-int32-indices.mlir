// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): test_fuzz_replay's
// generated sample (stream s028 of 2026-11-30) built this graph; the
// interpreter gathered with the int32 indices while the compiled
// decomposition's gather refused them. torch 1.13 raises
// ("torch.take_along_dim(): dtype of indices should be Long but got Int").
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: 'torch.take_along_dim' torch.take_along_dim(): dtype of indices should be Long
module attributes {fuzz.inputs = [dense<6> : tensor<i32>, dense<[[[-4, -3, -4, -3]], [[-3, 4, -2, -6]]]> : tensor<2x1x4xi64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x1: tensor<i32>, %x2: tensor<2x1x4xi64>) -> tensor<1xi64> {
      %0 = call_function "torch.take_along_dim"(input=%x2, indices=%x1) : (tensor<2x1x4xi64>, tensor<i32>) -> tensor<1xi64>
      output %0 : tensor<1xi64>
    }
  }
}
