// RUN: traced-opt %s --traced-cpu-pipeline=tile-n=32 --mlir-print-ir-after=traced-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s

// 1-D and 3-D window ops reach the CPU pipeline as the 2-D forms it
// vectorizes and threads (TracedToLinalg's buildPooling and buildConv3d):
// 1-D pooling as one-row 2-D pooling, 3-D pooling as 2-D pooling of the
// planes and then along the depth, 3-D convolution as an im2col matmul
// over depth taps stacked as channels. A pooling window of one row, or one
// that does not overlap along the width, stays a 2-D pooling op for LLVM's
// vectorized loops (pooling-taps.mlir); no 1-D or 3-D op is left.

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x64xf32>, %v: tensor<1x4x8x16x16xf32>, %w: tensor<8x4x3x3x3xf32>) -> (tensor<1x4x32xf32>, tensor<1x4x4x8x8xf32>, tensor<1x8x8x16x16xf32>) {
    %p = call_function "torch.nn.functional.max_pool1d"(input=%x, kernel_size=3, stride=2, padding=1) : (tensor<1x4x64xf32>) -> tensor<1x4x32xf32>
    %m = call_function "torch.nn.functional.max_pool3d"(input=%v, kernel_size=3, stride=2, padding=1) : (tensor<1x4x8x16x16xf32>) -> tensor<1x4x4x8x8xf32>
    %c = call_function "torch.nn.functional.conv3d"(input=%v, weight=%w, padding=1) : (tensor<1x4x8x16x16xf32>, tensor<8x4x3x3x3xf32>) -> tensor<1x8x8x16x16xf32>
    output %p, %m, %c : tensor<1x4x32xf32>, tensor<1x4x4x8x8xf32>, tensor<1x8x8x16x16xf32>
  }
}

// CHECK-LABEL: IR Dump After TracedCpuTileAndVectorize
// CHECK-NOT:   linalg.pooling_ncw
// CHECK-NOT:   linalg.conv_3d
// max_pool1d: a (1, 3) window over one row, stride [1, 2].
// CHECK:       linalg.pooling_nchw_max {{.*}} strides = dense<[1, 2]> {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x1x65xf32>, tensor<1x3xf32>)
// max_pool3d: the 3x3/2 taps of the 4 x 9 padded planes, then (3, 1) windows
// along the depth.
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 2, 2] [1, 36, 8, 8] [1, 1, 2, 2]
// CHECK:       arith.maximumf %{{.*}} : vector<1x1x1x8xf32>
// CHECK:       linalg.pooling_nchw_max {{.*}} strides = dense<[2, 1]> {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x9x64xf32>, tensor<3x1xf32>)
// conv3d: the 2-D convolution's (kh, kw) im2col loops over the stacked
// [8, 12, 18, 18] input (C * KD = 12 channels), then the register tile's
// multiply-adds over K = 108.
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, %{{.*}}, %{{.*}}] [1, 12, 16, 16] [1, 1, 1, 1] : tensor<1x12x18x18xf32> to tensor<1x12x16x16xf32>
// CHECK:       tensor.collapse_shape %{{.*}} : tensor<1x12x3x3x16x16xf32> into tensor<108x256xf32>
// CHECK:       arith.mulf %{{.*}} fastmath<contract> : vector<32xf32>
// CHECK-NOT:   linalg.pooling_ncw
// CHECK-NOT:   linalg.conv_3d
