// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 1acaca1 (42c71ee^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<true> : tensor<1x1xi1>, dense<[[7.500000e-01], [3.750000e+00], [0.000000e+00]]> : tensor<3x1xbf16>, dense<-4.500000e+00> : tensor<f64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1x1xi1>, %x1: tensor<3x1xbf16>, %x2: tensor<f64>) -> (tensor<3x1xbf16>, tensor<f64>, tensor<f64>) {
      %silu_out = call_function "torch.nn.functional.silu"(input=%x1) : (tensor<3x1xbf16>) -> tensor<3x1xbf16>
      %default_out = call_function "torch.ops.aten.softplus_backward.default"(grad_output=%x2, input=%x2, beta=True, threshold=-1.25) : (tensor<f64>, tensor<f64>) -> tensor<f64>
      %smooth_l1_loss_out = call_function "torch.nn.functional.smooth_l1_loss"(input=%default_out, target=%x1) : (tensor<f64>, tensor<3x1xbf16>) -> tensor<f64>
      output %silu_out, %default_out, %smooth_l1_loss_out : tensor<3x1xbf16>, tensor<f64>, tensor<f64>
    }
  }
}
