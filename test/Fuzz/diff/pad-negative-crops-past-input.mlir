// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by the compile-refusal rule (the lowering refused the crop):
// torch raises too (its narrow by the negative pad fails); the interpreter computed.
// NO-ROUND-TRIP (round_trip.py). The fix was a refusal; the verifier refuses it now: the negative pads (-2, 2) crop more than the 1 elements of dim 2
module attributes {fuzz.inputs = [dense<[[[251]], [[250]], [[251]], [[5]]]> : tensor<4x1x1xui8>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<4x1x1xui8>) -> tensor<4x1x1xui8> {
      %pad_out = call_function "torch.nn.functional.pad"(input=%x0, pad=[-2, 2]) : (tensor<4x1x1xui8>) -> tensor<4x1x1xui8>
      %floor_out = call_function "torch.floor"(input=%pad_out) : (tensor<4x1x1xui8>) -> tensor<4x1x1xui8>
      output %floor_out : tensor<4x1x1xui8>
    }
  }
}
