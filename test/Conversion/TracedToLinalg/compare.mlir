// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// Comparisons read their operands in the promoted dtype and store bools
// (i8 holding 0 or 1): floats with ordered predicates except `!=` (NaN !=
// NaN is true), uint8 with unsigned ones; Python numbers are constants.
// logical_* read truth values (NaN is true); where reads its condition as
// bool and its values in the result dtype; isnan is `x uno x`.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3x4xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<4xi32>, %[[U:[a-zA-Z0-9_]+]]: tensor<4xi8>, %[[C:[a-zA-Z0-9_]+]]: tensor<3x4xi8>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[X]] : tensor<3x4xf32>, tensor<3x4xf32>) outs(%{{.+}} : tensor<3x4xi8>)
// CHECK: %[[NE:.+]] = arith.cmpf une
// CHECK: %[[NE8:.+]] = arith.extui %[[NE]] : i1 to i8
// CHECK: linalg.yield %[[NE8]] : i8
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<3x4xf32>, tensor<4xi32>)
// CHECK: ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: i32, %{{.+}}: i8):
// CHECK: %[[BF:.+]] = arith.sitofp %[[B]] : i32 to f32
// CHECK: arith.cmpf olt, %[[A]], %[[BF]] : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[U]] : tensor<4xi8>)
// CHECK: %[[TWO:.+]] = arith.constant 2 : i8
// CHECK: arith.cmpi ugt, %{{.+}}, %[[TWO]] : i8
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[C]] : tensor<3x4xf32>, tensor<3x4xi8>)
// CHECK: arith.cmpi ne
// CHECK: arith.cmpf une
// CHECK: arith.andi %{{.+}}, %{{.+}} : i1
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[C]], %[[X]], %[[Y]] : tensor<3x4xi8>, tensor<3x4xf32>, tensor<4xi32>) outs(%{{.+}} : tensor<3x4xf32>)
// CHECK: arith.cmpi ne
// CHECK: %[[OTHER:.+]] = arith.sitofp
// CHECK: arith.select %{{.+}}, %{{.+}}, %[[OTHER]] : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<3x4xf32>)
// CHECK: arith.cmpf uno
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>, %y: tensor<4xi32>, %u: tensor<4xui8>, %c: tensor<3x4xi1>) -> (tensor<3x4xi1>, tensor<3x4xi1>, tensor<4xi1>, tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xi1>) {
    %a = call_function "torch.ne"(input=%x, other=%x) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %b = call_function "torch.lt"(input=%x, other=%y) : (tensor<3x4xf32>, tensor<4xi32>) -> tensor<3x4xi1>
    %d = call_function "torch.gt"(input=%u, other=2) : (tensor<4xui8>) -> tensor<4xi1>
    %e = call_function "torch.logical_and"(input=%x, other=%c) : (tensor<3x4xf32>, tensor<3x4xi1>) -> tensor<3x4xi1>
    %f = call_function "torch.where"(condition=%c, input=%x, other=%y) : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<4xi32>) -> tensor<3x4xf32>
    %g = call_function "torch.isnan"(input=%x) : (tensor<3x4xf32>) -> tensor<3x4xi1>
    output %a, %b, %d, %e, %f, %g : tensor<3x4xi1>, tensor<3x4xi1>, tensor<4xi1>, tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xi1>
  }
}

// -----

// Bitwise ops compute in the result dtype. Shifts are torch 1.13's on x86:
// narrower types shift in i32 (uint8 zero-extended, so its right shift is
// logical; signed types sign-extended, arithmetic), and the amount is taken
// modulo the width (31 or 63), so arith's shifts are never poison;
// bitwise_not is xor with -1.
// CHECK-LABEL: func.func @forward(
// CHECK: %[[U:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: %[[UA:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: %[[M31:.+]] = arith.constant 31 : i32
// CHECK: %[[UN:.+]] = arith.andi %[[UA]], %[[M31]] : i32
// CHECK: %[[SHR8:.+]] = arith.shrui %[[U]], %[[UN]] : i32
// CHECK: arith.trunci %[[SHR8]] : i32 to i8
// CHECK: %[[N:.+]] = arith.andi %{{.+}}, %{{.+}} : i32
// CHECK: arith.shrsi %{{.+}}, %[[N]] : i32
// CHECK: %[[ONES:.+]] = arith.constant -1 : i32
// CHECK: arith.xori %{{.+}}, %[[ONES]] : i32
// maximum keeps the input on a tie (-0.0 against 0.0) and propagates NaN:
// selects, not arith.maximumf (which orders -0.0 below 0.0).
// CHECK: %[[GT:.+]] = arith.cmpf ogt, %[[Y:.+]], %[[X:.+]] : f32
// CHECK: %[[PICK:.+]] = arith.select %[[GT]], %[[Y]], %[[X]] : f32
// CHECK: %[[XNAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[YNAN:.+]] = arith.cmpf uno, %[[Y]], %[[Y]] : f32
// CHECK: %[[P2:.+]] = arith.select %[[YNAN]], %[[Y]], %[[PICK]] : f32
// CHECK: arith.select %[[XNAN]], %[[X]], %[[P2]] : f32
// fmax skips NaN instead: the other operand.
// CHECK: %[[GT2:.+]] = arith.cmpf ogt, %[[Y2:.+]], %[[X2:.+]] : f32
// CHECK: %[[PICK2:.+]] = arith.select %[[GT2]], %[[Y2]], %[[X2]] : f32
// CHECK: %[[XNAN2:.+]] = arith.cmpf uno, %[[X2]], %[[X2]] : f32
// CHECK: %[[YNAN2:.+]] = arith.cmpf uno, %[[Y2]], %[[Y2]] : f32
// CHECK: %[[P3:.+]] = arith.select %[[YNAN2]], %[[X2]], %[[PICK2]] : f32
// CHECK: arith.select %[[XNAN2]], %[[Y2]], %[[P3]] : f32
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %u: tensor<4xui8>, %i: tensor<4xi32>, %x: tensor<4xf32>) -> (tensor<4xui8>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) {
    %a = call_function "torch.bitwise_right_shift"(input=%u, other=%u) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
    %b = call_function "torch.bitwise_right_shift"(input=%i, other=%i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %c = call_function "torch.bitwise_not"(input=%i) : (tensor<4xi32>) -> tensor<4xi32>
    %d = call_function "torch.maximum"(input=%x, other=%x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %e = call_function "torch.fmax"(input=%x, other=%x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    output %a, %b, %c, %d, %e : tensor<4xui8>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>
  }
}
