// RUN: traced-opt %s -traced-dce | FileCheck %s


// CHECK-LABEL: traced.module root @M
// CHECK-NEXT:    submodule @used : @Used
// CHECK-NEXT:    graph @forward
traced.module root @M class "m.M" {
  submodule @used : @Used
  parameter @unused : tensor<2xf32> = dense<0.0> : tensor<2xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> tensor<2xf32> {
    // CHECK-NOT: sigmoid
    %0 = call_function "torch.sigmoid"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %p = getattr %self["unused"] : !traced.module<@M> -> tensor<2xf32>
    // Calls with possible side effects stay.
    // CHECK: call_function "mylib.log"
    %1 = call_function "mylib.log"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    // CHECK: call_method %{{.*}}["forward"]
    %u = getattr %self["used"] : !traced.module<@M> -> !traced.module<@Used>
    %2 = call_method %u["forward"](%x) : (!traced.module<@Used>, tensor<2xf32>) -> tensor<2xf32>
    output %2 : tensor<2xf32>
  }
}

// CHECK-LABEL: traced.module @Used
// CHECK:         graph @forward
// CHECK-NOT:     graph @helper
traced.module @Used class "m.Used" {
  graph @forward(%self: !traced.module<@Used>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %c = constant 1 : i64
    output %x : tensor<2xf32>
  }
  graph @helper(%self: !traced.module<@Used>) {
    output
  }
}

// CHECK-NOT: traced.module @Orphan
traced.module @Orphan class "m.Orphan" {
}
