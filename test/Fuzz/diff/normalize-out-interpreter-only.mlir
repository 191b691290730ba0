// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by the compile-refusal rule: F.normalize with out= has no
// compiled form; the op library now marks such calls interpreter-only.
module attributes {fuzz.inputs = [dense<true> : tensor<1xi1>, dense<[[[-3.750000e+00, 3.750000e+00, -2.250000e+00, -4.500000e+00]], [[3.000000e+00, 1.500000e+00, -3.000000e+00, 7.500000e-01]]]> : tensor<2x1x4xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1xi1>, %x1: tensor<2x1x4xf64>) -> tensor<2x1x4xf64> {
      %normalize_out = call_function "torch.nn.functional.normalize"(input=%x1, eps=0.0, out=%x1) : (tensor<2x1x4xf64>, tensor<2x1x4xf64>) -> tensor<2x1x4xf64>
      output %normalize_out : tensor<2x1x4xf64>
    }
  }
}
