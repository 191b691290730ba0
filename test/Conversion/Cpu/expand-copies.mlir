// RUN: traced-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(traced-cpu-expand-copies))" | FileCheck %s

// A small tile with contiguous rows between strided views becomes vector
// transfers (one 16-float row here).
// CHECK-LABEL: func.func @row_tile
// CHECK-NOT:     memref.copy
// CHECK:         %[[V:.*]] = vector.transfer_read %arg0{{.*}} : memref<1x1x16xf32, strided<[1024, 32, 1], offset: ?>>, vector<1x1x16xf32>
// CHECK:         vector.transfer_write %[[V]], %arg1{{.*}} : vector<1x1x16xf32>, memref<1x1x16xf32, strided<[16384, 32, 1], offset: ?>>
func.func @row_tile(%src: memref<1x1x16xf32, strided<[1024, 32, 1], offset: ?>>,
                    %dst: memref<1x1x16xf32, strided<[16384, 32, 1], offset: ?>>) {
  memref.copy %src, %dst : memref<1x1x16xf32, strided<[1024, 32, 1], offset: ?>> to memref<1x1x16xf32, strided<[16384, 32, 1], offset: ?>>
  return
}

// -----

// A bigger copy with contiguous rows is a loop over the rows around
// 16-wide row vectors, and one shorter vector for the rest of a row (as
// linalg.copy's scalar loops, LLVM vectorized it across rows with gathers
// and scatters). Column-strided copies become linalg.copy (then loops).
// CHECK-LABEL: func.func @big
// CHECK-NOT:     linalg.copy
// CHECK:         scf.for %[[R:.*]] = %c0 to %c64 step %c1
// CHECK:           scf.for %[[C:.*]] = %c0 to %c192 step %c16
// CHECK:             %[[V:.*]] = vector.transfer_read %arg0[%[[R]], %[[C]]]{{.*}}{in_bounds = [true]} : memref<64x196xf32, strided<[1024, 1], offset: ?>>, vector<16xf32>
// CHECK:             vector.transfer_write %[[V]], %arg1[%[[R]], %[[C]]]
// CHECK:           %[[T:.*]] = vector.transfer_read %arg0[%[[R]], %{{.*}}]{{.*}} : memref<64x196xf32, strided<[1024, 1], offset: ?>>, vector<4xf32>
// CHECK:           vector.transfer_write %[[T]], %arg1[%[[R]], %{{.*}}]
// CHECK-LABEL: func.func @column
// CHECK:         linalg.copy
// CHECK-LABEL: func.func @contiguous
// CHECK:         memref.copy
func.func @big(%src: memref<64x196xf32, strided<[1024, 1], offset: ?>>, %dst: memref<64x196xf32>) {
  memref.copy %src, %dst : memref<64x196xf32, strided<[1024, 1], offset: ?>> to memref<64x196xf32>
  return
}
func.func @column(%src: memref<8x1xf32, strided<[1024, 1024], offset: ?>>, %dst: memref<8x1xf32, strided<[1, 1], offset: ?>>) {
  memref.copy %src, %dst : memref<8x1xf32, strided<[1024, 1024], offset: ?>> to memref<8x1xf32, strided<[1, 1], offset: ?>>
  return
}
func.func @contiguous(%src: memref<64xf32>, %dst: memref<64xf32>) {
  memref.copy %src, %dst : memref<64xf32> to memref<64xf32>
  return
}

// -----

// With vector-tiles=false (the GPU pipeline) every strided copy is a loop.
// RUN: traced-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(traced-cpu-expand-copies{vector-tiles=false}))" | FileCheck %s --check-prefix=LOOPS
// LOOPS-LABEL: func.func @row_tile
// LOOPS-NOT:     vector.transfer_read
// LOOPS:         linalg.copy
