// RUN: traced-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(traced-cpu-strided-reads))" | FileCheck %s

// A stride-2 read of 16 bytes (a max pool tap) becomes one masked read of
// the 31 bytes they span, as a 32-byte vector, and a shuffle keeping the
// even ones. The first element's offset is the view's offset plus its
// indices times their strides.
// CHECK-LABEL: func.func @stride_two
// CHECK-SAME:    (%[[SRC:.*]]: memref<1x56x56xi8, strided<[12769, 226, 2], offset: ?>>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK:         %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:3, %{{.*}}:3 = memref.extract_strided_metadata %[[SRC]]
// CHECK:         %[[FLAT:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [%{{.*}}], sizes: [31], strides: [1]
// CHECK:         %[[WIDE:.*]] = vector.transfer_read %[[FLAT]][%{{.*}}], %{{.*}} : memref<31xi8, strided<[1], offset: ?>>, vector<32xi8>
// CHECK-NOT:     in_bounds = [true]
// CHECK:         %[[V:.*]] = vector.shuffle %[[WIDE]], %[[WIDE]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xi8>, vector<32xi8>
// CHECK:         return %[[V]]
func.func @stride_two(%src: memref<1x56x56xi8, strided<[12769, 226, 2], offset: ?>>, %i: index, %j: index) -> vector<16xi8> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0 : i8
  %v = vector.transfer_read %src[%c0, %i, %j], %pad {in_bounds = [true]} : memref<1x56x56xi8, strided<[12769, 226, 2], offset: ?>>, vector<16xi8>
  return %v : vector<16xi8>
}

// -----

// Float32 at stride 3: 8 elements span 22, read as 32.
// CHECK-LABEL: func.func @stride_three
// CHECK:         memref.reinterpret_cast {{.*}} sizes: [22], strides: [1]
// CHECK:         vector.transfer_read {{.*}} : memref<22xf32, strided<[1], offset: ?>>, vector<32xf32>
// CHECK:         vector.shuffle {{.*}} [0, 3, 6, 9, 12, 15, 18, 21] : vector<32xf32>, vector<32xf32>
func.func @stride_three(%src: memref<30xf32, strided<[3]>>) -> vector<8xf32> {
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%c1], %pad {in_bounds = [true]} : memref<30xf32, strided<[3]>>, vector<8xf32>
  return %v : vector<8xf32>
}

// -----

// Left alone: a read that may leave its view (its span could too), unit
// stride, a stride past 8, a transposing read, a 2-D vector.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     vector.shuffle
// CHECK-NOT:     memref.reinterpret_cast
func.func @left_alone(%a: memref<56xi8, strided<[2]>>, %b: memref<56xi8>, %c: memref<560xi8, strided<[9]>>,
                      %d: memref<8x8xi8, strided<[16, 2]>>, %i: index)
    -> (vector<16xi8>, vector<16xi8>, vector<16xi8>, vector<8xi8>, vector<2x4xi8>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0 : i8
  %0 = vector.transfer_read %a[%i], %pad : memref<56xi8, strided<[2]>>, vector<16xi8>
  %1 = vector.transfer_read %b[%i], %pad {in_bounds = [true]} : memref<56xi8>, vector<16xi8>
  %2 = vector.transfer_read %c[%i], %pad {in_bounds = [true]} : memref<560xi8, strided<[9]>>, vector<16xi8>
  %3 = vector.transfer_read %d[%c0, %i], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<8x8xi8, strided<[16, 2]>>, vector<8xi8>
  %4 = vector.transfer_read %d[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x8xi8, strided<[16, 2]>>, vector<2x4xi8>
  return %0, %1, %2, %3, %4 : vector<16xi8>, vector<16xi8>, vector<16xi8>, vector<8xi8>, vector<2x4xi8>
}
