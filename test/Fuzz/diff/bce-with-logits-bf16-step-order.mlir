// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 9e892d4 (eee7bc9^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<-1.500000e+00> : tensor<3xbf16>, dense<-1.500000e+00> : tensor<3xbf16>, dense<-1.500000e+00> : tensor<3xbf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3xbf16>, %x1: tensor<3xbf16>, %x2: tensor<3xbf16>) -> tensor<bf16> {
      %binary_cross_entropy_with_logits_out = call_function "torch.nn.functional.binary_cross_entropy_with_logits"(input=%x2, target=%x2) : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<bf16>
      %binary_cross_entropy_with_logits_out_0 = call_function "torch.nn.functional.binary_cross_entropy_with_logits"(input=%x1, target=%x1) : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<bf16>
      %binary_cross_entropy_with_logits_out_1 = call_function "torch.nn.functional.binary_cross_entropy_with_logits"(input=%binary_cross_entropy_with_logits_out, target=%binary_cross_entropy_with_logits_out) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
      %binary_cross_entropy_with_logits_out_2 = call_function "torch.nn.functional.binary_cross_entropy_with_logits"(input=%binary_cross_entropy_with_logits_out_1, target=%binary_cross_entropy_with_logits_out_1) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
      output %binary_cross_entropy_with_logits_out_2 : tensor<bf16>
    }
  }
}
