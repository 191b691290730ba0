// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 3e43e71 (48ffc52^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<2> : tensor<i64>, dense<[[[6, 2, 2, 2], [2, 2, 250, 252], [6, 3, 1, 4]], [[1, 6, 2, 2], [2, 255, 3, 6], [254, 253, 4, 1]]]> : tensor<2x3x4xui8>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<i64>, %x1: tensor<2x3x4xui8>) -> (tensor<f32>, tensor<f32>, tensor<i64>) {
      %sinc_out = call_function "torch.sinc"(input=%x0) : (tensor<i64>) -> tensor<f32>
      %sinc_out_0 = call_function "torch.sinc"(input=%x0) : (tensor<i64>) -> tensor<f32>
      %log10_out = call_function "torch.log10"(input=%sinc_out_0) : (tensor<f32>) -> tensor<f32>
      %clamp_max_out = call_function "torch.clamp_max"(input=%x0, max=%x0) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      output %sinc_out_0, %log10_out, %clamp_max_out : tensor<f32>, tensor<f32>, tensor<i64>
    }
  }
}
