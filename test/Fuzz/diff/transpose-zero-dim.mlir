// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 62162d6 (50c6555^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<253> : tensor<ui8>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<ui8>) -> (tensor<ui8>, tensor<ui8>) {
      %squeeze_out = call_function "torch.squeeze"(input=%x0) : (tensor<ui8>) -> tensor<ui8>
      %transpose_out = call_function "torch.transpose"(input=%x0, dim0=0, dim1=-1) : (tensor<ui8>) -> tensor<ui8>
      output %squeeze_out, %transpose_out : tensor<ui8>, tensor<ui8>
    }
  }
}
