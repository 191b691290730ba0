// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by the compile-refusal rule: the _weight_norm decomposition
// took the norm of a 1-D v over an empty dim list (every dim) and failed to type.
module attributes {fuzz.inputs = [dense<-3.750000e+00> : tensor<bf16>, dense<[3.000000e+00, -3.750000e+00, -3.750000e+00, 3.750000e+00]> : tensor<4xbf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<bf16>, %x1: tensor<4xbf16>) -> tensor<4xbf16> {
      %weight_norm_out = call_function "torch._weight_norm"(v=%x1, g=%x1) : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
      output %weight_norm_out : tensor<4xbf16>
    }
  }
}
