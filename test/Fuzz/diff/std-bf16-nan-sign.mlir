// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 0c3f512 (5e68a41^^^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[[-2.250000e+00], [1.500000e+00], [3.000000e+00]]]> : tensor<1x3x1xbf16>, dense<-4.500000e+00> : tensor<bf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1x3x1xbf16>, %x1: tensor<bf16>) -> tensor<i1> {
      %std_out = call_function "torch.std"(input=%x1, unbiased=True) : (tensor<bf16>) -> tensor<bf16>
      %signbit_out = call_function "torch.signbit"(input=%std_out) : (tensor<bf16>) -> tensor<i1>
      output %signbit_out : tensor<i1>
    }
  }
}
