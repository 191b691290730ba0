// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by the compile-refusal rule: the lowering refused torch.roll
// of a 0-d tensor, which torch and the interpreter roll onto itself.
module attributes {fuzz.inputs = [dense<2> : tensor<ui8>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<ui8>) -> (tensor<i1>, tensor<ui8>) {
      %isclose_out = call_function "torch.isclose"(input=%x0, other=%x0) : (tensor<ui8>, tensor<ui8>) -> tensor<i1>
      %roll_out = call_function "torch.roll"(input=%x0, shifts=[2]) : (tensor<ui8>) -> tensor<ui8>
      output %isclose_out, %roll_out : tensor<i1>, tensor<ui8>
    }
  }
}
