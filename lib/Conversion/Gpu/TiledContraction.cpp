//===- TiledContraction.cpp - traced-gpu-tile-contractions ----------------===//
//
// Float32 matmuls, batch matmuls and NCHW convolutions as shared-memory tiled
// GEMM kernels (`gpu.launch` with workgroup attributions), built directly
// from the bufferized linalg op: the generic one-thread-per-output loops of
// `convert-linalg-to-parallel-loops` read every operand element K times from
// global memory and reach about 2% of the GPU's float32 peak.
//
// A contraction is described by how to load A(b, m, k) and B(b, k, n) and
// how to read and write C(b, m, n); one kernel builder serves all three ops
// (a convolution is an implicit GEMM whose B loads gather the im2col
// element from the input).
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"

#include "Fusion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <functional>

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDGPUTILECONTRACTIONS
#define GEN_PASS_DEF_TRACEDGPUALIGNWORKGROUP
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::gpu_fusion;

namespace {

/// Index arithmetic in the kernels: 32-bit when every index fits (64-bit
/// division by a constant is a long multiply sequence on the GPU), with
/// `idx` converting to `index` where a memref is accessed.
struct IndexBuilder {
  OpBuilder &b;
  Location loc;
  Type type; // i32 or index
  Value c(int64_t v) {
    return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
  }
  Value from(Value index) {
    return type.isIndex() ? index
                          : arith::IndexCastUIOp::create(b, loc, type, index)
                                .getResult();
  }
  Value idx(Value v) {
    return type.isIndex() ? v
                          : arith::IndexCastUIOp::create(b, loc,
                                                         b.getIndexType(), v)
                                .getResult();
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, int64_t y) {
    return y == 1 ? x : arith::DivUIOp::create(b, loc, x, c(y)).getResult();
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, c(y));
  }
  Value lt(Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c(y));
  }
  Value eq(Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, c(y));
  }
  Value land(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
};

/// C(b, m, n) += sum_k A(b, m, k) * B(b, k, n), for b < batch. The
/// callbacks get the indices in the builder's type.
struct Contraction {
  int64_t batch, m, n, k;
  /// The largest linear index of any operand (for 32-bit index math).
  int64_t maxElements;
  using Load = std::function<Value(IndexBuilder &, Value b, Value i, Value j)>;
  Load loadA, loadB;
  /// Optional: vector<4xf32> of A(b, i, j..j+3) or B(b, i, j..j+3), 16-byte
  /// aligned when j is a multiple of 4 (contiguous rows of a multiple of 4
  /// elements from an aligned allocation).
  Load loadA4, loadB4;
  /// The address of C(b, m, n): its memref and `index` indices.
  std::function<std::pair<Value, SmallVector<Value>>(IndexBuilder &, Value,
                                                     Value, Value)>
      addressC;
};

/// What a tiled kernel takes in besides its contraction: C's zero fill
/// (it stores its sums rather than adding them to C) and the elementwise
/// epilogue after it (it stores the epilogue's result instead, and C goes
/// away). When K is split over blocks, the partial sums are added into the
/// zero-filled C atomically; with an epilogue, `counters` (the zero-filled
/// allocation C is the start of) has a float per tile after C, which each
/// block increments once its sums are in C, and the last block of a tile
/// computes the tile's epilogue.
struct Absorbed {
  linalg::FillOp zeroFill;
  std::optional<Epilogue> epilogue;
  Value counters;
};

/// A block's tile: BM x BN of C, BK along K per step, TM x TN per thread.
struct Tile {
  int64_t bm, bn, bk, tm, tn;
  int64_t threads() const { return (bm / tm) * (bn / tn); }
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The block tile for `c`: 128 x 128 when both M and N are large; 64 x 128
/// (4 x 8 per thread) when only N is (a convolution with 64 output
/// channels over many pixels); else 64 x 64.
Tile chooseTile(const Contraction &c, int64_t largeKStep) {
  return c.n >= 128 ? (c.m >= 128 ? Tile{128, 128, largeKStep, 8, 8}
                                  : Tile{64, 128, 16, 4, 8})
                    : Tile{64, 64, 16, 4, 4};
}

/// The blocks K is split over (grid z) and the K tiles of each: split when
/// the tiles would leave most of the GPU idle (aiming at two blocks per
/// multiprocessor of a 132-SM H100/H200), each split keeping at least 8
/// steps.
std::pair<int64_t, int64_t> splitK(const Contraction &c, const Tile &t) {
  int64_t kTiles = ceilDiv(c.k, t.bk);
  int64_t blocks = ceilDiv(c.n, t.bn) * ceilDiv(c.m, t.bm) * c.batch;
  int64_t split =
      std::max<int64_t>(1, std::min(ceilDiv(264, blocks), kTiles / 8));
  int64_t tilesPerSplit = ceilDiv(kTiles, split);
  return {ceilDiv(kTiles, tilesPerSplit), tilesPerSplit};
}

/// Whether every index of `c`'s kernel fits 32 bits.
bool fitsIn32Bits(const Contraction &c) {
  return c.maxElements < (int64_t(1) << 31) &&
         c.m * c.n < (int64_t(1) << 31) && c.k * c.n < (int64_t(1) << 31) &&
         c.m * c.k < (int64_t(1) << 31);
}

/// The tiled kernel for `c` in place of `op` (buildKernel), stage by stage.
/// The stages share the tile and its split along K, the launch, this
/// thread's indices and the tile elements it loads.
struct TiledKernel {
  TiledKernel(Operation *op, const Contraction &c, bool contiguous,
              int64_t largeKStep, bool tf32, StringRef kernelName,
              Absorbed &absorbed)
      : c(c), absorbed(absorbed), contiguous(contiguous),
        kernelName(kernelName), b(op), loc(op->getLoc()), ctx(b.getContext()),
        f32(b.getF32Type()), host{b, loc, b.getIndexType()},
        t(chooseTile(c, largeKStep)), threads(t.threads()),
        mma(tf32 && t.bn == 128 && (t.bm == 128 || t.bm == 64)),
        gridX(ceilDiv(c.n, t.bn)),
        gridY(ceilDiv(c.m, t.bm)), kTiles(ceilDiv(c.k, t.bk)),
        // Loads need no bounds check where the tiles divide the operands.
        guardA(c.m % t.bm || c.k % t.bk), guardB(c.k % t.bk || c.n % t.bn),
        guardC(c.m % t.bm || c.n % t.bn), ib{b, loc,
                                             fitsIn32Bits(c)
                                                 ? Type(b.getI32Type())
                                                 : b.getIndexType()},
        rowThreads(t.bm / t.tm), colThreads(t.bn / t.tn) {
    std::tie(split, tilesPerSplit) = splitK(c, t);
    if (split > 1 && !absorbed.counters)
      absorbed = Absorbed();
    if (split > 1)
      absorbed.zeroFill = {};
    // A tile's elements this thread loads: element e = tid + i * threads of
    // the rows x width tile is (e / width, e % width); with `vec`, runs of 4
    // along the row, loaded and stored as vector<4xf32>.
    vecA = !guardA && c.loadA4 && t.bk % 4 == 0 &&
           (t.bm * t.bk / 4) % threads == 0;
    vecB = !guardB && c.loadB4 && t.bn % 4 == 0 &&
           (t.bk * t.bn / 4) % threads == 0;
  }

  const Contraction &c;
  Absorbed &absorbed;
  bool contiguous;
  StringRef kernelName;
  OpBuilder b;
  Location loc;
  MLIRContext *ctx;
  Type f32;
  IndexBuilder host;
  Tile t;
  int64_t threads;
  /// Tensor cores: with `tf32`, 128 x 128 and 64 x 128 tiles multiply
  /// with mma.sync m16n8k8 on TF32 operands, 8 warps of bm / 2 x 32.
  bool mma;
  int64_t gridX, gridY, kTiles;
  /// The blocks along K (grid z) and the K tiles of each.
  int64_t split = 1, tilesPerSplit = 1;
  bool guardA, guardB, guardC;
  /// Index arithmetic in the kernel (32-bit where it fits).
  IndexBuilder ib;
  int64_t rowThreads, colThreads;
  bool vecA = false, vecB = false;

  gpu::LaunchOp launch;
  Value sharedA, sharedB;
  Value tid, batch, part, rowBase, colBase, tx, ty;
  /// mma: this lane's first row of A and C, column of B, and K offset
  /// within a step of 8 (group g = lane / 4, q = lane % 4), and its first
  /// column of C (2q).
  Value mmaRow, mmaColB, mmaQ, mmaColC;
  Value zero;
  /// A tile element this thread loads: its row and column.
  struct Slot {
    Value r, col;
  };
  SmallVector<Slot> slotsA, slotsB;

  /// All stages, in order.
  void emit() {
    createLaunch();
    threadIndices();
    zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    slotsA = slots(t.bm, t.bk, vecA);
    slotsB = slots(t.bk, t.bn, vecB);
    scf::ForOp loop = buildKLoop();
    addToC(loop);
    gpu::TerminatorOp::create(b, loc);
  }

  /// The launch, with the shared tiles as workgroup attributions.
  void createLaunch() {
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    // A is stored transposed ([k][m]); 4 more columns keep the stores of a
    // warp (8 k values of one m) in distinct banks and rows 16-byte aligned.
    auto tileA = MemRefType::get({t.bk, t.bm + 4}, f32,
                                 MemRefLayoutAttrInterface(), workgroup);
    // (With mma, B's rows are padded by 8: the fragment reads of a warp, 4
    // rows of 8 columns, fall in distinct banks.)
    auto tileB = MemRefType::get({t.bk, t.bn + (mma ? 8 : 0)}, f32,
                                 MemRefLayoutAttrInterface(), workgroup);
    launch = gpu::LaunchOp::create(
        b, loc, host.c(gridX), host.c(gridY), host.c(c.batch * split),
        host.c(threads), host.c(1), host.c(1),
        /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        ValueRange{}, TypeRange{tileA, tileB}, /*privateAttributions=*/{},
        /*clusterSizeX=*/nullptr, /*clusterSizeY=*/nullptr,
        /*clusterSizeZ=*/nullptr, /*module=*/nullptr,
        FlatSymbolRefAttr::get(ctx, kernelName));
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
  }

  /// The shared tiles, this thread's block, batch, K split and position in
  /// the block (with mma, in its warp's fragments).
  void threadIndices() {
    sharedA = launch.getWorkgroupAttributions()[0];
    sharedB = launch.getWorkgroupAttributions()[1];
    tid = ib.from(launch.getThreadIds().x);
    Value z = ib.from(launch.getBlockIds().z);
    batch = ib.div(z, split);
    part = ib.rem(z, split);
    rowBase = ib.mul(ib.from(launch.getBlockIds().y), ib.c(t.bm));
    colBase = ib.mul(ib.from(launch.getBlockIds().x), ib.c(t.bn));
    tx = ib.rem(tid, colThreads);
    ty = ib.div(tid, colThreads);
    if (mma) {
      Value lane = ib.rem(tid, 32), warp = ib.div(tid, 32);
      Value g = ib.div(lane, 4);
      mmaQ = ib.rem(lane, 4);
      mmaRow = ib.add(ib.mul(ib.div(warp, 4), ib.c(t.bm / 2)), g);
      Value warpCol = ib.mul(ib.rem(warp, 4), ib.c(32));
      mmaColB = ib.add(warpCol, g);
      mmaColC = ib.add(warpCol, ib.mul(mmaQ, ib.c(2)));
    }
  }

  /// The tile row (column) of a thread's i-th row (column): runs of 4, one
  /// run per 4 x threads, or one by one interleaved with the other threads.
  Value position(Value thread, int64_t i, int64_t count, int64_t perThread) {
    if (contiguous && perThread % 4 == 0)
      return ib.add(ib.mul(thread, ib.c(4)),
                    ib.c((i / 4) * count * 4 + i % 4));
    return ib.add(thread, ib.c(i * count));
  }

  /// The elements this thread loads of a rows x width tile.
  SmallVector<Slot> slots(int64_t rows, int64_t width, bool vec) {
    SmallVector<Slot> out;
    int64_t run = vec ? 4 : 1, runs = width / run;
    for (int64_t i = 0, e = rows * runs / threads; i < e; ++i) {
      Value el = ib.add(tid, ib.c(i * threads));
      out.push_back({ib.div(el, runs), ib.mul(ib.rem(el, runs), ib.c(run))});
    }
    return out;
  }

  /// Loads of tile `kt` into registers (guarded where the tile may pass an
  /// edge; zero there).
  SmallVector<Value> loadTile(Value kt, bool isA) {
    Value kBase = ib.mul(kt, ib.c(t.bk));
    SmallVector<Value> values;
    bool vec = isA ? vecA : vecB;
    for (const Slot &s : isA ? slotsA : slotsB) {
      // A: rows of M (width BK); B: rows of K (width BN).
      Value gi = isA ? ib.add(rowBase, s.r) : ib.add(kBase, s.r);
      Value gj = isA ? ib.add(kBase, s.col) : ib.add(colBase, s.col);
      if (vec) {
        values.push_back(isA ? c.loadA4(ib, batch, gi, gj)
                             : c.loadB4(ib, batch, gi, gj));
        continue;
      }
      auto load = [&](IndexBuilder &nib) {
        return isA ? c.loadA(nib, batch, gi, gj) : c.loadB(nib, batch, gi, gj);
      };
      if (!(isA ? guardA : guardB)) {
        values.push_back(load(ib));
        continue;
      }
      Value inside = isA ? ib.land(ib.lt(gi, c.m), ib.lt(gj, c.k))
                         : ib.land(ib.lt(gi, c.k), ib.lt(gj, c.n));
      auto guarded = scf::IfOp::create(
          b, loc, inside,
          [&](OpBuilder &nb, Location nl) {
            IndexBuilder nib{nb, nl, ib.type};
            scf::YieldOp::create(nb, nl, load(nib));
          },
          [&](OpBuilder &nb, Location nl) {
            scf::YieldOp::create(nb, nl, zero);
          });
      values.push_back(guarded.getResult(0));
    }
    return values;
  }

  /// TF32: rounded to nearest (ties away, as cuBLAS), kept in float32 bits.
  Value toTf32(Value v) {
    auto round = [&](Value x) -> Value {
      Value bits = NVVM::ConvertFloatToTF32Op::create(
          b, loc, b.getI32Type(), x, NVVM::FPRoundingMode::RNA,
          NVVM::SaturationMode::NONE, /*relu=*/false);
      return arith::BitcastOp::create(b, loc, f32, bits);
    };
    auto vec = dyn_cast<VectorType>(v.getType());
    if (!vec)
      return round(v);
    Value out = v;
    for (int64_t e = 0; e < vec.getNumElements(); ++e)
      out = vector::InsertOp::create(
          b, loc, round(vector::ExtractOp::create(b, loc, v, e)), out, e);
    return out;
  }

  /// The loaded `values` of a tile to its shared tile.
  void storeTile(ValueRange values, bool isA) {
    ArrayRef<Slot> where = isA ? slotsA : slotsB;
    for (auto [stored, s] : llvm::zip(values, where)) {
      Value v = mma ? toTf32(stored) : stored;
      if (isA) { // stored transposed: [k][m]
        if (!vecA) {
          memref::StoreOp::create(b, loc, v, sharedA,
                                  ValueRange{ib.idx(s.col), ib.idx(s.r)});
          continue;
        }
        for (int64_t e = 0; e < 4; ++e)
          memref::StoreOp::create(
              b, loc, vector::ExtractOp::create(b, loc, v, e), sharedA,
              ValueRange{ib.idx(ib.add(s.col, ib.c(e))), ib.idx(s.r)});
      } else if (vecB) {
        vector::StoreOp::create(b, loc, v, sharedB,
                                ValueRange{ib.idx(s.r), ib.idx(s.col)},
                                /*nontemporal=*/false, llvm::MaybeAlign(16));
      } else {
        memref::StoreOp::create(b, loc, v, sharedB,
                                ValueRange{ib.idx(s.r), ib.idx(s.col)});
      }
    }
  }

  /// The loop over this split's K tiles, with the next tile's global loads
  /// issued before the current tile's FMAs (in registers, stored to the
  /// shared tiles after the second barrier): the loads' latency overlaps
  /// the arithmetic. (Past the last tile, the guarded loads read zeros; the
  /// unguarded ones read the last tile again.)
  scf::ForOp buildKLoop() {
    Value firstTile = ib.mul(part, ib.c(tilesPerSplit));
    Value lastTile = arith::MinUIOp::create(
        b, loc, ib.add(firstTile, ib.c(tilesPerSplit)), ib.c(kTiles));
    SmallVector<Value> init(t.tm * t.tn, zero);
    SmallVector<Value> firstA = loadTile(firstTile, true);
    SmallVector<Value> firstB = loadTile(firstTile, false);
    size_t nA = firstA.size(), nB = firstB.size();
    llvm::append_range(init, firstA);
    llvm::append_range(init, firstB);
    return scf::ForOp::create(
        b, loc, ib.idx(firstTile), ib.idx(lastTile), host.c(1), init,
        [&](OpBuilder &nb, Location nl, Value ktIndex, ValueRange iter) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          buildKStep(ktIndex, iter, nA, nB);
        });
  }

  /// One K step: the loaded tile to the shared tiles, the next tile's
  /// loads, the products, the accumulators and next loads yielded.
  void buildKStep(Value ktIndex, ValueRange iter, size_t nA, size_t nB) {
    ValueRange acc = iter.take_front(t.tm * t.tn);
    storeTile(iter.slice(t.tm * t.tn, nA), true);
    storeTile(iter.slice(t.tm * t.tn + nA, nB), false);
    gpu::BarrierOp::create(b, loc);
    Value next = ib.add(ib.from(ktIndex), ib.c(1));
    if (!guardA || !guardB)
      next = arith::MinUIOp::create(b, loc, next, ib.c(kTiles - 1));
    SmallVector<Value> nextA = loadTile(next, true);
    SmallVector<Value> nextB = loadTile(next, false);
    SmallVector<Value> sums(acc.begin(), acc.end());
    if (mma)
      multiplyOnTensorCores(sums);
    else
      multiplyWithFma(sums);
    gpu::BarrierOp::create(b, loc);
    llvm::append_range(sums, nextA);
    llvm::append_range(sums, nextB);
    scf::YieldOp::create(b, loc, sums);
  }

  /// A thread's values of row kk of a shared tile: 16-byte vector loads of
  /// its runs of 4 (the tiles are 16-byte aligned:
  /// traced-gpu-align-workgroup), else one by one.
  SmallVector<Value> readRow(Value shared, Value thread, int64_t kk,
                             int64_t count, int64_t perThread) {
    SmallVector<Value> values;
    bool vectors = contiguous && perThread % 4 == 0;
    for (int64_t i = 0; i < perThread; i += vectors ? 4 : 1) {
      SmallVector<Value> at{host.c(kk),
                            ib.idx(position(thread, i, count, perThread))};
      if (!vectors) {
        values.push_back(memref::LoadOp::create(b, loc, shared, at));
        continue;
      }
      Value v = vector::LoadOp::create(
          b, loc, VectorType::get({4}, f32), shared, at,
          /*nontemporal=*/false, llvm::MaybeAlign(16));
      for (int64_t e = 0; e < 4; ++e)
        values.push_back(vector::ExtractOp::create(b, loc, v, e));
    }
    return values;
  }

  /// The shared tiles' products into `sums` on tensor cores. Warp w
  /// computes rows (w / 4) * bm / 2 .. + bm / 2 - 1 and columns
  /// (w % 4) * 32 .. + 31: bm / 32 x 4 tiles of 16 x 8. A lane of group g = lane / 4, q = lane % 4
  /// holds A (g, q), (g + 8, q), (g, q + 4), (g + 8, q + 4) of a tile, B
  /// (q, g), (q + 4, g), and C (g, 2q), (g, 2q + 1), (g + 8, 2q),
  /// (g + 8, 2q + 1).
  void multiplyOnTensorCores(SmallVector<Value> &sums) {
    auto read = [&](Value shared, Value row, Value col) -> Value {
      Value v = memref::LoadOp::create(b, loc, shared,
                                       ValueRange{ib.idx(row), ib.idx(col)});
      return arith::BitcastOp::create(b, loc, b.getI32Type(), v);
    };
    auto accType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    for (int64_t kk = 0; kk < t.bk; kk += 8) {
      Value k0 = ib.add(mmaQ, ib.c(kk)), k1 = ib.add(mmaQ, ib.c(kk + 4));
      SmallVector<SmallVector<Value, 4>> as, bs;
      int64_t mTiles = t.bm / 32;
      for (int64_t mi = 0; mi < mTiles; ++mi) {
        Value r0 = ib.add(mmaRow, ib.c(mi * 16)),
              r1 = ib.add(mmaRow, ib.c(mi * 16 + 8));
        as.push_back({read(sharedA, k0, r0), read(sharedA, k0, r1),
                      read(sharedA, k1, r0), read(sharedA, k1, r1)});
      }
      for (int64_t ni = 0; ni < 4; ++ni) {
        Value col = ib.add(mmaColB, ib.c(ni * 8));
        bs.push_back({read(sharedB, k0, col), read(sharedB, k1, col)});
      }
      for (int64_t mi = 0; mi < mTiles; ++mi)
        for (int64_t ni = 0; ni < 4; ++ni) {
          Value *d = &sums[(mi * 4 + ni) * 4];
          Value r = NVVM::MmaOp::create(
              b, loc, accType, as[mi], bs[ni],
              ValueRange{d[0], d[1], d[2], d[3]}, {16, 8, 8}, std::nullopt,
              std::nullopt,
              std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32,
                                            NVVM::MMATypes::tf32},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (int64_t e = 0; e < 4; ++e)
            d[e] = LLVM::ExtractValueOp::create(b, loc, r, e);
        }
    }
  }

  /// The shared tiles' products into `sums` with FMAs, a TM x TN block of
  /// C per thread.
  void multiplyWithFma(SmallVector<Value> &sums) {
    for (int64_t kk = 0; kk < t.bk; ++kk) {
      SmallVector<Value> as = readRow(sharedA, ty, kk, rowThreads, t.tm);
      SmallVector<Value> bs = readRow(sharedB, tx, kk, colThreads, t.tn);
      for (int64_t i = 0; i < t.tm; ++i)
        for (int64_t j = 0; j < t.tn; ++j)
          sums[i * t.tn + j] = math::FmaOp::create(b, loc, as[i], bs[j],
                                                   sums[i * t.tn + j]);
    }
  }

  /// Calls `fn` with C's memref and indices and the thread's value at each
  /// element of its tile inside C (`values[i * tn + j]`).
  void forEachElement(
      ArrayRef<Value> values,
      function_ref<void(IndexBuilder &, Value, ValueRange, Value)> fn) {
    for (int64_t i = 0; i < t.tm; ++i)
      for (int64_t j = 0; j < t.tn; ++j) {
        Value gi, gj;
        if (mma) { // accumulator (mi * 4 + ni) * 4 + e: see the fragments
          int64_t mi = i / 2, ni = (i % 2) * 2 + j / 4, e = j % 4;
          gi = ib.add(rowBase, ib.add(mmaRow, ib.c(mi * 16 + (e / 2) * 8)));
          gj = ib.add(colBase, ib.add(mmaColC, ib.c(ni * 8 + e % 2)));
        } else {
          gi = ib.add(rowBase, position(ty, i, rowThreads, t.tm));
          gj = ib.add(colBase, position(tx, j, colThreads, t.tn));
        }
        Value v = values[i * t.tn + j];
        auto at = [&](IndexBuilder &nib) {
          auto [memref, indices] = c.addressC(nib, batch, gi, gj);
          fn(nib, memref, indices, v);
        };
        if (!guardC) {
          at(ib);
          continue;
        }
        Value inside = ib.land(ib.lt(gi, c.m), ib.lt(gj, c.n));
        scf::IfOp::create(b, loc, inside, [&](OpBuilder &nb, Location nl) {
          IndexBuilder nib{nb, nl, ib.type};
          at(nib);
          scf::YieldOp::create(nb, nl);
        });
      }
  }

  /// C += the thread's tile, the results of `loop` (atomically when K is
  /// split; C = the tile when C's zero fill is absorbed; the epilogue's
  /// element of it stored to the epilogue's output when that is, by the
  /// last block of the tile when K is split).
  void addToC(scf::ForOp loop) {
    SmallVector<Value> sums(loop.getResults().take_front(t.tm * t.tn));
    forEachElement(sums, [&](IndexBuilder &nib, Value memref,
                             ValueRange indices, Value v) {
      if (split > 1) {
        memref::AtomicRMWOp::create(nib.b, nib.loc, arith::AtomicRMWKind::addf,
                                    v, memref, indices);
        return;
      }
      Value sum = v;
      if (!absorbed.zeroFill) {
        Value old = memref::LoadOp::create(nib.b, nib.loc, memref, indices);
        sum = arith::AddFOp::create(nib.b, nib.loc, old, v);
      }
      if (absorbed.epilogue)
        emitEpilogue(nib.b, nib.loc, *absorbed.epilogue, sum, indices);
      else
        memref::StoreOp::create(nib.b, nib.loc, sum, memref, indices);
    });
    if (split > 1 && absorbed.epilogue)
      lastBlockEpilogue(sums);
  }

  /// With K split: once this block's sums are in C (fenced at GPU scope),
  /// its first thread increments the tile's counter; the block that finds
  /// `split - 1` there is the last, and reads the finished sums (atomically,
  /// at L2, after another fence) to compute the tile's epilogue.
  void lastBlockEpilogue(ArrayRef<Value> sums) {
    auto gpuScope = NVVM::MemScopeKind::GPU;
    NVVM::MembarOp::create(b, loc, gpuScope);
    gpu::BarrierOp::create(b, loc);
    Value tile = ib.add(ib.mul(ib.add(ib.mul(batch, ib.c(gridY)),
                                      ib.from(launch.getBlockIds().y)),
                               ib.c(gridX)),
                        ib.from(launch.getBlockIds().x));
    int64_t cElements = 1;
    for (int64_t d :
         cast<MemRefType>(absorbed.epilogue->c.getType()).getShape())
      cElements *= d;
    // The counter's old value, through the shared tile (free after the
    // loop's last barrier).
    Value flag = host.c(0);
    scf::IfOp::create(b, loc, ib.eq(tid, 0), [&](OpBuilder &nb, Location nl) {
      IndexBuilder nib{nb, nl, ib.type};
      Value one = arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(1.0f));
      Value old = memref::AtomicRMWOp::create(
          nb, nl, arith::AtomicRMWKind::addf, one, absorbed.counters,
          ValueRange{nib.idx(nib.add(tile, nib.c(cElements)))});
      memref::StoreOp::create(nb, nl, old, sharedA, ValueRange{flag, flag});
      scf::YieldOp::create(nb, nl);
    });
    gpu::BarrierOp::create(b, loc);
    Value arrived =
        memref::LoadOp::create(b, loc, sharedA, ValueRange{flag, flag});
    Value last = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OEQ, arrived,
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(split - 1)));
    scf::IfOp::create(b, loc, last, [&](OpBuilder &nb, Location nl) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
      NVVM::MembarOp::create(b, loc, gpuScope);
      forEachElement(sums, [&](IndexBuilder &nib, Value memref,
                               ValueRange indices, Value) {
        Value sum = memref::AtomicRMWOp::create(
            nib.b, nib.loc, arith::AtomicRMWKind::addf, zero, memref, indices);
        emitEpilogue(nib.b, nib.loc, *absorbed.epilogue, sum, indices);
      });
      scf::YieldOp::create(b, loc);
    });
  }
};

/// The tiled kernel for `c` in place of `op`. With `tf32`, 128 x 128 tiles
/// multiply on tensor cores: mma.sync m16n8k8 on TF32 operands (rounded
/// from float32 as they are stored to the shared tiles), 8 warps of 64 x 32.
/// `absorbed` is cleared of what the kernel did not take in.
void buildKernel(Operation *op, const Contraction &c, bool contiguous,
                 int64_t largeKStep, bool tf32, StringRef kernelName,
                 Absorbed &absorbed) {
  TiledKernel(op, c, contiguous, largeKStep, tf32, kernelName, absorbed).emit();
}

//===----------------------------------------------------------------------===//
// Tensor-core kernels for bfloat16 and float16 matmuls
//===----------------------------------------------------------------------===//

/// A matmul or batch matmul whose float32 operands are elementwise widenings
/// (`arith.extf` generics) of bfloat16 or float16 buffers: the tensor-core
/// kernel reads the narrow buffers and accumulates in float32.
struct NarrowMatmul {
  Value a, b, c; // A [batch][m][k] and B [batch][k][n] narrow; C float32
  bool batched;
  int64_t batch, m, n, k;
  Type elem;
  SmallVector<linalg::GenericOp, 2> widenings;
  /// The zero fill of C right before the matmul: the kernel stores its
  /// sums instead of adding them to C.
  linalg::FillOp zeroFill;
  /// The truncation of C to 16 bits right after the matmul, when nothing
  /// else reads C: the kernel writes `narrowOut` directly.
  linalg::GenericOp truncation;
  Value narrowOut;
  /// Float32 operands narrowed at their writer (narrowAtWriter): their
  /// reshapes and allocation, erased once the kernel replaced the matmul
  /// if nothing else reads them.
  SmallVector<Operation *> deadAfter;
};

/// The tensor-core kernels' shape.
struct MmaConfig {
  int64_t stages; // workgroup buffers in the copy pipeline
  int64_t bk;     // K per step (32 or 64)
  int64_t bn;     // columns of C per block (128 or 256: 2 or 4 warps wide)
  bool wgmma;     // warpgroup MMAs (sm_90a) rather than mma.sync
  int64_t bm;     // rows of C per block (128; 256 with wgmma)
  /// wgmma only: tiles loaded by TMA, issued by a producer warpgroup,
  /// handed over through mbarriers (needs identity-layout operands).
  bool tma;
};

/// The dynamic workgroup memory of a tensor-core kernel of `config`: its
/// `stages` A and B buffers (mma.sync's rows padded by 8 elements), then
/// with wgmma room to align them to 1024 bytes, then with `tma` a full and
/// an empty mbarrier per buffer.
int64_t mmaWorkgroupBytes(const MmaConfig &config, bool tma) {
  int64_t pad = config.wgmma ? 0 : 8;
  return config.stages *
             (config.bm * (config.bk + pad) + config.bk * (config.bn + pad)) *
             2 +
         (config.wgmma ? 1024 : 0) + (tma ? 16 * config.stages : 0);
}

/// Whether `generic` converts its one input to its one output of the same
/// shape with a lone `CastOp` per element (`arith.extf`, or `arith.truncf`
/// rounding to nearest even), the 16-bit side (the input when
/// `narrowInput`, else the output) a bfloat16 or float16 buffer with the
/// identity layout.
template <typename CastOp>
bool isConversion(linalg::GenericOp generic, bool narrowInput) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return false;
  Block &body = generic.getRegion().front();
  auto conversion = cast<linalg::YieldOp>(body.getTerminator())
                        .getOperand(0)
                        .getDefiningOp<CastOp>();
  if (body.getOperations().size() != 2 || !conversion ||
      conversion.getIn() != body.getArgument(0))
    return false;
  if constexpr (std::is_same_v<CastOp, arith::TruncFOp>)
    if (conversion.getRoundingmodeAttr())
      return false;
  auto in = dyn_cast<MemRefType>(generic.getDpsInputs()[0].getType());
  auto out = dyn_cast<MemRefType>(generic.getDpsInits()[0].getType());
  if (!in || !out || in.getShape() != out.getShape())
    return false;
  MemRefType narrow = narrowInput ? in : out;
  return narrow.getLayout().isIdentity() &&
         (narrow.getElementType().isBF16() || narrow.getElementType().isF16());
}

/// The bfloat16/float16 buffer that the float32 buffer `wide` (an operand
/// of `user`) is the elementwise widening of: a `linalg.generic` writing all
/// of `wide` as `arith.extf` of one same-shape input, earlier in `user`'s
/// block, with nothing between them writing either buffer.
std::pair<Value, linalg::GenericOp> widenedFrom(Value wide, Operation *user) {
  for (Operation *writer : wide.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(writer);
    if (!generic || !isConversion<arith::ExtFOp>(generic, true) ||
        generic.getDpsInits()[0] != wide ||
        generic->getBlock() != user->getBlock() ||
        !generic->isBeforeInBlock(user))
      continue;
    Value narrow = generic.getDpsInputs()[0];
    if (touchedBetween(generic, user, narrow, wide, /*anyUse=*/false))
      return {};
    return {narrow, generic};
  }
  return {};
}

/// The generic after `op` in its block truncating all of the float32 buffer
/// `c` (an allocation nothing else reads) elementwise to a same-shape
/// 16-bit buffer, with nothing between them touching either.
linalg::GenericOp truncationAfter(Value c, Operation *op) {
  if (!c.getDefiningOp<memref::AllocOp>())
    return {};
  linalg::GenericOp found;
  for (Operation *user : c.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (user == op || isa<memref::DeallocOp, linalg::FillOp>(user))
      continue;
    if (found || !generic)
      return {};
    found = generic;
  }
  if (!found || found->getBlock() != op->getBlock() ||
      !op->isBeforeInBlock(found) ||
      !isConversion<arith::TruncFOp>(found, false) ||
      found.getDpsInputs()[0] != c)
    return {};
  if (touchedBetween(op, found, c, found.getDpsInits()[0], /*anyUse=*/true))
    return {};
  return found;
}

/// The buffer that `v` is a view of through ops of the types `Views`, with
/// those ops from it to `v` in `views`, innermost first.
template <typename... Views>
Value throughViews(Value v, SmallVectorImpl<Operation *> &views) {
  while (isa_and_nonnull<Views...>(v.getDefiningOp())) {
    views.insert(views.begin(), v.getDefiningOp());
    v = v.getDefiningOp()->getOperand(0);
  }
  return v;
}

/// The buffer `v` reshapes (collapse_shape / expand_shape), with the
/// reshapes from it to `v` in `views`, innermost first.
Value throughReshapes(Value v, SmallVectorImpl<Operation *> &views) {
  return throughViews<memref::CollapseShapeOp, memref::ExpandShapeOp>(v,
                                                                       views);
}

/// `views` (subviews and reshapes, outermost last) made again over `base`
/// (of another element type) before `user`.
Value reshapedBefore(Operation *user, ArrayRef<Operation *> views,
                     Value base) {
  OpBuilder b(user);
  Type elem = cast<MemRefType>(base.getType()).getElementType();
  Value view = base;
  for (Operation *op : views) {
    Location loc = op->getLoc();
    if (auto subview = dyn_cast<memref::SubViewOp>(op)) {
      view = memref::SubViewOp::create(b, loc, view, subview.getMixedOffsets(),
                                       subview.getMixedSizes(),
                                       subview.getMixedStrides());
    } else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op)) {
      view = memref::CollapseShapeOp::create(
          b, loc, view, collapse.getReassociationIndices());
    } else {
      auto expand = cast<memref::ExpandShapeOp>(op);
      view = memref::ExpandShapeOp::create(
          b, loc, MemRefType::Builder(expand.getResultType()).setElementType(elem),
          view, expand.getReassociationIndices(), expand.getMixedOutputShape());
    }
  }
  return view;
}

/// A float32 operand holding 16-bit values at its writer: an allocation
/// (reached from the operand through reshapes) that a parallel generic
/// earlier in the user's block writes whole, yielding `arith.extf` of a
/// bfloat16 or float16 value at it, with nothing writing it in between:
/// the front end's fusion of a 16-bit op's rounding with the next op's
/// widening (a bfloat16 LayerNorm or bias add before a linear). No 16-bit
/// buffer exists, so the writer must be made to write one.
struct RoundedWriter {
  linalg::GenericOp generic;
  unsigned init;                  // the allocation's init position
  Value alloc;                    // float32, identity layout
  SmallVector<Operation *> views; // alloc -> operand, in order
  Value rounded; // the 16-bit value the generic widens and yields at `init`
};

std::optional<RoundedWriter> roundedWriter(Value operand, Operation *user) {
  RoundedWriter w;
  Value v = throughReshapes(operand, w.views);
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!v.getDefiningOp<memref::AllocOp>() || !type.getLayout().isIdentity() ||
      !type.hasStaticShape() || !type.getElementType().isF32())
    return std::nullopt;
  w.alloc = v;
  for (OpOperand &use : v.getUses()) {
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!generic || !generic.isDpsInit(&use))
      continue;
    unsigned init = use.getOperandNumber() - generic.getNumDpsInputs();
    Block &body = generic.getRegion().front();
    auto ext = cast<linalg::YieldOp>(body.getTerminator())
                   .getOperand(init)
                   .getDefiningOp<arith::ExtFOp>();
    Type from = ext ? ext.getIn().getType() : Type();
    if (generic->getBlock() != user->getBlock() ||
        !generic->isBeforeInBlock(user) ||
        generic.getNumParallelLoops() != generic.getNumLoops() ||
        !generic.getMatchingIndexingMap(&use).isIdentity() || !from ||
        !(from.isBF16() || from.isF16()) ||
        !body.getArgument(use.getOperandNumber()).use_empty() ||
        llvm::is_contained(generic.getDpsInputs(), v) ||
        touchedBetween(generic, user, v, v, /*anyUse=*/false))
      return std::nullopt;
    w.generic = generic;
    w.init = init;
    w.rounded = ext.getIn();
    return w;
  }
  return std::nullopt;
}

/// Whether everything reading `v` is `user`, a dealloc, or a reshape of `v`
/// that only `user` reads (after `user`, `v` is dead).
static bool onlyFeeds(Value v, Operation *user, linalg::GenericOp writer) {
  return llvm::all_of(v.getUsers(), [&](Operation *u) {
    if (u == user || u == writer.getOperation() || isa<memref::DeallocOp>(u))
      return true;
    return isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(u) &&
           onlyFeeds(u->getResult(0), user, writer);
  });
}

/// Makes `w`'s writer also write (or, when only `user` reads the float32
/// buffer, write instead) a 16-bit allocation of its value before the
/// widening, and returns that allocation through the same reshapes as
/// `user`'s operand. Ops that die with `user` go to `deadAfter`.
Value narrowAtWriter(const RoundedWriter &w, Operation *user,
                     SmallVectorImpl<Operation *> &deadAfter) {
  linalg::GenericOp g = w.generic;
  Type narrowElem = w.rounded.getType();
  auto wideType = cast<MemRefType>(w.alloc.getType());
  auto alloc = w.alloc.getDefiningOp<memref::AllocOp>();
  OpBuilder b(g);
  Location loc = g.getLoc();
  Value narrow = memref::AllocOp::create(
      b, loc, MemRefType::get(wideType.getShape(), narrowElem),
      alloc.getAlignmentAttr());
  bool replace = onlyFeeds(w.alloc, user, g);
  SmallVector<Value> inits(g.getDpsInits());
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (replace) {
    inits[w.init] = narrow;
  } else {
    inits.push_back(narrow);
    maps.push_back(b.getMultiDimIdentityMap(wideType.getRank()));
  }
  auto rebuilt = linalg::GenericOp::create(
      b, loc, TypeRange{}, g.getDpsInputs(), inits, maps,
      g.getIteratorTypesArray());
  rebuilt->setDiscardableAttrs(g->getDiscardableAttrDictionary());
  rebuilt.getRegion().takeBody(g.getRegion());
  Block &body = rebuilt.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (replace) {
    body.getArgument(g.getNumDpsInputs() + w.init).setType(narrowElem);
    Operation *widening = yield->getOperand(w.init).getDefiningOp();
    yield->setOperand(w.init, w.rounded);
    if (widening && widening->use_empty())
      widening->erase();
    for (Operation *u : llvm::make_early_inc_range(w.alloc.getUsers()))
      if (isa<memref::DeallocOp>(u))
        u->setOperand(0, narrow);
    deadAfter.push_back(alloc);
  } else {
    body.addArgument(narrowElem, loc);
    yield->insertOperands(yield->getNumOperands(), w.rounded);
    OpBuilder after(user->getContext());
    after.setInsertionPointAfter(user);
    memref::DeallocOp::create(after, loc, narrow);
  }
  g->erase();
  return reshapedBefore(user, w.views, narrow);
}

/// Where a float32 operand's 16-bit values are: a 16-bit buffer whose
/// widening wrote the operand (through `views`, reshapes rebuilt over the
/// buffer), or a writer that rounds to 16 bits (`rounded`, narrowed).
struct NarrowSource {
  Value narrow;
  linalg::GenericOp widening;
  SmallVector<Operation *> views;
  std::optional<RoundedWriter> rounded;
  /// Or: the operand is a float32 buffer a `linalg.transpose` wrote whole
  /// from a slice (`views`) of `narrow`'s widening: a packed in-projection's
  /// q, k or v weight transposed for the product. The 16-bit slice is
  /// transposed instead.
  linalg::TransposeOp transpose;

  Type elem() const {
    return narrow ? cast<MemRefType>(narrow.getType()).getElementType()
                  : rounded->rounded.getType();
  }
};

/// The transpose writing all of the float32 allocation `t` before `user`
/// (nothing writing `t` in between) from a slice of a widening, as a
/// NarrowSource.
std::optional<NarrowSource> transposedWidening(Value t, Operation *user) {
  auto type = dyn_cast<MemRefType>(t.getType());
  if (!t.getDefiningOp<memref::AllocOp>() || !type.getLayout().isIdentity() ||
      !type.hasStaticShape() || !type.getElementType().isF32())
    return std::nullopt;
  for (Operation *writer : t.getUsers()) {
    auto transpose = dyn_cast<linalg::TransposeOp>(writer);
    if (!transpose || transpose.getInit() != t ||
        transpose->getBlock() != user->getBlock() ||
        !transpose->isBeforeInBlock(user) ||
        touchedBetween(transpose, user, t, t, /*anyUse=*/false))
      continue;
    NarrowSource s;
    Value x = throughViews<memref::SubViewOp, memref::CollapseShapeOp,
                           memref::ExpandShapeOp>(transpose.getInput(),
                                                  s.views);
    std::tie(s.narrow, s.widening) = widenedFrom(x, transpose);
    if (!s.narrow)
      return std::nullopt;
    s.transpose = transpose;
    return s;
  }
  return std::nullopt;
}

std::optional<NarrowSource> narrowSource(Value operand, Operation *user) {
  NarrowSource s;
  Value v = throughReshapes(operand, s.views);
  std::tie(s.narrow, s.widening) = widenedFrom(v, user);
  if (s.narrow)
    return s;
  if (s.views.empty())
    if (std::optional<NarrowSource> t = transposedWidening(v, user))
      return t;
  s.views.clear();
  if ((s.rounded = roundedWriter(operand, user)))
    return s;
  return std::nullopt;
}

/// The 16-bit transpose of `s` (transposedWidening): the slice of the
/// 16-bit buffer transposed where the float32 one was, into a new buffer
/// freed after `user`. The float32 transpose, its buffer and the slice go
/// to `deadAfter` when only `user` read that buffer.
Value transposeNarrow(const NarrowSource &s, Operation *user,
                      SmallVectorImpl<Operation *> &deadAfter) {
  linalg::TransposeOp old = s.transpose;
  Value wide = old.getInit();
  Value slice = reshapedBefore(old, s.views, s.narrow);
  OpBuilder b(old);
  Location loc = old.getLoc();
  auto alloc = wide.getDefiningOp<memref::AllocOp>();
  Value narrow = memref::AllocOp::create(
      b, loc,
      MemRefType::get(cast<MemRefType>(wide.getType()).getShape(),
                      cast<MemRefType>(s.narrow.getType()).getElementType()),
      alloc.getAlignmentAttr());
  linalg::TransposeOp::create(b, loc, slice, narrow, old.getPermutation());
  OpBuilder after(user->getContext());
  after.setInsertionPointAfter(user);
  memref::DeallocOp::create(after, loc, narrow);
  if (llvm::all_of(wide.getUsers(), [&](Operation *u) {
        return u == user || u == old.getOperation() ||
               isa<memref::DeallocOp>(u);
      })) {
    deadAfter.push_back(old);
    deadAfter.push_back(alloc);
    llvm::append_range(deadAfter, s.views);
  }
  return narrow;
}

/// The 16-bit operand `s` gives `user` (narrowing a rounded writer), with
/// the 16-bit buffer's frees that came before `user` moved after it (the
/// float32 widening was its last reader). Reshapes left dead after `user`
/// go to `deadAfter`.
Value materialize(const NarrowSource &s, Operation *user,
                  SmallVectorImpl<Operation *> &deadAfter) {
  if (s.transpose)
    return transposeNarrow(s, user, deadAfter);
  Value narrow = s.rounded ? narrowAtWriter(*s.rounded, user, deadAfter)
                           : reshapedBefore(user, s.views, s.narrow);
  llvm::append_range(deadAfter, s.rounded ? s.rounded->views : s.views);
  for (Operation *u : llvm::make_early_inc_range(
           gpu_fusion::rootOf(narrow).getUsers()))
    if (isa<memref::DeallocOp>(u) && u->getBlock() == user->getBlock() &&
        u->isBeforeInBlock(user))
      u->moveAfter(user);
  return narrow;
}

/// The narrow matmul `op` computes, if the tensor-core kernel can run it:
/// both operands widened from the same 16-bit type, rows of a multiple of
/// 8 elements (16-byte asynchronous copies), a float32 identity-layout C.
std::optional<NarrowMatmul> narrowMatmul(linalg::LinalgOp op, bool batched) {
  std::optional<NarrowSource> sa = narrowSource(op.getDpsInputs()[0], op);
  std::optional<NarrowSource> sb = narrowSource(op.getDpsInputs()[1], op);
  Value cm = op.getDpsInits()[0];
  if (!sa || !sb || sa->elem() != sb->elem() ||
      (sa->rounded && sb->rounded &&
       sa->rounded->generic == sb->rounded->generic))
    return std::nullopt;
  auto wideA = cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto cType = cast<MemRefType>(cm.getType());
  if (!cType.getLayout().isIdentity() || !wideA.getLayout().isIdentity() ||
      !cast<MemRefType>(op.getDpsInputs()[1].getType()).getLayout().isIdentity())
    return std::nullopt;
  // Every check comes before the operands are materialized: that rewrites
  // their writers, after which the matmul must go to the kernel.
  int64_t r = batched ? 1 : 0;
  int64_t k = wideA.getDimSize(r + 1), n = cType.getDimSize(r + 1);
  if (k % 8 || n % 8 || k == 0 || n == 0 || cType.getNumElements() == 0)
    return std::nullopt;
  SmallVector<Operation *> deadAfter;
  Value a = materialize(*sa, op, deadAfter);
  Value bm = materialize(*sb, op, deadAfter);
  linalg::GenericOp genA = sa->widening, genB = sb->widening;
  auto aType = cast<MemRefType>(a.getType());
  NarrowMatmul mm{a,
                  bm,
                  cm,
                  batched,
                  batched ? aType.getDimSize(0) : 1,
                  cType.getDimSize(r),
                  cType.getDimSize(r + 1),
                  aType.getDimSize(r + 1),
                  aType.getElementType(),
                  {genA},
                  /*zeroFill=*/{},
                  /*truncation=*/{},
                  /*narrowOut=*/{},
                  std::move(deadAfter)};
  if (genB != genA)
    mm.widenings.push_back(genB);
  mm.zeroFill = zeroFillBefore(cm, op);
  if (mm.zeroFill)
    if ((mm.truncation = truncationAfter(cm, op)))
      mm.narrowOut = mm.truncation.getDpsInits()[0];
  return mm;
}

/// Whether every element of the float32 buffer `wide`, as `user` reads
/// it, is exactly representable in TF32 (an 8-bit exponent and a 10-bit
/// mantissa), because it is a bfloat16 or float16 value widened: `wide` is
/// written whole, earlier in `user`'s block, by a parallel generic whose
/// yielded element is an `arith.extf` of a 16-bit float (the front end's
/// widening of a 16-bit operand, or a 16-bit op's epilogue fused with the
/// next op's widening), with nothing touching it in between; or it is a
/// padded copy of such a buffer, padded with a constant TF32 holds.
/// On such operands the TF32 tensor-core kernel is exact: its products
/// are exact and it accumulates in float32, as torch's 16-bit
/// convolutions and matmuls do.
bool exactInTf32(Value wide, Operation *user) {
  if (std::optional<PaddedInput> pad = paddedInput(wide, user)) {
    auto padding = dyn_cast<FloatAttr>(pad->padding);
    if (!padding || !padding.getType().isF32() ||
        (padding.getValue().bitcastToAPInt().getZExtValue() & 0x1FFF) != 0)
      return false;
    return exactInTf32(pad->source, pad->copy);
  }
  for (OpOperand &use : wide.getUses()) {
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!generic || !generic.isDpsInit(&use) ||
        generic->getBlock() != user->getBlock() ||
        !generic->isBeforeInBlock(user) ||
        generic.getNumParallelLoops() != generic.getNumLoops() ||
        !generic.getMatchingIndexingMap(&use).isIdentity())
      continue;
    auto yield = cast<linalg::YieldOp>(
        generic.getRegion().front().getTerminator());
    auto ext = yield
                   .getOperand(use.getOperandNumber() -
                               generic.getNumDpsInputs())
                   .getDefiningOp<arith::ExtFOp>();
    Type from = ext ? ext.getIn().getType() : Type();
    if (!from || !(from.isBF16() || from.isF16()))
      return false;
    return !touchedBetween(generic, user, wide, wide, /*anyUse=*/false);
  }
  return false;
}

/// Whether every index of `mm`'s tensor-core kernel fits 32 bits.
bool mmaFitsIn32Bits(const NarrowMatmul &mm) {
  auto big = [](int64_t v) { return v >= (int64_t(1) << 31); };
  return !big(mm.batch * mm.m * mm.k) && !big(mm.batch * mm.k * mm.n) &&
         !big(mm.batch * mm.m * mm.n);
}

/// The tensor-core kernel of `mm` in place of `op` (buildMmaKernel), stage
/// by stage. The stages share the configuration, the launch, the
/// workgroup buffers, this thread's indices, the copy pipeline's last
/// group and the accumulators as pairs of C; the wgmma, TMA and mma.sync
/// variants each add their own state below.
struct MmaKernel {
  MmaKernel(Operation *op, const NarrowMatmul &mm, const MmaConfig &config,
            StringRef kernelName)
      : mm(mm), config(config), kernelName(kernelName), wgmma(config.wgmma),
        // TMA loads from the operands' tensor maps (built on the host; the
        // operands' layouts must be plain row-major).
        tma(wgmma && config.tma &&
            cast<MemRefType>(mm.a.getType()).getLayout().isIdentity() &&
            cast<MemRefType>(mm.b.getType()).getLayout().isIdentity()),
        bm(config.bm), stages(config.stages), bk(config.bk), bn(config.bn),
        pad(wgmma ? 0 : 8), warpsN(bn / 64),
        threads(tma ? 384 : wgmma ? 256 : 2 * warpsN * 32), b(op),
        loc(op->getLoc()), ctx(b.getContext()), f32(b.getF32Type()),
        i32(b.getI32Type()), i64(b.getI64Type()),
        host{b, loc, b.getIndexType()}, gridX(ceilDiv(mm.n, bn)),
        gridY(ceilDiv(mm.m, bm)), kTiles(ceilDiv(mm.k, bk)),
        guardM(mm.m % bm), guardN(mm.n % bn), aStage(bm * (bk + pad)),
        bStage(bk * (bn + pad)), tileBytes(stages * (aStage + bStage) * 2),
        bytes(mmaWorkgroupBytes(config, tma)),
        workgroup(
            gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)),
        ib{b, loc, mmaFitsIn32Bits(mm) ? Type(i32) : b.getIndexType()},
        tokenType(nvgpu::DeviceAsyncTokenType::get(ctx)),
        ahead(wgmma ? stages - 2 : stages - 1),
        pairType(VectorType::get({2}, f32)) {}

  const NarrowMatmul &mm;
  const MmaConfig &config;
  StringRef kernelName;
  bool wgmma;
  bool tma;
  int64_t bm;
  int64_t stages, bk, bn;
  /// mma.sync: 2 x (bn / 64) warps of 64 x 64, rows padded by 8 elements.
  /// wgmma: two warpgroups of bm / 2 x bn, core-matrix layout (unpadded).
  int64_t pad;
  /// TMA: a producer warpgroup, then the two that multiply.
  int64_t warpsN, threads;
  OpBuilder b;
  Location loc;
  MLIRContext *ctx;
  Type f32, i32, i64;
  IndexBuilder host;
  int64_t gridX, gridY, kTiles;
  bool guardM, guardN;
  int64_t aStage, bStage; // elements
  /// The buffers' bytes (TMA's mbarriers follow them).
  int64_t tileBytes;
  int64_t bytes;
  gpu::AddressSpaceAttr workgroup;
  /// Index arithmetic in the kernel (32-bit where it fits).
  IndexBuilder ib;
  Type tokenType;
  /// Tiles copied ahead of the one multiplied: stages - 1, or stages - 2
  /// with wgmma, which leaves one step's MMAs running into the next (so the
  /// buffer they read is not the one overwritten next).
  int64_t ahead;
  VectorType pairType;

  /// TMA: the operands' tensor maps (host-side markers).
  Value mapA, mapB;
  gpu::LaunchOp launch;
  /// The dynamic workgroup memory, its aligned address (wgmma) and the
  /// bytes from it to the buffers.
  Value smem, smemAddress, shift;
  Value sharedA, sharedB;
  Value tid, batch, rowBase, colBase, lane, warp;
  /// The last asynchronous copy group issued (not with TMA).
  Value group;
  /// A lane's row in its 8-row group, and first column (2 (lane % 4)).
  Value g, q;
  /// The accumulators as pairs (row, column, two values) of C, filled in
  /// by the variant.
  struct Pair {
    Value row, col, first, second;
  };
  SmallVector<Pair> pairs;

  // wgmma only (setUpWgmma).
  int64_t mSub = 0;
  /// This thread's multiplying warpgroup, and the buffers' shared address.
  Value h, base;
  int64_t fieldsA = 0, fieldsB = 0;
  /// The byte offset of this warpgroup's half of A in a stage.
  Value aHalf;
  LLVM::LLVMStructType wgmmaAccType;
  SmallVector<Value> wgmmaInit;
  NVVM::WGMMATypes bf = NVVM::WGMMATypes::f16;

  // mma.sync only (buildMmaSync).
  static constexpr int64_t mTiles = 4, nTiles = 8; // of 16 x 8 per warp
  Value warpRow, warpCol, fragRow, fragCol;
  VectorType fragType;
  NVVM::MMATypes ptxType = NVVM::MMATypes::f16;
  LLVM::LLVMStructType mmaAccType;

  /// All stages, in order.
  void emit() {
    if (tma)
      createTensorMaps();
    createLaunch();
    createBuffers();
    threadIndices();
    // Prologue: tiles 0 .. ahead - 1 in flight.
    for (int64_t s = 0; !tma && s < ahead; ++s)
      group = copyTile(ib.c(s), ib.c(s));
    g = ib.div(lane, 4);
    q = ib.mul(ib.rem(lane, 4), ib.c(2));
    if (wgmma)
      buildWgmma();
    else
      buildMmaSync();
    // The copies issued past the last tile (zero-fills) complete before
    // exit.
    if (group)
      nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(0));
    storeAccumulators();
    gpu::TerminatorOp::create(b, loc);
  }

  /// TMA: the operands' tensor maps, as host-side markers (the kernel
  /// receives an i64) that traced-gpu-device-buffers counts as device uses
  /// and traced-gpu-tensor-maps replaces with the device address of a map
  /// the runtime builds. Boxes: a bm x bk tile of A; a bk x 64 slice of B
  /// (a 128-byte swizzled box is at most 64 16-bit elements wide), bn / 64
  /// of them per tile.
  void createTensorMaps() {
    auto marker = [&](Value buffer, ArrayRef<int64_t> box) {
      auto cast = UnrealizedConversionCastOp::create(b, loc, TypeRange{i64},
                                                     ValueRange{buffer});
      cast->setAttr(kTensorMapAttrName, b.getDenseI64ArrayAttr(box));
      return cast.getResult(0);
    };
    mapA = marker(mm.a, {bk, bm, 1});
    mapB = marker(mm.b, {64, bk, 1});
  }

  /// The launch, with `bytes` of dynamic workgroup memory.
  void createLaunch() {
    Value smemBytes = arith::ConstantOp::create(b, loc, i32,
                                                b.getI32IntegerAttr(bytes));
    launch = gpu::LaunchOp::create(
        b, loc, host.c(gridX), host.c(gridY), host.c(mm.batch),
        host.c(threads), host.c(1), host.c(1), smemBytes,
        /*asyncTokenType=*/nullptr, ValueRange{}, TypeRange{},
        /*privateAttributions=*/{},
        /*clusterSizeX=*/nullptr, /*clusterSizeY=*/nullptr,
        /*clusterSizeZ=*/nullptr, /*module=*/nullptr,
        FlatSymbolRefAttr::get(ctx, kernelName));
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
  }

  /// The A and B buffers in the dynamic workgroup memory. mma.sync:
  /// [stage][row][column] row-major tiles; wgmma: [stage][offset] in
  /// 128-byte swizzled atoms (see `slot`), from the first 1024-byte
  /// boundary.
  void createBuffers() {
    smem = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), workgroup));
    auto tileType = [&](int64_t rows, int64_t width) {
      SmallVector<int64_t> shape =
          wgmma ? SmallVector<int64_t>{stages, rows * width}
                : SmallVector<int64_t>{stages, rows, width + pad};
      return MemRefType::get(shape, mm.elem, MemRefLayoutAttrInterface(),
                             workgroup);
    };
    shift = host.c(0);
    if (wgmma) { // (1024 - address % 1024) % 1024
      smemAddress =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem);
      shift = arith::RemUIOp::create(
          b, loc,
          arith::SubIOp::create(
              b, loc, host.c(1024),
              arith::RemUIOp::create(b, loc, smemAddress, host.c(1024))),
          host.c(1024));
    }
    sharedA = memref::ViewOp::create(b, loc, tileType(bm, bk), smem, shift,
                                     ValueRange{});
    sharedB = memref::ViewOp::create(
        b, loc, tileType(bk, bn), smem,
        arith::AddIOp::create(b, loc, shift, host.c(stages * aStage * 2)),
        ValueRange{});
  }

  /// This thread's index, batch, block position, lane and warp.
  void threadIndices() {
    tid = ib.from(launch.getThreadIds().x);
    batch = ib.from(launch.getBlockIds().z);
    rowBase = ib.mul(ib.from(launch.getBlockIds().y), ib.c(bm));
    colBase = ib.mul(ib.from(launch.getBlockIds().x), ib.c(bn));
    lane = ib.rem(tid, 32);
    warp = ib.div(tid, 32);
  }

  /// The indices of A(i, j), B(i, j) or C(i, j) in this thread's batch.
  SmallVector<Value> global(Value i, Value j) {
    return mm.batched
               ? SmallVector<Value>{ib.idx(batch), ib.idx(i), ib.idx(j)}
               : SmallVector<Value>{ib.idx(i), ib.idx(j)};
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y).getResult();
  }
  Value minu(Value x, int64_t y) {
    return arith::MinUIOp::create(b, loc, x, ib.c(y)).getResult();
  }

  /// Copy e (of rows x width / 8) of a tile: its row, its column (a multiple
  /// of 8) and where its 16 bytes go; 8 consecutive copies are a row's 128
  /// contiguous bytes. mma.sync: row-major. wgmma: 128-byte swizzled atoms
  /// of 8 rows of 128 bytes, the 16-byte chunk c of row r stored at chunk
  /// c ^ (r % 8) (the hardware's Swizzle<3,4,3> on address bits 4-6 by bits
  /// 7-9). A (M x K, K-major, bk = 64): row m is 128 bytes at m * 128. B
  /// (K x N, N-major): 64 columns per atom; atom (n / 64, k / 8) at
  /// (n / 64 * bk / 8 + k / 8) * 1024 bytes.
  struct Slot {
    Value row, col;
    SmallVector<Value> shared; // indices after the stage
  };
  Value swizzled(Value r, Value chunk) { // elements within an atom row
    return ib.mul(arith::XOrIOp::create(b, loc, chunk, ib.rem(r, 8)),
                  ib.c(8));
  }
  Slot slot(Value e, int64_t width) {
    int64_t chunks = width / 8;
    Value r = ib.div(e, chunks), chunk = ib.rem(e, chunks);
    Value col = ib.mul(chunk, ib.c(8));
    if (!wgmma)
      return {r, col, {ib.idx(r), ib.idx(col)}};
    return {r, col, {ib.idx(ib.add(ib.mul(r, ib.c(64)), swizzled(r, chunk)))}};
  }
  Slot slotB(Value e) {
    Slot s = slot(e, bn);
    if (!wgmma)
      return s;
    Value chunk = ib.rem(e, bn / 8);
    Value atom = ib.add(ib.mul(ib.div(chunk, 8), ib.c(bk / 8)),
                        ib.div(s.row, 8));
    Value offset = ib.add(ib.add(ib.mul(atom, ib.c(512)),
                                 ib.mul(ib.rem(s.row, 8), ib.c(64))),
                          swizzled(s.row, ib.rem(chunk, 8)));
    return {s.row, s.col, {ib.idx(offset)}};
  }

  /// The asynchronous copies of K tile `kt` into buffer `stage`: 16 bytes
  /// (8 elements) per copy. A copy outside the operands (an edge, or a tile
  /// past the last) reads nothing and zero-fills (its source address
  /// clamped inside). Their group.
  Value copyTile(Value kt, Value stage) {
    Value kBase = ib.mul(kt, ib.c(bk));
    SmallVector<Value> tokens;
    auto copy = [&](Value shared, const Slot &s, Value src, Value gi,
                    Value gj, Value inside) {
      Value count = select(inside, host.c(8), host.c(0));
      SmallVector<Value> at{ib.idx(stage)};
      llvm::append_range(at, s.shared);
      tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
          b, loc, tokenType, shared, at, src, global(gi, gj),
          b.getIndexAttr(8), count, b.getUnitAttr()));
    };
    for (int64_t i = 0; i < bm * bk / 8 / threads; ++i) {
      Slot s = slot(ib.add(tid, ib.c(i * threads)), bk);
      Value gi = ib.add(rowBase, s.row), gk = ib.add(kBase, s.col);
      Value inside = ib.lt(gk, mm.k);
      if (guardM)
        inside = ib.land(inside, ib.lt(gi, mm.m));
      copy(sharedA, s, mm.a, guardM ? minu(gi, mm.m - 1) : gi,
           minu(gk, mm.k - 8), inside);
    }
    for (int64_t i = 0; i < bk * bn / 8 / threads; ++i) {
      Slot s = slotB(ib.add(tid, ib.c(i * threads)));
      Value gk = ib.add(kBase, s.row), gj = ib.add(colBase, s.col);
      Value inside = ib.lt(gk, mm.k);
      if (guardN)
        inside = ib.land(inside, ib.lt(gj, mm.n));
      copy(sharedB, s, mm.b, minu(gk, mm.k - 1),
           guardN ? minu(gj, mm.n - 8) : gj, inside);
    }
    return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokenType, tokens)
        .getResult();
  }

  /// Each step: tile kt has arrived (at most stages - 2 later groups
  /// pending) for this thread; the barrier makes it so for all, and makes
  /// sure every warp is done with the buffer the next copies overwrite.
  /// wgmma reads through the async proxy (hence the proxy fence), and the
  /// previous step's wgmmas, left running over the wait and the barrier,
  /// complete before it (they read the buffer about to be overwritten).
  /// Tile kt's buffer.
  Value stepStart(Value kt) {
    nvgpu::DeviceAsyncWaitOp::create(b, loc, group,
                                     b.getI32IntegerAttr(ahead - 1));
    if (wgmma) {
      NVVM::FenceProxyOp::create(
          b, loc,
          NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    }
    gpu::BarrierOp::create(b, loc);
    Value next = ib.add(kt, ib.c(ahead));
    copyTile(next, ib.rem(next, stages));
    return ib.rem(kt, stages);
  }

  /// The accumulators to C: added to C, or stored when C was zero-filled,
  /// or stored truncated to the 16-bit result when that is all C was for.
  /// (Empties `pairs`: the TMA kernel stores in its multiplying branch.)
  void storeAccumulators() {
    for (const Pair &p : pairs) {
      Value sum = vector::FromElementsOp::create(
          b, loc, pairType, ValueRange{p.first, p.second});
      auto update = [&](OpBuilder &nb, Location nl) {
        SmallVector<Value> at = global(p.row, p.col);
        if (mm.narrowOut) {
          Value narrow = arith::TruncFOp::create(
              nb, nl, VectorType::get({2}, mm.elem), sum);
          vector::StoreOp::create(nb, nl, narrow, mm.narrowOut, at,
                                  /*nontemporal=*/false, llvm::MaybeAlign(4));
          return;
        }
        Value total = sum;
        if (!mm.zeroFill) {
          Value old = vector::LoadOp::create(nb, nl, pairType, mm.c, at,
                                             /*nontemporal=*/false,
                                             llvm::MaybeAlign(8));
          total = arith::AddFOp::create(nb, nl, old, sum);
        }
        vector::StoreOp::create(nb, nl, total, mm.c, at,
                                /*nontemporal=*/false, llvm::MaybeAlign(8));
      };
      if (!guardM && !guardN) {
        update(b, loc);
        continue;
      }
      Value inside = ib.land(ib.lt(p.row, mm.m), ib.lt(p.col, mm.n));
      scf::IfOp::create(b, loc, inside, [&](OpBuilder &nb, Location nl) {
        update(nb, nl);
        scf::YieldOp::create(nb, nl);
      });
    }
    pairs.clear();
  }

  //===--------------------------------------------------------------------===//
  // wgmma
  //===--------------------------------------------------------------------===//

  Value c64(int64_t v) {
    return arith::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v))
        .getResult();
  }
  Value c32(int64_t v) {
    return arith::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v))
        .getResult();
  }
  Value toI32(Value v) {
    return v.getType() == i32
               ? v
               : arith::IndexCastUIOp::create(b, loc, i32, v).getResult();
  }
  Value toI64(Value v) {
    return arith::ExtUIOp::create(b, loc, i64, toI32(v)).getResult();
  }

  /// Warpgroup h computes rows h bm / 2 .. (h + 1) bm / 2 - 1 with
  /// bm / 128 wgmma m64n<bn>k16 (one per 64 rows) per 16 along K. The
  /// descriptors: the shared address / 16, the leading and stride byte
  /// offsets / 16, 128-byte swizzling (1 << 62). A (K-major): 8-row
  /// groups 1024 bytes apart (stride), the leading offset unused (1); a
  /// step of 16 along K is 32 bytes into the atom. B (N-major): atoms
  /// along N 128 bk bytes apart (leading), 8-row groups along K 1024
  /// (stride); 16 along K is two atoms on.
  void setUpWgmma() {
    mSub = bm / 128;
    // With TMA, warpgroup 0 loads and warpgroups 1 and 2 multiply.
    h = ib.div(tma ? ib.sub(tid, ib.c(128)) : tid, 128);
    base = arith::IndexCastUIOp::create(
        b, loc, i64, arith::AddIOp::create(b, loc, smemAddress, shift));
    int64_t swizzle128 = int64_t(1) << 62;
    fieldsA = (int64_t(1) << 16) | ((int64_t(1024) >> 4) << 32) | swizzle128;
    fieldsB = ((bk * 128 >> 4) << 16) | ((int64_t(1024) >> 4) << 32) |
              swizzle128;
    // bm / 2 rows of 128 bytes of A per warpgroup
    aHalf = toI32(ib.mul(h, ib.c(bm / 2 * 128)));
    wgmmaAccType = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(bn / 2, f32));
    wgmmaInit.assign(mSub, LLVM::ZeroOp::create(b, loc, wgmmaAccType));
    bf = mm.elem.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  }

  /// The matrix descriptor of the shared bytes at `byteOffset` from `base`.
  Value descriptor(Value byteOffset, int64_t fields) {
    Value address = arith::AddIOp::create(b, loc, base, byteOffset);
    Value start = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, address, c64(4)),
        c64(0x3FFF));
    return arith::OrIOp::create(b, loc, start, c64(fields)).getResult();
  }

  /// The MMAs of one K step on buffer `stage`, committed as one group.
  void multiply(Value stage, SmallVector<Value> &acc) {
    Value stage64 = toI64(stage);
    Value aStart = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, stage64, c64(aStage * 2)),
        toI64(aHalf));
    Value bStart = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, stage64, c64(bStage * 2)),
        c64(stages * aStage * 2));
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    for (int64_t kk = 0; kk < bk / 16; ++kk)
      for (int64_t sub = 0; sub < mSub; ++sub) {
        Value descA = descriptor(
            arith::AddIOp::create(b, loc, aStart,
                                  c64(kk * 32 + sub * 64 * 128)),
            fieldsA);
        Value descB = descriptor(
            arith::AddIOp::create(b, loc, bStart, c64(kk * 2 * 1024)),
            fieldsB);
        acc[sub] = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, wgmmaAccType, acc[sub], descA, descB,
            NVVM::MMAShapeAttr::get(ctx, 64, bn, 16),
            NVVM::WGMMATypesAttr::get(ctx, bf),
            NVVM::WGMMATypesAttr::get(ctx, bf),
            NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            // A K-major; B N-major (imm-trans-b = 1: the NVVM op
            // passes 1 - layoutB).
            NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
            NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
            /*satfinite=*/nullptr);
      }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  }

  /// The results of `loop` into `pairs`. Register i of a thread: column
  /// group i / 4 (8 columns), row g or g + 8 of its warp's 16, columns
  /// 2 (lane % 4) and the next.
  void collect(scf::ForOp loop) {
    for (int64_t sub = 0; sub < mSub; ++sub) {
      Value rows = ib.add(
          ib.add(rowBase, ib.add(ib.mul(h, ib.c(bm / 2)), ib.c(sub * 64))),
          ib.add(ib.mul(ib.rem(warp, 4), ib.c(16)), g));
      for (int64_t i = 0; i < bn / 2; i += 2) {
        auto value = [&](int64_t at) {
          return LLVM::ExtractValueOp::create(b, loc, loop.getResult(sub), at)
              .getResult();
        };
        pairs.push_back({ib.add(rows, ib.c((i % 4) / 2 * 8)),
                         ib.add(colBase, ib.add(q, ib.c(i / 4 * 8))),
                         value(i), value(i + 1)});
      }
    }
  }

  /// A loop over the K steps, its body built by `step(kt, acc)`.
  scf::ForOp kLoop(function_ref<void(Value, SmallVector<Value> &)> step) {
    return scf::ForOp::create(
        b, loc, host.c(0), host.c(kTiles), host.c(1), wgmmaInit,
        [&](OpBuilder &nb, Location nl, Value ktIndex, ValueRange iter) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          SmallVector<Value> acc(iter.begin(), iter.end());
          step(ib.from(ktIndex), acc);
          scf::YieldOp::create(b, loc, acc);
        });
  }

  /// The warpgroup MMA kernel: with the copy pipeline, or with TMA.
  void buildWgmma() {
    setUpWgmma();
    if (tma) {
      buildTmaPipeline();
      return;
    }
    auto loop = kLoop([&](Value kt, SmallVector<Value> &acc) {
      multiply(stepStart(kt), acc);
      // Left running: the next step waits for them.
    });
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    collect(loop);
  }

  //===--------------------------------------------------------------------===//
  // TMA: a producer warpgroup and mbarriers
  //===--------------------------------------------------------------------===//

  /// The shared::cta pointer `byteOffset` bytes into the buffers.
  Value shared(Value byteOffset) {
    auto ptr3 = LLVM::LLVMPointerType::get(ctx, 3);
    Value address = arith::AddIOp::create(b, loc, base, byteOffset);
    return LLVM::IntToPtrOp::create(b, loc, ptr3, address).getResult();
  }
  /// After the tiles: per buffer, a "full" mbarrier (the producer's arrival
  /// with the TMA loads' byte count; completes when the bytes have landed)
  /// and an "empty" one (the 256 multiplying threads arrive once their MMAs
  /// reading the buffer are done).
  Value mbarrier(Value stage, bool empty) {
    Value at = arith::AddIOp::create(b, loc, toI64(stage),
                                     c64(empty ? stages : 0));
    return shared(arith::AddIOp::create(
        b, loc, c64(tileBytes), arith::MulIOp::create(b, loc, at, c64(8))));
  }
  /// K tile `kt`'s buffer, and the parity of the mbarrier phase that tile
  /// completes (the rounds through the buffers, mod 2).
  std::pair<Value, Value> bufferOf(Value kt) {
    Value round = arith::DivUIOp::create(b, loc, kt, c32(stages));
    return std::pair<Value, Value>{
        arith::RemUIOp::create(b, loc, kt, c32(stages)),
        arith::AndIOp::create(b, loc, round, c32(1))};
  }
  /// `body()` under `cond`.
  void ifThen(Value cond, function_ref<void()> body) {
    scf::IfOp::create(b, loc, cond, [&](OpBuilder &nb, Location nl) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
      body();
      scf::YieldOp::create(b, loc);
    });
  }

  /// Thread 0 initializes the mbarriers; then the producer warpgroup
  /// loads the tiles while the other two multiply and store.
  void buildTmaPipeline() {
    Value first = ib.eq(tid, 0);
    ifThen(first, [&] {
      for (int64_t s = 0; s < stages; ++s) {
        NVVM::MBarrierInitOp::create(b, loc, mbarrier(c32(s), false), c32(1),
                                     Value());
        NVVM::MBarrierInitOp::create(b, loc, mbarrier(c32(s), true), c32(256),
                                     Value());
      }
      NVVM::FenceMbarrierInitOp::create(b, loc);
    });
    gpu::BarrierOp::create(b, loc);
    Value ticks = c32(10000000); // a suspend-time hint, nanoseconds
    auto cta = NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA);
    auto producer = scf::IfOp::create(b, loc, ib.lt(tid, 128),
                                      /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(producer.thenBlock());
    // The producer needs few registers; the MMAs' accumulators many.
    NVVM::SetMaxRegisterOp::create(
        b, loc, b.getI32IntegerAttr(40),
        NVVM::SetMaxRegisterActionAttr::get(
            ctx, NVVM::SetMaxRegisterAction::decrease));
    ifThen(first, [&] { produceTiles(ticks, cta); });
    b.setInsertionPointToStart(producer.elseBlock());
    NVVM::SetMaxRegisterOp::create(
        b, loc, b.getI32IntegerAttr(232),
        NVVM::SetMaxRegisterActionAttr::get(
            ctx, NVVM::SetMaxRegisterAction::increase));
    consumeTiles(ticks, cta);
  }

  /// The producer's loop: per K tile, once its buffer is free, the TMA
  /// loads of A's and B's tiles, arriving on the buffer's full mbarrier.
  void produceTiles(Value ticks, NVVM::MemScopeKindAttr cta) {
    int64_t txBytes = (bm * bk + bk * bn) * 2;
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Value tensorA = LLVM::IntToPtrOp::create(b, loc, ptr, mapA);
    Value tensorB = LLVM::IntToPtrOp::create(b, loc, ptr, mapB);
    scf::ForOp::create(
        b, loc, host.c(0), host.c(kTiles), host.c(1), ValueRange{},
        [&](OpBuilder &nb, Location nl, Value ktIndex, ValueRange) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          Value kt = toI32(ib.from(ktIndex));
          auto [stage, parity] = bufferOf(kt);
          // Buffer `stage` was released in the previous round (a
          // fresh mbarrier counts its "previous phase" as done).
          NVVM::MBarrierTryWaitParityOp::create(
              b, loc, mbarrier(stage, true),
              arith::XOrIOp::create(b, loc, parity, c32(1)), ticks);
          Value full = mbarrier(stage, false);
          NVVM::MBarrierArriveExpectTxOp::create(
              b, loc, Type(), full, c32(txBytes), cta, nullptr, Value());
          Value kBase = arith::MulIOp::create(b, loc, kt, c32(bk));
          auto load = [&](Value tensor, Value dst, SmallVector<Value> coords) {
            if (mm.batched)
              coords.push_back(toI32(batch));
            // (The shared::cluster address of this block's buffer.)
            dst = LLVM::AddrSpaceCastOp::create(
                b, loc, LLVM::LLVMPointerType::get(ctx, 7), dst);
            NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                b, loc, dst, tensor, coords, full, ValueRange{}, Value(),
                Value(), nullptr, nullptr, nullptr, Value());
          };
          Value stage64 = toI64(stage);
          load(tensorA,
               shared(arith::MulIOp::create(b, loc, stage64,
                                            c64(aStage * 2))),
               {kBase, toI32(rowBase)});
          for (int64_t j = 0; j < bn / 64; ++j)
            load(tensorB,
                 shared(arith::AddIOp::create(
                     b, loc,
                     arith::MulIOp::create(b, loc, stage64, c64(bStage * 2)),
                     c64(stages * aStage * 2 + j * bk * 128))),
                 {toI32(ib.add(colBase, ib.c(j * 64))), kBase});
          scf::YieldOp::create(b, loc);
        });
  }

  /// The multiplying warpgroups' loop: per K tile, once it has landed,
  /// the MMAs, then the previous step's buffer released; then C.
  void consumeTiles(Value ticks, NVVM::MemScopeKindAttr cta) {
    auto loop = kLoop([&](Value ktValue, SmallVector<Value> &acc) {
      Value kt = toI32(ktValue);
      auto [stage, parity] = bufferOf(kt);
      NVVM::MBarrierTryWaitParityOp::create(b, loc, mbarrier(stage, false),
                                            parity, ticks);
      multiply(stage, acc);
      // The previous step's MMAs are done: their buffer goes back.
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
      ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, kt,
                                   c32(0)),
             [&] {
               Value previous = arith::RemUIOp::create(
                   b, loc, arith::AddIOp::create(b, loc, kt, c32(stages - 1)),
                   c32(stages));
               NVVM::MBarrierArriveOp::create(
                   b, loc, Type(), mbarrier(previous, true), Value(), cta);
             });
    });
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    collect(loop);
    storeAccumulators();
  }

  //===--------------------------------------------------------------------===//
  // mma.sync
  //===--------------------------------------------------------------------===//

  /// An ldmatrix's 4 registers as mma.sync takes them: vector<2xf16>, or
  /// bfloat16 pairs as i32.
  SmallVector<Value, 4> regs(Value frag) {
    SmallVector<Value, 4> out;
    for (int64_t r = 0; r < 4; ++r) {
      Value pair = vector::ExtractOp::create(b, loc, frag, r);
      if (mm.elem.isF16()) {
        out.push_back(pair);
        continue;
      }
      Value word =
          vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
      out.push_back(vector::ExtractOp::create(b, loc, word, 0));
    }
    return out;
  }

  /// The mma.sync kernel: 2 x (bn / 64) warps of 64 x 64, each 4 x 8 tiles
  /// of 16 x 8, fragments read with ldmatrix.
  void buildMmaSync() {
    warpRow = ib.mul(ib.div(warp, warpsN), ib.c(64));
    warpCol = ib.mul(ib.rem(warp, warpsN), ib.c(64));
    // A lane's row of an ldmatrix x4 (lanes 0-15: rows 0-15 of the first
    // 8 columns, lanes 16-31: of the next 8).
    fragRow = ib.rem(lane, 16);
    fragCol = ib.mul(ib.div(lane, 16), ib.c(8));
    fragType = VectorType::get({4, 2}, mm.elem);
    ptxType = mm.elem.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    mmaAccType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    SmallVector<Value> init(mTiles * nTiles * 4, zero);
    auto loop = scf::ForOp::create(
        b, loc, host.c(0), host.c(kTiles), host.c(1), init,
        [&](OpBuilder &nb, Location nl, Value ktIndex, ValueRange iter) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          Value stage = ib.idx(stepStart(ib.from(ktIndex)));
          SmallVector<Value> acc(iter.begin(), iter.end());
          for (int64_t kk = 0; kk < bk; kk += 16)
            multiplySync(stage, kk, acc);
          scf::YieldOp::create(b, loc, acc);
        });
    // A lane holds rows g and g + 8, columns 2 (lane % 4) and the next,
    // of each 16 x 8 tile.
    for (int64_t mi = 0; mi < mTiles; ++mi)
      for (int64_t ni = 0; ni < nTiles; ++ni)
        for (int64_t half = 0; half < 2; ++half) {
          int64_t at = (mi * nTiles + ni) * 4 + half * 2;
          pairs.push_back(
              {ib.add(ib.add(rowBase, warpRow),
                      ib.add(g, ib.c(mi * 16 + half * 8))),
               ib.add(ib.add(colBase, warpCol), ib.add(q, ib.c(ni * 8))),
               loop.getResult(at), loop.getResult(at + 1)});
        }
  }

  /// The mma.syncs of K offset `kk` (16 along K) on buffer `stage` into
  /// the accumulators `acc`.
  void multiplySync(Value stage, int64_t kk, SmallVector<Value> &acc) {
    SmallVector<SmallVector<Value, 4>> as, bs;
    for (int64_t mi = 0; mi < mTiles; ++mi) {
      Value row = ib.add(warpRow, ib.add(fragRow, ib.c(mi * 16)));
      Value col = ib.add(fragCol, ib.c(kk));
      as.push_back(regs(nvgpu::LdMatrixOp::create(
          b, loc, fragType, sharedA,
          ValueRange{stage, ib.idx(row), ib.idx(col)}, b.getBoolAttr(false),
          b.getI32IntegerAttr(4))));
    }
    // Transposed: registers 0-1 are the B fragment of columns
    // p*16 .. +7, registers 2-3 of the next 8.
    for (int64_t p = 0; p < nTiles / 2; ++p) {
      Value row = ib.add(fragRow, ib.c(kk));
      Value col = ib.add(warpCol, ib.add(fragCol, ib.c(p * 16)));
      bs.push_back(regs(nvgpu::LdMatrixOp::create(
          b, loc, fragType, sharedB,
          ValueRange{stage, ib.idx(row), ib.idx(col)}, b.getBoolAttr(true),
          b.getI32IntegerAttr(4))));
    }
    for (int64_t mi = 0; mi < mTiles; ++mi)
      for (int64_t ni = 0; ni < nTiles; ++ni) {
        ArrayRef<Value> bReg = bs[ni / 2];
        Value *c = &acc[(mi * nTiles + ni) * 4];
        Value d = NVVM::MmaOp::create(
            b, loc, mmaAccType, as[mi],
            ValueRange{bReg[(ni % 2) * 2], bReg[(ni % 2) * 2 + 1]},
            ValueRange{c[0], c[1], c[2], c[3]}, {16, 8, 16}, std::nullopt,
            std::nullopt, std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t e = 0; e < 4; ++e)
          c[e] = LLVM::ExtractValueOp::create(b, loc, d, e);
      }
  }
};

/// C += A B on tensor cores (`mma.sync.m16n8k16`, float32 accumulation) in
/// place of `op`. A block of 4 warps computes a 128 x 128 tile of C, each
/// warp 64 x 64 (4 x 8 tiles of 16 x 8). The A and B tiles (128 x 32 and
/// 32 x 128) move from global to workgroup memory with asynchronous copies
/// (`cp.async`, 16 bytes each) through `stages` buffers, so up to
/// stages - 1 tiles are in flight while one is multiplied; warps read their
/// fragments with `ldmatrix` (B transposed on the way). Rows are padded by
/// 8 elements: the 8 rows an `ldmatrix` reads fall in distinct banks.
void buildMmaKernel(Operation *op, const NarrowMatmul &mm,
                    const MmaConfig &config, StringRef kernelName) {
  MmaKernel(op, mm, config, kernelName).emit();
}

/// Erases what the tensor-core kernel made dead: the widening generics
/// whose float32 buffers nothing else reads, the zero fill of C, and C
/// itself when the kernel wrote the truncated result (with the
/// allocations).
void eraseAbsorbed(const NarrowMatmul &mm) {
  if (mm.zeroFill)
    mm.zeroFill->erase();
  if (mm.truncation) {
    mm.truncation->erase();
    auto alloc = mm.c.getDefiningOp<memref::AllocOp>();
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      user->erase();
    alloc->erase();
  }
  // (A reshape before its source: erase until nothing more goes.)
  SmallVector<Operation *> dead(mm.deadAfter);
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *&op : dead)
      if (op && llvm::all_of(op->getUsers(), [](Operation *u) {
            return isa<memref::DeallocOp>(u);
          })) {
        for (Operation *u : llvm::make_early_inc_range(op->getUsers()))
          u->erase();
        op->erase();
        op = nullptr;
        erased = true;
      }
  }
  ArrayRef<linalg::GenericOp> widenings = mm.widenings;
  for (linalg::GenericOp generic : widenings) {
    if (!generic || !generic->getBlock())
      continue;
    Value wide = generic.getDpsInits()[0];
    if (llvm::any_of(wide.getUsers(), [&](Operation *user) {
          return user != generic && !isa<memref::DeallocOp>(user);
        }))
      continue;
    generic->erase();
    if (auto alloc = wide.getDefiningOp<memref::AllocOp>()) {
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        user->erase();
      alloc->erase();
    }
  }
}

bool allF32(Operation *op) {
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.getElementType().isF32() || !type.hasStaticShape())
      return false;
  }
  return true;
}

int64_t elements(Value v) {
  return cast<MemRefType>(v.getType()).getNumElements();
}

/// The contraction of a matmul or batch matmul with the default maps.
std::optional<Contraction> matmulContraction(linalg::LinalgOp op,
                                             bool batched) {
  Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1],
        cm = op.getDpsInits()[0];
  auto aType = cast<MemRefType>(a.getType());
  auto cType = cast<MemRefType>(cm.getType());
  int64_t r = batched ? 1 : 0;
  Contraction c;
  c.batch = batched ? aType.getDimSize(0) : 1;
  c.m = cType.getDimSize(r);
  c.n = cType.getDimSize(r + 1);
  c.k = aType.getDimSize(r + 1);
  c.maxElements = std::max({elements(a), elements(bm), elements(cm)});
  auto indices = [batched](IndexBuilder &ib, Value bi, Value i, Value j) {
    return batched ? SmallVector<Value>{ib.idx(bi), ib.idx(i), ib.idx(j)}
                   : SmallVector<Value>{ib.idx(i), ib.idx(j)};
  };
  c.loadA = [=](IndexBuilder &ib, Value bi, Value i, Value j) {
    return memref::LoadOp::create(ib.b, ib.loc, a, indices(ib, bi, i, j))
        .getResult();
  };
  c.loadB = [=](IndexBuilder &ib, Value bi, Value i, Value j) {
    return memref::LoadOp::create(ib.b, ib.loc, bm, indices(ib, bi, i, j))
        .getResult();
  };
  c.addressC = [=](IndexBuilder &ib, Value bi, Value i, Value j) {
    return std::make_pair(cm, indices(ib, bi, i, j));
  };
  // Rows of identity-layout buffers (device allocations, 512-byte aligned)
  // whose length is a multiple of 4 start 16-byte aligned.
  auto vectorLoad = [=](Value memref) -> Contraction::Load {
    auto type = cast<MemRefType>(memref.getType());
    if (!type.getLayout().isIdentity() || type.getShape().back() % 4)
      return nullptr;
    return [=](IndexBuilder &ib, Value bi, Value i, Value j) {
      return vector::LoadOp::create(
                 ib.b, ib.loc, VectorType::get({4}, ib.b.getF32Type()), memref,
                 indices(ib, bi, i, j), /*nontemporal=*/false,
                 llvm::MaybeAlign(16))
          .getResult();
    };
  };
  c.loadA4 = vectorLoad(a);
  c.loadB4 = vectorLoad(bm);
  return c;
}

/// The implicit GEMM of an NCHW/FCHW convolution: M = F, N = batch x OH x
/// OW, K = C x KH x KW. With `pad`, the input is a padded copy the loads
/// read through: the source where it lies, the padding elsewhere.
std::optional<Contraction> convContraction(linalg::Conv2DNchwFchwOp op,
                                           const PaddedInput *pad) {
  Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1],
        output = op.getDpsInits()[0];
  auto inType = cast<MemRefType>(input.getType());
  auto fType = cast<MemRefType>(filter.getType());
  auto oType = cast<MemRefType>(output.getType());
  auto strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
  int64_t kh = fType.getDimSize(2), kw = fType.getDimSize(3);
  int64_t oh = oType.getDimSize(2), ow = oType.getDimSize(3);
  Contraction c;
  c.batch = 1;
  c.m = fType.getDimSize(0);
  c.n = oType.getDimSize(0) * oh * ow;
  c.k = fType.getDimSize(1) * kh * kw;
  c.maxElements =
      std::max({elements(input), elements(filter), elements(output)});
  // The input element at (image, channel, y, x) of the padded buffer.
  std::function<Value(IndexBuilder &, SmallVector<Value>)> loadInput =
      [=](IndexBuilder &ib, SmallVector<Value> at) {
        SmallVector<Value> indices;
        for (Value v : at)
          indices.push_back(ib.idx(v));
        return memref::LoadOp::create(ib.b, ib.loc, input, indices).getResult();
      };
  if (pad) {
    Value source = pad->source;
    auto sourceShape =
        llvm::to_vector(cast<MemRefType>(source.getType()).getShape());
    SmallVector<int64_t> offsets = pad->offsets;
    TypedAttr padding = pad->padding;
    loadInput = [=](IndexBuilder &ib, SmallVector<Value> at) -> Value {
      // Unsigned compares of the shifted indices check both sides.
      Value inside;
      for (int64_t d = 0; d < 4; ++d) {
        if (!offsets[d] && sourceShape[d] == inType.getDimSize(d))
          continue;
        if (offsets[d])
          at[d] = ib.sub(at[d], ib.c(offsets[d]));
        Value in = ib.lt(at[d], sourceShape[d]);
        inside = inside ? ib.land(inside, in) : in;
      }
      auto load = [&](OpBuilder &nb, Location nl) -> Value {
        SmallVector<Value> indices;
        for (Value v : at)
          indices.push_back(IndexBuilder{nb, nl, ib.type}.idx(v));
        return memref::LoadOp::create(nb, nl, source, indices);
      };
      if (!inside)
        return load(ib.b, ib.loc);
      return scf::IfOp::create(
                 ib.b, ib.loc, inside,
                 [&](OpBuilder &nb, Location nl) {
                   scf::YieldOp::create(nb, nl, load(nb, nl));
                 },
                 [&](OpBuilder &nb, Location nl) {
                   Value value = arith::ConstantOp::create(nb, nl, padding);
                   scf::YieldOp::create(nb, nl, value);
                 })
          .getResult(0);
    };
  }
  c.loadA = [=](IndexBuilder &ib, Value, Value f, Value k) {
    Value ch = ib.div(k, kh * kw), r = ib.rem(k, kh * kw);
    return memref::LoadOp::create(
               ib.b, ib.loc, filter,
               ValueRange{ib.idx(f), ib.idx(ch), ib.idx(ib.div(r, kw)),
                          ib.idx(ib.rem(r, kw))})
        .getResult();
  };
  c.loadB = [=](IndexBuilder &ib, Value, Value k, Value n) {
    Value ch = ib.div(k, kh * kw), r = ib.rem(k, kh * kw);
    Value y = ib.div(r, kw), x = ib.rem(r, kw);
    Value image = ib.div(n, oh * ow), p = ib.rem(n, oh * ow);
    Value oy = ib.div(p, ow), ox = ib.rem(p, ow);
    Value iy = ib.add(ib.mul(oy, ib.c(strides[0])), ib.mul(y, ib.c(dilations[0])));
    Value ix = ib.add(ib.mul(ox, ib.c(strides[1])), ib.mul(x, ib.c(dilations[1])));
    return loadInput(ib, {image, ch, iy, ix});
  };
  c.addressC = [=](IndexBuilder &ib, Value, Value f, Value n) {
    Value image = ib.div(n, oh * ow), p = ib.rem(n, oh * ow);
    return std::make_pair(
        output, SmallVector<Value>{ib.idx(image), ib.idx(f),
                                   ib.idx(ib.div(p, ow)),
                                   ib.idx(ib.rem(p, ow))});
  };
  return c;
}

bool hasDefaultMaps(linalg::LinalgOp op, bool batched) {
  MLIRContext *ctx = op->getContext();
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  SmallVector<AffineMap> expected =
      batched ? SmallVector<AffineMap>{AffineMap::get(4, 0, {d0, d1, d3}, ctx),
                                       AffineMap::get(4, 0, {d0, d3, d2}, ctx),
                                       AffineMap::get(4, 0, {d0, d1, d2}, ctx)}
              : SmallVector<AffineMap>{AffineMap::get(3, 0, {d0, d2}, ctx),
                                       AffineMap::get(3, 0, {d2, d1}, ctx),
                                       AffineMap::get(3, 0, {d0, d1}, ctx)};
  return op.getIndexingMapsArray() == expected;
}

struct TileContractionsPass
    : traced::impl::TracedGpuTileContractionsBase<TileContractionsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (kStep != 8 && kStep != 16) {
      getOperation().emitError() << "traced-gpu-tile-contractions: k-step "
                                 << static_cast<int64_t>(kStep) << " (8 or 16)";
      return signalPassFailure();
    }
    // The tensor-core kernels' shape; 0 picks what measured best on an
    // H200 (docs/gpu.md): mma.sync 128 x 128 x 32, wgmma 256 x 128 x 64,
    // both with 4 buffers.
    MmaConfig config{mmaStages ? mmaStages : 4,
                     mmaKStep ? mmaKStep : (wgmma ? 64 : 32),
                     mmaBlockN ? mmaBlockN : 128, wgmma,
                     mmaBlockM ? mmaBlockM : (wgmma ? 256 : 128), tma};
    auto fail = [&](const Twine &message) {
      getOperation().emitError()
          << "traced-gpu-tile-contractions: " << message;
      signalPassFailure();
    };
    if (config.stages < 2 || config.stages > 6)
      return fail("mma-stages " + Twine(config.stages) + " (2 to 6)");
    if (wgmma && config.stages < 3)
      return fail("wgmma needs mma-stages of 3 or more (one step's MMAs run "
                  "into the next)");
    if ((config.bk != 32 && config.bk != 64) ||
        (config.bn != 128 && config.bn != 256))
      return fail("mma-k-step " + Twine(config.bk) + " (32 or 64), " +
                  "mma-block-n " + Twine(config.bn) + " (128 or 256)");
    if (wgmma && config.bk != 64)
      return fail("wgmma needs mma-k-step=64 (its tiles' rows are 128-byte "
                  "swizzle atoms)");
    if (config.bm != 128 && (config.bm != 256 || !wgmma))
      return fail("mma-block-m " + Twine(config.bm) + " (128, or 256 with "
                  "wgmma)");
    if (wgmma && config.bm == 256 && config.bn == 256)
      return fail("mma-block-m=256 with mma-block-n=256 needs 256 "
                  "accumulator registers a thread");
    // The workgroup memory a block may have (227 KiB on sm_90).
    int64_t bytes = mmaWorkgroupBytes(config, wgmma && tma);
    if (tensorCores && bytes > 227 * 1024)
      return fail("the tensor-core kernels' " + Twine(config.stages) +
                  " buffers take " + Twine(bytes) +
                  " bytes of workgroup memory (at most 232448)");
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp,
              linalg::Conv2DNchwFchwOp>(op) &&
          allF32(op) && !op->getParentOfType<gpu::LaunchOp>())
        ops.push_back(op);
    });
    // The kernels are named for what they compute (gpu-kernel-outlining
    // takes the name): <function>_gemm_<n>, <function>_conv_<n>.
    StringRef funcName = getOperation().getSymName();
    unsigned counter = 0;
    for (Operation *op : ops) {
      std::optional<PaddedInput> pad;
      if (fuse && isa<linalg::Conv2DNchwFchwOp>(op))
        pad = paddedInput(op->getOperand(0), op);
      std::optional<Contraction> c = contractionOf(op, pad);
      if (!c || c->m == 0 || c->n == 0 || c->batch == 0)
        continue;
      if (c->k == 0) { // C += nothing
        op->erase();
        continue;
      }
      bool conv = isa<linalg::Conv2DNchwFchwOp>(op);
      if (!conv && tensorCores) {
        bool batched = isa<linalg::BatchMatmulOp>(op);
        if (std::optional<NarrowMatmul> mm =
                narrowMatmul(cast<linalg::LinalgOp>(op), batched)) {
          buildMmaKernel(op, *mm, config,
                         (funcName + "_mma_" + Twine(counter++)).str());
          op->erase();
          eraseAbsorbed(*mm);
          continue;
        }
      }
      std::string name = (funcName + (conv ? "_conv_" : "_gemm_") +
                           Twine(counter++))
                             .str();
      // Convolutions keep K step 16: their gathers need more registers.
      int64_t largeKStep = conv ? 16 : kStep;
      Absorbed absorbed;
      if (fuse) {
        Value cm = cast<linalg::LinalgOp>(op).getDpsInits()[0];
        SmallVector<Value> reads(op->getOperands());
        if (pad)
          reads.push_back(pad->source);
        absorbed.zeroFill = zeroFillBefore(cm, op);
        Tile tile = chooseTile(*c, largeKStep);
        bool split = splitK(*c, tile).first > 1;
        // With K split, the kernel adds into C and, unless
        // `split-k-epilogues`, the epilogue stays a kernel of its own: on an
        // H200 the last block computing it made the kernels twice as slow
        // as the split kernel and a separate epilogue (docs/gpu.md).
        if (!split || splitKEpilogues)
          absorbed.epilogue =
              epilogueAfter(cm, op, absorbed.zeroFill, reads);
        if (absorbed.epilogue && split) {
          appendCounters(absorbed, ceilDiv(c->n, tile.bn) *
                                       ceilDiv(c->m, tile.bm) * c->batch);
          c = contractionOf(op, pad); // C is now a view
          c->maxElements = std::max(
              c->maxElements,
              cast<MemRefType>(absorbed.counters.getType()).getNumElements());
        }
      }
      // TF32 tensor cores when allowed (`tf32`), and when they are exact:
      // both operands 16-bit floats widened (a 16-bit convolution, or a
      // matmul the tensor-core kernel above does not take).
      bool onTensorCores =
          tf32 || (tensorCores && exactInTf32(op->getOperand(0), op) &&
                   exactInTf32(op->getOperand(1), op));
      buildKernel(op, *c, contiguous, largeKStep, onTensorCores, name,
                  absorbed);
      if (pad)
        replacePaddedRead(*pad, op);
      else
        op->erase();
      if (absorbed.counters)
        absorbed.epilogue->generic->erase(); // C and its fill stay
      else if (absorbed.epilogue)
        absorbEpilogue(*absorbed.epilogue); // C's zero fill with it
      else if (absorbed.zeroFill)
        absorbed.zeroFill->erase();
    }
  }

  /// The contraction `op` computes, if a tiled kernel can (through `pad`,
  /// a convolution's padded input).
  std::optional<Contraction>
  contractionOf(Operation *op, const std::optional<PaddedInput> &pad) {
    if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
      return convContraction(conv, pad ? &*pad : nullptr);
    bool batched = isa<linalg::BatchMatmulOp>(op);
    if (!hasDefaultMaps(cast<linalg::LinalgOp>(op), batched))
      return std::nullopt;
    return matmulContraction(cast<linalg::LinalgOp>(op), batched);
  }

  /// Reallocates the epilogue's C (an allocation) with `count` floats after
  /// it for the split-K counters: C becomes a view of the new allocation's
  /// start, and C's zero fill and frees take the whole allocation.
  static void appendCounters(Absorbed &absorbed, int64_t count) {
    Value c = absorbed.epilogue->c;
    auto alloc = c.getDefiningOp<memref::AllocOp>();
    auto type = cast<MemRefType>(c.getType());
    OpBuilder b(alloc);
    Location loc = alloc.getLoc();
    auto flatType =
        MemRefType::get({type.getNumElements() + count}, type.getElementType());
    Value flat =
        memref::AllocOp::create(b, loc, flatType, alloc.getAlignmentAttr());
    Value view = memref::ReinterpretCastOp::create(
        b, loc, type, flat, /*offset=*/0, type.getShape(),
        computeStrides(type.getShape()));
    for (OpOperand &use : llvm::make_early_inc_range(c.getUses())) {
      Operation *user = use.getOwner();
      use.set(isa<memref::DeallocOp>(user) ||
                      user == absorbed.zeroFill.getOperation()
                  ? flat
                  : view);
    }
    alloc.erase();
    absorbed.epilogue->c = view;
    absorbed.counters = flat;
  }
};

} // namespace

namespace {
/// 16-byte alignment for every kernel's workgroup buffers (the lowering
/// makes them globals aligned as `llvm.align` says, else to 4 bytes), so
/// that the tiled kernels' vector loads of shared tiles are aligned.
struct AlignWorkgroupPass
    : traced::impl::TracedGpuAlignWorkgroupBase<AlignWorkgroupPass> {
  using Base::Base;
  void runOnOperation() override {
    mlir::Builder b(&getContext());
    getOperation().walk([&](gpu::GPUFuncOp func) {
      for (unsigned i = 0, e = func.getNumWorkgroupAttributions(); i < e; ++i)
        func.setWorkgroupAttributionAttr(i, "llvm.align",
                                         b.getI64IntegerAttr(16));
      if (minBlocks > 0 && func.getName().contains("_gemm_"))
        func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(minBlocks));
    });
  }
};
} // namespace
