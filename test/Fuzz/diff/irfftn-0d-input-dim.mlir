// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): fuzz-diff's smoke
// run of 2026-11-30 (stream s0838 of the op table then) crashed in the
// result rule of a complex-to-real FFT given a 0-d input and a dim: the
// rule read the size of dim 0 of a tensor without dims. torch wraps dim 0
// (or -1) of a scalar as a dim of size 1, so irfftn's default signal is
// 2 * (1 - 1) = 0 points, and raises.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: 'torch.fft.irfftn' Invalid number of data points (0) specified
module attributes {fuzz.inputs = [dense<1.5> : tensor<f32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<f32>) -> tensor<1xf32> {
      %0 = call_function "torch.fft.irfftn"(input=%x0, dim=[0]) : (tensor<f32>) -> tensor<1xf32>
      output %0 : tensor<1xf32>
    }
  }
}
