//===- Backward.cpp - the gradients of aten::*_backward -------------------===//
//
// ATen-only ops that traces of training graphs hold: the activations'
// gradients (threshold, tanh, sigmoid, leaky_relu, hardtanh, gelu,
// softplus, elu), max pooling's with indices and nll_loss's. `input` is
// the forward's input (`self`), `output` its result; each is torch's CPU
// formula.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;

namespace mlir::traced::kernels {

/// Python number `v` as torch's `Scalar::to<scalar_t>()` gives it in the
/// dtype that `a` and `b` compute in: rounded to float32 or half precision,
/// wrapped into a narrower integer (-1 is 255 for uint8).
static FailureOr<double> scalarInComputeDType(const KernelArgs &args,
                                              StringRef a, StringRef b,
                                              double v) {
  FailureOr<Operand> x = operand(args, a), y = operand(args, b);
  if (failed(x) || failed(y))
    return failure();
  Tensor t(resultType({promotionOf(*x), promotionOf(*y)}), {});
  t.setDouble(0, isIntegral(t.dtype()) ? std::trunc(v) : v);
  t.roundToDType();
  return t.getDouble(0);
}

FailureOr<RtValue> thresholdBackward(const KernelArgs &args) {
  FailureOr<double> threshold = args.getFloat("threshold");
  if (failed(threshold))
    return failure();
  FailureOr<double> converted =
      scalarInComputeDType(args, "grad_output", "input", *threshold);
  if (failed(converted))
    return failure();
  double t = *converted;
  return binary(args, "grad_output", "input", [t](auto g, auto x) {
    return x <= t ? decltype(g)(0) : g;
  });
}

/// aten::_softmax_backward_data (output (grad - sum(grad output))) and
/// _log_softmax_backward_data (grad - exp(output) sum(grad)), the sums
/// along `dim`, from the forward's output; computed in double, rounded once.
template <bool Log>
FailureOr<RtValue> softmaxBackwardData(const KernelArgs &args) {
  FailureOr<Tensor> g = args.tensor("grad_output"), y = args.tensor("output");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(g) || failed(y) || failed(dim))
    return failure();
  if (g->shape() != y->shape())
    return args.emitError() << "expects grad_output of output's size";
  FailureOr<int64_t> d = normalizeDim(args, *dim, std::max<int64_t>(g->rank(), 1));
  if (failed(d))
    return failure();
  int64_t outer = 1, size = g->rank() ? g->dim(*d) : 1, inner = 1;
  for (int64_t k = 0; k < *d && k < g->rank(); ++k)
    outer *= g->dim(k);
  for (int64_t k = *d + 1; k < g->rank(); ++k)
    inner *= g->dim(k);
  Tensor out(DType::F64, g->shape());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return (o * size + k) * inner + i; };
      double s = 0;
      for (int64_t k = 0; k < size; ++k)
        s += Log ? g->getDouble(at(k)) : g->getDouble(at(k)) * y->getDouble(at(k));
      for (int64_t k = 0; k < size; ++k) {
        double gk = g->getDouble(at(k)), yk = y->getDouble(at(k));
        out.setDouble(at(k), Log ? gk - std::exp(yk) * s : yk * (gk - s));
      }
    }
  return RtValue(out.to(g->dtype()));
}

FailureOr<RtValue> tanhBackward(const KernelArgs &args) {
  return binary(args, "grad_output", "output",
                [](auto g, auto y) { return g * (1 - y * y); });
}

FailureOr<RtValue> sigmoidBackward(const KernelArgs &args) {
  return binary(args, "grad_output", "output",
                [](auto g, auto y) { return g * (1 - y) * y; });
}

/// grad where input > 0, else grad * k (leaky_relu's gradient).
static FailureOr<RtValue> leakyGrad(const KernelArgs &args, double k) {
  return binary(args, "grad_output", "input", [k](auto g, auto x) {
    return x > 0 ? g : static_cast<decltype(g)>(g * k);
  });
}

FailureOr<RtValue> leakyReluBackward(const KernelArgs &args) {
  FailureOr<double> slope = args.getFloat("negative_slope");
  if (failed(slope))
    return failure();
  return leakyGrad(args, *slope);
}

/// aten::rrelu_with_noise_backward (torch 1.13): grad_output * noise in
/// training, else leaky_relu_backward with the mean slope (the rule has
/// checked the dtypes and the slope's sign).
FailureOr<RtValue> rreluWithNoiseBackward(const KernelArgs &args) {
  FailureOr<bool> training = args.getBool("training");
  FailureOr<double> lower = args.getFloat("lower"), upper = args.getFloat("upper");
  if (failed(training) || failed(lower) || failed(upper))
    return failure();
  if (*training)
    return binary(args, "grad_output", "noise",
                  [](auto g, auto n) { return g * n; });
  return leakyGrad(args, (*lower + *upper) / 2);
}

FailureOr<RtValue> hardtanhBackward(const KernelArgs &args) {
  FailureOr<double> lo = args.getFloat("min_val"), hi = args.getFloat("max_val");
  if (failed(lo) || failed(hi))
    return failure();
  FailureOr<double> clo = scalarInComputeDType(args, "grad_output", "input", *lo),
                    chi = scalarInComputeDType(args, "grad_output", "input", *hi);
  if (failed(clo) || failed(chi))
    return failure();
  double a = *clo, b = *chi;
  // (torch's vectorized form, which zeroes NaN inputs; its scalar tail
  // keeps them.)
  return binary(args, "grad_output", "input", [a, b](auto g, auto x) {
    return (x > a && x < b) ? g : decltype(g)(0);
  });
}

FailureOr<RtValue> geluBackward(const KernelArgs &args) {
  FailureOr<std::string> approximate = args.getStr("approximate");
  if (failed(approximate))
    return failure();
  if (*approximate != "none" && *approximate != "tanh")
    return args.emitError() << "approximate argument must be either none or "
                               "tanh, got '"
                            << *approximate << "'";
  if (*approximate == "tanh")
    return binary(args, "grad_output", "input", [](auto g, auto x) {
      using T = decltype(g);
      const T beta = T(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = T(0.044715);
      T inner = beta * (x + kappa * x * x * x), t = std::tanh(inner);
      T left = T(0.5) * x, right = 1 + t;
      T dLeft = T(0.5) * right;
      T dRight = left * (1 - t * t) * beta * (1 + 3 * kappa * x * x);
      return static_cast<T>(g * (dLeft + dRight));
    });
  return binary(args, "grad_output", "input", [](auto g, auto x) {
    using T = decltype(g);
    T cdf = T(0.5) * (1 + std::erf(x * T(M_SQRT1_2)));
    T pdf = std::exp(T(-0.5) * x * x) * T(M_2_SQRTPI * M_SQRT1_2 * 0.5);
    return static_cast<T>(g * (cdf + x * pdf));
  });
}

FailureOr<RtValue> softplusBackward(const KernelArgs &args) {
  FailureOr<double> beta = args.getFloat("beta"),
                    threshold = args.getFloat("threshold");
  if (failed(beta) || failed(threshold))
    return failure();
  double b = *beta, t = *threshold;
  return binary(args, "grad_output", "input", [b, t](auto g, auto x) {
    using T = decltype(g);
    T z = std::exp(x * T(b));
    return x * T(b) > T(t) ? g : static_cast<T>(g * z / (z + 1));
  });
}

FailureOr<RtValue> eluBackward(const KernelArgs &args) {
  FailureOr<double> alpha = args.getFloat("alpha"), scale = args.getFloat("scale"),
                    inputScale = args.getFloat("input_scale");
  FailureOr<bool> isResult = args.getBool("is_result");
  if (failed(alpha) || failed(scale) || failed(inputScale) || failed(isResult))
    return failure();
  double neg = *alpha * *scale, pos = *scale, in = *inputScale;
  bool result = *isResult;
  return binary(args, "grad_output", "self_or_result",
                [=](auto g, auto x) {
                  using T = decltype(g);
                  // (torch's vectorized form: NaN takes the negative
                  // branch; its scalar tail takes the positive one.)
                  if (x > 0)
                    return static_cast<T>(g * T(pos));
                  return result ? static_cast<T>(g * T(in) * (x + T(neg)))
                                : static_cast<T>(g * T(in) * T(neg) *
                                                 std::exp(x * T(in)));
                });
}


/// aten::max_pool{2,3}d_with_indices_backward: each gradient element added
/// at the input position its index names (indices count within each
/// channel's flattened spatial dims, as max_pool's do).
FailureOr<RtValue> maxPoolIndicesBackward(const KernelArgs &args) {
  FailureOr<Tensor> grad = args.tensor("grad_output"), in = args.tensor("input"),
                    idx = args.tensor("indices");
  if (failed(grad) || failed(in) || failed(idx))
    return failure();
  if (grad->shape() != idx->shape() || in->rank() < 2 ||
      grad->rank() != in->rank())
    return args.emitError() << "grad_output and indices must have one shape, "
                               "of the input's rank";
  int64_t spatialRank = args.has("kernel_size")
                            ? static_cast<int64_t>(
                                  args.getInts("kernel_size").value().size())
                            : 2;
  int64_t planeIn = 1, planeOut = 1;
  for (int64_t d = in->rank() - spatialRank; d < in->rank(); ++d) {
    planeIn *= in->dim(d);
    planeOut *= grad->dim(d);
  }
  int64_t planes = planeOut ? grad->numel() / planeOut : 0;
  Tensor out(DType::F64, in->shape());
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < planeOut; ++i) {
      int64_t at = idx->getInt(p * planeOut + i);
      if (at < 0 || at >= planeIn)
        return args.emitError() << "index " << at << " is out of range";
      out.data<double>()[p * planeIn + at] += grad->getDouble(p * planeOut + i);
    }
  return RtValue(out.to(in->dtype()));
}

/// aten::nll_loss_backward: the gradient of nll_loss with respect to its
/// input: -weight[t] * grad at each counted target, over total_weight for
/// 'mean'; zero elsewhere.
FailureOr<RtValue> nllLossBackward(const KernelArgs &args) {
  FailureOr<std::string> reduction = lossReduction(args);
  FailureOr<Tensor> grad = args.tensor("grad_output"), in = args.tensor("input"),
                    target = args.tensor("target"),
                    total = args.tensor("total_weight");
  FailureOr<int64_t> ignore = args.getInt("ignore_index");
  if (failed(reduction) || failed(grad) || failed(in) || failed(target) ||
      failed(total) || failed(ignore))
    return failure();
  if (in->rank() < 1 || in->rank() > 2 || target->rank() > 1)
    return args.emitError() << "expects an input (C) or (N, C) and a 0-D or "
                               "1-D target";
  std::optional<Tensor> weight;
  if (!args.isNone("weight"))
    weight = args.get("weight").tensor();
  // A 1-D input is one sample: torch reads the first element of a 1-D
  // target (of the input's size) as its class.
  int64_t classes = in->dim(in->rank() - 1);
  int64_t samples = in->rank() == 1 ? 1 : in->dim(0);
  bool none = *reduction == "none" && in->rank() == 2;
  if (target->numel() < samples ||
      grad->numel() != (none ? samples : 1))
    return args.emitError() << "grad_output or target has the wrong size";
  double scale = *reduction == "mean" ? total->getDouble(0) : 1.0;
  Tensor out(DType::F64, in->shape());
  for (int64_t n = 0; n < samples; ++n) {
    int64_t t = target->getInt(n);
    if (t == *ignore)
      continue;
    if (t < 0 || t >= classes)
      return args.emitError() << "target " << t << " is out of bounds";
    double g = none ? grad->getDouble(n) : grad->getDouble(0);
    double w = weight ? weight->getDouble(t) : 1.0;
    out.data<double>()[n * classes + t] = -w * g / scale;
  }
  return RtValue(out.to(in->dtype()));
}

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

void mlir::traced::kernels::populateBackwardKernels(KernelTable &table) {
  table["torch.ops.aten.threshold_backward.default"] = thresholdBackward;
  table["torch.ops.aten.tanh_backward.default"] = tanhBackward;
  table["torch.ops.aten.sigmoid_backward.default"] = sigmoidBackward;
  table["torch.ops.aten.leaky_relu_backward.default"] = leakyReluBackward;
  table["torch.ops.aten.hardtanh_backward.default"] = hardtanhBackward;
  table["torch.ops.aten.rrelu_with_noise_backward.default"] =
      rreluWithNoiseBackward;
  table["torch.ops.aten.gelu_backward.default"] = geluBackward;
  table["torch.ops.aten.softplus_backward.default"] = softplusBackward;
  table["torch.ops.aten.elu_backward.default"] = eluBackward;
  table["torch.ops.aten.max_pool2d_with_indices_backward.default"] =
      maxPoolIndicesBackward;
  table["torch.ops.aten.max_pool3d_with_indices_backward.default"] =
      maxPoolIndicesBackward;
  table["torch.ops.aten.nll_loss_backward.default"] = nllLossBackward;
  table["torch.ops.aten._softmax_backward_data.default"] =
      softmaxBackwardData<false>;
  table["torch.ops.aten._log_softmax_backward_data.default"] =
      softmaxBackwardData<true>;
}
