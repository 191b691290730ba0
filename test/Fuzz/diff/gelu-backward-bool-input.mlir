// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 0c0094f (60bf813^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<5> : tensor<i64>, dense<[[[-4.500000e+00], [-7.500000e-01], [-4.500000e+00]]]> : tensor<1x3x1xf64>, dense<[[true, true, false], [true, true, true], [true, true, true]]> : tensor<3x3xi1>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<i64>, %x1: tensor<1x3x1xf64>, %x2: tensor<3x3xi1>) -> tensor<1x3x3xf64> {
      %default_out = call_function "torch.ops.aten.gelu_backward.default"(grad_output=%x1, input=%x2) : (tensor<1x3x1xf64>, tensor<3x3xi1>) -> tensor<1x3x3xf64>
      output %default_out : tensor<1x3x3xf64>
    }
  }
}
