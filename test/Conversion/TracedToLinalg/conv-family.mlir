// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// The rest of the convolution family: conv3d, padding="same",
// conv_transpose and torch.convolution.

// conv3d: the NCDHW named op after an explicit pad.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x6x7xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x2x3x3x3xf32>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1, 1] high[0, 0, 1, 1, 1]
// CHECK: %[[CONV:.+]] = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : vector<3xi64>, strides = dense<2> : vector<3xi64>} ins(%[[PAD]], %[[W]] : tensor<1x2x7x8x9xf32>, tensor<4x2x3x3x3xf32>)
// CHECK: return %[[CONV]] : tensor<1x4x3x3x4xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x5x6x7xf32>, %w: tensor<4x2x3x3x3xf32>) -> tensor<1x4x3x3x4xf32> {
    %y = call_function "torch.nn.functional.conv3d"(input=%x, weight=%w, stride=[2, 2, 2], padding=1) : (tensor<1x2x5x6x7xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x3x3x4xf32>
    output %y : tensor<1x4x3x3x4xf32>
  }
}

// -----

// Grouped conv3d: one conv_3d per group, on slices of the input's channels
// and the weight's filters, inserted into the result.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<1x4x4x4x4xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<6x2x2x2x2xf32>)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<1x6x3x3x3xf32>
// CHECK: %[[X0:.+]] = tensor.extract_slice %[[X]][0, 0, 0, 0, 0] [1, 2, 4, 4, 4] [1, 1, 1, 1, 1]
// CHECK: %[[W0:.+]] = tensor.extract_slice %[[W]][0, 0, 0, 0, 0] [3, 2, 2, 2, 2] [1, 1, 1, 1, 1]
// CHECK: %[[C0:.+]] = linalg.conv_3d_ncdhw_fcdhw {{.*}} ins(%[[X0]], %[[W0]] : tensor<1x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>)
// CHECK: %[[I0:.+]] = tensor.insert_slice %[[C0]] into %[[EMPTY]][0, 0, 0, 0, 0] [1, 3, 3, 3, 3]
// CHECK: %[[X1:.+]] = tensor.extract_slice %[[X]][0, 2, 0, 0, 0] [1, 2, 4, 4, 4]
// CHECK: %[[W1:.+]] = tensor.extract_slice %[[W]][3, 0, 0, 0, 0] [3, 2, 2, 2, 2]
// CHECK: %[[C1:.+]] = linalg.conv_3d_ncdhw_fcdhw {{.*}} ins(%[[X1]], %[[W1]]
// CHECK: %[[I1:.+]] = tensor.insert_slice %[[C1]] into %[[I0]][0, 3, 0, 0, 0] [1, 3, 3, 3, 3]
// CHECK: return %[[I1]] : tensor<1x6x3x3x3xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x4x4x4xf32>, %w: tensor<6x2x2x2x2xf32>) -> tensor<1x6x3x3x3xf32> {
    %y = call_function "torch.nn.functional.conv3d"(input=%x, weight=%w, groups=2) : (tensor<1x4x4x4x4xf32>, tensor<6x2x2x2x2xf32>) -> tensor<1x6x3x3x3xf32>
    output %y : tensor<1x6x3x3x3xf32>
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
