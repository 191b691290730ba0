// A model with a dynamic dim compiles once and runs at any size: the entry
// traced_forward_sized takes the named sizes (here "batch"),
// traced_forward_output_shapes says the outputs' shapes for them, and
// traced_forward_checked reads the sizes from the inputs' shapes (dims of
// one name must agree). traced-translate --run does the same from .npy
// files.
// RUN: traced-opt %s --traced-cpu-pipeline | FileCheck %s --check-prefix=ENTRY
// RUN: %python -c "import numpy as np; np.save('%t.a3.npy', np.arange(12, dtype=np.float32).reshape(3, 4)); np.save('%t.b3.npy', np.ones((3, 2), np.float32)); np.save('%t.a5.npy', np.arange(20, dtype=np.float32).reshape(5, 4)); np.save('%t.b5.npy', np.ones((5, 2), np.float32)); np.save('%t.b4.npy', np.ones((4, 2), np.float32))"
// RUN: traced-translate --run %s --run-input=%t.a3.npy --run-input=%t.b3.npy --run-output=%t.out3
// RUN: %python -c "import numpy as np; print('batch3', np.load('%t.out30.npy').tolist())" | FileCheck %s --check-prefix=RUN3
// RUN: traced-translate --run %s --run-input=%t.a5.npy --run-input=%t.b5.npy --run-output=%t.out5
// RUN: %python -c "import numpy as np; print('batch5', np.load('%t.out50.npy').shape)" | FileCheck %s --check-prefix=RUN5
// RUN: not traced-translate --run %s --run-input=%t.a5.npy --run-input=%t.b4.npy --run-output=%t.bad 2>&1 | FileCheck %s --check-prefix=MISMATCH

// ENTRY-DAG: llvm.mlir.global internal constant @{{.*}}("input 2 ('y'): dim 0 ('batch') is %lld, but an earlier input has %lld in a dim of that name\00")
// ENTRY-DAG: llvm.mlir.global internal constant @{{.*}}("output 1: dim 0 is %lld, expected %lld (tensor<?x2xf32> for these inputs)\00")
// ENTRY:     llvm.func @traced_forward_sized(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// ENTRY:       llvm.call @forward_output_dims(
// ENTRY:       llvm.call @forward(
// ENTRY:     llvm.func @traced_forward_output_shapes(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// ENTRY:     llvm.mlir.global external constant @traced_forward_dim_names("batch batch\00")
// ENTRY:     llvm.func @traced_forward_checked(
// ENTRY:       llvm.call @traced_forward_output_shapes(
// ENTRY:       llvm.call @traced_forward_sized(
// ENTRY:     llvm.mlir.global external constant @traced_forward_signature("(tensor<?x4xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>\00")
// ENTRY-NOT: llvm.func @traced_forward(

// x @ w.T with w = [[1, 0, 0, 0], [0, 0, 0, 1]], plus 1.
// RUN3: batch3 {{\[\[}}1.0, 4.0], [5.0, 8.0], [9.0, 12.0]]
// RUN5: batch5 (5, 2)
// MISMATCH: input '{{.*}}b4.npy' has 4 in dim 0 ('batch'), but an earlier input has 5 there

traced.module root @M class "m.M" {
  parameter @w : tensor<2x4xf32> = dense<[[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]> : tensor<2x4xf32>
  graph @forward(%self: !traced.module<@M>, %x: tensor<?x4xf32> {traced.dim_names = ["batch", ""]}, %y: tensor<?x2xf32> {traced.dim_names = ["batch", ""]}) -> tensor<?x2xf32> {
    %w = getattr %self["w"] : !traced.module<@M> -> tensor<2x4xf32>
    %l = call_function "torch.nn.functional.linear"(input=%x, weight=%w) : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x2xf32>
    %s = call_function "torch.add"(input=%l, other=%y) : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
    output %s : tensor<?x2xf32>
  }
}
