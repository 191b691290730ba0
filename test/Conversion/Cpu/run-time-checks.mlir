// What torch raises on and only the data decides (an index out of bounds,
// a boolean mask selecting another count than the traced shape) is checked
// at run time: the lowering writes cf.assert, traced-cpu-lower-checks turns
// each into a store of its number into a status argument, and
// traced-emit-entry returns it from traced_forward and reports its message
// from traced_forward_checked. A compiled run with a bad index fails with
// the call's location; a good one runs.
// RUN: traced-opt %s --convert-traced-to-linalg | FileCheck %s --check-prefix=ASSERT
// RUN: traced-opt %s --traced-cpu-pipeline=vectorize=false --mlir-print-ir-after=traced-cpu-lower-checks 2>&1 >/dev/null | FileCheck %s --check-prefix=LOWERED
// RUN: traced-opt %s --traced-cpu-pipeline | FileCheck %s --check-prefix=ENTRY
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.arange(5, dtype=np.float32)); np.save('%t.good.npy', np.array([4, 0], dtype=np.int64)); np.save('%t.bad.npy', np.array([1, 5], dtype=np.int64))"
// RUN: traced-translate --run %s --run-input=%t.x.npy --run-input=%t.good.npy --run-output=%t.out
// RUN: %python -c "import numpy as np; print('gathered', np.load('%t.out0.npy'))" | FileCheck %s --check-prefix=GOOD
// RUN: not traced-translate --run %s --run-input=%t.x.npy --run-input=%t.bad.npy --run-output=%t.out 2>&1 | FileCheck %s --check-prefix=BAD

// ASSERT-LABEL: func.func @forward
// ASSERT:         linalg.generic
// ASSERT:         cf.assert %{{.*}}, "model.py:7: 'torch.gather': an index is out of bounds for dimension 0 with size 5"

// LOWERED-LABEL: func.func @forward
// LOWERED-SAME:    %{{.*}}: memref<i32>)
// LOWERED-SAME:    traced.checks = ["model.py:7: 'torch.gather': an index is out of bounds for dimension 0 with size 5"]
// LOWERED-NOT:     cf.assert
// LOWERED:         scf.if
// LOWERED:           memref.load %{{.*}}[] : memref<i32>
// LOWERED:           arith.select
// LOWERED:           memref.store %{{.*}}[] : memref<i32>

// ENTRY:       llvm.func @traced_forward(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// ENTRY:         llvm.alloca
// ENTRY:         llvm.call @forward
// ENTRY:         llvm.load %{{.*}} : !llvm.ptr -> i32
// ENTRY:       llvm.func @traced_forward_checked
// ENTRY:         llvm.icmp "ne" %{{.*}}, %{{.*}} : i32
// ENTRY:         llvm.return %{{.*}} : i32

// GOOD: gathered [4. 0.]
// BAD: error: model.py:7: 'torch.gather': an index is out of bounds for dimension 0 with size 5

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<5xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
    %y = call_function "torch.gather"(input=%x, dim=0, index=%i) : (tensor<5xf32>, tensor<2xi64>) -> tensor<2xf32> loc("model.py":7:3)
    output %y : tensor<2xf32>
  }
}
