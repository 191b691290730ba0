// RUN: not traced-translate --traced-to-graph-text %s 2>&1 | FileCheck %s
// RUN: not traced-translate --no-such-translation %s 2>&1 | FileCheck %s --check-prefix=FLAG

// FLAG: Unknown command line argument '--no-such-translation'

traced.module @M class "__main__.M" {
  // CHECK: traced-translate-errors.mlir:[[# @LINE + 1]]:3: error: 'traced.graph' op must take `self` of type !traced.module<@M> as its first argument
  graph @forward(%x: tensor<2xf32>) {
    output
  }
}
