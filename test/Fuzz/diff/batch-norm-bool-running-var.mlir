// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by a fork-mode run (the compile-refusal rule): the
// interpreter took a bool running_var (and float32 statistics beside a float64
// input), which torch 1.13's CPU batch norm refuses ("mixed dtype (CPU)").
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: mixed dtype (CPU): expect parameter to have scalar type of float64
module attributes {fuzz.inputs = [dense<true> : tensor<1xi1>, dense<2.500000e-01> : tensor<1xf32>, dense<[[[1.500000e+00, -2.250000e+00, 3.000000e+00, 7.500000e-01]], [[-4.500000e+00, 0.000000e+00, 2.250000e+00, -7.500000e-01]]]> : tensor<2x1x4xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1xi1>, %x1: tensor<1xf32>, %x2: tensor<2x1x4xf64>) -> tensor<2x1x4xf64> {
      %0 = call_function "torch.nn.functional.batch_norm"(input=%x2, running_mean=%x1, running_var=%x0, eps=-1.0) : (tensor<2x1x4xf64>, tensor<1xf32>, tensor<1xi1>) -> tensor<2x1x4xf64>
      output %0 : tensor<2x1x4xf64>
    }
  }
}
