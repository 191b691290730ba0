// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 5e68a41 (8ef98f7^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[-1.500000e+00, -3.750000e+00, -1.500000e+00, 1.500000e+00]> : tensor<4xf16>, dense<[[[3.000000e+00, 2.250000e+00, 0.000000e+00, -4.500000e+00], [7.500000e-01, 1.500000e+00, -4.500000e+00, 0.000000e+00], [-4.500000e+00, -4.500000e+00, -3.750000e+00, 7.500000e-01]], [[4.500000e+00, 2.250000e+00, 1.500000e+00, 3.000000e+00], [0.000000e+00, 1.500000e+00, 0.000000e+00, -7.500000e-01], [0.000000e+00, -7.500000e-01, 3.000000e+00, 7.500000e-01]]]> : tensor<2x3x4xf64>, dense<true> : tensor<1x1xi1>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<4xf16>, %x1: tensor<2x3x4xf64>, %x2: tensor<1x1xi1>) -> (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xi1>) {
      %clone_out = call_function "torch.clone"(input=%x1) : (tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
      %default_out = call_function "torch.ops.aten.sigmoid_backward.default"(grad_output=%x0, output=%clone_out) : (tensor<4xf16>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
      %fmin_out = call_function "torch.fmin"(input=%default_out, other=%clone_out) : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
      %signbit_out = call_function "torch.signbit"(input=%fmin_out) : (tensor<2x3x4xf64>) -> tensor<2x3x4xi1>
      output %default_out, %fmin_out, %signbit_out : tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xi1>
    }
  }
}
