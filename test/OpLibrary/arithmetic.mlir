// RUN: traced-opt %s | FileCheck %s

// Broadcasting arithmetic on tensors and Python numbers, with PyTorch's type
// promotion.

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %a: tensor<4x1x3xf32>, %b: tensor<5x1xf32>, %i: tensor<3xi64>, %h: tensor<3xf16>, %d: tensor<3xf64>, %n: i64, %f: f64) {
    // CHECK: call_method %a["__add__"](other=%b) : (tensor<4x1x3xf32>, tensor<5x1xf32>) -> tensor<4x5x3xf32>
    %0 = call_method %a["__add__"](%b) : (tensor<4x1x3xf32>, tensor<5x1xf32>) -> tensor<4x5x3xf32>
    // CHECK: call_function "operator.mul"(input=%a, other=2.0) : (tensor<4x1x3xf32>) -> tensor<4x1x3xf32>
    %1 = call_function "operator.mul"(%a, 2.0) : (tensor<4x1x3xf32>) -> tensor<4x1x3xf32>
    // An int tensor times a float: the default float dtype.
    // CHECK: call_method %i["__mul__"](other=0.5) : (tensor<3xi64>) -> tensor<3xf32>
    %2 = call_method %i["__mul__"](0.5) : (tensor<3xi64>) -> tensor<3xf32>
    // True division of ints gives floats.
    // CHECK: call_method %i["__truediv__"](other=2) : (tensor<3xi64>) -> tensor<3xf32>
    %3 = call_method %i["__truediv__"](2) : (tensor<3xi64>) -> tensor<3xf32>
    // CHECK: call_function "torch.div"(input=%i, other=2, rounding_mode="floor") : (tensor<3xi64>) -> tensor<3xi64>
    %4 = call_function "torch.div"(%i, 2, rounding_mode="floor") : (tensor<3xi64>) -> tensor<3xi64>
    // Tensors of two float types: the wider.
    // CHECK: call_function "torch.add"(input=%h, other=%d) : (tensor<3xf16>, tensor<3xf64>) -> tensor<3xf64>
    %5 = call_function "torch.add"(%h, %d) : (tensor<3xf16>, tensor<3xf64>) -> tensor<3xf64>
    // A float tensor with an int tensor: the float.
    // CHECK: call_function "torch.sub"(input=%i, other=%h, alpha=2) : (tensor<3xi64>, tensor<3xf16>) -> tensor<3xf16>
    %6 = call_function "torch.sub"(%i, %h, alpha=2) : (tensor<3xi64>, tensor<3xf16>) -> tensor<3xf16>
    // Python numbers: size arithmetic stays in ints.
    // CHECK: call_function "operator.mul"(input=%n, other=2) : (i64) -> i64
    %7 = call_function "operator.mul"(%n, 2) : (i64) -> i64
    // CHECK: call_function "operator.floordiv"(input=%n, other=2) : (i64) -> i64
    %8 = call_function "operator.floordiv"(%n, 2) : (i64) -> i64
    // CHECK: call_function "operator.truediv"(input=%n, other=%n) : (i64, i64) -> f64
    %9 = call_function "operator.truediv"(%n, %n) : (i64, i64) -> f64
    // CHECK: call_function "operator.add"(input=%f, other=%n) : (f64, i64) -> f64
    %10 = call_function "operator.add"(%f, %n) : (f64, i64) -> f64
    // Reflected operators: `1 - x` and `1 / x`.
    // CHECK: call_method %a["__rsub__"](other=1) : (tensor<4x1x3xf32>) -> tensor<4x1x3xf32>
    %11 = call_method %a["__rsub__"](1) : (tensor<4x1x3xf32>) -> tensor<4x1x3xf32>
    // CHECK: call_method %i["__rtruediv__"](other=1) : (tensor<3xi64>) -> tensor<3xf32>
    %12 = call_method %i["__rtruediv__"](1) : (tensor<3xi64>) -> tensor<3xf32>
    // CHECK: call_method %a["__radd__"](other=%n) : (tensor<4x1x3xf32>, i64) -> tensor<4x1x3xf32>
    %13 = call_method %a["__radd__"](%n) : (tensor<4x1x3xf32>, i64) -> tensor<4x1x3xf32>
    // CHECK: call_function "torch.neg"(input=%a) : (tensor<4x1x3xf32>) -> tensor<4x1x3xf32>
    %14 = call_function "torch.neg"(%a) : (tensor<4x1x3xf32>) -> tensor<4x1x3xf32>
    // CHECK: call_method %a["__pow__"](exponent=2) : (tensor<4x1x3xf32>) -> tensor<4x1x3xf32>
    %15 = call_method %a["__pow__"](2) : (tensor<4x1x3xf32>) -> tensor<4x1x3xf32>
    output
  }
}

// Quantized tensors (test/OpLibrary/quantized.mlir) take no float
// arithmetic; float tensors beside them are typed as before.
traced.module @Q class "__main__.Q" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@Q>, %x: tensor<2x2xf32>) {
    // Power broadcasts like the other binary operators.
    // CHECK: call_function "torch.pow"(input=%x, exponent=%x) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %3 = call_function "torch.pow"(%x, %x) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    output
  }
}
