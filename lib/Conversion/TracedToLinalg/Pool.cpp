//===- Pool.cpp - max, average and adaptive average pooling ---------------===//
//
// Max and average pooling pad explicitly (with -inf or 0, far enough for
// ceil_mode) and use `linalg.pooling_nchw_max` / `linalg.pooling_nchw_sum`;
// the average divides by PyTorch's per-window count, computed at compile
// time. Adaptive average pooling is separable: one contraction with two
// constant weight matrices, exact for any input and output size.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <limits>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

namespace {
struct Window {
  SmallVector<int64_t> kernel, stride, padding, dilation;
};
} // namespace

static FailureOr<Window> windowOf(LoweringCall &c, bool hasDilation) {
  Window w;
  auto k = c.getInts("kernel_size", 2);
  auto s = c.getInts("stride", 2);
  auto p = c.getInts("padding", 2);
  if (!k || !p)
    return c.fail("kernel_size and padding must be constants");
  w.kernel = *k;
  w.padding = *p;
  if (c.isNone("stride") || (s && s->empty()))
    w.stride = w.kernel;
  else if (s)
    w.stride = *s;
  else
    return c.fail("stride must be a constant");
  w.dilation = {1, 1};
  if (hasDilation) {
    auto d = c.getInts("dilation", 2);
    if (!d)
      return c.fail("dilation must be a constant");
    w.dilation = *d;
  }
  for (auto *v : {&w.kernel, &w.stride, &w.padding, &w.dilation})
    if (v->size() != 2)
      return c.fail("pooling parameters need 2 values");
  return w;
}

/// The input as NCHW (a 3-D input gets a batch of one).
static Value asNchw(LoweringCall &c, Value x) {
  auto t = cast<RankedTensorType>(x.getType());
  if (t.getRank() == 4)
    return x;
  return buildReshape(c.rewriter, c.loc, x,
                      {1, t.getDimSize(0), t.getDimSize(1), t.getDimSize(2)});
}

static RankedTensorType asNchwType(RankedTensorType t) {
  if (t.getRank() == 4)
    return t;
  return RankedTensorType::get(
      {1, t.getDimSize(0), t.getDimSize(1), t.getDimSize(2)},
      t.getElementType());
}

/// Pads `x` (NCHW) for windows producing `out`'s spatial size.
static Value padForWindows(LoweringCall &c, Value x, RankedTensorType out,
                           const Window &w, double value) {
  auto t = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> low = {0, 0}, high = {0, 0};
  for (int i = 0; i < 2; ++i) {
    int64_t size = t.getDimSize(2 + i), o = out.getDimSize(2 + i);
    int64_t needed = (o - 1) * w.stride[i] + (w.kernel[i] - 1) * w.dilation[i] + 1;
    low.push_back(w.padding[i]);
    high.push_back(std::max<int64_t>(0, needed - size - w.padding[i]));
  }
  return buildPad(c.rewriter, c.loc, x, low, high, value);
}

static FailureOr<SmallVector<Value>> lowerMaxPool(LoweringCall &c) {
  RankedTensorType resultType = c.resultType();
  Value x = c.tensor("input");
  if (!resultType || !x || !staticTensorType(x))
    return c.fail("expected a statically shaped input");
  if (c.getBool("return_indices") != false)
    return c.fail("return_indices=True is not supported");
  if (!isa<FloatType>(resultType.getElementType()))
    return c.fail("only floating-point inputs are supported");
  FailureOr<Window> w = windowOf(c, /*hasDilation=*/true);
  if (failed(w))
    return failure();
  OpBuilder &b = c.rewriter;
  RankedTensorType outType = asNchwType(resultType);
  double ninf = -std::numeric_limits<double>::infinity();
  Value padded = padForWindows(c, asNchw(c, x), outType, *w, ninf);
  Value window = tensor::EmptyOp::create(b, c.loc, w->kernel,
                                         resultType.getElementType());
  Value init = buildFilled(b, c.loc, outType, ninf);
  Value out = linalg::PoolingNchwMaxOp::create(
                  b, c.loc, TypeRange{outType}, ValueRange{padded, window},
                  ValueRange{init}, b.getI64VectorAttr(w->stride),
                  b.getI64VectorAttr(w->dilation))
                  .getResult(0);
  return SmallVector<Value>{buildReshape(b, c.loc, out, resultType.getShape())};
}

static FailureOr<SmallVector<Value>> lowerAvgPool(LoweringCall &c) {
  RankedTensorType resultType = c.resultType();
  Value x = c.tensor("input");
  if (!resultType || !x || !staticTensorType(x))
    return c.fail("expected a statically shaped input");
  if (!isa<FloatType>(resultType.getElementType()))
    return c.fail("only floating-point inputs are supported");
  FailureOr<Window> w = windowOf(c, /*hasDilation=*/false);
  std::optional<bool> includePad = c.getBool("count_include_pad");
  std::optional<int64_t> divisor = c.getInt("divisor_override");
  if (failed(w))
    return failure();
  if (!includePad || (!divisor && !c.isNone("divisor_override")))
    return c.fail("count_include_pad and divisor_override must be constants");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  RankedTensorType outType = asNchwType(resultType);
  Value in = asNchw(c, x);
  int64_t h = cast<RankedTensorType>(in.getType()).getDimSize(2),
          wd = cast<RankedTensorType>(in.getType()).getDimSize(3);
  Value padded = padForWindows(c, in, outType, *w, 0.0);
  Value window =
      tensor::EmptyOp::create(b, loc, w->kernel, resultType.getElementType());
  Value init = buildFilled(b, loc, outType, 0.0);
  Value sum = linalg::PoolingNchwSumOp::create(
                  b, loc, TypeRange{outType}, ValueRange{padded, window},
                  ValueRange{init}, b.getI64VectorAttr(w->stride),
                  b.getI64VectorAttr(w->dilation))
                  .getResult(0);
  // PyTorch's divisor per output position.
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  std::vector<float> counts;
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t xo = 0; xo < ow; ++xo) {
      counts.push_back(
          divisor ? *divisor
                  : avgPoolDivisor({y * w->stride[0] - w->padding[0],
                                    w->kernel[0], h, w->padding[0]},
                                   {xo * w->stride[1] - w->padding[1],
                                    w->kernel[1], wd, w->padding[1]},
                                   *includePad));
    }
  auto countType = RankedTensorType::get({oh, ow}, b.getF32Type());
  Value countTensor = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(countType, ArrayRef<float>(counts)));
  AffineMap id = b.getMultiDimIdentityMap(4);
  AffineMap spatial = AffineMap::get(
      4, 0, {b.getAffineDimExpr(2), b.getAffineDimExpr(3)}, b.getContext());
  Value out = buildElementwise(b, loc, outType, {sum, countTensor},
                               {id, spatial},
                               [](OpBuilder &nb, Location l, ValueRange a) {
                                 return arith::DivFOp::create(nb, l, a[0], a[1])
                                     .getResult();
                               });
  return SmallVector<Value>{buildReshape(b, loc, out, resultType.getShape())};
}

/// The (out, in) f32 matrix averaging adaptive windows along one dimension
/// (the contraction casts its entries to the input's element type).
static Value adaptiveWeights(OpBuilder &b, Location loc, int64_t in,
                             int64_t out) {
  std::vector<float> m(out * in, 0.0f);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i0 = (o * in) / out, i1 = ((o + 1) * in + out - 1) / out;
    for (int64_t i = i0; i < i1; ++i)
      m[o * in + i] = 1.0f / static_cast<float>(i1 - i0);
  }
  auto type = RankedTensorType::get({out, in}, b.getF32Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, ArrayRef<float>(m)));
}

static FailureOr<SmallVector<Value>> lowerAdaptiveAvgPool(LoweringCall &c) {
  RankedTensorType resultType = c.resultType();
  Value x = c.tensor("input");
  if (!resultType || !x || !staticTensorType(x))
    return c.fail("expected a statically shaped input");
  if (!isa<FloatType>(resultType.getElementType()))
    return c.fail("only floating-point inputs are supported");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value in = asNchw(c, x);
  RankedTensorType outType = asNchwType(resultType);
  auto inType = cast<RankedTensorType>(in.getType());
  int64_t h = inType.getDimSize(2), wd = inType.getDimSize(3);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  Type et = resultType.getElementType();
  Value ah = adaptiveWeights(b, loc, h, oh);
  Value aw = adaptiveWeights(b, loc, wd, ow);
  Value init = buildFilled(b, loc, outType, 0.0);
  // out(n, c, y, x) += in(n, c, i, j) * ah(y, i) * aw(x, j)
  auto d = [&](unsigned i) { return b.getAffineDimExpr(i); };
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0, {d(0), d(1), d(4), d(5)}, ctx),
      AffineMap::get(6, 0, {d(2), d(4)}, ctx),
      AffineMap::get(6, 0, {d(3), d(5)}, ctx),
      AffineMap::get(6, 0, {d(0), d(1), d(2), d(3)}, ctx)};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators = {
      IteratorType::parallel,  IteratorType::parallel,
      IteratorType::parallel,  IteratorType::parallel,
      IteratorType::reduction, IteratorType::reduction};
  auto generic = linalg::GenericOp::create(
      b, loc, outType, ValueRange{in, ah, aw}, init, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value wy = castScalar(nb, l, a[1], et), wx = castScalar(nb, l, a[2], et);
        Value p = arith::MulFOp::create(nb, l, a[0], wy);
        p = arith::MulFOp::create(nb, l, p, wx);
        linalg::YieldOp::create(nb, l,
                                arith::AddFOp::create(nb, l, a[3], p).getResult());
      });
  return SmallVector<Value>{
      buildReshape(b, loc, generic.getResult(0), resultType.getShape())};
}

void lowering::populatePoolLowerings(LoweringTable &t) {
  t["torch.nn.functional.max_pool2d"] = lowerMaxPool;
  t["torch.nn.functional.avg_pool2d"] = lowerAvgPool;
  t["torch.nn.functional.adaptive_avg_pool2d"] = lowerAdaptiveAvgPool;
}
