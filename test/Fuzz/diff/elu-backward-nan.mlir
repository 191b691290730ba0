// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 7d7e4c2 (d46caea^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[0.000000e+00, 0.000000e+00, 0.000000e+00, -3.000000e+00], [-4.500000e+00, 3.750000e+00, 0.000000e+00, -3.000000e+00], [-2.250000e+00, 0.000000e+00, -3.750000e+00, -3.750000e+00]]> : tensor<3x4xbf16>, dense<[[3.000000e+00], [-3.000000e+00], [0.000000e+00]]> : tensor<3x1xf64>, dense<1.500000e+00> : tensor<bf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x4xbf16>, %x1: tensor<3x1xf64>, %x2: tensor<bf16>) -> (tensor<3x4xbf16>, tensor<3x4xbf16>) {
      %atanh_out = call_function "torch.atanh"(input=%x0) : (tensor<3x4xbf16>) -> tensor<3x4xbf16>
      %default_out = call_function "torch.ops.aten.elu_backward.default"(grad_output=%x0, alpha=0, scale=False, input_scale=-1, is_result=False, self_or_result=%atanh_out) : (tensor<3x4xbf16>, tensor<3x4xbf16>) -> tensor<3x4xbf16>
      output %atanh_out, %default_out : tensor<3x4xbf16>, tensor<3x4xbf16>
    }
  }
}
