// RUN: traced-opt %s --traced-cpu-pipeline --mlir-print-ir-before=convert-scf-to-openmp -o /dev/null 2>&1 | FileCheck %s

// Each outermost parallel loop moves into a private function of its own
// before the OpenMP conversion. LLVM's OpenMP translation outlines every
// parallel region with a CodeExtractor that analyses the whole enclosing
// function each time, which is quadratic when a model's hundreds of
// regions share one function (vit_b_16: 8.4 s of translation, 0.4 s
// outlined). The constants the loop uses are cloned into the function, so
// its bounds stay constants; its buffers (and weights: dedup-parallel.mlir)
// are arguments.

func.func @forward(%x: tensor<64x1024xf32>) -> (tensor<64x1024xf32>, tensor<64x1024xf32>) {
  %e = tensor.empty() : tensor<64x1024xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 2.0 : f32
    %m = arith.mulf %in, %c : f32
    linalg.yield %m : f32
  } -> tensor<64x1024xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 3.0 : f32
    %m = arith.addf %in, %c : f32
    linalg.yield %m : f32
  } -> tensor<64x1024xf32>
  return %a, %b : tensor<64x1024xf32>, tensor<64x1024xf32>
}

// CHECK-LABEL: IR Dump Before ConvertSCFToOpenMPPass
// CHECK:       func.func private @forward_parallel_0(%{{.*}}: memref<64x1024xf32>, %{{.*}}: memref<64x1024xf32>)
// CHECK-DAG:     arith.constant dense<2.000000e+00> : vector<1x16xf32>
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[C64]])
// CHECK:       func.func private @forward_parallel_1(
// CHECK:         arith.constant dense<3.000000e+00> : vector<1x16xf32>
// CHECK:         scf.parallel
// CHECK:       func.func @forward(
// CHECK-NOT:     scf.parallel
// CHECK:         call @forward_parallel_0(
// CHECK-NOT:     scf.parallel
// CHECK:         call @forward_parallel_1(
// CHECK-NOT:     scf.parallel
// CHECK:         return
