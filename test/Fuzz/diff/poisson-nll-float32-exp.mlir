// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 81e7965 (fe81142^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[[-7.500000e-01, 0.000000e+00, -7.500000e-01, 1.500000e+00], [-3.000000e+00, 1.500000e+00, 1.500000e+00, 1.500000e+00], [1.500000e+00, 4.500000e+00, 3.000000e+00, 3.000000e+00]], [[0.000000e+00, -2.250000e+00, 3.000000e+00, 0.000000e+00], [3.000000e+00, -7.500000e-01, 7.500000e-01, -2.250000e+00], [-7.500000e-01, 2.250000e+00, -4.500000e+00, 2.250000e+00]]]> : tensor<2x3x4xf64>, dense<[[-7.500000e-01], [0.000000e+00], [-3.750000e+00]]> : tensor<3x1xf32>, dense<-2> : tensor<1xi32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<2x3x4xf64>, %x1: tensor<3x1xf32>, %x2: tensor<1xi32>) -> tensor<2x3x4xf64> {
      %poisson_nll_loss_out = call_function "torch.nn.functional.poisson_nll_loss"(input=%x1, target=%x0, eps=-1.25, reduce=False) : (tensor<3x1xf32>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
      output %poisson_nll_loss_out : tensor<2x3x4xf64>
    }
  }
}
