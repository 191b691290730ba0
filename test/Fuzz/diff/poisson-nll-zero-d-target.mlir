// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at a222757 (e05025f^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[-2.250000e+00, 0.000000e+00, -3.750000e+00, -3.750000e+00], [-2.250000e+00, -4.500000e+00, -4.500000e+00, -3.750000e+00], [-3.000000e+00, -3.000000e+00, 0.000000e+00, 1.500000e+00]]> : tensor<3x4xf64>, dense<3.750000e+00> : tensor<f64>, dense<[[6, 3, 3, 255]]> : tensor<1x4xui8>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x4xf64>, %x1: tensor<f64>, %x2: tensor<1x4xui8>) -> tensor<f32> {
      %poisson_nll_loss_out = call_function "torch.nn.functional.poisson_nll_loss"(input=%x2, target=%x1, log_input=False, full=False, size_average=False, reduce=True) : (tensor<1x4xui8>, tensor<f64>) -> tensor<f32>
      output %poisson_nll_loss_out : tensor<f32>
    }
  }
}
