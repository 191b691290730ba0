// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by the compile-refusal rule: vector_norm's decomposition
// took ord=True for no number (torch takes a bool order as 1 or 0).
module attributes {fuzz.inputs = [dense<-1.500000e+00> : tensor<1x1xf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1x1xf16>) -> tensor<f16> {
      %vector_norm_out = call_function "torch.linalg.vector_norm"(input=%x0, ord=True) : (tensor<1x1xf16>) -> tensor<f16>
      output %vector_norm_out : tensor<f16>
    }
  }
}
