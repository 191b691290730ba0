//===- Loss.cpp - decompositions of the loss functions --------------------===//
//
// The pointwise loss of each function (aten/src/ATen/native/Loss.cpp in
// PyTorch 1.13), then its reduction: 'none', 'mean' or 'sum', or the legacy
// size_average/reduce flags.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

#include "TracedIR/OpLibrary/Runtime.h"
#include "TracedIR/Support/DType.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;


/// The reduction a loss call asks for ("none", "mean", "sum"), the legacy
/// flags taking precedence as in torch's legacy_get_string; nullopt when an
/// argument is not a constant.
static std::optional<std::string> reductionOf(Decomposer &d) {
  bool legacy = d.bound.spec->signature.lookup("size_average").has_value();
  if (legacy && (!d.isNone("size_average") || !d.isNone("reduce"))) {
    std::optional<bool> sizeAverage = true, reduce = true;
    if (!d.isNone("size_average"))
      sizeAverage = d.getBool("size_average");
    if (!d.isNone("reduce"))
      reduce = d.getBool("reduce");
    if (!sizeAverage || !reduce)
      return std::nullopt;
    return !*reduce ? "none" : (*sizeAverage ? "mean" : "sum");
  }
  // (ATen spellings pass the enum: 0 none, 1 mean, 2 sum.)
  if (std::optional<int64_t> e = d.getInt("reduction")) {
    if (*e >= 0 && *e <= 2)
      return std::string(*e == 0 ? "none" : *e == 1 ? "mean" : "sum");
    return std::nullopt;
  }
  return d.getStr("reduction");
}

/// Applies the call's reduction to the pointwise loss.
static Results reduce(Decomposer &d, Value loss) {
  std::optional<std::string> reduction = reductionOf(d);
  if (!reduction)
    return d.decline("the reduction is not a constant");
  // Losses typed by their input or target (LossTyping) compute in the
  // promoted dtype and store in the result's.
  if (RankedTensorType result = d.resultTensorType())
    loss = d.cast(loss, result.getElementType());
  if (*reduction == "none")
    return one(loss);
  if (*reduction == "mean")
    return one(d.unary("torch.mean", loss));
  if (*reduction == "sum")
    return one(d.unary("torch.sum", loss));
  return d.decline("unknown reduction '" + *reduction + "'");
}

/// input - target as torch's losses compute it: they broadcast the two
/// first (broadcast_tensors), so a 0-d input no longer gives way to the
/// target's dtype: the two promote as dimensioned tensors do (a 0-d float64
/// input against a bfloat16 target subtracts in float64; fuzz-diff).
static Value diff(Decomposer &d) {
  RankedTensorType a = d.tensorType("input"), b = d.tensorType("target");
  std::optional<DType> da = a ? dtypeFromType(a.getElementType()) : std::nullopt;
  std::optional<DType> db = b ? dtypeFromType(b.getElementType()) : std::nullopt;
  if (!da || !db)
    return d.binary("torch.sub", d.arg("input"), d.arg("target"));
  Type common = typeFromDType(d.ctx, promoteDTypes(*da, *db));
  return d.binary("torch.sub", d.cast(d.tensor("input"), common),
                  d.cast(d.tensor("target"), common));
}

/// The negative log-likelihood of class-index targets, through a one-hot
/// mask: picked[n, ...] = input[n, target[n, ...], ...]. Returns the
/// pointwise loss and the per-element weights (0 where ignored).
ClassMask decompose::classMask(Decomposer &d, RankedTensorType type, Value target) {
  int64_t rank = type.getRank(), classDim = rank >= 2 ? 1 : 0;
  SmallVector<int64_t> classShape(rank, 1);
  classShape[classDim] = type.getDimSize(classDim);
  auto rangeType = RankedTensorType::get(classShape, d.b.getI64Type());
  Value range = d.tensorConstant(rangeType, [&](ArrayRef<int64_t> i) {
    return static_cast<double>(i[classDim]);
  });
  Value t = d.call("torch.unsqueeze", {{"input", target}, {"dim", d.i64(classDim)}});
  return {d.binary("torch.eq", t, range), classDim, classShape};
}

static std::pair<Value, Value> nllTerms(Decomposer &d, Value input, Value target,
                                        int64_t ignoreIndex) {
  auto type = cast<RankedTensorType>(input.getType());
  ClassMask classes = classMask(d, type, target);
  // A target outside the classes selects nothing in the mask, which would
  // read as a loss of 0; torch raises.
  assertInRange(d, target, 0, type.getDimSize(classes.classDim) - 1,
                "Target is out of bounds.", ignoreIndex);
  Value mask = classes.mask;
  int64_t classDim = classes.classDim;
  auto pick = [&](Value v) {
    return d.call("torch.sum", {{"input", d.call("torch.where", {{"condition", mask},
                                                                  {"input", v},
                                                                  {"other", d.i64(0)}})},
                                {"dim", d.ints({classDim})}});
  };
  Value picked = pick(input);
  Value valid = d.binary("torch.ne", target, d.i64(ignoreIndex));
  Value w;
  if (Value weight = d.tensor("weight")) {
    Value wb = d.call("torch.reshape", {{"input", weight}, {"shape", d.ints(classes.classShape)}});
    w = d.call("Tensor.masked_fill", {{"input", pick(d.call("Tensor.expand_as", {{"input", wb}, {"other", input}}))},
                                      {"mask", d.unary("torch.logical_not", valid)},
                                      {"value", d.i64(0)}});
  } else {
    w = d.cast(valid, type.getElementType());
  }
  // An ignored element's loss is 0 whatever its input (inf or NaN too), as
  // torch skips it: selected, not multiplied by its zero weight.
  Value loss = d.unary("torch.neg", d.binary("torch.mul", picked, w));
  return {d.call("torch.where", {{"condition", valid}, {"input", loss}, {"other", d.i64(0)}}), w};
}

static Results decomposeNllLoss(Decomposer &d) {
  Value input = d.tensor("input"), target = d.tensor("target");
  auto ignore = d.getInt("ignore_index");
  RankedTensorType type = input ? cast<RankedTensorType>(input.getType()) : RankedTensorType();
  if (!ignore || !type || !type.hasStaticShape() || type.getRank() == 0)
    return d.decline("needs a constant ignore_index and a static input");
  std::optional<std::string> reduction = reductionOf(d);
  if (!reduction)
    return d.decline("the reduction is not a constant");
  auto [loss, w] = nllTerms(d, input, target, *ignore);
  if (*reduction == "none")
    return one(loss);
  Value total = d.unary("torch.sum", loss);
  if (*reduction == "sum")
    return one(total);
  return one(d.binary("torch.div", total, d.unary("torch.sum", w)));
}

/// aten::nll_loss_forward: (output, total_weight), reduction 0 none, 1
/// mean, 2 sum.
static Results decomposeNllLossForward(Decomposer &d) {
  Value input = d.tensor("input"), target = d.tensor("target");
  auto ignore = d.getInt("ignore_index"), reduction = d.getInt("reduction");
  RankedTensorType type = input ? cast<RankedTensorType>(input.getType()) : RankedTensorType();
  if (!ignore || !reduction || !type || !type.hasStaticShape() || type.getRank() == 0)
    return d.decline("needs constant arguments and a static input");
  auto [loss, w] = nllTerms(d, input, target, *ignore);
  Value totalWeight = d.unary("torch.sum", w);
  Value out = loss;
  if (*reduction == 2)
    out = d.unary("torch.sum", loss);
  else if (*reduction == 1)
    out = d.binary("torch.div", d.unary("torch.sum", loss), totalWeight);
  if (*reduction == 0 && type.getRank() >= 2) {
    // (torch leaves total_weight 0 when a batch is not reduced; an
    // unbatched input still has its target's weight.)
    totalWeight = d.binary("torch.mul", totalWeight, d.i64(0));
  }
  if (!out || !totalWeight)
    return failure();
  return SmallVector<Value>{out, totalWeight};
}

/// cross_entropy: nll_loss of log_softmax for class indices; for class
/// probabilities, -sum(target * log_softmax) over the class dim.
static Results decomposeCrossEntropy(Decomposer &d) {
  Value input = d.tensor("input"), target = d.tensor("target");
  RankedTensorType type = input ? cast<RankedTensorType>(input.getType()) : RankedTensorType();
  auto smoothing = d.getFloat("label_smoothing");
  auto ignore = d.getInt("ignore_index");
  if (!type || !type.hasStaticShape() || type.getRank() == 0 || !smoothing || !ignore)
    return d.decline("needs a static input and constant arguments");
  std::optional<std::string> reduction = reductionOf(d);
  if (!reduction)
    return d.decline("the reduction is not a constant");
  int64_t classDim = type.getRank() >= 2 ? 1 : 0;
  int64_t classes = type.getDimSize(classDim);
  Value ls = d.call("torch.nn.functional.log_softmax",
                    {{"input", input}, {"dim", d.i64(classDim)}});
  if (!ls)
    return failure();
  // v times the class weights (when given) along the class dim.
  auto weighted = [&](Value v) {
    Value weight = d.tensor("weight");
    if (!weight)
      return v;
    SmallVector<int64_t> shape(type.getRank(), 1);
    shape[classDim] = classes;
    return d.binary("torch.mul", v,
                    d.call("torch.reshape", {{"input", weight}, {"shape", d.ints(shape)}}));
  };
  auto targetType = cast<RankedTensorType>(target.getType());
  if (isa<FloatType>(targetType.getElementType())) {
    Value p = target;
    if (*smoothing != 0)
      p = d.binary("torch.add", d.binary("torch.mul", p, d.f64(1 - *smoothing)),
                   d.f64(*smoothing / classes));
    Value prod = weighted(d.binary("torch.mul", ls, p));
    Value loss = d.unary("torch.neg", d.call("torch.sum", {{"input", prod},
                                                           {"dim", d.ints({classDim})}}));
    if (*reduction == "none")
      return one(loss);
    if (*reduction == "sum")
      return one(d.unary("torch.sum", loss));
    return one(d.unary("torch.mean", loss));
  }
  auto terms = nllTerms(d, ls, target, *ignore);
  Value loss = terms.first, w = terms.second;
  auto reduce = [&](Value v) -> Value {
    if (*reduction == "none")
      return v;
    Value total = d.unary("torch.sum", v);
    if (*reduction == "sum")
      return total;
    return d.binary("torch.div", total, d.unary("torch.sum", w));
  };
  Value nll = reduce(loss);
  if (*smoothing == 0)
    return one(nll);
  // Label smoothing (torch 1.13): (1 - e) nll + e / C * smooth, smooth the
  // (weighted) negative sum of log-probabilities, 0 where ignored, reduced
  // like nll (mean: over the targets' weights).
  Value smooth = d.unary("torch.neg", d.call("torch.sum", {{"input", weighted(ls)},
                                                           {"dim", d.ints({classDim})}}));
  smooth = d.call("Tensor.masked_fill",
                  {{"input", smooth},
                   {"mask", d.binary("torch.eq", target, d.i64(*ignore))},
                   {"value", d.i64(0)}});
  return one(d.binary("torch.add", d.binary("torch.mul", nll, d.f64(1 - *smoothing)),
                      d.binary("torch.mul", reduce(smooth), d.f64(*smoothing / classes))));
}

//===----------------------------------------------------------------------===//
// The margin and embedding losses, in torch 1.13's steps (so that each
// step's dtype is its own: marginLossType)
//===----------------------------------------------------------------------===//

static Value clampMin0(Decomposer &d, Value v) {
  return d.call("torch.clamp", {{"input", v}, {"min", d.i64(0)}});
}

static Value whereOr0(Decomposer &d, Value condition, Value v) {
  return d.call("torch.where", {{"condition", condition}, {"input", v}, {"other", d.i64(0)}});
}

static Value sumDims(Decomposer &d, Value v, ArrayRef<int64_t> dims) {
  return d.call("torch.sum", {{"input", v}, {"dim", d.ints(dims)}});
}

/// -target * (input1 - input2) + margin, clamped below at 0.
static Results decomposeMarginRanking(Decomposer &d) {
  std::optional<double> margin = d.getFloat("margin");
  if (!margin)
    return d.decline("margin is not a constant");
  Value diff = d.binary("torch.sub", d.arg("input1"), d.arg("input2"));
  Value v = d.binary("torch.mul", d.unary("torch.neg", d.tensor("target")), diff);
  return reduce(d, clampMin0(d, d.binary("torch.add", v, d.f64(*margin))));
}

/// where(target != 1, max(margin - input, 0), 0) + where(target != -1,
/// input, 0); margin - input in the input's dtype (an integer input
/// truncates the margin).
static Results decomposeHingeEmbedding(Decomposer &d) {
  std::optional<double> margin = d.getFloat("margin");
  RankedTensorType type = d.tensorType("input");
  if (!margin || !type)
    return d.decline("needs a constant margin and a ranked input");
  Attribute m = isa<FloatType>(type.getElementType())
                    ? d.f64(*margin)
                    : d.i64(static_cast<int64_t>(std::trunc(*margin)));
  Value x = d.tensor("input"), t = d.tensor("target");
  Value lower = clampMin0(d, d.call("torch.rsub", {{"input", x}, {"other", m}}));
  Value out = d.binary("torch.add", whereOr0(d, d.binary("torch.ne", t, d.i64(1)), lower),
                       whereOr0(d, d.binary("torch.ne", t, d.i64(-1)), x));
  return reduce(d, out);
}

/// cos = sum(x1 x2) / sqrt((sum(x1^2) + 1e-12) (sum(x2^2) + 1e-12)) over
/// the target's dim; where(target == 1, 1 - cos, 0) + where(target == -1,
/// max(cos - margin, 0), 0).
static Results decomposeCosineEmbedding(Decomposer &d) {
  std::optional<double> margin = d.getFloat("margin");
  RankedTensorType target = d.tensorType("target");
  if (!margin || !target)
    return d.decline("needs a constant margin and a ranked target");
  int64_t dim = target.getRank();
  Value a = d.tensor("input1"), b = d.tensor("input2"), t = d.tensor("target");
  double eps = static_cast<float>(1e-12);
  auto squares = [&](Value v) {
    return d.binary("torch.add", sumDims(d, d.binary("torch.mul", v, v), {dim}), d.f64(eps));
  };
  Value denom = d.unary("torch.sqrt", d.binary("torch.mul", squares(a), squares(b)));
  Value cos = d.binary("torch.div", sumDims(d, d.binary("torch.mul", a, b), {dim}), denom);
  Value pos = d.call("torch.rsub", {{"input", cos}, {"other", d.i64(1)}});
  Value neg = clampMin0(d, d.binary("torch.sub", cos, d.f64(*margin)));
  return reduce(d, d.binary("torch.add", whereOr0(d, d.binary("torch.eq", t, d.i64(1)), pos),
                            whereOr0(d, d.binary("torch.eq", t, d.i64(-1)), neg)));
}

/// 0.5 (log(var) + (input - target)^2 / var) [+ 0.5 log(2 pi)], var clamped
/// below at eps; torch's check that var has no negative entry is a
/// run-time assertion.
static Results decomposeGaussianNll(Decomposer &d) {
  std::optional<double> eps = d.getFloat("eps");
  std::optional<bool> full = d.getBool("full");
  RankedTensorType in = d.tensorType("input"), var = d.tensorType("var");
  if (!eps || !full || !in || !var)
    return d.decline("needs constant eps and full and ranked operands");
  Value v = d.tensor("var");
  // (any(var < 0): a NaN var passes.)
  d.call("torch._assert",
         {{"condition", d.unary("torch.logical_not",
                                d.call("torch.any", {{"input", d.binary("torch.lt", v, d.i64(0))}}))},
          {"message", d.str("var has negative entry/entries")}});
  if (var.getShape() != in.getShape() && in.getRank() &&
      var.getShape() == in.getShape().drop_back())
    v = d.call("torch.unsqueeze", {{"input", v}, {"dim", d.i64(-1)}});
  v = d.call("torch.clamp", {{"input", v}, {"min", d.f64(*eps)}});
  Value diff = d.binary("torch.sub", d.tensor("input"), d.tensor("target"));
  Value sq = d.call("torch.pow", {{"input", diff}, {"exponent", d.i64(2)}});
  Value loss = d.binary("torch.mul",
                        d.binary("torch.add", d.unary("torch.log", v), d.binary("torch.div", sq, v)),
                        d.f64(0.5));
  if (*full)
    loss = d.binary("torch.add", loss, d.f64(0.5 * std::log(2 * M_PI)));
  return reduce(d, loss);
}

/// -(target logsigmoid(input) + (1 - target) logsigmoid(-input)), times
/// weight, summed over the input's last dim and divided by its size.
static Results decomposeMultilabelSoftMargin(Decomposer &d) {
  RankedTensorType in = d.tensorType("input");
  if (!in || in.getRank() == 0 || ShapedType::isDynamic(in.getShape().back()))
    return d.decline("needs an input of static last dim");
  Value x = d.tensor("input"), t = d.tensor("target");
  Value pos = d.binary("torch.mul", t, d.unary("torch.nn.functional.logsigmoid", x));
  Value neg = d.binary("torch.mul", d.call("torch.rsub", {{"input", t}, {"other", d.i64(1)}}),
                       d.unary("torch.nn.functional.logsigmoid", d.unary("torch.neg", x)));
  Value loss = d.unary("torch.neg", d.binary("torch.add", pos, neg));
  if (!d.isNone("weight"))
    loss = d.binary("torch.mul", loss, d.arg("weight"));
  loss = d.binary("torch.div", sumDims(d, loss, {in.getRank() - 1}), d.i64(in.getShape().back()));
  return reduce(d, loss);
}

/// max(margin + d(anchor, positive) - d(anchor, negative), 0), d the
/// pairwise distance (swap: the smaller of d(a, n) and d(p, n)).
static Results decomposeTripletMargin(Decomposer &d) {
  std::optional<double> margin = d.getFloat("margin");
  std::optional<bool> swap = d.getBool("swap");
  if (!margin || !swap)
    return d.decline("margin and swap must be constants");
  auto distance = [&](StringRef x, StringRef y) {
    return d.call("torch.nn.functional.pairwise_distance",
                  {{"x1", d.arg(x)}, {"x2", d.arg(y)}, {"p", d.arg("p")}, {"eps", d.arg("eps")}});
  };
  Value pos = distance("anchor", "positive"), neg = distance("anchor", "negative");
  if (*swap)
    neg = d.binary("torch.minimum", neg, distance("positive", "negative"));
  Value v = d.binary("torch.sub", d.binary("torch.add", pos, d.f64(*margin)), neg);
  return reduce(d, clampMin0(d, v));
}

/// The [nframe, dim] view of a multi/multilabel margin loss's input and
/// the loss's unreduced shape.
struct ClassRows {
  int64_t nframe, dim;
  SmallVector<int64_t> unreduced;
};

static std::optional<ClassRows> classRows(Decomposer &d, bool perFrameTarget) {
  RankedTensorType in = d.tensorType("input"), target = d.tensorType("target");
  if (!in || !target || !in.hasStaticShape() || !target.hasStaticShape())
    return std::nullopt;
  ClassRows r{in.getRank() == 2 ? in.getDimSize(0) : 1,
              in.getRank() ? in.getShape().back() : 1, {}};
  bool batched = perFrameTarget ? target.getRank() > 0 : in.getRank() == 2;
  if (batched)
    r.unreduced.push_back(r.nframe);
  return r;
}

/// Per sample, the sum over classes d != y of max(margin - x[y] + x[d],
/// 0)^p (times weight[y]), divided by the number of classes.
static Results decomposeMultiMargin(Decomposer &d) {
  std::optional<double> p = d.getFloat("p");
  std::optional<double> margin = d.getFloat("margin");
  std::optional<ClassRows> rows = classRows(d, /*perFrameTarget=*/true);
  if (!p || !margin || !rows)
    return d.decline("needs constant p and margin and static operands");
  int64_t n = rows->nframe, dim = rows->dim;
  Value x = reshape(d, d.tensor("input"), {n, dim});
  Value t = reshape(d, d.tensor("target"), {n, 1});
  assertInRange(d, t, 0, dim - 1, "target out of range");
  Value xy = d.call("torch.gather", {{"input", x}, {"dim", d.i64(1)}, {"index", t}});
  Value z = d.binary("torch.add", d.call("torch.rsub", {{"input", xy}, {"other", d.f64(*margin)}}), x);
  // (torch adds only where z > 0: a NaN z, or an infinite weight times a
  // non-positive z, adds nothing.)
  Value h = *p == 2 ? d.binary("torch.mul", z, z) : z;
  if (!d.isNone("weight")) {
    Value w = d.call("torch.index_select", {{"input", d.tensor("weight")},
                                            {"dim", d.i64(0)},
                                            {"index", reshape(d, t, {n})}});
    h = d.binary("torch.mul", h, w ? reshape(d, w, {n, 1}) : Value());
  }
  h = whereOr0(d, d.binary("torch.gt", z, d.i64(0)), h);
  RankedTensorType classes = RankedTensorType::get({1, dim}, d.b.getI64Type());
  Value range = d.tensorConstant(classes, [](ArrayRef<int64_t> i) { return double(i[1]); });
  h = d.call("torch.where", {{"condition", d.binary("torch.eq", t, range)},
                             {"input", d.i64(0)}, {"other", h}});
  Value loss = d.binary("torch.div", sumDims(d, h, {1}), d.i64(dim));
  return reduce(d, reshape(d, loss, rows->unreduced));
}

/// Per sample, with its targets the indices before the first -1: the sum
/// over targets j and non-target classes i of max(1 - x[j] + x[i], 0),
/// divided by the number of classes.
static Results decomposeMultilabelMargin(Decomposer &d) {
  std::optional<ClassRows> rows = classRows(d, /*perFrameTarget=*/false);
  if (!rows)
    return d.decline("needs static operands");
  int64_t n = rows->nframe, dim = rows->dim;
  Value x = reshape(d, d.tensor("input"), {n, dim});
  Value t = reshape(d, d.tensor("target"), {n, dim});
  assertInRange(d, t, -1, dim - 1, "argument #2 'target' is out of range");
  // valid[f, j]: no -1 at or before j.
  Value ended = d.call("torch.cumsum", {{"input", d.binary("torch.eq", t, d.i64(-1))},
                                        {"dim", d.i64(1)}});
  Value valid = d.binary("torch.eq", ended, d.i64(0));
  RankedTensorType classes = RankedTensorType::get({1, 1, dim}, d.b.getI64Type());
  Value range = d.tensorConstant(classes, [](ArrayRef<int64_t> i) { return double(i[2]); });
  auto unsqueeze = [&](Value v, int64_t dim) {
    return d.call("torch.unsqueeze", {{"input", v}, {"dim", d.i64(dim)}});
  };
  // isTarget[f, i]: some valid j names i.
  Value names = d.call("torch.logical_and", {{"input", d.binary("torch.eq", unsqueeze(t, 2), range)},
                                             {"other", unsqueeze(valid, 2)}});
  Value isTarget = d.call("torch.any", {{"input", names}, {"dim", d.i64(1)}});
  Value xt = d.call("torch.gather", {{"input", x}, {"dim", d.i64(1)},
                                     {"index", clampMin0(d, t)}});
  // z[f, j, i] = 1 - x[t[f, j]] + x[f, i].
  Value z = d.binary("torch.add", d.call("torch.rsub", {{"input", unsqueeze(xt, 2)}, {"other", d.i64(1)}}),
                     unsqueeze(x, 1));
  Value keep = d.call("torch.logical_and",
                      {{"input", unsqueeze(valid, 2)},
                       {"other", unsqueeze(d.unary("torch.logical_not", isTarget), 1)}});
  keep = d.call("torch.logical_and", {{"input", keep}, {"other", d.binary("torch.gt", z, d.i64(0))}});
  Value loss = d.binary("torch.div", sumDims(d, whereOr0(d, keep, z), {1, 2}), d.i64(dim));
  return reduce(d, reshape(d, loss, rows->unreduced));
}

void decompose::populateLossDecompositions(DecompositionTable &t) {
  t["torch.nn.functional.margin_ranking_loss"] = decomposeMarginRanking;
  t["torch.nn.functional.hinge_embedding_loss"] = decomposeHingeEmbedding;
  t["torch.nn.functional.cosine_embedding_loss"] = decomposeCosineEmbedding;
  t["torch.nn.functional.gaussian_nll_loss"] = decomposeGaussianNll;
  t["torch.nn.functional.multilabel_soft_margin_loss"] = decomposeMultilabelSoftMargin;
  t["torch.nn.functional.triplet_margin_loss"] = decomposeTripletMargin;
  t["torch.nn.functional.multi_margin_loss"] = decomposeMultiMargin;
  t["torch.nn.functional.multilabel_margin_loss"] = decomposeMultilabelMargin;
  t["torch.nn.functional.nll_loss"] = decomposeNllLoss;
  t["torch.ops.aten.nll_loss_forward.default"] = decomposeNllLossForward;
  t["torch.nn.functional.cross_entropy"] = decomposeCrossEntropy;
  t["torch.nn.functional.mse_loss"] = [](Decomposer &d) -> Results {
    Value e = diff(d);
    return reduce(d, d.binary("torch.mul", e, e));
  };
  t["torch.nn.functional.l1_loss"] = [](Decomposer &d) -> Results {
    return reduce(d, d.unary("torch.abs", diff(d)));
  };
  // |e| < beta: 0.5 e^2 / beta; else |e| - 0.5 beta (beta 0: l1).
  t["torch.nn.functional.smooth_l1_loss"] = [](Decomposer &d) -> Results {
    std::optional<double> beta = d.getFloat("beta");
    if (!beta)
      return d.decline("beta is not a constant");
    Value e = d.unary("torch.abs", diff(d));
    if (*beta == 0)
      return reduce(d, e);
    Value quad = d.binary("torch.div",
                          d.binary("torch.mul", d.binary("torch.mul", e, e), d.f64(0.5)),
                          d.f64(*beta));
    Value lin = d.binary("torch.sub", e, d.f64(0.5 * *beta));
    return reduce(d, d.call("torch.where",
                            {{"condition", d.binary("torch.lt", e, d.f64(*beta))},
                             {"input", quad},
                             {"other", lin}}));
  };
  // |e| < delta: 0.5 e^2; else delta (|e| - 0.5 delta).
  t["torch.nn.functional.huber_loss"] = [](Decomposer &d) -> Results {
    std::optional<double> delta = d.getFloat("delta");
    if (!delta)
      return d.decline("delta is not a constant");
    Value e = d.unary("torch.abs", diff(d));
    Value quad = d.binary("torch.mul", d.binary("torch.mul", e, e), d.f64(0.5));
    Value lin = d.binary("torch.mul", d.binary("torch.sub", e, d.f64(0.5 * *delta)),
                         d.f64(*delta));
    return reduce(d, d.call("torch.where",
                            {{"condition", d.binary("torch.lt", e, d.f64(*delta))},
                             {"input", quad},
                             {"other", lin}}));
  };
  // log(1 + exp(-target * input)).
  // torch's in-place steps in the input's dtype: log(exp(-x * t) + 1), so
  // exp overflows where that dtype does.
  t["torch.nn.functional.soft_margin_loss"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto type = x ? dyn_cast<RankedTensorType>(x.getType()) : RankedTensorType();
    if (!type)
      return d.decline("the input is not a ranked tensor");
    Type element = type.getElementType();
    Value z = d.cast(d.binary("torch.mul", d.unary("torch.neg", x), d.arg("target")), element);
    Value e = d.cast(d.binary("torch.add", d.unary("torch.exp", z), d.i64(1)), element);
    return reduce(d, d.unary("torch.log", e));
  };
  // (target - 1) * max(log(1 - x), -100) - target * max(log(x), -100), times
  // weight.
  t["torch.nn.functional.binary_cross_entropy"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input"), y = d.tensor("target");
    // torch computes a float16 or bfloat16 loss in float32 and rounds the
    // result once; its log has no half-precision kernel: the call is
    // widened (widenToFloat32) and decomposed in float32.
    if (RankedTensorType xt = typeOf(x);
        xt && (xt.getElementType().isF16() || xt.getElementType().isBF16()))
      return d.decline("half precision is computed in float32");
    Value logX = d.call("torch.clamp", {{"input", d.unary("torch.log", x)},
                                        {"min", d.f64(-100)}});
    Value log1mX = d.call(
        "torch.clamp",
        {{"input", d.unary("torch.log",
                           d.call("torch.sub", {{"input", d.i64(1)}, {"other", x}}))},
         {"min", d.f64(-100)}});
    Value loss = d.binary("torch.sub",
                          d.binary("torch.mul", d.binary("torch.sub", y, d.i64(1)), log1mX),
                          d.binary("torch.mul", y, logX));
    if (!d.isNone("weight"))
      loss = d.binary("torch.mul", loss, d.arg("weight"));
    return reduce(d, loss);
  };
  // torch 1.13's steps, in its order (a bfloat16 chain rounds as torch's
  // does), with m = max(-x, 0):
  //   ((1 - y) x + m) + log(exp(-m) + exp(-x - m)), or with pos_weight
  //   (1 - y) x + lw (log(exp(-m) + exp(-x - m)) + m), lw = (pw - 1) y + 1;
  // times weight.
  t["torch.nn.functional.binary_cross_entropy_with_logits"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input"), y = d.tensor("target");
    Value m = d.call("torch.clamp", {{"input", d.unary("torch.neg", x)},
                                     {"min", d.i64(0)}});
    Value lg = d.unary("torch.log",
                       d.binary("torch.add", d.unary("torch.exp", d.unary("torch.neg", m)),
                                d.unary("torch.exp", d.binary("torch.sub",
                                                              d.unary("torch.neg", x), m))));
    Value loss =
        d.binary("torch.mul", d.call("torch.sub", {{"input", d.i64(1)}, {"other", y}}), x);
    if (!d.isNone("pos_weight")) {
      Value lw = d.binary("torch.add",
                          d.binary("torch.mul",
                                   d.binary("torch.sub", d.arg("pos_weight"), d.i64(1)), y),
                          d.i64(1));
      loss = d.binary("torch.add", loss,
                      d.binary("torch.mul", lw, d.binary("torch.add", lg, m)));
    } else {
      loss = d.binary("torch.add", d.binary("torch.add", loss, m), lg);
    }
    if (!d.isNone("weight"))
      loss = d.binary("torch.mul", loss, d.arg("weight"));
    return reduce(d, loss);
  };
  // log_target: exp(t) (t - x); else xlogy(t, t) - t x. 'batchmean' sums and
  // divides by the batch size.
  t["torch.nn.functional.kl_div"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input"), y = d.tensor("target");
    std::optional<bool> logTarget = d.getBool("log_target");
    if (!logTarget)
      return d.decline("log_target is not a constant");
    Value loss =
        *logTarget
            ? d.binary("torch.mul", d.unary("torch.exp", y), d.binary("torch.sub", y, x))
            : d.binary("torch.sub", d.binary("torch.xlogy", y, y),
                       d.binary("torch.mul", y, x));
    if (d.getStr("reduction") == std::optional<std::string>("batchmean") &&
        d.isNone("size_average") && d.isNone("reduce")) {
      auto type = cast<RankedTensorType>(x.getType());
      if (type.getRank() == 0)
        return one(d.unary("torch.sum", loss));
      return one(d.binary("torch.div", d.unary("torch.sum", loss),
                          d.i64(type.getDimSize(0))));
    }
    return reduce(d, loss);
  };
  // log_input: exp(x) - t x; else x - t log(x + eps); full adds Stirling's
  // term t log t - t + 0.5 log(2 pi t) where t > 1.
  t["torch.nn.functional.poisson_nll_loss"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input"), y = d.tensor("target");
    std::optional<bool> logInput = d.getBool("log_input"), full = d.getBool("full");
    std::optional<double> eps = d.getFloat("eps");
    if (!logInput || !full || !eps)
      return d.decline("log_input, full and eps must be constants");
    Value loss =
        *logInput
            ? d.binary("torch.sub", d.unary("torch.exp", x), d.binary("torch.mul", y, x))
            : d.binary("torch.sub", x,
                       d.binary("torch.mul", y,
                                d.unary("torch.log", d.binary("torch.add", x, d.f64(*eps)))));
    if (*full) {
      Value stirling = d.binary(
          "torch.add",
          d.binary("torch.sub", d.binary("torch.mul", y, d.unary("torch.log", y)), y),
          d.binary("torch.mul",
                   d.unary("torch.log", d.binary("torch.mul", y, d.f64(2 * M_PI))),
                   d.f64(0.5)));
      Value masked = d.call("Tensor.masked_fill",
                            {{"input", stirling},
                             {"mask", d.binary("torch.le", y, d.i64(1))},
                             {"value", d.f64(0)}});
      loss = d.binary("torch.add", loss, masked);
    }
    return reduce(d, loss);
  };
}
