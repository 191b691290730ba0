//===- Passes.td - lowering traced IR to native code -------*- tablegen -*-===//

#ifndef TRACEDIR_CONVERSION_PASSES_TD
#define TRACEDIR_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTracedToLinalg : Pass<"convert-traced-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lowers a flattened traced module to linalg on tensors";
  let description = [{
    Turns the root module's entry graph into a `func.func` of the same name
    whose arguments are the graph's tensor inputs (without `self`) and whose
    body is linalg, tensor, arith and math on tensors. The other traced
    modules are erased.

    The input must be flat: calls of traced submodule graphs must have been
    inlined (`traced-flatten`); leaf-module calls are accepted and lowered
    through their class's functional, as `traced-normalize` would.

    Parameters and buffers become `arith.constant`s holding the declaration's
    value (the `dense_resource` blob is shared, not copied): the compiled
    model is then self-contained, constant weights can be rearranged at
    compile time (linear weights are transposed once), and the ahead-of-time
    library needs no weight file.

    Each known target is lowered by one function of its op family (files
    `Elementwise.cpp`, `Matmul.cpp`, `Conv.cpp`, `Pool.cpp`, `Norm.cpp`,
    `Reduce.cpp`, `Shape.cpp`), registered in one table and applied through
    the dialect conversion framework. A call whose target has no lowering, or
    whose arguments a lowering does not support (a training-mode dropout, a
    dynamic dim it does not take), is reported at its location with the
    target's name; the interpreter still runs such calls.

    Dynamic dims (a graph traced with `dynamic_dims`): the lowerings that
    take them size their results with `tensor.dim` of their operands, and
    the pass adds `<entry>_output_dims`, the output sizes as functions of
    the input sizes (shape reification; an output whose size depends on
    data is an error). The entry keeps the dims' names in `traced.dim_names`
    (docs/cpu.md).

    Before:
    ```mlir
    traced.module root @M class "m.M" {
      parameter @w : tensor<4x3xf32> = dense<1.0> : tensor<4x3xf32>
      graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32>) -> tensor<2x4xf32> {
        %w = getattr %self["w"] : !traced.module<@M> -> tensor<4x3xf32>
        %y = call_function "torch.nn.functional.linear"(input=%x, weight=%w) : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
        output %y : tensor<2x4xf32>
      }
    }
    ```
    After:
    ```mlir
    func.func @forward(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
      %w = arith.constant dense<1.0> : tensor<3x4xf32>
      %0 = tensor.empty() : tensor<2x4xf32>
      %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x4xf32>) -> tensor<2x4xf32>
      %2 = linalg.matmul ins(%x, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%1 : tensor<2x4xf32>) -> tensor<2x4xf32>
      return %2 : tensor<2x4xf32>
    }
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"forward\"",
           "The root module's graph to lower">,
    Option<"int8Kernels", "int8-kernels", "bool", /*default=*/"true",
           "Quantized convolutions and linears as calls of the CPU's int8 "
           "runtime (traced-lower-quantized's int8-kernels)">,
  ];
  let dependentDialects = [
    "mlir::func::FuncDialect", "mlir::linalg::LinalgDialect",
    "mlir::tensor::TensorDialect", "mlir::arith::ArithDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect",
    "mlir::cf::ControlFlowDialect",
    // (Calls of the linear-algebra runtime: docs/linalg-runtime.md.)
    "mlir::memref::MemRefDialect",
    "mlir::bufferization::BufferizationDialect",
  ];
}

def TracedCpuTileAndVectorize
    : Pass<"traced-cpu-tile-and-vectorize", "mlir::func::FuncOp"> {
  let summary = "Tiles and vectorizes linalg contractions and elementwise ops for the CPU";
  let description = [{
    f32 3x3 convolutions of unit stride with a constant filter are
    rewritten as Winograd F(2x2, 3x3): vector input and output transforms
    around a batch matmul of 16 (`winograd`); other convolutions as im2col
    plus a contraction. Every contraction (matmul, batch matmul,
    linear, the im2col convolutions) is tiled twice with the SCF tiling
    interface: an outer level sized for the L2 cache and an inner register
    tile of `tile-m` x `tile-n` output elements (the default, 8 x 32, is 16
    AVX-512 registers of accumulators; use 8 x 16 on AVX2 machines) with a
    reduction step of 1, then vectorized (`linalg::vectorize`) and hoisted
    so that the accumulator tile stays in registers along the reduction.
    All-parallel generic ops (the fused elementwise chains) and named
    elementwise ops (transpose, copy, broadcast) are tiled to one vector of
    `vector-width` elements along their innermost dimension and vectorized.
    Reductions are vectorized along the dim their first input reads
    contiguously: in chunks of up to 256 reduced elements (one
    `vector.reduction` each) when that dim is reduced, else `vector-width`
    outputs at a time with the reduction loops innermost. Ops this pass does
    not handle are left for `convert-linalg-to-loops`.
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", /*default=*/"8",
           "Register tile rows of a contraction">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"32",
           "Register tile columns of a contraction">,
    Option<"blockM", "block-m", "int64_t", /*default=*/"64",
           "Cache block rows of a contraction">,
    Option<"blockN", "block-n", "int64_t", /*default=*/"256",
           "Cache block columns of a contraction">,
    Option<"blockK", "block-k", "int64_t", /*default=*/"256",
           "Cache block depth (reduction) of a contraction">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"16",
           "Vector length for elementwise ops">,
    Option<"im2col", "im2col", "bool", /*default=*/"true",
           "Rewrite convolutions as im2col plus a contraction">,
    Option<"winograd", "winograd", "bool", /*default=*/"true",
           "Rewrite f32 3x3 convolutions of unit stride with a constant "
           "filter as Winograd F(2x2, 3x3)">,
    Option<"winogradMinChannels", "winograd-min-channels", "int64_t",
           /*default=*/"3",
           "Fewest input and output channels a Winograd convolution has">,
    Option<"packRhs", "pack-rhs", "bool", /*default=*/"true",
           "Pack the right-hand side of matmuls with at least 2 x tile-m rows "
           "into contiguous tile-n column panels">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Spread the cache blocks of big contractions, and the outer "
           "dimension of elementwise ops of 2^14 elements or more, over "
           "threads (scf.forall)">,
    Option<"minParallelFlops", "min-parallel-flops", "int64_t",
           /*default=*/"4000000",
           "Contractions with fewer flops stay on one thread">,
    Option<"lowerVectors", "lower-vectors", "bool", /*default=*/"true",
           "Lower the vector ops to 1-D FMAs, loads and stores">,
    Option<"unrollRows", "unroll-rows", "bool", /*default=*/"false",
           "Unroll n-D vector ops to rows here (else convert-vector-to-scf does)">,
  ];
  let dependentDialects = [
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
    "mlir::tensor::TensorDialect", "mlir::affine::AffineDialect",
  ];
}

def TracedCpuSplitFunctions
    : Pass<"traced-cpu-split-functions", "mlir::ModuleOp"> {
  let summary = "Splits a function of many top-level ops into calls of parts";
  let description = [{
    Runs on linalg on tensors, before tiling. A function whose body is one
    block of more than `max-ops` ops (not counting constants, operand-free
    `tensor.empty`s, `linalg.fill`s of those, and `cf.assert`s) becomes a
    sequence of calls of private functions `<name>_part<k>`, each holding a
    consecutive run of at most `max-ops` of those ops. A part takes the
    values it uses that are defined before it as arguments and returns
    those of its values used after it. Constants, empties and their fills
    are cloned into each part that uses them instead: later passes still
    see constant weights and bounds, and a zero fill that CSE shared
    between many contractions does not become one argument buffer that
    all of them write into. Run-time checks (`cf.assert`) stay in the
    function, after the call that computes their condition, for
    traced-cpu-lower-checks; the checks do not stop the computation, so
    checking at the end of a part is the same. No part returns a
    dynamically shaped tensor: no part ends while one is live, and a last
    part that would return one stays in the function. Parts are
    `noinline`, so LLVM does not put them back.

    Many upstream passes cost more than linear time in the length of one
    block (CSE over look-alike loops, buffer-deallocation-simplification's
    alias queries, LLVM's optimizations of a function of thousands of
    calls); with parts of bounded size, compile time grows linearly with
    the model. The ops keep their order, so the result computes the same.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"100",
           "Most ops (not counting constants and run-time checks) in one "
           "function or part; 0 never splits">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def TracedCpuHoistAccumulators
    : Pass<"traced-cpu-hoist-accumulators", "mlir::func::FuncOp"> {
  let summary = "Keeps contraction accumulators in registers across the reduction loop";
  let description = [{
    After bufferization, moves loop-invariant `vector.transfer_read` /
    `vector.transfer_write` pairs of an accumulator tile out of the
    reduction loop (`linalg::hoistRedundantVectorTransfers`), so the tile
    lives in vector registers for the whole reduction.
  }];
}

def TracedCpuStridedReads
    : Pass<"traced-cpu-strided-reads", "mlir::func::FuncOp"> {
  let summary = "Reads a strided vector as one contiguous masked load and a shuffle";
  let description = [{
    A `vector.transfer_read` of a 1-D vector along a memref dimension whose
    static stride is 2 to 8 (the taps of a stride-2 pooling, `x[..., ::2]`)
    lowers to one scalar load and insert per element. In bounds, the
    elements it reads span (n - 1) * stride + 1 contiguous ones: this pass
    reads those as one vector (masked to their number, so never past the
    last) and keeps every stride-th with a `vector.shuffle`, which LLVM
    turns into a few permutes (a truncation for bytes at stride 2). The
    stem max pool of an int8 resnet18 (nine stride-2 byte reads per 16
    outputs) was 5.7% of its time.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect"];
}

def TracedCpuExpandCopies
    : Pass<"traced-cpu-expand-copies", "mlir::func::FuncOp"> {
  let summary = "Turns strided memref.copy into vector transfers or loops";
  let description = [{
    Bufferization copies tiles into strided subviews with `memref.copy`,
    which `finalize-memref-to-llvm` turns into a call of `memrefCopy` from
    MLIR's C runner utilities unless both sides are contiguous. Compiled
    models must not need that library, so copies with non-identity layouts
    become one `vector.transfer_read` and `vector.transfer_write` when they
    are small (at most 256 elements), static and contiguous along their
    last dimension on both sides (the vector tiles canonicalization folded
    back into slice copies: a packed matmul panel row, a transposed tile),
    else `linalg.copy` (and then loops); contiguous copies stay and become
    `memcpy`. Larger static copies with contiguous rows become loop nests
    of row vectors; with `parallel`, one of 2^14 elements or more that is
    not inside a parallel loop already runs its outermost dimension of 8 or
    more (else its largest of 2 or more) as an `scf.parallel`.
  }];
  let options = [
    Option<"vectorTiles", "vector-tiles", "bool", /*default=*/"true",
           "Copy small row-contiguous tiles with vector transfers (off: "
           "loops; the GPU pipeline turns them into kernels)">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Spread the rows of large copies over threads (scf.parallel)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def TracedGpuMapParallelLoops
    : Pass<"traced-gpu-map-parallel-loops", "mlir::func::FuncOp"> {
  let summary = "Collapses each outermost scf.parallel to one dimension and tiles it for GPU blocks";
  let description = [{
    The loops `convert-linalg-to-parallel-loops` produces have one dimension
    per parallel loop of the op (four for an NCHW tensor). Each outermost
    `scf.parallel` is collapsed into one dimension (`collapseParallelLoops`)
    and tiled by `block-size` (`tileParallelLoop`), so that
    `gpu-map-parallel-loops` maps tiles to a 1-D grid of blocks and the
    elements of a tile to `block-size` threads. A loop nest with no
    parallel loop at all (`scf.for` only: a reduction to a 0-d result) is
    wrapped in a one-iteration `scf.parallel` first, so it runs as a
    one-thread kernel rather than as host code reading device memory.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::affine::AffineDialect"];
}

def TracedGpuReductions
    : Pass<"traced-gpu-reductions", "mlir::func::FuncOp"> {
  let summary = "Reductions computed by a warp or a block per output";
  let description = [{
    Runs on bufferized linalg before `convert-linalg-to-parallel-loops`,
    which would give each output of a reduction one thread walking the
    whole reduction. A `linalg.generic` with reduction loops, one output
    indexed by exactly its parallel loops, static sizes, and a body
    `combine(out, f(ins))` where `combine` is an associative, commutative
    arith op on a 32- or 64-bit value (addf, mulf, maximumf, minimumf, maxnumf,
    minnumf, addi, muli, andi, ori, xori, max/min signed and unsigned) and
    the rest of the body is pure (or `linalg.index`), becomes a
    `gpu.launch` (`<function>_reduce_<n>`) of 256-thread blocks:

    * a warp per output (8 per block): its threads fold the elements
      lane, lane + 32, ... (the reduction loops linearized, the last
      fastest, so an innermost reduction is read coalesced) into a partial
      value that starts at `combine`'s neutral element, then combine the
      32 partial values with a butterfly of `gpu.shuffle xor` (a 64-bit
      value as its two 32-bit halves);
    * whole blocks when there are at most `block-outputs` outputs of at
      least 2048 elements each: the warps' results meet in workgroup
      memory and the first warp combines them. Each output is split over
      up to `block-outputs / outputs` blocks (at least 2048 elements
      each), which store their results in a buffer of partial results; a
      second reduction over it, a warp per output, combines them into the
      output.

    The output's first thread combines the result with the output's
    initial value (a generic reduction accumulates into its output).
    Float results differ from one thread's sequential order in rounding
    only. Reductions shorter than `min-length` elements and the rest stay
    one thread per output.

    With `rows`, first: a run of consecutive ops over the same loop ranges
    (leading loops the rows, trailing loops a row's elements), made of
    warp-form reductions over the trailing loops into row buffers (with
    the fills before them), 32-bit, and elementwise generics writing a
    whole buffer at the identity map, becomes one `gpu.launch`
    (`<function>_rows_<n>`), a warp per row: each op in turn, the lanes
    striding over the row; a reduction's result goes through the
    butterfly to every lane and stays in a register for the ops after it
    (and is stored by the first lane); an elementwise op's element j is
    written and later read by the same lane. Later ops read what earlier
    ones wrote only at the identity map (elementwise results) or the row
    map (reduction results), and write no buffer an earlier op of the run
    used. A softmax, LayerNorm or RMSNorm over the last dimension is then
    one kernel instead of four.
  }];
  let options = [
    Option<"minLength", "min-length", "int64_t", /*default=*/"32",
           "Reductions at least this long are rewritten">,
    Option<"blockOutputs", "block-outputs", "int64_t", /*default=*/"264",
           "Reductions with at most this many outputs (and 2048 or more "
           "elements each) get a whole block per output">,
    Option<"rows", "rows", "bool", /*default=*/"false",
           "Row kernels: a run of reductions over the trailing loops and "
           "elementwise ops over the same rows (softmax, LayerNorm, "
           "RMSNorm) becomes one kernel, a warp per row (traced-gpu-pipeline "
           "turns it on: `row-kernels`)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::affine::AffineDialect"];
}

def TracedGpuTileContractions
    : Pass<"traced-gpu-tile-contractions", "mlir::func::FuncOp"> {
  let summary = "Builds shared-memory tiled GPU kernels for matmuls and convolutions";
  let description = [{
    Runs on bufferized linalg before `convert-linalg-to-parallel-loops`.
    Each float32 `linalg.matmul`, `linalg.batch_matmul` (default indexing
    maps) and `linalg.conv_2d_nchw_fchw` becomes one `gpu.launch` computing
    C += A B as a tiled GEMM; a convolution as an implicit GEMM (M: output
    channels, N: batch x output pixels, K: input channels x window), its
    im2col gather computed in the loads, nothing materialized.

    A block of 256 threads computes a BM x BN tile of C (128 x 128 with
    8 x 8 per thread when M and N are large, 64 x 128 with 4 x 8 when only
    N is, else 64 x 64 with 4 x 4): per step
    of BK along K it stages the A and B tiles in workgroup memory (A
    transposed, so the reads of a k-row are contiguous), waits at a barrier
    and accumulates with FMAs into registers (the accumulators are loop
    values); a thread's rows and columns come in runs of 4 spaced by the
    other threads' (`contiguous`), so its reads of a shared row are vector
    loads and a warp's global stores are consecutive. When the tiles alone would not fill the GPU (a convolution at
    batch 1 on a 7 x 7 map), K is split over the grid's z dimension and the
    partial tiles are added into C with atomic adds. The kernels are named
    `<function>_gemm_<n>` and `<function>_conv_<n>` (the outlined
    `gpu.func`s keep the names: profiles show what runs).

    With `fuse`, these kernels take in what surrounds the contraction
    (docs/gpu.md, "Fusion into the tiled kernels"): a convolution's
    input that is a constant-filled allocation holding a copy of a source
    is read through (the loads gather from the source, the constant
    outside it); C's zero fill makes the kernel store rather than add; and
    an elementwise `linalg.generic` reading C afterwards (bias, activation,
    residual add) is computed by the stores, C going away. With K split,
    the last block of each tile (a counter per tile after C, incremented
    after a GPU-scope fence) computes the epilogue.

    With `tensor-cores`, a matmul or batch matmul whose float32 operands
    are `arith.extf` widenings of bfloat16 (or float16) buffers (how the
    front end lowers a 16-bit matmul) becomes a tensor-core kernel,
    `<function>_mma_<n>`, that reads the 16-bit buffers and accumulates in
    float32 (rows of a multiple of 8 elements; the rest take the kernel
    above). The A and B tiles move to workgroup memory with 16-byte
    asynchronous copies through `mma-stages` buffers. With `wgmma`
    (sm_90a), two warpgroups multiply with `wgmma.mma_async` from tiles in
    128-byte swizzle atoms; otherwise warps multiply with `mma.sync`
    m16n8k16 on fragments read by `ldmatrix` from padded tiles. With `tma`
    as well, a third (producer) warpgroup loads the tiles with TMA from
    tensor maps of the operands (host-side markers that
    `traced-gpu-tensor-maps` turns into runtime calls) and hands each
    buffer to the multiplying warpgroups through a pair of mbarriers
    (full: the bytes landed; empty: the MMAs reading it are done); the
    warpgroups trade registers with `setmaxnreg`. The
    widenings go away; a zero fill of C before the matmul means the kernel
    stores instead of adding, and a truncation of C to 16 bits after it
    (when nothing else reads C) is done by the kernel's stores.

    Also with `tensor-cores`, a convolution (or a matmul the kernel above
    does not take) whose float32 operands are provably widened 16-bit
    floats (written whole by a parallel generic yielding `arith.extf` of a
    bfloat16 or float16 value, or a padded copy of such a buffer with a
    padding TF32 holds) multiplies on TF32 tensor cores: exactly, since
    TF32 holds those values.
  }];
  let options = [
    Option<"contiguous", "contiguous", "bool", /*default=*/"true",
           "A thread's rows and columns in runs of 4 (vector loads of the "
           "shared tiles); off: interleaved one by one with the other "
           "threads'">,
    Option<"kStep", "k-step", "int64_t", /*default=*/"8",
           "K per step of the matmuls' 128 x 128 tiles (8 or 16; "
           "convolutions use 16)">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Tensor-core kernels (sm_80 and later) for matmuls of bfloat16 or "
           "float16 operands">,
    Option<"mmaStages", "mma-stages", "int64_t", /*default=*/"0",
           "Workgroup buffers of the tensor-core kernels' asynchronous copy "
           "pipeline (2 to 6; 3 or more with wgmma; 0: 4)">,
    Option<"mmaKStep", "mma-k-step", "int64_t", /*default=*/"0",
           "K per step of the tensor-core kernels (32 or 64; 64 with wgmma; "
           "0: 32, 64 with wgmma)">,
    Option<"mmaBlockN", "mma-block-n", "int64_t", /*default=*/"0",
           "Columns of C per block of the tensor-core kernels (128 or 256; "
           "0: 128)">,
    Option<"mmaBlockM", "mma-block-m", "int64_t", /*default=*/"0",
           "Rows of C per block of the tensor-core kernels (128; 256 with "
           "wgmma: two 64-row MMAs per warpgroup; 0: 128, 256 with wgmma)">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "Warpgroup MMAs (wgmma.mma_async, sm_90a only) in the tensor-core "
           "kernels, rather than mma.sync">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "float32 matmuls and convolutions (128 x 128 and 64 x 128 tiles) "
           "multiply on tensor cores in TF32 (mma.sync m16n8k8, operands "
           "rounded to 10-bit mantissas; sm_80 and later): faster, less "
           "exact, as torch's allow_tf32. Without it, contractions whose "
           "operands are widened 16-bit floats take the same kernel (TF32 "
           "holds them exactly) when `tensor-cores` is on">,
    Option<"fuse", "fuse", "bool", /*default=*/"false",
           "The float32 kernels take in what surrounds their contraction: a "
           "convolution's padded input copy (the loads read through the "
           "padding), C's zero fill (stores instead of adds) and the "
           "elementwise generic after it (bias, activation, residual add: "
           "computed by the stores; with K split, by the last block of each "
           "tile, with `split-k-epilogues`). traced-gpu-pipeline turns it on "
           "(fuse-epilogues)">,
    Option<"splitKEpilogues", "split-k-epilogues", "bool", /*default=*/"false",
           "With `fuse`, also take in the epilogue of a contraction whose K is "
           "split over blocks (the last block of each tile computes it, after "
           "a counter per tile). Off: on an H200 those kernels took twice "
           "as long as the split kernel and a separate epilogue kernel "
           "(docs/gpu.md)">,
    Option<"tma", "tma", "bool", /*default=*/"false",
           "With wgmma: tiles loaded by the Tensor Memory Accelerator from "
           "tensor maps the runtime builds, by a producer warpgroup handing "
           "them to the multiplying ones through mbarriers (operands of "
           "identity layout; others keep the asynchronous copies)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
                           "mlir::nvgpu::NVGPUDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect", "mlir::vector::VectorDialect"];
}

def TracedGpuAlignWorkgroup
    : Pass<"traced-gpu-align-workgroup", "mlir::ModuleOp"> {
  let summary = "Aligns the workgroup buffers of outlined kernels to 16 bytes";
  let description = [{
    Sets `llvm.align = 16` on every workgroup attribution of every
    `gpu.func` (run after `gpu-kernel-outlining`; the NVVM lowering makes
    them globals with that alignment, else 4): the tiled contraction
    kernels read their shared tiles with 16-byte vector loads. With
    `min-blocks`, the tiled matmul kernels (`<function>_gemm_<n>`, as
    traced-gpu-tile-contractions names them) also ask ptxas to fit that
    many blocks per multiprocessor (`nvvm.minctasm`), which caps their
    registers (128 for two blocks of 256 threads). The convolution kernels
    are left alone: their im2col address arithmetic would spill.
  }];
  let options = [
    Option<"minBlocks", "min-blocks", "int64_t", /*default=*/"2",
           "Blocks per multiprocessor for the tiled kernels (0: ptxas decides)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def TracedGpuDeviceBuffers
    : Pass<"traced-gpu-device-buffers", "mlir::ModuleOp"> {
  let summary = "Puts every buffer a GPU kernel touches in device memory";
  let description = [{
    Runs on the host functions after `convert-parallel-loops-to-gpu`.
    Buffers a function allocates become `gpu.alloc` (plain device memory:
    `cuMemAlloc` through the runtime's caching allocator, never managed
    memory) and their deallocations `gpu.dealloc`. The arguments kernels
    read are copied to the device on entry with `gpu.memcpy`; the results
    (the trailing out-parameters, per `traced.entry`) are computed in
    device buffers and copied back before returning. Host-side
    `memref.copy`s between buffers become `gpu.memcpy`.

    Where the caller passes device memory the kernels can use (the
    runtime's `traced_gpu_in_place(address)`: device memory of its
    context, not managed, 256-byte aligned), the function uses it in
    place: the argument's buffer is an `arith.select` between the caller's
    memory and the device buffer, and the runtime skips the copy of a
    buffer onto itself. Only inputs nothing writes (by the ops' memory
    effects, through views) and results that overlap no other argument
    (checked at run time) are candidates. The decisions are made at the
    entry, before any GPU op, so that `gpu-async-region` does not wait for
    the stream at the calls.

    Constants the kernels read (`memref.get_global`, the weights) are made
    resident: at entry, `traced_gpu_resident(host, bytes)` (lib/Runtime/
    Cuda) returns the device copy of the constant, uploading it on the first
    call only; the function reads the device pointer through a memref
    descriptor built in the LLVM dialect.

    Host code left touching a buffer (a load, a store, a call) is an error:
    host code cannot read device memory. Run `gpu-async-region` afterwards
    so that copies and launches queue on one stream.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
                           "mlir::func::FuncDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect"];
}

def TracedGpuTensorMaps : Pass<"traced-gpu-tensor-maps", "mlir::ModuleOp"> {
  let summary = "Builds the TMA tensor maps the tensor-core kernels read";
  let description = [{
    `traced-gpu-tile-contractions` (with `tma`) marks each operand a kernel
    loads by TMA with a host-side `builtin.unrealized_conversion_cast` of
    the buffer to i64 carrying `traced.tensor_map = array<i64: box...>`
    (the box, innermost dimension first); `traced-gpu-device-buffers` puts
    that buffer on the device like the ones kernels read. This pass
    replaces each marker with a call of the runtime's
    `traced_gpu_tensor_map` (lib/Runtime/Cuda), which encodes the map with
    `cuTensorMapEncodeTiled` (128-byte swizzling, zeros outside the
    buffer), keeps it in device memory, and returns its address; the kernel
    receives that address. A map is built once per buffer address, shape
    and box.

    It runs after `gpu-async-region`: the call has side effects, and
    before that pass it would make the host wait for the stream.
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def TracedGpuCheckTarget : Pass<"traced-gpu-check-target", "mlir::ModuleOp"> {
  let summary = "Rejects unknown GPU chips and kernel formats up front";
  let description = [{
    The first pass of `traced-gpu-pipeline`: LLVM's NVPTX backend only warns
    about an unknown processor and goes on compiling for a default one, and
    a bad binary format would fail late; this pass reports both as errors
    before any work is done.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The target GPU">,
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "The gpu.binary format (isa, bin, fatbin)">,
  ];
}

def TracedCpuLowerChecks : Pass<"traced-cpu-lower-checks", "mlir::ModuleOp"> {
  let summary = "Turns the lowerings' run-time checks into the entry's status";
  let description = [{
    Runs after bufferization (on memrefs, with results as out-parameters).
    The lowerings express what torch checks at run time (an index out of
    bounds, a boolean mask whose count differs from the traced shape) as
    `cf.assert`, which upstream lowers to an abort. In each function
    carrying `traced.entry`, this pass replaces check k (numbered from 1 in
    order) by a store of k into a new trailing `memref<i32>` argument, the
    status, unless an earlier check already failed, and records the
    messages in the function's `traced.checks` attribute. The computation
    goes on (its outputs are then unspecified); traced-emit-entry passes the
    status, returns it from `traced_<entry>` and turns it into
    TRACED_ERROR_CHECK with the message in `traced_<entry>_checked`.
  }];
  let options = [
    Option<"drop", "drop", "bool", /*default=*/"false",
           "Erase the checks instead of lowering them: no run-time checks "
           "(the CPU pipeline's checks=false, traced.compile(checks=False))">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def TracedCpuDonateArguments
    : Pass<"traced-cpu-donate-arguments", "mlir::ModuleOp"> {
  let summary = "Lets outputs be written into the buffers of inputs the caller donates";
  let description = [{
    Runs before one-shot bufferization, on the functions carrying
    `traced.entry`. Each `donate` pair `input:output` (indices of the
    entry's inputs and outputs, from 0) says that the caller lends the
    input's buffer to the output: it passes that buffer for both, as JAX's
    `donate_argnums` and XLA's input-output aliases do. The argument gets
    `bufferization.writable = true` (the other entry arguments are made
    read-only before bufferization) and `traced.aliasing_output = output`,
    so that one-shot bufferization may update it in place: a key-value
    cache's `index_copy_`, `slice_scatter` or item assignment then writes
    the new rows into the caller's cache instead of copying the whole cache
    into a new output each call. traced-cpu-check-donations checks after
    bufferization that the update did happen in place.

    A pair that names no input or output, or an input and output of other
    types, is an error at the entry.
  }];
  let options = [
    ListOption<"donate", "donate", "std::string",
               "input:output index pairs: the output is written into the "
               "input's buffer, which the caller passes for both">,
  ];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def TracedCpuCheckDonations
    : Pass<"traced-cpu-check-donations", "mlir::ModuleOp"> {
  let summary = "Checks that donated inputs were updated in place, and skips their final copy when the caller passed one buffer";
  let description = [{
    Runs after buffer-results-to-out-params, on the functions carrying
    `traced.entry` whose arguments traced-cpu-donate-arguments marked with
    `traced.aliasing_output = k`. Bufferization updated such an input in
    place when what the function returned as output k was the argument
    itself: buffer-results-to-out-params then ends the function with one
    `memref.copy` of the argument into output k's out-parameter. That copy
    is wrapped in an `scf.if` on the two buffers' addresses, so that a
    caller who passes the input's buffer as the output (the donation) pays
    nothing for it, and one who passes two buffers still gets the result.

    Where bufferization could not update the input in place (its old value
    is read after the write, or output k is not computed from it), output
    k is computed into its own buffer, and aliasing it with the input would
    be wrong: the pass reports an error at the entry naming the input.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def TracedCpuFlattenGlobals
    : Pass<"traced-cpu-flatten-globals", "mlir::ModuleOp"> {
  let summary = "Gives constant memref globals one dimension, so that LLVM holds their data once";
  let description = [{
    Runs on memrefs, before the lowering to the LLVM dialect. A constant
    `memref.global` of rank 2 or more becomes a rank-1 global of the same
    bytes (a `dense_resource` initial value shares its blob; nothing is
    copied), and each `memref.get_global` of it is followed by a
    `memref.expand_shape` back to the original shape, which costs nothing
    at run time.

    Why: the translation to LLVM IR gives a global of type
    `memref<1024x1024x3x3xf32>` the nested type
    `[1024 x [1024 x [3 x [3 x float]]]]` and builds one uniqued LLVM
    constant per innermost row. For a 3x3 convolution filter that is an
    object of about 50 bytes per 12 bytes of weights, kept in the
    LLVMContext: compiling four `Conv2d(1024, 1024, 3)` (144 MiB of
    weights) took 2.7 GB more memory than the weights, and torchvision's
    regnet_y_128gf (2.6 GB of weights) could not be compiled in 24 GB.
    A flat global is one `ConstantDataArray` holding the bytes once.

    ```mlir
    memref.global "private" constant @w : memref<2x3xf32> = dense<...>
    %0 = memref.get_global @w : memref<2x3xf32>
    // becomes
    memref.global "private" constant @w : memref<6xf32> = dense<...>
    %1 = memref.get_global @w : memref<6xf32>
    %0 = memref.expand_shape %1 [[0, 1]] output_shape [2, 3]
        : memref<6xf32> into memref<2x3xf32>
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def TracedEmitEntry : Pass<"traced-emit-entry", "mlir::ModuleOp"> {
  let summary = "Adds the C entry point `int traced_<name>(void **inputs, void **outputs)`";
  let description = [{
    Runs on the LLVM dialect, after bufferization has turned results into
    out-parameters (`buffer-results-to-out-params`) and the function has
    been lowered to LLVM. For each function carrying `traced.entry`, adds an
    exported `int traced_<name>(void **inputs, void **outputs)` (returning
    0, or the number of the run-time check that failed) that reads
    one pointer per input and per output (dense, row-major buffers of the
    static shapes recorded in `traced.entry`) and calls the function with
    memref descriptors built from them. This is the entry point the JIT, the
    Python bindings and the ahead-of-time libraries all call. A constant
    string `traced_<name>_signature` holds the entry's tensor types, e.g.
    `(tensor<8x16xf32>) -> tensor<8x4xf32>`.

    An entry with dynamic dims (`traced.dim_names`, from
    convert-traced-to-linalg) gets `traced_<name>_sized(inputs, outputs,
    sizes)` instead, one size per distinct dim name; the outputs' sizes come
    from `<name>_output_dims`, which is also exported as
    `traced_<name>_output_shapes(sizes, shapes)`, and the names as the
    string `traced_<name>_dim_names` (traced_abi.h).
  }];
}

#endif // TRACEDIR_CONVERSION_PASSES_TD
