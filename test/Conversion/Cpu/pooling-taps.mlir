// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-after=traced-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s

// 2-D pooling is one elementwise generic folding the strided views of its
// window taps into the init with the pooling op's own payload (max keeps
// NaNs: arith.maximumf), vectorized along the output width.

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x32x32xf32>) -> (tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) {
    %m = call_function "torch.nn.functional.max_pool2d"(input=%x, kernel_size=3, stride=2, padding=1) : (tensor<1x4x32x32xf32>) -> tensor<1x4x16x16xf32>
    %a = call_function "torch.nn.functional.avg_pool2d"(input=%x, kernel_size=2) : (tensor<1x4x32x32xf32>) -> tensor<1x4x16x16xf32>
    output %m, %a : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
  }
}

// CHECK-LABEL: IR Dump After TracedCpuTileAndVectorize
// CHECK-NOT:   linalg.pooling_nchw
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 2, 2] [1, 4, 16, 16] [1, 1, 2, 2]
// CHECK:       arith.maximumf %{{.*}} : vector<1x1x1x16xf32>
// CHECK:       arith.addf %{{.*}} : vector<1x1x1x16xf32>
// CHECK-NOT:   linalg.pooling_nchw
