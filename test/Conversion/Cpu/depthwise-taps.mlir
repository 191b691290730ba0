// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-after=traced-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s

// A depthwise convolution is one elementwise generic summing its taps: a
// strided view of the input per tap (here stride 2) times the tap's
// per-channel weight, vectorized along the output width like any
// elementwise op. (As a convolution it ran as scalar loops.) Its
// accumulator starts from the zero of the init's fill, a constant in the
// body: the output is not filled first and read back.

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x34x34xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x16x16xf32> {
    %y = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w, stride=2, padding=0, groups=4) : (tensor<1x4x34x34xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x16x16xf32>
    output %y : tensor<1x4x16x16xf32>
  }
}

// CHECK-LABEL: IR Dump After TracedCpuTileAndVectorize
// CHECK-NOT:   linalg.fill
// CHECK-NOT:   linalg.depthwise_conv_2d_nchw_chw
// CHECK:       tensor.extract_slice %[[IN:.*]][0, 0, 0, 0] [1, 4, 16, 16] [1, 1, 2, 2]
// CHECK:       tensor.extract_slice %[[IN]][0, 0, 0, 1] [1, 4, 16, 16] [1, 1, 2, 2]
// CHECK:       tensor.extract_slice %[[IN]][0, 0, 2, 2] [1, 4, 16, 16] [1, 1, 2, 2]
// CHECK:       tensor.extract_slice %[[W:.*]][0, 0, 0] [4, 1, 1] [1, 1, 1] : tensor<4x3x3xf32> to tensor<4xf32>
// CHECK:       tensor.extract_slice %[[W]][0, 2, 2] [4, 1, 1] [1, 1, 1] : tensor<4x3x3xf32> to tensor<4xf32>
// CHECK:       %[[P:.*]] = arith.mulf %{{.*}} : vector<1x1x1x16xf32>
// CHECK:       arith.addf %[[P]], %{{.*}} : vector<1x1x1x16xf32>
// CHECK-NOT:   linalg.depthwise_conv_2d_nchw_chw
// CHECK-NOT:   linalg.fill
