// RUN: traced-opt %s --traced-cpu-pipeline | FileCheck %s
// RUN: traced-translate --traced-cpu-object %s -o %t.o
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=OBJECT

// Temporaries are allocated through the generic functions
// (finalize-memref-to-llvm{use-generic-functions}), which the JIT binds to
// its buffer cache and save_library's libraries define with a caching
// allocator; an object file carries weak definitions that call malloc and
// free, so it links on its own.

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x8x32x32xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x30x30xf32> {
    %y = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w) : (tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x30x30xf32>
    output %y : tensor<1x8x30x30xf32>
  }
}

// CHECK-NOT:  llvm.call @malloc
// CHECK:      llvm.call @_mlir_memref_to_llvm_alloc
// CHECK:      llvm.call @_mlir_memref_to_llvm_free
// CHECK-NOT:  llvm.call @free(

// OBJECT-DAG: W _mlir_memref_to_llvm_alloc
// OBJECT-DAG: W _mlir_memref_to_llvm_free
// OBJECT-DAG: U malloc
// OBJECT-DAG: U free
