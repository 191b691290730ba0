// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// Contractions become linalg.matmul / linalg.batch_matmul on 2-D / 3-D views
// of their operands.

// linear with a constant weight: the weight is transposed at compile time
// into a new (3x4) constant that feeds the matmul; the bias is a broadcast
// add along the last dimension.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>) -> tensor<2x4xf32>
// CHECK-DAG: %[[B:.+]] = arith.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK-DAG: %[[WT:.+]] = arith.constant dense_resource<[[BLOB:[a-z_0-9]+]]> : tensor<3x4xf32>
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[EMPTY:.+]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[X]], %[[WT]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[ACC]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[MM]], %[[B]] : tensor<2x4xf32>, tensor<4xf32>)
// CHECK: arith.addf
// CHECK: return %[[Y]] : tensor<2x4xf32>
// The transposed blob: rows of w.T, i.e. 1, 4, 7, 10, 2, 5, 8, 11, ...
// (little-endian f32, after the 4-byte alignment header).
// CHECK: [[BLOB]]: "0x08000000
// CHECK-SAME: 0000803F000080400000E04000002041
// CHECK-SAME: 000000400000A0400000004100003041
// CHECK-SAME: 000040400000C0400000104100004041"
traced.module root @M class "m.M" {
  parameter @w : tensor<4x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
  parameter @b : tensor<4xf32> = dense<0.5> : tensor<4xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<2x4xf32> {
    %w = getattr %self["w"] : !traced.module<@M> -> tensor<4x3xf32>
    %b = getattr %self["b"] : !traced.module<@M> -> tensor<4xf32>
    %y = call_function "torch.nn.functional.linear"(input=%x, weight=%w, bias=%b) : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    output %y : tensor<2x4xf32>
  }
}

// -----

// linear with a weight that is not a constant: a linalg.transpose; the
// leading dimensions of the input are collapsed into the matmul's rows.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<5x2x3xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x3xf32>) -> tensor<5x2x4xf32>
// CHECK-DAG: %[[X2:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<5x2x3xf32> into tensor<10x3xf32>
// CHECK-DAG: %[[WT:.+]] = linalg.transpose ins(%[[W]] : tensor<4x3xf32>) outs(%{{.+}} : tensor<3x4xf32>) permutation = [1, 0]
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[X2]], %[[WT]] : tensor<10x3xf32>, tensor<3x4xf32>) outs(%{{.+}} : tensor<10x4xf32>)
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [5, 2, 4] : tensor<10x4xf32> into tensor<5x2x4xf32>
// CHECK: return %[[Y]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<5x2x3xf32>, %w: tensor<4x3xf32>) -> tensor<5x2x4xf32> {
    %y = call_function "torch.nn.functional.linear"(input=%x, weight=%w) : (tensor<5x2x3xf32>, tensor<4x3xf32>) -> tensor<5x2x4xf32>
    output %y : tensor<5x2x4xf32>
  }
}

// -----

// matmul 3-D x 2-D: one matmul over the collapsed rows.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: tensor<5x2x3xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<3x4xf32>) -> tensor<5x2x4xf32>
// CHECK: %[[A2:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<5x2x3xf32> into tensor<10x3xf32>
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<10x4xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A2]], %[[B]] : tensor<10x3xf32>, tensor<3x4xf32>) outs(%[[ACC]] : tensor<10x4xf32>) -> tensor<10x4xf32>
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [5, 2, 4] : tensor<10x4xf32> into tensor<5x2x4xf32>
// CHECK: return %[[Y]] : tensor<5x2x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<5x2x3xf32>, %b: tensor<3x4xf32>) -> tensor<5x2x4xf32> {
    %y = call_function "torch.matmul"(input=%a, other=%b) : (tensor<5x2x3xf32>, tensor<3x4xf32>) -> tensor<5x2x4xf32>
    output %y : tensor<5x2x4xf32>
  }
}

// -----

// bmm.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: tensor<5x2x3xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[EMPTY:.+]] = tensor.empty() : tensor<5x2x4xf32>
// CHECK: %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<5x2x4xf32>)
// CHECK: %[[Y:.+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<5x2x3xf32>, tensor<5x3x4xf32>) outs(%[[ACC]] : tensor<5x2x4xf32>) -> tensor<5x2x4xf32>
// CHECK: return %[[Y]] : tensor<5x2x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
    %y = call_function "torch.bmm"(input=%a, mat2=%b) : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
    output %y : tensor<5x2x4xf32>
  }
}

// -----

// baddbmm = beta * input + alpha * (batch1 @ batch2), decomposed into
// bmm, mul and add (whose lowerings fuse later).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[C:[a-zA-Z0-9_]+]]: tensor<5x2x4xf32>, %[[A:[a-zA-Z0-9_]+]]: tensor<5x2x3xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<5x3x4xf32>)
// CHECK: %[[P:.+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<5x2x3xf32>, tensor<5x3x4xf32>) outs(%{{.+}} : tensor<5x2x4xf32>)
// CHECK: %[[Z:.+]] = linalg.generic {{.+}} ins(%[[P]] : tensor<5x2x4xf32>)
// CHECK: arith.constant 2.000000e+00 : f32
// CHECK: %[[X:.+]] = linalg.generic {{.+}} ins(%[[C]] : tensor<5x2x4xf32>)
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[Z]] : tensor<5x2x4xf32>, tensor<5x2x4xf32>)
// CHECK: arith.addf
// CHECK: return %[[Y]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %c: tensor<5x2x4xf32>, %a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
    %y = call_function "torch.baddbmm"(input=%c, batch1=%a, batch2=%b, beta=0.5, alpha=2.0) : (tensor<5x2x4xf32>, tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
    output %y : tensor<5x2x4xf32>
  }
}

// -----

// matmul 4-D x 3-D: the batch dimensions broadcast (a copy generic), then
// one batch_matmul over the collapsed batch.
// CHECK-DAG: #[[BCAST:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-DAG: #[[ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: tensor<2x5x2x3xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<5x3x4xf32>) -> tensor<2x5x2x4xf32>
// CHECK: %[[A3:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2], [3]] : tensor<2x5x2x3xf32> into tensor<10x2x3xf32>
// CHECK: %[[BB:.+]] = linalg.generic {indexing_maps = [#[[BCAST]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[B]] : tensor<5x3x4xf32>) outs(%{{.+}} : tensor<2x5x3x4xf32>)
// CHECK: %[[B3:.+]] = tensor.collapse_shape %[[BB]] {{\[}}[0, 1], [2], [3]] : tensor<2x5x3x4xf32> into tensor<10x3x4xf32>
// CHECK: %[[MM:.+]] = linalg.batch_matmul ins(%[[A3]], %[[B3]] : tensor<10x2x3xf32>, tensor<10x3x4xf32>) outs(%{{.+}} : tensor<10x2x4xf32>)
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2], [3]] output_shape [2, 5, 2, 4] : tensor<10x2x4xf32> into tensor<2x5x2x4xf32>
// CHECK: return %[[Y]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<2x5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<2x5x2x4xf32> {
    %y = call_function "torch.matmul"(input=%a, other=%b) : (tensor<2x5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<2x5x2x4xf32>
    output %y : tensor<2x5x2x4xf32>
  }
}

// -----

// matmul of vectors: 1-D operands become rows / columns and the result is
// reshaped back (to a 0-D tensor for a dot product).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: tensor<3xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<3xf32>, %[[M:[a-zA-Z0-9_]+]]: tensor<3x4xf32>)
// CHECK: %[[ROW:.+]] = tensor.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK: %[[COL:.+]] = tensor.expand_shape %[[B]] {{\[}}[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
// CHECK: %[[DOT:.+]] = linalg.matmul ins(%[[ROW]], %[[COL]] : tensor<1x3xf32>, tensor<3x1xf32>) outs(%{{.+}} : tensor<1x1xf32>)
// CHECK: %[[S:.+]] = tensor.collapse_shape %[[DOT]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK: %[[VM:.+]] = linalg.matmul ins(%{{.+}}, %[[M]] : tensor<1x3xf32>, tensor<3x4xf32>) outs(%{{.+}} : tensor<1x4xf32>)
// CHECK: %[[V:.+]] = tensor.collapse_shape %[[VM]] {{\[}}[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
// CHECK: return %[[S]], %[[V]] : tensor<f32>, tensor<4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3x4xf32>) -> (tensor<f32>, tensor<4xf32>) {
    %y = call_function "torch.matmul"(input=%a, other=%b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
    %z = call_function "torch.matmul"(input=%a, other=%m) : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
    output %y, %z : tensor<f32>, tensor<4xf32>
  }
}

// -----

// Element 0 of multi_head_attention_forward: three projections, scaled
// scores, softmax and the output projection.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x1x4xf32>, %[[WI:[a-zA-Z0-9_]+]]: tensor<12x4xf32>, %[[BI:[a-zA-Z0-9_]+]]: tensor<12xf32>, %[[WO:[a-zA-Z0-9_]+]]: tensor<4x4xf32>, %[[BO:[a-zA-Z0-9_]+]]: tensor<4xf32>) -> tensor<2x1x4xf32>
// CHECK: tensor.extract_slice %[[WI]][0, 0] [4, 4] [1, 1] : tensor<12x4xf32> to tensor<4x4xf32>
// CHECK: tensor.extract_slice %[[BI]][0] [4] [1] : tensor<12xf32> to tensor<4xf32>
// CHECK: linalg.matmul
// CHECK: tensor.extract_slice %[[WI]][4, 0] [4, 4] [1, 1]
// CHECK: linalg.matmul
// CHECK: tensor.extract_slice %[[WI]][8, 0] [4, 4] [1, 1]
// CHECK: linalg.matmul
// 1 / sqrt(head_dim = 2)
// CHECK: arith.constant 0.70710{{[0-9]+}} : f32
// CHECK: %[[SCORES:.+]] = linalg.batch_matmul ins({{.+}} : tensor<2x2x2xf32>, tensor<2x2x2xf32>)
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: linalg.batch_matmul
// CHECK: linalg.transpose ins(%[[WO]] : tensor<4x4xf32>)
// CHECK: linalg.matmul
// CHECK: %[[OUT:.+]] = tensor.expand_shape {{.+}} into tensor<2x1x4xf32>
// CHECK: return %[[OUT]] : tensor<2x1x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x1x4xf32>, %wi: tensor<12x4xf32>, %bi: tensor<12xf32>, %wo: tensor<4x4xf32>, %bo: tensor<4xf32>) -> tensor<2x1x4xf32> {
    %0 = call_function "torch.nn.functional.multi_head_attention_forward"(%x, %x, %x, 4, 2, %wi, %bi, None, None, False, 0.0, %wo, %bo, training=False, need_weights=False) : (tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<12x4xf32>, tensor<12xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tuple<tensor<2x1x4xf32>, !traced.none>
    %1 = call_function "operator.getitem"(%0, 0) : (tuple<tensor<2x1x4xf32>, !traced.none>) -> tensor<2x1x4xf32>
    output %1 : tensor<2x1x4xf32>
  }
}

// -----

// Masks join the scores seen as (N, H, L, S) before the softmax: a float
// attn_mask (L, S) is added; a bool key_padding_mask (N, S), stored as i8,
// adds -inf where it is set.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[M:[a-zA-Z0-9_]+]]: tensor<2x3xf32>, %[[P:[a-zA-Z0-9_]+]]: tensor<1x3xi8>,
// CHECK: %[[SCORES:.+]] = linalg.batch_matmul
// CHECK: %[[S4:.+]] = tensor.expand_shape %[[SCORES]] {{.+}} into tensor<1x2x2x3xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}]
// CHECK-SAME: ins(%[[S4]], %[[M]], %[[P]] : tensor<1x2x2x3xf32>, tensor<2x3xf32>, tensor<1x3xi8>)
// CHECK: %[[SET:.+]] = arith.cmpf une
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: arith.select %[[SET]], %[[NEGINF]]
// CHECK: math.exp
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x1x4xf32>, %wi: tensor<12x4xf32>, %bi: tensor<12xf32>, %wo: tensor<4x4xf32>, %bo: tensor<4xf32>, %mask: tensor<2x3xf32>, %pad: tensor<1x3xi1>, %kv: tensor<3x1x4xf32>) -> tensor<2x1x4xf32> {
    %0 = call_function "torch.nn.functional.multi_head_attention_forward"(%x, %kv, %kv, 4, 2, %wi, %bi, None, None, False, 0.0, %wo, %bo, training=False, key_padding_mask=%pad, need_weights=False, attn_mask=%mask) : (tensor<2x1x4xf32>, tensor<3x1x4xf32>, tensor<3x1x4xf32>, tensor<12x4xf32>, tensor<12xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<1x3xi1>, tensor<2x3xf32>) -> tuple<tensor<2x1x4xf32>, !traced.none>
    %1 = call_function "operator.getitem"(%0, 0) : (tuple<tensor<2x1x4xf32>, !traced.none>) -> tensor<2x1x4xf32>
    output %1 : tensor<2x1x4xf32>
  }
}
