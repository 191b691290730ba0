// RUN: traced-opt %s -traced-flatten | FileCheck %s
// RUN: traced-opt %s -traced-flatten=keep-leaf-modules | FileCheck %s --check-prefix=KEEP
// RUN: traced-opt %s -traced-flatten -traced-dce | FileCheck %s --check-prefix=DCE

traced.module root @Net class "m.Net" {
  submodule @layer : @Layer
  // The parameter read through self.layer.0.scale is declared in the root
  // under its dotted path and read with one getattr; the module getattrs
  // of the chain are gone.
  // CHECK:      parameter @layer.0.scale : tensor<2xf32> = dense<2.000000e+00>
  // CHECK-LABEL: graph @forward(%self: !traced.module<@Net>, %x: tensor<2xf32>)
  // CHECK-NOT:  -> !traced.module
  // CHECK:      %[[S:.*]] = getattr %self["layer.0.scale"] : !traced.module<@Net> -> tensor<2xf32>
  // CHECK-NEXT: %[[M:.*]] = call_method %x["__mul__"](other=%[[S]])
  // CHECK-NEXT: %[[R:.*]] = call_function "torch.nn.functional.relu"(input=%[[M]])
  // CHECK-NEXT: output %[[R]]
  // With keep-leaf-modules the chain to the kept leaf stays, the parameter
  // is still read directly.
  // KEEP:       parameter @layer.0.scale
  // KEEP:       %[[L:.*]] = getattr %self["layer"]
  // KEEP:       %[[B:.*]] = getattr %[[L]]["0"]
  // KEEP:       %[[S:.*]] = getattr %self["layer.0.scale"]
  // KEEP:       call_method %x["__mul__"](other=%[[S]])
  // KEEP:       %[[ACT:.*]] = getattr %[[B]]["act"]
  // KEEP:       call_method %[[ACT]]["forward"]
  graph @forward(%self: !traced.module<@Net>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %layer = getattr %self["layer"] : !traced.module<@Net> -> !traced.module<@Layer>
    %0 = call_method %layer["forward"](%x) : (!traced.module<@Layer>, tensor<2xf32>) -> tensor<2xf32>
    output %0 : tensor<2xf32>
  }
}

traced.module @Layer class "torch.nn.modules.container.Sequential" {
  submodule @"0" : @Block
  graph @forward(%self: !traced.module<@Layer>, %input: tensor<2xf32>) -> tensor<2xf32> {
    %b = getattr %self["0"] : !traced.module<@Layer> -> !traced.module<@Block>
    %0 = call_method %b["forward"](%input) : (!traced.module<@Block>, tensor<2xf32>) -> tensor<2xf32>
    output %0 : tensor<2xf32>
  }
}

traced.module @Block class "m.Block" {
  parameter @scale : tensor<2xf32> = dense<2.0> : tensor<2xf32>
  submodule @act : @Act
  graph @forward(%self: !traced.module<@Block>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %s = getattr %self["scale"] : !traced.module<@Block> -> tensor<2xf32>
    %0 = call_method %x["__mul__"](%s) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %act = getattr %self["act"] : !traced.module<@Block> -> !traced.module<@Act>
    %1 = call_method %act["forward"](%0) : (!traced.module<@Act>, tensor<2xf32>) -> tensor<2xf32>
    output %1 : tensor<2xf32>
  }
}

traced.module @Act class "torch.nn.modules.activation.ReLU" {
  attribute @inplace : i1 = False
}

// After DCE nothing reads the submodules: only the root is left.
// DCE:       traced.module root @Net
// DCE-NOT:     submodule
// DCE:         parameter @layer.0.scale
// DCE-NOT:   traced.module {{(root )?}}@
