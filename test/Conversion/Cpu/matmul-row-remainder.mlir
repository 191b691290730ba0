// RUN: traced-opt %s --traced-cpu-pipeline="tile-n=32" --mlir-print-ir-after=traced-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s

// 23 rows (prime) have no register tile but one row: the contraction is
// split into 16 rows (two 8-row tiles) and a 7-row remainder, which share
// the one packed right-hand side. (ViT's 197 tokens: 25 -> 11 ms for its
// Linear(768, 3072), bench/linear_shapes.py.)

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x23x8xf32>, %w: tensor<64x8xf32>) -> tensor<1x23x64xf32> {
    %y = call_function "torch.nn.functional.linear"(input=%x, weight=%w) : (tensor<1x23x8xf32>, tensor<64x8xf32>) -> tensor<1x23x64xf32>
    output %y : tensor<1x23x64xf32>
  }
}

// CHECK-LABEL: IR Dump After TracedCpuTileAndVectorize
// CHECK:       %[[PACKED:.*]] = scf.for {{.*}} -> (tensor<2x8x32xf32>)
// CHECK:       tensor.extract_slice %[[A:.*]][0, 0] [16, 8] [1, 1] : tensor<23x8xf32> to tensor<16x8xf32>
// CHECK:       tensor.extract_slice %[[PACKED]]
// CHECK:       tensor.extract_slice %[[A]][16, 0] [7, 8] [1, 1] : tensor<23x8xf32> to tensor<7x8xf32>
// CHECK:       tensor.extract_slice %[[PACKED]]
