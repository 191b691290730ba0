// traced-gpu-tile-contractions takes in what bufferization leaves around a
// float32 contraction (`fuse`; off by default until it has run on a GPU,
// docs/gpu.md): a convolution's padded copy
// of its input (the loads read the source, the padding constant outside
// it), C's zero fill (the kernel stores its sums) and the elementwise
// generic after it (bias, activation, residual add: the kernel stores the
// generic's element, and C goes away; with K split over blocks, the last
// block of each tile computes it). Not when moving the generic to the
// contraction would change what it reads or writes.
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{fuse=true}))' | FileCheck %s
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions))' | FileCheck %s --check-prefix=OFF
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{fuse=true split-k-epilogues=true}))' | FileCheck %s --check-prefix=SPLIT
// The pipeline option: resnet18-like conv + bias + relu as one kernel.
// RUN: traced-opt %S/conv.mlir --traced-gpu-pipeline='binary=false fuse-epilogues=true' | FileCheck %s --check-prefix=PIPE
// PIPE:     gpu.launch_func async [{{.*}}] @forward_conv_0::@forward_conv_0 blocks in
// PIPE-NOT: gpu.launch_func

// conv + bias + residual + relu with padding 1: one kernel, nothing else.
// The source of the padded copy is freed right after the copy: the free
// moves after the kernel. The generic's output, allocated after the
// convolution, is allocated before the kernel.
// CHECK-LABEL: func.func @conv_block
// CHECK-SAME:    (%[[X:.*]]: memref<1x8x10x10xf32>, %[[W:.*]]: memref<16x8x3x3xf32>, %[[B:.*]]: memref<16xf32>, %[[R:.*]]: memref<1x16x10x10xf32>, %[[Y:.*]]: memref<1x16x10x10xf32>)
// CHECK-NOT:   linalg.
// CHECK:       %[[SRC:.*]] = memref.alloc() {{.*}} : memref<1x8x10x10xf32>
// CHECK-NEXT:  memref.copy %[[X]], %[[SRC]]
// CHECK-NEXT:  %[[OUT:.*]] = memref.alloc() {{.*}} : memref<1x16x10x10xf32>
// CHECK-NOT:   memref.alloc
// CHECK:       gpu.launch
// The gather: rows and columns shifted by the offset, checked unsigned
// against the source's extent (both sides at once), the padding outside.
// CHECK:         arith.subi %{{.*}}, %c1_i32
// CHECK:         arith.cmpi ult, %{{.*}}, %c10_i32
// CHECK:         arith.subi %{{.*}}, %c1_i32
// CHECK:         arith.cmpi ult, %{{.*}}, %c10_i32
// CHECK:         scf.if
// CHECK:           memref.load %[[SRC]]
// CHECK:         } else {
// CHECK-NEXT:      %[[PAD:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.yield %[[PAD]]
// CHECK:         scf.for
// The epilogue: bias at the channel, the residual, relu, stored to the
// output; C is neither loaded nor stored.
// CHECK:         memref.load %[[B]]
// CHECK-NEXT:    memref.load %[[R]]
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    memref.store %{{.*}}, %[[OUT]]
// CHECK:         gpu.terminator
// CHECK:       memref.dealloc %[[SRC]]
// CHECK-NOT:   linalg.
// CHECK:       memref.copy %[[OUT]], %[[Y]]
// CHECK-NEXT:  memref.dealloc %[[OUT]]
// CHECK-NEXT:  return
// OFF-LABEL:   func.func @conv_block
// OFF:         linalg.map
// OFF:         linalg.copy
// OFF:         linalg.fill
// OFF:         gpu.launch
// OFF:         linalg.generic
func.func @conv_block(%x: memref<1x8x10x10xf32>, %w: memref<16x8x3x3xf32>, %b: memref<16xf32>, %r: memref<1x16x10x10xf32>, %y: memref<1x16x10x10xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %src = memref.alloc() {alignment = 64 : i64} : memref<1x8x10x10xf32>
  memref.copy %x, %src : memref<1x8x10x10xf32> to memref<1x8x10x10xf32>
  %padded = memref.alloc() {alignment = 64 : i64} : memref<1x8x12x12xf32>
  linalg.map outs(%padded : memref<1x8x12x12xf32>)
    (%init: f32) {
      linalg.yield %cst : f32
    }
  %sub = memref.subview %padded[0, 0, 1, 1] [1, 8, 10, 10] [1, 1, 1, 1] : memref<1x8x12x12xf32> to memref<1x8x10x10xf32, strided<[1152, 144, 12, 1], offset: 13>>
  linalg.copy ins(%src : memref<1x8x10x10xf32>) outs(%sub : memref<1x8x10x10xf32, strided<[1152, 144, 12, 1], offset: 13>>)
  memref.dealloc %src : memref<1x8x10x10xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<1x16x10x10xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<1x16x10x10xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %w : memref<1x8x12x12xf32>, memref<16x8x3x3xf32>) outs(%c : memref<1x16x10x10xf32>)
  memref.dealloc %padded : memref<1x8x12x12xf32>
  %out = memref.alloc() {alignment = 64 : i64} : memref<1x16x10x10xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b, %r : memref<1x16x10x10xf32>, memref<16xf32>, memref<1x16x10x10xf32>) outs(%out : memref<1x16x10x10xf32>) {
  ^bb0(%in: f32, %bias: f32, %res: f32, %o: f32):
    %0 = arith.addf %in, %bias : f32
    %1 = arith.addf %0, %res : f32
    %2 = arith.maximumf %1, %cst : f32
    linalg.yield %2 : f32
  }
  memref.dealloc %c : memref<1x16x10x10xf32>
  memref.copy %out, %y : memref<1x16x10x10xf32> to memref<1x16x10x10xf32>
  memref.dealloc %out : memref<1x16x10x10xf32>
  return
}

// Asymmetric padding with another value (F.pad(x, (2, 1, 0, 3), value=0.5)):
// only the padded dims are checked, and outside the source is 0.5.
// CHECK-LABEL: func.func @pad_value
// CHECK-NOT:   linalg.
// CHECK:       gpu.launch
// CHECK:         arith.cmpi ult, %{{.*}}, %c6_i32
// CHECK:         arith.subi %{{.*}}, %c2_i32
// CHECK:         arith.cmpi ult, %{{.*}}, %c7_i32
// CHECK:         scf.if
// CHECK:           memref.load %arg0
// CHECK:           arith.constant 5.000000e-01 : f32
// CHECK:         memref.store {{.*}}, %arg2
// CHECK-NOT:   linalg.
// CHECK:       return
func.func @pad_value(%x: memref<2x3x6x7xf32>, %w: memref<4x3x2x2xf32>, %y: memref<2x4x8x9xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %padded = memref.alloc() : memref<2x3x9x10xf32>
  linalg.fill ins(%half : f32) outs(%padded : memref<2x3x9x10xf32>)
  %sub = memref.subview %padded[0, 0, 0, 2] [2, 3, 6, 7] [1, 1, 1, 1] : memref<2x3x9x10xf32> to memref<2x3x6x7xf32, strided<[270, 90, 10, 1], offset: 2>>
  linalg.copy ins(%x : memref<2x3x6x7xf32>) outs(%sub : memref<2x3x6x7xf32, strided<[270, 90, 10, 1], offset: 2>>)
  linalg.fill ins(%cst : f32) outs(%y : memref<2x4x8x9xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %w : memref<2x3x9x10xf32>, memref<4x3x2x2xf32>) outs(%y : memref<2x4x8x9xf32>)
  memref.dealloc %padded : memref<2x3x9x10xf32>
  return
}

// K split over 32 blocks (a 7 x 7 map, 512 channels): partial sums are added
// into the zero-filled C atomically. With `split-k-epilogues` (off by
// default: on an H200 such kernels took twice as long as the split kernel
// and a separate epilogue kernel, docs/gpu.md), C is reallocated with a counter per
// tile after it (8 tiles), which its fill zeroes too; once a block's sums
// are in C (fence, barrier), its first thread increments the tile's
// counter, and the block that finds 31 there reads the finished sums (fence,
// atomic reads at L2) and computes the epilogue. The padding is taken in.
// SPLIT-LABEL: func.func @split_k
// SPLIT:       %[[ALL:.*]] = memref.alloc() : memref<25096xf32>
// SPLIT-NEXT:  %[[C:.*]] = memref.reinterpret_cast %[[ALL]] to offset: [0], sizes: [1, 512, 7, 7], strides: [25088, 49, 7, 1] : memref<25096xf32> to memref<1x512x7x7xf32>
// SPLIT-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[ALL]] : memref<25096xf32>)
// SPLIT-NOT:   linalg.
// SPLIT:       gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c8{{.*}}, {{.*}} = %c32{{.*}})
// SPLIT:         memref.atomic_rmw addf %{{.*}}, %[[C]]
// SPLIT:         nvvm.memory.barrier <gpu>
// SPLIT-NEXT:    gpu.barrier
// SPLIT:         arith.cmpi eq, %{{.*}}, %c0_i32
// SPLIT:         scf.if
// SPLIT:           arith.addi %{{.*}}, %c25088_i32
// SPLIT:           memref.atomic_rmw addf %{{.*}}, %[[ALL]]
// SPLIT:           memref.store
// SPLIT:         gpu.barrier
// SPLIT:         %[[ARRIVED:.*]] = memref.load
// SPLIT:         arith.cmpf oeq, %[[ARRIVED]], %{{.*}} : f32
// SPLIT:         scf.if
// SPLIT-NEXT:      nvvm.memory.barrier <gpu>
// SPLIT:           %[[SUM:.*]] = memref.atomic_rmw addf %{{.*}}, %[[C]]
// SPLIT:           memref.load %arg2
// SPLIT-NEXT:      arith.addf %[[SUM]]
// SPLIT-NEXT:      memref.store %{{.*}}, %arg3
// SPLIT:         gpu.terminator
// SPLIT-NOT:   linalg.
// SPLIT:       memref.dealloc %[[ALL]] : memref<25096xf32>
// SPLIT-NEXT:  return
// By default the split kernel takes in the padding only: C keeps its zero
// fill, the kernel adds into it atomically, and the epilogue stays a
// generic after it.
// CHECK-LABEL: func.func @split_k
// CHECK:       %[[C:.*]] = memref.alloc() : memref<1x512x7x7xf32>
// CHECK-NEXT:  linalg.fill ins(%{{.*}} : f32) outs(%[[C]] : memref<1x512x7x7xf32>)
// CHECK-NOT:   linalg.copy
// CHECK:       gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c8{{.*}}, {{.*}} = %c32{{.*}})
// CHECK:         memref.atomic_rmw addf %{{.*}}, %[[C]]
// CHECK-NOT:     nvvm.memory.barrier
// CHECK:         gpu.terminator
// CHECK:       linalg.generic {{.*}} ins(%[[C]], %arg2 : {{.*}}) outs(%arg3 :
func.func @split_k(%x: memref<1x512x7x7xf32>, %w: memref<512x512x3x3xf32>, %b: memref<512xf32>, %y: memref<1x512x7x7xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %padded = memref.alloc() : memref<1x512x9x9xf32>
  linalg.fill ins(%cst : f32) outs(%padded : memref<1x512x9x9xf32>)
  %sub = memref.subview %padded[0, 0, 1, 1] [1, 512, 7, 7] [1, 1, 1, 1] : memref<1x512x9x9xf32> to memref<1x512x7x7xf32, strided<[41472, 81, 9, 1], offset: 10>>
  linalg.copy ins(%x : memref<1x512x7x7xf32>) outs(%sub : memref<1x512x7x7xf32, strided<[41472, 81, 9, 1], offset: 10>>)
  %c = memref.alloc() : memref<1x512x7x7xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<1x512x7x7xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %w : memref<1x512x9x9xf32>, memref<512x512x3x3xf32>) outs(%c : memref<1x512x7x7xf32>)
  memref.dealloc %padded : memref<1x512x9x9xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : memref<1x512x7x7xf32>, memref<512xf32>) outs(%y : memref<1x512x7x7xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %0 = arith.addf %in, %bias : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %c : memref<1x512x7x7xf32>
  return
}

// A Linear: matmul into a zero-filled C, then the bias at the column; the
// output allocated after the matmul. One kernel, storing C + bias.
// CHECK-LABEL: func.func @linear
// CHECK-NOT:   linalg.
// CHECK:       %[[OUT:.*]] = memref.alloc() : memref<100x70xf32>
// CHECK-NOT:   memref.alloc
// CHECK:       gpu.launch
// CHECK:         scf.for
// CHECK-NOT:     memref.load %{{.*}} : memref<100x70xf32>
// CHECK:         memref.load %arg2
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    memref.store %{{.*}}, %[[OUT]]
// CHECK-NOT:   linalg.
// CHECK:       memref.copy %[[OUT]], %arg3
func.func @linear(%a: memref<100x33xf32>, %b: memref<33x70xf32>, %bias: memref<70xf32>, %y: memref<100x70xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<100x70xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<100x70xf32>)
  linalg.matmul ins(%a, %b : memref<100x33xf32>, memref<33x70xf32>) outs(%c : memref<100x70xf32>)
  %out = memref.alloc() : memref<100x70xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %bias : memref<100x70xf32>, memref<70xf32>) outs(%out : memref<100x70xf32>) {
  ^bb0(%in: f32, %bi: f32, %o: f32):
    %0 = arith.addf %in, %bi : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %c : memref<100x70xf32>
  memref.copy %out, %y : memref<100x70xf32> to memref<100x70xf32>
  memref.dealloc %out : memref<100x70xf32>
  return
}

// Left alone: the generic writes an operand of the matmul (its output would
// be stored while other blocks still read A); a write between the matmul
// and the generic to the generic's other input; C read by another op too.
// The zero fill is still taken in (the kernel stores its sums into C).
// CHECK-LABEL: func.func @overwrites_operand
// CHECK:       gpu.launch
// CHECK:         memref.store
// CHECK:       linalg.generic
// CHECK-LABEL: func.func @input_written_between
// CHECK:       gpu.launch
// CHECK:       linalg.fill
// CHECK:       linalg.generic
// CHECK-LABEL: func.func @c_read_twice
// CHECK-NOT:   linalg.fill
// CHECK:       gpu.launch
// CHECK:       linalg.generic
// CHECK:       memref.copy
func.func @overwrites_operand(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<64x64xf32>) outs(%a : memref<64x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %cst : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %c : memref<64x64xf32>
  return
}
func.func @input_written_between(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %r: memref<64x64xf32>, %y: memref<64x64xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.fill ins(%one : f32) outs(%r : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %r : memref<64x64xf32>, memref<64x64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%in: f32, %res: f32, %o: f32):
    %0 = arith.addf %in, %res : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %c : memref<64x64xf32>
  return
}
func.func @c_read_twice(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %y: memref<64x64xf32>, %z: memref<64x64xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<64x64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %cst : f32
    linalg.yield %0 : f32
  }
  memref.copy %c, %z : memref<64x64xf32> to memref<64x64xf32>
  memref.dealloc %c : memref<64x64xf32>
  return
}
