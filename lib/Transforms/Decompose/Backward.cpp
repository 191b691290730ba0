//===- Backward.cpp - decompositions of ATen's activation backwards -------===//
//
// The `aten::*_backward` entries that traces of lowered (aot_autograd)
// programs hold, as PyTorch 1.13's derivative formulas.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;


/// grad where `zero` is false, else 0 (broadcast, in grad's type).
static Value gradUnless(Decomposer &d, Value zero, Value grad) {
  return d.call("torch.where", {{"condition", zero}, {"input", d.i64(0)}, {"other", grad}});
}

/// Tensor parameter `name` in the result's (promoted) dtype: an int64 grad
/// with a float64 input computes in float64, not through a Python float's
/// float32.
static Value promoted(Decomposer &d, StringRef name) {
  return d.cast(d.tensor(name), d.resultTensorType().getElementType());
}

/// grad where input > 0, else grad * slope (leaky_relu's gradient), in
/// the result's dtype.
static Value leakyGrad(Decomposer &d, Arg slope) {
  Value g = promoted(d, "grad_output");
  Value pos = d.binary("torch.gt", promoted(d, "input"), d.i64(0));
  return d.call("torch.where", {{"condition", pos},
                                {"input", g},
                                {"other", d.binary("torch.mul", g, slope)}});
}

static Results decomposeMaxPoolBackward(Decomposer &d);
static Results decomposeNllLossBackward(Decomposer &d);

void decompose::populateBackwardDecompositions(DecompositionTable &t) {
  t["torch.ops.aten.max_pool2d_with_indices_backward.default"] = decomposeMaxPoolBackward;
  t["torch.ops.aten.max_pool3d_with_indices_backward.default"] = decomposeMaxPoolBackward;
  t["torch.ops.aten.nll_loss_backward.default"] = decomposeNllLossBackward;
  // softmax: y (g - sum(g y)); log_softmax: g - exp(y) sum(g), along dim.
  for (StringRef name : {"torch.ops.aten._softmax_backward_data.default",
                         "torch.ops.aten._log_softmax_backward_data.default"})
    t[name] = [](Decomposer &d) -> Results {
      bool log = d.target().contains("_log_");
      Value g = d.tensor("grad_output"), y = d.tensor("output");
      auto sum = [&](Value v) {
        return d.call("torch.sum", {{"input", v}, {"dim", d.ints({*d.getInt("dim")})},
                                    {"keepdim", d.boolean(true)}});
      };
      if (!d.getInt("dim"))
        return d.decline("dim is not a constant");
      if (log)
        return one(d.binary("torch.sub", g,
                            d.binary("torch.mul", d.unary("torch.exp", y), sum(g))));
      return one(d.binary("torch.mul", y,
                          d.binary("torch.sub", g, sum(d.binary("torch.mul", g, y)))));
    };
  // (The result has grad_output and input's promoted dtype.)
  t["torch.ops.aten.threshold_backward.default"] = [](Decomposer &d) -> Results {
    // Compared in the promoted dtype, as torch does: a uint8 input against
    // threshold -1 must not wrap it to 255. torch's kernel converts the
    // threshold to that dtype first (Scalar::to): an integer one truncates
    // and wraps it (-1.75 is -1 in int32; fuzz-diff,
    // test/Fuzz/diff/threshold-backward-int-threshold).
    Arg threshold = d.arg("threshold");
    Type compute = d.resultTensorType().getElementType();
    std::optional<double> t = d.getFloat("threshold");
    if (t && isa<IntegerType>(compute) && !compute.isInteger(1) &&
        std::isfinite(*t) && std::fabs(*t) < 9.2e18) {
      auto integer = cast<IntegerType>(compute);
      unsigned width = integer.getWidth();
      APInt wrapped(64, static_cast<uint64_t>(static_cast<int64_t>(std::trunc(*t))),
                    /*isSigned=*/true);
      wrapped = wrapped.trunc(width);
      threshold = d.i64(integer.isUnsigned() ? int64_t(wrapped.getZExtValue())
                                             : wrapped.getSExtValue());
    }
    Value le = d.binary("torch.le", promoted(d, "input"), threshold);
    return one(d.cast(gradUnless(d, le, d.tensor("grad_output")),
                      d.resultTensorType().getElementType()));
  };
  t["torch.ops.aten.tanh_backward.default"] = [](Decomposer &d) -> Results {
    Value y = promoted(d, "output");
    Value slope = d.call("torch.sub", {{"input", d.i64(1)}, {"other", d.binary("torch.mul", y, y)}});
    return one(d.binary("torch.mul", promoted(d, "grad_output"), slope));
  };
  t["torch.ops.aten.sigmoid_backward.default"] = [](Decomposer &d) -> Results {
    Value y = promoted(d, "output");
    Value slope = d.binary("torch.mul", y, d.call("torch.sub", {{"input", d.i64(1)}, {"other", y}}));
    return one(d.binary("torch.mul", promoted(d, "grad_output"), slope));
  };
  t["torch.ops.aten.leaky_relu_backward.default"] = [](Decomposer &d) -> Results {
    return one(leakyGrad(d, d.arg("negative_slope")));
  };
  // torch 1.13: grad * noise in training, else leaky_relu_backward with
  // the mean of lower and upper as the slope.
  t["torch.ops.aten.rrelu_with_noise_backward.default"] = [](Decomposer &d) -> Results {
    std::optional<bool> training = d.getBool("training");
    std::optional<double> lower = d.getFloat("lower"), upper = d.getFloat("upper");
    if (!training || !lower || !upper)
      return d.decline("training, lower and upper must be constants");
    if (*training)
      return one(d.binary("torch.mul", d.tensor("grad_output"), d.tensor("noise")));
    return one(leakyGrad(d, d.f64((*lower + *upper) / 2)));
  };
  // torch's vectorized form, `min < x < max ? grad : 0`, as the
  // interpreter: a NaN input gives 0. (Its scalar tail, `x <= min || x >=
  // max ? 0 : grad`, passes NaN through: torch's result for a NaN depends
  // on where it sits in the tensor. fuzz-diff, test/Fuzz/diff/
  // hardtanh-backward-nan.)
  t["torch.ops.aten.hardtanh_backward.default"] = [](Decomposer &d) -> Results {
    Value x = promoted(d, "input");
    Value inside = d.binary("torch.logical_and", d.binary("torch.gt", x, d.arg("min_val")),
                            d.binary("torch.lt", x, d.arg("max_val")));
    Value outside = d.unary("torch.logical_not", inside);
    return one(d.cast(gradUnless(d, outside, d.tensor("grad_output")),
                      d.resultTensorType().getElementType()));
  };
  // grad (Phi(x) + x phi(x)) for the exact GELU.
  t["torch.ops.aten.gelu_backward.default"] = [](Decomposer &d) -> Results {
    std::optional<std::string> approximate = d.getStr("approximate");
    // In the result's dtype from the start, as torch computes it: a bool or
    // integer input would otherwise go through float32 (x * 0.7071...).
    // float16 and bfloat16 compute in float32 and round once at the end,
    // as torch's CPU kernel does.
    Type element = d.resultTensorType().getElementType();
    Type compute = isa<Float16Type, BFloat16Type>(element)
                       ? Float32Type::get(d.ctx)
                       : element;
    Value x = d.cast(d.tensor("input"), compute);
    Value grad = d.cast(d.tensor("grad_output"), compute);
    auto finish = [&](Value v) { return one(d.cast(v, element)); };
    if (approximate == std::optional<std::string>("tanh")) {
      // t = tanh(k (x + c x^3)): 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2).
      double k = M_SQRT2 * M_2_SQRTPI * 0.5, c = 0.044715;
      Value x2 = d.binary("torch.mul", x, x);
      Value inner = d.binary("torch.mul",
                             d.binary("torch.add", x, d.binary("torch.mul", d.binary("torch.mul", x2, x), d.f64(c))),
                             d.f64(k));
      Value th = d.unary("torch.tanh", inner);
      Value left = d.binary("torch.mul", d.binary("torch.add", th, d.i64(1)), d.f64(0.5));
      Value sech2 = d.call("torch.sub", {{"input", d.i64(1)}, {"other", d.binary("torch.mul", th, th)}});
      Value right = d.binary(
          "torch.mul",
          d.binary("torch.mul", d.binary("torch.mul", x, d.f64(0.5)), sech2),
          d.binary("torch.mul", d.binary("torch.add", d.binary("torch.mul", x2, d.f64(3 * c)), d.i64(1)),
                   d.f64(k)));
      return finish(d.binary("torch.mul", grad, d.binary("torch.add", left, right)));
    }
    if (approximate != std::optional<std::string>("none"))
      return d.decline("approximate must be a constant");
    Value cdf = d.binary("torch.mul",
                         d.binary("torch.add",
                                  d.unary("torch.erf", d.binary("torch.mul", x, d.f64(M_SQRT1_2))),
                                  d.i64(1)),
                         d.f64(0.5));
    Value pdf = d.binary("torch.mul",
                         d.unary("torch.exp", d.binary("torch.mul", d.binary("torch.mul", x, x),
                                                       d.f64(-0.5))),
                         d.f64(0.5 * M_2_SQRTPI * M_SQRT1_2));
    Value slope = d.binary("torch.add", cdf, d.binary("torch.mul", x, pdf));
    return finish(d.binary("torch.mul", grad, slope));
  };
  // z = exp(beta x): grad z / (z + 1), or grad where beta x > threshold.
  t["torch.ops.aten.softplus_backward.default"] = [](Decomposer &d) -> Results {
    Value g = promoted(d, "grad_output");
    Value bx = d.binary("torch.mul", promoted(d, "input"), d.arg("beta"));
    Value z = d.unary("torch.exp", bx);
    Value soft = d.binary("torch.mul", g, d.binary("torch.div", z, d.binary("torch.add", z, d.i64(1))));
    return one(d.call("torch.where", {{"condition", d.binary("torch.gt", bx, d.arg("threshold"))},
                                      {"input", g},
                                      {"other", soft}}));
  };
  // x <= 0 (or NaN): grad input_scale (result + alpha scale) from the result, or
  // grad input_scale alpha scale exp(x input_scale) from the input; else
  // grad scale.
  t["torch.ops.aten.elu_backward.default"] = [](Decomposer &d) -> Results {
    std::optional<double> alpha = d.getFloat("alpha"), scale = d.getFloat("scale"),
                          inputScale = d.getFloat("input_scale");
    std::optional<bool> isResult = d.getBool("is_result");
    if (!alpha || !scale || !inputScale || !isResult)
      return d.decline("the coefficients must be constants");
    Value g = promoted(d, "grad_output"), v = promoted(d, "self_or_result");
    Value neg = *isResult
                    ? d.binary("torch.mul", d.binary("torch.mul", g, d.f64(*inputScale)),
                               d.binary("torch.add", v, d.f64(*alpha * *scale)))
                    : d.binary("torch.mul", d.binary("torch.mul", g, d.f64(*inputScale * *alpha * *scale)),
                               d.unary("torch.exp", d.binary("torch.mul", v, d.f64(*inputScale))));
    // x > 0 picks the positive branch, so NaN takes the negative one, as
    // torch's vectorized kernel (and the interpreter) do.
    return one(d.call("torch.where", {{"condition", d.binary("torch.gt", v, d.i64(0))},
                                      {"input", d.binary("torch.mul", g, d.f64(*scale))},
                                      {"other", neg}}));
  };
}

/// max_pool{2,3}d_with_indices_backward: each gradient element added at the
/// input position its index names within its (batch, channel) plane.
static Results decomposeMaxPoolBackward(Decomposer &d) {
  Value grad = d.tensor("grad_output"), input = d.tensor("input"), indices = d.tensor("indices");
  auto gt = dyn_cast<RankedTensorType>(grad.getType());
  auto it = dyn_cast<RankedTensorType>(input.getType());
  int64_t spatial = d.target().contains("3d") ? 3 : 2;
  if (!gt || !it || !gt.hasStaticShape() || !it.hasStaticShape() ||
      it.getRank() < spatial || gt.getRank() != it.getRank())
    return d.decline("needs static shapes");
  int64_t planes = 1, in = 1, out = 1;
  for (int64_t i = 0; i < it.getRank() - spatial; ++i)
    planes *= it.getDimSize(i);
  for (int64_t i = it.getRank() - spatial; i < it.getRank(); ++i) {
    in *= it.getDimSize(i);
    out *= gt.getDimSize(i);
  }
  auto flat = [&](Value v, int64_t n) {
    return d.call("torch.reshape", {{"input", v}, {"shape", d.ints({planes, n})}});
  };
  Value zeros = d.call("torch.zeros_like", {{"input", flat(input, in)}});
  Value r = d.call("torch.scatter_add", {{"input", d.cast(zeros, gt.getElementType())},
                                         {"dim", d.i64(1)},
                                         {"index", flat(indices, out)},
                                         {"src", flat(grad, out)}});
  return one(d.call("torch.reshape", {{"input", r}, {"shape", d.ints(it.getShape())}}));
}

/// nll_loss_backward: -w[target] * grad at (n, target[n]), scaled by 1 /
/// total_weight for the mean, 0 where ignored.
static Results decomposeNllLossBackward(Decomposer &d) {
  Value grad = d.tensor("grad_output"), input = d.tensor("input"), target = d.tensor("target");
  auto reduction = d.getInt("reduction"), ignore = d.getInt("ignore_index");
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!reduction || !ignore || !type || !type.hasStaticShape() || type.getRank() == 0)
    return d.decline("needs constant arguments and a static input");
  int64_t rank = type.getRank();
  // A 1-D input is one sample; torch reads a 1-D target's first element.
  if (rank == 1 && cast<RankedTensorType>(target.getType()).getRank() == 1)
    target = d.call("torch.select",
                    {{"input", target}, {"dim", d.i64(0)}, {"index", d.i64(0)}});
  ClassMask classes = classMask(d, type, target);
  int64_t classDim = classes.classDim;
  Value t = d.call("torch.unsqueeze", {{"input", target}, {"dim", d.i64(classDim)}});
  Value valid = d.binary("torch.ne", t, d.i64(*ignore));
  Value mask = d.binary("torch.logical_and", classes.mask, valid);
  Value w = d.cast(mask, type.getElementType());
  if (Value weight = d.tensor("weight"))
    w = d.binary("torch.mul", w,
                 d.call("torch.reshape", {{"input", weight}, {"shape", d.ints(classes.classShape)}}));
  Value g = grad;
  if (*reduction == 0) {
    if (rank >= 2)
      g = d.call("torch.unsqueeze", {{"input", grad}, {"dim", d.i64(classDim)}});
  } else if (*reduction == 1) {
    g = d.binary("torch.div", grad, d.arg("total_weight"));
  }
  // Only (n, target[n]) reads the gradient: elsewhere 0, even beside a NaN.
  Value r = d.unary("torch.neg", d.binary("torch.mul", w, g));
  r = d.call("torch.where", {{"condition", mask}, {"input", r}, {"other", d.i64(0)}});
  return one(d.cast(r, d.resultTensorType().getElementType()));
}
