// The interpreter's resource limits (docs/reliability.md): an op whose
// results would need more memory than the machine has is refused before
// anything is allocated, and deep module trees run (a 10k-deep one runs on
// a thread with a stack to match) without a native stack overflow.

// RUN: not traced-translate --interpret %s 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: limits.mlir:[[@LINE+4]]:{{[0-9]+}}: error: the interpreter would need 8000000000000 bytes for this op's results, more than its memory limit of {{[0-9]+}} bytes

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

// The compiled path refuses the same value before lowering: at run time a
// failed malloc would have nowhere to report to.
// RUN: not traced-translate --run %s 2>&1 | FileCheck %s --check-prefix=COMPILED
// RUN: not traced-translate --traced-cpu-object %s -o %t.o 2>&1 | FileCheck %s --check-prefix=COMPILED
// COMPILED: error: compiled code would allocate 4000000000000 bytes for 'tensor<1000000x1000000xf32>', more than this machine's {{[0-9]+}} bytes of memory
