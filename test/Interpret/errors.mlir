// Interpretation errors name the input or the target and its location, and
// exit non-zero.
// RUN: not traced-translate --interpret %s 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.zeros(2, np.float32))"
// RUN: not traced-translate --interpret %s --interpret-input=%t.npy 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not traced-translate --interpret %s --interpret-input=1.5 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not traced-translate --interpret %s --interpret-input=nothing.npy 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: %python -c "import numpy as np; np.save('%t.big.npy', np.zeros(2, '>f4'))"
// RUN: not traced-translate --interpret %s --interpret-input=%t.big.npy 2>&1 | FileCheck %s --check-prefix=ENDIAN
// RUN: %python -c "open('%t.short.npy', 'wb').write(open('%t.npy', 'rb').read()[:-1])"
// RUN: not traced-translate --interpret %s --interpret-input=%t.short.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not traced-translate --interpret %s --interpret-entry=Nope 2>&1 | FileCheck %s --check-prefix=ENTRY

// COUNT: error: @M::forward takes 1 input(s) after self, but 0 were given
// TYPE: error: input 1 ('x') of @M::forward expects 'f64', got a float32 tensor of shape [2]
// ENDIAN: error: '{{.*}}.big.npy' has dtype '>f4', which is not a little-endian float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8 or bool
// SHORT: error: '{{.*}}.short.npy' holds 7 bytes of data, but float32 of shape [2] needs 8
// UNKNOWN: errors.mlir:[[# @LINE + 8]]:10: error: the op library does not know 'mylib.op', so the interpreter has no kernel for it
// FILE: error: cannot read 'nothing.npy'
// ENTRY: error: there is no traced.module @Nope

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: f64) -> tensor<2xf32> {
    %c = constant dense<1.0> : tensor<2xf32>
    %0 = call_method %c["__mul__"](%x) : (tensor<2xf32>, f64) -> tensor<2xf32>
    %1 = call_function "mylib.op"(%0) : (tensor<2xf32>) -> tensor<2xf32>
    output %1 : tensor<2xf32>
  }
}
