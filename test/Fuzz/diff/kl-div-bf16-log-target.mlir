// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 9ce29e7 (0a3f923^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[0.000000e+00, 3.750000e+00, -4.500000e+00, 0.000000e+00], [0.000000e+00, -3.000000e+00, 0.000000e+00, -2.250000e+00], [-3.000000e+00, 0.000000e+00, -3.750000e+00, -3.750000e+00]]> : tensor<3x4xbf16>, dense<-3.000000e+00> : tensor<f64>, dense<-3.000000e+00> : tensor<bf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x4xbf16>, %x1: tensor<f64>, %x2: tensor<bf16>) -> (tensor<f64>, tensor<f64>) {
      %prelu_out = call_function "torch.nn.functional.prelu"(input=%x1, weight=%x1) : (tensor<f64>, tensor<f64>) -> tensor<f64>
      %clamp_out = call_function "torch.clamp"(input=%prelu_out, min=%prelu_out, max=0.75) : (tensor<f64>, tensor<f64>) -> tensor<f64>
      %kl_div_out = call_function "torch.nn.functional.kl_div"(input=%prelu_out, target=%x2, log_target=True) : (tensor<f64>, tensor<bf16>) -> tensor<f64>
      output %clamp_out, %kl_div_out : tensor<f64>, tensor<f64>
    }
  }
}
