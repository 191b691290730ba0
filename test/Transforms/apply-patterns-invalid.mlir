// A pattern that builds invalid IR is caught by the verifier after the
// patterns ran: here relu becomes conv2d, which needs a weight.
// RUN: %python -c "import sys; open('%t.pdl.mlir', 'w').write(open(sys.argv[1]).read().replace('torch.nn.functional.gelu', 'torch.nn.functional.conv2d'))" %test_src/../docs/patterns/relu-to-gelu.pdl.mlir
// RUN: not traced-opt %s --traced-apply-patterns=patterns=%t.pdl.mlir 2>&1 | FileCheck %s

// CHECK: error: 'traced.call_function' op 'torch.nn.functional.conv2d' missing required argument 'weight'

traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>) -> tensor<3xf32> {
    %0 = call_function "torch.nn.functional.relu"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    output %0 : tensor<3xf32>
  }
}
