// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 145b0a0 (bfef9ec^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<7.500000e-01> : tensor<f16>, dense<[7.500000e-01, 1.500000e+00, -4.500000e+00, -1.500000e+00]> : tensor<4xbf16>, dense<[[1.500000e+00], [-7.500000e-01], [-1.500000e+00]]> : tensor<3x1xf32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<f16>, %x1: tensor<4xbf16>, %x2: tensor<3x1xf32>) -> (tensor<4xbf16>, tensor<3x4xf32>) {
      %default_out = call_function "torch.ops.aten.gelu_backward.default"(grad_output=%x1, input=%x1) : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
      %celu_out = call_function "torch.nn.functional.celu"(input=%default_out) : (tensor<4xbf16>) -> tensor<4xbf16>
      %maximum_out = call_function "torch.maximum"(input=%x2, other=%default_out) : (tensor<3x1xf32>, tensor<4xbf16>) -> tensor<3x4xf32>
      output %celu_out, %maximum_out : tensor<4xbf16>, tensor<3x4xf32>
    }
  }
}
