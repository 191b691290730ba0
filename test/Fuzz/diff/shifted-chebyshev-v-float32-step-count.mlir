// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// shifted_chebyshev_polynomial_v(x, erfcx(x)): n = 1.8e7 steps of the recurrence counted in
// float32 never ended (a float32 counter stops at 2^24); the count is now exact.
module attributes {fuzz.inputs = [dense<[[1, 5, 6, -3], [2, 5, -4, -4], [-2, 0, -4, 0]]> : tensor<3x4xi32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x4xi32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
      %erfcx_out = call_function "torch.special.erfcx"(input=%x0) : (tensor<3x4xi32>) -> tensor<3x4xf32>
      %shifted_chebyshev_polynomial_v_out = call_function "torch.special.shifted_chebyshev_polynomial_v"(input=%x0, n=%erfcx_out) : (tensor<3x4xi32>, tensor<3x4xf32>) -> tensor<3x4xf32>
      output %erfcx_out, %shifted_chebyshev_polynomial_v_out : tensor<3x4xf32>, tensor<3x4xf32>
    }
  }
}
