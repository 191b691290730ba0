// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-after=traced-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s

// 2-D pooling whose windows overlap along the width (3x3/2, 3x3/1) is one
// elementwise generic folding the strided views of its window taps into
// the init with the pooling op's own payload (max keeps NaNs:
// arith.maximumf), vectorized along the output width. Windows that do not
// overlap along the width (2x2/2) stay pooling ops for
// convert-linalg-to-loops, whose output-width loop LLVM vectorizes with
// interleaved loads (`tapsPay`); with enough iterations they are spread
// over threads along a channel. Taps start from the constant of the init's
// fill: the output is not filled first (`constantFill`).

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x32x32xf32>, %y: tensor<1x16x64x64xf32>) -> (tensor<1x4x16x16xf32>, tensor<1x4x32x32xf32>, tensor<1x4x16x16xf32>, tensor<1x16x32x32xf32>) {
    %m = call_function "torch.nn.functional.max_pool2d"(input=%x, kernel_size=3, stride=2, padding=1) : (tensor<1x4x32x32xf32>) -> tensor<1x4x16x16xf32>
    %a = call_function "torch.nn.functional.avg_pool2d"(input=%x, kernel_size=3, stride=1, padding=1) : (tensor<1x4x32x32xf32>) -> tensor<1x4x32x32xf32>
    %n = call_function "torch.nn.functional.avg_pool2d"(input=%x, kernel_size=2) : (tensor<1x4x32x32xf32>) -> tensor<1x4x16x16xf32>
    %t = call_function "torch.nn.functional.max_pool2d"(input=%y, kernel_size=2) : (tensor<1x16x64x64xf32>) -> tensor<1x16x32x32xf32>
    output %m, %a, %n, %t : tensor<1x4x16x16xf32>, tensor<1x4x32x32xf32>, tensor<1x4x16x16xf32>, tensor<1x16x32x32xf32>
  }
}

// CHECK-LABEL: IR Dump After TracedCpuTileAndVectorize
// CHECK-NOT:   linalg.fill {{.*}} -> tensor<1x4x32x32xf32>
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 2, 2] [1, 4, 16, 16] [1, 1, 2, 2]
// CHECK:       arith.maximumf %{{.*}} : vector<1x1x1x16xf32>
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 2, 2] [1, 4, 32, 32] [1, 1, 1, 1]
// CHECK:       arith.addf %{{.*}} : vector<1x1x1x16xf32>
// CHECK:       linalg.pooling_nchw_sum {{.*}} strides = dense<2> {{.*}} outs(%{{.*}} : tensor<1x4x16x16xf32>)
// CHECK:       scf.forall (%[[C:.*]]) in (16)
// CHECK:         tensor.extract_slice %{{.*}}[0, %[[C]], 0, 0] [1, 1, 64, 64]
// CHECK:         linalg.pooling_nchw_max {{.*}} outs(%{{.*}} : tensor<1x1x32x32xf32>)
// CHECK-NOT:   linalg.pooling_nchw
