// traced-gpu-reductions' row kernels (`rows`; the pass's option is off by
// default, traced-gpu-pipeline turns it on, docs/gpu.md): a run of
// reductions over the trailing loops and elementwise ops over the same
// rows is one kernel with a warp per row. Each reduction's total reaches
// every lane through the butterfly and stays in a register for the ops
// after it (the first lane stores it); the elementwise ops write and read
// back their elements in the same lane. A softmax is one kernel, not four.
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-reductions{rows=true}))' | FileCheck %s
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-reductions))' | FileCheck %s --check-prefix=OFF

#full = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @softmax
// CHECK:       %[[M:.*]] = memref.alloc() {{.*}} : memref<13xf32>
// CHECK:       %[[E:.*]] = memref.alloc() {{.*}} : memref<13x300xf32>
// CHECK:       %[[S:.*]] = memref.alloc() {{.*}} : memref<13xf32>
// CHECK-NOT:   linalg.
// CHECK:       gpu.launch blocks({{.*}}) in (%{{.*}} = %c2{{.*}}) threads({{.*}}) in (%{{.*}} = %c256{{.*}}) function(@softmax_rows_0)
// (13 rows, 8 per block: the last block's warps past the rows skip them.)
// CHECK:         scf.if
// CHECK:           %[[MAX:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %cst{{.*}}) -> (f32)
// CHECK:             memref.load %arg0
// CHECK:             arith.maximumf
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:           %[[MROW:.*]] = arith.maximumf %{{.*}}, %cst_0
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %[[MROW]], %[[M]]
// The exponentials use the register, not the stored maximum.
// CHECK:           scf.for
// CHECK-NOT:         memref.load %[[M]]
// CHECK:             arith.subf %{{.*}}, %[[MROW]]
// CHECK:             math.exp
// CHECK:             memref.store %{{.*}}, %[[E]]
// CHECK:           scf.for {{.*}} -> (f32)
// CHECK:             memref.load %[[E]]
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:           %[[SROW:.*]] = arith.addf %{{.*}}, %cst
// CHECK:           scf.for
// CHECK:             memref.load %[[E]]
// CHECK:             arith.divf %{{.*}}, %[[SROW]]
// CHECK:             memref.store %{{.*}}, %arg1
// CHECK:       gpu.terminator
// CHECK-NOT:   linalg.
// CHECK:       memref.dealloc %[[E]]
// OFF-LABEL:   func.func @softmax
// OFF-COUNT-2: function(@softmax_reduce_
// OFF:         linalg.generic
func.func @softmax(%arg0: memref<13x300xf32>, %arg1: memref<13x300xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %m = memref.alloc() {alignment = 64 : i64} : memref<13xf32>
  linalg.fill ins(%cst_0 : f32) outs(%m : memref<13xf32>)
  linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<13x300xf32>) outs(%m : memref<13xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %out : f32
    linalg.yield %0 : f32
  }
  %e = memref.alloc() {alignment = 64 : i64} : memref<13x300xf32>
  linalg.generic {indexing_maps = [#full, #row, #full], iterator_types = ["parallel", "parallel"]} ins(%arg0, %m : memref<13x300xf32>, memref<13xf32>) outs(%e : memref<13x300xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %0 = arith.subf %in, %in_3 : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %m : memref<13xf32>
  %s = memref.alloc() {alignment = 64 : i64} : memref<13xf32>
  linalg.fill ins(%cst : f32) outs(%s : memref<13xf32>)
  linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%e : memref<13x300xf32>) outs(%s : memref<13xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#full, #row, #full], iterator_types = ["parallel", "parallel"]} ins(%e, %s : memref<13x300xf32>, memref<13xf32>) outs(%arg1 : memref<13x300xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %0 = arith.divf %in, %in_3 : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %e : memref<13x300xf32>
  memref.dealloc %s : memref<13xf32>
  return
}

// LayerNorm's ops (the weight and bias read by column): one kernel.
// CHECK-LABEL: func.func @layer_norm
// CHECK:       function(@layer_norm_rows_0)
// CHECK-COUNT-10: gpu.shuffle xor
// CHECK:         memref.load %arg1[%{{.*}}] : memref<300xf32>
// CHECK:         math.sqrt
// CHECK-NOT:   linalg.
// CHECK:       return
func.func @layer_norm(%x: memref<16x300xf32>, %w: memref<300xf32>, %b: memref<300xf32>, %y: memref<16x300xf32>) {
  %one = arith.constant 1.000000e+00 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %inv = arith.constant 0.00333333341 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %sum = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<16xf32>)
  linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<16x300xf32>) outs(%sum : memref<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  %c = memref.alloc() : memref<16x300xf32>
  linalg.generic {indexing_maps = [#full, #row, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : memref<16x300xf32>, memref<16xf32>) outs(%c : memref<16x300xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.mulf %s, %inv : f32
    %1 = arith.subf %in, %0 : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %sum : memref<16xf32>
  %var = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%var : memref<16xf32>)
  linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%c : memref<16x300xf32>) outs(%var : memref<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %out : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#full, #row, #col, #col, #full], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %w, %b : memref<16x300xf32>, memref<16xf32>, memref<300xf32>, memref<300xf32>) outs(%y : memref<16x300xf32>) {
  ^bb0(%in: f32, %v: f32, %ww: f32, %bb: f32, %out: f32):
    %0 = arith.mulf %v, %inv : f32
    %1 = arith.addf %0, %eps : f32
    %2 = math.sqrt %1 : f32
    %3 = arith.divf %one, %2 : f32
    %4 = arith.mulf %in, %3 : f32
    %5 = arith.mulf %4, %ww : f32
    %6 = arith.addf %5, %bb : f32
    linalg.yield %6 : f32
  }
  memref.dealloc %c : memref<16x300xf32>
  memref.dealloc %var : memref<16xf32>
  return
}

// Not a run: what a later op reads of an earlier one's output is not the
// element its own lane wrote (a transposed read), so the reduction keeps
// its own kernel and the rest stays linalg.
// CHECK-LABEL: func.func @transposed_read
// CHECK-NOT:   _rows_
// CHECK:       function(@transposed_read_reduce_0)
// CHECK:       linalg.generic
func.func @transposed_read(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %sum = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<64xf32>)
  linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x64xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  %t = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#full, #col, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : memref<64x64xf32>, memref<64xf32>) outs(%t : memref<64x64xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.subf %in, %s : f32
    linalg.yield %0 : f32
  }
  linalg.copy ins(%t : memref<64x64xf32>) outs(%y : memref<64x64xf32>)
  return
}

// A reduction over the leading loop (a column sum) is no row run either.
// CHECK-LABEL: func.func @column_sum
// CHECK-NOT:   _rows_
// CHECK:       function(@column_sum_reduce_0)
func.func @column_sum(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %sum = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<64xf32>)
  linalg.generic {indexing_maps = [#full, #col], iterator_types = ["reduction", "parallel"]} ins(%x : memref<64x64xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#full, #col, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : memref<64x64xf32>, memref<64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.divf %in, %s : f32
    linalg.yield %0 : f32
  }
  return
}
