// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found by the fuzz smoke at 53ed411: the decomposition of
// fused_moving_avg_obs_fake_quant sliced its 0-d flag, scale and zero
// point tensors ([:1]); a 0-d one is read as it is.
module attributes {fuzz.inputs = [dense<-1.500000e+00> : tensor<f32>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
      %lerp_out = call_function "torch.lerp"(input=%x0, end=%x0, weight=%x0) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %fused_moving_avg_obs_fake_quant_out = call_function "torch.fused_moving_avg_obs_fake_quant"(input=%lerp_out, observer_on=%x0, fake_quant_on=%lerp_out, running_min=%x0, running_max=%lerp_out, scale=%lerp_out, zero_point=%x0, averaging_const=1.0, quant_min=-1, quant_max=2, ch_axis=0, symmetric_quant=False) : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
      output %lerp_out, %fused_moving_avg_obs_fake_quant_out : tensor<f32>, tensor<f32>
    }
  }
}
