// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// Tensors are lowered in storage types: bool (i1) as i8 holding 0 or 1,
// uint8 (ui8) as signless i8; `traced.entry` keeps the traced types. The
// arithmetic follows the traced element types.

// uint8 widens unsigned.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4xi8>, %[[Y:[a-zA-Z0-9_]+]]: tensor<4xi32>) -> tensor<4xi32>
// CHECK-SAME: traced.entry = (tensor<4xui8>, tensor<4xi32>) -> tensor<4xi32>
// CHECK: linalg.generic {{.+}} ins(%[[X]], %[[Y]] : tensor<4xi8>, tensor<4xi32>)
// CHECK: ^bb0(%[[A:.+]]: i8, %[[B:.+]]: i32, %{{.+}}: i32):
// CHECK: %[[W:.+]] = arith.extui %[[A]] : i8 to i32
// CHECK: arith.addi %[[W]], %[[B]] : i32
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xui8>, %y: tensor<4xi32>) -> tensor<4xi32> {
    %z = call_function "torch.add"(input=%x, other=%y) : (tensor<4xui8>, tensor<4xi32>) -> tensor<4xi32>
    output %z : tensor<4xi32>
  }
}

// -----

// uint8 floor division is divui; no division by zero is ever executed
// (the divisor 0 is replaced by 1 and the quotient by 0).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: traced.entry = (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
// CHECK: ^bb0(%[[A:.+]]: i8, %[[B:.+]]: i8, %{{.+}}: i8):
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i8
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i8
// CHECK: %[[IS0:.+]] = arith.cmpi eq, %[[B]], %[[ZERO]] : i8
// CHECK: %[[SAFE:.+]] = arith.select %[[IS0]], %[[ONE]], %[[B]] : i8
// CHECK: %[[Q:.+]] = arith.divui %[[A]], %[[SAFE]] : i8
// CHECK: %[[R:.+]] = arith.select %[[IS0]], %[[ZERO]], %[[Q]] : i8
// CHECK: linalg.yield %[[R]] : i8
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
    %z = call_function "torch.floor_divide"(input=%x, other=%y) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
    output %z : tensor<4xui8>
  }
}

// -----

// Signed floor division never divides by -1 either (INT_MIN / -1 traps).
// CHECK-LABEL: func.func @forward(
// CHECK: ^bb0(%[[A:.+]]: i32, %[[B:.+]]: i32, %{{.+}}: i32):
// CHECK-DAG: %[[M1:.+]] = arith.constant -1 : i32
// CHECK: %[[ISM1:.+]] = arith.cmpi eq, %[[B]], %[[M1]] : i32
// CHECK: %[[SAFE:.+]] = arith.select %{{.+}}, %{{.+}}, %[[B]] : i32
// CHECK: arith.divsi %[[A]], %[[SAFE]] : i32
// CHECK: arith.remsi %[[A]], %[[SAFE]] : i32
// CHECK: %[[NEG:.+]] = arith.subi %{{.+}}, %[[A]] : i32
// CHECK: arith.select %[[ISM1]], %[[NEG]], %{{.+}} : i32
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
    %z = call_function "torch.floor_divide"(input=%x, other=%y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    output %z : tensor<4xi32>
  }
}

// -----

// bool + bool is or: bytes read with `!= 0`, the result stored with extui.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: tensor<4xi8>, %{{.+}}: tensor<4xi8>) -> tensor<4xi8>
// CHECK-SAME: traced.entry = (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// CHECK: ^bb0(%[[A:.+]]: i8, %[[B:.+]]: i8, %{{.+}}: i8):
// CHECK: %[[P:.+]] = arith.cmpi ne, %[[A]], %{{.+}} : i8
// CHECK: %[[Q:.+]] = arith.cmpi ne, %[[B]], %{{.+}} : i8
// CHECK: %[[OR:.+]] = arith.ori %[[P]], %[[Q]] : i1
// CHECK: %[[R:.+]] = arith.extui %[[OR]] : i1 to i8
// CHECK: linalg.yield %[[R]] : i8
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xi1>, %y: tensor<4xi1>) -> tensor<4xi1> {
    %z = call_function "torch.add"(input=%x, other=%y) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    output %z : tensor<4xi1>
  }
}

// -----

// float16 computes in f32 and rounds once per op.
// CHECK-LABEL: func.func @forward(
// CHECK: ^bb0(%[[A:.+]]: f16, %{{.+}}: f16):
// CHECK: %[[E:.+]] = arith.extf %[[A]] : f16 to f32
// CHECK: %[[C:.+]] = arith.constant 2.500000e+00 : f32
// CHECK: %[[M:.+]] = arith.mulf %[[E]], %[[C]] : f32
// CHECK: %[[T:.+]] = arith.truncf %[[M]] : f32 to f16
// CHECK: linalg.yield %[[T]] : f16
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf16>) -> tensor<4xf16> {
    %z = call_function "torch.mul"(input=%x, other=2.5) : (tensor<4xf16>) -> tensor<4xf16>
    output %z : tensor<4xf16>
  }
}

// -----

// Constants: bool parameters become i8 bytes; resources of at most one
// element become dense attributes (upstream reads a 0-d global as a splat
// and cannot on a resource); bigger ones stay shared resources, retyped.
// (Empty ones are covered by python/tests/test_compile_crashes.py: an empty
// blob does not round-trip through bytecode, see round-trip.test.)
// CHECK-LABEL: func.func @forward()
// CHECK-SAME: -> (tensor<2xi8>, tensor<f32>, tensor<3xi8>)
// CHECK-DAG: arith.constant dense<[1, 0]> : tensor<2xi8>
// CHECK-DAG: arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: arith.constant dense_resource<flags> : tensor<3xi8>
traced.module root @M class "m.M" {
  parameter @w : tensor<2xi1> = dense<[true, false]> : tensor<2xi1>
  graph @forward(%self: !traced.module<@M>) -> (tensor<2xi1>, tensor<f32>, tensor<3xi1>) {
    %w = getattr %self["w"] : !traced.module<@M> -> tensor<2xi1>
    %c = constant dense_resource<two> : tensor<f32>
    %f = constant dense_resource<flags> : tensor<3xi1>
    output %w, %c, %f : tensor<2xi1>, tensor<f32>, tensor<3xi1>
  }
}

{-#
  dialect_resources: {
    builtin: {
      two: "0x0400000000000040",
      flags: "0x01000000010001"
    }
  }
#-}
