// RUN: not traced-opt %s --traced-flatten 2>&1 | FileCheck %s
// RUN: not traced-translate --interpret %s 2>&1 | FileCheck %s --check-prefix=INTERP

// Modules that call each other's graphs (A -> B -> A) would inline
// forever; traced-flatten refuses them before inlining anything.

// CHECK: error: traced-flatten: graph calls do not terminate: module @A calls itself through its submodules
traced.module root @A class "m.A" {
  submodule @b : @B
  graph @forward(%self: !traced.module<@A>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %b = getattr %self["b"] : !traced.module<@A> -> !traced.module<@B>
    %y = call_method %b["forward"](%x) : (!traced.module<@B>, tensor<4xf32>) -> tensor<4xf32>
    output %y : tensor<4xf32>
  }
}
traced.module @B class "m.B" {
  submodule @a : @A
  graph @forward(%self: !traced.module<@B>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %a = getattr %self["a"] : !traced.module<@B> -> !traced.module<@A>
    %y = call_method %a["forward"](%x) : (!traced.module<@A>, tensor<4xf32>) -> tensor<4xf32>
    output %y : tensor<4xf32>
  }
}

// The interpreter refuses them too, before running anything.
// INTERP: error: module calls do not terminate: @A::forward calls itself through its submodules
