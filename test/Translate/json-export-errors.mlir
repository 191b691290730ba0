// RUN: traced-translate --export-trace %s --split-input-file --verify-diagnostics

// What the trace format cannot express is an error at the op concerned, and
// nothing is written.

// expected-error @below {{'func.func' op cannot be expressed in a trace; only 'traced.module' ops may appear at the top level}}
func.func @f() {
  return
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.graph' op type 'tensor<*xf32>' cannot be expressed in a trace}}
  graph @forward(%self: !traced.module<@M>, %x: tensor<*xf32>) -> tensor<*xf32> {
    output %x : tensor<*xf32>
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>) -> i64 {
    // expected-error @below {{'arith.constant' op cannot be expressed in a trace; a graph holds Constant, GetAttr, CallMethod and CallFunction exprs only}}
    %c = arith.constant 1 : i64
    output %c : i64
  }
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.parameter' op tensor value of type 'tensor<2xcomplex<f32>>' cannot be expressed in a trace}}
  parameter @w : tensor<2xcomplex<f32>> = dense<(1.0, 2.0)> : tensor<2xcomplex<f32>>
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{'traced.parameter' op the data of dense_resource<missing> : tensor<2xf32> is not available (0 bytes for 8)}}
  parameter @w : tensor<2xf32> = dense_resource<missing> : tensor<2xf32>
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> tensor<2xsi8> {
    // expected-error @below {{'traced.call_function' op type 'tensor<2xsi8>' cannot be expressed in a trace}}
    %0 = call_function "f"(%x) : (tensor<2xf32>) -> tensor<2xsi8>
    output %0 : tensor<2xsi8>
  }
}

// -----

traced.module @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> tensor<2xf32> {
    // expected-error @below {{'traced.call_function' op value #traced.dtype<complex<f32>> cannot be expressed in a trace}}
    %0 = call_function "f"(%x, dtype(complex<f32>)) : (tensor<2xf32>) -> tensor<2xf32>
    output %0 : tensor<2xf32>
  }
}
