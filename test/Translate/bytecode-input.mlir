// Bytecode holding weight blobs (what Python's save("m.mlirbc") writes)
// feeds every traced-translate translation: the driver's input buffer is
// realigned for the blobs (64 bytes, the 0x40000000 prefix below).
// RUN: traced-opt %s --emit-bytecode -o %t.mlirbc
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.array([2, 2], np.float32))"
// RUN: traced-translate --interpret %t.mlirbc --interpret-input=%t.npy | FileCheck %s
// RUN: traced-translate --traced-to-graph-text %t.mlirbc | FileCheck %s --check-prefix=TEXT
// RUN: traced-translate --run %t.mlirbc --run-input=%t.npy --run-output=%t.out
// RUN: %python -c "import numpy as np; print(np.load('%t.out0.npy').tolist())" | FileCheck %s --check-prefix=COMPILED

// CHECK: output #0: tensor<2xf32> [3, -5]
// TEXT: Net.Graph (self, x)
// COMPILED: [3.0, -5.0]

traced.module root @Net class "m.Net" {
  parameter @w : tensor<2xf32> = dense_resource<w_blob> : tensor<2xf32>
  graph @forward(%self: !traced.module<@Net>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %w = getattr %self["w"] : !traced.module<@Net> -> tensor<2xf32>
    %0 = call_method %w["__mul__"](%x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = call_method %0["__add__"](1.0) : (tensor<2xf32>) -> tensor<2xf32>
    output %1 : tensor<2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w_blob: "0x400000000000803F000040C0"
    }
  }
#-}
