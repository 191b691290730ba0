// RUN: traced-opt %s | FileCheck %s
// RUN: traced-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Traced values may stand anywhere inside a call's Python arguments: in
// lists, tuples and slices. The generic form shows where: operand markers.

traced.module root @M class "__main__.M" {
  // CHECK-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %a: tensor<2x8xf32>, %b: tensor<2x8xf32>, %n: i64) {
    // CHECK: call_function "mylib.f"([%a, (%b, %n)], slice(%n, None, 2), key=(%a,)) : (tensor<2x8xf32>, tensor<2x8xf32>, i64, i64, tensor<2x8xf32>) -> ()
    // GENERIC: arguments = {{\[}}[#traced.operand<0>, #traced.tuple<[#traced.operand<1>, #traced.operand<2>]>], #traced.slice<#traced.operand<3>, #traced.none, 2 : i64>, #traced.tuple<[#traced.operand<4>]>], callee = "mylib.f", keywords = ["key"]
    call_function "mylib.f"([%a, (%b, %n)], slice(%n, None, 2), key=(%a,)) : (tensor<2x8xf32>, tensor<2x8xf32>, i64, i64, tensor<2x8xf32>) -> ()
    // The same value may appear twice; each use is an operand.
    // CHECK: call_function "torch.cat"(tensors=[%a, %a, %b]) : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<6x8xf32>
    %0 = call_function "torch.cat"([%a, %a, %b]) : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<6x8xf32>
    // Python values of every kind as constant arguments.
    // CHECK: call_function "mylib.g"(None, True, -1, 2.5, "s", [], (), ..., dtype(bf16), object("cpu"), float("inf"))
    // GENERIC: arguments = [#traced.none, true, -1, 2.500000e+00, "s", [], #traced.tuple<[]>, #traced.ellipsis, #traced.dtype<bf16>, #traced.object<"cpu">, 0x7FF0000000000000 : f64]
    call_function "mylib.g"(None, True, -1, 2.5, "s", [], (), ..., dtype(bf16), object("cpu"), float("inf")) : () -> ()
    output
  }
}
