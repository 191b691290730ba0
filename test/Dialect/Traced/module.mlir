// RUN: traced-opt %s | FileCheck %s
// RUN: traced-opt %s --mlir-print-op-generic | traced-opt | FileCheck %s
// RUN: traced-opt %s -emit-bytecode | traced-opt | FileCheck %s

// A module instance declares submodules, parameters, buffers and plain
// attributes; ops in its body print without the `traced.` prefix.

// CHECK-LABEL: traced.module root @Net class "__main__.Net" {
// CHECK-NEXT:    submodule @conv : @Conv
// CHECK-NEXT:    submodule @"0" : @Conv
// CHECK-NEXT:    parameter @scale : tensor<2xf32> = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    buffer @steps : tensor<i64> = dense<0> : tensor<i64>
// CHECK-NEXT:    attribute @training : i1 = False
// CHECK-NEXT:  }
traced.module root @Net class "__main__.Net" {
  traced.submodule @conv : @Conv
  traced.submodule @"0" : @Conv
  traced.parameter @scale : tensor<2xf32> = dense<[1.0, 2.0]> : tensor<2xf32>
  traced.buffer @steps : tensor<i64> = dense<0> : tensor<i64>
  traced.attribute @training : i1 = False
}

// A leaf module: no graph, its class gives its meaning.
// CHECK-LABEL: traced.module @Conv class "torch.nn.Conv2d" {
// CHECK-NEXT:    parameter @weight : tensor<2x1x1x1xf32> = dense_resource<conv_weight> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    attribute @bias : !traced.none = None
// CHECK-NEXT:    attribute @stride : tuple<i64, i64> = (1, 1)
// CHECK-NEXT:    attribute @padding : tuple<i64, i64> = (0, 0)
// CHECK-NEXT:    attribute @dilation : tuple<i64, i64> = (1, 1)
// CHECK-NEXT:    attribute @groups : i64 = 1
// CHECK-NEXT:    attribute @padding_mode : !traced.str = "zeros"
// CHECK-NEXT:  }
traced.module @Conv class "torch.nn.Conv2d" {
  parameter @weight : tensor<2x1x1x1xf32> = dense_resource<conv_weight> : tensor<2x1x1x1xf32>
  attribute @bias : !traced.none = None
  attribute @stride : tuple<i64, i64> = (1, 1)
  attribute @padding : tuple<i64, i64> = (0, 0)
  attribute @dilation : tuple<i64, i64> = (1, 1)
  attribute @groups : i64 = 1
  attribute @padding_mode : !traced.str = "zeros"
}

// An empty module.
// CHECK-LABEL: traced.module @Empty class "torch.nn.Identity" {
// CHECK-NEXT:  }
traced.module @Empty class "torch.nn.Identity" {
}

{-#
  dialect_resources: {
    builtin: {
      conv_weight: "0x040000000000803F00000040"
    }
  }
#-}
