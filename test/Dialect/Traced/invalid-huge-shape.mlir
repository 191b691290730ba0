// RUN: traced-opt %s -split-input-file -verify-diagnostics

// Shapes whose size in bytes int64 cannot count are refused by the
// verifier, before any stage multiplies them out.

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>) -> tensor<4611686018427387904x4xf32> {
    // expected-error @+1 {{result type 'tensor<4611686018427387904x4xf32>' has a size in bytes that overflows int64}}
    %0 = constant dense<0.0> : tensor<4611686018427387904x4xf32>
    output %0 : tensor<4611686018427387904x4xf32>
  }
}

// -----

// expected-error @+2 {{input #1 has type 'tensor<1099511627776x1099511627776xf32>', whose size in bytes overflows int64}}
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1099511627776x1099511627776xf32>) -> tensor<1099511627776x1099511627776xf32> {
    output %x : tensor<1099511627776x1099511627776xf32>
  }
}

// -----

// A large but countable shape verifies; the interpreter refuses to
// allocate it (see test/Interpret/errors.mlir).
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>) -> tensor<100000x100000xf32> {
    %0 = call_function "torch.zeros"([100000, 100000]) : () -> tensor<100000x100000xf32>
    output %0 : tensor<100000x100000xf32>
  }
}
