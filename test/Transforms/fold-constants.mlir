// traced-fold-constants: small all-constant subgraphs fold with the
// interpreter's kernels; canonicalize alone leaves them (its folders only
// forward values and fold static sizes).
// RUN: traced-opt %s -split-input-file -traced-fold-constants | FileCheck %s
// RUN: traced-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=CANON
// RUN: traced-opt %s -split-input-file -traced-fold-constants=max-elements=1 | FileCheck %s --check-prefix=SMALL

traced.module root @Fold class "__main__.Fold" {
  // CHECK-LABEL: graph @forward
  // CANON-LABEL: graph @forward
  graph @forward(%self: !traced.module<@Fold>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, i64, tensor<2xf32>) {
    // CHECK-DAG: %[[A:.*]] = constant dense<[3.000000e+00, 0.000000e+00]> : tensor<2xf32>
    // CHECK-DAG: %[[N:.*]] = constant 4 : i64
    // CANON: call_function "torch.nn.functional.relu"
    // SMALL: call_function "torch.nn.functional.relu"
    %c = constant dense<[1.0, -2.0]> : tensor<2xf32>
    %0 = call_method %c["__add__"](2.0) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = call_function "torch.nn.functional.relu"(%0) : (tensor<2xf32>) -> tensor<2xf32>
    %n = call_method %c["size"](0) : (tensor<2xf32>) -> i64
    %2 = call_function "operator.mul"(%n, 2) : (i64) -> i64
    // Calls with traced operands stay.
    // CHECK: %[[Y:.*]] = call_method %x["__mul__"](other=%[[A]])
    %3 = call_method %x["__mul__"](%1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    // CHECK: output %[[A]], %[[A]], %[[N]], %[[Y]]
    output %1, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, i64, tensor<2xf32>
  }
}

// -----

// Calls the kernel refuses, unknown targets and in-place calls stay.
traced.module root @Keep class "__main__.Keep" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@Keep>) -> (tensor<2xi64>, tensor<2xf32>, tensor<2xf32>) {
    %i = constant dense<[7, 1]> : tensor<2xi64>
    %z = constant dense<[0, 1]> : tensor<2xi64>
    %f = constant dense<[1.0, 2.0]> : tensor<2xf32>
    // CHECK: call_method %{{.*}}["__floordiv__"]
    %0 = call_method %i["__floordiv__"](%z) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
    // CHECK: call_function "mylib.op"
    %1 = call_function "mylib.op"(%f) : (tensor<2xf32>) -> tensor<2xf32>
    // CHECK: call_method %{{.*}}["add_"]
    %2 = call_method %f["add_"](%f) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output %0, %1, %2 : tensor<2xi64>, tensor<2xf32>, tensor<2xf32>
  }
}

// -----

// Sizes are checked before anything is built: a 2^38-element splat and a
// factory of that size stay calls (they used to abort on the allocation).
traced.module root @Huge class "__main__.Huge" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@Huge>) -> (tensor<274877906944xf32>, tensor<274877906944xf32>) {
    %a = constant dense<1.5> : tensor<274877906944xf32>
    // CHECK: call_function "torch.neg"
    %b = call_function "torch.neg"(input=%a) : (tensor<274877906944xf32>) -> tensor<274877906944xf32>
    // CHECK: call_function "torch.ones"
    %c = call_function "torch.ones"(size=[274877906944]) : () -> tensor<274877906944xf32>
    output %b, %c : tensor<274877906944xf32>, tensor<274877906944xf32>
  }
}
