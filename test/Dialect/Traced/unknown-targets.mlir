// RUN: traced-opt %s | FileCheck %s
// RUN: traced-opt %s --mlir-print-op-generic | traced-opt | FileCheck %s
// RUN: traced-opt %s -emit-bytecode | traced-opt | FileCheck %s

// Targets the op library does not know stay opaque and round-trip exactly as
// written: positional arguments stay positional, nothing is checked.

traced.module root @M class "__main__.M" {
  submodule @custom : @Custom
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> tensor<3xf32> {
    // CHECK: %my_op_out = call_function "mylib.my_op"(%x, 3, [1, 2], scale=0.5, mode="fast", flag=None) : (tensor<2xf32>) -> tensor<3xf32>
    %0 = call_function "mylib.my_op"(%x, 3, [1, 2], scale=0.5, mode="fast", flag=None) : (tensor<2xf32>) -> tensor<3xf32>
    // CHECK: %frobnicate_out:2 = call_method %my_op_out["frobnicate"](%x, (%x, 1)) : (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>) -> (i64, !traced.object)
    %1:2 = call_method %0["frobnicate"](%x, (%x, 1)) : (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>) -> (i64, !traced.object)
    // A call with no results, and a leaf module of a class nobody knows.
    // CHECK: call_function "builtins.print"(%frobnicate_out#1)
    call_function "builtins.print"(%1#1) : (!traced.object) -> ()
    // CHECK: %custom_out = call_method %custom["forward"](%my_op_out, k=2)
    %2 = getattr %self["custom"] : !traced.module<@M> -> !traced.module<@Custom>
    %3 = call_method %2["forward"](%0, k=2) : (!traced.module<@Custom>, tensor<3xf32>) -> tensor<3xf32>
    output %3 : tensor<3xf32>
  }
}

traced.module @Custom class "thirdparty.Custom" {
}
