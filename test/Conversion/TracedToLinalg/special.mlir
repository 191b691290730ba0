// RUN: traced-opt %s --convert-traced-to-linalg | FileCheck %s

// The special functions (include/TracedIR/Support/SpecialFunctions.h) are
// one linalg.generic each: lgamma of float32 computes in f64 and rounds
// once; zeta's direct sum, gcd's Euclid and a polynomial's recurrence are
// scf.while loops in the body (the trip count is the data's; the
// polynomial's carries its step count in two parts, lo and hi, then p, q).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4xf32>, %[[Q:[a-zA-Z0-9_]+]]: tensor<4xf64>, %[[I:[a-zA-Z0-9_]+]]: tensor<4xi32>, %[[N:[a-zA-Z0-9_]+]]: tensor<4xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<4xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK: arith.extf %{{.+}} : f32 to f64
// CHECK: math.log %{{.+}} : f64
// CHECK: arith.truncf %{{.+}} : f64 to f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[Q]], %[[Q]] : tensor<4xf64>, tensor<4xf64>)
// CHECK: math.powf
// CHECK: scf.while
// CHECK-SAME: (f64, f64, f64, f64, f64) -> (f64, f64, f64, f64, f64)
// CHECK: scf.condition
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[I]], %[[I]] : tensor<4xi32>, tensor<4xi32>)
// CHECK: scf.while
// CHECK-SAME: (i32, i32) -> (i32, i32)
// CHECK: arith.remsi %{{.+}}, %{{.+}} : i32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[N]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: math.trunc
// CHECK: scf.while
// CHECK-SAME: (f32, f32, f32, f32) -> (f32, f32, f32, f32)
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>, %q: tensor<4xf64>, %i: tensor<4xi32>, %n: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf64>, tensor<4xi32>, tensor<4xf32>) {
    %a = call_function "torch.lgamma"(input=%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = call_function "torch.special.zeta"(input=%q, other=%q) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
    %c = call_function "torch.gcd"(input=%i, other=%i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %d = call_function "torch.special.legendre_polynomial_p"(input=%x, n=%n) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    output %a, %b, %c, %d : tensor<4xf32>, tensor<4xf64>, tensor<4xi32>, tensor<4xf32>
  }
}

