// A graph traced with dynamic_dims={0: "batch"}: `?` dims take their sizes
// from tensor.dim of the operands, and the entry gets
// forward_output_dims, the output sizes as functions of the inputs' sizes
// (resolved through the ops' shape reification, so it reads no data).
// RUN: traced-opt %s --convert-traced-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x4xf32>, %[[Y:[^:]*]]: tensor<?x3xf32>) -> tensor<?x2xf32>
// CHECK-SAME:    traced.dim_names = {{\[\[}}"batch", ""], ["batch", ""]]
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK:         tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[X]], %{{.*}} : tensor<?x4xf32>, tensor<4x3xf32>)
// Two dynamic dims that meet are checked equal at run time (torch would
// broadcast a size of 1; the compiled code refuses it).
// CHECK:         %[[M:.*]] = tensor.dim %[[MM]], %c0
// CHECK:         %[[K:.*]] = tensor.dim %[[Y]], %c0
// CHECK:         %[[EQ:.*]] = arith.cmpi eq, %[[M]], %[[K]]
// CHECK:         cf.assert %[[EQ]], "{{.*}}dynamic-dims.mlir:{{[0-9]+}}: operands differ in a dynamic dim
// The view's -1 is what the element count leaves, checked to divide.
// CHECK:         cf.assert %{{.*}}, "{{.*}}: a reshape to another number of elements"
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [%{{.*}}, 2] : tensor<?xf32> into tensor<?x2xf32>

// CHECK-LABEL: func.func @forward_output_dims(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<?x4xf32>, %{{[^:]*}}: tensor<?x3xf32>) -> (index, index)
// CHECK-SAME:    traced.output_dims_of = @forward
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-NOT:     linalg
// CHECK:         %[[D:.*]] = tensor.dim %[[A]], %c0
// CHECK:         %[[T:.*]] = arith.muli %[[D]], %[[C3]]
// CHECK:         %[[H:.*]] = arith.divui %[[T]], %[[C2]]
// CHECK:         return %[[H]], %[[C2]] : index, index

traced.module root @M class "m.M" {
  parameter @w : tensor<3x4xf32> = dense<0.5> : tensor<3x4xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<?x4xf32> {traced.dim_names = ["batch", ""]}, %y: tensor<?x3xf32> {traced.dim_names = ["batch", ""]}) -> tensor<?x2xf32> {
    %w = getattr %self["w"] : !traced.module<@M> -> tensor<3x4xf32>
    %l = call_function "torch.nn.functional.linear"(input=%x, weight=%w) : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x3xf32>
    %s = call_function "torch.add"(input=%l, other=%y) : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    %r = call_function "torch.relu"(input=%s) : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %t = call_method %r["view"](-1, 2) : (tensor<?x3xf32>) -> tensor<?x2xf32>
    output %t : tensor<?x2xf32>
  }
}
