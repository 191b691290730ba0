// RUN: traced-opt %s --convert-traced-to-linalg | FileCheck %s

// Float math on an integer tensor reads it as float32 (the result type
// says so); round with decimals scales, rounds half to even and scales
// back; integer `%` never divides by 0 or -1 and takes the divisor's sign;
// integer pow squares (one step per bit of the exponent) and handles
// negative exponents; clamp with tensor bounds reads them in the result
// dtype; bfloat16 activations compute in f32 and round once.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[I:[a-zA-Z0-9_]+]]: tensor<4xi32>, %[[X:[a-zA-Z0-9_]+]]: tensor<4xf32>, %[[H:[a-zA-Z0-9_]+]]: tensor<4xbf16>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[I]] : tensor<4xi32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[F:.+]] = arith.sitofp %{{.+}} : i32 to f32
// CHECK: math.sin %[[F]] : f32
// CHECK: linalg.generic
// CHECK: %[[HUNDRED:.+]] = arith.constant 1.000000e+02 : f32
// CHECK: %[[SCALED:.+]] = arith.mulf %{{.+}}, %[[HUNDRED]] : f32
// CHECK: %[[R:.+]] = math.roundeven %[[SCALED]] : f32
// CHECK: arith.divf %[[R]], %[[HUNDRED]] : f32
// CHECK: linalg.generic
// CHECK: arith.select
// CHECK: %[[SAFE:.+]] = arith.select
// CHECK: %[[REM:.+]] = arith.remsi %{{.+}}, %[[SAFE]] : i32
// CHECK: arith.addi %[[REM]], %{{.+}} : i32
// CHECK: linalg.generic
// CHECK-COUNT-31: arith.muli %{{.+}}, %{{.+}} : i32
// CHECK: arith.cmpi slt
// CHECK: linalg.yield
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[I]], %[[X]] : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>)
// CHECK: %[[LO:.+]] = arith.sitofp %{{.+}} : i32 to f32
// CHECK: %[[M:.+]] = arith.maximumf %{{.+}}, %[[LO]] : f32
// CHECK: arith.minimumf %[[M]], %{{.+}} : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[H]] : tensor<4xbf16>) outs(%{{.+}} : tensor<4xbf16>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: math.log1p
// CHECK: arith.truncf %{{.+}} : f32 to bf16
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %i: tensor<4xi32>, %x: tensor<4xf32>, %h: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xbf16>) {
    %a = call_function "torch.sin"(input=%i) : (tensor<4xi32>) -> tensor<4xf32>
    %b = call_function "torch.round"(input=%x, decimals=2) : (tensor<4xf32>) -> tensor<4xf32>
    %c = call_function "torch.remainder"(input=%i, other=%i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %d = call_function "torch.pow"(input=%i, exponent=%i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %e = call_function "torch.clamp"(input=%x, min=%i, max=%x) : (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<4xf32>
    %f = call_function "torch.nn.functional.softplus"(input=%h, beta=2, threshold=3) : (tensor<4xbf16>) -> tensor<4xbf16>
    output %a, %b, %c, %d, %e, %f : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xbf16>
  }
}
