// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=true min-parallel-flops=0 lower-vectors=false},canonicalize,cse))' | FileCheck %s
// RUN: traced-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(traced-cpu-tile-and-vectorize{parallel=false lower-vectors=false},canonicalize,cse))' | FileCheck %s --check-prefix=SERIAL
// RUN: traced-opt %s --split-input-file --traced-cpu-pipeline --mlir-print-ir-after=scf-forall-to-parallel -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS

// The fill that starts an output spread over threads moves into the
// forall (fuseFillsIntoForall): each iteration fills its own slice just
// before accumulating into it, and the forall starts from the fill's
// empty destination. Outside, the fill was a serial pass over the whole
// output before the parallel loop. Here a packed matmul, whose output is
// the fill seen through an expand_shape into column panels.

func.func @matmul(%a: tensor<1024x64xf32>, %b: tensor<64x64xf32>) -> tensor<1024x64xf32> {
  %e = tensor.empty() : tensor<1024x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1024x64xf32>) -> tensor<1024x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x64xf32>, tensor<64x64xf32>) outs(%f : tensor<1024x64xf32>) -> tensor<1024x64xf32>
  return %r : tensor<1024x64xf32>
}

// CHECK-LABEL: func.func @matmul
// CHECK-NOT:     linalg.fill
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<1024x64xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         %[[P:.*]] = tensor.expand_shape %[[E]]
// CHECK-NOT:     linalg.fill
// CHECK:         scf.forall (%[[I:.*]]) = (0) to (1024) step (64) shared_outs(%[[OUT:.*]] = %[[P]])
// CHECK:           %[[S:.*]] = tensor.extract_slice %[[OUT]][%[[I]], 0, 0] [64, 2, 32]
// CHECK:           linalg.fill ins(%{{.*}} : f32) outs(%[[S]] : tensor<64x2x32xf32>)
// CHECK:           vector.contract

// Without threads there is no forall, and the fill stays where it was.
// SERIAL-LABEL: func.func @matmul
// SERIAL:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1024x64xf32>)
// SERIAL-NOT:     scf.forall

// After bufferization: the fill's stores run in the parallel loop, into
// the function's output buffer (written in place: no copy at the end).
// BUFFERS-LABEL: func.func @matmul
// BUFFERS-SAME:    %[[OUTARG:[^:]*]]: memref<1024x64xf32>)
// BUFFERS:         %[[OUTP:.*]] = memref.expand_shape %[[OUTARG]]
// BUFFERS-NOT:     memref.store
// BUFFERS:         scf.parallel
// BUFFERS:           %[[ROWS:.*]] = memref.subview %[[OUTP]]
// BUFFERS:           memref.store %{{.*}}, %[[ROWS]]
// BUFFERS-NOT:     memref.copy
// BUFFERS:         return

// -----

// A fill with another user stays for it; the forall gets its own empty
// destination (the same value after CSE, which DuplicateSharedFills splits
// again before bufferization).

func.func @shared(%a: tensor<1024x64xf32>, %b: tensor<64x64xf32>) -> (tensor<1024x64xf32>, tensor<1024x64xf32>) {
  %e = tensor.empty() : tensor<1024x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1024x64xf32>) -> tensor<1024x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x64xf32>, tensor<64x64xf32>) outs(%f : tensor<1024x64xf32>) -> tensor<1024x64xf32>
  return %r, %f : tensor<1024x64xf32>, tensor<1024x64xf32>
}

// CHECK-LABEL: func.func @shared
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<1024x64xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<1024x64xf32>)
// CHECK:         %[[P:.*]] = tensor.expand_shape %[[E]]
// CHECK:         scf.forall {{.*}} shared_outs(%[[OUT:.*]] = %[[P]])
// CHECK:           linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<64x2x32xf32>)
// CHECK:         return %{{.*}}, %[[F]]

// -----

// A row reduction spread over threads: each iteration zeroes its own
// accumulator.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @rowsum(%x: tensor<256x1024xf32>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<256x1024xf32>) outs(%f : tensor<256xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}

// CHECK-LABEL: func.func @rowsum
// CHECK-NOT:     linalg.fill
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<256xf32>
// CHECK:         scf.forall (%[[I:.*]]) in (256) shared_outs(%[[OUT:.*]] = %[[E]])
// CHECK:           %[[S:.*]] = tensor.extract_slice %[[OUT]][%[[I]]] [1] [1]
// CHECK:           %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S]] : tensor<1xf32>)
// CHECK:           vector.transfer_read %[[Z]]
// CHECK:           vector.multi_reduction <add>
