// traced-gpu-tile-contractions: a matmul or batch matmul of bfloat16 (or
// float16) operands -- float32 buffers widened by `arith.extf` generics, as
// the front end lowers them -- runs on tensor cores: the kernel reads the
// 16-bit buffers with asynchronous copies, multiplies with mma.sync
// m16n8k16 and accumulates in float32; the widenings go away.
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions))' -split-input-file | FileCheck %s
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{mma-stages=2}))' -split-input-file | FileCheck %s --check-prefix=STAGES2
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{wgmma=true}))' -split-input-file | FileCheck %s --check-prefix=WGMMA
// RUN: not traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{wgmma=true mma-k-step=32}))' -split-input-file 2>&1 | FileCheck %s --check-prefix=WGMMASTEP
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{wgmma=true tma=true}))' -split-input-file | FileCheck %s --check-prefix=TMA
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{tensor-cores=false}))' -split-input-file | FileCheck %s --check-prefix=SIMT
// RUN: traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{mma-k-step=64 mma-block-n=256}))' -split-input-file | FileCheck %s --check-prefix=BIG
// RUN: not traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{mma-stages=1}))' -split-input-file 2>&1 | FileCheck %s --check-prefix=BADSTAGES
// RUN: not traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{mma-k-step=48}))' -split-input-file 2>&1 | FileCheck %s --check-prefix=BADSTEP
// RUN: not traced-opt %s --pass-pipeline='builtin.module(func.func(traced-gpu-tile-contractions{mma-k-step=64 mma-block-n=256 mma-stages=5}))' -split-input-file 2>&1 | FileCheck %s --check-prefix=TOOBIG
// (ptxas assembles the kernels: test_gpu.py.)

// 256 x 256 x 256: 2 x 2 blocks of 4 warps, 128 x 128 tiles; four
// workgroup buffers of a 128 x 40 A tile and a 32 x 136 B tile (rows padded
// by 8) in dynamic workgroup memory: 4 x (10240 + 8704) bytes. Three tiles
// are in flight before the loop; each step waits for its tile (two groups
// may stay pending), synchronizes, issues the copies of the tile three
// steps ahead, and per 16 along K reads 4 A and 4 B fragments (ldmatrix x4,
// B transposed) for 4 x 8 mma.sync. Nothing is guarded but the copies
// (16 bytes each, zero-filled past K). C was zero-filled and is only
// truncated to bfloat16 afterwards: the kernel writes the bfloat16 result
// in pairs, and the fill, C and the truncation are gone with the widenings.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   memref.alloc
// CHECK-NOT:   linalg.fill
// CHECK:       gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c2{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) dynamic_shared_memory_size %c75776_i32
// CHECK:       gpu.dynamic_shared_memory
// CHECK:       %[[SA:.*]] = memref.view {{.*}} to memref<4x128x40xbf16, #gpu.address_space<workgroup>>
// CHECK:       %[[SB:.*]] = memref.view {{.*}} to memref<4x32x136xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: nvgpu.device_async_copy %arg0[{{.*}}], %[[SA]][{{.*}}], 8, {{.*}} {bypassL1}
// CHECK-COUNT-4: nvgpu.device_async_copy %arg1[{{.*}}], %[[SB]][{{.*}}], 8, {{.*}} {bypassL1}
// CHECK:       nvgpu.device_async_create_group
// CHECK:       nvgpu.device_async_create_group
// CHECK:       nvgpu.device_async_create_group
// CHECK:       scf.for
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// CHECK-NEXT:    gpu.barrier
// CHECK-COUNT-8: nvgpu.device_async_copy
// CHECK:         nvgpu.device_async_create_group
// CHECK-COUNT-4: nvgpu.ldmatrix %[[SA]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK-COUNT-4: nvgpu.ldmatrix %[[SB]][{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-32: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK:         nvgpu.ldmatrix
// CHECK-COUNT-32: nvvm.mma.sync
// CHECK:         scf.yield
// CHECK:       nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NOT:   scf.if
// CHECK-NOT:   vector.load
// CHECK:       arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK-NEXT:  vector.store %{{.*}}, %arg2[{{.*}}] {alignment = 4 : i64} : memref<256x256xbf16>, vector<2xbf16>
// CHECK:       gpu.terminator
// CHECK-NEXT:  }
// CHECK-NEXT:  return
// STAGES2-LABEL: func.func @matmul
// STAGES2:     dynamic_shared_memory_size %c37888_i32
// STAGES2:     memref<2x128x40xbf16, #gpu.address_space<workgroup>>
// STAGES2:     nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// With wgmma: 2 x 1 blocks of two warpgroups, 256 x 128 tiles (each
// warpgroup 128 rows: two m64n128k16 MMAs per 16 along K), K step 64; the
// tiles unpadded in 128-byte swizzle atoms (the chunk index XORed with the
// row), from the first 1024-byte boundary of the workgroup memory (1024
// bytes more): 4 x (32768 + 16384) + 1024 bytes. Two tiles are copied
// ahead, so one step's MMAs can run on into the next: each step waits for
// its copies (one group may stay pending), fences them for the async
// proxy, waits for all but the last step's MMAs, synchronizes. The
// descriptors: swizzle 128 B, A's 8-row groups 1024 bytes apart (leading
// offset unused: 1), B's atoms along N 8192 bytes apart and 8-row groups
// 1024 (B is N-major: transposed, the op's B layout `row`).
// WGMMA-LABEL: func.func @matmul
// WGMMA:       gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) dynamic_shared_memory_size %c197632_i32
// WGMMA:       memref.extract_aligned_pointer_as_index
// WGMMA:       memref.view {{.*}} to memref<4x16384xbf16, #gpu.address_space<workgroup>>
// WGMMA:       memref.view {{.*}} to memref<4x8192xbf16, #gpu.address_space<workgroup>>
// WGMMA:       arith.xori
// WGMMA:       nvgpu.device_async_create_group
// WGMMA:       nvgpu.device_async_create_group
// WGMMA-NOT:   nvgpu.device_async_create_group
// WGMMA:       scf.for
// WGMMA:         nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// WGMMA-NEXT:    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// WGMMA-NEXT:    nvvm.wgmma.wait.group.sync.aligned 1
// WGMMA-NEXT:    gpu.barrier
// WGMMA:         nvvm.wgmma.fence.aligned
// WGMMA:         arith.constant 4611686293305360384 : i64
// WGMMA:         arith.constant 4611686293338849280 : i64
// WGMMA-COUNT-8: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// WGMMA-NOT:     nvvm.wgmma.mma_async
// WGMMA:         nvvm.wgmma.commit.group.sync.aligned
// WGMMA-NEXT:    scf.yield
// WGMMA:       nvvm.wgmma.wait.group.sync.aligned 0
// WGMMA:       arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// WGMMASTEP:   error: traced-gpu-tile-contractions: wgmma needs mma-k-step=64
// With TMA (and wgmma): the operands are marked on the host as "a tensor
// map of this buffer" (i64 markers the kernel receives; the boxes: a
// 256 x 64 tile of A, 64 x 64 slices of B). A third warpgroup loads: the
// block has 384 threads, and per buffer a "full" and an "empty" mbarrier
// (8 bytes each) follow the tiles. Thread 0 initializes them (the full
// ones for 1 arrival, the empty ones for the 256 multiplying threads). The
// producer warpgroup gives up registers; its thread 0 waits for a buffer
// to be empty, expects its 49152 bytes, and issues three TMA loads (A, and
// B's two 64-column halves) completing on the full barrier. The other two
// warpgroups take registers, wait for each buffer to be full, multiply,
// and once the step before's MMAs are done, release that step's buffer.
// TMA-LABEL:   func.func @matmul
// TMA:         builtin.unrealized_conversion_cast %arg0 : memref<256x256xbf16> to i64 {traced.tensor_map = array<i64: 64, 256, 1>}
// TMA:         builtin.unrealized_conversion_cast %arg1 : memref<256x256xbf16> to i64 {traced.tensor_map = array<i64: 64, 64, 1>}
// TMA:         gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c384{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) dynamic_shared_memory_size %c197696_i32
// TMA-NOT:     nvgpu.device_async_copy
// TMA:         nvvm.mbarrier.init %{{.*}}, %c1_i32
// TMA:         nvvm.mbarrier.init %{{.*}}, %c256_i32
// TMA-COUNT-6: nvvm.mbarrier.init
// TMA-NEXT:    nvvm.fence.mbarrier.init
// TMA:         gpu.barrier
// TMA:         nvvm.setmaxregister  decrease 40
// TMA:         scf.for
// TMA:           nvvm.mbarrier.try_wait.parity
// TMA:           nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// TMA-COUNT-3:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// TMA:         nvvm.setmaxregister  increase 232
// TMA:         scf.for
// TMA:           nvvm.mbarrier.try_wait.parity
// TMA:           nvvm.wgmma.fence.aligned
// TMA-COUNT-8:   nvvm.wgmma.mma_async
// TMA:           nvvm.wgmma.commit.group.sync.aligned
// TMA-NEXT:      nvvm.wgmma.wait.group.sync.aligned 1
// TMA:           scf.if
// TMA:             nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// TMA:         nvvm.wgmma.wait.group.sync.aligned 0
// TMA:         arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// TMA-NOT:     nvgpu.device_async_wait
// TMA:         gpu.terminator
// BIG-LABEL:   func.func @matmul
// BIG:         threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}}) dynamic_shared_memory_size %c208896_i32
// BIG:         memref<4x128x72xbf16, #gpu.address_space<workgroup>>
// BIG:         memref<4x64x264xbf16, #gpu.address_space<workgroup>>
// BIG:         scf.for
// BIG-COUNT-128: nvvm.mma.sync
// BIG:         scf.yield
// SIMT-LABEL:  func.func @matmul
// SIMT:        linalg.generic
// SIMT:        arith.extf
// SIMT:        gpu.launch
// SIMT-NOT:    nvvm.mma.sync
// SIMT:        math.fma
// BADSTAGES:   error: traced-gpu-tile-contractions: mma-stages 1 (2 to 6)
// BADSTEP:     error: traced-gpu-tile-contractions: mma-k-step 48 (32 or 64), mma-block-n 128 (128 or 256)
// TOOBIG:      error: traced-gpu-tile-contractions: the tensor-core kernels' 5 buffers take 261120 bytes of workgroup memory (at most 232448)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %out: memref<256x256xbf16>) {
  %zero = arith.constant 0.0 : f32
  %wa = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<256x256xbf16>) outs(%wa : memref<256x256xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %wb = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<256x256xbf16>) outs(%wb : memref<256x256xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %c = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<256x256xf32>)
  linalg.matmul ins(%wa, %wb : memref<256x256xf32>, memref<256x256xf32>) outs(%c : memref<256x256xf32>)
  memref.dealloc %wa : memref<256x256xf32>
  memref.dealloc %wb : memref<256x256xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<256x256xf32>) outs(%out : memref<256x256xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  memref.dealloc %c : memref<256x256xf32>
  return
}

// -----

// float16, batched and off the tiles (M = 100, N = 136, K = 40: a tail of
// 8 past the last full step of 32): the batch is grid z, the copies check
// M and N as well as K, the C updates are guarded. A is one buffer read
// twice (x @ x^T is not this, but x @ x is): one widening, erased once.
// With TMA the batch is the maps' third dimension (the loads' third
// coordinate), and the loads zero-fill past M, N and K.
// TMA-LABEL:   func.func @bmm_f16_edges
// TMA:         builtin.unrealized_conversion_cast %arg0 : memref<3x100x40xf16> to i64 {traced.tensor_map = array<i64: 64, 256, 1>}
// TMA:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}]
// TMA:         scf.if
// TMA:           vector.load %arg2
// CHECK-LABEL: func.func @bmm_f16_edges
// CHECK-NOT:   linalg.generic
// CHECK:       gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c3{{.*}})
// CHECK:       nvgpu.device_async_copy %arg0[{{.*}}, {{.*}}, {{.*}}]
// CHECK:       nvgpu.device_async_copy %arg1[{{.*}}, {{.*}}, {{.*}}]
// CHECK:       nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:       scf.if
// CHECK:         vector.load %arg2
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @bmm_f16_edges(%a: memref<3x100x40xf16>, %b: memref<3x40x136xf16>, %c: memref<3x100x136xf32>) {
  %wa = memref.alloc() : memref<3x100x40xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : memref<3x100x40xf16>) outs(%wa : memref<3x100x40xf32>) {
  ^bb0(%in: f16, %o: f32):
    %0 = arith.extf %in : f16 to f32
    linalg.yield %0 : f32
  }
  %wb = memref.alloc() : memref<3x40x136xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : memref<3x40x136xf16>) outs(%wb : memref<3x40x136xf32>) {
  ^bb0(%in: f16, %o: f32):
    %0 = arith.extf %in : f16 to f32
    linalg.yield %0 : f32
  }
  linalg.batch_matmul ins(%wa, %wb : memref<3x100x40xf32>, memref<3x40x136xf32>) outs(%c : memref<3x100x136xf32>)
  memref.dealloc %wa : memref<3x100x40xf32>
  memref.dealloc %wb : memref<3x40x136xf32>
  return
}

// -----

// x @ x: one widening feeds both operands; it is erased once. C is an
// argument nobody zero-filled: the kernel adds to it.
// CHECK-LABEL: func.func @square
// CHECK-NOT:   linalg.generic
// CHECK:       nvvm.mma.sync
// CHECK:       vector.load %arg1
// CHECK:       arith.addf
// CHECK:       vector.store {{.*}}, %arg1
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @square(%a: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  %wa = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x64xbf16>) outs(%wa : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  linalg.matmul ins(%wa, %wa : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  memref.dealloc %wa : memref<64x64xf32>
  return
}

// -----

// A zero-filled float32 result: stored, not added to; the fill is gone. A
// zero-filled C that something besides the truncation reads is stored
// (the fill is gone too), and the truncation stays.
// CHECK-LABEL: func.func @zero_filled
// CHECK-NOT:   linalg.fill
// CHECK:       nvvm.mma.sync
// CHECK-NOT:   vector.load
// CHECK:       vector.store {{.*}}, %arg2
// CHECK-LABEL: func.func @c_read_twice
// CHECK:       %[[C:.*]] = memref.alloc() : memref<64x64xf32>
// CHECK-NOT:   linalg.fill
// CHECK:       nvvm.mma.sync
// CHECK-NOT:   vector.load
// CHECK:       vector.store {{.*}}, %[[C]][
// CHECK:       gpu.terminator
// CHECK:       arith.truncf {{.*}} : f32 to bf16
// CHECK:       linalg.copy
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @zero_filled(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %wa = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x64xbf16>) outs(%wa : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %wb = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<64x64xbf16>) outs(%wb : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%wa, %wb : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
func.func @c_read_twice(%a: memref<64x64xbf16>, %out: memref<64x64xbf16>, %copy: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %wa = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x64xbf16>) outs(%wa : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%wa, %wa : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<64x64xf32>) outs(%out : memref<64x64xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  linalg.copy ins(%c : memref<64x64xf32>) outs(%copy : memref<64x64xf32>)
  return
}

// -----

// A narrow operand written between its widening and the matmul: the
// widening's generic now writes a 16-bit copy of it instead (taken where
// the widening was, before the write), which the tensor-core kernel reads.
// Not on tensor cores, each for its reason (the float32 kernel runs them):
// rows of K = 12 elements (not whole 16-byte copies); mixed bfloat16 and
// float16. A widened buffer something else also reads keeps its generic.
// CHECK-LABEL: func.func @written_between
// CHECK:       %[[COPY:.*]] = memref.alloc() : memref<64x64xbf16>
// CHECK:       linalg.generic {{.*}} ins(%arg0 : memref<64x64xbf16>) outs(%[[COPY]] : memref<64x64xbf16>)
// CHECK-NOT:   arith.extf
// CHECK:       linalg.yield %{{.*}} : bf16
// CHECK:       linalg.fill ins({{.*}}) outs(%arg0
// CHECK:       gpu.launch
// CHECK:       nvgpu.device_async_copy %[[COPY]]
// CHECK:       nvvm.mma.sync
// CHECK-LABEL: func.func @k_not_multiple_of_8
// CHECK-NOT:   nvvm.mma.sync
// CHECK:       math.fma
// CHECK-LABEL: func.func @mixed
// CHECK-NOT:   nvvm.mma.sync
// CHECK:       math.fma
// CHECK-LABEL: func.func @widening_read_elsewhere
// CHECK:       linalg.generic
// CHECK:       arith.extf
// CHECK:       nvvm.mma.sync
// CHECK:       linalg.copy ins(%[[W:.*]] : memref<64x64xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @written_between(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  %z = arith.constant 0.0 : bf16
  %wa = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x64xbf16>) outs(%wa : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %wb = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<64x64xbf16>) outs(%wb : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  linalg.fill ins(%z : bf16) outs(%a : memref<64x64xbf16>)
  linalg.matmul ins(%wa, %wb : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
func.func @k_not_multiple_of_8(%a: memref<64x12xbf16>, %b: memref<12x64xbf16>, %c: memref<64x64xf32>) {
  %wa = memref.alloc() : memref<64x12xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x12xbf16>) outs(%wa : memref<64x12xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %wb = memref.alloc() : memref<12x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<12x64xbf16>) outs(%wb : memref<12x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  linalg.matmul ins(%wa, %wb : memref<64x12xf32>, memref<12x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
func.func @mixed(%a: memref<64x64xbf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  %wa = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x64xbf16>) outs(%wa : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %wb = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<64x64xf16>) outs(%wb : memref<64x64xf32>) {
  ^bb0(%in: f16, %o: f32):
    %0 = arith.extf %in : f16 to f32
    linalg.yield %0 : f32
  }
  linalg.matmul ins(%wa, %wb : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
func.func @widening_read_elsewhere(%a: memref<64x64xbf16>, %c: memref<64x64xf32>, %d: memref<64x64xf32>) {
  %wa = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x64xbf16>) outs(%wa : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  linalg.matmul ins(%wa, %wa : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.copy ins(%wa : memref<64x64xf32>) outs(%d : memref<64x64xf32>)
  return
}

// -----

// A strided operand (a column slice): its widening writes a contiguous
// 16-bit copy instead, read by the tensor-core kernel (with TMA through a
// tensor map of the copy, never of the strided slice), freed after it.
// CHECK-LABEL: func.func @strided_operand
// CHECK:       %[[COPY:.*]] = memref.alloc() : memref<64x64xbf16>
// CHECK:       linalg.generic {{.*}} ins(%subview : memref<64x64xbf16, strided<[128, 1]>>) outs(%[[COPY]] : memref<64x64xbf16>)
// CHECK:       function(@strided_operand_mma_0)
// CHECK:       memref.dealloc %[[COPY]]
// TMA-LABEL:   func.func @strided_operand
// TMA:         %[[COPY:.*]] = memref.alloc() : memref<64x64xbf16>
// TMA-NOT:     %subview {{.*}}traced.tensor_map
// TMA:         unrealized_conversion_cast %[[COPY]] : memref<64x64xbf16> to i64 {traced.tensor_map
// TMA:         function(@strided_operand_mma_0)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @strided_operand(%a: memref<64x128xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  %sa = memref.subview %a[0, 0] [64, 64] [1, 1] : memref<64x128xbf16> to memref<64x64xbf16, strided<[128, 1]>>
  %wa = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sa : memref<64x64xbf16, strided<[128, 1]>>) outs(%wa : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %wb = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<64x64xbf16>) outs(%wb : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  linalg.matmul ins(%wa, %wb : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  memref.dealloc %wa : memref<64x64xf32>
  memref.dealloc %wb : memref<64x64xf32>
  return
}

// -----

// An operand with no 16-bit buffer: its writer rounds to bfloat16 and
// widens in one generic (a bfloat16 op's result fused with the next op's
// widening, as a bfloat16 linear's input is), and the matmul reads it
// through a collapse. The writer then writes a bfloat16 buffer instead,
// the collapse is made again over it, and the float32 buffer goes (its
// free moves to the bfloat16 one). When something else also reads the
// float32 buffer, the writer writes both, and the bfloat16 one is freed
// after the kernel.
// CHECK-LABEL: func.func @rounded_writer
// CHECK:       %[[N:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x32x64xbf16>
// CHECK-NOT:   memref<4x32x64xf32>
// CHECK:       linalg.generic {{.*}} ins(%arg0 : memref<4x32x64xf32>) outs(%[[N]] : memref<4x32x64xbf16>)
// CHECK:       %[[T:.*]] = arith.truncf
// CHECK-NEXT:  linalg.yield %[[T]] : bf16
// CHECK:       %[[V:.*]] = memref.collapse_shape %[[N]] {{\[}}[0, 1], [2]] : memref<4x32x64xbf16> into memref<128x64xbf16>
// CHECK:       function(@rounded_writer_mma_0)
// CHECK:       nvgpu.device_async_copy %[[V]]
// CHECK:       memref.dealloc %[[N]] : memref<4x32x64xbf16>
// CHECK-LABEL: func.func @rounded_writer_read_elsewhere
// CHECK:       %[[N:.*]] = memref.alloc() {alignment = 64 : i64} : memref<128x64xbf16>
// CHECK:       linalg.generic {{.*}} outs(%[[W:.*]], %[[N]] : memref<128x64xf32>, memref<128x64xbf16>)
// CHECK:       %[[T:.*]] = arith.truncf
// CHECK:       %[[E:.*]] = arith.extf %[[T]]
// CHECK:       linalg.yield %[[E]], %[[T]] : f32, bf16
// CHECK:       function(@rounded_writer_read_elsewhere_mma_0)
// CHECK:       memref.dealloc %[[N]] : memref<128x64xbf16>
// CHECK:       linalg.copy ins(%[[W]] : memref<128x64xf32>)
// A widening read through a collapse: the kernel reads the 16-bit buffer
// through the same collapse (no copy), the widening and its buffer go, and
// the 16-bit buffer's free, which followed the widening, moves after the
// kernel.
// CHECK-LABEL: func.func @freed_before_matmul
// CHECK:       %[[N:.*]] = memref.alloc() : memref<2x64x64xbf16>
// CHECK-NOT:   memref<2x64x64xf32>
// CHECK-NOT:   memref.dealloc %[[N]]
// CHECK:       %[[V:.*]] = memref.collapse_shape %[[N]] {{\[}}[0, 1], [2]] : memref<2x64x64xbf16> into memref<128x64xbf16>
// CHECK-NOT:   memref.dealloc %[[N]]
// CHECK:       function(@freed_before_matmul_mma_0)
// CHECK:       nvgpu.device_async_copy %[[V]]
// CHECK:       gpu.terminator
// CHECK:       memref.dealloc %[[N]]
// CHECK-NOT:   memref<2x64x64xf32>
// CHECK:       return
// B transposed from a slice of a widening (a packed in-projection's k
// weight): the 16-bit slice is transposed instead, into a 16-bit buffer
// freed after the kernel; the float32 transpose, its buffer, the slice and
// the widening go.
// CHECK-LABEL: func.func @transposed_slice
// CHECK-NOT:   memref.alloc() : memref<{{.*}}xf32>
// CHECK:       %[[S:.*]] = memref.subview %arg1[64, 0] [64, 64] [1, 1] : memref<192x64xbf16> to memref<64x64xbf16, strided<[64, 1], offset: 4096>>
// CHECK:       %[[T:.*]] = memref.alloc() : memref<64x64xbf16>
// CHECK:       linalg.transpose ins(%[[S]] : {{.*}}) outs(%[[T]] : memref<64x64xbf16>) permutation = [1, 0]
// CHECK-NOT:   linalg.transpose
// CHECK:       function(@transposed_slice_mma_0)
// CHECK:       nvgpu.device_async_copy %[[T]]
// CHECK:       gpu.terminator
// CHECK:       memref.dealloc %[[T]]
// CHECK-NOT:   memref<192x64xf32>
// CHECK:       return
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @rounded_writer(%x: memref<4x32x64xf32>, %b: memref<64x64xbf16>, %c: memref<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %wa = memref.alloc() {alignment = 64 : i64} : memref<4x32x64xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<4x32x64xf32>) outs(%wa : memref<4x32x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.truncf %in : f32 to bf16
    %1 = arith.extf %0 : bf16 to f32
    linalg.yield %1 : f32
  }
  %wb = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<64x64xbf16>) outs(%wb : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %va = memref.collapse_shape %wa [[0, 1], [2]] : memref<4x32x64xf32> into memref<128x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<128x64xf32>)
  linalg.matmul ins(%va, %wb : memref<128x64xf32>, memref<64x64xf32>) outs(%c : memref<128x64xf32>)
  memref.dealloc %wb : memref<64x64xf32>
  memref.dealloc %wa : memref<4x32x64xf32>
  return
}
func.func @rounded_writer_read_elsewhere(%x: memref<128x64xf32>, %b: memref<64x64xbf16>, %c: memref<128x64xf32>, %d: memref<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %wa = memref.alloc() {alignment = 64 : i64} : memref<128x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<128x64xf32>) outs(%wa : memref<128x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.truncf %in : f32 to bf16
    %1 = arith.extf %0 : bf16 to f32
    linalg.yield %1 : f32
  }
  %wb = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<64x64xbf16>) outs(%wb : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<128x64xf32>)
  linalg.matmul ins(%wa, %wb : memref<128x64xf32>, memref<64x64xf32>) outs(%c : memref<128x64xf32>)
  linalg.copy ins(%wa : memref<128x64xf32>) outs(%d : memref<128x64xf32>)
  memref.dealloc %wb : memref<64x64xf32>
  memref.dealloc %wa : memref<128x64xf32>
  return
}
func.func @freed_before_matmul(%b: memref<64x64xbf16>, %c: memref<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : bf16
  %n = memref.alloc() : memref<2x64x64xbf16>
  linalg.fill ins(%one : bf16) outs(%n : memref<2x64x64xbf16>)
  %w = memref.alloc() : memref<2x64x64xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%n : memref<2x64x64xbf16>) outs(%w : memref<2x64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  memref.dealloc %n : memref<2x64x64xbf16>
  %wb = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<64x64xbf16>) outs(%wb : memref<64x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %v = memref.collapse_shape %w [[0, 1], [2]] : memref<2x64x64xf32> into memref<128x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<128x64xf32>)
  linalg.matmul ins(%v, %wb : memref<128x64xf32>, memref<64x64xf32>) outs(%c : memref<128x64xf32>)
  memref.dealloc %wb : memref<64x64xf32>
  memref.dealloc %w : memref<2x64x64xf32>
  return
}
func.func @transposed_slice(%a: memref<128x64xbf16>, %w: memref<192x64xbf16>, %c: memref<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ww = memref.alloc() : memref<192x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : memref<192x64xbf16>) outs(%ww : memref<192x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %wa = memref.alloc() : memref<128x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<128x64xbf16>) outs(%wa : memref<128x64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %s = memref.subview %ww[64, 0] [64, 64] [1, 1] : memref<192x64xf32> to memref<64x64xf32, strided<[64, 1], offset: 4096>>
  %t = memref.alloc() : memref<64x64xf32>
  linalg.transpose ins(%s : memref<64x64xf32, strided<[64, 1], offset: 4096>>) outs(%t : memref<64x64xf32>) permutation = [1, 0]
  linalg.fill ins(%zero : f32) outs(%c : memref<128x64xf32>)
  linalg.matmul ins(%wa, %t : memref<128x64xf32>, memref<64x64xf32>) outs(%c : memref<128x64xf32>)
  memref.dealloc %t : memref<64x64xf32>
  memref.dealloc %wa : memref<128x64xf32>
  memref.dealloc %ww : memref<192x64xf32>
  return
}
