// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found by the fuzz smoke at 01ce271 (stream diff-smoke-s0062, after the op
// table grew by the quantized entries): binary_cross_entropy of float16
// compiled to a float16 log, which the op library refuses; it is now widened
// to float32 as torch computes it.
module attributes {fuzz.inputs = [dense<-2.250000e+00> : tensor<1xf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1xf16>) -> (tensor<f16>, tensor<f16>) {
      %smooth_l1_loss_out = call_function "torch.nn.functional.smooth_l1_loss"(input=%x0, target=%x0, size_average=True) : (tensor<1xf16>, tensor<1xf16>) -> tensor<f16>
      %binary_cross_entropy_out = call_function "torch.nn.functional.binary_cross_entropy"(input=%smooth_l1_loss_out, target=%smooth_l1_loss_out, size_average=True, reduce=False) : (tensor<f16>, tensor<f16>) -> tensor<f16>
      output %smooth_l1_loss_out, %binary_cross_entropy_out : tensor<f16>, tensor<f16>
    }
  }
}
