// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// The rest of the convolution family: conv3d, padding="same",
// conv_transpose and torch.convolution.

// conv3d: one 2-D convolution after an explicit pad. Each of the KD = 3
// depth taps is a strided slice of the input along D (offset t, stride 2),
// copied transposed into cols[n, od, c, t, h, w]; cols is read as
// [N * OD, C * KD, Hp, Wp] and the weight as [F, C * KD, KH, KW]; the
// [N * OD, F, OH, OW] result goes back to [N, F, OD, OH, OW].
// CHECK-DAG: #[[VIEW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d1, d4, d5)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x6x7xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x2x3x3x3xf32>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1, 1] high[0, 0, 1, 1, 1]
// CHECK: %[[COLS:.+]] = tensor.empty() : tensor<1x3x2x3x8x9xf32>
// CHECK: %[[V0:.+]] = tensor.extract_slice %[[PAD]][0, 0, 0, 0, 0] [1, 2, 3, 8, 9] [1, 1, 2, 1, 1]
// CHECK: %[[P0:.+]] = tensor.extract_slice %[[COLS]][0, 0, 0, 0, 0, 0] [1, 3, 2, 1, 8, 9]
// CHECK: %[[T0:.+]] = linalg.generic {indexing_maps = [#[[VIEW]], #[[ID]]], {{.*}}} ins(%[[V0]] : tensor<1x2x3x8x9xf32>) outs(%[[P0]] : tensor<1x3x2x1x8x9xf32>)
// CHECK: %[[C0:.+]] = tensor.insert_slice %[[T0]] into %[[COLS]][0, 0, 0, 0, 0, 0] [1, 3, 2, 1, 8, 9]
// CHECK: tensor.extract_slice %[[PAD]][0, 0, 1, 0, 0] [1, 2, 3, 8, 9] [1, 1, 2, 1, 1]
// CHECK: %[[C1:.+]] = tensor.insert_slice %{{.+}} into %[[C0]][0, 0, 0, 1, 0, 0]
// CHECK: tensor.extract_slice %[[PAD]][0, 0, 2, 0, 0] [1, 2, 3, 8, 9] [1, 1, 2, 1, 1]
// CHECK: %[[C2:.+]] = tensor.insert_slice %{{.+}} into %[[C1]][0, 0, 0, 2, 0, 0]
// CHECK: %[[X2:.+]] = tensor.collapse_shape %[[C2]] {{\[}}[0, 1], [2, 3], [4], [5]] : tensor<1x3x2x3x8x9xf32> into tensor<3x6x8x9xf32>
// CHECK: %[[W2:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2], [3], [4]] : tensor<4x2x3x3x3xf32> into tensor<4x6x3x3xf32>
// CHECK: %[[CONV:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%[[X2]], %[[W2]] : tensor<3x6x8x9xf32>, tensor<4x6x3x3xf32>) outs(%{{.+}} : tensor<3x4x3x4xf32>)
// CHECK: %[[E:.+]] = tensor.expand_shape %[[CONV]] {{\[}}[0, 1], [2], [3], [4]] output_shape [1, 3, 4, 3, 4]
// CHECK: %[[Y:.+]] = linalg.transpose ins(%[[E]] : tensor<1x3x4x3x4xf32>) outs(%{{.+}} : tensor<1x4x3x3x4xf32>) permutation = [0, 2, 1, 3, 4]
// CHECK: return %[[Y]] : tensor<1x4x3x3x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x5x6x7xf32>, %w: tensor<4x2x3x3x3xf32>) -> tensor<1x4x3x3x4xf32> {
    %y = call_function "torch.nn.functional.conv3d"(input=%x, weight=%w, stride=[2, 2, 2], padding=1) : (tensor<1x2x5x6x7xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x3x3x4xf32>
    output %y : tensor<1x4x3x3x4xf32>
  }
}

// -----

// Grouped conv3d: the stacked channels c * KD + t keep each group's
// channels together, so the 2-D convolution is grouped the same way
// (conv_2d_ngchw_gfchw, 2 groups of 2 * 2 channels).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x4x4x4x4xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<6x2x2x2x2xf32>)
// CHECK-NOT: conv_3d
// CHECK: tensor.collapse_shape {{.*}} : tensor<1x3x4x2x4x4xf32> into tensor<3x8x4x4xf32>
// CHECK: tensor.collapse_shape %[[W]] {{.*}} : tensor<6x2x2x2x2xf32> into tensor<6x4x2x2xf32>
// CHECK: %[[CONV:.+]] = linalg.conv_2d_ngchw_gfchw {{.*}} ins(%{{.+}}, %{{.+}} : tensor<3x2x4x4x4xf32>, tensor<2x3x4x2x2xf32>) outs(%{{.+}} : tensor<3x2x3x3x3xf32>)
// CHECK: %[[Y:.+]] = linalg.transpose ins(%{{.+}} : tensor<1x3x6x3x3xf32>) outs(%{{.+}} : tensor<1x6x3x3x3xf32>) permutation = [0, 2, 1, 3, 4]
// CHECK: return %[[Y]] : tensor<1x6x3x3x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x4x4x4xf32>, %w: tensor<6x2x2x2x2xf32>) -> tensor<1x6x3x3x3xf32> {
    %y = call_function "torch.nn.functional.conv3d"(input=%x, weight=%w, groups=2) : (tensor<1x4x4x4x4xf32>, tensor<6x2x2x2x2xf32>) -> tensor<1x6x3x3x3xf32>
    output %y : tensor<1x6x3x3x3xf32>
  }
}

// -----

// Depthwise conv3d: KD = 2 depthwise 2-D convolutions over the depth taps'
// planes ([N * OD, C, Hp, Wp] slices of the stacked taps), the second
// accumulating into the first's result.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x3x4x6x6xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<3x1x2x3x3xf32>)
// CHECK: %[[TAPS:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2], [3], [4], [5]] : tensor<1x3x3x2x6x6xf32> into tensor<3x3x2x6x6xf32>
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3x3x4x4xf32>)
// CHECK: tensor.extract_slice %[[TAPS]][0, 0, 0, 0, 0] [3, 3, 1, 6, 6]
// CHECK: tensor.extract_slice %[[W]][0, 0, 0, 0, 0] [3, 1, 1, 3, 3]
// CHECK: %[[D0:.+]] = linalg.depthwise_conv_2d_nchw_chw {{.*}} outs(%[[ZERO]] : tensor<3x3x4x4xf32>)
// CHECK: tensor.extract_slice %[[TAPS]][0, 0, 1, 0, 0] [3, 3, 1, 6, 6]
// CHECK: tensor.extract_slice %[[W]][0, 0, 1, 0, 0] [3, 1, 1, 3, 3]
// CHECK: %[[D1:.+]] = linalg.depthwise_conv_2d_nchw_chw {{.*}} outs(%[[D0]] : tensor<3x3x4x4xf32>)
// CHECK: %[[E:.+]] = tensor.expand_shape %[[D1]]
// CHECK: %[[Y:.+]] = linalg.transpose ins(%[[E]] : tensor<1x3x3x4x4xf32>) outs(%{{.+}} : tensor<1x3x3x4x4xf32>) permutation = [0, 2, 1, 3, 4]
// CHECK: return %[[Y]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x4x6x6xf32>, %w: tensor<3x1x2x3x3xf32>) -> tensor<1x3x3x4x4xf32> {
    %y = call_function "torch.nn.functional.conv3d"(input=%x, weight=%w, groups=3) : (tensor<1x3x4x6x6xf32>, tensor<3x1x2x3x3xf32>) -> tensor<1x3x3x4x4xf32>
    output %y : tensor<1x3x3x4x4xf32>
  }
}

// -----

// padding="same" with even kernels: the odd zero goes after, as in torch.
// CHECK-LABEL: func.func @forward(
// CHECK: tensor.pad %{{.+}} low[0, 0, 0, 1] high[0, 0, 1, 2]
// CHECK: } : tensor<1x2x5x6xf32> to tensor<1x2x6x9xf32>
// CHECK: linalg.conv_2d_nchw_fchw
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x5x6xf32>, %w: tensor<3x2x2x4xf32>) -> tensor<1x3x5x6xf32> {
    %y = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w, padding="same") : (tensor<1x2x5x6xf32>, tensor<3x2x2x4xf32>) -> tensor<1x3x5x6xf32>
    output %y : tensor<1x3x5x6xf32>
  }
}

// -----

// conv_transpose2d: zeros inserted between the input's elements (a strided
// insert_slice), padded by dilation * (kernel - 1) - padding (plus
// output_padding after), convolved at stride one with the weight's taps
// flipped and its channels swapped per group.
// CHECK-DAG: #[[FLIP:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0 * 2 + d2, d1, -d3 + 2, -d4 + 2)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x4x3x3xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x1x3x3xf32>)
// CHECK: %[[ZEROS:.+]] = linalg.fill {{.*}} -> tensor<1x4x5x5xf32>
// CHECK: %[[SPREAD:.+]] = tensor.insert_slice %[[X]] into %[[ZEROS]][0, 0, 0, 0] [1, 4, 3, 3] [1, 1, 2, 2]
// CHECK: %[[PAD:.+]] = tensor.pad %[[SPREAD]] low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK: %[[FLIPPED:.+]] = linalg.generic {indexing_maps = [#[[FLIP]], {{.+}}]{{.*}} ins(%[[W]] : tensor<4x1x3x3xf32>) outs(%{{.+}} : tensor<2x1x2x3x3xf32>)
// CHECK: linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
// CHECK: return %{{.+}} : tensor<1x2x6x6xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x3x3xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x2x6x6xf32> {
    %y = call_function "torch.nn.functional.conv_transpose2d"(input=%x, weight=%w, stride=2, padding=1, output_padding=1, groups=2) : (tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>) -> tensor<1x2x6x6xf32>
    output %y : tensor<1x2x6x6xf32>
  }
}

// -----

// A transposed padding beyond the kernel's span crops the input instead
// (torch's "negative padding"): a 5-wide input, kernel 3, padding 3 gives one
// output.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x1x5xf32>
// CHECK: %[[CROP:.+]] = tensor.extract_slice %[[X]][0, 0, 1] [1, 1, 3] [1, 1, 1] : tensor<1x1x5xf32> to tensor<1x1x3xf32>
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: return %{{.+}} : tensor<1x1x1xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x1x5xf32>, %w: tensor<1x1x3xf32>) -> tensor<1x1x1xf32> {
    %y = call_function "torch.convolution"(%x, %w, None, [1], [3], [1], True, [0], 1) : (tensor<1x1x5xf32>, tensor<1x1x3xf32>) -> tensor<1x1x1xf32>
    output %y : tensor<1x1x1xf32>
  }
}

// -----

// padding_mode="reflect": each side reads the input mirrored (an affine map
// of its index), inserted with the input into the padded tensor.
// CHECK-DAG: #[[LEFT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, -d2 + 2)>
// CHECK-DAG: #[[RIGHT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, -d2 + 3)>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5xf32>
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<1x2x9xf32>
// CHECK: %[[L:.+]] = linalg.generic {indexing_maps = [#[[LEFT]], {{.+}}]{{.*}} ins(%[[X]] : tensor<1x2x5xf32>) outs(%{{.+}} : tensor<1x2x2xf32>)
// CHECK: %[[P0:.+]] = tensor.insert_slice %[[L]] into %[[EMPTY]][0, 0, 0] [1, 2, 2] [1, 1, 1]
// CHECK: %[[P1:.+]] = tensor.insert_slice %[[X]] into %[[P0]][0, 0, 2] [1, 2, 5] [1, 1, 1]
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[RIGHT]], {{.+}}]{{.*}} ins(%[[X]] : tensor<1x2x5xf32>) outs(%{{.+}} : tensor<1x2x2xf32>)
// CHECK: %[[P2:.+]] = tensor.insert_slice %[[R]] into %[[P1]][0, 0, 7] [1, 2, 2] [1, 1, 1]
// CHECK: tensor.expand_shape %[[P2]]
// CHECK: linalg.conv_2d_nchw_fchw
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x5xf32>, %w: tensor<3x2x3xf32>) -> tensor<1x3x7xf32> {
    %y = call_function "torch.nn.functional.conv1d"(input=%x, weight=%w, padding=2, padding_mode="reflect") : (tensor<1x2x5xf32>, tensor<3x2x3xf32>) -> tensor<1x3x7xf32>
    output %y : tensor<1x3x7xf32>
  }
}
