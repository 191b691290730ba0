// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at eca5d4c (bd05a5b^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<254> : tensor<ui8>, dense<[[-7.500000e-01], [-7.500000e-01], [-4.500000e+00]]> : tensor<3x1xbf16>, dense<-3.000000e+00> : tensor<1xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<ui8>, %x1: tensor<3x1xbf16>, %x2: tensor<1xf64>) -> (tensor<i1>, tensor<f32>) {
      %isneginf_out = call_function "torch.isneginf"(input=%x0) : (tensor<ui8>) -> tensor<i1>
      %isnan_out = call_function "torch.isnan"(input=%x0) : (tensor<ui8>) -> tensor<i1>
      %logit_out = call_function "torch.logit"(input=%x0) : (tensor<ui8>) -> tensor<f32>
      output %isnan_out, %logit_out : tensor<i1>, tensor<f32>
    }
  }
}
