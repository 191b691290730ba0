// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=true min-parallel-flops=0},canonicalize,cse))' | FileCheck %s
// RUN: traced-opt %s --traced-cpu-pipeline -o /dev/null

// Reductions are vectorized. Along rows (the reduced dim is the
// contiguous one: a layer norm's mean, a softmax's max): chunks of up to
// 256 elements, one vector.reduction each, into an accumulator carried in
// a register along the chunk loop; a reduced dim no multiple of 16 up to
// 256 divides is split into whole chunks and one shorter vector. Across
// rows (the contiguous dim is kept): 16 outputs at a time, the reduction
// loop innermost, one vector add per row. Outer parallel dims go to
// threads as for elementwise ops (2^14 iterations or more). Before, all of
// these were convert-linalg-to-loops' scalar loops.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @rows(%x: tensor<64x768xf32>) -> tensor<64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x768xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
func.func @row_max(%x: tensor<12x197xf32>, %init: tensor<12xf32>) -> tensor<12xf32> {
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<12x197xf32>) outs(%init : tensor<12xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.maximumf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<12xf32>
  return %r : tensor<12xf32>
}
func.func @row_remainder(%x: tensor<2x1000xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x1000xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func @columns(%x: tensor<100x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<100x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// CHECK-LABEL: func.func @rows
// CHECK:         scf.forall (%{{.*}}) in (64)
// CHECK:           scf.for %{{.*}} = %c0 to %c768 step %c256 iter_args(%{{.*}} = %{{.*}}) -> (vector<1xf32>)
// CHECK:             vector.transfer_read {{.*}} : tensor<1x256xf32>, vector<256xf32>
// CHECK:             vector.reduction <add>, %{{.*}}, %{{.*}} : vector<256xf32> into f32
// CHECK-NOT:     linalg.generic

// CHECK-LABEL: func.func @row_max
// CHECK-NOT:     scf.forall
// CHECK:         vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<197xf32> into f32
// CHECK-NOT:     linalg.generic

// CHECK-LABEL: func.func @row_remainder
// CHECK:         tensor.extract_slice %arg0[0, 0] [2, 768]
// CHECK:         vector.reduction <add>, %{{.*}}, %{{.*}} : vector<256xf32> into f32
// CHECK:         tensor.extract_slice %arg0[0, 768] [2, 232]
// CHECK:         vector.reduction <add>, %{{.*}}, %{{.*}} : vector<232xf32> into f32
// CHECK-NOT:     linalg.generic

// CHECK-LABEL: func.func @columns
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK:           scf.for %{{.*}} = %c0 to %c100 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<16xf32>)
// CHECK:             %[[ROW:.*]] = vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<16xf32>
// CHECK:             arith.addf %[[ROW]], %[[ACC]] : vector<16xf32>
// CHECK-NOT:     linalg.generic
