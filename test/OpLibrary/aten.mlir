// ATen spellings of op library entries (lib/OpLibrary/AtenOverloads.inc,
// generated from torch's schema registry): overloads bind to their own
// schema, packets like the entry, `aten::` (JSON traces) like `torch.ops.aten.`.
// RUN: traced-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: traced-translate --import-trace %S/../Translate/Inputs/json-aten.json | FileCheck %s --check-prefix=JSON
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.array([1, -2, 3], np.int32)); np.save('%t.y.npy', np.array(5))"
// RUN: traced-translate --import-trace %S/../Translate/Inputs/json-aten.json | traced-translate --interpret --interpret-input=%t.x.npy --interpret-input=%t.y.npy | FileCheck %s --check-prefix=EXEC

// JSON: call_function "aten::add.Tensor"(input=%x, other=%y, alpha=2)
// JSON: call_function "aten::mul"(input=%{{.*}}, other=3)
// EXEC: output #0: tensor<3xi32> [33, 24, 39]

// CHECK-LABEL: traced.module root @Overloads
traced.module root @Overloads class "M" {
  graph @forward(%self: !traced.module<@Overloads>, %x: tensor<2x3xf32>, %i: tensor<3xi32>) -> tensor<2x3xf32> {
    // CHECK: call_function "torch.ops.aten.add.Tensor"
    %0 = call_function "torch.ops.aten.add.Tensor"(%x, %x, alpha=2) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    // CHECK: call_function "torch.ops.aten.mean.dim"
    %1 = call_function "torch.ops.aten.mean.dim"(%0, [1], True) : (tensor<2x3xf32>) -> tensor<2x1xf32>
    // CHECK: call_function "torch.ops.aten.mul"
    %2 = call_function "torch.ops.aten.mul"(%0, %1) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    // Integer promotion follows torch.result_type here too.
    %3 = call_function "torch.ops.aten.add.Scalar"(%i, 2.5) : (tensor<3xi32>) -> tensor<3xf32>
    output %2 : tensor<2x3xf32>
  }
}

// -----

traced.module root @Schema class "M" {
  graph @forward(%self: !traced.module<@Schema>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    // add.Tensor takes alpha by keyword only, unlike torch.add's packet.
    // expected-error @+1 {{'torch.ops.aten.add.Tensor' (torch.add) takes 2 positional argument(s) but 3 were given}}
    %0 = call_function "torch.ops.aten.add.Tensor"(%x, %x, 2) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    output %0 : tensor<2x3xf32>
  }
}
