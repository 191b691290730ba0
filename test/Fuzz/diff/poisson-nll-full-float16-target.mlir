// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Written by hand from the finding (docs/reliability.md): fuzz-diff's smoke
// run of 2026-11-30 built this graph (stream s0781 of the op table then);
// after the fix the verifier refuses the call, so the stream builds nothing.
// The interpreter computed it while the compiled decomposition refused
// torch.log in float16; torch 1.13 raises ("log_vml_cpu" not implemented
// for 'Half'): full=True takes the log of the target (Stirling's term).
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: 'torch.nn.functional.poisson_nll_loss' "log_vml_cpu" not implemented for 'Half'
module attributes {fuzz.inputs = [dense<3> : tensor<i32>, dense<[[[2.49, 0.3784, 2.723, 2.459], [2.76, 0.3499, 0.4932, 2.213], [0.09979, 2.982, 1.819, 1.693]], [[0.2173, 1.978, 2.145, 1.738], [2.943, 1.95, 0.1699, 2.76], [2.01, 0.7842, 0.1221, 2.355]]]> : tensor<2x3x4xf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<i32>, %x1: tensor<2x3x4xf16>) -> tensor<f16> {
      %0 = call_function "torch.nn.functional.poisson_nll_loss"(input=%x0, target=%x1, log_input=True, full=True) : (tensor<i32>, tensor<2x3x4xf16>) -> tensor<f16>
      output %0 : tensor<f16>
    }
  }
}
