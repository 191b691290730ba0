// A donated input whose old value is read after the update cannot be
// updated in place: bufferization computes the output into its own buffer,
// which the caller's one buffer could not be. traced-cpu-check-donations
// reports it at the entry, naming the input.
// RUN: not traced-opt %s --traced-cpu-pipeline="donate=0:1" -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
// CHECK: error: input 1 ('cache') is donated to output 1, but bufferization could not update it in place: its old value is read after the write, or the output is not computed from it (compile without donating it)
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %cache: tensor<6x4xf32>, %k: tensor<2x4xf32>) -> (tensor<f32>, tensor<6x4xf32>) {
    %new = call_method %cache["__setitem__"](index=slice(1, 3, None), value=%k) : (tensor<6x4xf32>, tensor<2x4xf32>) -> tensor<6x4xf32>
    %twice = call_function "operator.mul"(input=%cache, other=2) : (tensor<6x4xf32>) -> tensor<6x4xf32>
    %sum = call_method %twice["sum"]() : (tensor<6x4xf32>) -> tensor<f32>
    output %sum, %new : tensor<f32>, tensor<6x4xf32>
  }
}
