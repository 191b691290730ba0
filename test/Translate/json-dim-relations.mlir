// A call's traced.dim_names (traced.trace with dynamic_dims: each `?` of a
// result as an expression of the inputs' dim names) round-trips through
// the trace JSON as its outputs' "dim_names", as a graph input's names do.
// RUN: traced-opt %s -o %t.mlir
// RUN: traced-translate --export-trace %s | FileCheck %s --check-prefix=JSON
// RUN: traced-translate --export-trace %s | traced-translate --import-trace | traced-opt -o %t.again.mlir
// RUN: diff %t.mlir %t.again.mlir

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %k: tensor<1x?x8xf32> {traced.dim_names = ["", "past", ""]}, %x: tensor<1x?x8xf32> {traced.dim_names = ["", "seq", ""]}) -> tensor<1x?x8xf32> {
    %c = call_function "torch.cat"(tensors=[%k, %x], dim=1) {traced.dim_names = [["", "past + seq", ""]]} : (tensor<1x?x8xf32>, tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
    %r = call_function "torch.relu"(input=%c) : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
    output %r : tensor<1x?x8xf32>
  }
}

// JSON:      "func": "torch.cat"
// JSON:      "outputs": [
// JSON:        "dim_names": [
// JSON-NEXT:     "",
// JSON-NEXT:     "past + seq",
// JSON-NEXT:     ""
// JSON-NEXT:   ]
// JSON:      "func": "torch.relu"
// JSON-NOT:  "past + seq"
