// RUN: traced-opt %s -split-input-file -verify-diagnostics

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{expected '=' after keyword argument name 'alpha'}}
    %0 = call_function "f"(%x, alpha) : (tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{positional argument follows keyword argument}}
    %0 = call_function "f"(a=1, %x) : (tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{expected 1 operand types, got 2}}
    %0 = call_function "f"(%x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{expected 2 operand types, got 1}}
    %0 = call_method %x["add"](%x) : (tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{slice takes (start, stop, step)}}
    %0 = call_function "f"(slice(1, 2)) : () -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{expected float("nan"), float("inf") or float("-inf")}}
    %0 = call_function "f"(float("1.5")) : () -> ()
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{integer does not fit in 64 bits}}
    %0 = call_function "f"(99999999999999999999) : () -> ()
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{expected a Python value, got @sym}}
    %0 = call_function "f"(@sym) : () -> ()
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{expected a Python value, got affine_map<(d0) -> (d0)>}}
    %0 = constant affine_map<(d0) -> (d0)> : i64
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{expected ':' and the constant's type}}
    %0 = constant None
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{use of undeclared SSA value name}}
    %0 = call_function "f"(%y) : (tensor<2xf32>) -> tensor<2xf32>
    output
  }
}

// -----

// expected-error @below {{custom op 'traced.modul' is unknown}}
traced.modul @M class "x" {
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{integer does not fit in 64 bits}}
  attribute @a : i64 = -9223372036854775809
}
