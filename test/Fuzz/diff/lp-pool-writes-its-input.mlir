// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 9475a46 (81e7965^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[[1.500000e+00, -7.500000e-01, 1.500000e+00, 3.750000e+00]], [[3.750000e+00, 3.750000e+00, 3.750000e+00, 3.750000e+00]]]> : tensor<2x1x4xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<2x1x4xf64>) -> (tensor<2x1x1xf64>, tensor<2x1x1xf64>, tensor<2x1x1xi1>) {
      %avg_pool1d_out = call_function "torch.nn.functional.avg_pool1d"(input=%x0, kernel_size=[3]) : (tensor<2x1x4xf64>) -> tensor<2x1x1xf64>
      %lp_pool2d_out = call_function "torch.nn.functional.lp_pool2d"(input=%avg_pool1d_out, norm_type=-2.0, kernel_size=[1, 1]) : (tensor<2x1x1xf64>) -> tensor<2x1x1xf64>
      %logical_not_out = call_function "torch.logical_not"(input=%lp_pool2d_out) : (tensor<2x1x1xf64>) -> tensor<2x1x1xi1>
      output %avg_pool1d_out, %lp_pool2d_out, %logical_not_out : tensor<2x1x1xf64>, tensor<2x1x1xf64>, tensor<2x1x1xi1>
    }
  }
}
