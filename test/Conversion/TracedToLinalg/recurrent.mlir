// traced.nn.rnn (a GRU here, with a dynamic sequence length): the input
// projection of every time step is one matmul before the loop; the time
// loop is an scf.for up to tensor.dim of the sequence, carrying the
// trajectory of h (row 0 the initial state, row t + 1 step t's h), with the
// recurrent matmul and the gates inside; the output is rows 1..T.
// RUN: traced-opt %s --convert-traced-to-linalg --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x1x3xf32>, %[[H:[^:]*]]: tensor<1x1x2xf32>
// CHECK:         %[[XP2:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x3xf32>, tensor<3x6xf32>)
// CHECK:         %[[XP:.*]] = tensor.expand_shape %[[XP2]]
// CHECK:         %[[H0:.*]] = tensor.extract_slice %[[H]][0, 0, 0] [1, 1, 2]
// CHECK:         %[[T:.*]] = tensor.dim %[[XP]], %c0
// CHECK:         %[[INIT:.*]] = tensor.insert_slice %[[H0]] into %{{.*}}[0, 0, 0] [1, 1, 2]
// CHECK:         %[[LOOP:.*]] = scf.for %[[I:.*]] = %c0 to %[[T]] step %c1 iter_args(%[[TRAJ:.*]] = %[[INIT]]) -> (tensor<?x1x2xf32>) {
// CHECK:           %[[NEXT:.*]] = arith.addi %[[I]], %c1
// CHECK:           tensor.extract_slice %[[XP]][%[[I]], 0, 0] [1, 1, 6]
// CHECK:           %[[HPREV:.*]] = tensor.extract_slice %[[TRAJ]][%[[I]], 0, 0] [1, 1, 2]
// CHECK:           linalg.matmul ins(%[[HPREV]], %{{.*}} : tensor<1x2xf32>, tensor<2x6xf32>)
// CHECK:           math.tanh
// CHECK:           %[[W:.*]] = tensor.insert_slice %{{.*}} into %[[TRAJ]][%[[NEXT]], 0, 0] [1, 1, 2]
// CHECK:           scf.yield %[[W]] : tensor<?x1x2xf32>
// CHECK:         }
// CHECK:         %[[ROWS:.*]] = tensor.extract_slice %[[LOOP]][1, 0, 0] [%[[T]], 1, 2]
// CHECK:         %[[OUT:.*]] = tensor.insert_slice %[[ROWS]] into
// CHECK:         return %[[OUT]]
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<?x1x3xf32> {traced.dim_names = ["seq", "", ""]}, %h: tensor<1x1x2xf32>, %wi: tensor<6x3xf32>, %wh: tensor<6x2xf32>) -> tensor<?x1x2xf32> {
    %r = call_function "traced.nn.rnn"(input=%x, hx=%h, params=[%wi, %wh], mode="GRU", input_size=3, hidden_size=2, bias=False) : (tensor<?x1x3xf32>, tensor<1x1x2xf32>, tensor<6x3xf32>, tensor<6x2xf32>) -> tuple<tensor<?x1x2xf32>, tensor<1x1x2xf32>>
    %o = call_function "operator.getitem"(input=%r, index=0) : (tuple<tensor<?x1x2xf32>, tensor<1x1x2xf32>>) -> tensor<?x1x2xf32>
    output %o : tensor<?x1x2xf32>
  }
}
