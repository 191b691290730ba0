// RUN: traced-opt %s --convert-traced-to-linalg --split-input-file --verify-diagnostics

// Calls the lowering cannot compile are reported at their location, with
// the target's name, and the op library's reason when it marks the call
// interpreter-only (OpSpec::interpreterOnly).

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
    // expected-error @+1 {{cannot lower 'torch.nn.functional.dropout' to linalg: only eval mode (training=False) can be compiled (interpreter-only in the op library: training mode draws random numbers; only eval mode (training=False) is compiled)}}
    %y = call_function "torch.nn.functional.dropout"(input=%x, p=0.1, training=True) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    output %y : tensor<3x4xf32>
  }
}

// -----

// F.dropout's training defaults to True.
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
    // expected-error @+1 {{only eval mode (training=False) can be compiled}}
    %y = call_function "torch.nn.functional.dropout"(input=%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    output %y : tensor<3x4xf32>
  }
}

// -----


// Every op-library entry is lowered directly or through a decomposition;
// a call outside what a decomposition handles is reported with its reason
// (det is unrolled Gaussian elimination, for at most 16 rows).
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<17x17xf32>) -> tensor<f32> {
    // expected-error @+1 {{no lowering to linalg for 'torch.linalg.det' (its decomposition does not apply: needs static square matrices of at most 16 rows) (interpreter-only in the op library: unrolled Gaussian elimination, for static square matrices of 1 to 16 rows only)}}
    %d = call_function "torch.linalg.det"(input=%x) : (tensor<17x17xf32>) -> tensor<f32>
    output %d : tensor<f32>
  }
}

// -----

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
    // expected-error @+1 {{cannot compile a call of 'my.custom_op': not a target of the op library}}
    %y = call_function "my.custom_op"(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    output %y : tensor<3x4xf32>
  }
}

// -----

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>) -> tensor<?x?xf32> {
    %n = call_method %x["size"](0) : (tensor<3x4xf32>) -> i64
    // expected-error @+1 {{cannot lower 'Tensor.view' to linalg: a reshape to more than one dynamic dim is not compiled (the interpreter still runs it; the op library does not mark this call interpreter-only)}}
    %y = call_method %x["view"](%n, -1) : (tensor<3x4xf32>, i64) -> tensor<?x?xf32>
    output %y : tensor<?x?xf32>
  }
}

// -----

// expected-error @+1 {{the root module has no graph 'forward'}}
traced.module root @M class "m.M" {
  graph @main(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    output %x : tensor<2x3xf32>
  }
}

// -----

traced.module root @M class "m.M" {
  submodule @sub : @Sub
  graph @forward(%self: !traced.module<@M>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %sub = getattr %self["sub"] : !traced.module<@M> -> !traced.module<@Sub>
    // expected-error @+1 {{call of the traced graph 'Sub.forward' cannot be compiled; run traced-flatten first}}
    %y = call_method %sub["forward"](%x) : (!traced.module<@Sub>, tensor<3x4xf32>) -> tensor<3x4xf32>
    output %y : tensor<3x4xf32>
  }
}

traced.module @Sub class "m.Sub" {
  graph @forward(%self: !traced.module<@Sub>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %y = call_function "torch.nn.functional.relu"(input=%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    output %y : tensor<3x4xf32>
  }
}

// -----

// A graph input that is neither a tensor nor a Python number is refused.
traced.module root @M class "m.M" {
  // expected-error@+1 {{input 1 ('s') has type '!traced.str'; compiled graphs take ranked tensors and Python numbers (int, float, bool)}}
  graph @forward(%self: !traced.module<@M>, %s: !traced.str, %x: tensor<3xf32>) -> tensor<3xf32> {
    output %x : tensor<3xf32>
  }
}

// -----

// polygamma's order must be at least 0, as in torch.
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{polygamma(n, x) does not support negative n}}
    %a = call_function "torch.polygamma"(n=-1, input=%x) : (tensor<4xf32>) -> tensor<4xf32>
    output %a : tensor<4xf32>
  }
}
