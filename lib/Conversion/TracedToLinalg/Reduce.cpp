//===- Reduce.cpp - sum, mean, softmax and log_softmax --------------------===//

#include "Lowering.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

static FailureOr<SmallVector<Value>> lowerSumOrMean(LoweringCall &c) {
  bool mean = c.target() == "torch.mean";
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  Value x = c.tensor("input");
  std::optional<bool> keepdim = c.getBool("keepdim");
  if (!type || !x || !rankedTensorType(x) || !keepdim)
    return c.fail("expected a ranked input and a constant keepdim");
  // (dtype= is the result's element type: the input is converted to it
  // elementwise below, as torch converts before reducing.)
  auto xType = cast<RankedTensorType>(x.getType());
  RankedTensorType logical = c.logicalResultType(0, /*dynamic=*/true);
  Type resultElement = logical.getElementType();
  if (mean && !isa<FloatType>(resultElement))
    return c.fail("mean needs a floating-point input");
  int64_t rank = xType.getRank();
  // (sum(dim=[]) reduces everything, like dim=None.)
  std::optional<SmallVector<int64_t>> reduced = reductionDims(c.value("dim"), rank);
  if (!reduced)
    return c.fail("dim must be constant");
  SmallVector<int64_t> dims = *reduced;
  // (A mean divides by a count known at compile time.)
  if (mean && llvm::any_of(dims, [&](int64_t d) {
        return xType.isDynamicDim(d);
      }))
    return c.fail("a mean over a dynamic dim is not compiled");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  // Accumulated in the result's compute type (f32 for f16 and bf16, as
  // torch does; int64 for sums of bools and ints), the input converted
  // elementwise first.
  Type accumulate = computeType(resultElement);
  Value x2 = x;
  if (xType.getElementType() != accumulate ||
      c.logicalElementType(x) != accumulate)
    x2 = buildElementwise(
        b, loc, RankedTensorType::get(xType.getShape(), accumulate), x,
        [](OpBuilder &, Location, ValueRange a) { return a[0]; },
        c.logicalElementTypes(x));
  Value sum = buildReduce(b, loc, x2, dims, 0.0,
                          [](OpBuilder &nb, Location l, ValueRange a) {
                            if (isa<FloatType>(a[0].getType()))
                              return arith::AddFOp::create(nb, l, a[0], a[1])
                                  .getResult();
                            return arith::AddIOp::create(nb, l, a[0], a[1])
                                .getResult();
                          });
  // Rounded to the result type, then (mean) divided by the count, as torch
  // does (sum(...).div_(n)): for f16 each step rounds once.
  auto sumType = cast<RankedTensorType>(sum.getType());
  if (sumType.getElementType() != resultElement)
    sum = buildElementwise(
        b, loc, RankedTensorType::get(sumType.getShape(), resultElement), sum,
        [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  if (mean) {
    int64_t count = 1;
    for (int64_t d : dims)
      count *= xType.getDimSize(d);
    sum = buildElementwise(
        b, loc, RankedTensorType::get(sumType.getShape(), resultElement), sum,
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value n = scalarConstant(nb, l, a[0].getType(),
                                   static_cast<double>(count));
          return arith::DivFOp::create(nb, l, a[0], n).getResult();
        });
  }
  return SmallVector<Value>{buildReshape(b, loc, sum, type.getShape())};
}

static FailureOr<SmallVector<Value>> lowerSoftmax(LoweringCall &c) {
  // (Dynamic dims: buildSoftmax takes the sizes from the input.)
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  Value x = c.tensor("input");
  std::optional<int64_t> dim = c.getInt("dim");
  if (type && c.isNone("dim"))
    dim = implicitSoftmaxDim(type.getRank());
  if (!type || !x || !dim)
    return c.fail("expected a ranked input and a constant dim");
  RankedTensorType logical = c.logicalResultType(0, /*dynamic=*/true);
  Type resultElement = logical.getElementType();
  if (!isa<FloatType>(resultElement))
    return c.fail("only floating-point results are supported");
  // Computed in f32 for float16/bfloat16 (rounded once at the end), after
  // the conversion to dtype= when one is given.
  OpBuilder &b = c.rewriter;
  Type compute = computeType(resultElement);
  auto identity = [](OpBuilder &, Location, ValueRange a) { return a[0]; };
  auto xType = cast<RankedTensorType>(x.getType());
  Value x2 = x;
  if (xType.getElementType() != compute || c.logicalElementType(x) != compute)
    x2 = buildElementwise(b, c.loc,
                          RankedTensorType::get(xType.getShape(), compute), x,
                          identity, c.logicalElementTypes(x));
  bool log = c.target() == "torch.nn.functional.log_softmax";
  Value r = buildSoftmax(b, c.loc, x2, *dim, log);
  if (compute != resultElement)
    r = buildElementwise(b, c.loc, logical, r, identity);
  return SmallVector<Value>{r};
}

/// The dims a reduction's `dim` argument names (None or []: all).
static std::optional<SmallVector<int64_t>> reducedDims(LoweringCall &c,
                                                       int64_t rank) {
  return reductionDims(c.value("dim"), rank);
}

/// amax and amin (NaN propagates, as in torch), and prod (in the result
/// dtype's compute type: int64 for bools and ints).
static FailureOr<SmallVector<Value>> lowerExtremeOrProd(LoweringCall &c) {
  StringRef target = c.target();
  bool prod = target == "torch.prod", isMax = target == "torch.amax";
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  Value x = c.tensor("input");
  std::optional<bool> keepdim = c.getBool("keepdim");
  if (!type || !x || !rankedTensorType(x) || !keepdim)
    return c.fail("expected a ranked input and a constant keepdim");
  auto xType = cast<RankedTensorType>(x.getType());
  std::optional<SmallVector<int64_t>> dims = reducedDims(c, xType.getRank());
  if (!dims)
    return c.fail("dim must be constant");
  for (int64_t d : *dims) {
    if (!prod && xType.getDimSize(d) == 0)
      return c.fail("the reduced dimension has size 0 (torch raises)");
    // (torch raises on an empty one, which a dynamic dim may be.)
    if (!prod && xType.isDynamicDim(d))
      return c.fail("amax and amin over a dynamic dim are not compiled");
  }
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Type resultElement =
      c.logicalResultType(0, /*dynamic=*/true).getElementType();
  Type compute = computeType(resultElement);
  bool isUnsigned = isUnsignedElement(resultElement) || resultElement.isInteger(1);
  Value x2 = x;
  if (xType.getElementType() != compute || c.logicalElementType(x) != compute)
    x2 = buildElementwise(
        b, loc, RankedTensorType::get(xType.getShape(), compute), x,
        [](OpBuilder &, Location, ValueRange a) { return a[0]; },
        c.logicalElementTypes(x));
  double init = prod ? 1 : extremeIdentity(compute, isMax, isUnsigned);
  Value r = buildReduce(
      b, loc, x2, *dims, init, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Type t = a[0].getType();
        if (prod)
          return isa<FloatType>(t)
                     ? arith::MulFOp::create(nb, l, a[0], a[1]).getResult()
                     : (t.isInteger(1)
                            ? arith::AndIOp::create(nb, l, a[0], a[1]).getResult()
                            : arith::MulIOp::create(nb, l, a[0], a[1]).getResult());
        return buildExtreme(nb, l, a[0], a[1], isMax, isUnsigned);
      });
  auto rType = cast<RankedTensorType>(r.getType());
  if (compute != resultElement || rType.getElementType() != type.getElementType())
    r = buildElementwise(
        b, loc, RankedTensorType::get(rType.getShape(), resultElement), r,
        [](OpBuilder &, Location, ValueRange a) { return a[0]; },
        {compute});
  return SmallVector<Value>{buildReshape(b, loc, r, type.getShape())};
}

/// argmax and argmin along one dim (None: over the flattened input): one
/// generic carrying the best value and its index. NaN counts as the
/// extreme (torch propagates it) and ties keep the first index, whatever
/// order the loop runs in.
static FailureOr<SmallVector<Value>> lowerArgExtreme(LoweringCall &c) {
  bool isMax = c.target() == "torch.argmax";
  RankedTensorType type = c.resultType();
  Value x = c.tensor("input");
  if (!type || !x || !staticTensorType(x))
    return c.fail("expected a statically shaped input");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  auto xType = cast<RankedTensorType>(x.getType());
  Type logical = c.logicalElementType(x);
  int64_t dim = 0;
  if (c.isNone("dim") || xType.getRank() == 0) {
    x = buildReshape(b, loc, x, {xType.getNumElements()});
    xType = cast<RankedTensorType>(x.getType());
  } else {
    std::optional<int64_t> given = c.getInt("dim");
    if (!given)
      return c.fail("dim must be a constant");
    dim = normalizeDim(*given, xType.getRank());
  }
  if (xType.getDimSize(dim) == 0)
    return c.fail("the reduced dimension has size 0 (torch raises)");
  Type compute = computeType(logical);
  bool isFloat = isa<FloatType>(compute);
  bool isUnsigned = isUnsignedElement(logical);
  double init = extremeIdentity(compute, isMax, isUnsigned);
  int64_t rank = xType.getRank();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    iterators.push_back(d == dim ? utils::IteratorType::reduction
                                 : utils::IteratorType::parallel);
    if (d != dim) {
      shape.push_back(xType.getDimSize(d));
      outExprs.push_back(b.getAffineDimExpr(d));
    }
  }
  Type i64 = b.getI64Type();
  Value bestInit = buildFilled(b, loc, RankedTensorType::get(shape, compute), init);
  Value indexInit = buildFilled(b, loc, RankedTensorType::get(shape, i64), 0);
  AffineMap outMap = AffineMap::get(rank, 0, outExprs, b.getContext());
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank), outMap, outMap};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{bestInit.getType(), indexInit.getType()}, x,
      ValueRange{bestInit, indexInit}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = castScalar(nb, l, args[0], compute, isUnsigned);
        Value best = args[1], bestIndex = args[2];
        Value i = arith::IndexCastOp::create(nb, l, i64,
                                             linalg::IndexOp::create(nb, l, dim));
        Value earlier = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, i, bestIndex);
        Value take;
        if (isFloat) {
          Value better = arith::CmpFOp::create(
              nb, l, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, v, best);
          Value same = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, v, best);
          Value vNan = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v, v);
          Value bestNan = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, best, best);
          Value notBestNan = arith::XOrIOp::create(
              nb, l, bestNan, arith::ConstantIntOp::create(nb, l, 1, 1));
          // A NaN beats any number; between NaNs (and equals) the earlier wins.
          Value nanWins = arith::AndIOp::create(nb, l, vNan, notBestNan);
          Value bothNan = arith::AndIOp::create(nb, l, vNan, bestNan);
          Value tie = arith::AndIOp::create(
              nb, l, arith::OrIOp::create(nb, l, same, bothNan), earlier);
          take = arith::OrIOp::create(
              nb, l, arith::OrIOp::create(nb, l, nanWins, arith::AndIOp::create(nb, l, better, notBestNan)),
              tie);
        } else {
          arith::CmpIPredicate pred =
              isMax ? (isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                    : (isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt);
          Value better = arith::CmpIOp::create(nb, l, pred, v, best);
          Value same = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, v, best);
          take = arith::OrIOp::create(nb, l, better,
                                      arith::AndIOp::create(nb, l, same, earlier));
        }
        Value newBest = arith::SelectOp::create(nb, l, take, v, best);
        Value newIndex = arith::SelectOp::create(nb, l, take, i, bestIndex);
        linalg::YieldOp::create(nb, l, ValueRange{newBest, newIndex});
      });
  return SmallVector<Value>{
      buildReshape(b, loc, generic.getResult(1), type.getShape())};
}

/// cumsum and cumprod: out[..., i, ...] = x[..., 0, ...] + ... + x[..., i,
/// ...], one generic with a second, reduction loop j over the dim whose
/// body adds x[j] where j <= i. Accumulated in torch's CPU accumulate type
/// (double for float32 and float64, float for float16 and bfloat16, int64
/// for integers), in order, then converted to the result dtype.
static FailureOr<SmallVector<Value>> lowerCumulative(LoweringCall &c) {
  bool prod = c.target() == "torch.cumprod";
  RankedTensorType type = c.resultType();
  Value x = c.tensor("input");
  std::optional<int64_t> given = c.getInt("dim");
  if (!type || !x || !staticTensorType(x) || !given)
    return c.fail("expected a static input and a constant dim");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Type resultElement = c.logicalResultType().getElementType();
  Type accumulate = isa<FloatType>(resultElement)
                        ? (resultElement.isF16() || resultElement.isBF16()
                               ? Type(b.getF32Type())
                               : Type(b.getF64Type()))
                        : Type(b.getI64Type());
  // (The traced element types of the operand, read before a 0-d one is
  // reshaped: the reshaped value has none, and uint8 would widen signed.)
  auto logical = c.logicalElementTypes(x);
  auto xType = cast<RankedTensorType>(x.getType());
  if (xType.getRank() == 0)
    x = buildReshape(b, loc, x, {1});
  xType = cast<RankedTensorType>(x.getType());
  int64_t rank = xType.getRank();
  int64_t dim = normalizeDim(*given, rank);
  Value x2 = buildElementwise(
      b, loc, RankedTensorType::get(xType.getShape(), accumulate), x,
      [](OpBuilder &, Location, ValueRange a) { return a[0]; }, logical);
  // Loops d0..d{rank-1} over the result, then j over the dim.
  SmallVector<AffineExpr> inExprs;
  for (int64_t d = 0; d < rank; ++d)
    inExprs.push_back(b.getAffineDimExpr(d == dim ? rank : d));
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(b.getAffineDimExpr(d));
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank + 1, 0, inExprs, b.getContext()),
      AffineMap::get(rank + 1, 0, outExprs, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto accType = RankedTensorType::get(xType.getShape(), accumulate);
  Value init = buildFilled(b, loc, accType, prod ? 1.0 : 0.0);
  auto generic = linalg::GenericOp::create(
      b, loc, accType, x2, init, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value i = linalg::IndexOp::create(nb, l, dim);
        Value j = linalg::IndexOp::create(nb, l, rank);
        Value in = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ule, j, i);
        Value combined;
        if (isa<FloatType>(accumulate))
          combined = prod ? arith::MulFOp::create(nb, l, a[1], a[0]).getResult()
                          : arith::AddFOp::create(nb, l, a[1], a[0]).getResult();
        else
          combined = prod ? arith::MulIOp::create(nb, l, a[1], a[0]).getResult()
                          : arith::AddIOp::create(nb, l, a[1], a[0]).getResult();
        linalg::YieldOp::create(nb, l, arith::SelectOp::create(nb, l, in, combined, a[1]).getResult());
      });
  Value r = buildElementwise(
      b, loc, RankedTensorType::get(xType.getShape(), resultElement), generic.getResult(0),
      [](OpBuilder &, Location, ValueRange a) { return a[0]; }, {accumulate});
  return SmallVector<Value>{buildReshape(b, loc, r, type.getShape())};
}

FailureOr<Value> lowering::lowerModeElement(LoweringCall &c, int64_t index,
                                            RankedTensorType type) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value x = c.tensor("input");
  RankedTensorType xType = x ? dyn_cast<RankedTensorType>(x.getType()) : nullptr;
  std::optional<int64_t> dim = c.getInt("dim");
  if (!xType || !xType.hasStaticShape() || !type || !type.hasStaticShape() || !dim)
    return c.fail("expected a static input and a constant dim");
  if (index != 0 && index != 1)
    return c.fail("mode has two results (values, indices)");
  // The dim moved last, as the runtime reads runs of k elements; the values
  // widened to double or int64 (exactly, so the order and ties stay).
  int64_t rank = xType.getRank(), d = rank ? normalizeDim(*dim, rank) : 0;
  SmallVector<int64_t> perm, shape;
  for (int64_t i = 0; i < rank; ++i)
    if (i != d)
      perm.push_back(i);
  if (rank)
    perm.push_back(d);
  for (int64_t i : perm)
    shape.push_back(xType.getDimSize(i));
  int64_t k = rank ? xType.getDimSize(d) : 1;
  int64_t outer = k ? xType.getNumElements() / k : 0;
  Type logical = c.logicalElementType(x);
  Type wide = isa<FloatType>(logical) ? Type(b.getF64Type()) : Type(b.getI64Type());
  Value moved = rank ? buildTranspose(b, loc, x, perm) : x;
  Value widened = buildElementwise(
      b, loc, RankedTensorType::get(shape, wide), {moved},
      [](OpBuilder &, Location, ValueRange args) { return args[0]; }, {logical});
  RankedTensorType runs = RankedTensorType::get({outer}, wide);
  RuntimeCall call = callRuntime(c, "mode", wide, {widened},
                                 {runs, RankedTensorType::get({outer}, b.getI64Type())},
                                 {outer, k});
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  c.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, call.status, zero),
          "mode(): out of memory");
  Value result = buildReshape(b, loc, call.results[index], type.getShape());
  if (index == 1)
    return result;
  // The values back in the input's type (exact: they were of it).
  return buildElementwise(
      b, loc, type, {result},
      [](OpBuilder &, Location, ValueRange args) { return args[0]; }, {wide});
}

void lowering::populateReduceLowerings(LoweringTable &t) {
  // Lowered where operator.getitem reads the values (0) or the indices (1)
  // (lowerModeElement).
  t["torch.mode"] = [](LoweringCall &c) -> FailureOr<SmallVector<Value>> {
    return c.fail("only the indexed values or indices (result[0] or result[1]) can be compiled");
  };
  t["torch.cumsum"] = lowerCumulative;
  t["torch.cumprod"] = lowerCumulative;
  t["torch.argmax"] = lowerArgExtreme;
  t["torch.argmin"] = lowerArgExtreme;
  t["torch.amax"] = lowerExtremeOrProd;
  t["torch.amin"] = lowerExtremeOrProd;
  t["torch.prod"] = lowerExtremeOrProd;
  t["torch.sum"] = lowerSumOrMean;
  t["torch.mean"] = lowerSumOrMean;
  t["torch.nn.functional.softmax"] = lowerSoftmax;
  t["torch.nn.functional.log_softmax"] = lowerSoftmax;
}
