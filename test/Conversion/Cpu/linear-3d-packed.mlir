// RUN: traced-opt %s --traced-cpu-pipeline="tile-n=32" --mlir-print-ir-after=traced-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s

// A Linear on a 3-D input is a linalg.matmul on the collapsed input, and
// stays one: traced-fuse-elementwise does not fold the reshapes into named
// contractions (folded, the matmul became a 3-D generic that the CPU
// strategy tiled without packed panels, 2.7x slower for ViT's MLP shapes).
// The right-hand side is packed into 32-column panels, as for a 2-D input.

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x20x8xf32>, %w: tensor<64x8xf32>) -> tensor<1x20x64xf32> {
    %y = call_function "torch.nn.functional.linear"(input=%x, weight=%w) : (tensor<1x20x8xf32>, tensor<64x8xf32>) -> tensor<1x20x64xf32>
    output %y : tensor<1x20x64xf32>
  }
}

// CHECK-LABEL: IR Dump After TracedCpuTileAndVectorize
// CHECK:       tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<1x20x8xf32> into tensor<20x8xf32>
// CHECK:       tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [8, 2, 32] : tensor<8x64xf32> into tensor<8x2x32xf32>
// CHECK:       tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [20, 2, 32] : tensor<20x64xf32> into tensor<20x2x32xf32>
// CHECK-NOT:   linalg.generic
// CHECK:       tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 20, 64] : tensor<20x64xf32> into tensor<1x20x64xf32>
