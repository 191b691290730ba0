// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at bb8c2f3 (72e4e2c^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[[3]], [[2]], [[3]], [[5]]]> : tensor<4x1x1xui8>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<4x1x1xui8>) -> (tensor<4x1x1xf32>, tensor<4x1x1xf32>) {
      %logit_out = call_function "torch.logit"(input=%x0) : (tensor<4x1x1xui8>) -> tensor<4x1x1xf32>
      %relu_out = call_function "torch.nn.functional.relu"(input=%logit_out) : (tensor<4x1x1xf32>) -> tensor<4x1x1xf32>
      %default_out = call_function "torch.ops.aten.hardtanh_backward.default"(grad_output=%relu_out, input=%relu_out, min_val=-1, max_val=True) : (tensor<4x1x1xf32>, tensor<4x1x1xf32>) -> tensor<4x1x1xf32>
      output %relu_out, %default_out : tensor<4x1x1xf32>, tensor<4x1x1xf32>
    }
  }
}
