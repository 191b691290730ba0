// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 17c9feb (cac09e1^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[-7.500000e-01, 7.500000e-01, 4.500000e+00], [-4.500000e+00, 0.000000e+00, -4.500000e+00], [0.000000e+00, 1.500000e+00, 3.000000e+00]]> : tensor<3x3xbf16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x3xbf16>) -> tensor<3xbf16> {
      %logsumexp_out = call_function "torch.logsumexp"(input=%x0, dim=[-2]) : (tensor<3x3xbf16>) -> tensor<3xbf16>
      %matmul_out = call_function "torch.matmul"(input=%x0, other=%x0) : (tensor<3x3xbf16>, tensor<3x3xbf16>) -> tensor<3x3xbf16>
      %layer_norm_out = call_function "torch.nn.functional.layer_norm"(input=%matmul_out, normalized_shape=[3]) : (tensor<3x3xbf16>) -> tensor<3x3xbf16>
      %expm1_out = call_function "torch.expm1"(input=%logsumexp_out) : (tensor<3xbf16>) -> tensor<3xbf16>
      output %expm1_out : tensor<3xbf16>
    }
  }
}
