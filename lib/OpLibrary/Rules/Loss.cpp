//===- Loss.cpp - result rules of the losses -----------------------------===//
//
// The op table (OpTable.cpp) names these rules; Common.h holds what
// several families share.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

namespace mlir::traced::rules {

/// A loss's reduction: `reduction`, or the legacy size_average/reduce
/// flags when one is given; nullopt when not constant.
static std::optional<std::string> lossReduction(const BoundCall &call) {
  auto flag = [&](StringRef name) -> std::optional<bool> {
    if (!call.getSignature().lookup(name) || call.isNone(name))
      return std::nullopt;
    return call.getBool(name);
  };
  std::optional<bool> sizeAverage = flag("size_average"), reduce = flag("reduce");
  if (sizeAverage || reduce)
    return std::string(reduce == false         ? "none"
                       : sizeAverage == false ? "sum"
                                              : "mean");
  Attribute r = call.get("reduction").value;
  if (auto s = dyn_cast_or_null<StringAttr>(r))
    return s.getValue().str();
  // ATen's Reduction enum (aten::mse_loss(..., int reduction=1)).
  if (auto i = dyn_cast_or_null<IntegerAttr>(r); i && !isa<BoolAttr>(r))
    if (i.getInt() >= 0 && i.getInt() <= 2)
      return std::string(i.getInt() == 0 ? "none"
                         : i.getInt() == 1 ? "mean"
                                           : "sum");
  return std::nullopt;
}

/// mse/l1/smooth_l1/huber/bce/kl_div: the promoted floating dtype; the
/// broadcast shape for reduction='none', else a 0-d result.
LogicalResult pointwiseLoss(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input"), target = h.tensor("target");
  std::optional<std::string> reduction = lossReduction(call);
  if (!in || !target || !reduction)
    return h.unknown();
  std::optional<DType> inDType = dtypeFromType(in.getElementType()),
                      targetDType = dtypeFromType(target.getElementType());
  if (!inDType || !targetDType)
    return h.unknown();
  std::string error;
  auto operand = [](RankedTensorType t, DType d) {
    return PromotionOperand{d, t.getRank() ? PromotionPriority::Tensor
                                           : PromotionPriority::ZeroDim};
  };
  std::optional<DType> dtype =
      lossResultDType(lossTyping(call.getTarget()), operand(in, *inDType),
                      operand(target, *targetDType), error);
  if (!dtype)
    return call.emitError() << error;
  if (lossTyping(call.getTarget()) == LossTyping::ResultType) {
    std::optional<bool> logInput = call.getBool("log_input");
    if (!logInput)
      return h.unknown();
    dtype = poissonNllDTypes(operand(in, *inDType), operand(target, *targetDType), *logInput)
                .result;
    // full=True adds Stirling's term, log of the target in its dtype,
    // which torch 1.13 has no float16 kernel for.
    if (call.getBool("full").value_or(false) && target.getElementType().isF16())
      return call.emitError() << "\"log_vml_cpu\" not implemented for 'Half' "
                                 "(full=True takes the log of a float16 target)";
  }
  // bce_with_logits computes pos_weight - 1, which torch refuses for bool.
  if (call.getSignature().lookup("pos_weight"))
    if (RankedTensorType pw = call.getTensor("pos_weight");
        pw && pw.getElementType().isInteger(1))
      return call.emitError() << "Subtraction, the `-` operator, with a bool "
                                 "tensor is not supported (pos_weight)";
  // kl_div with log_target computes exp(target) in the target's dtype,
  // which torch 1.13 has no float16 kernel for.
  if (call.getSignature().lookup("log_target") &&
      call.getBool("log_target").value_or(false) &&
      target.getElementType().isF16())
    return call.emitError() << "exp of a float16 target (log_target=True): "
                               "torch 1.13 has no CPU kernel for it";
  // The binary cross entropies take no broadcasting (torch raises
  // ValueError for a target of another size).
  LossTyping typing = lossTyping(call.getTarget());
  if ((typing == LossTyping::SameDType || typing == LossTyping::AsTarget) &&
      in.getShape() != target.getShape())
    return call.emitError() << "expects a target of the input's size, got "
                            << in << " and " << target;
  Type elt = typeFromDType(call.getContext(), *dtype);
  if (*reduction != "none" && *reduction != "mean" && *reduction != "sum" &&
      !(*reduction == "batchmean" && call.getSignature().lookup("log_target")))
    return call.emitError() << "'" << *reduction
                            << "' is not a valid value for reduction";
  if (*reduction != "none")
    return h.result({}, elt);
  return h.broadcastResult(in.getShape(), target.getShape(), elt);
}

/// The margin and embedding losses (marginLossType): the loss's dtype, its
/// shape for reduction='none', else 0-d.
LogicalResult marginLoss(const BoundCall &call, RuleHelper &h) {
  std::optional<std::string> reduction = lossReduction(call);
  bool unknown = !reduction;
  auto operand = [&](StringRef name) -> std::optional<LossOperand> {
    if (call.isNone(name))
      return std::nullopt;
    RankedTensorType t = call.getTensor(name);
    std::optional<DType> d = t ? dtypeFromType(t.getElementType()) : std::nullopt;
    if (!d || !t.hasStaticShape()) {
      unknown = true;
      return LossOperand{DType::F32, {}};
    }
    return LossOperand{*d, SmallVector<int64_t>(t.getShape())};
  };
  // (Every operand is read first, so that an unknown one answers unknown.)
  for (const auto &param : call.getSignature().params)
    if (param.type.kind == ParamType::Tensor && !param.type.isList)
      (void)operand(param.name);
  if (unknown)
    return h.unknown();
  if (*reduction != "none" && *reduction != "mean" && *reduction != "sum")
    return call.emitError() << "'" << *reduction
                            << "' is not a valid value for reduction";
  StringRef name = call.getTarget();
  if (name.ends_with("multi_margin_loss")) {
    std::optional<double> p = call.getFloat("p");
    if (!p)
      return h.unknown();
    if (*p != 1 && *p != 2)
      return call.emitError() << "only p == 1 and p == 2 supported";
  }
  std::string error;
  std::optional<MarginLossType> type = marginLossType(name, operand, error);
  if (!type)
    return call.emitError() << error;
  if (*reduction == "mean" && isIntegral(type->dtype))
    return call.emitError() << meanOfIntegersError(type->dtype);
  Type elt = typeFromDType(call.getContext(), type->dtype);
  if (*reduction != "none")
    return h.result({}, elt);
  return h.result(type->shape, elt);
}

/// nll_loss and cross_entropy: the input's dtype; for reduction='none'
/// the target's shape (class indices) or the input's without the class
/// dim (probabilities), else 0-d.
LogicalResult classLoss(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input"), target = h.tensor("target");
  std::optional<std::string> reduction = lossReduction(call);
  if (!in || !target || !reduction)
    return h.unknown();
  if (!isa<FloatType>(in.getElementType()) || in.getRank() < 1)
    return call.emitError() << "expects a floating-point input with a class "
                               "dimension, got "
                            << in;
  if (*reduction != "none" && *reduction != "mean" && *reduction != "sum")
    return call.emitError() << "'" << *reduction
                            << "' is not a valid value for reduction";
  if (*reduction != "none")
    return h.result({}, in.getElementType());
  if (isa<FloatType>(target.getElementType())) {
    SmallVector<int64_t> shape(in.getShape());
    shape.erase(shape.begin() + (in.getRank() == 1 ? 0 : 1));
    return h.result(shape, in.getElementType());
  }
  return h.result(target.getShape(), in.getElementType());
}

/// ctc_loss: log_probs (T, N, C) or unbatched (T, C), float32 or float64
/// (torch's CPU kernel has no other); targets of an integer dtype; the
/// lengths both tensors (N) (0-d unbatched) or both int lists; the
/// input's dtype, (N) for reduction='none' (0-d unbatched), else 0-d.
LogicalResult ctcLoss(const BoundCall &call, RuleHelper &h) {
  RankedTensorType lp = h.tensor("log_probs"), tg = h.tensor("targets");
  std::optional<std::string> reduction = lossReduction(call);
  std::optional<int64_t> blank = call.getInt("blank");
  if (!lp || !tg || !reduction || !blank)
    return h.unknown();
  if (lp.getRank() != 3 && lp.getRank() != 2)
    return call.emitError() << "log_probs must be (T, N, C) or (T, C), got "
                            << lp;
  if (!lp.getElementType().isF32() && !lp.getElementType().isF64())
    return call.emitError() << "\"ctc_loss_cpu\" is implemented for float32 "
                               "and float64 log_probs only, got "
                            << lp.getElementType();
  if (!isa<IntegerType>(tg.getElementType()) || tg.getElementType().isInteger(1) ||
      tg.getRank() < 1 || tg.getRank() > 2)
    return call.emitError() << "targets must be a 1-D or 2-D integer tensor, got "
                            << tg;
  bool unbatched = lp.getRank() == 2;
  int64_t n = unbatched ? 1 : lp.getDimSize(1), c = lp.getDimSize(lp.getRank() - 1);
  if (!ShapedType::isDynamic(c) && (*blank < 0 || *blank >= c))
    return call.emitError() << "blank must be in label range";
  RankedTensorType il = h.tensor("input_lengths"), tl = h.tensor("target_lengths");
  std::optional<SmallVector<int64_t>> ilInts = call.getInts("input_lengths"),
                                      tlInts = call.getInts("target_lengths");
  if (il && tl) {
    for (RankedTensorType t : {il, tl}) {
      if (!isa<IntegerType>(t.getElementType()) || t.getElementType().isInteger(1))
        return call.emitError() << "the lengths must be integer tensors";
      if (t.getRank() != (unbatched ? 0 : 1) ||
          (!unbatched && !ShapedType::isDynamic(n) && !t.isDynamicDim(0) &&
           t.getDimSize(0) != n))
        return call.emitError() << "the lengths must hold one value per "
                                   "sequence ("
                                << n << "), got " << t;
    }
  } else if (ilInts && tlInts) {
    if (static_cast<int64_t>(ilInts->size()) != n ||
        static_cast<int64_t>(tlInts->size()) != n)
      return call.emitError() << "the lengths must hold one value per "
                                 "sequence ("
                              << n << ")";
  } else if ((il || tl) && (ilInts || tlInts)) {
    return call.emitError() << "input_lengths and target_lengths must both "
                               "be tensors or both be int lists";
  } else {
    return h.unknown();
  }
  if (unbatched && tg.getRank() != 1)
    return call.emitError() << "unbatched targets must be 1-D, got " << tg;
  if (*reduction != "none" && *reduction != "mean" && *reduction != "sum")
    return call.emitError() << "'" << *reduction
                            << "' is not a valid value for reduction";
  if (*reduction != "none" || unbatched)
    return h.result({}, lp.getElementType());
  return h.result({n}, lp.getElementType());
}

/// aten::nll_loss_forward: (nll_loss's result, its 0-d total weight).
LogicalResult nllLossForward(const BoundCall &call, RuleHelper &h) {
  LogicalResult loss = classLoss(call, h);
  if (failed(loss) || h.results.empty())
    return loss;
  // (classLoss typed the known input.)
  Type total =
      RankedTensorType::get({}, call.getTensor("input").getElementType());
  h.results[0] = TupleType::get(call.getContext(), {h.results[0], total});
  return success();
}

} // namespace mlir::traced::rules
