// RUN: traced-opt %s | FileCheck %s

// Every traced type, and the builtin types traced values use, as graph
// inputs and outputs.

traced.module root @Types class "__main__.Types" {
  // CHECK-LABEL: graph @forward
  // CHECK-SAME: %self: !traced.module<@Types>
  // CHECK-SAME: %none: !traced.none
  // CHECK-SAME: %str: !traced.str
  // CHECK-SAME: %obj: !traced.object
  // CHECK-SAME: %list: !traced.list<tensor<2xf32>>
  // CHECK-SAME: %nested: !traced.list<!traced.list<i64>>
  // CHECK-SAME: %tuple: tuple<i64, f64, i1>
  // CHECK-SAME: %t16: tensor<1x?xf16>
  // CHECK-SAME: %tbf: tensor<*xbf16>
  // CHECK-SAME: %ti32: tensor<4xi32>
  // CHECK-SAME: %tb: tensor<i1>
  // CHECK-SAME: %q: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  graph @forward(%self: !traced.module<@Types>, %none: !traced.none, %str: !traced.str, %obj: !traced.object, %list: !traced.list<tensor<2xf32>>, %nested: !traced.list<!traced.list<i64>>, %tuple: tuple<i64, f64, i1>, %t16: tensor<1x?xf16>, %tbf: tensor<*xbf16>, %ti32: tensor<4xi32>, %tb: tensor<i1>, %q: tensor<2x!quant.uniform<i8:f32, 0.5:3>>) -> !traced.module<@Types> {
    output %self : !traced.module<@Types>
  }
}
