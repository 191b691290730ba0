// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file | FileCheck %s

// Python numbers a graph takes (`forward(self, x, scale=1.0, n=2,
// flag=True)`) come in as 0-d tensors of their storage types (bool as i8),
// read once at the entry; the entry's type keeps the logical 0-d types.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %{{.*}}: tensor<3xf32>, %[[S:.*]]: tensor<f64>, %[[N:.*]]: tensor<i64>, %[[B:.*]]: tensor<i8>)
// CHECK-SAME: traced.entry = (tensor<3xf32>, tensor<f64>, tensor<i64>, tensor<i1>) -> tensor<3xf32>
// CHECK-DAG: tensor.extract %[[S]][] : tensor<f64>
// CHECK-DAG: tensor.extract %[[N]][] : tensor<i64>
// CHECK-DAG: %[[B8:.+]] = tensor.extract %[[B]][] : tensor<i8>
// CHECK-DAG: arith.cmpi ne, %[[B8]], %{{.+}} : i8
// CHECK: linalg.generic
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>, %scale: f64, %n: i64, %flag: i1) -> tensor<3xf32> {
    %a = call_function "torch.mul"(input=%x, other=%scale) : (tensor<3xf32>, f64) -> tensor<3xf32>
    %b = call_function "torch.add"(input=%a, other=%n) : (tensor<3xf32>, i64) -> tensor<3xf32>
    %c = call_function "torch.mul"(input=%b, other=%flag) : (tensor<3xf32>, i1) -> tensor<3xf32>
    output %c : tensor<3xf32>
  }
}

// -----

// Arithmetic on Python numbers known only at run time (`scale * 2`,
// `n // 2`) is plain scalar arithmetic with torch's (and Python's) rules:
// `//` floors. (Compiled code's output-size functions can follow it.)
// CHECK-LABEL: func.func @forward(
// CHECK: %[[N:.+]] = tensor.extract %{{.+}}[] : tensor<i64>
// CHECK-NOT: linalg.generic
// CHECK: arith.divsi %[[N]],
// CHECK: arith.remsi %[[N]],
// CHECK: arith.select
// CHECK: tensor.from_elements %{{.+}} : tensor<i64>
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>, %n: i64) -> tensor<3xf32> {
    %h = call_function "operator.floordiv"(input=%n, other=2) : (i64) -> i64
    %y = call_function "torch.mul"(input=%x, other=%h) : (tensor<3xf32>, i64) -> tensor<3xf32>
    output %y : tensor<3xf32>
  }
}


// -----

// A guard on a Python-number input (a concrete trace's inlined `scale`) is
// checked at run time.
// CHECK-LABEL: func.func @forward(
// CHECK: %[[S:.+]] = tensor.extract %{{.+}}[] : tensor<f64>
// CHECK: %[[T:.+]] = tensor.from_elements %[[S]] : tensor<f64>
// CHECK: %[[E:.+]] = linalg.generic {{.*}} ins(%[[T]] : tensor<f64>)
// CHECK: %[[B8:.+]] = tensor.extract %[[E]][] : tensor<i8>
// CHECK: %[[B:.+]] = arith.cmpi ne, %[[B8]], %{{.+}} : i8
// CHECK: cf.assert %{{.+}}, "{{.*}}assertion failed: input 'scale' was 2.0 when traced"
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>, %scale: f64) -> tensor<3xf32> {
    %y = call_function "torch.mul"(input=%x, other=2.0) : (tensor<3xf32>) -> tensor<3xf32>
    %eq = call_function "operator.eq"(input=%scale, other=2.0) : (f64) -> i1
    %a = call_function "torch._assert"(condition=%eq, message="input 'scale' was 2.0 when traced") : (i1) -> !traced.none
    output %y : tensor<3xf32>
  }
}
