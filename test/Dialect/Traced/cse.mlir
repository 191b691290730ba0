// RUN: traced-opt %s -cse | FileCheck %s

// getattr, constants and calls of known pure targets have no side effects,
// so upstream passes such as CSE apply to traced graphs as they are.

traced.module root @M class "__main__.M" {
  parameter @w : tensor<2xf32> = dense<1.0> : tensor<2xf32>
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
    // CHECK:      %w = getattr %self["w"]
    // CHECK-NEXT: %add_out = call_method %x["__add__"](other=%w)
    // CHECK-NEXT: %log_out = call_function "mylib.log"(%x)
    // CHECK-NEXT: %log_out_0 = call_function "mylib.log"(%x)
    // CHECK-NEXT: output %add_out, %add_out, %log_out, %log_out_0
    %0 = getattr %self["w"] : !traced.module<@M> -> tensor<2xf32>
    %1 = getattr %self["w"] : !traced.module<@M> -> tensor<2xf32>
    %2 = call_method %x["__add__"](%0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %3 = call_method %x["__add__"](%1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    // Unknown targets may have effects: both calls stay.
    %4 = call_function "mylib.log"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %5 = call_function "mylib.log"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    output %2, %3, %4, %5 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}
