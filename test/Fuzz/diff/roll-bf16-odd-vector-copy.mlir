// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at 8208140 (5230aaa^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
module attributes {fuzz.inputs = [dense<[[-4.500000e+00, 4.500000e+00, -1.500000e+00, 2.250000e+00], [-7.500000e-01, -7.500000e-01, 7.500000e-01, -3.750000e+00], [-4.500000e+00, 3.750000e+00, -3.000000e+00, -4.500000e+00]]> : tensor<3x4xbf16>, dense<1.500000e+00> : tensor<f16>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x4xbf16>, %x1: tensor<f16>) -> tensor<3x4xbf16> {
      %fmod_out = call_function "torch.fmod"(input=%x1, other=True) : (tensor<f16>) -> tensor<f16>
      %fill_out = call_function "torch.fill"(input=%fmod_out, value=2) : (tensor<f16>) -> tensor<f16>
      %roll_out = call_function "torch.roll"(input=%x0, shifts=[3]) : (tensor<3x4xbf16>) -> tensor<3x4xbf16>
      output %roll_out : tensor<3x4xbf16>
    }
  }
}
