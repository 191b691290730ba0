// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// A factorization is a call of the linear-algebra runtime
// (docs/linalg-runtime.md): the input copied into a fresh contiguous
// buffer, fresh buffers for the results, each passed as memref<?xT>, the
// sizes and flags as i64; the call returns LAPACK's first nonzero info,
// which a run-time check reads where torch raises (linalg.cholesky; the _ex
// forms return info instead).
// CHECK-LABEL: func.func private @traced_linalg_cholesky_f32(memref<?xf32>, memref<?xf32>, memref<?xi32>, i64, i64, i64) -> i32
// CHECK-LABEL: func.func @forward(
// CHECK: %[[IN:.+]] = memref.alloc() : memref<50xf32>
// CHECK: bufferization.materialize_in_destination %{{.+}} in restrict writable %[[IN]] : (tensor<50xf32>, memref<50xf32>) -> ()
// CHECK: %[[A:.+]] = memref.cast %[[IN]] : memref<50xf32> to memref<?xf32>
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<50xf32>
// CHECK: %[[L:.+]] = memref.cast %[[OUT]] : memref<50xf32> to memref<?xf32>
// CHECK: %[[INFO:.+]] = memref.alloc() : memref<2xi32>
// CHECK: %[[I:.+]] = memref.cast %[[INFO]] : memref<2xi32> to memref<?xi32>
// CHECK-DAG: %[[BATCH:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[N:.+]] = arith.constant 5 : i64
// CHECK-DAG: %[[UPPER:.+]] = arith.constant 1 : i64
// CHECK: %[[STATUS:.+]] = call @traced_linalg_cholesky_f32(%[[A]], %[[L]], %[[I]], %[[BATCH]], %[[N]], %[[UPPER]]) : (memref<?xf32>, memref<?xf32>, memref<?xi32>, i64, i64, i64) -> i32
// CHECK: %[[T:.+]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<50xf32> to tensor<50xf32>
// CHECK: %[[L3:.+]] = tensor.expand_shape %[[T]] {{.+}} : tensor<50xf32> into tensor<2x5x5xf32>
// CHECK: %[[OK:.+]] = arith.cmpi eq, %[[STATUS]], %{{.+}} : i32
// CHECK: cf.assert %[[OK]], "{{.*}}'torch.linalg.cholesky': The factorization could not be completed because the input is not positive-definite."
// CHECK: return %[[L3]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x5x5xf32>) -> (tensor<2x5x5xf32>) {
    %l = call_function "torch.linalg.cholesky"(A=%x, upper=true) : (tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    output %l : tensor<2x5x5xf32>
  }
}

// -----

// A tuple's element is lowered where operator.getitem reads it: QR's R
// (mode "reduced" of a 5x3 matrix: Q 5x3, R 3x3) from one call of the
// float64 entry point.
// CHECK-LABEL: func.func private @traced_linalg_qr_f64(memref<?xf64>, memref<?xf64>, memref<?xf64>, i64, i64, i64, i64) -> i32
// CHECK-LABEL: func.func @forward(
// CHECK: %[[IN:.+]] = memref.alloc() : memref<15xf64>
// CHECK: bufferization.materialize_in_destination %{{.+}} in restrict writable %[[IN]]
// CHECK: %[[Q:.+]] = memref.alloc() : memref<15xf64>
// CHECK: %[[R:.+]] = memref.alloc() : memref<9xf64>
// CHECK: call @traced_linalg_qr_f64(
// CHECK: bufferization.to_tensor %[[Q]] restrict writable
// CHECK: %[[RT:.+]] = bufferization.to_tensor %[[R]] restrict writable : memref<9xf64> to tensor<9xf64>
// CHECK: %[[RM:.+]] = tensor.expand_shape %[[RT]] {{.+}} : tensor<9xf64> into tensor<3x3xf64>
// CHECK: return %[[RM]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<5x3xf64>) -> (tensor<3x3xf64>) {
    %qr = call_function "torch.linalg.qr"(A=%x) : (tensor<5x3xf64>) -> tuple<tensor<5x3xf64>, tensor<3x3xf64>>
    %r = call_function "operator.getitem"(input=%qr, index=1) : (tuple<tensor<5x3xf64>, tensor<3x3xf64>>) -> tensor<3x3xf64>
    output %r : tensor<3x3xf64>
  }
}

// -----

// matrix_exp is the runtime's own routine (torch 1.13's polynomials, with
// scaling and squaring), on the whole batch: no status to check.
// CHECK-LABEL: func.func private @traced_linalg_matrix_exp_f32(memref<?xf32>, memref<?xf32>, i64, i64) -> i32
// CHECK-LABEL: func.func @forward(
// CHECK-DAG: %[[BATCH:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[N:.+]] = arith.constant 4 : i64
// CHECK: call @traced_linalg_matrix_exp_f32(%{{.+}}, %{{.+}}, %[[BATCH]], %[[N]])
// CHECK-NOT: cf.assert
// CHECK: return
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4x4xf32>) -> (tensor<3x4x4xf32>) {
    %e = call_function "torch.linalg.matrix_exp"(A=%x) : (tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
    output %e : tensor<3x4x4xf32>
  }
}

// -----

// lstsq's solution (gels of a 4x3 matrix): one call computes the solution,
// the residuals' sums, ranks and singular values; gels raises for a
// rank-deficient matrix (its status checked). rcond is a one-element
// buffer; the last two ints are the driver (0: gels) and the ranks the
// residuals' traced shape expects (0: none checked).
// CHECK-LABEL: func.func private @traced_linalg_lstsq_f64(memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xi64>, memref<?xf64>, memref<?xi32>, i64, i64, i64, i64, i64, i64) -> i32
// CHECK-LABEL: func.func @forward(
// CHECK: %[[STATUS:.+]] = call @traced_linalg_lstsq_f64(
// CHECK-SAME: %c1_i64, %c4_i64, %c3_i64, %c2_i64, %c0_i64, %c0_i64{{.*}})
// CHECK: cf.assert %{{.+}}, "{{.*}}does not have full rank."
// CHECK: return
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %a: tensor<4x3xf64>, %b: tensor<4x2xf64>) -> (tensor<3x2xf64>) {
    %r = call_function "torch.linalg.lstsq"(A=%a, B=%b, driver="gels") : (tensor<4x3xf64>, tensor<4x2xf64>) -> tuple<tensor<3x2xf64>, tensor<2xf64>, tensor<0xi64>, tensor<0xf64>>
    %x = call_function "operator.getitem"(input=%r, index=0) : (tuple<tensor<3x2xf64>, tensor<2xf64>, tensor<0xi64>, tensor<0xf64>>) -> tensor<3x2xf64>
    output %x : tensor<3x2xf64>
  }
}
