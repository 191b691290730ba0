//===- Loss.cpp - losses as inference-time functions ----------------------===//
//
// mse, l1, smooth_l1, huber, binary_cross_entropy(_with_logits), kl_div,
// nll_loss and cross_entropy, with torch's reductions ('none', 'mean',
// 'sum', kl_div's 'batchmean') and the legacy size_average/reduce flags.
// Values are computed in double and rounded once to the result dtype.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TracedIR/Support/DType.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;

namespace mlir::traced {

FailureOr<std::string> lossReduction(const KernelArgs &args) {
  // torch's legacy_get_string: reduce=False gives 'none', then
  // size_average=False 'sum'; otherwise `reduction`.
  bool legacy = (args.has("size_average") && !args.isNone("size_average")) ||
                (args.has("reduce") && !args.isNone("reduce"));
  if (legacy) {
    bool sizeAverage = true, reduce = true;
    if (!args.isNone("size_average")) {
      FailureOr<bool> b = args.getBool("size_average");
      if (failed(b))
        return failure();
      sizeAverage = *b;
    }
    if (!args.isNone("reduce")) {
      FailureOr<bool> b = args.getBool("reduce");
      if (failed(b))
        return failure();
      reduce = *b;
    }
    return std::string(!reduce ? "none" : sizeAverage ? "mean" : "sum");
  }
  // ATen's Reduction enum: 0 none, 1 mean, 2 sum.
  if (auto *i = std::get_if<int64_t>(&args.get("reduction").v)) {
    if (*i < 0 || *i > 2)
      return args.emitError() << *i << " is not a valid value for reduction";
    return std::string(*i == 0 ? "none" : *i == 1 ? "mean" : "sum");
  }
  FailureOr<std::string> r = args.getStr("reduction");
  if (failed(r))
    return failure();
  if (*r != "none" && *r != "mean" && *r != "sum" &&
      !(*r == "batchmean" && args.has("log_target")))
    return args.emitError() << "'" << *r << "' is not a valid value for "
                            << "reduction";
  return r;
}

double roundedTo(DType dtype, double v) {
  Tensor one(dtype, {});
  one.setDouble(0, v);
  one.roundToDType();
  return one.getDouble(0);
}

bool fitsInMemory(int64_t elements) {
  uint64_t limit = physicalMemoryBytes().value_or(uint64_t(1) << 40);
  return elements >= 0 && static_cast<uint64_t>(elements) <= limit / 8;
}

} // namespace mlir::traced

namespace {

/// Elementwise values of a loss over the broadcast input and target.
struct Pointwise {
  DType dtype;
  SmallVector<int64_t> shape;
  std::vector<double> x, y;
};

PromotionOperand operandOf(const Tensor &t) {
  return {t.dtype(), t.rank() ? PromotionPriority::Tensor
                              : PromotionPriority::ZeroDim};
}

FailureOr<Pointwise> pointwisePair(const KernelArgs &args,
                                   LossTyping typing = LossTyping::Promoted) {
  FailureOr<Tensor> a = args.tensor("input"), b = args.tensor("target");
  if (failed(a) || failed(b))
    return failure();
  std::string error;
  std::optional<DType> resultDType =
      lossResultDType(typing, operandOf(*a), operandOf(*b), error);
  if (!resultDType)
    return args.emitError() << error;
  DType dtype = *resultDType;
  FailureOr<kernels::BroadcastPair> pair =
      kernels::broadcastInF64(args, *a, *b, "input", "target");
  if (failed(pair))
    return failure();
  const Tensor &ta = pair->a, &tb = pair->b;
  Pointwise p{dtype, pair->shape, {}, {}};
  p.x.assign(ta.data<double>(), ta.data<double>() + ta.numel());
  p.y.assign(tb.data<double>(), tb.data<double>() + tb.numel());
  return p;
}

/// `values` of `shape` reduced as `reduction` says, in `dtype`; `divisor`
/// overrides the mean's denominator (batchmean, weighted nll).
RtValue reduced(const std::vector<double> &values, ArrayRef<int64_t> shape,
                DType dtype, StringRef reduction,
                std::optional<double> divisor = std::nullopt) {
  if (reduction == "none") {
    Tensor out(dtype, shape);
    for (size_t i = 0; i < values.size(); ++i)
      out.setDouble(i, values[i]);
    out.roundToDType();
    return RtValue(out);
  }
  double sum = 0;
  for (double v : values)
    sum += v;
  Tensor out(dtype, {});
  // A plain mean is torch's loss.mean(): the sum in the dtype (a float16
  // sum beyond 65504 is inf), divided.
  if (reduction == "sum")
    out.setDouble(0, sum);
  else if (!divisor)
    out.setDouble(0, roundedTo(dtype, sum) / static_cast<double>(values.size()));
  else
    out.setDouble(0, sum / *divisor);
  out.roundToDType();
  return RtValue(out);
}

template <typename Fn>
FailureOr<RtValue> pointwiseLoss(const KernelArgs &args, Fn fn,
                                 LossTyping typing = LossTyping::Promoted,
                                 std::optional<DType> resultDType = std::nullopt) {
  FailureOr<std::string> reduction = lossReduction(args);
  FailureOr<Pointwise> p = pointwisePair(args, typing);
  if (failed(reduction) || failed(p))
    return failure();
  if (resultDType)
    p->dtype = *resultDType;
  std::vector<double> v(p->x.size());
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = fn(p->x[i], p->y[i]);
  return reduced(v, p->shape, p->dtype, *reduction);
}

/// An optional weight tensor broadcast to `shape`, as doubles.
FailureOr<std::optional<std::vector<double>>>
broadcastWeight(const KernelArgs &args, StringRef name,
                ArrayRef<int64_t> shape) {
  if (args.isNone(name))
    return std::optional<std::vector<double>>();
  FailureOr<Tensor> w = args.tensor(name);
  if (failed(w))
    return failure();
  FailureOr<SmallVector<int64_t>> b = broadcastShape(w->shape(), shape);
  if (failed(b) || ArrayRef<int64_t>(*b) != shape)
    return args.emitError() << "the shape of '" << name
                            << "' does not broadcast to the input's";
  Tensor t = broadcastTo(w->to(DType::F64), shape);
  return std::optional<std::vector<double>>(
      std::vector<double>(t.data<double>(), t.data<double>() + t.numel()));
}

/// The `weight` of `c` classes (a 1-D tensor, in double; none when None),
/// or failure (reported).
static FailureOr<std::optional<Tensor>> classWeights(const KernelArgs &args,
                                                     int64_t c) {
  if (args.isNone("weight"))
    return std::optional<Tensor>();
  FailureOr<Tensor> w = args.tensor("weight");
  if (failed(w))
    return failure();
  if (w->rank() != 1 || w->dim(0) != c)
    return args.emitError()
           << "weight must be a 1-D tensor of " << c << " elements";
  return std::optional<Tensor>(w->to(DType::F64));
}

/// binary_cross_entropy's (and with logits') reduction, input and target,
/// and their elements in the loss's dtype (`typing`).
struct SameShapePair {
  std::string reduction;
  Tensor input, target;
  Pointwise values;
};

/// The input and target of one shape (else `mismatch` is reported), or
/// failure (reported).
static FailureOr<SameShapePair>
sameShapePair(const KernelArgs &args, StringRef mismatch, LossTyping typing) {
  FailureOr<std::string> reduction = lossReduction(args);
  FailureOr<Tensor> a = args.tensor("input"), b = args.tensor("target");
  if (failed(reduction) || failed(a) || failed(b))
    return failure();
  if (a->shape() != b->shape())
    return args.emitError() << mismatch;
  FailureOr<Pointwise> p = pointwisePair(args, typing);
  if (failed(p))
    return failure();
  return SameShapePair{*reduction, *a, *b, std::move(*p)};
}
} // namespace

namespace mlir::traced::kernels {

FailureOr<RtValue> mseLoss(const KernelArgs &args) {
  return pointwiseLoss(args, [](double x, double y) { return (x - y) * (x - y); });
}

/// poisson_nll_loss: exp(x) - t * x (log_input), else x - t * log(x + eps);
/// `full` adds Stirling's t * log(t) - t + log(2 pi t) / 2 where t > 1.
FailureOr<RtValue> poissonNllLoss(const KernelArgs &args) {
  FailureOr<bool> logInput = args.getBool("log_input"),
                  full = args.getBool("full");
  FailureOr<double> eps = args.getFloat("eps");
  if (failed(logInput) || failed(full) || failed(eps))
    return failure();
  bool li = *logInput, fu = *full;
  double e = *eps;
  // torch composes it of tensor ops (poissonNllDTypes): each converts its
  // operands to its dtype first (a 0-d float64 target multiplies a
  // bfloat16 log as bfloat16), computes, and rounds to it; `full` adds the
  // Stirling term, computed in the target's float dtype, in place.
  FailureOr<Tensor> in = args.tensor("input"), target = args.tensor("target");
  if (failed(in) || failed(target))
    return failure();
  DType targetFloat = isFloatingPoint(target->dtype()) ? target->dtype() : kDefaultFloat;
  PoissonNllDTypes dtypes = poissonNllDTypes(operandOf(*in), operandOf(*target), li);
  auto r = roundedTo;
  DType term = dtypes.term, product = dtypes.product, result = dtypes.result;
  return pointwiseLoss(args, [=](double x, double t) {
    double a, p;
    if (li) {
      a = r(term, std::exp(r(term, x)));
      p = r(product, r(product, t) * r(product, x));
    } else {
      a = r(result, x);
      double lg = r(term, std::log(r(term, r(term, x) + e)));
      p = r(product, r(product, t) * r(product, lg));
    }
    double loss = r(result, r(result, a) - r(result, p));
    if (fu && t > 1)
      loss = r(result, loss + r(result, r(targetFloat, t * std::log(t) - t +
                                                           0.5 * std::log(2 * M_PI * t))));
    return loss;
  }, LossTyping::ResultType, dtypes.result);
}

FailureOr<RtValue> l1Loss(const KernelArgs &args) {
  return pointwiseLoss(args, [](double x, double y) { return std::abs(x - y); });
}

FailureOr<RtValue> smoothL1Loss(const KernelArgs &args) {
  FailureOr<double> beta = args.getFloat("beta");
  if (failed(beta))
    return failure();
  if (*beta < 0)
    return args.emitError() << "smooth_l1_loss does not support negative "
                               "values for beta";
  double b = *beta;
  return pointwiseLoss(args, [b](double x, double y) {
    double d = std::abs(x - y);
    return d < b ? 0.5 * d * d / b : d - 0.5 * b;
  });
}

FailureOr<RtValue> huberLoss(const KernelArgs &args) {
  FailureOr<double> delta = args.getFloat("delta");
  if (failed(delta))
    return failure();
  if (*delta <= 0)
    return args.emitError() << "huber_loss does not support non-positive "
                               "values for delta";
  double k = *delta;
  return pointwiseLoss(args, [k](double x, double y) {
    double d = std::abs(x - y);
    return d <= k ? 0.5 * d * d : k * (d - 0.5 * k);
  }, LossTyping::AsInput);
}

/// soft_margin_loss as torch 1.13 writes it, in place in the input's dtype:
/// neg, mul by the target, exp, add 1, log, each step rounded (so exp
/// overflows where the dtype does: float32 and bfloat16 give inf for a
/// margin beyond 88.7, not the margin; and log(1 + e), not log1p).
FailureOr<RtValue> softMarginLoss(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  DType dtype = in->dtype();
  return pointwiseLoss(args, [dtype](double x, double y) {
    double v = roundedTo(dtype, roundedTo(dtype, -x) * y);
    v = roundedTo(dtype, roundedTo(dtype, std::exp(v)) + 1);
    return roundedTo(dtype, std::log(v));
  }, LossTyping::AsInput);
}

FailureOr<RtValue> binaryCrossEntropy(const KernelArgs &args) {
  FailureOr<SameShapePair> pair =
      sameShapePair(args,
                    "using a target size that is different to the "
                    "input size is deprecated; please ensure they "
                    "have the same size",
                    LossTyping::SameDType);
  if (failed(pair))
    return failure();
  const Pointwise &p = pair->values;
  FailureOr<std::optional<std::vector<double>>> w =
      broadcastWeight(args, "weight", p.shape);
  if (failed(w))
    return failure();
  std::vector<double> v(p.x.size());
  for (size_t i = 0; i < v.size(); ++i) {
    double x = p.x[i], y = p.y[i];
    if (x < 0 || x > 1)
      return args.emitError() << "all elements of input should be between 0 "
                                 "and 1";
    // torch clamps the logarithms at -100.
    double lx = std::max(std::log(x), -100.0),
           l1x = std::max(std::log1p(-x), -100.0);
    v[i] = -(y * lx + (1 - y) * l1x) * (*w ? (**w)[i] : 1.0);
  }
  return reduced(v, p.shape, p.dtype, pair->reduction);
}

FailureOr<RtValue> binaryCrossEntropyWithLogits(const KernelArgs &args) {
  FailureOr<SameShapePair> pair = sameShapePair(
      args, "target size must be the same as input size", LossTyping::AsTarget);
  if (failed(pair))
    return failure();
  const Pointwise &p = pair->values;
  FailureOr<std::optional<std::vector<double>>> w =
      broadcastWeight(args, "weight", p.shape);
  FailureOr<std::optional<std::vector<double>>> pw =
      broadcastWeight(args, "pos_weight", p.shape);
  if (failed(w) || failed(pw))
    return failure();
  if (*pw) {
    // torch computes pos_weight - 1 in pos_weight's own dtype (a uint8 0
    // wraps to 255) before multiplying by the target.
    DType dtype = args.tensor("pos_weight")->dtype();
    Tensor minusOne(dtype, {static_cast<int64_t>((*pw)->size())});
    for (size_t i = 0; i < (*pw)->size(); ++i)
      minusOne.setDouble(i, (**pw)[i] - 1);
    minusOne.roundToDType();
    for (size_t i = 0; i < (*pw)->size(); ++i)
      (**pw)[i] = minusOne.getDouble(i) + 1;
  }
  // torch 1.13's steps, each rounded to the dtype it is computed in (the
  // input's for max_val and the log term, the result's for the loss), so
  // that bfloat16 chains round as torch's do:
  //   m = max(-x, 0); loss = (1 - y) x + m + log(e^-m + e^(-x-m)), or with
  //   pos_weight (1 - y) x + lw (log(...) + m), lw = (pw - 1) y + 1.
  DType in = pair->input.dtype(), out = p.dtype;
  DType lwType = *pw ? promoteDTypes(args.tensor("pos_weight")->dtype(),
                                     pair->target.dtype())
                     : out;
  auto rin = [&](double v) { return roundedTo(in, v); };
  auto rout = [&](double v) { return roundedTo(out, v); };
  std::vector<double> v(p.x.size());
  for (size_t i = 0; i < v.size(); ++i) {
    double x = p.x[i], y = p.y[i];
    double m = rin(std::max(-x, 0.0));
    double lg = rin(std::log(rin(rin(std::exp(-m)) + rin(std::exp(rin(-x - m))))));
    double l = rout(rout(1 - y) * x);
    if (*pw) {
      double lw = roundedTo(lwType, roundedTo(lwType, ((**pw)[i] - 1) * y) + 1);
      l = rout(l + roundedTo(lwType, lw * rin(lg + m)));
    } else {
      l = rout(rout(l + m) + lg);
    }
    v[i] = *w ? rout(l * (**w)[i]) : l;
  }
  return reduced(v, p.shape, p.dtype, pair->reduction);
}

FailureOr<RtValue> klDiv(const KernelArgs &args) {
  FailureOr<std::string> reduction = lossReduction(args);
  FailureOr<bool> logTarget = args.getBool("log_target");
  FailureOr<Pointwise> p = pointwisePair(args, LossTyping::FloatOperands);
  if (failed(reduction) || failed(logTarget) || failed(p))
    return failure();
  // torch composes it: exp(t) (t - x), or xlogy(t, t) - t x (0 log 0 is
  // 0, a negative target's logarithm NaN), where exp(t) and xlogy(t, t)
  // are computed in the target's own dtype before the promotion: a
  // bfloat16 target's exp is rounded to bfloat16, and its xlogy rounds
  // log(t), then t log(t).
  size_t n = p->x.size();
  Tensor term(args.tensor("target")->dtype(), {static_cast<int64_t>(n)});
  for (size_t i = 0; i < n; ++i)
    term.setDouble(i, *logTarget ? std::exp(p->y[i]) : std::log(p->y[i]));
  term.roundToDType();
  if (!*logTarget) {
    for (size_t i = 0; i < n; ++i) {
      double t = p->y[i];
      term.setDouble(i, t == 0 ? 0.0 : t * term.getDouble(i));
    }
    term.roundToDType();
  }
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    double x = p->x[i], t = p->y[i];
    v[i] = *logTarget ? term.getDouble(i) * (t - x)
                      : term.getDouble(i) - t * x;
  }
  if (*reduction == "batchmean") {
    double batch = p->shape.empty() ? 1.0 : static_cast<double>(p->shape[0]);
    return reduced(v, p->shape, p->dtype, "mean", batch);
  }
  return reduced(v, p->shape, p->dtype, *reduction);
}

/// nll_loss over log-probabilities `logp` of shape (N, C, d...) or (C),
/// and class indices `target` of shape (N, d...) or ().
static FailureOr<RtValue> nll(const KernelArgs &args, const Tensor &logp,
                              const Tensor &target, StringRef reduction,
                              double smoothing, DType dtype) {
  if (isFloatingPoint(target.dtype()) || target.dtype() == DType::Bool)
    return args.emitError() << "expected target of an integer dtype (class "
                               "indices), got "
                            << dtypeName(target.dtype());
  FailureOr<int64_t> ignore = args.getInt("ignore_index");
  if (failed(ignore))
    return failure();
  bool unbatched = logp.rank() == 1;
  int64_t n = unbatched ? 1 : logp.dim(0), c = logp.dim(unbatched ? 0 : 1);
  int64_t inner = 1;
  SmallVector<int64_t> outShape;
  if (!unbatched) {
    outShape.push_back(n);
    for (int64_t d = 2; d < logp.rank(); ++d) {
      inner *= logp.dim(d);
      outShape.push_back(logp.dim(d));
    }
  }
  if (ArrayRef<int64_t>(outShape) != target.shape()) {
    auto diag = args.emitError() << "expected a target of shape [";
    llvm::interleaveComma(outShape, diag);
    return diag << "] for an input of rank " << logp.rank();
  }
  FailureOr<std::optional<Tensor>> weights = classWeights(args, c);
  if (failed(weights))
    return failure();
  const std::optional<Tensor> &weight = *weights;
  Tensor lp = logp.to(DType::F64), t = target.to(DType::I64);
  const double *plp = lp.data<double>();
  std::vector<double> v(n * inner, 0.0);
  double weightSum = 0, smoothSum = 0;
  std::vector<double> smooth(n * inner, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < inner; ++j) {
      int64_t k = t.data<int64_t>()[i * inner + j];
      if (k == *ignore)
        continue;
      if (k < 0 || k >= c)
        return args.emitError() << "target " << k << " is out of bounds";
      double w = weight ? weight->data<double>()[k] : 1.0;
      v[i * inner + j] = -w * plp[(i * c + k) * inner + j];
      weightSum += w;
      if (smoothing > 0) {
        double s = 0;
        for (int64_t cc = 0; cc < c; ++cc)
          s -= plp[(i * c + cc) * inner + j] *
               (weight ? weight->data<double>()[cc] : 1.0);
        smooth[i * inner + j] = s;
        smoothSum += s;
      }
    }
  if (smoothing <= 0)
    return reduced(v, outShape, dtype, reduction, weightSum);
  // Label smoothing (cross_entropy): (1 - e) * nll + e / C * smooth.
  std::vector<double> mixed(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    mixed[i] = (1 - smoothing) * v[i] + smoothing / c * smooth[i];
  if (reduction == "mean") {
    double sum = 0;
    for (double x : v)
      sum += x;
    Tensor out(dtype, {});
    out.setDouble(0, (1 - smoothing) * sum / weightSum +
                         smoothing / c * smoothSum / weightSum);
    out.roundToDType();
    return RtValue(out);
  }
  return reduced(mixed, outShape, dtype, reduction);
}

FailureOr<RtValue> nllLoss(const KernelArgs &args) {
  FailureOr<std::string> reduction = lossReduction(args);
  FailureOr<Tensor> input = args.tensor("input"), target = args.tensor("target");
  if (failed(reduction) || failed(input) || failed(target))
    return failure();
  if (!isFloatingPoint(input->dtype()) || input->rank() < 1)
    return args.emitError() << "expects floating-point log-probabilities";
  return nll(args, *input, *target, *reduction, 0.0, input->dtype());
}

FailureOr<RtValue> crossEntropy(const KernelArgs &args) {
  FailureOr<std::string> reduction = lossReduction(args);
  FailureOr<Tensor> input = args.tensor("input"), target = args.tensor("target");
  FailureOr<double> smoothing = args.getFloat("label_smoothing");
  if (failed(reduction) || failed(input) || failed(target) ||
      failed(smoothing))
    return failure();
  if (!isFloatingPoint(input->dtype()) || input->rank() < 1)
    return args.emitError() << "expects floating-point logits";
  if (*smoothing < 0 || *smoothing > 1)
    return args.emitError() << "label_smoothing must be between 0.0 and 1.0";
  // log_softmax over the class dim (1, or 0 unbatched), in double.
  int64_t classDim = input->rank() == 1 ? 0 : 1;
  int64_t c = input->dim(classDim), outer = 1, inner = 1;
  for (int64_t d = 0; d < classDim; ++d)
    outer *= input->dim(d);
  for (int64_t d = classDim + 1; d < input->rank(); ++d)
    inner *= input->dim(d);
  Tensor x = input->to(DType::F64);
  Tensor logp(DType::F64, input->shape());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const double *p = x.data<double>() + o * c * inner + i;
      double *q = logp.data<double>() + o * c * inner + i;
      auto [m, s] = kernels::softmaxTerms(p, c, inner);
      double l = m + std::log(s);
      for (int64_t k = 0; k < c; ++k)
        q[k * inner] = p[k * inner] - l;
    }
  if (!isFloatingPoint(target->dtype()))
    return nll(args, logp, *target, *reduction, *smoothing, input->dtype());
  // Class probabilities: -sum_c w_c t_c logp_c, mean over the other dims.
  if (target->shape() != input->shape())
    return args.emitError() << "expected a target of the input's shape for "
                               "class probabilities";
  FailureOr<int64_t> ignore = args.getInt("ignore_index");
  if (failed(ignore))
    return failure();
  FailureOr<std::optional<Tensor>> weights = classWeights(args, c);
  if (failed(weights))
    return failure();
  const std::optional<Tensor> &weight = *weights;
  Tensor t = target->to(DType::F64);
  SmallVector<int64_t> outShape(input->shape());
  outShape.erase(outShape.begin() + classDim);
  std::vector<double> v(outer * inner, 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double s = 0;
      for (int64_t k = 0; k < c; ++k) {
        int64_t at = (o * c + k) * inner + i;
        double tk = t.data<double>()[at] * (1 - *smoothing) + *smoothing / c;
        s -= tk * logp.data<double>()[at] *
             (weight ? weight->data<double>()[k] : 1.0);
      }
      v[o * inner + i] = s;
    }
  return reduced(v, outShape, input->dtype(), *reduction);
}

/// aten::nll_loss_forward: nll_loss's result and the total weight of the
/// targets it counted (0 for a batch with reduction 'none', as torch
/// returns).
FailureOr<RtValue> nllLossForward(const KernelArgs &args) {
  FailureOr<std::string> reduction = lossReduction(args);
  FailureOr<Tensor> in = args.tensor("input"), target = args.tensor("target");
  FailureOr<int64_t> ignore = args.getInt("ignore_index");
  if (failed(reduction) || failed(in) || failed(target) || failed(ignore))
    return failure();
  // F.nll_loss's own arguments, in its signature's order.
  const OpSpec *nll =
      OpLibrary::get().lookupFunction("torch.nn.functional.nll_loss");
  std::vector<RtValue> values(nll->signature.params.size());
  auto set = [&](StringRef name, RtValue v) {
    values[*nll->signature.lookup(name)] = std::move(v);
  };
  set("input", *in);
  set("target", *target);
  set("weight", args.get("weight"));
  set("ignore_index", RtValue::ofInt(*ignore));
  RtValue r;
  r.v = *reduction;
  set("reduction", r);
  KernelArgs call(nll->signature, std::move(values),
                  [&] { return args.emitError(); });
  FailureOr<RtValue> out = nllLoss(call);
  if (failed(out))
    return failure();
  // (torch's CPU kernel: an unbatched input counts its one target whatever
  // the reduction; a batch with reduction 'none' reports 0.)
  double total = 0;
  if (*reduction != "none" || in->rank() == 1) {
    std::optional<Tensor> weight;
    if (!args.isNone("weight"))
      weight = args.get("weight").tensor();
    for (int64_t i = 0; i < target->numel(); ++i) {
      int64_t t = target->getInt(i);
      if (t != *ignore)
        total += weight ? weight->getDouble(t) : 1.0;
    }
  }
  Tensor totalWeight(in->dtype(), {});
  totalWeight.setDouble(0, total);
  totalWeight.roundToDType();
  return RtValue::ofList({*out, RtValue(totalWeight)}, true);
}

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

void mlir::traced::kernels::populateLossKernels(KernelTable &table) {
  table["torch.nn.functional.mse_loss"] = mseLoss;
  table["torch.nn.functional.l1_loss"] = l1Loss;
  table["torch.nn.functional.smooth_l1_loss"] = smoothL1Loss;
  table["torch.nn.functional.huber_loss"] = huberLoss;
  table["torch.nn.functional.soft_margin_loss"] = softMarginLoss;
  table["torch.nn.functional.binary_cross_entropy"] = binaryCrossEntropy;
  table["torch.nn.functional.binary_cross_entropy_with_logits"] = binaryCrossEntropyWithLogits;
  table["torch.nn.functional.kl_div"] = klDiv;
  table["torch.nn.functional.nll_loss"] = nllLoss;
  table["torch.nn.functional.cross_entropy"] = crossEntropy;
  table["torch.nn.functional.poisson_nll_loss"] = poissonNllLoss;
  table["torch.ops.aten.nll_loss_forward.default"] = nllLossForward;
}
