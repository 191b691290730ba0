// traced-gpu-reductions: a linalg reduction becomes a kernel in which a
// warp computes each output (8 per 256-thread block; a guard when the
// outputs do not fill the last block), or a whole block for a few long
// reductions (workgroup memory and a barrier between the warps). The
// threads stride over the reduction from the combiner's neutral element,
// a butterfly of gpu.shuffle xor combines a warp's values, and the first
// thread combines the result with the output's initial value. Other
// reductions are left to the generic loops.
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-reductions,canonicalize))' -split-input-file | FileCheck %s
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-reductions{min-length=2048},canonicalize))' -split-input-file | FileCheck %s --check-prefix=LONG

// CHECK-LABEL: func.func @row_max
// CHECK:       %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK:       gpu.launch blocks({{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, {{.*}}) function(@row_max_reduce_0)
// CHECK:         %[[LANE:.*]] = arith.remui %[[TX]], %c32
// CHECK-NOT:     scf.if
// Unrolled by 4 (4 loads in flight), then the remainder.
// CHECK:         %[[MAIN:.*]] = scf.for %{{.*}} = %[[LANE]] to %{{.*}} step %c128 iter_args(%{{.*}} = %[[NEG]]) -> (f32)
// CHECK-COUNT-4:   arith.maximumf
// CHECK:         %[[ACC:.*]] = scf.for %{{.*}} to %c1000 step %c32 iter_args(%{{.*}} = %[[MAIN]]) -> (f32)
// CHECK:           memref.load %arg0
// CHECK:           arith.maximumf
// CHECK:         gpu.shuffle xor %[[ACC]], %c16_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle xor %{{.*}}, %c8_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c4_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK:         %[[TOTAL:.*]] = arith.maximumf
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK:         scf.if %[[FIRST]] {
// CHECK:           %[[INIT:.*]] = memref.load %arg1[%[[ROW:.*]]] : memref<64xf32>
// CHECK:           %[[NEW:.*]] = arith.maximumf %[[TOTAL]], %[[INIT]]
// CHECK:           memref.store %[[NEW]], %arg1[%[[ROW]]]
// CHECK-NOT:   linalg.generic
// LONG-LABEL:  func.func @row_max
// LONG:        linalg.generic
// LONG-NOT:    gpu.launch
// LONG-LABEL:  func.func @columns
// LONG-LABEL:  func.func @total
// LONG:        gpu.launch
func.func @row_max(%in: memref<64x1000xf32>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%in : memref<64x1000xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// 13 outputs: 2 blocks, the last warps of the second idle; a reduction
// over the outer dim (sum of squares, the body recomputed per element);
// a linalg.index in the body becomes the loop's value.
// CHECK-LABEL: func.func @columns
// CHECK:       gpu.launch blocks({{.*}}) in (%{{.*}} = %c2, {{.*}}) function(@columns_reduce_0)
// CHECK:         %[[OUTPUT:.*]] = arith.addi
// CHECK:         %[[IN:.*]] = arith.cmpi ult, %[[OUTPUT]], %c13
// CHECK:         scf.if %[[IN]] {
// CHECK:           scf.for
// CHECK:             %[[X:.*]] = memref.load %arg0[%[[R:.*]], %[[OUTPUT]]] : memref<300x13xf32>
// CHECK:             %[[SQ:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK:             arith.index_cast %[[R]]
// CHECK:             arith.addf
// CHECK:           gpu.shuffle xor
func.func @columns(%in: memref<300x13xf32>, %out: memref<13xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%in : memref<300x13xf32>) outs(%out : memref<13xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %t = arith.addf %sq, %f : f32
    %s = arith.addf %acc, %t : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// One long reduction (a 0-d result): whole blocks, the warps' values
// meeting in workgroup memory; -0.0 is addf's neutral element. 4096
// elements are split over 2 blocks (at least 2048 each), which store
// their results in a buffer of partial results; a second kernel, a warp
// per output, adds those to the output.
// CHECK-LABEL: func.func @total
// CHECK:       %[[ZERO:.*]] = arith.constant -0.000000e+00 : f32
// CHECK:       %[[PARTS:.*]] = memref.alloc() : memref<2xf32>
// CHECK:       gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c2, {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, {{.*}}) function(@total_reduce_0) workgroup(%[[SHARED:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK:         %[[PART:.*]] = arith.remui %[[BX]], %c2
// CHECK:         %[[OFFSET:.*]] = arith.muli %[[PART]], %c256
// CHECK:         %[[START:.*]] = arith.addi %[[OFFSET]], %[[TX]]
// CHECK:         scf.for %{{.*}} = %[[START]] to %{{.*}} step %c2048 iter_args(%{{.*}} = %[[ZERO]])
// CHECK:         scf.for %{{.*}} to %c4096 step %c512
// CHECK:         gpu.shuffle xor
// CHECK:         memref.store %{{.*}}, %[[SHARED]]
// CHECK:         gpu.barrier
// CHECK:         scf.if %{{.*}} -> (f32) {
// CHECK:           memref.load %[[SHARED]]
// CHECK:         } else {
// CHECK:           scf.yield %[[ZERO]] : f32
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK:         memref.store %{{.*}}, %[[PARTS]][%[[PART]]] : memref<2xf32>
// CHECK:       gpu.launch {{.*}} function(@total_reduce_0_parts)
// CHECK:         memref.load %[[PARTS]]
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK:         memref.load %arg1[] : memref<f32>
// CHECK:         memref.store %{{.*}}, %arg1[] : memref<f32>
// CHECK:       memref.dealloc %[[PARTS]]
func.func @total(%in: memref<4096xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%in : memref<4096xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Integer combiners: maxsi starts from the smallest i32.
// CHECK-LABEL: func.func @int_max
// CHECK:         arith.constant -2147483648 : i32
// CHECK:         arith.maxsi
// CHECK:         gpu.shuffle xor %{{.*}} : i32
func.func @int_max(%in: memref<8x64xi32>, %out: memref<8xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%in : memref<8x64xi32>) outs(%out : memref<8xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %m = arith.maxsi %a, %acc : i32
    linalg.yield %m : i32
  }
  return
}

// -----

// A 64-bit value crosses the warp as two 32-bit halves.
// CHECK-LABEL: func.func @int64_sum
// CHECK:         %[[BITS:.*]] = scf.for {{.*}} -> (i64)
// CHECK:         %[[LO:.*]] = arith.trunci %[[BITS]] : i64 to i32
// CHECK:         %[[HI64:.*]] = arith.shrui %[[BITS]], %c32_i64
// CHECK:         %[[HI:.*]] = arith.trunci %[[HI64]] : i64 to i32
// CHECK:         %[[SLO:.*]], %{{.*}} = gpu.shuffle xor %[[LO]], %c16_i32, %c32_i32 : i32
// CHECK:         %[[SHI:.*]], %{{.*}} = gpu.shuffle xor %[[HI]], %c16_i32, %c32_i32 : i32
// CHECK:         %[[ELO:.*]] = arith.extui %[[SLO]] : i32 to i64
// CHECK:         %[[EHI:.*]] = arith.extui %[[SHI]] : i32 to i64
// CHECK:         %[[UP:.*]] = arith.shli %[[EHI]], %c32_i64
// CHECK:         %[[OTHER:.*]] = arith.ori %[[ELO]], %[[UP]] : i64
// CHECK:         arith.addi %[[OTHER]], %[[BITS]] : i64
// CHECK-COUNT-8: gpu.shuffle xor %{{.*}} : i32
func.func @int64_sum(%in: memref<8x64xi64>, %out: memref<8xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%in : memref<8x64xi64>) outs(%out : memref<8xi64>) {
  ^bb0(%a: i64, %acc: i64):
    %s = arith.addi %a, %acc : i64
    linalg.yield %s : i64
  }
  return
}

// -----

// Left to the generic loops: a short reduction, a 16-bit accumulator, two
// outputs (an argmax), a combiner that is not associative, no outputs (no
// launch of zero blocks; canonicalize then erases the empty generic).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:   gpu.launch
// CHECK-COUNT-4: linalg.generic
func.func @left_alone(%a: memref<64x16xf32>, %b: memref<64xf32>, %c: memref<64x100xf16>, %d: memref<64xf16>,
                      %e: memref<64x100xf32>, %f: memref<64xf32>, %g: memref<64xi64>, %h: memref<64xf32>,
                      %z: memref<0x100xf32>, %zo: memref<0xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%z : memref<0x100xf32>) outs(%zo : memref<0xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<64x16xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%c : memref<64x100xf16>) outs(%d : memref<64xf16>) {
  ^bb0(%x: f16, %acc: f16):
    %s = arith.addf %x, %acc : f16
    linalg.yield %s : f16
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%e : memref<64x100xf32>) outs(%f, %g : memref<64xf32>, memref<64xi64>) {
  ^bb0(%x: f32, %m: f32, %i: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %x, %m : f32
    %nm = arith.select %gt, %x, %m : f32
    %ni = arith.select %gt, %jj, %i : i64
    linalg.yield %nm, %ni : f32, i64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%e : memref<64x100xf32>) outs(%h : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.subf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}
