// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at eb239c0 (0f6d8f2^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[-2], [5], [-1]]> : tensor<3x1xi64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x1xi64>) -> (tensor<3x1xi1>, tensor<3x3xi64>, tensor<3x1xi64>) {
      %threshold_out = call_function "torch.nn.functional.threshold"(input=%x0, threshold=1.25, value=-0.25) : (tensor<3x1xi64>) -> tensor<3x1xi64>
      %isfinite_out = call_function "torch.isfinite"(input=%threshold_out) : (tensor<3x1xi64>) -> tensor<3x1xi1>
      %linear_out = call_function "torch.nn.functional.linear"(input=%threshold_out, weight=%x0, bias=%x0) : (tensor<3x1xi64>, tensor<3x1xi64>, tensor<3x1xi64>) -> tensor<3x3xi64>
      %relu_out = call_function "torch.nn.functional.relu"(input=%x0, inplace=False) : (tensor<3x1xi64>) -> tensor<3x1xi64>
      output %isfinite_out, %linear_out, %relu_out : tensor<3x1xi1>, tensor<3x3xi64>, tensor<3x1xi64>
    }
  }
}
