// Dtypes torch 1.13 rejects on the CPU are rejected at the call, naming
// the op and the dtype it would compute in; accepted promotions type-check.
// RUN: traced-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: traced.module root @Promotions
traced.module root @Promotions class "m.M" {
  graph @forward(%self: !traced.module<@Promotions>, %i: tensor<4xi32>, %z: tensor<i64>, %b: tensor<4xi1>, %h: tensor<4xf16>) -> tensor<4xf32> {
    // A 0-d tensor does not promote within its category...
    // CHECK: (tensor<4xi32>, tensor<i64>) -> tensor<4xi32>
    %0 = call_function "torch.add"(%i, %z) : (tensor<4xi32>, tensor<i64>) -> tensor<4xi32>
    // ... a Python float lifts integers to the default float.
    // CHECK: (tensor<4xi32>) -> tensor<4xf32>
    %1 = call_function "torch.mul"(%i, 2.5) : (tensor<4xi32>) -> tensor<4xf32>
    // Float-only math promotes integers to float32.
    // CHECK: "torch.sqrt"{{.*}} -> tensor<4xf32>
    %2 = call_function "torch.sqrt"(%i) : (tensor<4xi32>) -> tensor<4xf32>
    // Comparisons give bool; sums of bools give int64.
    // CHECK: "torch.lt"{{.*}} -> tensor<4xi1>
    %3 = call_function "torch.lt"(%i, %z) : (tensor<4xi32>, tensor<i64>) -> tensor<4xi1>
    // CHECK: "torch.sum"{{.*}} -> tensor<i64>
    %4 = call_function "torch.sum"(%b) : (tensor<4xi1>) -> tensor<i64>
    // float16 with a float32 tensor computes in float32, which torch has.
    // CHECK: "torch.atan2"{{.*}} -> tensor<4xf32>
    %5 = call_function "torch.atan2"(%h, %2) : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
    output %5 : tensor<4xf32>
  }
}

// -----

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xi64>) -> tensor<4xi64> {
    // expected-error @+1 {{'torch.nn.functional.gelu' computes in int64, which is not supported: torch 1.13 has no CPU kernel for it (argument 'input' is 'tensor<4xi64>')}}
    %0 = call_function "torch.nn.functional.gelu"(%x) : (tensor<4xi64>) -> tensor<4xi64>
    output %0 : tensor<4xi64>
  }
}

// -----

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf16>) -> tensor<4xf16> {
    // expected-error @+1 {{'torch.exp' computes in float16, which is not supported}}
    %0 = call_function "torch.exp"(%x) : (tensor<4xf16>) -> tensor<4xf16>
    output %0 : tensor<4xf16>
  }
}

// -----

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'torch.bitwise_and' computes in float32, which is not supported}}
    %0 = call_function "torch.bitwise_and"(%x, 1) : (tensor<4xf32>) -> tensor<4xf32>
    output %0 : tensor<4xf32>
  }
}

// -----

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xi32>) -> tensor<f32> {
    // expected-error @+1 {{needs a floating-point 'dtype='}}
    %0 = call_function "torch.mean"(%x) : (tensor<4xi32>) -> tensor<f32>
    output %0 : tensor<f32>
  }
}

// -----

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>, %y: tensor<3x2xf64>) -> tensor<2x2xf64> {
    // expected-error @+1 {{expects operands of one dtype}}
    %0 = call_function "torch.matmul"(%x, %y) : (tensor<2x3xf32>, tensor<3x2xf64>) -> tensor<2x2xf64>
    output %0 : tensor<2x2xf64>
  }
}

// -----

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xi64>) -> tensor<2x3xf32> {
    // expected-error @+1 {{'torch.nn.functional.softmax' computes in int64, which is not supported}}
    %0 = call_function "torch.nn.functional.softmax"(%x, 1) : (tensor<2x3xi64>) -> tensor<2x3xf32>
    output %0 : tensor<2x3xf32>
  }
}
