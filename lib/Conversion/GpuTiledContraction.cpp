//===- GpuTiledContraction.cpp - traced-gpu-tile-contractions -------------===//
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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <functional>

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDGPUTILECONTRACTIONS
#define GEN_PASS_DEF_TRACEDGPUALIGNWORKGROUP
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {

/// C(b, m, n) += sum_k A(b, m, k) * B(b, k, n), for b < batch.
struct Contraction {
  int64_t batch, m, n, k;
  using Load = std::function<Value(OpBuilder &, Location, Value b, Value i,
                                   Value j)>;
  using Store = std::function<void(OpBuilder &, Location, Value v, Value b,
                                   Value i, Value j)>;
  Load loadA, loadB, loadC;
  /// The address of C(b, m, n): its memref and indices (for atomic adds).
  std::function<std::pair<Value, SmallVector<Value>>(OpBuilder &, Location,
                                                     Value, Value, Value)>
      addressC;
};

/// A block's tile: BM x BN of C, BK along K per step, TM x TN per thread.
struct Tile {
  int64_t bm, bn, bk, tm, tn;
  int64_t threads() const { return (bm / tm) * (bn / tn); }
};

struct IndexBuilder {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
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
  Value land(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The tiled kernel for `c` in place of `op`.
void buildKernel(Operation *op, const Contraction &c, bool contiguous) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  IndexBuilder ib{b, loc};
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();

  Tile t = (c.m >= 128 && c.n >= 128) ? Tile{128, 128, 8, 8, 8}
                                      : Tile{64, 64, 16, 4, 4};
  int64_t threads = t.threads();
  int64_t gridX = ceilDiv(c.n, t.bn), gridY = ceilDiv(c.m, t.bm);
  int64_t kTiles = ceilDiv(c.k, t.bk);
  // Split K over grid z when the tiles would leave most of the GPU idle
  // (aiming at two blocks per multiprocessor of a 132-SM H100/H200), each
  // split keeping at least 8 steps.
  int64_t blocks = gridX * gridY * c.batch;
  int64_t split = std::max<int64_t>(
      1, std::min(ceilDiv(264, blocks), kTiles / 8));
  int64_t tilesPerSplit = ceilDiv(kTiles, split);
  split = ceilDiv(kTiles, tilesPerSplit);

  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  // A is stored transposed ([k][m]); 4 more columns keep the stores of a
  // warp (8 k values of one m) in distinct banks and rows 16-byte aligned.
  auto tileA = MemRefType::get({t.bk, t.bm + 4}, f32,
                               MemRefLayoutAttrInterface(), workgroup);
  auto tileB = MemRefType::get({t.bk, t.bn}, f32, MemRefLayoutAttrInterface(),
                               workgroup);
  auto launch = gpu::LaunchOp::create(
      b, loc, ib.c(gridX), ib.c(gridY), ib.c(c.batch * split), ib.c(threads),
      ib.c(1), ib.c(1), /*dynamicSharedMemorySize=*/nullptr,
      /*asyncTokenType=*/nullptr, ValueRange{}, TypeRange{tileA, tileB});
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  Value sharedA = launch.getWorkgroupAttributions()[0];
  Value sharedB = launch.getWorkgroupAttributions()[1];
  Value tid = launch.getThreadIds().x;
  Value z = launch.getBlockIds().z;
  Value batch = ib.div(z, split);
  Value part = ib.rem(z, split);
  Value rowBase = ib.mul(launch.getBlockIds().y, ib.c(t.bm));
  Value colBase = ib.mul(launch.getBlockIds().x, ib.c(t.bn));
  int64_t rowThreads = t.bm / t.tm, colThreads = t.bn / t.tn;
  Value tx = ib.rem(tid, colThreads), ty = ib.div(tid, colThreads);
  // The tile row (column) of a thread's i-th row (column): runs of 4, one
  // run per 4 x threads, or one by one interleaved with the other threads.
  auto position = [&](Value thread, int64_t i, int64_t count,
                      int64_t perThread) -> Value {
    if (contiguous && perThread % 4 == 0)
      return ib.add(ib.mul(thread, ib.c(4)),
                    ib.c((i / 4) * count * 4 + i % 4));
    return ib.add(thread, ib.c(i * count));
  };
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));

  // Loads `count` elements of a tile cooperatively: element e = tid + i *
  // threads is (e / width, e % width) of the rows x width tile.
  auto loadTile = [&](Value kBase, int64_t rows, int64_t width, bool isA) {
    int64_t count = rows * width / threads;
    for (int64_t i = 0; i < count; ++i) {
      Value e = ib.add(tid, ib.c(i * threads));
      Value r = ib.div(e, width), col = ib.rem(e, width);
      // A: rows of M (width BK); B: rows of K (width BN).
      Value gi = isA ? ib.add(rowBase, r) : ib.add(kBase, r);
      Value gj = isA ? ib.add(kBase, col) : ib.add(colBase, col);
      Value inside = isA ? ib.land(ib.lt(gi, c.m), ib.lt(gj, c.k))
                         : ib.land(ib.lt(gi, c.k), ib.lt(gj, c.n));
      auto guarded = scf::IfOp::create(
          b, loc, inside,
          [&](OpBuilder &nb, Location nl) {
            Value v = isA ? c.loadA(nb, nl, batch, gi, gj)
                          : c.loadB(nb, nl, batch, gi, gj);
            scf::YieldOp::create(nb, nl, v);
          },
          [&](OpBuilder &nb, Location nl) {
            scf::YieldOp::create(nb, nl, zero);
          });
      Value v = guarded.getResult(0);
      if (isA) // stored transposed: [k][m]
        memref::StoreOp::create(b, loc, v, sharedA, ValueRange{col, r});
      else
        memref::StoreOp::create(b, loc, v, sharedB, ValueRange{r, col});
    }
  };

  SmallVector<Value> init(t.tm * t.tn, zero);
  Value firstTile = ib.mul(part, ib.c(tilesPerSplit));
  Value lastTile = arith::MinUIOp::create(
      b, loc, ib.add(firstTile, ib.c(tilesPerSplit)), ib.c(kTiles));
  auto loop = scf::ForOp::create(
      b, loc, firstTile, lastTile, ib.c(1), init,
      [&](OpBuilder &nb, Location nl, Value kt, ValueRange acc) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        Value kBase = ib.mul(kt, ib.c(t.bk));
        loadTile(kBase, t.bm, t.bk, /*isA=*/true);
        loadTile(kBase, t.bk, t.bn, /*isA=*/false);
        gpu::BarrierOp::create(b, loc);
        SmallVector<Value> sums(acc.begin(), acc.end());
        // A thread's values of row kk of a shared tile: 16-byte vector
        // loads of its runs of 4 (the tiles are 16-byte aligned:
        // traced-gpu-align-workgroup), else one by one.
        auto readRow = [&](Value shared, Value thread, int64_t kk,
                           int64_t count, int64_t perThread) {
          SmallVector<Value> values;
          bool vectors = contiguous && perThread % 4 == 0;
          for (int64_t i = 0; i < perThread; i += vectors ? 4 : 1) {
            SmallVector<Value> at{ib.c(kk),
                                  position(thread, i, count, perThread)};
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
        };
        for (int64_t kk = 0; kk < t.bk; ++kk) {
          SmallVector<Value> as = readRow(sharedA, ty, kk, rowThreads, t.tm);
          SmallVector<Value> bs = readRow(sharedB, tx, kk, colThreads, t.tn);
          for (int64_t i = 0; i < t.tm; ++i)
            for (int64_t j = 0; j < t.tn; ++j)
              sums[i * t.tn + j] =
                  math::FmaOp::create(b, loc, as[i], bs[j], sums[i * t.tn + j]);
        }
        gpu::BarrierOp::create(b, loc);
        scf::YieldOp::create(b, loc, sums);
      });

  // C += the thread's tile (atomically when K is split).
  for (int64_t i = 0; i < t.tm; ++i)
    for (int64_t j = 0; j < t.tn; ++j) {
      Value gi = ib.add(rowBase, position(ty, i, rowThreads, t.tm));
      Value gj = ib.add(colBase, position(tx, j, colThreads, t.tn));
      Value inside = ib.land(ib.lt(gi, c.m), ib.lt(gj, c.n));
      Value v = loop.getResult(i * t.tn + j);
      scf::IfOp::create(b, loc, inside, [&](OpBuilder &nb, Location nl) {
        if (split > 1) {
          auto [memref, indices] = c.addressC(nb, nl, batch, gi, gj);
          memref::AtomicRMWOp::create(nb, nl, arith::AtomicRMWKind::addf, v,
                                      memref, indices);
        } else {
          auto [memref, indices] = c.addressC(nb, nl, batch, gi, gj);
          Value old = memref::LoadOp::create(nb, nl, memref, indices);
          Value sum = arith::AddFOp::create(nb, nl, old, v);
          memref::StoreOp::create(nb, nl, sum, memref, indices);
        }
        scf::YieldOp::create(nb, nl);
      });
    }
  gpu::TerminatorOp::create(b, loc);
}

bool allF32(Operation *op) {
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.getElementType().isF32() || !type.hasStaticShape())
      return false;
  }
  return true;
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
  auto indices = [batched](Value bi, Value i, Value j) {
    return batched ? SmallVector<Value>{bi, i, j} : SmallVector<Value>{i, j};
  };
  c.loadA = [=](OpBuilder &nb, Location l, Value bi, Value i, Value j) {
    return memref::LoadOp::create(nb, l, a, indices(bi, i, j)).getResult();
  };
  c.loadB = [=](OpBuilder &nb, Location l, Value bi, Value i, Value j) {
    return memref::LoadOp::create(nb, l, bm, indices(bi, i, j)).getResult();
  };
  c.addressC = [=](OpBuilder &, Location, Value bi, Value i, Value j) {
    return std::make_pair(cm, indices(bi, i, j));
  };
  return c;
}

/// The implicit GEMM of an NCHW/FCHW convolution: M = F, N = batch x OH x
/// OW, K = C x KH x KW (the input is already padded).
std::optional<Contraction> convContraction(linalg::Conv2DNchwFchwOp op) {
  Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1],
        output = op.getDpsInits()[0];
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
  c.loadA = [=](OpBuilder &nb, Location l, Value, Value f, Value k) {
    IndexBuilder ib{nb, l};
    Value ch = ib.div(k, kh * kw), r = ib.rem(k, kh * kw);
    return memref::LoadOp::create(
               nb, l, filter,
               ValueRange{f, ch, ib.div(r, kw), ib.rem(r, kw)})
        .getResult();
  };
  c.loadB = [=](OpBuilder &nb, Location l, Value, Value k, Value n) {
    IndexBuilder ib{nb, l};
    Value ch = ib.div(k, kh * kw), r = ib.rem(k, kh * kw);
    Value y = ib.div(r, kw), x = ib.rem(r, kw);
    Value image = ib.div(n, oh * ow), p = ib.rem(n, oh * ow);
    Value oy = ib.div(p, ow), ox = ib.rem(p, ow);
    Value iy = ib.add(ib.mul(oy, ib.c(strides[0])), ib.mul(y, ib.c(dilations[0])));
    Value ix = ib.add(ib.mul(ox, ib.c(strides[1])), ib.mul(x, ib.c(dilations[1])));
    return memref::LoadOp::create(nb, l, input, ValueRange{image, ch, iy, ix})
        .getResult();
  };
  c.addressC = [=](OpBuilder &nb, Location l, Value, Value f, Value n) {
    IndexBuilder ib{nb, l};
    Value image = ib.div(n, oh * ow), p = ib.rem(n, oh * ow);
    return std::make_pair(
        output, SmallVector<Value>{image, f, ib.div(p, ow), ib.rem(p, ow)});
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
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp,
              linalg::Conv2DNchwFchwOp>(op) &&
          allF32(op) && !op->getParentOfType<gpu::LaunchOp>())
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      std::optional<Contraction> c;
      if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
        c = convContraction(conv);
      else {
        bool batched = isa<linalg::BatchMatmulOp>(op);
        if (hasDefaultMaps(cast<linalg::LinalgOp>(op), batched))
          c = matmulContraction(cast<linalg::LinalgOp>(op), batched);
      }
      if (!c || c->m == 0 || c->n == 0 || c->batch == 0)
        continue;
      if (c->k == 0) { // C += nothing
        op->erase();
        continue;
      }
      buildKernel(op, *c, contiguous);
      op->erase();
    }
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
    });
  }
};
} // namespace
