//===- Loss.cpp - losses that do not decompose -----------------------------===//
//
// Most losses are formulas of other ops (lib/Transforms/Decompose/Loss.cpp).
// ctc_loss is a recursion over each sequence's own (run-time) length: a
// call of the loss runtime (docs/linalg-runtime.md, "The loss runtime"),
// then zero_infinity and the reduction as generics.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <limits>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

/// ctc_loss: the loss runtime's per-sequence negative log-likelihoods
/// (LossRuntime.h: a recursion over each sequence's own length), then
/// zero_infinity and the reduction as generics.
static FailureOr<SmallVector<Value>> lowerCtcLoss(LoweringCall &c) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value lp = c.tensor("log_probs"), tg = c.tensor("targets");
  std::optional<int64_t> blank = c.getInt("blank");
  std::optional<bool> zeroInf = c.getBool("zero_infinity");
  auto reductionAttr = dyn_cast_or_null<StringAttr>(c.value("reduction"));
  std::optional<std::string> reduction;
  if (reductionAttr)
    reduction = reductionAttr.getValue().str();
  RankedTensorType lpType = staticTensorType(lp), tgType = staticTensorType(tg);
  RankedTensorType type = c.resultType();
  if (!lpType || !tgType || !blank || !zeroInf || !reduction || !type)
    return c.fail("expected static log_probs and targets and constant blank, "
                  "reduction and zero_infinity");
  bool unbatched = lpType.getRank() == 2;
  int64_t time = lpType.getDimSize(0), n = unbatched ? 1 : lpType.getDimSize(1),
          classes = lpType.getDimSize(lpType.getRank() - 1);
  bool twoD = tgType.getRank() == 2 || unbatched;
  int64_t s = tgType.getShape().back();
  Type i64 = b.getI64Type(), f = lpType.getElementType();
  auto asI64 = [&](Value v, ArrayRef<int64_t> shape) {
    return buildElementwise(b, loc, RankedTensorType::get(shape, i64), {v},
                            [](OpBuilder &, Location, ValueRange a) { return a[0]; },
                            {c.logicalElementType(v)});
  };
  // The lengths: int64 tensors of N, from tensors or from int lists.
  auto lengths = [&](StringRef name) -> Value {
    if (Value t = c.tensor(name))
      return staticTensorType(t) ? buildReshape(b, loc, asI64(t, staticTensorType(t).getShape()), {n})
                                 : Value();
    std::optional<SmallVector<int64_t>> ints = c.getInts(name);
    if (!ints)
      return Value();
    auto cType = RankedTensorType::get({n}, i64);
    return buildConstant(b, loc, DenseElementsAttr::get(cType, ArrayRef<int64_t>(*ints)));
  };
  Value il = lengths("input_lengths"), tl = lengths("target_lengths");
  if (!il || !tl)
    return c.fail("expected static length tensors or constant int lists");
  Value targets = asI64(tg, tgType.getShape());
  RuntimeCall call = buildRuntimeCall(
      b, loc, c.op, f.isF32() ? "traced_ctc_loss_f32_memref" : "traced_ctc_loss_f64_memref",
      {lp, targets, il, tl}, {RankedTensorType::get({n}, f)},
      {time, n, classes, s, twoD ? 1 : 0, *blank});
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  c.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, call.status, zero),
          "ctc_loss: an input length above the input's T, a target length "
          "beyond the targets, or a target outside [0, C)");
  Value nll = call.results[0];
  auto nType = RankedTensorType::get({n}, f);
  if (*zeroInf)
    nll = buildElementwise(b, loc, nType, {nll}, [&](OpBuilder &nb, Location l, ValueRange a) {
      Value inf = scalarConstant(nb, l, f, std::numeric_limits<double>::infinity());
      Value isInf = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, a[0], inf);
      return arith::SelectOp::create(nb, l, isInf, scalarConstant(nb, l, f, 0.0), a[0])
          .getResult();
    });
  if (*reduction == "none")
    return SmallVector<Value>{buildReshape(b, loc, nll, type.getShape())};
  if (*reduction == "mean")
    nll = buildElementwise(
        b, loc, nType, {nll, tl},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value one = scalarConstant(nb, l, f, 1.0);
          Value len = arith::MaximumFOp::create(nb, l, a[1], one);
          return arith::DivFOp::create(nb, l, a[0], len).getResult();
        },
        {f, i64});
  Value sum = buildReduce(b, loc, nll, {0}, 0.0, [](OpBuilder &nb, Location l, ValueRange a) {
    return arith::AddFOp::create(nb, l, a[0], a[1]).getResult();
  });
  if (*reduction == "mean")
    sum = buildElementwise(b, loc, RankedTensorType::get({}, f), {sum},
                           [&](OpBuilder &nb, Location l, ValueRange a) {
                             return arith::DivFOp::create(
                                        nb, l, a[0],
                                        scalarConstant(nb, l, f, static_cast<double>(n)))
                                 .getResult();
                           });
  return SmallVector<Value>{sum};
}

void lowering::populateLossLowerings(LoweringTable &t) {
  t["torch.nn.functional.ctc_loss"] = lowerCtcLoss;
}
