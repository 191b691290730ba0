// RUN: traced-opt %s --convert-traced-to-linalg | FileCheck %s

// A tuple output a call returned (an LSTM's (h, c) beside its output; here
// sort's values and indices) is returned as its leaves, depth first, each
// read with operator.getitem: the function has three results, and
// CompiledModule nests them again (test_rnn.py: (output, (h, c))).
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    -> (tensor<5xf32>, tensor<5xi64>, tensor<5xf32>)
// CHECK:         return %{{.*}}, %{{.*}}, %{{.*}} : tensor<5xf32>, tensor<5xi64>, tensor<5xf32>
traced.module root @T class "m.T" {
  graph @forward(%self: !traced.module<@T>, %x: tensor<5xf32>) -> (tuple<tensor<5xf32>, tensor<5xi64>>, tensor<5xf32>) {
    %s = call_function "torch.sort"(input=%x) : (tensor<5xf32>) -> tuple<tensor<5xf32>, tensor<5xi64>>
    %y = call_function "torch.relu"(input=%x) : (tensor<5xf32>) -> tensor<5xf32>
    output %s, %y : tuple<tensor<5xf32>, tensor<5xi64>>, tensor<5xf32>
  }
}
