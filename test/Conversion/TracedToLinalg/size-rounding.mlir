// `x[:, :math.ceil(n / 2)]` with n a dynamic dim: the true division of a
// traced int is an f64, math.ceil of it an i64 (rounded in f64, refusing
// NaN, infinities and floats past int64's range at run time, as Python
// does), and the slice is sized from it.
// RUN: traced-opt %s --convert-traced-to-linalg --canonicalize | FileCheck %s

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x?xf32> {traced.dim_names = ["", "n"]}) -> tensor<2x?xf32> {
    %n = call_method %x["size"](dim=1) : (tensor<2x?xf32>) -> i64
    %half = call_function "operator.truediv"(input=%n, other=2) : (i64) -> f64
    %c = call_function "math.ceil"(x=%half) : (f64) -> i64
    %y = call_method %x["__getitem__"](index=(slice(None, None, None), slice(None, %c, None))) : (tensor<2x?xf32>, i64) -> tensor<2x?xf32>
    output %y : tensor<2x?xf32>
  }
}

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[N:.*]] = arith.sitofp %{{.*}} : i64 to f64
// CHECK:         %[[HALF:.*]] = arith.divf %[[N]], %{{.*}} : f64
// CHECK:         %[[UP:.*]] = math.ceil %[[HALF]] : f64
// CHECK:         cf.assert %{{.*}}, "{{.*}}: 'math.ceil': cannot convert a NaN, an infinity or a float past int64's range to an int"
// CHECK:         arith.fptosi %{{.*}} : f64 to i64
// CHECK:         tensor.extract_slice %{{.*}}[0, %{{.*}}] [2, %{{.*}}] [1, 1] : tensor<2x?xf32> to tensor<2x?xf32>

// CHECK-LABEL: func.func @forward_output_dims(
// CHECK:         math.ceil
