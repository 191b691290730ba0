// RUN: traced-opt %s -split-input-file -verify-diagnostics

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{'traced.getattr' op module @M (class '__main__.M') has no attribute 'linear'}}
    %0 = getattr %self["linear"] : !traced.module<@M> -> !traced.module<@M>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{'traced.getattr' op 'forward' is a method of @M (class '__main__.M'); call it with traced.call_method}}
    %0 = getattr %self["forward"] : !traced.module<@M> -> !traced.object
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  parameter @param : tensor<1xf32> = dense<1.0> : tensor<1xf32>
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{'traced.getattr' op result type 'tensor<2xf32>' does not match the type 'tensor<1xf32>' of @M (class '__main__.M')'s attribute 'param'}}
    %0 = getattr %self["param"] : !traced.module<@M> -> tensor<2xf32>
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  submodule @child : @Child
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{'traced.getattr' op result type '!traced.module<@M>' does not match the type '!traced.module<@Child>' of @M (class '__main__.M')'s attribute 'child'}}
    %0 = getattr %self["child"] : !traced.module<@M> -> !traced.module<@M>
    output
  }
}
traced.module @Child class "__main__.Child" {
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) {
    // expected-error @below {{'traced.getattr' op operand #0 must be module instance, but got 'tensor<2xf32>'}}
    %0 = getattr %x["shape"] : tensor<2xf32> -> !traced.object
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    %g = call_function "make"() : () -> !traced.module<@Gone>
    // expected-error @below {{'traced.getattr' op receiver type '!traced.module<@Gone>' names no 'traced.module'}}
    %0 = getattr %g["w"] : !traced.module<@Gone> -> tensor<2xf32>
    output
  }
}
