// RUN: traced-opt %s -split-input-file -verify-diagnostics

// A call's traced.dim_names names its results' `?` dims: one array per
// result, each empty or one string per dim, non-empty only where the dim
// is dynamic.

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x?xf32> {traced.dim_names = ["", "n"]}) -> tensor<1x?xf32> {
    // expected-error @below {{'traced.dim_names' names dim 0 of result #0 ('n'), which is static}}
    %r = call_function "torch.relu"(input=%x) {traced.dim_names = [["n", ""]]} : (tensor<1x?xf32>) -> tensor<1x?xf32>
    output %r : tensor<1x?xf32>
  }
}

// -----

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x?xf32> {traced.dim_names = ["", "n"]}) -> tensor<1x?xf32> {
    // expected-error @below {{'traced.dim_names' of result #0 must hold one string per dim of 'tensor<1x?xf32>'}}
    %r = call_function "torch.relu"(input=%x) {traced.dim_names = [["n"]]} : (tensor<1x?xf32>) -> tensor<1x?xf32>
    output %r : tensor<1x?xf32>
  }
}

// -----

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x?xf32> {traced.dim_names = ["", "n"]}) -> tensor<1x?xf32> {
    // expected-error @below {{'traced.dim_names' must hold one array per result}}
    %r = call_function "torch.relu"(input=%x) {traced.dim_names = ["", "n"]} : (tensor<1x?xf32>) -> tensor<1x?xf32>
    output %r : tensor<1x?xf32>
  }
}

// -----

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x?xf32> {traced.dim_names = ["", "n"]}) -> tensor<1x?xf32> {
    // expected-error @below {{'traced.dim_names' of result #0 must be an array of strings}}
    %r = call_function "torch.relu"(input=%x) {traced.dim_names = [["", 3]]} : (tensor<1x?xf32>) -> tensor<1x?xf32>
    output %r : tensor<1x?xf32>
  }
}
