// RUN: traced-opt %s | FileCheck %s
// RUN: traced-opt %s --mlir-print-op-generic | traced-opt | FileCheck %s

// Graphs keep their input names; `self` comes first.

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  // CHECK-NEXT:    output %y, %x : tensor<2xf32>, tensor<2xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    output %y, %x : tensor<2xf32>, tensor<2xf32>
  }

  // A second method; inputs may be Python values.
  // CHECK-LABEL: graph @helper(%self: !traced.module<@M>, %n: i64, %flag: i1) -> i64
  // CHECK-NEXT:    output %n : i64
  graph @helper(%self: !traced.module<@M>, %n: i64, %flag: i1) -> i64 {
    output %n : i64
  }

  // Unnamed inputs print with `self` as the only name.
  // CHECK-LABEL: graph @unnamed(%self: !traced.module<@M>, %arg0: tensor<f32>)
  // CHECK-NEXT:    output{{$}}
  graph @unnamed(%0: !traced.module<@M>, %1: tensor<f32>) {
    output
  }

  // Argument and result attributes and extra attributes survive.
  // CHECK-LABEL: graph @attrs(%self: !traced.module<@M>, %x: tensor<f32> {traced.note = "in"}) -> (tensor<f32> {traced.note = "out"}) attributes {traced.origin = "fx"}
  graph @attrs(%self: !traced.module<@M>, %x: tensor<f32> {traced.note = "in"}) -> (tensor<f32> {traced.note = "out"}) attributes {traced.origin = "fx"} {
    output %x : tensor<f32>
  }
}
