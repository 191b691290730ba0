// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 4a3b336 (145b0a0^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[1.500000e+00, 1.500000e+00, 1.500000e+00, 1.500000e+00], [1.500000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-3.000000e+00, -4.500000e+00, -2.250000e+00, -4.500000e+00]]> : tensor<3x4xbf16>, dense<4.500000e+00> : tensor<f64>, dense<-7.500000e-01> : tensor<bf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x4xbf16>, %x1: tensor<f64>, %x2: tensor<bf16>) -> (tensor<bf16>, tensor<bf16>) {
      %kl_div_out = call_function "torch.nn.functional.kl_div"(input=%x0, target=%x1, reduce=True, log_target=False) : (tensor<3x4xbf16>, tensor<f64>) -> tensor<bf16>
      %std_out = call_function "torch.std"(input=%kl_div_out, unbiased=True, keepdim=False) : (tensor<bf16>) -> tensor<bf16>
      output %kl_div_out, %std_out : tensor<bf16>, tensor<bf16>
    }
  }
}
