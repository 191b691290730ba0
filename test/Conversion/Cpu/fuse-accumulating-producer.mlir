// A producer that reads its init (the sum of a 0-d tensor: a reduction
// without loops, which passes as elementwise) must not be fused into a
// consumer that broadcasts it: fused, it would accumulate once per consumer
// iteration. Upstream's linalg-fuse-elementwise-ops (LLVM 22) does that, and
// l1_loss(x, sum(t)) summed t three times for a 3-element x (fuzz-diff).
// The correct mean(|x - t|) is 2; the fused one was (2 + 4 + 6) / 3 = 4.
// RUN: %python -c "import numpy as np; np.save('%t.t.npy', np.array(2.0)); np.save('%t.x.npy', np.zeros(3))"
// RUN: traced-translate --run %s --run-input=%t.t.npy --run-input=%t.x.npy --run-output=%t.run
// RUN: %python -c "import numpy as np; print('result', np.load('%t.run0.npy'))" | FileCheck %s

// CHECK: result 2.0

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %t: tensor<f64>, %x: tensor<3xf64>) -> tensor<f64> {
    %s = call_function "torch.sum"(input=%t) : (tensor<f64>) -> tensor<f64>
    %l = call_function "torch.nn.functional.l1_loss"(input=%x, target=%s) : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
    output %l : tensor<f64>
  }
}
