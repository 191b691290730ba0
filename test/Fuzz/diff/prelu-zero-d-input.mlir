// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// The finding prelu-weight-dtype.mlir with a weight of the input's dtype (written
// by hand from it): the decomposition broadcast the 0-d input to the weight's [1].
module attributes {fuzz.inputs = [dense<7.500000e-01> : tensor<1xf64>, dense<-4.500000e+00> : tensor<f64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1xf64>, %x1: tensor<f64>) -> tensor<f64> {
      %prelu_out = call_function "torch.nn.functional.prelu"(input=%x1, weight=%x0) : (tensor<f64>, tensor<1xf64>) -> tensor<f64>
      output %prelu_out : tensor<f64>
    }
  }
}
