// RUN: traced-opt %s -split-input-file -verify-diagnostics

// Calls of traced submodule graphs match the callee graph's signature.

traced.module @M class "__main__.M" {
  submodule @b : @B
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    %b = getattr %self["b"] : !traced.module<@M> -> !traced.module<@B>
    // expected-error @below {{'traced.call_method' op call of @B (class '__main__.B')::forward: takes 1 argument(s) after self, but 2 were given}}
    %0 = call_method %b["forward"](%x, %x) : (!traced.module<@B>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output
  }
}
traced.module @B class "__main__.B" {
  graph @forward(%self: !traced.module<@B>, %x: tensor<2xf32>) -> tensor<2xf32> {
    output %x : tensor<2xf32>
  }
}

// -----

traced.module @M class "__main__.M" {
  submodule @b : @B
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    %b = getattr %self["b"] : !traced.module<@M> -> !traced.module<@B>
    // expected-error @below {{'traced.call_method' op call of @B (class '__main__.B')::forward: got an unexpected keyword argument 'y'}}
    %0 = call_method %b["forward"](y=%x) : (!traced.module<@B>, tensor<2xf32>) -> tensor<2xf32>
    output
  }
}
traced.module @B class "__main__.B" {
  graph @forward(%self: !traced.module<@B>, %x: tensor<2xf32>) -> tensor<2xf32> {
    output %x : tensor<2xf32>
  }
}

// -----

traced.module @M class "__main__.M" {
  submodule @b : @B
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    %b = getattr %self["b"] : !traced.module<@M> -> !traced.module<@B>
    // expected-error @below {{'traced.call_method' op call of @B (class '__main__.B')::forward: got multiple values for argument 'x'}}
    %0 = call_method %b["forward"](%x, x=%x) : (!traced.module<@B>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output
  }
}
traced.module @B class "__main__.B" {
  graph @forward(%self: !traced.module<@B>, %x: tensor<2xf32>) -> tensor<2xf32> {
    output %x : tensor<2xf32>
  }
}

// -----

traced.module @M class "__main__.M" {
  submodule @b : @B
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    %b = getattr %self["b"] : !traced.module<@M> -> !traced.module<@B>
    // expected-error @below {{'traced.call_method' op call of @B (class '__main__.B')::forward: missing argument #1 ('x')}}
    %0 = call_method %b["forward"]() : (!traced.module<@B>) -> tensor<2xf32>
    output
  }
}
traced.module @B class "__main__.B" {
  graph @forward(%self: !traced.module<@B>, %x: tensor<2xf32>) -> tensor<2xf32> {
    output %x : tensor<2xf32>
  }
}

// -----

traced.module @M class "__main__.M" {
  submodule @b : @B
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>) {
    %b = getattr %self["b"] : !traced.module<@M> -> !traced.module<@B>
    // expected-error @below {{'traced.call_method' op call of @B (class '__main__.B')::forward: argument #1 has type 'tensor<3xf32>', but the graph takes 'tensor<2xf32>'}}
    %0 = call_method %b["forward"](%x) : (!traced.module<@B>, tensor<3xf32>) -> tensor<2xf32>
    output
  }
}
traced.module @B class "__main__.B" {
  graph @forward(%self: !traced.module<@B>, %x: tensor<2xf32>) -> tensor<2xf32> {
    output %x : tensor<2xf32>
  }
}

// -----

traced.module @M class "__main__.M" {
  submodule @b : @B
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    %b = getattr %self["b"] : !traced.module<@M> -> !traced.module<@B>
    // expected-error @below {{'traced.call_method' op call of @B (class '__main__.B')::forward: the graph returns 1 value(s), but the call declares 0}}
    call_method %b["forward"](%x) : (!traced.module<@B>, tensor<2xf32>) -> ()
    output
  }
}
traced.module @B class "__main__.B" {
  graph @forward(%self: !traced.module<@B>, %x: tensor<2xf32>) -> tensor<2xf32> {
    output %x : tensor<2xf32>
  }
}

// -----

traced.module @M class "__main__.M" {
  submodule @b : @B
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    %b = getattr %self["b"] : !traced.module<@M> -> !traced.module<@B>
    // expected-error @below {{'traced.call_method' op call of @B (class '__main__.B')::forward: result #0 has type 'tensor<2xf64>', but the graph returns 'tensor<2xf32>'}}
    %0 = call_method %b["forward"](%x) : (!traced.module<@B>, tensor<2xf32>) -> tensor<2xf64>
    output
  }
}
traced.module @B class "__main__.B" {
  graph @forward(%self: !traced.module<@B>, %x: tensor<2xf32>) -> tensor<2xf32> {
    output %x : tensor<2xf32>
  }
}

// -----

traced.module @M class "__main__.M" {
  submodule @b : @B
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    %b = getattr %self["b"] : !traced.module<@M> -> !traced.module<@B>
    // expected-error @below {{'traced.call_method' op module @B (class '__main__.B') has no method 'backward'}}
    %0 = call_method %b["backward"](%x) : (!traced.module<@B>, tensor<2xf32>) -> tensor<2xf32>
    output
  }
}
traced.module @B class "__main__.B" {
  graph @forward(%self: !traced.module<@B>, %x: tensor<2xf32>) -> tensor<2xf32> {
    output %x : tensor<2xf32>
  }
}

// -----

traced.module @M class "__main__.M" {
  attribute @k : i64 = 3
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{'traced.call_method' op 'k' of @M (class '__main__.M') is an attribute, not a method}}
    call_method %self["k"]() : (!traced.module<@M>) -> ()
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    %g = call_function "make"() : () -> !traced.module<@Gone>
    // expected-error @below {{'traced.call_method' op receiver type '!traced.module<@Gone>' names no 'traced.module'}}
    call_method %g["forward"]() : (!traced.module<@Gone>) -> ()
    output
  }
}
