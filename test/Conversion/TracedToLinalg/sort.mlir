// RUN: traced-opt %s --convert-traced-to-linalg | FileCheck %s

// sort along a dim is two generics: a rank count (a reduction over the
// sorted dim comparing every pair; NaN compares as the largest) and a
// gather by rank yielding the values and the indices. Each getitem lowers
// the sort it reads (as for chunk and max-pool indices; nothing merges the
// two copies yet).
// CHECK-LABEL: func.func @forward(
// CHECK: %[[RANKS:.+]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf olt
// CHECK: %[[SORTED:.+]]:2 = linalg.generic
// CHECK-SAME: ins(%[[RANKS]], %{{.+}} : tensor<2x4xi64>, tensor<2x4xf32>)
// CHECK: %[[SORTED2:.+]]:2 = linalg.generic
// CHECK: return %[[SORTED]]#0, %[[SORTED2]]#1
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>) {
    %p = call_function "torch.sort"(%x) : (tensor<2x4xf32>) -> tuple<tensor<2x4xf32>, tensor<2x4xi64>>
    %v = call_function "operator.getitem"(%p, 0) : (tuple<tensor<2x4xf32>, tensor<2x4xi64>>) -> tensor<2x4xf32>
    %i = call_function "operator.getitem"(%p, 1) : (tuple<tensor<2x4xf32>, tensor<2x4xi64>>) -> tensor<2x4xi64>
    output %v, %i : tensor<2x4xf32>, tensor<2x4xi64>
  }
}
