// Bad input gets a diagnostic with a location and a non-zero exit status,
// never a crash.
// RUN: not traced-opt %s --split-input-file 2>&1 | FileCheck %s

// Malformed IR.
// CHECK: traced-opt-errors.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: expected ']'
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    %0 = getattr %self["a" : !traced.module<@M> -> i64
    output
  }
}

// -----

// An unknown attribute.
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    // CHECK: traced-opt-errors.mlir:[[# @LINE + 1]]:10: error: 'traced.getattr' op module @M (class '__main__.M') has no attribute 'weight'
    %0 = getattr %self["weight"] : !traced.module<@M> -> tensor<2xf32>
    output
  }
}

// -----

// The wrong number of arguments.
traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // CHECK: traced-opt-errors.mlir:[[# @LINE + 1]]:10: error: 'traced.call_function' op 'torch.flatten' takes 3 positional argument(s) but 4 were given
    %0 = call_function "torch.flatten"(%x, 0, -1, 2) : (tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

// Truncated input.
// CHECK: traced-opt-errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: expected operation name in quotes
traced.module @M class "__main__.M" {
