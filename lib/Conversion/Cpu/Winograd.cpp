//===- Winograd.cpp - 3x3 convolutions as Winograd F(2x2, 3x3) ------------===//
//
// Part of TracedIR. See docs/cpu.md, "Winograd convolutions".
//
// A 3x3 convolution of unit stride computes each 2x2 block of outputs (a
// tile) from the 4x4 block of inputs under it. Winograd's F(2x2, 3x3) does
// that with 16 products per tile and channel pair instead of 36:
//
//   Y = A^T [ (G g G^T) . (B^T d B) ] A
//
// summed over the input channels, where g is a 3x3 filter, d a 4x4 input
// block and `.` the elementwise product. Summed over channels, each of the
// 16 positions of the 4x4 product is a matrix product, F x C times C x
// tiles: one `linalg.batch_matmul` of batch 16, which the contraction
// strategy tiles like any other. G g G^T is computed here at compile time
// (the filter is a constant); B^T d B (the input transform) and A^T m A
// (the output transform) are vector code over rows of tiles written here.
//
// The transforms' coefficients are 0 and +-1 (B, A) and 0, +-1/2, 1 (G), so
// they round little: the results differ from the direct convolution's by
// a few ulps of the sums (tested against torch in test_compile.py).
//
//===----------------------------------------------------------------------===//

#include "Winograd.h"
#include "TracedIR/Support/Blobs.h"
#include "../TracedToLinalg/Lowering.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AsmState.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace mlir;

namespace mlir::traced {
namespace {

// The input transform B^T (4 x 4), the filter transform G (4 x 3) and the
// output transform A^T (2 x 4) of F(2x2, 3x3), interpolating at 0, 1, -1
// and infinity (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2016).
constexpr int kBT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0},
                           {0, 1, 0, -1}};
constexpr double kG[4][3] = {
    {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
constexpr int kAT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

/// Where one iteration of `sliceLoops` works: a slice of the shared tensor.
struct Slice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  RankedTensorType type;
};

} // namespace

/// The sum of `values` weighted by `coef` (each 0, 1 or -1, at least one
/// 1): the additions first, then the subtractions.
static Value combine(OpBuilder &b, Location loc, ArrayRef<int> coef,
                     ArrayRef<Value> values) {
  Value sum;
  for (auto [k, v] : llvm::zip_equal(coef, values))
    if (k == 1)
      sum = sum ? arith::AddFOp::create(b, loc, sum, v).getResult() : v;
  for (auto [k, v] : llvm::zip_equal(coef, values))
    if (k == -1)
      sum = arith::SubFOp::create(b, loc, sum, v);
  return sum;
}

/// U = G g G^T for every (output, input) channel pair of the constant
/// filter `filter` (F, C, 3, 3), laid out as 16 x F x C (position a * 4 + b
/// of the 4 x 4 product first); null when the filter is not a constant.
static Value filterTransform(OpBuilder &b, Location loc, Value filter) {
  auto type = cast<RankedTensorType>(filter.getType());
  int64_t f = type.getDimSize(0), c = type.getDimSize(1);
  std::vector<char> storage;
  ArrayRef<char> raw = lowering::constantBytes(filter, storage);
  if (raw.size() != static_cast<size_t>(f * c * 9) * sizeof(float))
    return {};
  AsmResourceBlob blob =
      allocateBlob(16 * f * c * sizeof(float), alignof(double));
  float *u = reinterpret_cast<float *>(blob.getMutableData().data());
  for (int64_t o = 0; o < f; ++o) {
    for (int64_t i = 0; i < c; ++i) {
      float g[3][3];
      std::memcpy(g, raw.data() + (o * c + i) * 9 * sizeof(float), sizeof g);
      // G g, then (G g) G^T: 84 multiplies rather than 16 x 27 (a
      // million channel pairs in ResNet-18).
      double gg[4][3];
      for (int a = 0; a < 4; ++a)
        for (int q = 0; q < 3; ++q)
          gg[a][q] = kG[a][0] * g[0][q] + kG[a][1] * g[1][q] +
                     kG[a][2] * g[2][q];
      for (int a = 0; a < 4; ++a)
        for (int bb = 0; bb < 4; ++bb)
          u[((a * 4 + bb) * f + o) * c + i] = static_cast<float>(
              gg[a][0] * kG[bb][0] + gg[a][1] * kG[bb][1] +
              gg[a][2] * kG[bb][2]);
    }
  }
  auto uType = RankedTensorType::get({16, f, c}, b.getF32Type());
  auto attr = lowering::contentNamedResource(uType, "winograd", std::move(blob));
  return arith::ConstantOp::create(b, loc, attr);
}

static Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// `body(b, loc, r, c, acc)` over the rows [0, th) and, `width` at a
/// time, the columns [0, tw) (of tiles, or anything), threading `init`
/// through.
static Value tileLoops(
    OpBuilder &b, Location loc, int64_t th, int64_t tw, int64_t width,
    Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> body) {
  Value zero = indexConst(b, loc, 0);
  Value one = indexConst(b, loc, 1);
  Value rows = indexConst(b, loc, th);
  Value cols = indexConst(b, loc, tw);
  Value step = indexConst(b, loc, width);
  return scf::ForOp::create(
             b, loc, zero, rows, one, ValueRange{init},
             [&](OpBuilder &ob, Location ol, Value r, ValueRange outer) {
               auto inner = scf::ForOp::create(
                   ob, ol, zero, cols, step, outer,
                   [&](OpBuilder &ib, Location il, Value c, ValueRange args) {
                     scf::YieldOp::create(ib, il,
                                          body(ib, il, r, c, args[0]));
                   });
               scf::YieldOp::create(ob, ol, inner.getResults());
             })
      .getResult(0);
}

/// `body(b, loc, i, j, slice)` for every (i, j) in [0, n) x [0, m), on the
/// slice of `shared` that `at(b, loc, i, j)` names, which it returns
/// updated; the updated `shared`. One `scf.forall` when `parallel`, else
/// two `scf.for`.
static Value sliceLoops(
    OpBuilder &b, Location loc, bool parallel, int64_t n, int64_t m,
    Value shared, function_ref<Slice(OpBuilder &, Location, Value, Value)> at,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> body) {
  OpBuilder::InsertionGuard guard(b);
  if (parallel) {
    auto forall = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(n), b.getIndexAttr(m)},
        ValueRange{shared}, std::nullopt);
    b.setInsertionPoint(forall.getTerminator());
    Value i = forall.getInductionVars()[0], j = forall.getInductionVars()[1];
    Value into = forall.getRegionIterArgs()[0];
    Slice s = at(b, loc, i, j);
    Value slice = tensor::ExtractSliceOp::create(b, loc, s.type, into,
                                                 s.offsets, s.sizes, s.strides);
    Value result = body(b, loc, i, j, slice);
    b.setInsertionPointToEnd(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(b, loc, result, into, s.offsets,
                                          s.sizes, s.strides);
    return forall.getResult(0);
  }
  return tileLoops(
      b, loc, n, m, 1, shared,
      [&](OpBuilder &ib, Location il, Value i, Value j, Value into) -> Value {
        Slice s = at(ib, il, i, j);
        Value slice = tensor::ExtractSliceOp::create(
            ib, il, s.type, into, s.offsets, s.sizes, s.strides);
        Value result = body(ib, il, i, j, slice);
        return tensor::InsertSliceOp::create(ib, il, result, into, s.offsets,
                                             s.sizes, s.strides);
      });
}


/// How a convolution of `n` images of `c` channels into `f` is done as
/// Winograd (`oh` x `ow` outputs): the tile rows of a block (0: whole
/// images), or none where it does not pay.
///
/// Blocks: the tiles of a block of tile rows are transformed, multiplied
/// and transformed back one block at a time (on one thread each). The
/// block's transformed inputs and products (16 x C and 16 x F by its
/// tiles) fit `budget` floats each, so that they and the transformed
/// filter stay in L2 between the three steps; its columns (tiles) are at
/// least one vector, and its output rows an even number (blocks of one
/// shape). The largest such block that still leaves 4 blocks (where there
/// are) for the threads; else one tile row where that is within 4 x
/// `budget` (a wide image of many channels); else, for several images,
/// one image where that is (ResNet's 14 x 14 layers at batch 8).
///
/// Whole images: each step over every image, the product a batch of 16
/// matmuls spread over threads, where the transformed inputs and products
/// are at most 16 x `budget` floats (the small images of many channels of
/// the last layers: 7 x 7 tiles a vector or less). Larger ones (a wide
/// image of 3 channels into 64: 51 MB of products) would stream through
/// memory twice: no Winograd.
static std::optional<int64_t> winogradPlan(int64_t n, int64_t c, int64_t f,
                                           int64_t oh, int64_t ow,
                                           int64_t budget = 64 * 1024) {
  int64_t th = (oh + 1) / 2, tw = (ow + 1) / 2;
  int64_t perRow = 16 * std::max(c, f) * tw;
  if (oh % 2 == 0) {
    int64_t best = 0;
    for (int64_t rows = 1; rows <= th; ++rows) {
      if (th % rows || rows * tw < 16)
        continue;
      if (perRow * rows > budget ||
          (best && n * (th / rows) < std::min<int64_t>(4, n * th)))
        break;
      best = rows;
    }
    if (!best && tw >= 16 && perRow <= 4 * budget)
      best = 1;
    if (!best && n > 1 && perRow * th <= 4 * budget)
      best = th;
    if (best)
      return best;
  }
  if (perRow * th * n <= 16 * budget)
    return 0;
  return std::nullopt;
}

/// The plan (`winogradPlan`) for `conv` when it is f32, of static shapes,
/// with a 3x3 filter, unit strides and dilations and at least
/// `minChannels` input and output channels; none otherwise.
static std::optional<int64_t> winogradRows(linalg::Conv2DNchwFchwOp conv,
                                           int64_t minChannels) {
  if (!conv.hasPureTensorSemantics())
    return std::nullopt;
  auto inType = dyn_cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto fType = dyn_cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto outType = dyn_cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (!inType || !fType || !outType || !inType.hasStaticShape() ||
      !fType.hasStaticShape() || !outType.hasStaticShape())
    return std::nullopt;
  for (RankedTensorType t : {inType, fType, outType})
    if (!t.getElementType().isF32())
      return std::nullopt;
  if (fType.getDimSize(2) != 3 || fType.getDimSize(3) != 3 ||
      fType.getDimSize(0) < minChannels || fType.getDimSize(1) < minChannels ||
      outType.getNumElements() == 0)
    return std::nullopt;
  auto ones = [](DenseIntElementsAttr attr) {
    return llvm::all_of(attr.getValues<int64_t>(),
                        [](int64_t v) { return v == 1; });
  };
  if (!ones(conv.getStrides()) || !ones(conv.getDilations()))
    return std::nullopt;
  return winogradPlan(inType.getDimSize(0), inType.getDimSize(1),
                      fType.getDimSize(0), outType.getDimSize(2),
                      outType.getDimSize(3));
}

/// The input transform, V = B^T d B, of `rows` tile rows from tile row
/// `row0` on, of input channel `ch` of image `image`, into `slice` (16,
/// rows, TW), which it returns. `width` tiles at a time, per tile row:
/// each input row the tiles read is loaded as two vectors of 2 x width
/// inputs, from the tiles' first column and from two columns on, whose
/// even and odd lanes are the tiles' four columns. Columns past the input
/// read as zeros; rows past it (the last tile row of an odd output
/// height, `clamp`) read the input's last row again. Either feeds only
/// outputs that are not written: the fourth row and column of d reach only
/// V's fourth row and column (B^T's last row), which only the second
/// output row and column read (A^T's first row is 1, 1, 1, 0).
static Value inputTransform(OpBuilder &b, Location loc, Value input,
                            Value image, Value ch, Value row0, int64_t rows,
                            int64_t tw, int64_t width, bool clamp,
                            Value slice) {
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t h = inType.getDimSize(2);
  Type f32 = inType.getElementType();
  auto pair = VectorType::get({2 * width}, f32);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  bool whole = tw % width == 0;
  return tileLoops(
      b, loc, rows, tw, width, slice,
      [&](OpBuilder &tb, Location tl, Value r, Value col, Value acc) {
        Value two = indexConst(tb, tl, 2);
        Value tileRow = arith::AddIOp::create(tb, tl, row0, r);
        Value inRow = arith::MulIOp::create(tb, tl, tileRow, two);
        Value col0 = arith::MulIOp::create(tb, tl, col, two);
        Value col2 = arith::AddIOp::create(tb, tl, col0, two);
        Value d[4][4];
        for (int64_t k = 0; k < 4; ++k) {
          Value row =
              arith::AddIOp::create(tb, tl, inRow, indexConst(tb, tl, k));
          if (clamp)
            row = arith::MinSIOp::create(tb, tl, row,
                                         indexConst(tb, tl, h - 1));
          for (auto [start, lane] : {std::pair<Value, int>{col0, 0},
                                     std::pair<Value, int>{col2, 2}}) {
            Value pairs = vector::TransferReadOp::create(
                tb, tl, pair, input, ValueRange{image, ch, row, start}, zero,
                ArrayRef<bool>{false});
            auto split = vector::DeinterleaveOp::create(tb, tl, pairs);
            d[k][lane] = split.getRes1();
            d[k][lane + 1] = split.getRes2();
          }
        }
        Value t[4][4];
        for (int k = 0; k < 4; ++k)
          for (int q = 0; q < 4; ++q)
            t[k][q] = combine(tb, tl, kBT[q], d[k]);
        for (int a = 0; a < 4; ++a)
          for (int q = 0; q < 4; ++q) {
            Value value = combine(tb, tl, kBT[a],
                                  {t[0][q], t[1][q], t[2][q], t[3][q]});
            acc = vector::TransferWriteOp::create(
                      tb, tl, value, acc,
                      ValueRange{indexConst(tb, tl, a * 4 + q), r, col},
                      ArrayRef<bool>{whole})
                      .getResult();
          }
        return acc;
      });
}

/// The output transform, Y = A^T M A, of `rows` tile rows, of one output
/// channel, into `slice` (its output rows, OW), which it returns.
/// `mIndices(b, loc, p, r, col)` are the indices in `m` of position `p`
/// of tile row `r` (of these rows) and tile column `col`. A tile row's two
/// output rows are written as the two columns of `width` tiles
/// interleaved; the second row of the last tile row of an odd number of
/// output rows is not. With `overwrite` the slice's values are replaced,
/// else added to.
static Value outputTransform(
    OpBuilder &b, Location loc, Value m,
    function_ref<SmallVector<Value>(OpBuilder &, Location, int, Value, Value)>
        mIndices,
    int64_t rows, int64_t tw, int64_t width, bool overwrite, Value slice) {
  auto sliceType = cast<RankedTensorType>(slice.getType());
  int64_t outRows = sliceType.getDimSize(0);
  Type f32 = sliceType.getElementType();
  auto vec = VectorType::get({width}, f32);
  auto pair = VectorType::get({2 * width}, f32);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  bool whole = tw % width == 0;
  return tileLoops(
      b, loc, rows, tw, width, slice,
      [&](OpBuilder &tb, Location tl, Value r, Value col, Value acc) {
        Value mv[4][4];
        for (int a = 0; a < 4; ++a)
          for (int q = 0; q < 4; ++q)
            mv[a][q] = vector::TransferReadOp::create(
                tb, tl, vec, m, mIndices(tb, tl, a * 4 + q, r, col), zero,
                ArrayRef<bool>{whole});
        Value s[4][2];
        for (int a = 0; a < 4; ++a)
          for (int q = 0; q < 2; ++q)
            s[a][q] = combine(tb, tl, kAT[q], mv[a]);
        Value two = indexConst(tb, tl, 2);
        Value col0 = arith::MulIOp::create(tb, tl, col, two);
        Value row0 = arith::MulIOp::create(tb, tl, r, two);
        for (int k = 0; k < 2; ++k) {
          Value y0 = combine(tb, tl, kAT[k],
                             {s[0][0], s[1][0], s[2][0], s[3][0]});
          Value y1 = combine(tb, tl, kAT[k],
                             {s[0][1], s[1][1], s[2][1], s[3][1]});
          Value y = vector::InterleaveOp::create(tb, tl, y0, y1);
          Value row =
              arith::AddIOp::create(tb, tl, row0, indexConst(tb, tl, k));
          auto write = [&](OpBuilder &wb, Location wl, Value into) -> Value {
            Value sum = y;
            if (!overwrite)
              sum = arith::AddFOp::create(
                  wb, wl,
                  vector::TransferReadOp::create(wb, wl, pair, into,
                                                 ValueRange{row, col0}, zero,
                                                 ArrayRef<bool>{false}),
                  y);
            return vector::TransferWriteOp::create(wb, wl, sum, into,
                                                   ValueRange{row, col0},
                                                   ArrayRef<bool>{false})
                .getResult();
          };
          if (k == 1 && outRows % 2) {
            Value inside =
                arith::CmpIOp::create(tb, tl, arith::CmpIPredicate::slt, row,
                                      indexConst(tb, tl, outRows));
            acc = scf::IfOp::create(
                      tb, tl, inside,
                      [&](OpBuilder &ib, Location il) {
                        scf::YieldOp::create(ib, il, write(ib, il, acc));
                      },
                      [&](OpBuilder &eb, Location el) {
                        scf::YieldOp::create(eb, el, acc);
                      })
                      .getResult(0);
          } else {
            acc = write(tb, tl, acc);
          }
        }
        return acc;
      });
}

/// `body(b, loc, k, slice)` for each index k of dim `dim` of `into`, on
/// its rank-reduced slice at k (whole along the other dims), which it
/// returns updated; the updated `into`. One `scf.for` (`sliceLoops`).
static Value forEachSlice(
    OpBuilder &b, Location loc, Value into, unsigned dim,
    function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  auto type = cast<RankedTensorType>(into.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape, sizes(type.getShape());
  sizes[dim] = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      shape.push_back(type.getDimSize(d));
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  return sliceLoops(
      b, loc, /*parallel=*/false, type.getDimSize(dim), 1, into,
      [&](OpBuilder &sb, Location, Value k, Value) {
        SmallVector<OpFoldResult> offsets(rank, sb.getIndexAttr(0));
        offsets[dim] = k;
        return Slice{offsets,
                     getAsIndexOpFoldResult(sb.getContext(), sizes),
                     SmallVector<OpFoldResult>(rank, sb.getIndexAttr(1)),
                     sliceType};
      },
      [&](OpBuilder &sb, Location sl, Value k, Value, Value slice) {
        return body(sb, sl, k, slice);
      });
}

namespace {
/// One convolution's Winograd rewrite: its sizes and what the stages
/// share (the transformed filter U, the input, the destination).
struct WinogradConv {
  RewriterBase &rewriter;
  Location loc;
  bool parallel;
  Type f32;
  Value input;
  /// The transformed filter (16, F, C) and the float 0 the products start
  /// from.
  Value u, zero;
  int64_t n, c, f, oh, ow;
  /// Tile rows and columns; the tiles a vector holds.
  int64_t th, tw, width;
  /// Whether the last tile row reads past the input (clamped).
  bool clamp;
  /// The destination, and whether it is written rather than added to.
  Value init;
  bool overwrite;

  SmallVector<OpFoldResult> attrs(ArrayRef<int64_t> v) {
    return getAsIndexOpFoldResult(rewriter.getContext(), v);
  }

  /// The 16 products of `cols` tiles: (16, F, C) x (16, C, cols).
  Value product(OpBuilder &b, Location l, Value v, int64_t cols) {
    auto mType = RankedTensorType::get({16, f, cols}, f32);
    Value m = linalg::FillOp::create(
                  b, l, zero,
                  ValueRange{tensor::EmptyOp::create(b, l, mType.getShape(),
                                                     f32)})
                  .getResult(0);
    return linalg::BatchMatmulOp::create(b, l, TypeRange{mType},
                                         ValueRange{u, v}, ValueRange{m})
        .getResult(0);
  }

  /// Blocks of `rows` tile rows: one `scf.forall` over (image, block),
  /// each block transforming its tiles of every input channel,
  /// multiplying them and transforming the products back into its
  /// output rows, all in L2.
  Value byRowBlocks(int64_t rows) {
    return sliceLoops(
        rewriter, loc, parallel, n, th / rows, init,
        [&](OpBuilder &b, Location l, Value i, Value blk) {
          OpFoldResult outRow = affine::makeComposedFoldedAffineApply(
              b, l, b.getAffineDimExpr(0) * (2 * rows), {blk});
          return Slice{{i, b.getIndexAttr(0), outRow, b.getIndexAttr(0)},
                       attrs({1, f, 2 * rows, ow}), attrs({1, 1, 1, 1}),
                       RankedTensorType::get({f, 2 * rows, ow}, f32)};
        },
        [&](OpBuilder &b, Location l, Value i, Value blk, Value slice) {
          Value row0 = affine::AffineApplyOp::create(
              b, l, b.getAffineDimExpr(0) * rows, ValueRange{blk});
          Value v = tensor::EmptyOp::create(b, l, {16, c, rows, tw}, f32);
          v = forEachSlice(b, l, v, 1,
                           [&](OpBuilder &cb, Location cl, Value ch,
                               Value vs) {
                             return inputTransform(cb, cl, input, i, ch, row0,
                                                   rows, tw, width, clamp,
                                                   vs);
                           });
          Value vm = tensor::CollapseShapeOp::create(
              b, l, RankedTensorType::get({16, c, rows * tw}, f32), v,
              SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
          Value m = tensor::ExpandShapeOp::create(
              b, l, RankedTensorType::get({16, f, rows, tw}, f32),
              product(b, l, vm, rows * tw),
              SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
          return forEachSlice(
              b, l, slice, 0,
              [&](OpBuilder &ob, Location ol, Value ch, Value os) {
                return outputTransform(
                    ob, ol, m,
                    [&](OpBuilder &ib, Location il, int p, Value r,
                        Value col) -> SmallVector<Value> {
                      return {indexConst(ib, il, p), ch, r, col};
                    },
                    rows, tw, width, overwrite, os);
              });
        });
  }

  /// Whole images: the input transform of every image and input channel
  /// into V (16, C, N, TH, TW), one product of N x TH x TW columns (spread
  /// over threads by the contraction strategy), the output transform of
  /// every image and output channel.
  Value byWholeImages() {
    Value v = transformEveryInput();
    SmallVector<ReassociationIndices> groups = {{0}, {1}, {2, 3, 4}};
    int64_t cols = n * th * tw;
    Value vm = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({16, c, cols}, f32), v, groups);
    Value m = multiplyByPosition(vm, cols);
    m = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({16, f, n, th, tw}, f32), m,
        groups);
    return transformEveryOutput(m);
  }

  /// V (16, C, N, TH, TW): the input transform of every image and input
  /// channel.
  Value transformEveryInput() {
    Value v = tensor::EmptyOp::create(rewriter, loc, {16, c, n, th, tw}, f32);
    Value row0 = indexConst(rewriter, loc, 0);
    return sliceLoops(
        rewriter, loc, parallel, n, c, v,
        [&](OpBuilder &b, Location, Value i, Value ch) {
          return Slice{{b.getIndexAttr(0), ch, i, b.getIndexAttr(0),
                        b.getIndexAttr(0)},
                       attrs({16, 1, 1, th, tw}), attrs({1, 1, 1, 1, 1}),
                       RankedTensorType::get({16, th, tw}, f32)};
        },
        [&](OpBuilder &b, Location l, Value i, Value ch, Value slice) {
          return inputTransform(b, l, input, i, ch, row0, th, tw, width,
                                clamp, slice);
        });
  }

  /// The product (16, F, cols) of U and `vm` (16, C, cols), a position at a
  /// time over threads: each fills its slice of the products just before
  /// multiplying into it (one fill of them all was a memset on the calling
  /// thread, 4-5% of a 7 x 7 layer).
  Value multiplyByPosition(Value vm, int64_t cols) {
    Value m = tensor::EmptyOp::create(rewriter, loc, {16, f, cols}, f32);
    return sliceLoops(
        rewriter, loc, parallel, 16, 1, m,
        [&](OpBuilder &b, Location, Value p, Value) {
          return Slice{{p, b.getIndexAttr(0), b.getIndexAttr(0)},
                       attrs({1, f, cols}), attrs({1, 1, 1}),
                       RankedTensorType::get({1, f, cols}, f32)};
        },
        [&](OpBuilder &b, Location l, Value p, Value, Value slice) {
          auto at = [&](Value from, int64_t rows, int64_t columns) {
            return tensor::ExtractSliceOp::create(
                b, l, RankedTensorType::get({1, rows, columns}, f32), from,
                ArrayRef<OpFoldResult>{p, b.getIndexAttr(0),
                                       b.getIndexAttr(0)},
                attrs({1, rows, columns}), attrs({1, 1, 1}));
          };
          Value filled =
              linalg::FillOp::create(b, l, zero, slice).getResult(0);
          return linalg::BatchMatmulOp::create(
                     b, l, TypeRange{slice.getType()},
                     ValueRange{at(u, f, c), at(vm, c, cols)},
                     ValueRange{filled})
              .getResult(0);
        });
  }

  /// The destination: the output transform of the products `m` (16, F, N,
  /// TH, TW) for every image and output channel.
  Value transformEveryOutput(Value m) {
    return sliceLoops(
        rewriter, loc, parallel, n, f, init,
        [&](OpBuilder &b, Location, Value i, Value ch) {
          return Slice{{i, ch, b.getIndexAttr(0), b.getIndexAttr(0)},
                       attrs({1, 1, oh, ow}), attrs({1, 1, 1, 1}),
                       RankedTensorType::get({oh, ow}, f32)};
        },
        [&](OpBuilder &b, Location l, Value i, Value ch, Value slice) {
          return outputTransform(
              b, l, m,
              [&](OpBuilder &ib, Location il, int p, Value r,
                  Value col) -> SmallVector<Value> {
                return {indexConst(ib, il, p), ch, i, r, col};
              },
              th, tw, width, overwrite, slice);
        });
  }
};
} // namespace

LogicalResult convToWinograd(RewriterBase &rewriter,
                             linalg::Conv2DNchwFchwOp conv,
                             int64_t minChannels, bool parallel) {
  std::optional<int64_t> plan = winogradRows(conv, minChannels);
  if (!plan)
    return failure();
  int64_t rows = *plan;
  Value input = conv.getInputs()[0];
  auto inType = cast<RankedTensorType>(input.getType());
  auto fType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto outType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1),
          h = inType.getDimSize(2);
  int64_t f = fType.getDimSize(0);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  // Tiles of 2 x 2 outputs; an odd output size's last tile row (column)
  // computes one row (column) too many, which is not written.
  int64_t th = (oh + 1) / 2, tw = (ow + 1) / 2;
  bool clamp = 2 * th + 1 > h - 1;
  // Tiles a vector: a power of two up to 16 (one AVX-512 register).
  int64_t width = std::min<int64_t>(16, llvm::PowerOf2Ceil(tw));
  Location loc = conv.getLoc();
  Type f32 = rewriter.getF32Type();
  // (Fails before building anything where the filter is no constant.)
  rewriter.setInsertionPoint(conv);
  Value u = filterTransform(rewriter, loc, conv.getInputs()[1]);
  if (!u)
    return failure();
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
  // A zero-filled output (every convolution the lowering builds) is
  // written, others added to.
  Value init = conv.getOutputs()[0];
  Value unfilled = lowering::zeroFilledDestination(init);
  bool overwrite = bool(unfilled);
  if (overwrite)
    init = unfilled;
  WinogradConv w{rewriter, loc, parallel, f32, input, u,     zero,      n, c,
                 f,        oh,  ow,       th,  tw,    width, clamp, init,
                 overwrite};
  Value out = rows ? w.byRowBlocks(rows) : w.byWholeImages();
  rewriter.replaceOp(conv, out);
  return success();
}

} // namespace mlir::traced
