// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// max_pool2d: padded with -inf, linalg.pooling_nchw_max over a window
// tensor of the kernel's shape, accumulator filled with -inf. The windows of
// a 3x3 kernel with stride 2 on an 8x8 input padded by 1 end at index 8, so
// only the low side needs padding.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK: tensor.yield %[[NINF]] : f32
// CHECK: } : tensor<1x2x8x8xf32> to tensor<1x2x9x9xf32>
// CHECK: %[[NINF2:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[ACC:.+]] = linalg.fill ins(%[[NINF2]] : f32) outs(%{{.+}} : tensor<1x2x4x4xf32>)
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK: %[[Y:.+]] = linalg.pooling_nchw_max
// CHECK-SAME: dilations = dense<1> : vector<2xi64>
// CHECK-SAME: strides = dense<2> : vector<2xi64>
// CHECK-SAME: ins(%[[PAD]], %[[WIN]] : tensor<1x2x9x9xf32>, tensor<3x3xf32>) outs(%[[ACC]] : tensor<1x2x4x4xf32>)
// CHECK: return %[[Y]] : tensor<1x2x4x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
    %y = call_function "torch.nn.functional.max_pool2d"(input=%x, kernel_size=3, stride=2, padding=1) : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
    output %y : tensor<1x2x4x4xf32>
  }
}

// -----

// A 3-D (C, H, W) input gets a batch of one; stride defaults to the kernel.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x6x6xf32>) -> tensor<2x3x3xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[X4:.+]] = tensor.expand_shape %[[X]] {{\[}}[0, 1], [2], [3]] output_shape [1, 2, 6, 6] : tensor<2x6x6xf32> into tensor<1x2x6x6xf32>
// CHECK: %[[P:.+]] = linalg.pooling_nchw_max
// CHECK-SAME: strides = dense<2> : vector<2xi64>
// CHECK-SAME: ins(%[[X4]], %{{.+}} : tensor<1x2x6x6xf32>, tensor<2x2xf32>) outs(%{{.+}} : tensor<1x2x3x3xf32>)
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x3x3xf32> into tensor<2x3x3xf32>
// CHECK: return %[[Y]] : tensor<2x3x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x6x6xf32>) -> tensor<2x3x3xf32> {
    %y = call_function "torch.nn.functional.max_pool2d"(input=%x, kernel_size=2) : (tensor<2x6x6xf32>) -> tensor<2x3x3xf32>
    output %y : tensor<2x3x3xf32>
  }
}

// -----

// avg_pool2d: linalg.pooling_nchw_sum from zero, then a division by the
// per-window count (a constant read along the spatial dimensions).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[HW:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<1x2x2x2xf32>)
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<2x2xf32>
// CHECK: %[[SUM:.+]] = linalg.pooling_nchw_sum
// CHECK-SAME: dilations = dense<1> : vector<2xi64>
// CHECK-SAME: strides = dense<2> : vector<2xi64>
// CHECK-SAME: ins(%[[X]], %[[WIN]] : tensor<1x2x4x4xf32>, tensor<2x2xf32>) outs(%[[ACC]] : tensor<1x2x2x2xf32>)
// CHECK: %[[COUNT:.+]] = arith.constant dense<4.000000e+00> : tensor<2x2xf32>
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[HW]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[SUM]], %[[COUNT]] : tensor<1x2x2x2xf32>, tensor<2x2xf32>)
// CHECK: ^bb0(%[[S:[a-zA-Z0-9_]+]]: f32, %[[N:[a-zA-Z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[AVG:.+]] = arith.divf %[[S]], %[[N]] : f32
// CHECK: linalg.yield %[[AVG]] : f32
// CHECK: return %[[Y]] : tensor<1x2x2x2xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
    %y = call_function "torch.nn.functional.avg_pool2d"(input=%x, kernel_size=2) : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
    output %y : tensor<1x2x2x2xf32>
  }
}

// -----

// avg_pool2d with ceil_mode: the partial windows at the edge read zero
// padding and divide by PyTorch's clipped window sizes.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: } : tensor<1x1x3x3xf32> to tensor<1x1x4x4xf32>
// CHECK: %[[SUM:.+]] = linalg.pooling_nchw_sum
// CHECK-SAME: ins(%[[PAD]], %{{.+}} : tensor<1x1x4x4xf32>, tensor<2x2xf32>)
// CHECK: %[[COUNT:.+]] = arith.constant dense<{{\[}}[4.000000e+00, 2.000000e+00], [2.000000e+00, 1.000000e+00]]> : tensor<2x2xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[SUM]], %[[COUNT]] : tensor<1x1x2x2xf32>, tensor<2x2xf32>)
// CHECK: arith.divf
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
    %y = call_function "torch.nn.functional.avg_pool2d"(input=%x, kernel_size=2, stride=2, padding=0, ceil_mode=True) : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
    output %y : tensor<1x1x2x2xf32>
  }
}

// -----

// adaptive_avg_pool2d: one contraction with two constant averaging
// matrices, (H, OH) and (W, OW); 3 -> 2 rows gives the overlapping windows
// [0, 2) and [1, 3). An element outside a window (a zero weight) keeps the
// accumulator, so a NaN or infinity elsewhere does not reach it.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
// CHECK-DAG: #[[AH:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d2)>
// CHECK-DAG: #[[AW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d5, d3)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x3x4xf32>) -> tensor<1x2x2x1xf32>
// CHECK-DAG: %[[WH:.+]] = arith.constant dense<{{\[}}[5.000000e-01, 0.000000e+00], [5.000000e-01, 5.000000e-01], [0.000000e+00, 5.000000e-01]]> : tensor<3x2xf32>
// CHECK-DAG: %[[WW:.+]] = arith.constant dense<2.500000e-01> : tensor<4x1xf32>
// CHECK-DAG: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x2x1xf32>)
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[AH]], #[[AW]], #[[OUT]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: ins(%[[X]], %[[WH]], %[[WW]] : tensor<1x2x3x4xf32>, tensor<3x2xf32>, tensor<4x1xf32>) outs(%[[ACC]] : tensor<1x2x2x1xf32>)
// CHECK: ^bb0(%[[V:[a-zA-Z0-9_]+]]: f32, %[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32, %[[O:[a-zA-Z0-9_]+]]: f32):
// CHECK: %[[ZA:.+]] = arith.cmpf oeq, %[[A]], %{{.+}} : f32
// CHECK: %[[P0:.+]] = arith.mulf %[[V]], %[[A]] : f32
// CHECK: %[[ZB:.+]] = arith.cmpf oeq, %[[B]], %{{.+}} : f32
// CHECK: %[[OUTSIDE:.+]] = arith.ori %{{.+}}, %[[ZB]] : i1
// CHECK: %[[P1:.+]] = arith.mulf %[[P0]], %[[B]] : f32
// CHECK: %[[S:.+]] = arith.addf %[[O]], %[[P1]] : f32
// CHECK: %[[R:.+]] = arith.select %[[OUTSIDE]], %[[O]], %[[S]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK: return %[[Y]] : tensor<1x2x2x1xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x3x4xf32>) -> tensor<1x2x2x1xf32> {
    %y = call_function "torch.nn.functional.adaptive_avg_pool2d"(input=%x, output_size=[2, 1]) : (tensor<1x2x3x4xf32>) -> tensor<1x2x2x1xf32>
    output %y : tensor<1x2x2x1xf32>
  }
}

// -----

// max_pool1d: linalg.pooling_nchw_max over the padded input read as one
// row (N, C, 1, W), with a (1, 3) window and strides [1, 2].
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x9xf32>) -> tensor<1x2x5xf32>
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1] high[0, 0, 1]
// CHECK: } : tensor<1x2x9xf32> to tensor<1x2x11xf32>
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x5xf32>)
// CHECK: %[[ROW:.+]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1], [2, 3]] output_shape [1, 2, 1, 11]
// CHECK: %[[ACC4:.+]] = tensor.expand_shape %[[ACC]] {{\[}}[0], [1], [2, 3]] output_shape [1, 2, 1, 5]
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<1x3xf32>
// CHECK: %[[P:.+]] = linalg.pooling_nchw_max
// CHECK-SAME: dilations = dense<1> : vector<2xi64>
// CHECK-SAME: strides = dense<[1, 2]> : vector<2xi64>
// CHECK-SAME: ins(%[[ROW]], %[[WIN]] : tensor<1x2x1x11xf32>, tensor<1x3xf32>) outs(%[[ACC4]] : tensor<1x2x1x5xf32>)
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[P]] {{\[}}[0], [1], [2, 3]] : tensor<1x2x1x5xf32> into tensor<1x2x5xf32>
// CHECK: return %[[Y]] : tensor<1x2x5xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x9xf32>) -> tensor<1x2x5xf32> {
    %y = call_function "torch.nn.functional.max_pool1d"(input=%x, kernel_size=3, stride=2, padding=1, ceil_mode=True) : (tensor<1x2x9xf32>) -> tensor<1x2x5xf32>
    output %y : tensor<1x2x5xf32>
  }
}

// -----

// avg_pool1d on an unbatched input: a one-row pooling_nchw_sum, then the
// division by the per-window count (count_include_pad=False: 2, 3, 3, 2).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x7xf32>) -> tensor<2x4xf32>
// CHECK: %[[X3:.+]] = tensor.expand_shape %[[X]]
// CHECK: %[[SUM:.+]] = linalg.pooling_nchw_sum
// CHECK-SAME: strides = dense<[1, 2]> : vector<2xi64>
// CHECK-SAME: tensor<1x2x1x9xf32>, tensor<1x3xf32>
// CHECK: arith.constant dense<[2.000000e+00, 3.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK: arith.divf
// CHECK: tensor.collapse_shape
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x7xf32>) -> tensor<2x4xf32> {
    %y = call_function "torch.nn.functional.avg_pool1d"(input=%x, kernel_size=3, stride=2, padding=1, count_include_pad=False) : (tensor<2x7xf32>) -> tensor<2x4xf32>
    output %y : tensor<2x4xf32>
  }
}

// -----

// max_pool3d: linalg has no channels-first 3-D pooling op, and max is
// separable: (kh, kw) windows over the planes (N, C * D, H, W), strides and
// dilations (h, w) = [1, 2] and [2, 1], then (kd, 1) windows along the
// depth over (N, C, D, OH * OW), stride 2.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x4x6x4xf32>) -> tensor<1x2x2x4x2xf32>
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x2x4x2xf32>)
// CHECK: %[[PLANES:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x4x6x4xf32> into tensor<1x8x6x4xf32>
// CHECK: %[[PACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x8x4x2xf32>)
// CHECK: %[[HW:.+]] = linalg.pooling_nchw_max {dilations = dense<[2, 1]> : vector<2xi64>, strides = dense<[1, 2]> : vector<2xi64>} ins(%[[PLANES]], %{{.+}} : tensor<1x8x6x4xf32>, tensor<2x2xf32>) outs(%[[PACC]] : tensor<1x8x4x2xf32>)
// CHECK: %[[E:.+]] = tensor.expand_shape %[[HW]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 4, 2]
// CHECK: %[[DEPTH:.+]] = tensor.collapse_shape %[[E]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x2x4x4x2xf32> into tensor<1x2x4x8xf32>
// CHECK: %[[DACC:.+]] = tensor.collapse_shape %[[ACC]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x2x2x4x2xf32> into tensor<1x2x2x8xf32>
// CHECK: %[[D:.+]] = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<[2, 1]> : vector<2xi64>} ins(%[[DEPTH]], %{{.+}} : tensor<1x2x4x8xf32>, tensor<2x1xf32>) outs(%[[DACC]] : tensor<1x2x2x8xf32>)
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[D]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 2, 2, 4, 2]
// CHECK: return %[[Y]] : tensor<1x2x2x4x2xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x4x6x4xf32>) -> tensor<1x2x2x4x2xf32> {
    %y = call_function "torch.nn.functional.max_pool3d"(input=%x, kernel_size=2, stride=[2, 1, 2], dilation=[1, 2, 1]) : (tensor<1x2x4x6x4xf32>) -> tensor<1x2x2x4x2xf32>
    output %y : tensor<1x2x2x4x2xf32>
  }
}

// -----

// adaptive_avg_pool1d: a matmul-shaped contraction with one (L, OL) matrix
// (3 -> 2: the windows [0, 2) and [1, 3)).
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @forward(
// CHECK: %[[W:.+]] = arith.constant dense<{{\[}}[5.000000e-01, 0.000000e+00], [5.000000e-01, 5.000000e-01], [0.000000e+00, 5.000000e-01]]> : tensor<3x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[A]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x3xf32>) -> tensor<1x2x2xf32> {
    %y = call_function "torch.nn.functional.adaptive_avg_pool1d"(input=%x, output_size=2) : (tensor<1x2x3xf32>) -> tensor<1x2x2xf32>
    output %y : tensor<1x2x2xf32>
  }
}

// -----

// adaptive_max_pool2d: windows of varying start and size (5 -> 3 rows:
// [0, 2), [1, 4), [3, 5)), so a generic over (n, c, oh, ow, kh, kw) up to
// the largest window, extracting the input at min(start + k, end - 1).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<3x1xf32>
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x3x4xf32>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: ins(%[[WIN]] : tensor<3x1xf32>) outs(%[[ACC]] : tensor<1x2x3x4xf32>)
// CHECK: arith.divui
// CHECK: arith.minui
// CHECK: %[[V:.+]] = tensor.extract %[[X]]
// CHECK: arith.maximumf %{{.+}}, %[[V]] : f32
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32> {
    %y = call_function "torch.nn.functional.adaptive_max_pool2d"(input=%x, output_size=[3, None]) : (tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
    output %y : tensor<1x2x3x4xf32>
  }
}

// -----

// lp_pool1d as torch composes it: x ** p, the windows' average (ceil_mode's
// partial last window divides by its clipped size, 1), times the kernel
// size, ** (1 / p).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x7xf32>) -> tensor<1x2x3xf32>
// CHECK: math.powf %{{.+}}, %{{.+}} : f32
// CHECK: %[[SUM:.+]] = linalg.pooling_nchw_sum
// CHECK: arith.constant dense<[3.000000e+00, 3.000000e+00, 1.000000e+00]> : tensor<3xf32>
// CHECK: arith.divf
// CHECK: %[[K:.+]] = arith.constant 3.000000e+00 : f32
// CHECK: %[[S:.+]] = arith.mulf %{{.+}}, %[[K]] : f32
// CHECK: %[[R:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: math.powf %[[S]], %[[R]] : f32
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x7xf32>) -> tensor<1x2x3xf32> {
    %y = call_function "torch.nn.functional.lp_pool1d"(input=%x, norm_type=2.0, kernel_size=3, ceil_mode=True) : (tensor<1x2x7xf32>) -> tensor<1x2x3xf32>
    output %y : tensor<1x2x3xf32>
  }
}

// -----

// return_indices: operator.getitem lowers element 1 of the (values,
// indices) tuple as one generic with two accumulators, reading the input
// with tensor.extract at o * stride - padding + k * dilation where that lies
// inside it (no padding), keeping torch's first-position / larger / NaN
// rule and the position flattened over the spatial input.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xi64>
// CHECK-DAG: %[[WIN:.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK-DAG: %[[VALS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x1x3x3xf32>)
// CHECK-DAG: %[[IDX:.+]] = linalg.fill ins(%{{.+}} : i64) outs(%{{.+}} : tensor<1x1x3x3xi64>)
// CHECK: %[[R:.+]]:2 = linalg.generic
// CHECK-SAME: ins(%[[WIN]] : tensor<3x3xf32>) outs(%[[VALS]], %[[IDX]] : tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>)
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: tensor.extract %[[X]]
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: linalg.yield
// CHECK: return %[[R]]#1 : tensor<1x1x3x3xi64>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xi64> {
    %p = call_function "torch.nn.functional.max_pool2d_with_indices"(input=%x, kernel_size=3, stride=2, padding=1) : (tensor<1x1x5x5xf32>) -> tuple<tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>>
    %i = call_function "operator.getitem"(%p, 1) : (tuple<tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>>) -> tensor<1x1x3x3xi64>
    output %i : tensor<1x1x3x3xi64>
  }
}

// -----

// avg_pool2d on int64: torch's integer kernel, an integer sum divided by the
// count with truncation toward zero (arith.divsi).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x1x4x4xi64>) -> tensor<1x1x2x2xi64>
// CHECK: %[[SUM:.+]] = linalg.pooling_nchw_sum
// CHECK-SAME: ins(%[[X]], %{{.+}} : tensor<1x1x4x4xi64>, tensor<2x2xi64>)
// CHECK: %[[COUNT:.+]] = arith.constant dense<4> : tensor<2x2xi64>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[SUM]], %[[COUNT]] : tensor<1x1x2x2xi64>, tensor<2x2xi64>)
// CHECK: arith.divsi
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x1x4x4xi64>) -> tensor<1x1x2x2xi64> {
    %y = call_function "torch.nn.functional.avg_pool2d"(input=%x, kernel_size=2) : (tensor<1x1x4x4xi64>) -> tensor<1x1x2x2xi64>
    output %y : tensor<1x1x2x2xi64>
  }
}

// -----

// The pooling lowerings take f32 and f64; a bf16 call is decomposed into the
// same pooling of f32, rounded back once (exact for max pooling, and what
// torch's kernels do for averages).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x4x4xbf16>) -> tensor<1x2x2x2xbf16>
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: linalg.pooling_nchw_max {{.*}} outs(%{{.+}} : tensor<1x2x2x2xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x4x4xbf16>) -> tensor<1x2x2x2xbf16> {
    %y = call_function "torch.nn.functional.max_pool2d"(input=%x, kernel_size=2) : (tensor<1x2x4x4xbf16>) -> tensor<1x2x2x2xbf16>
    output %y : tensor<1x2x2x2xbf16>
  }
}
