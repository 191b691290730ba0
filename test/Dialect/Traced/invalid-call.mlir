// RUN: traced-opt %s -split-input-file -verify-diagnostics

// Calls of op-library targets are checked against the target's signature.

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.relu' takes 2 positional argument(s) but 3 were given}}
    %0 = call_function "torch.nn.functional.relu"(%x, False, 1) : (tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op 'nn.relu' (torch.nn.functional.relu) got an unexpected keyword argument 'alpha'}}
    %0 = call_function "nn.relu"(%x, alpha=1.0) : (tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.nn.functional.relu' got multiple values for argument 'input'}}
    %0 = call_function "torch.nn.functional.relu"(%x, input=%x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.transpose' missing required argument 'dim1'}}
    %0 = call_function "torch.transpose"(%x, 0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.transpose' argument 'dim0' expects int, got 'f64'}}
    %0 = call_function "torch.transpose"(%x, 0.5, 1) : (tensor<2x3xf32>) -> tensor<3x2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %n: i64) {
    // expected-error @below {{'traced.call_function' op 'torch.sigmoid' argument 'input' expects Tensor, got 'i64'}}
    %0 = call_function "torch.sigmoid"(%n) : (i64) -> i64
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.sigmoid' returns 1 result(s), but the op declares 2}}
    %0:2 = call_function "torch.sigmoid"(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op 'torch.sigmoid' result #0 is inferred as 'tensor<2xf32>', but the op declares 'tensor<2xf64>'}}
    %0 = call_function "torch.sigmoid"(%x) : (tensor<2xf32>) -> tensor<2xf64>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_method' op 'Tensor.view' shape [4, 2] is invalid for an input of 6 elements}}
    %0 = call_method %x["view"](4, 2) : (tensor<2x3xf32>) -> tensor<4x2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) {
    // expected-error @below {{'traced.call_method' op 'Tensor.flatten' (torch.flatten) got an unexpected keyword argument 'dim'}}
    %0 = call_method %x["flatten"](dim=1) : (tensor<2x3xf32>) -> tensor<6xf32>
    output
  }
}

// -----

// The structure every call must have, checked in the generic form.

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op argument #0 is not a Python value: dense<1.000000e+00> : tensor<2xf32>}}
    %0 = "traced.call_function"() <{callee = "f", arguments = [dense<1.0> : tensor<2xf32>]}> : () -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op operand markers must number the argument operands in depth-first order}}
    %0 = "traced.call_function"(%x, %x) <{callee = "f", arguments = [#traced.operand<1>, #traced.operand<0>]}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op has 2 argument operand(s), but its arguments reference 1}}
    %0 = "traced.call_function"(%x, %x) <{callee = "f", arguments = [#traced.operand<0>]}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op has 2 keyword names for 1 arguments}}
    %0 = "traced.call_function"(%x) <{callee = "f", arguments = [#traced.operand<0>], keywords = ["a", "b"]}> : (tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.call_function' op repeats keyword argument 'a'}}
    %0 = call_function "f"(a=1, a=2) : () -> tensor<2xf32>
    output
  }
}
