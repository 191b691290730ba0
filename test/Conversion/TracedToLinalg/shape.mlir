// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// flatten: a tensor.collapse_shape.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
// CHECK-NEXT: %[[Y:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2, 3]] : tensor<2x3x4x5xf32> into tensor<2x60xf32>
// CHECK-NEXT: return %[[Y]] : tensor<2x60xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4x5xf32>) -> tensor<2x60xf32> {
    %y = call_function "torch.flatten"(input=%x, start_dim=1) : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
    output %y : tensor<2x60xf32>
  }
}

// -----

// view / reshape: collapse_shape when dimensions merge; a reshape that
// neither merges nor splits goes through one dimension.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x12xf32>, tensor<4x6xf32>)
// CHECK-DAG: %[[A:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-DAG: %[[B:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
// CHECK-DAG: %[[FLAT:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[C:.+]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<6x4xf32>, tensor<2x12xf32>, tensor<4x6xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x12xf32>, tensor<4x6xf32>) {
    %a = call_method %x["view"](6, 4) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
    %b = call_function "torch.reshape"(input=%x, shape=[2, -1]) : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    %c = call_method %x["reshape"](4, 6) : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
    output %a, %b, %c : tensor<6x4xf32>, tensor<2x12xf32>, tensor<4x6xf32>
  }
}

// -----

// permute and transpose (with a negative dim): linalg.transpose.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x4x3xf32>)
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: %[[P:.+]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[E0]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<2x4x3xf32>
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[E1]] : tensor<2x4x3xf32>) permutation = [0, 2, 1]
// CHECK: return %[[P]], %[[T]] : tensor<4x2x3xf32>, tensor<2x4x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x4x3xf32>) {
    %a = call_function "torch.permute"(input=%x, dims=[2, 0, 1]) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    %b = call_function "torch.transpose"(input=%x, dim0=1, dim1=-1) : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
    output %a, %b : tensor<4x2x3xf32>, tensor<2x4x3xf32>
  }
}

// -----

// unsqueeze and squeeze: expand_shape / collapse_shape.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>) -> (tensor<2x1x3xf32>, tensor<2x3xf32>)
// CHECK: %[[U:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [2, 1, 3] : tensor<2x3xf32> into tensor<2x1x3xf32>
// CHECK: %[[S:.+]] = tensor.collapse_shape %[[U]] {{\[}}[0], [1, 2]] : tensor<2x1x3xf32> into tensor<2x3xf32>
// CHECK: return %[[U]], %[[S]] : tensor<2x1x3xf32>, tensor<2x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> (tensor<2x1x3xf32>, tensor<2x3xf32>) {
    %y = call_function "torch.unsqueeze"(input=%x, dim=1) : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
    %z = call_method %y["squeeze"](1) : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
    output %y, %z : tensor<2x1x3xf32>, tensor<2x3xf32>
  }
}

// -----

// cat along the last dimension: a chain of tensor.insert_slice into one
// tensor.empty, at the running offsets 0, 3 and 8.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<2x5xf32>) -> tensor<2x11xf32>
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x11xf32>
// CHECK: %[[I0:.+]] = tensor.insert_slice %[[X]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x11xf32>
// CHECK: %[[I1:.+]] = tensor.insert_slice %[[Y]] into %[[I0]][0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x11xf32>
// CHECK: %[[I2:.+]] = tensor.insert_slice %[[X]] into %[[I1]][0, 8] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x11xf32>
// CHECK: return %[[I2]] : tensor<2x11xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>, %y: tensor<2x5xf32>) -> tensor<2x11xf32> {
    %z = call_function "torch.cat"(tensors=[%x, %y, %x], dim=-1) : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
    output %z : tensor<2x11xf32>
  }
}

// -----

// stack: each part gets the new dimension, then the parts are inserted.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>) -> tensor<2x2x3xf32>
// CHECK-DAG: %[[P0:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [2, 1, 3] : tensor<2x3xf32> into tensor<2x1x3xf32>
// CHECK-DAG: %[[P1:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [2, 1, 3] : tensor<2x3xf32> into tensor<2x1x3xf32>
// CHECK-DAG: %[[E:.+]] = tensor.empty() : tensor<2x2x3xf32>
// CHECK: %[[I0:.+]] = tensor.insert_slice %{{.+}} into %[[E]][0, 0, 0] [2, 1, 3] [1, 1, 1] : tensor<2x1x3xf32> into tensor<2x2x3xf32>
// CHECK: %[[I1:.+]] = tensor.insert_slice %{{.+}} into %[[I0]][0, 1, 0] [2, 1, 3] [1, 1, 1] : tensor<2x1x3xf32> into tensor<2x2x3xf32>
// CHECK: return %[[I1]] : tensor<2x2x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<2x2x3xf32> {
    %s = call_function "torch.stack"(tensors=[%x, %x], dim=1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2x3xf32>
    output %s : tensor<2x2x3xf32>
  }
}

// -----

// expand: a broadcasting copy (the size-1 dimension is read at index 0).
// CHECK-DAG: #[[BCAST:.+]] = affine_map<(d0, d1, d2) -> (0, d1, d2)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x3xf32>) -> tensor<4x2x3xf32>
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[BCAST]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<1x2x3xf32>) outs(%{{.+}} : tensor<4x2x3xf32>)
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: return %[[Y]] : tensor<4x2x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x3xf32>) -> tensor<4x2x3xf32> {
    %e = call_method %x["expand"](4, -1, -1) : (tensor<1x2x3xf32>) -> tensor<4x2x3xf32>
    output %e : tensor<4x2x3xf32>
  }
}

// -----

// getitem with basic indexing: tensor.extract_slice with the slice bounds
// (an int index takes a size-1 slice that is then collapsed away; None
// adds a dimension; Ellipsis keeps the middle dimension whole).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x6x8xf32>) -> (tensor<4x8xf32>, tensor<2x6x3xf32>, tensor<1x6x8xf32>)
// x[:, 2]
// CHECK: %[[S0:.+]] = tensor.extract_slice %[[X]][0, 2, 0] [4, 1, 8] [1, 1, 1] : tensor<4x6x8xf32> to tensor<4x1x8xf32>
// CHECK: %[[A:.+]] = tensor.collapse_shape %[[S0]] {{\[}}[0], [1, 2]] : tensor<4x1x8xf32> into tensor<4x8xf32>
// x[1:3, ..., 1::3]
// CHECK: %[[B:.+]] = tensor.extract_slice %[[X]][1, 0, 1] [2, 6, 3] [1, 1, 3] : tensor<4x6x8xf32> to tensor<2x6x3xf32>
// x[None, -1]
// CHECK: %[[C:.+]] = tensor.extract_slice %[[X]][3, 0, 0] [1, 6, 8] [1, 1, 1] : tensor<4x6x8xf32> to tensor<1x6x8xf32>
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<4x8xf32>, tensor<2x6x3xf32>, tensor<1x6x8xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4x6x8xf32>) -> (tensor<4x8xf32>, tensor<2x6x3xf32>, tensor<1x6x8xf32>) {
    %a = call_function "operator.getitem"(input=%x, index=(slice(None, None, None), 2)) : (tensor<4x6x8xf32>) -> tensor<4x8xf32>
    %b = call_function "operator.getitem"(input=%x, index=(slice(1, 3, None), ..., slice(1, None, 3))) : (tensor<4x6x8xf32>) -> tensor<2x6x3xf32>
    %c = call_function "operator.getitem"(input=%x, index=(None, -1)) : (tensor<4x6x8xf32>) -> tensor<1x6x8xf32>
    output %a, %b, %c : tensor<4x8xf32>, tensor<2x6x3xf32>, tensor<1x6x8xf32>
  }
}

// -----

// chunk + getitem: the chunk itself is not lowered; each element read is a
// tensor.extract_slice (7 columns in 3 chunks: [0, 3), [3, 6), [6, 7)).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x7xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK: %[[A:.+]] = tensor.extract_slice %[[X]][0, 3] [2, 3] [1, 1] : tensor<2x7xf32> to tensor<2x3xf32>
// CHECK: %[[B:.+]] = tensor.extract_slice %[[X]][0, 6] [2, 1] [1, 1] : tensor<2x7xf32> to tensor<2x1xf32>
// CHECK: return %[[A]], %[[B]] : tensor<2x3xf32>, tensor<2x1xf32>
// CHECK-NOT: chunk
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x7xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>) {
    %c = call_function "torch.chunk"(input=%x, chunks=3, dim=1) : (tensor<2x7xf32>) -> tuple<tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>>
    %a = call_function "operator.getitem"(input=%c, index=1) : (tuple<tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>>) -> tensor<2x3xf32>
    %b = call_function "operator.getitem"(input=%c, index=-1) : (tuple<tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>>) -> tensor<2x1xf32>
    output %a, %b : tensor<2x3xf32>, tensor<2x1xf32>
  }
}

// -----

// Shape queries of static shapes (size, dim, getattr "shape") are
// compile-time values: x.size(1) = 3 and x.dim() = 2 become constants in the
// elementwise bodies, and viewing as x.shape is the identity.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[A:.+]] = linalg.generic {{.+}} ins(%[[X]] : tensor<2x3xf32>)
// CHECK: %[[THREE:.+]] = arith.constant 3.000000e+00 : f32
// CHECK: arith.addf %{{.+}}, %[[THREE]] : f32
// CHECK: %[[M:.+]] = linalg.generic {{.+}} ins(%[[A]] : tensor<2x3xf32>)
// CHECK: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: arith.mulf %{{.+}}, %[[TWO]] : f32
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: tensor.collapse_shape
// CHECK: return %[[M]] : tensor<2x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %n = call_method %x["size"](1) : (tensor<2x3xf32>) -> i64
    %s = call_function "builtins.getattr"(%x, "shape") : (tensor<2x3xf32>) -> tuple<i64, i64>
    %d = call_method %x["dim"]() : (tensor<2x3xf32>) -> i64
    %y = call_function "torch.add"(input=%x, other=%n) : (tensor<2x3xf32>, i64) -> tensor<2x3xf32>
    %z = call_function "torch.mul"(input=%y, other=%d) : (tensor<2x3xf32>, i64) -> tensor<2x3xf32>
    %v = call_method %z["view"](%s) : (tensor<2x3xf32>, tuple<i64, i64>) -> tensor<2x3xf32>
    output %v : tensor<2x3xf32>
  }
}

// -----

// F.pad: constant mode is a tensor.pad of the value, the pad list read from
// the last dim backwards; a negative pad crops with a slice first.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3x4xf32>)
// CHECK-DAG: %[[V:.+]] = arith.constant 1.500000e+00 : f32
// CHECK: tensor.pad %[[X]] low[0, 2, 1] high[0, 0, 3]
// CHECK: tensor.yield %[[V]] : f32
// CHECK: } : tensor<2x3x4xf32> to tensor<2x5x8xf32>
// CHECK: %[[S:.+]] = tensor.extract_slice %[[X]][0, 0, 1] [2, 3, 2] [1, 1, 1]
// CHECK: tensor.pad %[[S]] low[0, 1, 0] high[0, 0, 0]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x4xf32>) -> (tensor<2x5x8xf32>, tensor<2x4x2xf32>) {
    %a = call_function "torch.nn.functional.pad"(input=%x, pad=[1, 3, 2, 0], value=1.5) : (tensor<2x3x4xf32>) -> tensor<2x5x8xf32>
    %b = call_function "torch.nn.functional.pad"(input=%x, pad=[-1, -1, 1, 0]) : (tensor<2x3x4xf32>) -> tensor<2x4x2xf32>
    output %a, %b : tensor<2x5x8xf32>, tensor<2x4x2xf32>
  }
}

// -----

// roll: the last `shift` elements along a dim moved to the front, as two
// slices inserted into one tensor.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-DAG: %[[TAIL:.+]] = tensor.extract_slice %[[X]][0, 3] [3, 1] [1, 1]
// CHECK-DAG: %[[HEAD:.+]] = tensor.extract_slice %[[X]][0, 0] [3, 3] [1, 1]
// CHECK: %[[E:.+]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[A:.+]] = tensor.insert_slice %[[TAIL]] into %[[E]][0, 0] [3, 1] [1, 1]
// CHECK: %[[B:.+]] = tensor.insert_slice %[[HEAD]] into %[[A]][0, 1] [3, 3] [1, 1]
// CHECK: return %[[B]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %y = call_function "torch.roll"(input=%x, shifts=5, dims=1) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    output %y : tensor<3x4xf32>
  }
}

// -----

// x[1:3, ::2] = -1.0: a filled window inserted into the input.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x5xf32>) -> tensor<4x5xf32>
// CHECK: %[[F:.+]] = linalg.generic
// CHECK: %[[Y:.+]] = tensor.insert_slice %[[F]] into %[[X]][1, 0] [2, 3] [1, 2]
// CHECK: return %[[Y]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %y = call_function "operator.setitem"(input=%x, index=(slice(1, 3, None), slice(None, None, 2)), value=-1.0) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    output %y : tensor<4x5xf32>
  }
}
