// The interpreter's resource limits (docs/reliability.md, "Resource
// limits"): an op whose results would take more than max_tensor_bytes (by
// default the machine's memory) is refused before anything is allocated, and deep module trees run (a 10k-deep one runs on
// a thread with a stack to match) without a native stack overflow.

// RUN: not traced-translate --interpret %s 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: limits.mlir:[[@LINE+4]]:{{[0-9]+}}: error: the results of this op would take 8000000000000 bytes, more than the limit max_tensor_bytes ({{[0-9]+}} bytes; traced.set_limits, or TRACED_MAX_TENSOR_BYTES / TRACED_MAX_OPS)

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>) -> tensor<1000000x1000000xf32> {
    %0 = call_function "torch.zeros"([1000000, 1000000]) : () -> tensor<1000000x1000000xf32>
    output %0 : tensor<1000000x1000000xf32>
  }
}

// RUN: %python %S/Inputs/deep_tree.py 10000 > %t.deep.mlir
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.arange(4, dtype=np.float32) - 2)"
// RUN: traced-translate --interpret %t.deep.mlir --interpret-input=%t.x.npy | FileCheck %s --check-prefix=DEEP
// RUN: traced-opt %t.deep.mlir --traced-flatten --traced-dce | FileCheck %s --check-prefix=FLAT
// DEEP: output #0: tensor<4xf32> [0, 0, 0, 1]
// FLAT: graph @forward
// FLAT-NEXT: call_function "torch.relu"
// FLAT-NEXT: output

// The compiled path refuses the same value before lowering. The limit is
// the environment's when set: a smaller one refuses a smaller tensor.
// RUN: not traced-translate --run %s 2>&1 | FileCheck %s --check-prefix=COMPILED
// RUN: not traced-translate --traced-cpu-object %s -o %t.o 2>&1 | FileCheck %s --check-prefix=COMPILED
// COMPILED: error: a compiled tensor<1000000x1000000xf32> would take 4000000000000 bytes, more than the limit max_tensor_bytes ({{[0-9]+}} bytes; traced.set_limits, or TRACED_MAX_TENSOR_BYTES / TRACED_MAX_OPS)

// RUN: env TRACED_MAX_TENSOR_BYTES=1000 not traced-translate --interpret %S/Inputs/limits-small.mlir 2>&1 | FileCheck %s --check-prefix=ENV
// RUN: env TRACED_MAX_OPS=3 not traced-translate --run %S/Inputs/limits-small.mlir 2>&1 | FileCheck %s --check-prefix=OPS
// (The interpreter holds float32 as double: 8 bytes an element.)
// ENV: error: the results of this op would take 3200 bytes, more than the limit max_tensor_bytes (1000 bytes;
// OPS: error: the module to compile holds more than 3 operations, the limit max_ops
