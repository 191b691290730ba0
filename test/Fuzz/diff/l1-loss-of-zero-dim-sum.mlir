// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at ae0e80b (eca5d4c^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<-3.750000e+00> : tensor<bf16>, dense<4> : tensor<i32>, dense<[[-3.750000e+00, -4.500000e+00, 1.500000e+00], [2.250000e+00, 1.500000e+00, 3.000000e+00], [1.500000e+00, -2.250000e+00, -1.500000e+00]]> : tensor<3x3xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<bf16>, %x1: tensor<i32>, %x2: tensor<3x3xf64>) -> tensor<f64> {
      %l1_loss_out = call_function "torch.nn.functional.l1_loss"(input=%x1, target=%x0, size_average=False) : (tensor<i32>, tensor<bf16>) -> tensor<bf16>
      %mean_out = call_function "torch.mean"(input=%x2, dim=[1]) : (tensor<3x3xf64>) -> tensor<3xf64>
      %isposinf_out = call_function "torch.isposinf"(input=%x1) : (tensor<i32>) -> tensor<i1>
      %l1_loss_out_0 = call_function "torch.nn.functional.l1_loss"(input=%mean_out, target=%l1_loss_out) : (tensor<3xf64>, tensor<bf16>) -> tensor<f64>
      output %l1_loss_out_0 : tensor<f64>
    }
  }
}
