// traced-cpu-split-functions cuts a function of more than max-ops ops into
// calls of parts, in order. Constants, operand-free empties and their fills
// are cloned into each part that uses them (the shared zero accumulator
// %acc does not become an argument); a value used after its part is
// returned from it; the run-time check stays in the function, after the
// call computing its condition. No part returns a dynamically shaped
// tensor: no part ends while one is live, and the ops from the last cut on
// (here the one computing the returned ?x4 tensor) stay in the function.
// max-ops=0 never splits.
// RUN: traced-opt %s --traced-cpu-split-functions=max-ops=2 | FileCheck %s
// RUN: traced-opt %s --traced-cpu-split-functions=max-ops=0 | FileCheck %s --check-prefix=NONE
// RUN: traced-opt %s --traced-cpu-split-functions=max-ops=9 | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32>, %[[N:.*]]: tensor<?x4xf32>, %[[I:.*]]: index)
// CHECK-NOT:     linalg.
// CHECK:         %[[P1:.*]]:2 = call @forward_part1(%[[X]]) : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK-NEXT:    %[[P2:.*]]:2 = call @forward_part2(%[[I]], %[[P1]]#1) : (index, tensor<4x4xf32>) -> (i1, tensor<4x4xf32>)
// CHECK-NEXT:    cf.assert %[[P2]]#0, "index out of bounds"
// CHECK-NEXT:    %[[D:.*]] = linalg.add ins(%[[P2]]#1, %[[P1]]#0 :
// CHECK:         tensor.empty(%[[I]]) : tensor<?x4xf32>
// CHECK-COUNT-3: linalg.exp
// CHECK:         return %[[D]], %{{.*}} : tensor<4x4xf32>, tensor<?x4xf32>

// CHECK-LABEL: func.func private @forward_part1(
// CHECK-SAME:      %[[X1:.*]]: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK-SAME:      passthrough = ["noinline"]
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.0
// CHECK-DAG:     %[[EMPTY:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]]
// CHECK:         %[[A:.*]] = linalg.matmul ins(%[[X1]], %[[X1]] : {{.*}}) outs(%[[ACC]]
// CHECK:         %[[B:.*]] = linalg.add ins(%[[A]], %[[X1]] : {{.*}}) outs(%[[EMPTY]]
// CHECK:         return %[[A]], %[[B]]

// CHECK-LABEL: func.func private @forward_part2(
// CHECK-SAME:      %[[I2:.*]]: index, %[[B2:.*]]: tensor<4x4xf32>) -> (i1, tensor<4x4xf32>)
// CHECK:         linalg.fill
// CHECK:         %[[OK:.*]] = arith.cmpi ult, %[[I2]]
// CHECK:         %[[C:.*]] = linalg.matmul ins(%[[B2]], %[[B2]]
// CHECK:         return %[[OK]], %[[C]]

// CHECK-NOT:   func.func

// NONE-LABEL: func.func @forward(
// NONE-NOT:     call
// NONE-NOT:   func.func

func.func @forward(%x: tensor<4x4xf32>, %n: tensor<?x4xf32>, %i: index) -> (tensor<4x4xf32>, tensor<?x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = linalg.matmul ins(%x, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = linalg.add ins(%a, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%empty : tensor<4x4xf32>) -> tensor<4x4xf32>
  %c4 = arith.constant 4 : index
  %ok = arith.cmpi ult, %i, %c4 : index
  cf.assert %ok, "index out of bounds"
  %c = linalg.matmul ins(%b, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %d = linalg.add ins(%c, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%empty : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = tensor.empty(%i) : tensor<?x4xf32>
  %e = linalg.exp ins(%n : tensor<?x4xf32>) outs(%m : tensor<?x4xf32>) -> tensor<?x4xf32>
  %f = linalg.exp ins(%e : tensor<?x4xf32>) outs(%m : tensor<?x4xf32>) -> tensor<?x4xf32>
  %g = linalg.exp ins(%f : tensor<?x4xf32>) outs(%m : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %d, %g : tensor<4x4xf32>, tensor<?x4xf32>
}
