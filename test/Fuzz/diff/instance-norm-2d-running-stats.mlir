// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by a fork-mode run (the compile-refusal rule): the
// interpreter took 2-D running statistics in F.instance_norm, which torch
// refuses (it repeats them over the batch: "Number of dimensions of repeat
// dims can not be smaller than number of dimensions of tensor"), and the
// decomposition's repeat failed to type.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: 'running_mean' must be 1-D
module attributes {fuzz.inputs = [dense<[[1.500000e+00, -2.250000e+00, 3.000000e+00, 7.500000e-01]]> : tensor<1x4xbf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1x4xbf16>) -> tensor<1x4xbf16> {
      %0 = call_function "torch.nn.functional.instance_norm"(input=%x0, running_mean=%x0, running_var=%x0, weight=%x0, bias=%x0, use_input_stats=False, momentum=-2.0, eps=-2.0) : (tensor<1x4xbf16>, tensor<1x4xbf16>, tensor<1x4xbf16>, tensor<1x4xbf16>, tensor<1x4xbf16>) -> tensor<1x4xbf16>
      output %0 : tensor<1x4xbf16>
    }
  }
}
