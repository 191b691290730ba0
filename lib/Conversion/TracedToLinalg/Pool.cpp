//===- Pool.cpp - max, average, adaptive and lp pooling -------------------===//
//
// Max and average pooling over 1-3 spatial dims pad explicitly (with -inf or
// 0, far enough for ceil_mode) and pool with `linalg.pooling_nchw_*` only:
// 1-D over a unit row, 3-D (linalg has no channels-first 3-D pooling op) as
// a 2-D pooling of the planes and a 1-D one along the depth (max and sum are
// separable), so that every pooling takes the CPU pipeline's vectorized,
// threaded path (`buildPooling`). The average divides
// by PyTorch's per-window count, computed at compile time. Adaptive average
// pooling is separable: one contraction with a constant weight matrix per
// spatial dim (elements outside a window skipped, not weighted by 0, so a
// NaN stays in its windows), exact for any input and output size. Adaptive
// max pooling and max pooling with indices read the input with
// tensor.extract inside one generic over the (largest) window; lp_pool is
// pow, average pooling, pow. The window parameters are decoded and checked
// by the op library's PoolParams, as the result rule and the interpreter do.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <limits>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

static FailureOr<PoolParams> windowOf(LoweringCall &c, unsigned spatial) {
  PoolParams w;
  std::string error;
  switch (withArgReader(c, [&](const ArgReader &reader) {
    return decodePool(c.spec->signature, reader, spatial, w, error);
  })) {
  case ConvDecode::Ok:
    return w;
  case ConvDecode::Unknown:
    return c.fail("kernel_size, stride, padding, dilation and ceil_mode "
                  "must be constants");
  case ConvDecode::Invalid:
    return c.fail(error);
  }
  return failure();
}

/// `t` with a batch of one when it has none (rank `spatial` + 1).
static RankedTensorType batchedType(RankedTensorType t, unsigned spatial) {
  if (t.getRank() == spatial + 2)
    return t;
  SmallVector<int64_t> shape = {1};
  llvm::append_range(shape, t.getShape());
  return RankedTensorType::get(shape, t.getElementType());
}

static Value batched(LoweringCall &c, Value x, unsigned spatial) {
  auto t = cast<RankedTensorType>(x.getType());
  if (t.getRank() == spatial + 2)
    return x;
  return buildReshape(c.rewriter, c.loc, x,
                      batchedType(t, spatial).getShape());
}

/// Whether `x` is statically shaped, or batched with only its batch dim
/// dynamic (what max and adaptive average pooling compile).
static bool staticButBatch(Value x, unsigned spatial) {
  auto t = rankedTensorType(x);
  if (!t)
    return false;
  if (t.hasStaticShape())
    return true;
  return t.getRank() == spatial + 2 &&
         llvm::none_of(t.getShape().drop_front(), ShapedType::isDynamic);
}

/// Whether a pooling output (static but for its batch) has no elements.
static bool emptyOutput(RankedTensorType t) {
  return llvm::any_of(t.getShape(), [](int64_t d) { return d == 0; });
}

/// A pooling result of `outType` filled with `value`, its batch (when
/// dynamic) that of `in`.
static Value poolInit(OpBuilder &b, Location loc, RankedTensorType outType,
                      Value in, double value) {
  if (outType.hasStaticShape())
    return buildFilled(b, loc, outType, value);
  SmallVector<OpFoldResult> sizes(outType.getRank(), b.getIndexAttr(0));
  sizes[0] = dimSizes(b, loc, in)[0];
  return buildFilled(b, loc, outType, sizes, value);
}

/// Pads `x` (N, C, spatial...) for windows producing `out`'s spatial size.
static Value padForWindows(LoweringCall &c, Value x, RankedTensorType out,
                           const PoolParams &w, double value) {
  auto t = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> low = {0, 0}, high = {0, 0};
  for (unsigned i = 0; i < w.kernel.size(); ++i) {
    int64_t size = t.getDimSize(2 + i), o = out.getDimSize(2 + i);
    int64_t needed =
        (o - 1) * w.stride[i] + (w.kernel[i] - 1) * w.dilation[i] + 1;
    low.push_back(w.padding[i]);
    high.push_back(std::max<int64_t>(0, needed - size - w.padding[i]));
  }
  return buildPad(c.rewriter, c.loc, x, low, high, value);
}

/// `v` (N, ...), its batch dim N static or dynamic, reshaped to `shape`
/// (N, ...) by regrouping the other dims: one collapse or expansion, no
/// run-time check (the batch is a group of its own).
static Value regroup(OpBuilder &b, Location loc, Value v,
                     ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.hasStaticShape())
    return buildReshape(b, loc, v, shape);
  auto target = RankedTensorType::get(shape, type.getElementType());
  if (target.getRank() < type.getRank()) {
    auto r = getReassociationIndicesForCollapse(type.getShape(), shape);
    assert(r && "not a regrouping");
    return tensor::CollapseShapeOp::create(b, loc, target, v, *r);
  }
  auto r = getReassociationIndicesForCollapse(shape, type.getShape());
  assert(r && "not a regrouping");
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : shape)
    sizes.push_back(b.getIndexAttr(d));
  sizes[0] = dimSizes(b, loc, v)[0];
  return tensor::ExpandShapeOp::create(b, loc, target, v, *r, sizes);
}

/// One `linalg.pooling_nchw_max` or `_sum` of `padded` (N, C, H, W) into
/// `init` over a window of `kernel` (kh, kw).
static Value poolNchw(OpBuilder &b, Location loc, Value padded, Value init,
                      ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                      ArrayRef<int64_t> dilation, bool isMax) {
  auto outType = cast<RankedTensorType>(init.getType());
  Value window =
      tensor::EmptyOp::create(b, loc, kernel, outType.getElementType());
  SmallVector<Value, 2> ins = {padded, window};
  auto strides = b.getI64VectorAttr(stride);
  auto dilations = b.getI64VectorAttr(dilation);
  if (isMax)
    return linalg::PoolingNchwMaxOp::create(b, loc, TypeRange{outType}, ins,
                                            ValueRange{init}, strides,
                                            dilations)
        .getResult(0);
  return linalg::PoolingNchwSumOp::create(b, loc, TypeRange{outType}, ins,
                                          ValueRange{init}, strides, dilations)
      .getResult(0);
}

/// Max or sum over the windows of `padded` (N, C, spatial...) into `init`
/// (N, C, out..., filled with -inf for max, 0 for sum), all as
/// `linalg.pooling_nchw_*`, the op the CPU pipeline vectorizes and spreads
/// over threads (as taps or as loops, TileAndVectorize.cpp's `tapsPay`):
/// - 2-D: one pooling op;
/// - 1-D: the same over (N, C, 1, W), a unit window row (as conv1d lowers);
/// - 3-D: max and sum are separable, and linalg has no channels-first 3-D
///   pooling op, so (kh, kw) windows over (N, C * D, H, W), then (kd, 1)
///   windows over (N, C, D, OH * OW). Max is exact; a sum adds in another
///   order than one 3-D loop (torch's order is its own either way).
static Value buildPooling(OpBuilder &b, Location loc, Value padded,
                          Value init, const PoolParams &w, bool isMax) {
  auto outType = cast<RankedTensorType>(init.getType());
  auto inType = cast<RankedTensorType>(padded.getType());
  ArrayRef<int64_t> k = w.kernel, s = w.stride, d = w.dilation;
  if (k.size() == 2)
    return poolNchw(b, loc, padded, init, k, s, d, isMax);
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1);
  if (k.size() == 1) {
    Value rows = regroup(b, loc, padded, {n, c, 1, inType.getDimSize(2)});
    Value acc = regroup(b, loc, init, {n, c, 1, outType.getDimSize(2)});
    Value out = poolNchw(b, loc, rows, acc, {1, k[0]}, {1, s[0]}, {1, d[0]},
                         isMax);
    return regroup(b, loc, out, outType.getShape());
  }
  assert(k.size() == 3 && "pooling over 1 to 3 spatial dims");
  int64_t dp = inType.getDimSize(2), od = outType.getDimSize(2),
          oh = outType.getDimSize(3), ow = outType.getDimSize(4);
  // (N, C, Dp, Hp, Wp) -> (N, C * Dp, Hp, Wp): (kh, kw) windows.
  Value planes = regroup(
      b, loc, padded,
      {n, c * dp, inType.getDimSize(3), inType.getDimSize(4)});
  auto planeType =
      RankedTensorType::get({n, c * dp, oh, ow}, outType.getElementType());
  double identity = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
  Value planeInit = poolInit(b, loc, planeType, padded, identity);
  Value pooled = poolNchw(b, loc, planes, planeInit, k.drop_front(),
                          s.drop_front(), d.drop_front(), isMax);
  // (N, C * Dp, OH, OW) -> (N, C, Dp, OH * OW): (kd, 1) windows.
  Value depth = regroup(b, loc, pooled, {n, c, dp, oh, ow});
  depth = regroup(b, loc, depth, {n, c, dp, oh * ow});
  Value acc = regroup(b, loc, init, {n, c, od, oh * ow});
  Value out = poolNchw(b, loc, depth, acc, {k[0], 1}, {s[0], 1}, {d[0], 1},
                       isMax);
  return regroup(b, loc, out, outType.getShape());
}

static FailureOr<SmallVector<Value>> lowerMaxPool(LoweringCall &c,
                                                  unsigned spatial) {
  RankedTensorType resultType = c.resultType(0, /*dynamic=*/true);
  Value x = c.tensor("input");
  if (!resultType || !x || !staticButBatch(x, spatial))
    return c.fail("expected a statically shaped input (a dynamic batch dim "
                  "at most)");
  if (c.getBool("return_indices") != false)
    return c.fail("return_indices=True is not supported");
  if (!isa<FloatType>(resultType.getElementType()))
    return c.fail("only floating-point inputs are supported");
  FailureOr<PoolParams> w = windowOf(c, spatial);
  if (failed(w))
    return failure();
  OpBuilder &b = c.rewriter;
  RankedTensorType outType = batchedType(resultType, spatial);
  if (emptyOutput(outType))
    return c.fail("an empty output is not supported");
  double ninf = -std::numeric_limits<double>::infinity();
  Value in = batched(c, x, spatial);
  Value padded = padForWindows(c, in, outType, *w, ninf);
  Value init = poolInit(b, c.loc, outType, in, ninf);
  Value out = buildPooling(b, c.loc, padded, init, *w, /*isMax=*/true);
  return SmallVector<Value>{buildReshape(b, c.loc, out, resultType.getShape())};
}

/// Average pooling of `in` (N, C, spatial...) into `outType`: a sum over
/// the zero-padded windows divided by PyTorch's per-window count (or the
/// override), computed at compile time.
static Value buildAvgPool(LoweringCall &c, Value in, RankedTensorType outType,
                          const PoolParams &w, bool includePad,
                          std::optional<int64_t> divisor) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  unsigned spatial = w.kernel.size();
  auto inType = cast<RankedTensorType>(in.getType());
  Value padded = padForWindows(c, in, outType, w, 0.0);
  Value init = buildFilled(b, loc, outType, 0.0);
  Value sum = buildPooling(b, loc, padded, init, w, /*isMax=*/false);
  // PyTorch's divisor per output position, over the spatial dims.
  ArrayRef<int64_t> outSizes = outType.getShape().drop_front(2);
  int64_t positions = 1;
  for (int64_t s : outSizes)
    positions *= s;
  std::vector<float> counts;
  for (int64_t flat = 0; flat < positions; ++flat) {
    SmallVector<PoolWindow, 3> dims(spatial);
    for (int64_t i = spatial - 1, rest = flat; i >= 0; --i) {
      int64_t o = rest % outSizes[i];
      rest /= outSizes[i];
      dims[i] = {o * w.stride[i] - w.padding[i], w.kernel[i],
                 inType.getDimSize(2 + i), w.padding[i]};
    }
    counts.push_back(divisor ? *divisor : avgPoolDivisor(dims, includePad));
  }
  unsigned rank = outType.getRank();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineExpr> spatialDims;
  for (unsigned i = 2; i < rank; ++i)
    spatialDims.push_back(b.getAffineDimExpr(i));
  AffineMap spatialMap = AffineMap::get(rank, 0, spatialDims, b.getContext());
  if (!isa<FloatType>(outType.getElementType())) {
    // int64: torch divides the integer sum, truncating toward zero.
    std::vector<int64_t> intCounts(counts.begin(), counts.end());
    auto countType = RankedTensorType::get(outSizes, b.getI64Type());
    Value countTensor = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(countType, ArrayRef<int64_t>(intCounts)));
    return buildElementwise(b, loc, outType, {sum, countTensor},
                            {id, spatialMap},
                            [](OpBuilder &nb, Location l, ValueRange a) {
                              return arith::DivSIOp::create(nb, l, a[0], a[1])
                                  .getResult();
                            });
  }
  auto countType = RankedTensorType::get(outSizes, b.getF32Type());
  Value countTensor = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(countType, ArrayRef<float>(counts)));
  return buildElementwise(b, loc, outType, {sum, countTensor},
                          {id, spatialMap},
                          [](OpBuilder &nb, Location l, ValueRange a) {
                            return arith::DivFOp::create(nb, l, a[0], a[1])
                                .getResult();
                          });
}

static FailureOr<SmallVector<Value>> lowerAvgPool(LoweringCall &c,
                                                  unsigned spatial) {
  RankedTensorType resultType = c.resultType();
  Value x = c.tensor("input");
  if (!resultType || !x || !staticTensorType(x))
    return c.fail("expected a statically shaped input");
  Type et = resultType.getElementType();
  if (!isa<FloatType>(et) && !et.isSignlessInteger(64))
    return c.fail("only floating-point and int64 inputs are supported");
  FailureOr<PoolParams> w = windowOf(c, spatial);
  if (failed(w))
    return failure();
  std::optional<bool> includePad = c.getBool("count_include_pad");
  // avg_pool1d has no divisor_override.
  bool hasDivisor = c.spec->signature.lookup("divisor_override") &&
                    !c.isNone("divisor_override");
  std::optional<int64_t> divisor =
      hasDivisor ? c.getInt("divisor_override") : std::nullopt;
  if (!includePad || (hasDivisor && !divisor))
    return c.fail("count_include_pad and divisor_override must be constants");
  RankedTensorType outType = batchedType(resultType, spatial);
  Value out = buildAvgPool(c, batched(c, x, spatial), outType, *w,
                           *includePad, divisor);
  return SmallVector<Value>{
      buildReshape(c.rewriter, c.loc, out, resultType.getShape())};
}

/// The (in, out) matrix averaging adaptive windows along one dimension: f64
/// for a float64 pool (1/3 in f32 is off by 1e-8), else f32 (the
/// contraction casts its entries to the input's element type). In (in, out)
/// layout a 1-D pool is a plain matmul, in(n, c, i) * a(i, o), the form the
/// CPU pipeline's contraction tiling expects.
static Value adaptiveWeights(OpBuilder &b, Location loc, int64_t in,
                             int64_t out, Type element) {
  std::vector<double> m(in * out, 0.0);
  for (int64_t o = 0; o < out; ++o) {
    auto [i0, i1] = adaptiveWindow(o, in, out);
    for (int64_t i = i0; i < i1; ++i)
      m[i * out + o] = 1.0 / static_cast<double>(i1 - i0);
  }
  if (element.isF64()) {
    auto type = RankedTensorType::get({in, out}, element);
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, ArrayRef<double>(m)));
  }
  std::vector<float> narrow(m.begin(), m.end());
  auto type = RankedTensorType::get({in, out}, b.getF32Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, ArrayRef<float>(narrow)));
}

static FailureOr<SmallVector<Value>> lowerAdaptiveAvgPool(LoweringCall &c,
                                                          unsigned spatial) {
  RankedTensorType resultType = c.resultType(0, /*dynamic=*/true);
  Value x = c.tensor("input");
  if (!resultType || !x || !staticButBatch(x, spatial))
    return c.fail("expected a statically shaped input (a dynamic batch dim "
                  "at most)");
  if (!isa<FloatType>(resultType.getElementType()))
    return c.fail("only floating-point inputs are supported");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value in = batched(c, x, spatial);
  RankedTensorType outType = batchedType(resultType, spatial);
  if (emptyOutput(outType))
    return c.fail("an empty output is not supported");
  auto inType = cast<RankedTensorType>(in.getType());
  Type et = resultType.getElementType();
  // out(n, c, o...) += in(n, c, i...) * a_0(i_0, o_0) * ... (one weight
  // matrix per spatial dim).
  unsigned dims = 2 + 2 * spatial;
  auto d = [&](unsigned i) { return b.getAffineDimExpr(i); };
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> ins = {in};
  SmallVector<AffineExpr> inExprs = {d(0), d(1)}, outExprs = {d(0), d(1)};
  SmallVector<AffineMap> maps = {AffineMap()};
  for (unsigned i = 0; i < spatial; ++i) {
    ins.push_back(adaptiveWeights(b, loc, inType.getDimSize(2 + i),
                                  outType.getDimSize(2 + i), et));
    inExprs.push_back(d(2 + spatial + i));
    outExprs.push_back(d(2 + i));
    maps.push_back(AffineMap::get(dims, 0, {d(2 + spatial + i), d(2 + i)}, ctx));
  }
  maps[0] = AffineMap::get(dims, 0, inExprs, ctx);
  maps.push_back(AffineMap::get(dims, 0, outExprs, ctx));
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(2 + spatial, IteratorType::parallel);
  iterators.append(spatial, IteratorType::reduction);
  Value init = poolInit(b, loc, outType, in, 0.0);
  auto generic = linalg::GenericOp::create(
      b, loc, outType, ins, init, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        // Elements outside the window (a zero weight) are skipped, not
        // multiplied by 0: a NaN or infinity there must not reach it.
        Value p = a[0];
        Value outside =
            arith::ConstantOp::create(nb, l, nb.getBoolAttr(false)).getResult();
        Value zero = scalarConstant(nb, l, et, 0.0);
        for (unsigned i = 0; i < spatial; ++i) {
          Value w = castScalar(nb, l, a[1 + i], et);
          outside = arith::OrIOp::create(
              nb, l, outside,
              arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, w, zero));
          p = arith::MulFOp::create(nb, l, p, w);
        }
        Value acc = a[1 + spatial];
        Value sum = arith::AddFOp::create(nb, l, acc, p);
        linalg::YieldOp::create(
            nb, l, arith::SelectOp::create(nb, l, outside, acc, sum).getResult());
      });
  return SmallVector<Value>{
      buildReshape(b, loc, generic.getResult(0), resultType.getShape())};
}

/// Adaptive max pooling: windows of varying size and start, so one generic
/// over (n, c, o..., k...) with k up to the largest window, reading the
/// input with tensor.extract at min(start(o) + k, end(o) - 1) (a repeated
/// element does not change a max; maximumf propagates NaN as torch does).
static FailureOr<SmallVector<Value>> lowerAdaptiveMaxPool(LoweringCall &c,
                                                          unsigned spatial) {
  RankedTensorType resultType = c.resultType();
  Value x = c.tensor("input");
  if (!resultType || !x || !staticTensorType(x))
    return c.fail("expected a statically shaped input");
  if (c.getBool("return_indices") != false)
    return c.fail("return_indices=True is not supported");
  if (!isa<FloatType>(resultType.getElementType()))
    return c.fail("only floating-point inputs are supported");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value in = batched(c, x, spatial);
  RankedTensorType outType = batchedType(resultType, spatial);
  if (outType.getNumElements() == 0)
    return c.fail("an empty output is not supported");
  auto inType = cast<RankedTensorType>(in.getType());
  SmallVector<int64_t> inSizes, outSizes, largest;
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t size = inType.getDimSize(2 + i), out = outType.getDimSize(2 + i);
    int64_t k = 1;
    for (int64_t o = 0; o < out; ++o) {
      auto [start, end] = adaptiveWindow(o, size, out);
      k = std::max(k, end - start);
    }
    inSizes.push_back(size);
    outSizes.push_back(out);
    largest.push_back(k);
  }
  Type et = resultType.getElementType();
  Value window = tensor::EmptyOp::create(b, loc, largest, et);
  Value init =
      buildFilled(b, loc, outType, -std::numeric_limits<double>::infinity());
  unsigned dims = 2 + 2 * spatial;
  auto d = [&](unsigned i) { return b.getAffineDimExpr(i); };
  SmallVector<AffineExpr> win, out = {d(0), d(1)};
  for (unsigned i = 0; i < spatial; ++i) {
    win.push_back(d(2 + spatial + i));
    out.push_back(d(2 + i));
  }
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {AffineMap::get(dims, 0, win, ctx),
                                 AffineMap::get(dims, 0, out, ctx)};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(2 + spatial, IteratorType::parallel);
  iterators.append(spatial, IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, outType, ValueRange{window}, init, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        auto constant = [&](int64_t v) {
          return arith::ConstantIndexOp::create(nb, l, v).getResult();
        };
        SmallVector<Value> indices = {linalg::IndexOp::create(nb, l, 0),
                                      linalg::IndexOp::create(nb, l, 1)};
        for (unsigned i = 0; i < spatial; ++i) {
          Value o = linalg::IndexOp::create(nb, l, 2 + i);
          Value k = linalg::IndexOp::create(nb, l, 2 + spatial + i);
          Value size = constant(inSizes[i]), count = constant(outSizes[i]);
          // start = o * in / out, end = ((o + 1) * in + out - 1) / out.
          Value start = arith::DivUIOp::create(
              nb, l, arith::MulIOp::create(nb, l, o, size), count);
          Value next = arith::AddIOp::create(nb, l, o, constant(1));
          Value end = arith::DivUIOp::create(
              nb, l,
              arith::AddIOp::create(nb, l,
                                    arith::MulIOp::create(nb, l, next, size),
                                    constant(outSizes[i] - 1)),
              count);
          Value last = arith::SubIOp::create(nb, l, end, constant(1));
          indices.push_back(arith::MinUIOp::create(
              nb, l, arith::AddIOp::create(nb, l, start, k), last));
        }
        Value v = tensor::ExtractOp::create(nb, l, in, indices);
        linalg::YieldOp::create(
            nb, l, arith::MaximumFOp::create(nb, l, a[1], v).getResult());
      });
  return SmallVector<Value>{
      buildReshape(b, loc, generic.getResult(0), resultType.getShape())};
}

/// lp_pool as torch composes it: avg_pool(x ** p) (no padding, the count
/// clipped to the input with ceil_mode), times the kernel's size, then
/// ** (1 / p); sign(a) * relu(|a|) in between is a itself.
static FailureOr<SmallVector<Value>> lowerLpPool(LoweringCall &c,
                                                 unsigned spatial) {
  RankedTensorType resultType = c.resultType();
  Value x = c.tensor("input");
  if (!resultType || !x || !staticTensorType(x))
    return c.fail("expected a statically shaped input");
  auto inType = cast<RankedTensorType>(x.getType());
  if (!isa<FloatType>(inType.getElementType()))
    return c.fail("only floating-point inputs are supported");
  std::optional<double> p = c.getFloat("norm_type");
  if (!p)
    return c.fail("norm_type must be a constant");
  FailureOr<PoolParams> w = windowOf(c, spatial);
  if (failed(w))
    return failure();
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Type et = inType.getElementType();
  double exponent = *p;
  Value powered = buildElementwise(
      b, loc, inType, {x}, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value e = scalarConstant(nb, l, et, exponent);
        return math::PowFOp::create(nb, l, a[0], e).getResult();
      });
  RankedTensorType outType = batchedType(resultType, spatial);
  Value avg = buildAvgPool(c, batched(c, powered, spatial), outType, *w,
                           /*includePad=*/true, std::nullopt);
  int64_t windowSize = 1;
  for (int64_t k : w->kernel)
    windowSize *= k;
  Value out = buildElementwise(
      b, loc, outType, {avg}, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value scaled = arith::MulFOp::create(
            nb, l, a[0], scalarConstant(nb, l, et, double(windowSize)));
        return math::PowFOp::create(nb, l, scaled,
                                    scalarConstant(nb, l, et, 1.0 / exponent))
            .getResult();
      });
  return SmallVector<Value>{buildReshape(b, loc, out, resultType.getShape())};
}

//===----------------------------------------------------------------------===//
// Max pooling with indices (element 0 or 1 of a tuple-producing call, read
// by operator.getitem)
//===----------------------------------------------------------------------===//

namespace {
/// The input position of output `o` at window offset `k` along spatial dim
/// `i`, and whether it lies inside the input (null: always).
using PositionFn = llvm::function_ref<std::pair<Value, Value>(
    OpBuilder &, Location, unsigned i, Value o, Value k)>;
} // namespace

/// Max pooling of `in` (N, C, spatial...) into (values, int64 indices) of
/// `outType`'s shape, as torch computes them: the first position inside
/// the input starts the window, a larger value or a NaN replaces it (the
/// last NaN wins), and the index is flattened over the spatial input. One
/// generic over (n, c, o..., k...) extracts the input at `position`.
static std::pair<Value, Value>
buildMaxWithIndices(OpBuilder &b, Location loc, Value in,
                    RankedTensorType outType, ArrayRef<int64_t> windowShape,
                    PositionFn position) {
  auto inType = cast<RankedTensorType>(in.getType());
  unsigned spatial = windowShape.size();
  Type et = outType.getElementType();
  auto indexType = RankedTensorType::get(outType.getShape(), b.getI64Type());
  Value window = tensor::EmptyOp::create(b, loc, windowShape, et);
  Value values =
      buildFilled(b, loc, outType, -std::numeric_limits<double>::infinity());
  Value indices = buildFilled(b, loc, indexType, -1.0);
  unsigned dims = 2 + 2 * spatial;
  auto d = [&](unsigned i) { return b.getAffineDimExpr(i); };
  SmallVector<AffineExpr> win, out = {d(0), d(1)};
  for (unsigned i = 0; i < spatial; ++i) {
    win.push_back(d(2 + spatial + i));
    out.push_back(d(2 + i));
  }
  MLIRContext *ctx = b.getContext();
  AffineMap outMap = AffineMap::get(dims, 0, out, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(dims, 0, win, ctx), outMap,
                                 outMap};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(2 + spatial, IteratorType::parallel);
  iterators.append(spatial, IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{outType, indexType}, ValueRange{window},
      ValueRange{values, indices}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value zero = arith::ConstantIndexOp::create(nb, l, 0);
        Value valid =
            arith::ConstantOp::create(nb, l, nb.getBoolAttr(true)).getResult();
        Value flat = zero;
        SmallVector<Value> at = {linalg::IndexOp::create(nb, l, 0),
                                 linalg::IndexOp::create(nb, l, 1)};
        for (unsigned i = 0; i < spatial; ++i) {
          Value o = linalg::IndexOp::create(nb, l, 2 + i);
          Value k = linalg::IndexOp::create(nb, l, 2 + spatial + i);
          auto [pos, inside] = position(nb, l, i, o, k);
          if (inside) {
            valid = arith::AndIOp::create(nb, l, valid, inside);
            // Positions outside the input are never read.
            pos = arith::SelectOp::create(nb, l, inside, pos, zero);
          }
          at.push_back(pos);
          Value size =
              arith::ConstantIndexOp::create(nb, l, inType.getDimSize(2 + i));
          flat = arith::AddIOp::create(
              nb, l, arith::MulIOp::create(nb, l, flat, size), pos);
        }
        Value v = tensor::ExtractOp::create(nb, l, in, at);
        Value best = a[1], bestIndex = a[2];
        Value none = arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(-1));
        Value first = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                            bestIndex, none);
        Value greater =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, v, best);
        Value nan =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v, v);
        Value take = arith::AndIOp::create(
            nb, l, valid,
            arith::OrIOp::create(nb, l, first,
                                 arith::OrIOp::create(nb, l, greater, nan)));
        Value index =
            arith::IndexCastOp::create(nb, l, nb.getI64Type(), flat);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, take, v, best),
                       arith::SelectOp::create(nb, l, take, index, bestIndex)});
      });
  return {generic.getResult(0), generic.getResult(1)};
}

namespace {
struct MaxPoolTarget {
  const char *name;
  unsigned spatial;
  bool adaptive;
};
const MaxPoolTarget kMaxPoolTargets[] = {
    {"torch.nn.functional.max_pool1d", 1, false},
    {"torch.nn.functional.max_pool2d", 2, false},
    {"torch.nn.functional.max_pool3d", 3, false},
    {"torch.nn.functional.max_pool1d_with_indices", 1, false},
    {"torch.nn.functional.max_pool2d_with_indices", 2, false},
    {"torch.nn.functional.max_pool3d_with_indices", 3, false},
    {"torch.nn.functional.adaptive_max_pool1d", 1, true},
    {"torch.nn.functional.adaptive_max_pool2d", 2, true},
    {"torch.nn.functional.adaptive_max_pool3d", 3, true},
    {"torch.nn.functional.adaptive_max_pool1d_with_indices", 1, true},
    {"torch.nn.functional.adaptive_max_pool2d_with_indices", 2, true},
    {"torch.nn.functional.adaptive_max_pool3d_with_indices", 3, true},
};
} // namespace

bool lowering::isMaxPoolWithIndices(StringRef target) {
  return llvm::any_of(kMaxPoolTargets, [&](const MaxPoolTarget &t) {
    return target == t.name;
  });
}

FailureOr<Value> lowering::lowerMaxPoolElement(LoweringCall &c, int64_t index,
                                               RankedTensorType type) {
  const MaxPoolTarget *target = llvm::find_if(
      kMaxPoolTargets,
      [&](const MaxPoolTarget &t) { return c.target() == t.name; });
  if (target == std::end(kMaxPoolTargets))
    return c.fail("not a max pooling call");
  unsigned spatial = target->spatial;
  Value x = c.tensor("input");
  if (!type || !x || !staticTensorType(x))
    return c.fail("expected a statically shaped input");
  auto inType = cast<RankedTensorType>(x.getType());
  if (!isa<FloatType>(inType.getElementType()))
    return c.fail("only floating-point inputs are supported");
  if (index < 0)
    index += 2;
  if (index != 0 && index != 1)
    return c.fail("index out of range of the (values, indices) tuple");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value in = batched(c, x, spatial);
  auto batchedIn = cast<RankedTensorType>(in.getType());
  RankedTensorType outType = batchedType(
      RankedTensorType::get(type.getShape(), inType.getElementType()), spatial);
  if (outType.getNumElements() == 0)
    return c.fail("an empty output is not supported");
  std::pair<Value, Value> pooled;
  auto constant = [](OpBuilder &nb, Location l, int64_t v) {
    return arith::ConstantIndexOp::create(nb, l, v).getResult();
  };
  if (target->adaptive) {
    SmallVector<int64_t> largest;
    for (unsigned i = 0; i < spatial; ++i) {
      int64_t size = batchedIn.getDimSize(2 + i),
              out = outType.getDimSize(2 + i), k = 1;
      for (int64_t o = 0; o < out; ++o) {
        auto [start, end] = adaptiveWindow(o, size, out);
        k = std::max(k, end - start);
      }
      largest.push_back(k);
    }
    // min(start + k, end - 1): a repeated position does not change the max
    // or (it never wins a strict comparison) the index.
    pooled = buildMaxWithIndices(
        b, loc, in, outType, largest,
        [&](OpBuilder &nb, Location l, unsigned i, Value o, Value k) {
          int64_t size = batchedIn.getDimSize(2 + i),
                  out = outType.getDimSize(2 + i);
          Value start = arith::DivUIOp::create(
              nb, l, arith::MulIOp::create(nb, l, o, constant(nb, l, size)),
              constant(nb, l, out));
          Value next = arith::AddIOp::create(nb, l, o, constant(nb, l, 1));
          Value end = arith::DivUIOp::create(
              nb, l,
              arith::AddIOp::create(
                  nb, l,
                  arith::MulIOp::create(nb, l, next, constant(nb, l, size)),
                  constant(nb, l, out - 1)),
              constant(nb, l, out));
          Value last = arith::SubIOp::create(nb, l, end, constant(nb, l, 1));
          Value pos = arith::MinUIOp::create(
              nb, l, arith::AddIOp::create(nb, l, start, k), last);
          return std::pair<Value, Value>{pos, Value()};
        });
  } else {
    FailureOr<PoolParams> w = windowOf(c, spatial);
    if (failed(w))
      return failure();
    // o * stride - padding + k * dilation, inside [0, size).
    pooled = buildMaxWithIndices(
        b, loc, in, outType, w->kernel,
        [&](OpBuilder &nb, Location l, unsigned i, Value o, Value k) {
          Value pos = arith::AddIOp::create(
              nb, l,
              arith::SubIOp::create(
                  nb, l,
                  arith::MulIOp::create(nb, l, o,
                                        constant(nb, l, w->stride[i])),
                  constant(nb, l, w->padding[i])),
              arith::MulIOp::create(nb, l, k,
                                    constant(nb, l, w->dilation[i])));
          Value low = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge,
                                            pos, constant(nb, l, 0));
          Value high = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::slt, pos,
              constant(nb, l, batchedIn.getDimSize(2 + i)));
          return std::pair<Value, Value>{
              pos, arith::AndIOp::create(nb, l, low, high).getResult()};
        });
  }
  Value result = index == 0 ? pooled.first : pooled.second;
  return buildReshape(b, loc, result, type.getShape());
}

void lowering::populatePoolLowerings(LoweringTable &t) {
  t["torch.nn.functional.max_pool1d"] = [](LoweringCall &c) {
    return lowerMaxPool(c, 1);
  };
  t["torch.nn.functional.max_pool2d"] = [](LoweringCall &c) {
    return lowerMaxPool(c, 2);
  };
  t["torch.nn.functional.max_pool3d"] = [](LoweringCall &c) {
    return lowerMaxPool(c, 3);
  };
  t["torch.nn.functional.avg_pool1d"] = [](LoweringCall &c) {
    return lowerAvgPool(c, 1);
  };
  t["torch.nn.functional.avg_pool2d"] = [](LoweringCall &c) {
    return lowerAvgPool(c, 2);
  };
  t["torch.nn.functional.avg_pool3d"] = [](LoweringCall &c) {
    return lowerAvgPool(c, 3);
  };
  t["torch.nn.functional.adaptive_avg_pool1d"] = [](LoweringCall &c) {
    return lowerAdaptiveAvgPool(c, 1);
  };
  t["torch.nn.functional.adaptive_avg_pool2d"] = [](LoweringCall &c) {
    return lowerAdaptiveAvgPool(c, 2);
  };
  t["torch.nn.functional.adaptive_avg_pool3d"] = [](LoweringCall &c) {
    return lowerAdaptiveAvgPool(c, 3);
  };
  t["torch.nn.functional.adaptive_max_pool1d"] = [](LoweringCall &c) {
    return lowerAdaptiveMaxPool(c, 1);
  };
  t["torch.nn.functional.adaptive_max_pool2d"] = [](LoweringCall &c) {
    return lowerAdaptiveMaxPool(c, 2);
  };
  t["torch.nn.functional.adaptive_max_pool3d"] = [](LoweringCall &c) {
    return lowerAdaptiveMaxPool(c, 3);
  };
  // Lowered where operator.getitem reads element 0 or 1.
  for (const char *name : {"torch.nn.functional.max_pool1d_with_indices",
                           "torch.nn.functional.max_pool2d_with_indices",
                           "torch.nn.functional.max_pool3d_with_indices",
                           "torch.nn.functional.adaptive_max_pool1d_with_indices",
                           "torch.nn.functional.adaptive_max_pool2d_with_indices",
                           "torch.nn.functional.adaptive_max_pool3d_with_indices"})
    t[name] = [](LoweringCall &c) -> FailureOr<SmallVector<Value>> {
      return c.fail("only the indexed values or indices (result[0] or "
                    "result[1]) can be compiled");
    };
  t["torch.nn.functional.lp_pool1d"] = [](LoweringCall &c) {
    return lowerLpPool(c, 1);
  };
  t["torch.nn.functional.lp_pool2d"] = [](LoweringCall &c) {
    return lowerLpPool(c, 2);
  };
}
