// A model compiled with every function split into parts of one op each
// (traced-translate --run-split-ops=1; traced-cpu-split-functions) computes
// what the interpreter computes (element by element within float32's
// assert_close tolerances: AVX-512 code rounds differently), its run-time
// check still reports a bad index with the call's location, and a model
// with a dynamic dim still runs at any size (no part returns a dynamically
// shaped tensor).
// RUN: %python -c "import numpy as np; r = np.random.RandomState(0); np.save('%t.x.npy', r.rand(5, 4).astype(np.float32)); np.save('%t.y.npy', r.rand(2, 3).astype(np.float32)); np.save('%t.good.npy', np.array([[4, 0, 1, 2], [3, 3, 0, 1]], dtype=np.int64)); np.save('%t.bad.npy', np.array([[4, 0, 1, 2], [3, 5, 0, 1]], dtype=np.int64))"
// RUN: traced-opt %s --traced-cpu-pipeline=split-ops=1 | FileCheck %s --check-prefix=PARTS
// RUN: traced-translate --run %s --run-split-ops=1 --run-input=%t.x.npy,%t.good.npy,%t.y.npy --run-output=%t.split
// RUN: traced-translate --interpret %s --interpret-input=%t.x.npy,%t.good.npy,%t.y.npy --interpret-output=%t.ref
// RUN: %python -c "import numpy as np; print('close', all(np.allclose(np.load('%t.split%%d.npy' %% k), np.load('%t.ref%%d.npy' %% k), rtol=1.3e-6, atol=1e-5) for k in (0, 1)))" | FileCheck %s --check-prefix=SAME
// RUN: not traced-translate --run %s --run-split-ops=1 --run-input=%t.x.npy,%t.bad.npy,%t.y.npy --run-output=%t.bad 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: %python -c "import numpy as np; np.save('%t.a3.npy', np.arange(12, dtype=np.float32).reshape(3, 4)); np.save('%t.b3.npy', np.ones((3, 2), np.float32))"
// RUN: traced-translate --run %S/dynamic-entry.mlir --run-split-ops=1 --run-input=%t.a3.npy --run-input=%t.b3.npy --run-output=%t.dyn
// RUN: %python -c "import numpy as np; print('batch3', np.load('%t.dyn0.npy').tolist())" | FileCheck %s --check-prefix=DYNAMIC

// PARTS: llvm.func @forward(
// PARTS: llvm.call @forward_part1(
// PARTS: llvm.call @forward_part2(
// PARTS: llvm.func @forward_part1(
// PARTS-SAME: passthrough = ["noinline"]

// SAME: close True
// BAD: error: model.py:9: 'torch.gather': an index is out of bounds for dimension 0 with size 5
// DYNAMIC: batch3 {{\[\[}}1.0, 4.0], [5.0, 8.0], [9.0, 12.0]]

traced.module root @M class "m.M" {
  parameter @w : tensor<4x3xf32> = dense<[[1.0, -2.0, 0.5], [0.25, 1.0, -1.0], [2.0, 0.0, 1.5], [-0.5, 0.75, 1.0]]> : tensor<4x3xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<5x4xf32>, %i: tensor<2x4xi64>, %y: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
    %w = getattr %self["w"] : !traced.module<@M> -> tensor<4x3xf32>
    %l = call_function "torch.nn.functional.linear"(input=%y, weight=%w) : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32> loc("model.py":7:3)
    %t = call_function "torch.tanh"(input=%l) : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("model.py":8:3)
    %g = call_function "torch.gather"(input=%x, dim=0, index=%i) : (tensor<5x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32> loc("model.py":9:3)
    %s = call_function "torch.add"(input=%t, other=%g) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("model.py":10:3)
    %m = call_function "torch.matmul"(input=%s, other=%w) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("model.py":11:3)
    %o = call_function "torch.nn.functional.linear"(input=%m, weight=%w) : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32> loc("model.py":12:3)
    %r = call_function "torch.mul"(input=%o, other=%l) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("model.py":13:3)
    output %r, %g : tensor<2x4xf32>, tensor<2x4xf32>
  }
}
