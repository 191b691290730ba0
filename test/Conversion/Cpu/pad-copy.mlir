// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=true},canonicalize,cse))' | FileCheck %s

// A constant tensor.pad (a convolution's zero padding) becomes fills of
// the padded tensor's border and an elementwise copy into its interior,
// which the elementwise strategy vectorizes and spreads over threads.
// Bufferized as a pad, the copy was a strided memref.copy: scalar loops on
// one thread. The border is the slabs before and after the source along
// each padded dim (rows 0 and 57 across the width, then columns 0 and 57
// across the interior rows only); one fill of the whole tensor wrote every
// interior element twice.

func.func @pad(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x58x58xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x64x56x56xf32> to tensor<1x64x58x58xf32>
  return %p : tensor<1x64x58x58xf32>
}

// CHECK-LABEL: func.func @pad
// CHECK-NOT:     tensor.pad
// CHECK-NOT:     linalg.fill {{.*}} tensor<1x64x58x58xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<1x64x58x58xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x64x1x58xf32>)
// CHECK:         %[[T:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0, 0, 0] [1, 64, 1, 58]
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x64x1x58xf32>)
// CHECK:         %[[B:.*]] = tensor.insert_slice %{{.*}} into %[[T]][0, 0, 57, 0] [1, 64, 1, 58]
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x64x56x1xf32>)
// CHECK:         %[[L:.*]] = tensor.insert_slice %{{.*}} into %[[B]][0, 0, 1, 0] [1, 64, 56, 1]
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x64x56x1xf32>)
// CHECK:         %[[FILL:.*]] = tensor.insert_slice %{{.*}} into %[[L]][0, 0, 1, 57] [1, 64, 56, 1]
// CHECK:         %[[IN:.*]] = tensor.extract_slice %[[FILL]][0, 0, 1, 1] [1, 64, 56, 56] [1, 1, 1, 1]
// CHECK:         scf.forall (%{{.*}}) in (64) shared_outs(%{{.*}} = %[[IN]])
// The copy's 16-float tiles (canonicalize folds the vector tiles back into
// slice copies; after bufferization traced-cpu-expand-copies makes them
// vector transfers), then the 8-float remainder of each 56-float row.
// CHECK:           tensor.insert_slice {{.*}} [1, 1, 1, 16] [1, 1, 1, 1] : tensor<1x1x1x16xf32> into tensor<1x1x56x48xf32>
// CHECK:           tensor.insert_slice {{.*}} [1, 1, 1, 8] [1, 1, 1, 1] : tensor<1x1x1x8xf32> into tensor<1x1x56x8xf32>
// CHECK:         tensor.insert_slice %{{.*}} into %[[FILL]][0, 0, 1, 1] [1, 64, 56, 56] [1, 1, 1, 1]
