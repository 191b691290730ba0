// traced-gpu-pipeline picks the tensor-core kernel by chip: wgmma for
// sm_90a, mma.sync for sm_80 to sm_90 (sm_90 code must also run on later
// chips, which have no wgmma), none before sm_80; `wgmma=false` and
// `tensor-cores=false` turn them off. With wgmma the tiles are loaded by
// TMA unless `tma=false` (`tma` matters for wgmma only). The
// whole bfloat16 matmul (widening, zero fill, product, truncation) is one
// kernel.
// RUN: traced-opt %s --traced-gpu-pipeline="chip=sm_90a tma=false binary=false" | FileCheck %s --check-prefix=WGMMA
// RUN: traced-opt %s --traced-gpu-pipeline="chip=sm_90a binary=false" | FileCheck %s --check-prefix=TMA
// RUN: traced-opt %s --traced-gpu-pipeline="chip=sm_90 tma=true binary=false" | FileCheck %s --check-prefix=MMA
// RUN: traced-opt %s --traced-gpu-pipeline="chip=sm_90 binary=false" | FileCheck %s --check-prefix=MMA
// RUN: traced-opt %s --traced-gpu-pipeline="chip=sm_80 binary=false" | FileCheck %s --check-prefix=MMA
// RUN: traced-opt %s --traced-gpu-pipeline="chip=sm_90a wgmma=false binary=false" | FileCheck %s --check-prefix=MMA
// RUN: traced-opt %s --traced-gpu-pipeline="chip=sm_75 binary=false" | FileCheck %s --check-prefix=SIMT
// RUN: traced-opt %s --traced-gpu-pipeline="chip=sm_90a tensor-cores=false binary=false" | FileCheck %s --check-prefix=SIMT

// WGMMA:     gpu.launch_func async [{{.*}}] @forward_mma_0::@forward_mma_0 blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c197632_i32
// WGMMA-NOT: gpu.launch_func
// WGMMA:     gpu.module @forward_mma_0 [#nvvm.target<O = 3, chip = "sm_90a"
// WGMMA:     llvm.func @forward_mma_0
// WGMMA:     nvvm.cp.async.shared.global {{.*}} cache = cg
// WGMMA:     nvvm.wgmma.mma_async
// WGMMA-NOT: nvvm.mma.sync

// With `tma` (opt-in, sm_90a): the host builds a tensor map over each
// operand's device copy and passes its address; nothing makes the host
// wait between the copies, the maps and the launch (the maps are built
// after gpu-async-region chained the stream).
// TMA:       func.func private @traced_gpu_tensor_map(i64, i32, i32, i64, i64, i64, i64, i64, i32, i32, i32) -> i64
// TMA:       gpu.memcpy async
// TMA:       gpu.memcpy async
// TMA-NOT:   gpu.wait
// TMA:       %[[MA:.*]] = call @traced_gpu_tensor_map
// TMA-NOT:   gpu.wait
// TMA:       %[[MB:.*]] = call @traced_gpu_tensor_map
// TMA-NOT:   gpu.wait
// TMA:       gpu.launch_func async [{{.*}}] @forward_mma_0::@forward_mma_0 blocks in (%c2, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c197696_i32 args(%[[MA]] : i64, %[[MB]] : i64, %{{.*}} : memref<256x256xbf16>)
// TMA:       llvm.func @forward_mma_0
// TMA-SAME:  nvvm.maxntid = array<i32: 384, 1, 1>
// TMA:       nvvm.setmaxregister  decrease 40
// TMA:       nvvm.cp.async.bulk.tensor.shared.cluster.global
// TMA:       nvvm.setmaxregister  increase 232
// TMA:       nvvm.wgmma.mma_async
// TMA-NOT:   nvvm.cp.async.shared.global

// MMA:       gpu.launch_func async [{{.*}}] @forward_mma_0::@forward_mma_0 blocks in (%c2, %c2, %c1) threads in (%c128, %c1, %c1) dynamic_shared_memory_size %c75776_i32
// MMA-NOT:   gpu.launch_func
// MMA:       llvm.func @forward_mma_0
// MMA:       nvvm.ldmatrix
// MMA:       nvvm.mma.sync
// MMA-NOT:   wgmma

// SIMT:      gpu.launch_func async [{{.*}}] @forward_kernel
// SIMT:      gpu.launch_func async [{{.*}}] @forward_gemm_0
// SIMT-NOT:  mma
module {
  traced.module root @Call class "models.Call" {
    graph @forward(%self: !traced.module<@Call>, %arg0: tensor<256x256xbf16>, %arg1: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
      %matmul_out = call_function "torch.matmul"(input=%arg0, other=%arg1) : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xbf16>
      output %matmul_out : tensor<256x256xbf16>
    }
  }
}
