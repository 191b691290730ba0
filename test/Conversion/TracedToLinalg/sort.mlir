// RUN: traced-opt %s --convert-traced-to-linalg | FileCheck %s

// sort along a dim calls the sort runtime (docs/linalg-runtime.md): the
// keys widened to f64 into a fresh buffer, the runtime writes each slice's
// positions in torch's order (here order 1, std::sort's, descending 0,
// k = size = 4 over 2 slices), its status is checked, and a generic
// gathers the values at those positions. Each getitem lowers the sort it
// reads (as for chunk and max-pool indices; nothing merges the two copies
// yet).
// CHECK: func.func private @traced_sort_order_f64_memref(memref<?xf64>, memref<?xi64>, i64, i64, i64, i64, i64, i64) -> i32
// CHECK-LABEL: func.func @forward(
// CHECK: %[[KEYS:.+]] = linalg.generic
// CHECK: arith.extf %{{.+}} : f32 to f64
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<8xi64>
// CHECK: %[[STATUS:.+]] = call @traced_sort_order_f64_memref(%{{.+}}, %{{.+}}, %c2_i64, %c4_i64, %c1_i64, %c4_i64_{{[0-9]+}}, %c0_i64, %c1_i64_{{[0-9]+}})
// CHECK: %[[IDX:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: cf.assert %{{.+}}, "{{.+}}'torch.sort': the sort runtime failed"
// CHECK: %[[VALUES:.+]] = linalg.generic
// CHECK: tensor.extract %arg0
// CHECK: call @traced_sort_order_f64_memref
// CHECK: return %[[VALUES]], %{{.+}} : tensor<2x4xf32>, tensor<2x4xi64>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>) {
    %p = call_function "torch.sort"(%x) : (tensor<2x4xf32>) -> tuple<tensor<2x4xf32>, tensor<2x4xi64>>
    %v = call_function "operator.getitem"(%p, 0) : (tuple<tensor<2x4xf32>, tensor<2x4xi64>>) -> tensor<2x4xf32>
    %i = call_function "operator.getitem"(%p, 1) : (tuple<tensor<2x4xf32>, tensor<2x4xi64>>) -> tensor<2x4xi64>
    output %v, %i : tensor<2x4xf32>, tensor<2x4xi64>
  }
}
