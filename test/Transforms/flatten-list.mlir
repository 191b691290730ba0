// RUN: traced-opt %s -split-input-file -traced-flatten -verify-diagnostics | FileCheck %s

// A graph whose input is a list (DenseNet's layers) is inlined when it
// reads the list only with operator.getitem: each read becomes the call's
// element value.

// CHECK-LABEL: traced.module root @M
// CHECK:       graph @forward
// CHECK-NOT:     getitem
// CHECK:         %[[D:.*]] = call_method %x["mul"](other=2)
// CHECK-NEXT:    %[[C:.*]] = call_function "torch.cat"(tensors=[%x, %[[D]]], dim=1)
// CHECK-NEXT:    output %[[C]]
traced.module root @M class "m.M" {
  submodule @l : @L
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2xf32>) -> tensor<1x4xf32> {
    %d = call_method %x["mul"](other=2) : (tensor<1x2xf32>) -> tensor<1x2xf32>
    %l = getattr %self["l"] : !traced.module<@M> -> !traced.module<@L>
    %0 = call_method %l["forward"]([%x, %d]) : (!traced.module<@L>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
    output %0 : tensor<1x4xf32>
  }
}
traced.module @L class "m.L" {
  graph @forward(%self: !traced.module<@L>, %xs: !traced.list<tensor<1x2xf32>>) -> tensor<1x4xf32> {
    %a = call_function "operator.getitem"(input=%xs, index=0) : (!traced.list<tensor<1x2xf32>>) -> tensor<1x2xf32>
    %b = call_function "operator.getitem"(input=%xs, index=-1) : (!traced.list<tensor<1x2xf32>>) -> tensor<1x2xf32>
    %c = call_function "torch.cat"(tensors=[%a, %b], dim=1) : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
    output %c : tensor<1x4xf32>
  }
}

// -----

// A list input used whole (here passed on to torch.cat) has no traced value
// to bind to, so the call stays, with a warning.

// CHECK-LABEL: traced.module root @M
// CHECK:         call_method %{{.*}}["forward"]([%x, %x])
traced.module root @M class "m.M" {
  submodule @l : @L
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2xf32>) -> tensor<1x4xf32> {
    %l = getattr %self["l"] : !traced.module<@M> -> !traced.module<@L>
    // expected-warning @+1 {{traced-flatten: call left in place: an argument is neither a traced value, a constant, nor a list the callee reads only with operator.getitem}}
    %0 = call_method %l["forward"]([%x, %x]) : (!traced.module<@L>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
    output %0 : tensor<1x4xf32>
  }
}
traced.module @L class "m.L" {
  graph @forward(%self: !traced.module<@L>, %xs: !traced.list<tensor<1x2xf32>>) -> tensor<1x4xf32> {
    %c = call_function "torch.cat"(tensors=%xs, dim=1) : (!traced.list<tensor<1x2xf32>>) -> tensor<1x4xf32>
    output %c : tensor<1x4xf32>
  }
}

// -----

// So is a tuple input: a dict the tracer passes as the tuple of its values
// (torchvision's LRASPP head takes the backbone's feature dict).

// CHECK-LABEL: traced.module root @M
// CHECK:       graph @forward
// CHECK-NOT:     getitem
// CHECK:         %[[S:.*]] = call_function "torch.sub"(input=%x, other=%y)
// CHECK-NEXT:    output %[[S]]
traced.module root @M class "m.M" {
  submodule @head : @Head
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
    %h = getattr %self["head"] : !traced.module<@M> -> !traced.module<@Head>
    %0 = call_method %h["forward"]((%x, %y)) : (!traced.module<@Head>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output %0 : tensor<2xf32>
  }
}
traced.module @Head class "m.Head" {
  graph @forward(%self: !traced.module<@Head>, %features: tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32> {
    %a = call_function "operator.getitem"(input=%features, index=0) : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
    %b = call_function "operator.getitem"(input=%features, index=1) : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
    %c = call_function "torch.sub"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output %c : tensor<2xf32>
  }
}
