// RUN: traced-opt %s --traced-cpu-pipeline | FileCheck %s
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.array([1, 2, 3], np.float32)); np.save('%t.y.npy', np.array(5, np.float32))"
// RUN: traced-translate --run %s --run-input=%t.x.npy,%t.y.npy --run-output=%t.out
// RUN: %python -c "import numpy as np; print([np.load('%t.out%%d.npy' %% k).tolist() for k in range(4)])" | FileCheck %s --check-prefix=OUT
// OUT: {{\[\[}}2.0, 4.0, 6.0], [2.0, 4.0, 6.0], 5.0, 5.0]

// Two outputs that CSE makes one buffer (x * 2 twice, and 0-d reductions
// of one input) still get two out-parameters: the repeat is copied before
// buffer-results-to-out-params, which would otherwise crash on it.
// CHECK-LABEL: llvm.func @forward(
// CHECK: llvm.func @traced_forward(
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>, %y: tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>) {
    %a = call_function "torch.mul"(input=%x, other=2.0) : (tensor<3xf32>) -> tensor<3xf32>
    %b = call_function "torch.mul"(input=%x, other=2.0) : (tensor<3xf32>) -> tensor<3xf32>
    %c = call_function "torch.ops.aten.mean.dim"(input=%y, dim=[0]) : (tensor<f32>) -> tensor<f32>
    %d = call_function "torch.sum"(input=%y, dim=[-1]) : (tensor<f32>) -> tensor<f32>
    output %a, %b, %c, %d : tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>
  }
}
