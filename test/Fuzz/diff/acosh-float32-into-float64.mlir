// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 2f41a0b (399cee4^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[[254, 5, 2], [254, 6, 6], [6, 6, 6]], [[6, 6, 6], [6, 6, 6], [6, 6, 6]], [[6, 6, 2], [2, 2, 2], [2, 2, 2]]]> : tensor<3x3x3xui8>, dense<[[2, 2, 2], [2, 6, 6], [6, 6, 6]]> : tensor<3x3xui8>, dense<4.500000e+00> : tensor<1x3x1xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x3x3xui8>, %x1: tensor<3x3xui8>, %x2: tensor<1x3x1xf64>) -> (tensor<3x3x3xf32>, tensor<3x3x3xf64>, tensor<3x3x3xf64>) {
      %default_out = call_function "torch.ops.aten.elu_backward.default"(grad_output=%x2, alpha=True, scale=True, input_scale=False, is_result=True, self_or_result=%x2) : (tensor<1x3x1xf64>, tensor<1x3x1xf64>) -> tensor<1x3x1xf64>
      %acosh_out = call_function "torch.acosh"(input=%x0) : (tensor<3x3x3xui8>) -> tensor<3x3x3xf32>
      %addcdiv_out = call_function "torch.addcdiv"(input=%x2, tensor1=%default_out, tensor2=%acosh_out) : (tensor<1x3x1xf64>, tensor<1x3x1xf64>, tensor<3x3x3xf32>) -> tensor<3x3x3xf64>
      %clone_out = call_function "torch.clone"(input=%addcdiv_out) : (tensor<3x3x3xf64>) -> tensor<3x3x3xf64>
      output %acosh_out, %addcdiv_out, %clone_out : tensor<3x3x3xf32>, tensor<3x3x3xf64>, tensor<3x3x3xf64>
    }
  }
}
