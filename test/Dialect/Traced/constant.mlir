// RUN: traced-opt %s | FileCheck %s

// Constant exprs: tensors and Python values.

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>) {
    // CHECK: %const_tensor = constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
    %0 = constant dense<[1.0, 2.0]> : tensor<2xf32>
    // CHECK: %const_tensor_0 = constant dense_resource<blob> : tensor<2xi64>
    %1 = constant dense_resource<blob> : tensor<2xi64>
    // CHECK: %const = constant 3 : i64
    %2 = constant 3 : i64
    // CHECK: %const_1 = constant -2.5 : f64
    %3 = constant -2.5 : f64
    // CHECK: %const_2 = constant True : i1
    %4 = constant True : i1
    // CHECK: %const_3 = constant "mean" : !traced.str
    %5 = constant "mean" : !traced.str
    // CHECK: %const_4 = constant None : !traced.none
    %6 = constant None : !traced.none
    // CHECK: %const_5 = constant [1, 2] : !traced.list<i64>
    %7 = constant [1, 2] : !traced.list<i64>
    // CHECK: %const_6 = constant (1, 2.0) : tuple<i64, f64>
    %8 = constant (1, 2.0) : tuple<i64, f64>
    // CHECK: %const_7 = constant object("Generator") : !traced.object
    %9 = constant object("Generator") : !traced.object
    output
  }
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x0800000001000000000000000200000000000000"
    }
  }
#-}
