// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by the deterministic smoke run (stream 378, once the
// layer_norm fix made it build this graph): torch.logaddexp of two bools,
// which the interpreter computed in float32; torch 1.13 has logaddexp and
// logaddexp2 for floating dtypes only ("logaddexp_cpu" not implemented for
// 'Bool', and for the integer dtypes).
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: computes in bool, which is not supported
module attributes {fuzz.inputs = [dense<true> : tensor<i1>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<i1>) -> tensor<f32> {
      %0 = call_function "torch.logaddexp"(input=%x0, other=%x0) : (tensor<i1>, tensor<i1>) -> tensor<f32>
      output %0 : tensor<f32>
    }
  }
}
