// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by the smoke run (the compile-refusal rule): the
// interpreter took a uint8 index in torch.index_select, which torch 1.13
// refuses ("Expected dtype int32 or int64 for index"), and the compiler's
// decomposition to aten.index could not type it.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: must be a 0-d or 1-d int32 or int64 tensor
module attributes {fuzz.inputs = [dense<[3, 0, 1, 2]> : tensor<4xui8>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<4xui8>) -> tensor<4xui8> {
      %0 = call_function "torch.sign"(input=%x0) : (tensor<4xui8>) -> tensor<4xui8>
      %1 = call_function "torch.index_select"(input=%x0, dim=-1, index=%0) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
      output %1 : tensor<4xui8>
    }
  }
}
