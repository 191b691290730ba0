// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s
// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file --verify-each | FileCheck %s --check-prefix=EMPTY

// Results whose size the values decide take the traced call's: nonzero
// (through argwhere) collects the nonzero positions in one sequential pass
// over the input and asserts that their count is the trace's; a float
// input is first compared with zero (NaN counts).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>) -> tensor<4x2xi64>
// CHECK: linalg.generic
// CHECK: arith.cmpf une
// CHECK: %[[LOOP:.+]]:2 = scf.for
// CHECK: tensor.insert
// CHECK: cf.assert %{{.+}}, "{{.*}}: 'torch.argwhere': the input has another number of nonzero elements than the 4 of the trace (a data-dependent shape: trace again with this input)"
// CHECK-COUNT-2: tensor.insert_slice {{.*}} into tensor<4x2xi64>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<4x2xi64> {
    %0 = call_function "torch.nonzero"(%x) : (tensor<2x3xf32>) -> tensor<4x2xi64>
    output %0 : tensor<4x2xi64>
  }
}

// -----

// bincount: one pass adding each weight to its value's bin, asserting that
// no value is negative and that max(input) + 1 (at least minlength) is the
// trace's number of bins.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3xi64>, %[[W:[a-zA-Z0-9_]+]]: tensor<3xf32>) -> tensor<5xf32>
// CHECK: %[[LOOP:.+]]:3 = scf.for
// CHECK: arith.maxsi
// CHECK: scf.if
// CHECK: arith.addf
// CHECK: cf.assert %[[LOOP]]#2, "{{.*}}: 'torch.bincount': bincount only supports 1-d non-negative integral inputs."
// CHECK: cf.assert %{{.+}}, "{{.*}}: 'torch.bincount': the input needs another number of bins than the 5 of the trace (a data-dependent shape: trace again with this input)"
// CHECK: return %[[LOOP]]#0 : tensor<5xf32>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xi64>, %w: tensor<3xf32>) -> tensor<5xf32> {
    %0 = call_function "torch.bincount"(%x, %w, minlength=3) : (tensor<3xi64>, tensor<3xf32>) -> tensor<5xf32>
    output %0 : tensor<5xf32>
  }
}

// -----

// No nonzero element in the trace: the count is still checked, and the
// result is the empty tensor itself (an insert_slice at offset 0 of its
// empty dim would not verify; op_db's nonzero of a 0-d zero found it).
// EMPTY-LABEL: func.func @forward(%{{.*}}: tensor<3xf32>) -> tensor<0x1xi64>
// EMPTY:         cf.assert
// EMPTY-NOT:     tensor.insert_slice
// EMPTY:         return
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>) -> tensor<0x1xi64> {
    %0 = call_function "torch.nonzero"(%x) : (tensor<3xf32>) -> tensor<0x1xi64>
    output %0 : tensor<0x1xi64>
  }
}
