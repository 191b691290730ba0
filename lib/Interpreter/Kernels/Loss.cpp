//===- Loss.cpp - losses as inference-time functions ----------------------===//
//
// mse, l1, smooth_l1, huber, binary_cross_entropy(_with_logits), kl_div,
// nll_loss and cross_entropy, with torch's reductions ('none', 'mean',
// 'sum', kl_div's 'batchmean') and the legacy size_average/reduce flags.
// Values are computed in double and rounded once to the result dtype.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TracedIR/Runtime/LossRuntime.h"
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
// The margin and embedding losses (their dtypes and shapes: marginLossType)
//===----------------------------------------------------------------------===//

namespace {

/// A margin loss's call: its reduction, the loss's unreduced dtype and
/// shape, and its tensor operands (absent when None).
struct MarginCall {
  std::string reduction;
  MarginLossType type;
  llvm::StringMap<Tensor> operands;

  /// Operand `name` (present: not None).
  const Tensor &operand(StringRef name) const { return operands.find(name)->second; }

  /// Operand `name` in float64, broadcast to `shape` (the loss's unless
  /// given).
  Tensor f64(StringRef name, std::optional<ArrayRef<int64_t>> shape = std::nullopt) const {
    return broadcastTo(operand(name).to(DType::F64), shape ? *shape : ArrayRef<int64_t>(type.shape));
  }
};

FailureOr<MarginCall> marginCall(const KernelArgs &args, StringRef entry) {
  FailureOr<std::string> reduction = lossReduction(args);
  if (failed(reduction))
    return failure();
  MarginCall call;
  call.reduction = *reduction;
  for (const Param &param : args.signature().params) {
    if (param.type.kind != ParamType::Tensor || param.type.isList ||
        args.isNone(param.name))
      continue;
    FailureOr<Tensor> t = args.tensor(param.name);
    if (failed(t))
      return failure();
    call.operands[param.name] = *t;
  }
  auto operand = [&](StringRef name) -> std::optional<LossOperand> {
    auto it = call.operands.find(name);
    if (it == call.operands.end())
      return std::nullopt;
    return LossOperand{it->second.dtype(), SmallVector<int64_t>(it->second.shape())};
  };
  std::string error;
  std::optional<MarginLossType> type = marginLossType(entry, operand, error);
  if (!type)
    return args.emitError() << error;
  if (call.reduction == "mean" && isIntegral(type->dtype))
    return args.emitError() << meanOfIntegersError(type->dtype);
  call.type = *type;
  return call;
}

/// `t == s` as torch compares an element of a tensor of `dtype` with the
/// Python int `s`: in that dtype when it is an integer one (uint8's -1 is
/// 255).
bool equalsScalar(DType dtype, double t, int64_t s) {
  if (isIntegral(dtype, /*includeBool=*/false))
    return t == static_cast<double>(wrapToDType(s, dtype));
  return t == static_cast<double>(s);
}

/// Element i of `x` op ('-' or '*') element i of `y` in dtype `d` as torch
/// computes it: an integer dtype's in int64, wrapping (exact beyond 2^53:
/// elementOpInt); else in double.
int64_t elementOpInt(const Tensor &x, const Tensor &y, int64_t i, DType d, char op) {
  uint64_t a = static_cast<uint64_t>(x.getInt(i)), b = static_cast<uint64_t>(y.getInt(i));
  uint64_t r = op == '-' ? a - b : a * b;
  return wrapToDType(static_cast<int64_t>(r), d);
}
double elementOp(const Tensor &x, const Tensor &y, int64_t i, DType d, char op) {
  if (isIntegral(d, /*includeBool=*/false))
    return static_cast<double>(elementOpInt(x, y, i, d, op));
  double a = x.getDouble(i), b = y.getDouble(i);
  return roundedTo(d, op == '-' ? a - b : a * b);
}

/// max(v, 0), NaN kept (torch's clamp_min).
double clampMin0(double v) { return std::isnan(v) ? v : std::max(v, 0.0); }

/// The p-norm over the last dim of `d` (float64, any rank; a 0-d tensor is
/// one element), as torch.norm computes it in `dtype`: inf max, -inf min, 0
/// the count of non-zeros.
std::vector<double> lastDimNorms(const Tensor &d, double p, DType dtype) {
  int64_t k = d.rank() ? d.dim(d.rank() - 1) : 1;
  int64_t rows = k ? d.numel() / k : 0;
  if (!k && d.rank()) {
    rows = 1;
    for (int64_t i = 0; i + 1 < d.rank(); ++i)
      rows *= d.dim(i);
  }
  std::vector<double> out(rows);
  const double *x = d.data<double>();
  for (int64_t r = 0; r < rows; ++r) {
    double acc = p == -INFINITY ? INFINITY : 0.0;
    for (int64_t j = 0; j < k; ++j) {
      double v = std::abs(x[r * k + j]);
      if (p == INFINITY)
        acc = std::isnan(v) || v > acc ? v : acc;
      else if (p == -INFINITY)
        acc = std::isnan(v) || v < acc ? v : acc;
      else if (p == 0)
        acc += v != 0;
      else
        // (Accumulated in the result's dtype: a float32 sum of squares
        // overflows where torch's does.)
        acc = roundedTo(dtype, acc + roundedTo(dtype, p == 1 ? v : p == 2 ? v * v : std::pow(v, p)));
    }
    if (p != INFINITY && p != -INFINITY && p != 0 && p != 1)
      acc = p == 2 ? std::sqrt(acc) : std::pow(acc, 1 / p);
    out[r] = acc;
  }
  return out;
}

/// pairwise_distance(a, b, p, eps) rounded to `dtype`, over the broadcast
/// shape of a and b without its last dim.
Tensor pairwise(const Tensor &a, const Tensor &b, double p, double eps, DType dtype) {
  SmallVector<int64_t> shape = *broadcastShape(a.shape(), b.shape());
  DType sub = resultType({operandOf(a), operandOf(b)});
  Tensor x = broadcastTo(a.to(sub), shape), y = broadcastTo(b.to(sub), shape);
  Tensor diff(DType::F64, shape);
  // (a - b in their promoted dtype, wrapping, then converted to the
  // floating one and + eps there.)
  for (int64_t i = 0; i < diff.numel(); ++i)
    diff.data<double>()[i] =
        roundedTo(dtype, roundedTo(dtype, elementOp(x, y, i, sub, '-')) + eps);
  std::vector<double> norms = lastDimNorms(diff, p, dtype);
  SmallVector<int64_t> outShape(shape);
  if (!outShape.empty())
    outShape.pop_back();
  Tensor out(dtype, outShape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setDouble(i, norms[i]);
  out.roundToDType();
  return out;
}

/// The loss `values` (the loss's shape) rounded to its dtype and reduced.
RtValue reducedLoss(const MarginCall &c, const std::vector<double> &values) {
  return reduced(values, c.type.shape, c.type.dtype, c.reduction);
}

int64_t numelOf(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}
} // namespace

namespace mlir::traced::kernels {

/// max(-target * (input1 - input2) + margin, 0).
FailureOr<RtValue> marginRankingLoss(const KernelArgs &args) {
  FailureOr<MarginCall> c = marginCall(args, "torch.nn.functional.margin_ranking_loss");
  FailureOr<double> margin = args.getFloat("margin");
  if (failed(c) || failed(margin))
    return failure();
  // Each step in its own dtype (integers wrap, exactly): input1 - input2,
  // -target, their product, then converted to the floating result's and
  // + margin there.
  PromotionOperand ta = operandOf(c->operand("input1")),
                   tb = operandOf(c->operand("input2")),
                   tt = operandOf(c->operand("target"));
  PromotionOperand diff{resultType({ta, tb}), std::min(ta.priority, tb.priority)};
  DType product = resultType({tt, diff}), dtype = c->type.dtype;
  ArrayRef<int64_t> shape = c->type.shape;
  Tensor a = broadcastTo(c->operand("input1").to(diff.dtype), shape),
         b = broadcastTo(c->operand("input2").to(diff.dtype), shape),
         t = broadcastTo(c->operand("target"), shape);
  Tensor d(product, shape), nt(product, shape);
  for (int64_t i = 0; i < d.numel(); ++i) {
    if (isIntegral(product, /*includeBool=*/false)) {
      d.data<int64_t>()[i] = elementOpInt(a, b, i, diff.dtype, '-');
      // (-target wraps in the target's dtype.)
      uint64_t negated = 0 - static_cast<uint64_t>(t.getInt(i));
      nt.data<int64_t>()[i] = wrapToDType(static_cast<int64_t>(negated), tt.dtype);
    } else {
      d.setDouble(i, elementOp(a, b, i, diff.dtype, '-'));
      nt.setDouble(i, roundedTo(tt.dtype, -t.getDouble(i)));
    }
  }
  std::vector<double> v(d.numel());
  bool ints = isIntegral(product, /*includeBool=*/false);
  for (size_t i = 0; i < v.size(); ++i) {
    // (An integer product converts to float32 once, from int64.)
    double p = ints ? static_cast<double>(static_cast<float>(elementOpInt(nt, d, i, product, '*')))
                    : elementOp(nt, d, i, product, '*');
    v[i] = clampMin0(roundedTo(dtype, roundedTo(dtype, p) + *margin));
  }
  return reducedLoss(*c, v);
}

/// where(target != 1, max(margin - input, 0), 0) + where(target != -1,
/// input, 0), in the input's dtype (torch fills a tensor of it with the
/// margin: an integer input truncates it).
FailureOr<RtValue> hingeEmbeddingLoss(const KernelArgs &args) {
  FailureOr<MarginCall> c = marginCall(args, "torch.nn.functional.hinge_embedding_loss");
  FailureOr<double> margin = args.getFloat("margin");
  if (failed(c) || failed(margin))
    return failure();
  DType dtype = c->type.dtype;
  Tensor x = broadcastTo(c->operand("input").to(dtype), c->type.shape);
  Tensor t = c->f64("target");
  DType targetDType = c->operand("target").dtype();
  Tensor out(dtype, c->type.shape);
  int64_t n = out.numel();
  dispatchStorage(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, uint8_t>) {
      const T *p = x.template data<T>();
      T *o = out.template data<T>();
      T m;
      if constexpr (std::is_integral_v<T>)
        m = static_cast<T>(floatToInt(*margin, dtype));
      else
        m = static_cast<T>(roundedTo(dtype, *margin));
      for (int64_t i = 0; i < n; ++i) {
        double ti = t.data<double>()[i];
        T lo = static_cast<T>(roundedTo(dtype, static_cast<double>(m - p[i])));
        if constexpr (std::is_integral_v<T>)
          lo = static_cast<T>(wrapToDType(m - p[i], dtype));
        if (!(lo != lo) && lo < T(0))
          lo = T(0);
        T r = T(0);
        if (!equalsScalar(targetDType, ti, 1))
          r = lo;
        if (!equalsScalar(targetDType, ti, -1))
          r = static_cast<T>(r + p[i]);
        o[i] = r;
      }
    }
    return 0;
  });
  out.roundToDType();
  if (c->reduction == "none")
    return RtValue(out);
  if (!isIntegral(dtype)) {
    std::vector<double> v(n);
    for (int64_t i = 0; i < n; ++i)
      v[i] = out.getDouble(i);
    return reducedLoss(*c, v);
  }
  // The sum of an integer loss, in int64 (wrapping as torch's does).
  uint64_t sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += static_cast<uint64_t>(out.getInt(i));
  Tensor total(DType::I64, {});
  total.data<int64_t>()[0] = static_cast<int64_t>(sum);
  return RtValue(total);
}

/// cos = sum(x1 x2) / sqrt((sum(x1^2) + 1e-12) (sum(x2^2) + 1e-12)) over
/// the inputs' last dim; where(target == 1, 1 - cos, 0) + where(target ==
/// -1, max(cos - margin, 0), 0).
FailureOr<RtValue> cosineEmbeddingLoss(const KernelArgs &args) {
  FailureOr<MarginCall> c = marginCall(args, "torch.nn.functional.cosine_embedding_loss");
  FailureOr<double> margin = args.getFloat("margin");
  if (failed(c) || failed(margin))
    return failure();
  const Tensor &a = c->operand("input1"), &b = c->operand("input2");
  SmallVector<int64_t> product = *broadcastShape(a.shape(), b.shape());
  // Row sums over the last dim of x * y (both of `shape`), broadcast to
  // the loss's shape.
  // (Each product in the factors' promoted dtype: integers wrap, bools
  // multiply as logical and.)
  auto rowSums = [&](const Tensor &x, const Tensor &y, ArrayRef<int64_t> shape) {
    DType product = resultType({operandOf(x), operandOf(y)});
    Tensor xs = broadcastTo(x.to(product), shape), ys = broadcastTo(y.to(product), shape);
    bool ints = isIntegral(product);
    int64_t k = shape.back(), rows = k ? xs.numel() / k : numelOf(shape.drop_back());
    Tensor sums(DType::F64, shape.drop_back());
    for (int64_t r = 0; r < rows; ++r) {
      // (An integer sum is int64's, wrapping; then + 1e-12 makes it the
      // default float.)
      double s = 0;
      uint64_t si = 0;
      for (int64_t j = 0; j < k; ++j) {
        if (product == DType::Bool)
          si += xs.getInt(r * k + j) && ys.getInt(r * k + j);
        else if (ints)
          si += static_cast<uint64_t>(elementOpInt(xs, ys, r * k + j, product, '*'));
        else
          s += elementOp(xs, ys, r * k + j, product, '*');
      }
      // (An integer sum converts to float32 once, from int64.)
      sums.data<double>()[r] =
          ints ? static_cast<double>(static_cast<float>(static_cast<int64_t>(si))) : s;
    }
    return broadcastTo(sums, c->type.shape);
  };
  Tensor dot = rowSums(a, b, product), m1 = rowSums(a, a, a.shape()),
         m2 = rowSums(b, b, b.shape());
  Tensor t = c->f64("target");
  DType dtype = c->type.dtype, targetDType = c->operand("target").dtype();
  std::vector<double> v(t.numel());
  for (size_t i = 0; i < v.size(); ++i) {
    // (Each step rounded to the dtype: a float32 product of large sums
    // overflows as torch's does.)
    auto r = [dtype](double v) { return roundedTo(dtype, v); };
    double s1 = r(r(m1.data<double>()[i]) + 1e-12), s2 = r(r(m2.data<double>()[i]) + 1e-12);
    double cos = r(r(dot.data<double>()[i]) / r(std::sqrt(r(s1 * s2))));
    double ti = t.data<double>()[i];
    double pos = equalsScalar(targetDType, ti, 1) ? 1 - cos : 0.0;
    double neg = equalsScalar(targetDType, ti, -1)
                     ? clampMin0(roundedTo(dtype, cos - *margin))
                     : 0.0;
    v[i] = roundedTo(dtype, pos) + neg;
  }
  return reducedLoss(*c, v);
}

/// 0.5 (log(var) + (input - target)^2 / var) [+ 0.5 log(2 pi)], var
/// clamped below at eps (torch raises for a negative var).
FailureOr<RtValue> gaussianNllLoss(const KernelArgs &args) {
  FailureOr<MarginCall> c = marginCall(args, "torch.nn.functional.gaussian_nll_loss");
  FailureOr<double> eps = args.getFloat("eps");
  FailureOr<bool> full = args.getBool("full");
  if (failed(c) || failed(eps) || failed(full))
    return failure();
  const Tensor &var = c->operand("var"), &in = c->operand("input");
  for (int64_t i = 0; i < var.numel(); ++i)
    if (var.getDouble(i) < 0)
      return args.emitError() << "var has negative entry/entries";
  // A var one dim short of the input gets a last dim of 1.
  SmallVector<int64_t> varShape(var.shape());
  if (varShape != SmallVector<int64_t>(in.shape()) &&
      ArrayRef<int64_t>(varShape) == in.shape().drop_back())
    varShape.push_back(1);
  Tensor x = c->f64("input"), t = c->f64("target");
  DType diff = resultType({operandOf(in), operandOf(c->operand("target"))});
  Tensor vv = broadcastTo(var.to(DType::F64).reshaped(varShape), c->type.shape);
  double e = roundedTo(var.dtype(), *eps);
  std::vector<double> v(x.numel());
  for (size_t i = 0; i < v.size(); ++i) {
    double s = std::max(vv.data<double>()[i], e);
    if (std::isnan(vv.data<double>()[i]))
      s = vv.data<double>()[i];
    // (input - target and its square wrap in an integer dtype.)
    double d = roundedTo(diff, x.data<double>()[i] - t.data<double>()[i]);
    v[i] = 0.5 * (std::log(s) + roundedTo(diff, d * d) / s);
    if (*full)
      v[i] += 0.5 * std::log(2 * M_PI);
  }
  return reducedLoss(*c, v);
}

/// -(target log_sigmoid(input) + (1 - target) log_sigmoid(-input)) times
/// weight, summed over the input's last dim and divided by its size.
FailureOr<RtValue> multilabelSoftMarginLoss(const KernelArgs &args) {
  FailureOr<MarginCall> c =
      marginCall(args, "torch.nn.functional.multilabel_soft_margin_loss");
  if (failed(c))
    return failure();
  const Tensor &in = c->operand("input");
  SmallVector<llvm::ArrayRef<int64_t>> shapes{in.shape(), c->operand("target").shape()};
  bool weighted = c->operands.count("weight");
  if (weighted)
    shapes.push_back(c->operand("weight").shape());
  SmallVector<int64_t> full;
  for (ArrayRef<int64_t> s : shapes)
    full = *broadcastShape(full, s);
  Tensor x = c->f64("input", ArrayRef<int64_t>(full)), t = c->f64("target", ArrayRef<int64_t>(full));
  Tensor w = weighted ? c->f64("weight", ArrayRef<int64_t>(full)) : Tensor();
  int64_t classDim = in.rank() - 1, size = full[classDim];
  DType targetDType = c->operand("target").dtype();
  auto [outer, inner] = outerInner(full, classDim);
  auto logSigmoid = [](double z) { return std::min(z, 0.0) - std::log1p(std::exp(-std::abs(z))); };
  std::vector<double> v(outer * inner, 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double s = 0;
      for (int64_t j = 0; j < size; ++j) {
        int64_t at = (o * size + j) * inner + i;
        double xi = x.data<double>()[at], ti = t.data<double>()[at];
        double l = -(ti * logSigmoid(xi) + roundedTo(targetDType, 1 - ti) * logSigmoid(-xi));
        s += weighted ? l * w.data<double>()[at] : l;
      }
      v[o * inner + i] = s / static_cast<double>(in.dim(classDim));
    }
  return reducedLoss(*c, v);
}

/// max(margin + d(anchor, positive) - d(anchor, negative), 0), d the
/// pairwise distance (swap: the smaller of d(a, n) and d(p, n)).
FailureOr<RtValue> tripletMarginLoss(const KernelArgs &args) {
  FailureOr<MarginCall> c = marginCall(args, "torch.nn.functional.triplet_margin_loss");
  FailureOr<double> margin = args.getFloat("margin"), p = args.getFloat("p"),
                    eps = args.getFloat("eps");
  FailureOr<bool> swap = args.getBool("swap");
  if (failed(c) || failed(margin) || failed(p) || failed(eps) || failed(swap))
    return failure();
  const Tensor &a = c->operand("anchor"), &pos = c->operand("positive"), &neg = c->operand("negative");
  auto distance = [&](const Tensor &x, const Tensor &y) {
    auto priority = [](const Tensor &t) {
      return t.rank() ? PromotionPriority::Tensor : PromotionPriority::ZeroDim;
    };
    DType d = toFloatingDType(resultType({{x.dtype(), priority(x)}, {y.dtype(), priority(y)}}));
    return pairwise(x, y, *p, *eps, d);
  };
  Tensor dp = distance(a, pos), dn = distance(a, neg);
  Tensor dpb = broadcastTo(dp.to(DType::F64), c->type.shape),
         dnb = broadcastTo(dn.to(DType::F64), c->type.shape);
  if (*swap) {
    Tensor ds = broadcastTo(distance(pos, neg).to(DType::F64), c->type.shape);
    for (int64_t i = 0; i < dnb.numel(); ++i) {
      double x = dnb.data<double>()[i], y = ds.data<double>()[i];
      dnb.data<double>()[i] = std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
    }
  }
  std::vector<double> v(dpb.numel());
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = clampMin0(roundedTo(c->type.dtype,
                               roundedTo(c->type.dtype, *margin + dpb.data<double>()[i]) -
                                   dnb.data<double>()[i]));
  return reducedLoss(*c, v);
}

/// Per sample: the sum over classes d != y of max(margin - x[y] + x[d],
/// 0)^p (times weight[y]), divided by the number of classes.
FailureOr<RtValue> multiMarginLoss(const KernelArgs &args) {
  FailureOr<double> p = args.getFloat("p");
  if (failed(p))
    return failure();
  if (*p != 1 && *p != 2)
    return args.emitError() << "only p == 1 and p == 2 supported";
  FailureOr<MarginCall> c = marginCall(args, "torch.nn.functional.multi_margin_loss");
  FailureOr<double> margin = args.getFloat("margin");
  if (failed(c) || failed(margin))
    return failure();
  const Tensor &in = c->operand("input"), &target = c->operand("target");
  bool weighted = c->operands.count("weight");
  DType dtype = in.dtype();
  int64_t dim = in.rank() ? in.dim(in.rank() - 1) : 1;
  int64_t nframe = in.rank() == 2 ? in.dim(0) : 1;
  double m = roundedTo(dtype, *margin);
  std::vector<double> v(nframe);
  for (int64_t f = 0; f < nframe; ++f) {
    int64_t y = target.getInt(f);
    if (y < 0 || y >= dim)
      return args.emitError() << "target out of range";
    double xy = in.getDouble(f * dim + y), sum = 0;
    for (int64_t d = 0; d < dim; ++d) {
      if (d == y)
        continue;
      double z = roundedTo(dtype, roundedTo(dtype, m - xy) + in.getDouble(f * dim + d));
      if (z > 0) {
        double h = *p == 1 ? z : roundedTo(dtype, z * z);
        if (weighted)
          h = roundedTo(dtype, h * c->operand("weight").getDouble(y));
        sum = roundedTo(dtype, sum + h);
      }
    }
    v[f] = roundedTo(dtype, sum / static_cast<double>(dim));
  }
  return reducedLoss(*c, v);
}

/// Per sample: with the targets the indices before the first -1, the sum
/// over targets j and non-target classes i of max(1 - x[j] + x[i], 0),
/// divided by the number of classes.
FailureOr<RtValue> multilabelMarginLoss(const KernelArgs &args) {
  FailureOr<MarginCall> c = marginCall(args, "torch.nn.functional.multilabel_margin_loss");
  if (failed(c))
    return failure();
  const Tensor &in = c->operand("input"), &target = c->operand("target");
  DType dtype = in.dtype();
  int64_t dim = in.rank() ? in.dim(in.rank() - 1) : 1;
  int64_t nframe = in.rank() == 2 ? in.dim(0) : 1;
  for (int64_t i = 0; i < target.numel(); ++i)
    if (target.getInt(i) < -1 || target.getInt(i) >= dim)
      return args.emitError() << "argument #2 'target' is out of range";
  std::vector<double> v(nframe);
  for (int64_t f = 0; f < nframe; ++f) {
    std::vector<bool> isTarget(dim, false);
    int64_t count = 0;
    for (; count < dim && target.getInt(f * dim + count) >= 0; ++count)
      isTarget[target.getInt(f * dim + count)] = true;
    double sum = 0;
    for (int64_t j = 0; j < count; ++j) {
      double xt = in.getDouble(f * dim + target.getInt(f * dim + j));
      for (int64_t d = 0; d < dim; ++d) {
        if (isTarget[d])
          continue;
        double z = roundedTo(dtype, roundedTo(dtype, 1 - xt) + in.getDouble(f * dim + d));
        if (z > 0)
          sum = roundedTo(dtype, sum + z);
      }
    }
    v[f] = roundedTo(dtype, sum / static_cast<double>(dim));
  }
  return reducedLoss(*c, v);
}

/// ctc_loss: the loss runtime's per-sequence negative log-likelihoods
/// (torch's recursion, in the input's type), then zero_infinity and the
/// reduction as torch's composite applies them: 'mean' divides each by
/// its target length (at least 1) and averages.
FailureOr<RtValue> ctcLoss(const KernelArgs &args) {
  FailureOr<Tensor> lp = args.tensor("log_probs"), tg = args.tensor("targets");
  FailureOr<int64_t> blank = args.getInt("blank");
  FailureOr<std::string> reduction = args.getStr("reduction");
  FailureOr<bool> zeroInf = args.getBool("zero_infinity");
  if (failed(lp) || failed(tg) || failed(blank) || failed(reduction) ||
      failed(zeroInf))
    return failure();
  bool unbatched = lp->rank() == 2;
  int64_t time = lp->dim(0), n = unbatched ? 1 : lp->dim(1),
          classes = lp->dim(lp->rank() - 1);
  auto lengths = [&](StringRef name) -> FailureOr<std::vector<int64_t>> {
    const RtValue &v = args.get(name);
    if (v.isTensor()) {
      Tensor t = v.tensor();
      std::vector<int64_t> out(t.numel());
      for (int64_t i = 0; i < t.numel(); ++i)
        out[i] = t.getInt(i);
      return out;
    }
    FailureOr<SmallVector<int64_t>> ints = args.getInts(name);
    if (failed(ints))
      return failure();
    return std::vector<int64_t>(ints->begin(), ints->end());
  };
  FailureOr<std::vector<int64_t>> il = lengths("input_lengths"),
                                  tl = lengths("target_lengths");
  if (failed(il) || failed(tl))
    return failure();
  bool twoD = tg->rank() == 2 || unbatched;
  int64_t s = tg->rank() == 2 ? tg->dim(1) : tg->dim(0);
  std::vector<int64_t> targets(tg->numel());
  for (int64_t i = 0; i < tg->numel(); ++i)
    targets[i] = tg->getInt(i);
  std::vector<double> nll(n);
  int32_t status;
  if (lp->dtype() == DType::F32) {
    std::vector<float> out(n);
    status = traced_ctc_loss_f32(lp->data<float>(), targets.data(), il->data(),
                                 tl->data(), out.data(), time, n, classes, s,
                                 twoD, *blank);
    std::copy(out.begin(), out.end(), nll.begin());
  } else {
    status = traced_ctc_loss_f64(lp->data<double>(), targets.data(), il->data(),
                                 tl->data(), nll.data(), time, n, classes, s,
                                 twoD, *blank);
  }
  if (status == 1)
    return args.emitError() << "Expected input_lengths to have value at most "
                            << time;
  if (status == 2)
    return args.emitError() << "Expected tensor to have size at least the "
                               "target lengths for argument 'targets'";
  if (status == 3)
    return args.emitError() << "a target is outside [0, " << classes << ")";
  if (status != 0)
    return args.emitError() << "the loss runtime failed (status " << status
                            << ")";
  DType dtype = lp->dtype();
  for (double &v : nll)
    if (*zeroInf && v == INFINITY)
      v = 0;
  if (*reduction == "none") {
    Tensor out(dtype, unbatched ? SmallVector<int64_t>{} : SmallVector<int64_t>{n});
    for (int64_t b = 0; b < n; ++b)
      out.setDouble(b, nll[b]);
    return RtValue(out);
  }
  double sum = 0;
  for (int64_t b = 0; b < n; ++b)
    sum = roundedTo(dtype, sum + (*reduction == "mean"
                                      ? roundedTo(dtype, nll[b] / std::max<double>((*tl)[b], 1))
                                      : nll[b]));
  if (*reduction == "mean")
    sum = roundedTo(dtype, sum / static_cast<double>(n));
  Tensor out(dtype, {});
  out.setDouble(0, sum);
  return RtValue(out);
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
  table["torch.nn.functional.margin_ranking_loss"] = marginRankingLoss;
  table["torch.nn.functional.hinge_embedding_loss"] = hingeEmbeddingLoss;
  table["torch.nn.functional.cosine_embedding_loss"] = cosineEmbeddingLoss;
  table["torch.nn.functional.gaussian_nll_loss"] = gaussianNllLoss;
  table["torch.nn.functional.multilabel_soft_margin_loss"] = multilabelSoftMarginLoss;
  table["torch.nn.functional.triplet_margin_loss"] = tripletMarginLoss;
  table["torch.nn.functional.multi_margin_loss"] = multiMarginLoss;
  table["torch.nn.functional.multilabel_margin_loss"] = multilabelMarginLoss;
  table["torch.nn.functional.ctc_loss"] = ctcLoss;
}
