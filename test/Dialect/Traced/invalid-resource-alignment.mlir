// RUN: not traced-opt %s 2>&1 | FileCheck %s
// RUN: not traced-translate --interpret %s 2>&1 | FileCheck %s

// A hex blob's first four bytes are its alignment; 0 is not a power of two.
// MLIR 22 allocates with it unchecked (a fuzzing finding), so the tools
// refuse it before parsing.
// CHECK: line {{[0-9]+}}: resource blob encodes alignment 0 in its first 4 bytes, which is not a power of two

traced.module root @M class "m.M" {
  parameter @w : tensor<1xf32> = dense_resource<w> : tensor<1xf32>
  graph @forward(%self: !traced.module<@M>) -> tensor<1xf32> {
    %w = getattr %self["w"] : !traced.module<@M> -> tensor<1xf32>
    output %w : tensor<1xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x000000000000803F"
    }
  }
#-}
