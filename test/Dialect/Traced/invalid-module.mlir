// RUN: traced-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'traced.module' op needs a class name}}
traced.module @M class "" {
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.constant' op cannot appear in a 'traced.module'; a module holds declarations and graphs only}}
  %0 = traced.constant 1 : i64
}

// -----

traced.module root @A class "__main__.A" {
}
// expected-error @below {{'traced.module' op is marked root, but so is @A}}
traced.module root @B class "__main__.B" {
}

// -----

traced.module @Outer class "__main__.Outer" {
  // expected-error @below {{'traced.module' op cannot appear in a 'traced.module'; a module holds declarations and graphs only}}
  traced.module @Inner class "__main__.Inner" {
  }
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.submodule' op refers to @Missing, which is not a 'traced.module'}}
  submodule @child : @Missing
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.submodule' op makes module @M its own submodule}}
  submodule @me : @M
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.parameter' op value of type 'tensor<3xf32>' does not match the declared type 'tensor<2xf32>'}}
  parameter @w : tensor<2xf32> = dense<1.0> : tensor<3xf32>
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.buffer' op value of type 'tensor<2xi32>' does not match the declared type 'tensor<2xi64>'}}
  buffer @b : tensor<2xi64> = dense<1> : tensor<2xi32>
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.attribute' op value of Python type '!traced.str' does not match the declared type 'i64'}}
  attribute @n : i64 = "four"
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.attribute' op value of Python type '!traced.list<f64>' does not match the declared type '!traced.list<i64>'}}
  attribute @stride : !traced.list<i64> = [1.0, 2.0]
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.attribute' op value dense<1> : tensor<2xi64> is not a Python value}}
  "traced.attribute"() <{sym_name = "t", type = tensor<2xi64>, value = dense<1> : tensor<2xi64>}> : () -> ()
}

// -----

// expected-error @below {{'traced.parameter' op expects parent op 'traced.module'}}
traced.parameter @w : tensor<2xf32> = dense<1.0> : tensor<2xf32>
