// The two worked examples in docs/patterns, run as the docs show them.
// RUN: traced-opt %s --traced-apply-patterns=patterns=%test_src/../docs/patterns/relu-to-gelu.pdl.mlir | FileCheck %s --check-prefix=GELU
// RUN: traced-opt %s --traced-apply-patterns=patterns=%test_src/../docs/patterns/clamp-to-relu6.pdl.mlir | FileCheck %s --check-prefix=RELU6
// RUN: traced-opt %s --traced-apply-patterns='patterns=%test_src/../docs/patterns/relu-to-gelu.pdl.mlir report-iterations' 2>&1 >/dev/null | FileCheck %s --check-prefix=SWEEPS
// SWEEPS: remark: traced-apply-patterns: fixed point after 2 sweep(s)
// Bad uses are errors, not crashes.
// RUN: not traced-opt %s --traced-apply-patterns 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not traced-opt %s --traced-apply-patterns=patterns=%t.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not traced-opt %s --traced-apply-patterns=patterns=%s 2>&1 | FileCheck %s --check-prefix=EMPTY

// NOFILE: error: traced-apply-patterns needs a pattern file: patterns=FILE
// MISSING: error: cannot use the patterns in '{{.*}}.missing'
// EMPTY: holds no pdl.pattern

traced.module root @M class "m.M" {
  // GELU-LABEL: graph @forward
  // RELU6-LABEL: graph @forward
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    // GELU: %[[G:.*]] = call_function "torch.nn.functional.gelu"(input=%x)
    // RELU6: %[[R:.*]] = call_function "torch.nn.functional.relu"(input=%x)
    %0 = call_function "torch.nn.functional.relu"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    // RELU6: call_function "torch.nn.functional.relu6"(input=%[[R]])
    %1 = call_function "torch.clamp"(%0, 0, 6) : (tensor<3xf32>) -> tensor<3xf32>
    // Another clamp is no relu6.
    // RELU6: call_function "torch.clamp"(input=%x, min=-1, max=6)
    %2 = call_function "torch.clamp"(%x, -1, 6) : (tensor<3xf32>) -> tensor<3xf32>
    output %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}
