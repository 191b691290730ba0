// RUN: traced-opt %s | FileCheck %s

// A module with several methods: forward calls a helper method on `self`,
// and the call is checked against the helper's signature.

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>) -> tensor<4xf32> {
    // CHECK: %helper_out = call_method %self["helper"](%x, scale=%const) : (!traced.module<@M>, tensor<4xf32>, f64) -> tensor<4xf32>
    %c = constant 2.0 : f64
    %0 = call_method %self["helper"](%x, scale=%c) : (!traced.module<@M>, tensor<4xf32>, f64) -> tensor<4xf32>
    output %0 : tensor<4xf32>
  }
  // CHECK-LABEL: graph @helper
  graph @helper(%self: !traced.module<@M>, %x: tensor<4xf32>, %scale: f64) -> tensor<4xf32> {
    %0 = call_method %x["__mul__"](%scale) : (tensor<4xf32>, f64) -> tensor<4xf32>
    output %0 : tensor<4xf32>
  }
}
