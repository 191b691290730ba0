// RUN: traced-opt %s --convert-traced-to-linalg | FileCheck %s

// igamma and igammac (docs/special-runtime.md): one linalg.generic each,
// whose body calls the scalar runtime's function of the compute type
// (declared once per module); float16 computes in f32 and rounds once.
// CHECK-DAG: func.func private @traced_igamma_f32(f32, f32) -> f32
// CHECK-DAG: func.func private @traced_igammac_f64(f64, f64) -> f64
// CHECK-LABEL: func.func @forward(
// CHECK: linalg.generic
// CHECK: func.call @traced_igamma_f32(%{{.+}}, %{{.+}}) : (f32, f32) -> f32
// CHECK: linalg.generic
// CHECK: func.call @traced_igammac_f64(%{{.+}}, %{{.+}}) : (f64, f64) -> f64
// CHECK: linalg.generic
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: func.call @traced_igamma_f32(%{{.+}}, %{{.+}}) : (f32, f32) -> f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>, %q: tensor<4xf64>, %h: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf64>, tensor<4xf16>) {
    %a = call_function "torch.igamma"(input=%x, other=%x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %b = call_function "torch.igammac"(input=%q, other=%q) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
    %c = call_function "torch.special.gammainc"(input=%h, other=%h) : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    output %a, %b, %c : tensor<4xf32>, tensor<4xf64>, tensor<4xf16>
  }
}
