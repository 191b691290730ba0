// The interpreter runs the module tree as it is: getattr of parameters and
// plain attributes, calls of traced submodule graphs, and leaf modules
// through their class's functional.
// RUN: traced-translate --interpret %s --interpret-input=2.0 | FileCheck %s
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.array([[1, -2]], np.float32))"
// RUN: traced-translate --interpret %s --interpret-entry=Block --interpret-input=%t.npy | FileCheck %s --check-prefix=BLOCK
// RUN: traced-translate --interpret %s --interpret-entry=Block --interpret-input=%t.npy --interpret-output=%t.out | FileCheck %s --check-prefix=NPY
// RUN: %python -c "import numpy as np; print(np.load('%t.out0.npy').tolist())" | FileCheck %s --check-prefix=LOADED

// CHECK: output #0: tensor<1x2xf32> {{\[}}[5, 7]]
// BLOCK: output #0: tensor<1x2xf32> {{\[}}[2, 3]]
// NPY: output #0: {{.*}}.out0.npy
// LOADED: {{\[}}[2.0, 3.0]]

traced.module root @Net class "m.Net" {
  submodule @block : @Block
  attribute @offset : f64 = 1.0
  graph @forward(%self: !traced.module<@Net>, %scale: f64) -> tensor<1x2xf32> {
    %x = constant dense<[[1.0, -2.0]]> : tensor<1x2xf32>
    %block = getattr %self["block"] : !traced.module<@Net> -> !traced.module<@Block>
    %0 = call_method %block["forward"](%x) : (!traced.module<@Block>, tensor<1x2xf32>) -> tensor<1x2xf32>
    %1 = call_method %0["__mul__"](%scale) : (tensor<1x2xf32>, f64) -> tensor<1x2xf32>
    %off = getattr %self["offset"] : !traced.module<@Net> -> f64
    %2 = call_method %1["__add__"](%off) : (tensor<1x2xf32>, f64) -> tensor<1x2xf32>
    output %2 : tensor<1x2xf32>
  }
}

traced.module @Block class "m.Block" {
  submodule @fc : @Fc
  submodule @act : @Act
  graph @forward(%self: !traced.module<@Block>, %x: tensor<1x2xf32>) -> tensor<1x2xf32> {
    %fc = getattr %self["fc"] : !traced.module<@Block> -> !traced.module<@Fc>
    %0 = call_method %fc["forward"](%x) : (!traced.module<@Fc>, tensor<1x2xf32>) -> tensor<1x2xf32>
    %act = getattr %self["act"] : !traced.module<@Block> -> !traced.module<@Act>
    %1 = call_method %act["forward"](%0) : (!traced.module<@Act>, tensor<1x2xf32>) -> tensor<1x2xf32>
    output %1 : tensor<1x2xf32>
  }
}

// fc(x) = x @ [[1, 0], [-1, -1]]^T + [1, 2] = [1+1, -1+2+2] = [2, 3] for [1, -2].
traced.module @Fc class "torch.nn.modules.linear.Linear" {
  parameter @weight : tensor<2x2xf32> = dense<[[1.0, 0.0], [-1.0, -1.0]]> : tensor<2x2xf32>
  parameter @bias : tensor<2xf32> = dense<[1.0, 2.0]> : tensor<2xf32>
}

traced.module @Act class "torch.nn.modules.activation.ReLU" {
  attribute @inplace : i1 = False
}
