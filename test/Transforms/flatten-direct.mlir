// RUN: traced-opt %s -traced-flatten -traced-dce | FileCheck %s

// Direct references after flattening: a submodule called twice reads its
// parameter through one root declaration, buffers are declared as buffers,
// and a root symbol already named like the path keeps its name (ours gets a
// numeric suffix).

// CHECK-LABEL: traced.module root @Net
// CHECK-DAG:   parameter @blk.w : tensor<2xf32> = dense<5.000000e+00>
// CHECK-DAG:   parameter @blk.w_1 : tensor<2xf32> = dense<2.000000e+00>
// CHECK-DAG:   buffer @blk.b : tensor<2xf32> = dense<3.000000e+00>
// CHECK-NOT:   submodule
// CHECK:       graph @forward
// CHECK-NEXT:    %[[W:.*]] = getattr %self["blk.w_1"]
// CHECK-NEXT:    %[[B:.*]] = getattr %self["blk.b"]
// CHECK-NEXT:    %[[M:.*]] = call_method %x["__mul__"](other=%[[W]])
// CHECK-NEXT:    %[[A:.*]] = call_method %[[M]]["__add__"](other=%[[B]])
// CHECK-NEXT:    %[[W2:.*]] = getattr %self["blk.w_1"]
// CHECK-NEXT:    %[[B2:.*]] = getattr %self["blk.b"]
// CHECK-NEXT:    %[[M2:.*]] = call_method %[[A]]["__mul__"](other=%[[W2]])
// CHECK-NEXT:    %[[A2:.*]] = call_method %[[M2]]["__add__"](other=%[[B2]])
// CHECK-NEXT:    %[[O:.*]] = getattr %self["blk.w"]
// CHECK-NEXT:    %[[R:.*]] = call_method %[[A2]]["__add__"](other=%[[O]])
// CHECK-NEXT:    output %[[R]]
// CHECK-NOT:   traced.module {{(root )?}}@
traced.module root @Net class "m.Net" {
  submodule @blk : @Blk
  parameter @"blk.w" : tensor<2xf32> = dense<5.0> : tensor<2xf32>
  graph @forward(%self: !traced.module<@Net>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %blk = getattr %self["blk"] : !traced.module<@Net> -> !traced.module<@Blk>
    %0 = call_method %blk["forward"](%x) : (!traced.module<@Blk>, tensor<2xf32>) -> tensor<2xf32>
    %1 = call_method %blk["forward"](%0) : (!traced.module<@Blk>, tensor<2xf32>) -> tensor<2xf32>
    %own = getattr %self["blk.w"] : !traced.module<@Net> -> tensor<2xf32>
    %2 = call_method %1["__add__"](%own) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output %2 : tensor<2xf32>
  }
}

traced.module @Blk class "m.Blk" {
  parameter @w : tensor<2xf32> = dense<2.0> : tensor<2xf32>
  buffer @b : tensor<2xf32> = dense<3.0> : tensor<2xf32>
  graph @forward(%self: !traced.module<@Blk>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %w = getattr %self["w"] : !traced.module<@Blk> -> tensor<2xf32>
    %b = getattr %self["b"] : !traced.module<@Blk> -> tensor<2xf32>
    %0 = call_method %x["__mul__"](%w) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = call_method %0["__add__"](%b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output %1 : tensor<2xf32>
  }
}
