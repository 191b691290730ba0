// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 5230aaa (ab9fd0d^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[[2, 0, -3], [-4, -2, 2], [5, 5, 5]], [[-3, 6, 3], [-1, -5, -4], [3, 5, -5]], [[-3, -3, 6], [5, 5, -1], [-2, 0, -2]]]> : tensor<3x3x3xi32>, dense<[[250], [6], [252]]> : tensor<3x1xui8>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x3x3xi32>, %x1: tensor<3x1xui8>) -> tensor<3x3x3xi32> {
      %default_out = call_function "torch.ops.aten.threshold_backward.default"(grad_output=%x1, input=%x0, threshold=-1.75) : (tensor<3x1xui8>, tensor<3x3x3xi32>) -> tensor<3x3x3xi32>
      output %default_out : tensor<3x3x3xi32>
    }
  }
}
