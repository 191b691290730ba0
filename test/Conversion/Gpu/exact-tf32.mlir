// A contraction whose float32 operands are bfloat16 or float16 values
// widened multiplies on TF32 tensor cores without `tf32`: TF32 holds those
// values exactly, so the products are exact and the sums float32, as torch
// computes a 16-bit convolution. This is how a bfloat16 convolution (and a
// 16-bit matmul the tensor-core kernel does not take) runs on tensor
// cores. The widening may be the front end's own generic, a 16-bit
// epilogue fused with the next widening, or reached through a padded copy
// (padding TF32 holds). 128 x 128 and 64 x 128 tiles (8 warps of 64 x 32
// or 32 x 32); anything else keeps the FMAs.
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions))' | FileCheck %s
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{tensor-cores=false}))' | FileCheck %s --check-prefix=OFF
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{fuse=true}))' | FileCheck %s --check-prefix=FUSED

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A bfloat16 convolution as the front end lowers it: the input widened and
// padded, the filter widened. 64 output channels: a 64 x 128 tile, 8 warps
// of 32 x 32 (2 x 4 mma.sync per 8 along K).
// CHECK-LABEL: func.func @conv_bf16
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256{{.*}}) workgroup(%{{.*}} : memref<16x68xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x136xf32, #gpu.address_space<workgroup>>)
// CHECK:         scf.for
// CHECK-COUNT-8:   nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
// CHECK-NOT:       math.fma
// CHECK:           gpu.barrier
// OFF-LABEL:   func.func @conv_bf16
// OFF-NOT:     nvvm.mma.sync
// OFF:         math.fma
// FUSED-LABEL: func.func @conv_bf16
// FUSED:       nvvm.mma.sync {{.*}}tf32
func.func @conv_bf16(%x: memref<2x32x14x14xbf16>, %w: memref<64x32x3x3xbf16>, %out: memref<2x64x14x14xf32>) {
  %zero = arith.constant 0.0 : f32
  %xw = memref.alloc() : memref<2x32x14x14xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<2x32x14x14xbf16>) outs(%xw : memref<2x32x14x14xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  %ww = memref.alloc() : memref<64x32x3x3xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w : memref<64x32x3x3xbf16>) outs(%ww : memref<64x32x3x3xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  %padded = memref.alloc() : memref<2x32x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%padded : memref<2x32x16x16xf32>)
  %sv = memref.subview %padded[0, 0, 1, 1] [2, 32, 14, 14] [1, 1, 1, 1] : memref<2x32x16x16xf32> to memref<2x32x14x14xf32, strided<[8192, 256, 16, 1], offset: 17>>
  linalg.copy ins(%xw : memref<2x32x14x14xf32>) outs(%sv : memref<2x32x14x14xf32, strided<[8192, 256, 16, 1], offset: 17>>)
  linalg.fill ins(%zero : f32) outs(%out : memref<2x64x14x14xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %ww : memref<2x32x16x16xf32>, memref<64x32x3x3xf32>) outs(%out : memref<2x64x14x14xf32>)
  return
}

// The input is a fused 16-bit epilogue's output (bias, round to bfloat16,
// relu, widened for the next op); 128 output channels: 128 x 128 tiles,
// 16 mma.sync per 8 along K.
// CHECK-LABEL: func.func @conv_after_bf16_epilogue
// CHECK:       scf.for
// CHECK-COUNT-16:  nvvm.mma.sync {{.*}}tf32
// CHECK-NOT:       math.fma
func.func @conv_after_bf16_epilogue(%y: memref<4x64x16x16xf32>, %bias: memref<64xbf16>, %w: memref<128x64x1x1xbf16>, %out: memref<4x128x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x64x16x16xf32>
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1, d2, d3) -> (d1)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %bias : memref<4x64x16x16xf32>, memref<64xbf16>) outs(%a : memref<4x64x16x16xf32>) {
  ^bb0(%in: f32, %b: bf16, %o: f32):
    %be = arith.extf %b : bf16 to f32
    %s = arith.addf %in, %be : f32
    %t = arith.truncf %s : f32 to bf16
    %te = arith.extf %t : bf16 to f32
    %r = arith.maximumf %te, %zero : f32
    %rt = arith.truncf %r : f32 to bf16
    %re = arith.extf %rt : bf16 to f32
    linalg.yield %re : f32
  }
  %ww = memref.alloc() : memref<128x64x1x1xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w : memref<128x64x1x1xbf16>) outs(%ww : memref<128x64x1x1xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.fill ins(%zero : f32) outs(%out : memref<4x128x16x16xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%a, %ww : memref<4x64x16x16xf32>, memref<128x64x1x1xf32>) outs(%out : memref<4x128x16x16xf32>)
  return
}

// Not exact, so the FMAs: a float32 input (the filter is widened), a
// padding TF32 cannot hold (0.1), and an input written after its widening.
// CHECK-LABEL: func.func @conv_f32_input
// CHECK-NOT:   nvvm.mma.sync
// CHECK:       math.fma
func.func @conv_f32_input(%x: memref<4x64x16x16xf32>, %w: memref<128x64x1x1xbf16>, %out: memref<4x128x16x16xf32>) {
  %ww = memref.alloc() : memref<128x64x1x1xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w : memref<128x64x1x1xbf16>) outs(%ww : memref<128x64x1x1xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %ww : memref<4x64x16x16xf32>, memref<128x64x1x1xf32>) outs(%out : memref<4x128x16x16xf32>)
  return
}

// CHECK-LABEL: func.func @conv_inexact_padding
// CHECK-NOT:   nvvm.mma.sync
// CHECK:       math.fma
func.func @conv_inexact_padding(%x: memref<2x32x14x14xbf16>, %w: memref<64x32x3x3xbf16>, %out: memref<2x64x14x14xf32>) {
  %pad = arith.constant 0.1 : f32
  %xw = memref.alloc() : memref<2x32x14x14xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<2x32x14x14xbf16>) outs(%xw : memref<2x32x14x14xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  %ww = memref.alloc() : memref<64x32x3x3xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w : memref<64x32x3x3xbf16>) outs(%ww : memref<64x32x3x3xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  %padded = memref.alloc() : memref<2x32x16x16xf32>
  linalg.fill ins(%pad : f32) outs(%padded : memref<2x32x16x16xf32>)
  %sv = memref.subview %padded[0, 0, 1, 1] [2, 32, 14, 14] [1, 1, 1, 1] : memref<2x32x16x16xf32> to memref<2x32x14x14xf32, strided<[8192, 256, 16, 1], offset: 17>>
  linalg.copy ins(%xw : memref<2x32x14x14xf32>) outs(%sv : memref<2x32x14x14xf32, strided<[8192, 256, 16, 1], offset: 17>>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %ww : memref<2x32x16x16xf32>, memref<64x32x3x3xf32>) outs(%out : memref<2x64x14x14xf32>)
  return
}

// CHECK-LABEL: func.func @conv_input_overwritten
// CHECK-NOT:   nvvm.mma.sync
// CHECK:       math.fma
func.func @conv_input_overwritten(%x: memref<4x64x16x16xbf16>, %w: memref<128x64x1x1xbf16>, %out: memref<4x128x16x16xf32>) {
  %one = arith.constant 0.3 : f32
  %xw = memref.alloc() : memref<4x64x16x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<4x64x16x16xbf16>) outs(%xw : memref<4x64x16x16xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.fill ins(%one : f32) outs(%xw : memref<4x64x16x16xf32>)
  %ww = memref.alloc() : memref<128x64x1x1xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w : memref<128x64x1x1xbf16>) outs(%ww : memref<128x64x1x1xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%xw, %ww : memref<4x64x16x16xf32>, memref<128x64x1x1xf32>) outs(%out : memref<4x128x16x16xf32>)
  return
}
