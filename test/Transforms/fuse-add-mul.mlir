// RUN: traced-opt %s -traced-fuse-add-mul | FileCheck %s
// RUN: traced-opt %s -traced-fuse-add-mul=report-iterations 2>&1 >/dev/null | FileCheck %s --check-prefix=SWEEPS

// The greedy driver converges; the remark reports its sweeps.
// SWEEPS: remark: traced-fuse-add-mul: fixed point after {{[0-9]+}} sweep(s), 3 pair(s) fused

traced.module root @M class "m.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
    // Three adds of numbers in a row fold into one.
    // CHECK-DAG: %[[A:.*]] = call_function "torch.add"(input=%x, other=3.5)
    %0 = call_method %x["__add__"](1) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = call_function "operator.add"(%0, 2) : (tensor<2xf32>) -> tensor<2xf32>
    %2 = call_function "torch.add"(%1, 0.5) : (tensor<2xf32>) -> tensor<2xf32>
    // Muls of constant tensors of one shape.
    // CHECK-DAG: %[[C:.*]] = constant dense_resource<fused_add_mul{{.*}}> : tensor<2xf32>
    // CHECK-DAG: %[[M:.*]] = call_function "torch.mul"(input=%x, other=%[[C]])
    %c1 = constant dense<[2.0, 3.0]> : tensor<2xf32>
    %c2 = constant dense<[4.0, 5.0]> : tensor<2xf32>
    %3 = call_method %x["__mul__"](%c1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %4 = call_method %3["__mul__"](%c2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    // An inner result used twice stays.
    // CHECK: %[[I:.*]] = call_method %x["__add__"](other=1)
    // CHECK: call_method %[[I]]["__add__"](other=1)
    %5 = call_method %x["__add__"](1) : (tensor<2xf32>) -> tensor<2xf32>
    %6 = call_method %5["__add__"](1) : (tensor<2xf32>) -> tensor<2xf32>
    // An add then a mul do not fold.
    // CHECK: call_method %{{.*}}["__mul__"](other=2)
    %7 = call_method %5["__mul__"](2) : (tensor<2xf32>) -> tensor<2xf32>
    output %2, %4, %6, %7 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}
