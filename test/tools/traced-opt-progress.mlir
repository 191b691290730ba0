// RUN: env TRACED_PROGRESS=1 traced-opt %s --traced-flatten --canonicalize -o /dev/null 2>&1 | tr '\r' '\n' | FileCheck %s
// RUN: env TRACED_PROGRESS=1 traced-opt %s --traced-cpu-pipeline -o /dev/null 2>&1 | tr '\r' '\n' | FileCheck %s --check-prefix=CPU
// RUN: env -u TRACED_PROGRESS traced-opt %s --traced-flatten -o /dev/null 2>&1 | count 0
// RUN: env TRACED_PROGRESS=0 traced-opt %s --traced-flatten -o /dev/null 2>&1 | count 0

// On a terminal (here forced with TRACED_PROGRESS=1) traced-opt rewrites
// one stderr line with the running pass and how far the pipeline is, and
// clears it at the end; stderr that is not a terminal stays quiet.

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %y = call_function "torch.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    output %y : tensor<2xf32>
  }
}

// CHECK:      traced-opt [1/2] traced-flatten
// CHECK-NEXT: traced-opt [2/2] canonicalize
// CHECK-NOT:  traced-opt

// A pass pipeline counts the passes it runs; nested ones show their op.
// CPU:      traced-opt [1/[[N:[0-9]+]]] traced-flatten
// CPU:      traced-opt [{{[0-9]+}}/[[N]]] func.func: canonicalize
// CPU:      traced-opt [{{[0-9]+}}/[[N]]] one-shot-bufferize
// CPU:      traced-opt {{\[}}[[N]]/[[N]]] traced-emit-entry
