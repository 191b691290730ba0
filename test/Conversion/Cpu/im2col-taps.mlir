// RUN: traced-opt %s --traced-cpu-pipeline="tile-n=32" --mlir-print-ir-after=traced-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s
// RUN: traced-opt %s --traced-cpu-pipeline="tile-n=32 arena=false" --mlir-print-ir-after=traced-cpu-expand-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=INPLACE

// The im2col patches of a convolution are filled tap by tap: the tap's
// strided input view copied into its row block of the patches, 16-wide
// along the output width (vector copies after bufferization; the single
// gather through `oh * s + kh` maps was scalar). One copy in a loop nest
// over the taps, not one per tap. The copies write the patches buffer in
// place.

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x8x34x34xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x32x32xf32> {
    %y = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w) : (tensor<1x8x34x34xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x32x32xf32>
    output %y : tensor<1x16x32x32xf32>
  }
}

// CHECK-LABEL: IR Dump After TracedCpuTileAndVectorize
// CHECK:       scf.for %[[I:.*]] = %c0 to %c3 step %c1 iter_args(%[[P0:.*]] = %{{.*}}) -> (tensor<1x8x3x3x32x32xf32>)
// CHECK:         scf.for %[[J:.*]] = %c0 to %c3 step %c1 iter_args(%[[P:.*]] = %[[P0]])
// CHECK:           tensor.extract_slice %[[IN:.*]][0, 0, %[[I]], %[[J]]] [1, 8, 32, 32] [1, 1, 1, 1]
// CHECK:           tensor.extract_slice %[[P]][0, 0, %[[I]], %[[J]], 0, 0] [1, 8, 1, 1, 32, 32] [1, 1, 1, 1, 1, 1] : tensor<1x8x3x3x32x32xf32> to tensor<1x8x1x1x32x32xf32>
// CHECK:           scf.for
// CHECK:             tensor.insert_slice {{.*}} [1, 1, 1, 1, 1, 16] [1, 1, 1, 1, 1, 1] : tensor<1x1x1x1x1x16xf32> into tensor<1x8x1x1x32x32xf32>
// CHECK:           tensor.insert_slice {{.*}} into %[[P]][0, 0, %[[I]], %[[J]], 0, 0] [1, 8, 1, 1, 32, 32] [1, 1, 1, 1, 1, 1] : tensor<1x8x1x1x32x32xf32> into tensor<1x8x3x3x32x32xf32>
// CHECK-NOT:   tensor.extract_slice %[[IN]]

// INPLACE-LABEL: IR Dump After TracedCpuExpandCopies
// INPLACE:       memref.alloc() {{.*}} : memref<1x8x3x3x32x32xf32>
// INPLACE-NOT:   memref.alloc() {{.*}} : memref<1x8x32x32xf32>
// INPLACE-NOT:   memref.copy
// INPLACE-NOT:   linalg.copy
