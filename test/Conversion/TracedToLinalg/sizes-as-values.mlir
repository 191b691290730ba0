// Sizes as values (issue 50): a graph traced concretely with dynamic "seq"
// and "past" dims, whose size reads (`call_method size`) and int arithmetic
// feed arange, full, triu, slices, cat, matmul and expand. Each lowers with
// its sizes computed at run time: scalar arith on the traced ints, tensor.dim
// of the operands, Python's slice clamping, and run-time checks where torch
// would raise.
// RUN: traced-opt %s --convert-traced-to-linalg --canonicalize | FileCheck %s

// CHECK-DAG: #[[MAPB:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[IDS:[^:]*]]: tensor<1x?xi64>, %[[K:[^:]*]]: tensor<2x?x4xf32>)
// The sizes, and P + T, are plain scalars.
// CHECK:         %[[T:.*]] = tensor.dim %[[IDS]], %c1
// CHECK:         %[[TI:.*]] = arith.index_cast %[[T]] : index to i64
// CHECK:         %[[P:.*]] = tensor.dim %[[K]], %c1
// CHECK:         %[[PI:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK:         %[[S:.*]] = arith.addi %[[PI]], %[[TI]] : i64
// arange(P, S): S - P elements, P + i each.
// CHECK:         cf.assert %{{.*}}, "{{.*}}: 'torch.arange': upper bound and larger bound inconsistent with step sign"
// CHECK:         tensor.empty(%[[T]]) : tensor<?xi64>
// CHECK:         linalg.index 0
// CHECK:         arith.addi %[[PI]],
// full((T, S)).triu(P + 1): a fill sized at run time, then a mask from
// linalg.index against the traced diagonal.
// CHECK:         cf.assert %{{.*}}, "{{.*}}: 'torch.full': negative dimension"
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x?xf32>)
// CHECK:         %[[DIAG:.*]] = arith.addi %[[PI]], %c1_i64 : i64
// CHECK:         linalg.generic {{.*}} ins(%[[FILL]] : tensor<?x?xf32>)
// CHECK:           arith.subi
// CHECK:           arith.cmpi sge, %{{.*}}, %[[DIAG]] : i64
// k[:, -T:]: a negative traced bound, clamped as Python does.
// CHECK:         arith.subi %c0_i64, %[[TI]] : i64
// CHECK:         arith.maxsi
// CHECK:         arith.minsi
// CHECK:         %[[TAIL:.*]] = tensor.extract_slice %[[K]][0, %{{.*}}, 0] [2, %[[N:.*]], 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<2x?x4xf32>
// cat: the sum of the parts' sizes, each inserted at its running offset.
// CHECK:         %[[TOTAL:.*]] = arith.addi %{{.*}}, %[[N]] : index
// CHECK:         tensor.empty(%[[TOTAL]]) : tensor<2x?x4xf32>
// CHECK:         tensor.insert_slice %[[K]] into
// CHECK:         tensor.insert_slice %[[TAIL]] into
// A batched matmul with dynamic M and N, reading the transposed operand's
// rows as its columns (no transpose is materialized).
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.batch_matmul indexing_maps = [#{{[^,]*}}, #[[MAPB]], #{{[^]]*}}] ins(%{{.*}}, %[[CAT:.*]] : tensor<2x?x4xf32>, tensor<2x?x4xf32>) outs(%{{.*}} : tensor<2x?x?xf32>)

module {
  traced.module root @M class "__main__.M" {
    attribute @training : i1 = True
    graph @forward(%self: !traced.module<@M>, %ids: tensor<1x?xi64> {traced.dim_names = ["", "seq"]}, %k: tensor<2x?x4xf32> {traced.dim_names = ["", "past", ""]}) -> (tensor<2x?x?xf32>, tensor<?xi64>, tensor<2x2x?x4xf32>) {
      %size_out = call_method %ids["size"](dim=1) : (tensor<1x?xi64>) -> i64
      %size_out_0 = call_method %k["size"](dim=1) : (tensor<2x?x4xf32>) -> i64
      %add_out = call_function "operator.add"(input=%size_out_0, other=%size_out) : (i64, i64) -> i64
      %arange_out = call_function "torch.arange"(start=%size_out_0, end=%add_out) : (i64, i64) -> tensor<?xi64>
      %full_out = call_function "torch.full"(size=[%size_out, %add_out], fill_value=float("-inf")) : (i64, i64) -> tensor<?x?xf32>
      %add_out_1 = call_function "operator.add"(input=%size_out_0, other=1) : (i64) -> i64
      %triu_out = call_method %full_out["triu"](diagonal=%add_out_1) : (tensor<?x?xf32>, i64) -> tensor<?x?xf32>
      %neg_out = call_function "operator.neg"(input=%size_out) : (i64) -> i64
      %getitem_out = call_method %k["__getitem__"](index=(slice(None, None, None), slice(%neg_out, None, None))) : (tensor<2x?x4xf32>, i64) -> tensor<2x?x4xf32>
      %cat_out = call_function "torch.cat"(tensors=[%k, %getitem_out], dim=1) : (tensor<2x?x4xf32>, tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
      %getitem_out_2 = call_method %cat_out["__getitem__"](index=(slice(None, None, None), slice(%size_out_0, %add_out, None))) : (tensor<2x?x4xf32>, i64, i64) -> tensor<2x?x4xf32>
      %transpose_out = call_method %cat_out["transpose"](dim0=1, dim1=2) : (tensor<2x?x4xf32>) -> tensor<2x4x?xf32>
      %matmul_out = call_function "torch.matmul"(input=%getitem_out_2, other=%transpose_out) : (tensor<2x?x4xf32>, tensor<2x4x?xf32>) -> tensor<2x?x?xf32>
      %add_out_3 = call_method %matmul_out["add"](other=%triu_out) : (tensor<2x?x?xf32>, tensor<?x?xf32>) -> tensor<2x?x?xf32>
      %getitem_out_4 = call_method %getitem_out_2["__getitem__"](index=None) : (tensor<2x?x4xf32>) -> tensor<1x2x?x4xf32>
      %expand_out = call_method %getitem_out_4["expand"](size=[2, -1, -1, -1]) : (tensor<1x2x?x4xf32>) -> tensor<2x2x?x4xf32>
      output %add_out_3, %arange_out, %expand_out : tensor<2x?x?xf32>, tensor<?xi64>, tensor<2x2x?x4xf32>
    }
  }
}
