// traced-cpu-pipeline takes seed 000's module to the LLVM dialect with the
// C entry point and its signature string, and nothing of the traced
// dialect, memrefs or MLIR runtime calls left.
// RUN: traced-opt %S/../../../docs/examples/simple_module.mlir --traced-cpu-pipeline | FileCheck %s
// RUN: traced-opt %S/../../../docs/examples/simple_module.mlir --traced-cpu-pipeline=vectorize=false | FileCheck %s

// CHECK-NOT:   traced.
// CHECK-NOT:   memrefCopy
// CHECK:       llvm.func @forward(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64
// CHECK-SAME:    traced.entry = (tensor<3x4xf32>) -> tensor<3x5xf32>
// CHECK:       llvm.func @traced_forward(%[[IN:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr)
// CHECK:         llvm.load
// CHECK:         llvm.call @forward(
// CHECK:       llvm.mlir.global external constant @traced_forward_signature("(tensor<3x4xf32>) -> tensor<3x5xf32>\00")
// CHECK-NOT:   memref.
// CHECK-NOT:   vector.transfer
