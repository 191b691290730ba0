//===- Factory.cpp - zeros_like, ones_like, full_like, new_*, fill --------===//
//
// Tensors made from another's shape (and dtype, unless `dtype=` says): a
// filled tensor of the result type, the fill a number or a 0-d tensor
// converted to the result's dtype. Factories of sizes (torch.zeros,
// torch.arange, ...) with constant arguments become constants in
// traced-decompose (Decompose/Factory.cpp); with sizes known only at run
// time (sizes as values, docs/llm.md) they are lowered here.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

/// zeros_like / ones_like / full_like / new_zeros / new_ones / new_full /
/// fill: a filled tensor of the result type; `v`, or the number argument
/// `name`.
static FailureOr<SmallVector<Value>> lowerFillLike(LoweringCall &c,
                                                   std::optional<double> v,
                                                   StringRef name = "fill_value") {
  RankedTensorType type = c.logicalResultType();
  if (!type) {
    // Dynamic dims (sizes as values): `*_like` takes the input's sizes,
    // `new_*` its traced `size` list.
    type = c.logicalResultType(0, /*dynamic=*/true);
    Value like = c.tensor("input");
    std::optional<SmallVector<OpFoldResult>> sizes =
        c.spec->signature.lookup("size") ? c.sizeList("size")
        : like ? std::optional<SmallVector<OpFoldResult>>(
                     dimSizes(c.rewriter, c.loc, like))
               : std::nullopt;
    if (!type || !sizes || sizes->size() != static_cast<size_t>(type.getRank()))
      return c.fail("the result's sizes are not known");
    if (!v)
      v = c.getFloat(name);
    if (!v)
      return c.fail("'" + name + "' must be a number (a tensor fill needs a "
                    "static shape)");
    return SmallVector<Value>{buildFilled(
        c.rewriter, c.loc, cast<RankedTensorType>(storageType(type)), *sizes, *v)};
  }
  if (!v) {
    // A (0-d) tensor value: converted to the result's dtype and broadcast.
    if (Value t = c.tensor(name))
      return SmallVector<Value>{buildElementwise(
          c.rewriter, c.loc, type, t,
          [](OpBuilder &, Location, ValueRange a) { return a[0]; },
          c.logicalElementTypes(t))};
    v = c.getFloat(name);
    if (!v)
      return c.fail("'" + name + "' must be a number or a tensor");
  }
  // A traced-type fill, stored like every result (bool as a byte).
  Value r = buildElementwise(
      c.rewriter, c.loc, type, {},
      [&](OpBuilder &b, Location loc, ValueRange) {
        return scalarConstant(b, loc, computeType(type.getElementType()), *v);
      });
  return SmallVector<Value>{r};
}

/// zeros / ones / full / empty whose sizes are traced ints: a filled tensor
/// of the result type, sized at run time.
static FailureOr<SmallVector<Value>> lowerSized(LoweringCall &c,
                                                std::optional<double> v) {
  RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
  std::optional<SmallVector<OpFoldResult>> sizes = c.sizeList("size");
  if (!type || !sizes || sizes->size() != static_cast<size_t>(type.getRank()))
    return c.fail("the sizes are not ints");
  if (!v && !(v = c.getFloat("fill_value")))
    return c.fail("the fill value is not a constant number");
  for (auto [d, s] : llvm::enumerate(*sizes))
    if (auto value = dyn_cast<Value>(s)) {
      Value zero = arith::ConstantIndexOp::create(c.rewriter, c.loc, 0);
      c.check(arith::CmpIOp::create(c.rewriter, c.loc, arith::CmpIPredicate::sge,
                                    value, zero),
              "negative dimension");
      // (A size the trace saw as static, by coincidence of the two traced
      // sizes, is checked rather than assumed.)
      if (!type.isDynamicDim(d))
        checkSameSize(c.rewriter, c.loc, s,
                      c.rewriter.getIndexAttr(type.getDimSize(d)),
                      "'" + c.target() + "': a size differs from the trace's "
                      "static one");
    }
  return SmallVector<Value>{
      buildFilled(c.rewriter, c.loc, cast<RankedTensorType>(storageType(type)),
                  *sizes, *v)};
}

/// arange(start, end, step) with bounds known at run time: ceil((end -
/// start) / step) elements, element i being start + i * step (computed in
/// int64 for integer results, in double for floating ones, as torch does).
static FailureOr<SmallVector<Value>> lowerArange(LoweringCall &c) {
  RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
  if (!type || type.getRank() != 1)
    return c.fail("the result is not a 1-D tensor");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value start = c.scalar("start"), end, step = c.scalar("step");
  if (c.isNone("end")) {
    end = start;
    start = arith::ConstantIntOp::create(b, loc, 0, 64);
  } else {
    end = c.scalar("end");
  }
  if (!start || !end || !step || start.getType().isInteger(1) ||
      end.getType().isInteger(1) || step.getType().isInteger(1))
    return c.fail("start, end and step must be numbers");
  bool integral = start.getType().isInteger(64) && end.getType().isInteger(64) &&
                  step.getType().isInteger(64);
  Value count;
  if (integral) {
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
    c.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, step, zero),
            "step must be nonzero");
    Value span = arith::SubIOp::create(b, loc, end, start);
    Value n = arith::CeilDivSIOp::create(b, loc, span, step);
    c.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, n, zero),
            "upper bound and larger bound inconsistent with step sign");
    count = arith::IndexCastOp::create(b, loc, b.getIndexType(), n);
  } else {
    auto toF64 = [&](Value v) -> Value {
      return v.getType().isF64() ? v
                                 : arith::SIToFPOp::create(b, loc, b.getF64Type(), v)
                                       .getResult();
    };
    start = toF64(start), end = toF64(end), step = toF64(step);
    Value zero = scalarConstant(b, loc, b.getF64Type(), 0);
    c.check(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, step, zero),
            "step must be nonzero");
    Value n = math::CeilOp::create(
        b, loc, arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, end, start),
                                      step));
    c.check(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, n, zero),
            "upper bound and larger bound inconsistent with step sign");
    count = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        arith::FPToSIOp::create(b, loc, b.getI64Type(), n));
  }
  auto storage = cast<RankedTensorType>(storageType(type));
  if (!type.isDynamicDim(0))
    checkSameSize(b, loc, count, b.getIndexAttr(type.getDimSize(0)),
                  "'torch.arange': the length differs from the trace's "
                  "static one");
  Value init = buildEmpty(b, loc, storage, {OpFoldResult(count)});
  Type element = computeType(type.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{storage}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(1)},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value i = arith::IndexCastOp::create(nb, nl, nb.getI64Type(),
                                             linalg::IndexOp::create(nb, nl, 0));
        Value v;
        if (integral) {
          v = arith::AddIOp::create(nb, nl, start,
                                    arith::MulIOp::create(nb, nl, i, step));
        } else {
          Value fi = arith::SIToFPOp::create(nb, nl, nb.getF64Type(), i);
          v = arith::AddFOp::create(nb, nl, start,
                                    arith::MulFOp::create(nb, nl, fi, step));
        }
        v = castScalar(nb, nl, v, element);
        if (v.getType() != storage.getElementType())
          v = castScalar(nb, nl, v, storage.getElementType());
        linalg::YieldOp::create(nb, nl, v);
      });
  return SmallVector<Value>{generic.getResult(0)};
}

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

void lowering::populateFactoryLowerings(LoweringTable &t) {
  t["torch.zeros_like"] = [](LoweringCall &c) { return lowerFillLike(c, 0.0); };
  t["torch.ones_like"] = [](LoweringCall &c) { return lowerFillLike(c, 1.0); };
  t["torch.full_like"] = [](LoweringCall &c) {
    return lowerFillLike(c, std::nullopt);
  };
  t["Tensor.new_zeros"] = [](LoweringCall &c) { return lowerFillLike(c, 0.0); };
  t["Tensor.new_ones"] = [](LoweringCall &c) { return lowerFillLike(c, 1.0); };
  t["Tensor.new_full"] = [](LoweringCall &c) {
    return lowerFillLike(c, std::nullopt);
  };
  t["torch.fill"] = [](LoweringCall &c) {
    return lowerFillLike(c, std::nullopt, "value");
  };
  t["torch.zeros"] = [](LoweringCall &c) { return lowerSized(c, 0.0); };
  t["torch.ones"] = [](LoweringCall &c) { return lowerSized(c, 1.0); };
  t["torch.empty"] = [](LoweringCall &c) { return lowerSized(c, 0.0); };
  t["torch.full"] = [](LoweringCall &c) {
    return lowerSized(c, std::nullopt);
  };
  t["torch.arange"] = lowerArange;
}
