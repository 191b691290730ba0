// RUN: traced-opt %s -split-input-file -verify-diagnostics

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.graph' op must take `self` of type !traced.module<@M> as its first argument}}
  graph @forward(%x: tensor<2xf32>) {
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.graph' op must take `self` of type !traced.module<@M> as its first argument}}
  graph @forward(%self: !traced.module<@Other>) {
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.graph' op has 1 argument names for 2 arguments}}
  "traced.graph"() <{sym_name = "forward", function_type = (!traced.module<@M>, i64) -> (), arg_names = ["self"]}> ({
  ^bb0(%self: !traced.module<@M>, %n: i64):
    traced.output
  }) : () -> ()
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.graph' op type of entry block argument #1('f64') must match the type of the corresponding argument in function signature('i64')}}
  "traced.graph"() <{sym_name = "forward", function_type = (!traced.module<@M>, i64) -> ()}> ({
  ^bb0(%self: !traced.module<@M>, %n: f64):
    traced.output
  }) : () -> ()
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.graph' op uses '!traced.module<@Ghost>', but @Ghost is not a 'traced.module'}}
  graph @forward(%self: !traced.module<@M>, %g: !traced.module<@Ghost>) {
    output
  }
}

// -----

// expected-error @below {{'traced.graph' op expects parent op 'traced.module'}}
traced.graph @forward(%x: i64) {
  traced.output
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> tensor<2xf32> {
    // expected-error @below {{'traced.output' op returns 0 value(s), but graph @forward declares 1}}
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> tensor<3xf32> {
    // expected-error @below {{'traced.output' op output #0 has type 'tensor<2xf32>', but graph @forward declares 'tensor<3xf32>'}}
    output %x : tensor<2xf32>
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{'traced.constant' op value "x" is not a valid constant of type 'i64'}}
    %0 = constant "x" : i64
    output
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) {
    // expected-error @below {{'traced.constant' op value dense<1.000000e+00> : tensor<2xf32> is not a valid constant of type 'tensor<3xf32>'}}
    %0 = "traced.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
    output
  }
}
