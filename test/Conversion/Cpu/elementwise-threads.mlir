// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-after=traced-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s
// RUN: traced-opt %s --traced-cpu-pipeline="threads=false" --mlir-print-ir-after=traced-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE

// An elementwise op of at least 2^14 elements runs its outermost dimension
// of eight or more (else its largest of two or more, never the vector one)
// over threads (scf.forall, then OpenMP); a smaller one, or any with
// threads=false, stays on the calling thread.

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x128x128xf32>, %s: tensor<4x100xf32>, %u: tensor<2x3x4096xf32>) -> (tensor<1x4x128x128xf32>, tensor<4x100xf32>, tensor<2x3x4096xf32>) {
    %y = call_function "torch.relu"(%x) : (tensor<1x4x128x128xf32>) -> tensor<1x4x128x128xf32>
    %t = call_function "torch.relu"(%s) : (tensor<4x100xf32>) -> tensor<4x100xf32>
    %v = call_function "torch.relu"(%u) : (tensor<2x3x4096xf32>) -> tensor<2x3x4096xf32>
    output %y, %t, %v : tensor<1x4x128x128xf32>, tensor<4x100xf32>, tensor<2x3x4096xf32>
  }
}

// CHECK-LABEL: IR Dump After TracedCpuTileAndVectorize
// CHECK:       scf.forall (%{{.*}}) in (128)
// CHECK:         arith.maximumf %{{.*}} : vector<1x1x1x16xf32>
// CHECK:       scf.forall.in_parallel
// CHECK-NOT:   scf.forall ({{.*}}) in (4)
// CHECK:       scf.forall (%{{.*}}) in (3)
// CHECK:         arith.maximumf %{{.*}} : vector<1x1x16xf32>
// CHECK:       scf.forall.in_parallel
// CHECK-NOT:   scf.forall
// CHECK:       return

// ONE-LABEL:   IR Dump After TracedCpuTileAndVectorize
// ONE-NOT:     scf.forall
