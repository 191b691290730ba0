// Dims 0 and -1 of a 0-d tensor name the tensor itself: transpose and
// permute are the identity, softmax of one element is 1 (log_softmax 0).
// The transpose lowering indexed an empty permutation (fuzz-diff, ASan).
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.array(3.0, np.float32))"
// RUN: traced-translate --run %s --run-input=%t.x.npy --run-output=%t.run
// RUN: %python -c "import numpy as np; print('results', *[float(np.load('%t.run%d.npy' % i)) for i in range(4)])" | FileCheck %s

// CHECK: results 3.0 3.0 1.0 0.0

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
    %t = call_function "torch.transpose"(input=%x, dim0=0, dim1=-1) : (tensor<f32>) -> tensor<f32>
    %p = call_function "torch.permute"(input=%x, dims=[]) : (tensor<f32>) -> tensor<f32>
    %s = call_function "torch.nn.functional.softmax"(input=%x, dim=0) : (tensor<f32>) -> tensor<f32>
    %l = call_function "torch.nn.functional.log_softmax"(input=%x, dim=-1) : (tensor<f32>) -> tensor<f32>
    output %t, %p, %s, %l : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
  }
}
