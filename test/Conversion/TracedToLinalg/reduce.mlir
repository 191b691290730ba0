// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// sum over one dimension: a generic with that dimension a reduction,
// accumulating into a zero-filled tensor without it.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[EMPTY:.+]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<2x4xf32>)
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[ACC]] : tensor<2x4xf32>)
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f32, %[[O:[a-zA-Z0-9_]+]]: f32):
// CHECK: %[[S:.+]] = arith.addf %[[IN]], %[[O]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[Y]] : tensor<2x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
    %y = call_function "torch.sum"(input=%x, dim=1) : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
    output %y : tensor<2x4xf32>
  }
}

// -----

// mean over dims [-1, 1] with keepdim: the sum is divided by 12 (as torch
// does: sum(...).div_(n)) and expanded back to rank 3.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[OUT]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<2xf32>)
// CHECK: arith.addf
// CHECK: %[[MEAN:.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[SUM]] : tensor<2xf32>)
// CHECK: %[[N:.+]] = arith.constant 1.200000e+01 : f32
// CHECK: arith.divf %{{.+}}, %[[N]] : f32
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[MEAN]] {{\[}}[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
// CHECK: return %[[Y]] : tensor<2x1x1xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
    %y = call_function "torch.mean"(input=%x, dim=[-1, 1], keepdim=True) : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
    output %y : tensor<2x1x1xf32>
  }
}

// -----

// sum with keepdim over dimension 0.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>) -> tensor<1x3xf32>
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[OUT]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[SUM]] {{\[}}[0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK: return %[[Y]] : tensor<1x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<1x3xf32> {
    %y = call_function "torch.sum"(input=%x, dim=0, keepdim=True) : (tensor<2x3xf32>) -> tensor<1x3xf32>
    output %y : tensor<1x3xf32>
  }
}

// -----

// sum over everything: a 0-D result.
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3x4xf32>) -> tensor<f32>
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[OUT]]], iterator_types = ["reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<f32>)
// CHECK: return %[[Y]] : tensor<f32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4xf32>) -> tensor<f32> {
    %y = call_function "torch.sum"(input=%x) : (tensor<2x3x4xf32>) -> tensor<f32>
    output %y : tensor<f32>
  }
}

// -----

// The sum of bools is an int64: the input (bools stored as 0/1 bytes) is
// extended first.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xi8>) -> tensor<i64>
// CHECK-SAME: traced.entry = (tensor<2x3xi1>) -> tensor<i64>
// CHECK: %[[EXT:.+]] = linalg.generic {{.+}} ins(%[[X]] : tensor<2x3xi8>) outs(%{{.+}} : tensor<2x3xi64>)
// CHECK: arith.cmpi ne, %{{.+}}, %{{.+}} : i8
// CHECK: arith.extui %{{.+}} : i1 to i64
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK: linalg.fill ins(%[[ZERO]] : i64)
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "reduction"]} ins(%[[EXT]] : tensor<2x3xi64>) outs(%{{.+}} : tensor<i64>)
// CHECK: arith.addi
// CHECK: return %[[Y]] : tensor<i64>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xi1>) -> tensor<i64> {
    %y = call_function "torch.sum"(input=%x) : (tensor<2x3xi1>) -> tensor<i64>
    output %y : tensor<i64>
  }
}

// -----

// softmax along the last dimension: max-reduction from -inf, shifted,
// exp, sum-reduction, division; the reduced tensors are read back with
// (d0, d1) -> (d0).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MINIT:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<2xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>) outs(%[[MINIT]] : tensor<2xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SH:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<2x3xf32>, tensor<2xf32>)
// CHECK: arith.subf
// CHECK: %[[EXP:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[SH]] : tensor<2x3xf32>)
// CHECK: math.exp
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<2x3xf32>)
// CHECK: arith.addf
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[EXP]], %[[SUM]] : tensor<2x3xf32>, tensor<2xf32>)
// CHECK: arith.divf
// CHECK: return %[[Y]] : tensor<2x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %y = call_function "torch.nn.functional.softmax"(input=%x, dim=-1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    output %y : tensor<2x3xf32>
  }
}

// -----

// log_softmax along dimension 0: shifted - log(sum(exp(shifted))).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SH:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK: %[[EXP:.+]] = linalg.generic {{.+}} ins(%[[SH]] : tensor<2x3xf32>)
// CHECK: math.exp
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["reduction", "parallel"]} ins(%[[EXP]] : tensor<2x3xf32>)
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[SH]], %[[SUM]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK: ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[S:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[L:.+]] = math.log %[[S]] : f32
// CHECK: %[[R:.+]] = arith.subf %[[A]], %[[L]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK: return %[[Y]] : tensor<2x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %y = call_function "torch.nn.functional.log_softmax"(input=%x, dim=0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    output %y : tensor<2x3xf32>
  }
}
