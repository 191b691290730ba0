// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-before=convert-scf-to-openmp -o /dev/null 2>&1 | FileCheck %s

// Serial loop nests at a function's top level (here the copies of a
// concatenation, too small to thread) move out of line as well, into
// functions marked noinline: LLVM's -O3 is superlinear in a function's
// size, and densenet121's `forward` held hundreds of copy loops (61,000
// LLVM ops; -O3 20.4 -> 6.4 s, run time unchanged). Identical nests share
// one function (dedup-parallel.mlir).

func.func @forward(%a: tensor<4x8x16xf32>, %b: tensor<4x8x16xf32>) -> tensor<4x16x16xf32> {
  %c = tensor.concat dim(1) %a, %b : (tensor<4x8x16xf32>, tensor<4x8x16xf32>) -> tensor<4x16x16xf32>
  return %c : tensor<4x16x16xf32>
}

// (The two copies write views of different static offsets, so their
// functions differ: as in densenet121.)
// CHECK-LABEL: IR Dump Before ConvertSCFToOpenMPPass
// CHECK:       func.func private @[[L0:forward_loop_[0-9]+]](%{{.*}}: memref<4x8x16xf32>, %{{.*}}: memref<4x8x16xf32, strided<[256, 16, 1]>>) attributes {passthrough = ["noinline"]}
// CHECK:         scf.for
// CHECK:       func.func private @[[L1:forward_loop_[0-9]+]](%{{.*}}: memref<4x8x16xf32>, %{{.*}}: memref<4x8x16xf32, strided<[256, 16, 1], offset: 128>>) attributes {passthrough = ["noinline"]}
// CHECK:       func.func @forward(%[[A:.*]]: memref<4x8x16xf32>, %[[B:.*]]: memref<4x8x16xf32>, %[[OUT:.*]]: memref<4x16x16xf32>)
// CHECK-NOT:     scf.for
// CHECK:         call @[[L0]](%[[A]],
// CHECK-NOT:     scf.for
// CHECK:         call @[[L1]](%[[B]],
// CHECK-NOT:     scf.for
// CHECK:         return
