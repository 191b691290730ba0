// RUN: traced-opt %s --traced-cpu-pipeline="threads=true" --mlir-print-ir-after=traced-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s

// A decode step's attention scores, q @ k^T with one query row against a
// growing past of keys (dynamic, read along the head dim): with threads,
// the heads go to an scf.forall first; each output element is then the dot
// product of two contiguous rows, a product and one reassociated
// vector.reduction, 4 columns at a time, instead of vectors along the
// columns that gather one element per key (docs/llm.md, "Speed").

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %q: tensor<1x12x1x64xf32>, %k: tensor<1x12x?x64xf32> {traced.dim_names = ["", "", "past", ""]}) -> tensor<1x12x1x?xf32> {
    %t = call_method %k["transpose"](dim0=-2, dim1=-1) : (tensor<1x12x?x64xf32>) -> tensor<1x12x64x?xf32>
    %s = call_function "operator.matmul"(input=%q, other=%t) : (tensor<1x12x1x64xf32>, tensor<1x12x64x?xf32>) -> tensor<1x12x1x?xf32>
    output %s : tensor<1x12x1x?xf32>
  }
}

// CHECK-LABEL: IR Dump After TracedCpuTileAndVectorize
// CHECK:       scf.forall
// CHECK-NOT:   vector.from_elements {{.*}} : vector<16xf32>
// CHECK:       %[[Q:.*]] = vector.transfer_read {{.*}} vector<64xf32>
// CHECK:       %[[K:.*]] = vector.transfer_read {{.*}} vector<64xf32>
// CHECK:       %[[P:.*]] = arith.mulf %[[Q]], %[[K]] fastmath<contract> : vector<64xf32>
// CHECK:       vector.reduction <add>, %[[P]], %{{.*}} fastmath<reassoc,contract> : vector<64xf32> into f32
// CHECK:       scf.forall.in_parallel
