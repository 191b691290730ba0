// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// Convolutions: explicit tensor.pad, then the NCHW named op matching the
// grouping; the bias is a broadcast add along the channel dimension.

// groups = 1 with stride 2, padding 1 and a bias (constant parameters).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x3x8x8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-DAG: %[[W:.+]] = arith.constant dense<1.000000e+00> : tensor<8x3x3x3xf32>
// CHECK-DAG: %[[B:.+]] = arith.constant dense<5.000000e-01> : tensor<8xf32>
// CHECK-DAG: %[[PZ:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[PZ]] : f32
// CHECK: } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x8x4x4xf32>)
// CHECK: %[[CONV:.+]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME: dilations = dense<1> : vector<2xi64>
// CHECK-SAME: strides = dense<2> : vector<2xi64>
// CHECK-SAME: ins(%[[PAD]], %[[W]] : tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%[[ACC]] : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[CONV]], %[[B]] : tensor<1x8x4x4xf32>, tensor<8xf32>)
// CHECK: arith.addf
// CHECK: return %[[Y]] : tensor<1x8x4x4xf32>
traced.module root @M class "m.M" {
  parameter @w : tensor<8x3x3x3xf32> = dense<1.0> : tensor<8x3x3x3xf32>
  parameter @b : tensor<8xf32> = dense<0.5> : tensor<8xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x8x8xf32>) -> tensor<1x8x4x4xf32> {
    %w = getattr %self["w"] : !traced.module<@M> -> tensor<8x3x3x3xf32>
    %b = getattr %self["b"] : !traced.module<@M> -> tensor<8xf32>
    %y = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w, bias=%b, stride=2, padding=1) : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    output %y : tensor<1x8x4x4xf32>
  }
}

// -----

// Depthwise (groups = in = out channels) with dilation 2 and no padding:
// the (C, 1, KH, KW) filter is collapsed to (C, KH, KW).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x4x8x8xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2], [3]] : tensor<4x1x3x3xf32> into tensor<4x3x3xf32>
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x4x4x4xf32>)
// CHECK: %[[Y:.+]] = linalg.depthwise_conv_2d_nchw_chw
// CHECK-SAME: dilations = dense<2> : vector<2xi64>
// CHECK-SAME: strides = dense<1> : vector<2xi64>
// CHECK-SAME: ins(%[[X]], %[[F]] : tensor<1x4x8x8xf32>, tensor<4x3x3xf32>) outs(%[[ACC]] : tensor<1x4x4x4xf32>)
// CHECK: return %[[Y]] : tensor<1x4x4x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32> {
    %y = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w, stride=[1, 1], padding=[0, 0], dilation=[2, 2], groups=4) : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
    output %y : tensor<1x4x4x4xf32>
  }
}

// -----

// Other groups: input (N, G, C/G, H, W), filter (G, F/G, C/G, KH, KW), then
// the (N, G, F/G, OH, OW) result is collapsed back to NCHW.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x4x6x6xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
// CHECK-DAG: %[[XG:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 6, 6] : tensor<2x4x6x6xf32> into tensor<2x2x2x6x6xf32>
// CHECK-DAG: %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x2x3x4x4xf32>)
// CHECK: %[[CONV:.+]] = linalg.conv_2d_ngchw_gfchw
// CHECK-SAME: dilations = dense<1> : vector<2xi64>
// CHECK-SAME: strides = dense<1> : vector<2xi64>
// CHECK-SAME: ins(%[[XG]], %[[WG]] : tensor<2x2x2x6x6xf32>, tensor<2x3x2x3x3xf32>) outs(%[[ACC]] : tensor<2x2x3x4x4xf32>)
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[CONV]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x4x4xf32> into tensor<2x6x4x4xf32>
// CHECK: return %[[Y]] : tensor<2x6x4x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x4x6x6xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32> {
    %y = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w, groups=2) : (tensor<2x4x6x6xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
    output %y : tensor<2x6x4x4xf32>
  }
}

// -----

// conv1d is conv2d over a height of one: stride (1, 2), padding only along
// the width (padded before the lift).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3x10xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<5x3x3xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<5xf32>) -> tensor<2x5x5xf32>
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1] high[0, 0, 1]
// CHECK: } : tensor<2x3x10xf32> to tensor<2x3x12xf32>
// CHECK-DAG: %[[X4:.+]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 1, 12] : tensor<2x3x12xf32> into tensor<2x3x1x12xf32>
// CHECK-DAG: %[[W4:.+]] = tensor.expand_shape %[[W]] {{\[}}[0], [1], [2, 3]] output_shape [5, 3, 1, 3] : tensor<5x3x3xf32> into tensor<5x3x1x3xf32>
// CHECK: %[[CONV:.+]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME: dilations = dense<1> : vector<2xi64>
// CHECK-SAME: strides = dense<[1, 2]> : vector<2xi64>
// CHECK-SAME: ins(%[[X4]], %[[W4]] : tensor<2x3x1x12xf32>, tensor<5x3x1x3xf32>) outs(%{{.+}} : tensor<2x5x1x5xf32>)
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[CONV]] {{\[}}[0], [1], [2, 3]] : tensor<2x5x1x5xf32> into tensor<2x5x5xf32>
// CHECK: %[[BIASED:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[Y]], %[[B]] : tensor<2x5x5xf32>, tensor<5xf32>)
// CHECK: return %[[BIASED]] : tensor<2x5x5xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3x10xf32>, %w: tensor<5x3x3xf32>, %b: tensor<5xf32>) -> tensor<2x5x5xf32> {
    %y = call_function "torch.nn.functional.conv1d"(input=%x, weight=%w, bias=%b, stride=2, padding=1) : (tensor<2x3x10xf32>, tensor<5x3x3xf32>, tensor<5xf32>) -> tensor<2x5x5xf32>
    output %y : tensor<2x5x5xf32>
  }
}
