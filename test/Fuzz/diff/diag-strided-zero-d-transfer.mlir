// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by the compile-refusal rule: a 0-d vector.transfer_read of the
// diag's strided view reached the LLVM translation as an unrealized_conversion_cast.
module attributes {fuzz.inputs = [dense<[[2, 252, 254, 250]]> : tensor<1x4xui8>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<1x4xui8>) -> tensor<f32> {
      %diag_out = call_function "torch.diag"(input=%x0) : (tensor<1x4xui8>) -> tensor<1xui8>
      %exp2_out = call_function "torch.exp2"(input=%diag_out) : (tensor<1xui8>) -> tensor<1xf32>
      %l1_loss_out = call_function "torch.nn.functional.l1_loss"(input=%x0, target=%exp2_out) : (tensor<1x4xui8>, tensor<1xf32>) -> tensor<f32>
      output %l1_loss_out : tensor<f32>
    }
  }
}
