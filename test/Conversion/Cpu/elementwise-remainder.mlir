// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-after=traced-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s

// An elementwise op whose last dimension is not a multiple of the vector
// width is split into whole 16-lane vectors and one shorter remainder,
// rather than tiled by the largest divisor of the size (1 for 37: scalar
// code).

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x37xf32>) -> tensor<3x37xf32> {
    %y = call_function "torch.relu"(%x) : (tensor<3x37xf32>) -> tensor<3x37xf32>
    output %y : tensor<3x37xf32>
  }
}

// CHECK-LABEL: IR Dump After TracedCpuTileAndVectorize
// CHECK:       arith.maximumf %{{.*}} : vector<1x16xf32>
// CHECK:       arith.maximumf %{{.*}} : vector<1x5xf32>
// CHECK-NOT:   vector<1x1xf32>
