// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Built by fuzz-diff from the finding's choice stream with the entry names
// of the op table at d46caea (63445fd^) (TRACED_FUZZ_OPS), which builds the graph of the
// finding again: it calls the entry the file is named for.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: of bools with a number bound: torch 1.13 has no CPU kernel for it
module attributes {fuzz.inputs = [dense<true> : tensor<1x4xi1>, dense<true> : tensor<3x3xi1>, dense<2> : tensor<1xi64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1x4xi1>, %x1: tensor<3x3xi1>, %x2: tensor<1xi64>) -> (tensor<3x3xi1>, tensor<1x4xf32>) {
      %clamp_max_out = call_function "torch.clamp_max"(input=%x1, max=False) : (tensor<3x3xi1>) -> tensor<3x3xi1>
      %clamp_min_out = call_function "torch.clamp_min"(input=%x0, min=1.25) : (tensor<1x4xi1>) -> tensor<1x4xf32>
      output %clamp_max_out, %clamp_min_out : tensor<3x3xi1>, tensor<1x4xf32>
    }
  }
}
