//===- Norm.cpp - normalization -------------------------------------------===//
//
// Batch, layer and group normalization (and their aten::native_* forms) and
// F.normalize.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;

namespace {
/// Optional per-channel tensor argument, converted to double.
FailureOr<std::vector<double>> channelValues(const KernelArgs &args,
                                             StringRef name, int64_t count,
                                             double fallback) {
  if (args.isNone(name))
    return std::vector<double>(count, fallback);
  FailureOr<Tensor> t = args.tensor(name);
  if (failed(t))
    return failure();
  if (t->numel() != count)
    return args.emitError() << "'" << name << "' has " << t->numel()
                            << " elements, expected " << count;
  std::vector<double> v(count);
  for (int64_t i = 0; i < count; ++i)
    v[i] = t->getDouble(i);
  return v;
}

/// Group normalization of `in` seen as [n, c, inner]: each (sample, group)
/// normalized by its biased mean and variance (in double), then the
/// per-channel affine, rounded once. The statistics go to `mean` and
/// `rstd` ([n, groups], 1 / sqrt(var + eps)) when given.
Tensor groupNormImpl(const Tensor &in, int64_t n, int64_t c, int64_t inner,
                     int64_t groups, const std::vector<double> &weight,
                     const std::vector<double> &bias, double eps,
                     Tensor *mean = nullptr, Tensor *rstd = nullptr) {
  int64_t perGroup = c / groups, per = perGroup * inner;
  Tensor out(in.dtype(), in.shape());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t g = 0; g < groups; ++g) {
      int64_t base = (b * c + g * perGroup) * inner;
      double m = 0, v = 0;
      for (int64_t i = 0; i < per; ++i)
        m += in.getDouble(base + i);
      m /= std::max<int64_t>(per, 1);
      for (int64_t i = 0; i < per; ++i) {
        double dlt = in.getDouble(base + i) - m;
        v += dlt * dlt;
      }
      v /= std::max<int64_t>(per, 1);
      double r = 1.0 / std::sqrt(v + eps);
      for (int64_t i = 0; i < per; ++i) {
        int64_t ch = g * perGroup + i / std::max<int64_t>(inner, 1);
        out.setDouble(base + i,
                      (in.getDouble(base + i) - m) * r * weight[ch] + bias[ch]);
      }
      if (mean)
        mean->setDouble(b * groups + g, m);
      if (rstd)
        rstd->setDouble(b * groups + g, r);
    }
  out.roundToDType();
  return out;
}

} // namespace

namespace mlir::traced::kernels {

/// batch_norm's and instance_norm's input, its mode flag (training,
/// use_input_stats) and eps.
struct ChannelsInput {
  Tensor tensor;
  bool flag;
  double eps;
};

/// The input (floating point, of rank 2 or more: else `expects` is
/// reported), the flag `flagName` and eps, or failure (reported).
static FailureOr<ChannelsInput>
channelsInput(const KernelArgs &args, StringRef flagName, StringRef expects) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> flag = args.getBool(flagName);
  FailureOr<double> eps = args.getFloat("eps");
  if (failed(in) || failed(flag) || failed(eps))
    return failure();
  if (in->rank() < 2 || !isFloatingPoint(in->dtype()))
    return args.emitError() << expects;
  return ChannelsInput{*in, *flag, *eps};
}

/// The per-channel running mean and variance, weight and bias of `c`
/// channels (0, 1, 1 and 0 where None).
struct ChannelAffine {
  std::vector<double> mean, var, weight, bias;
};

static FailureOr<ChannelAffine> channelAffine(const KernelArgs &args,
                                              int64_t c) {
  auto mean = channelValues(args, "running_mean", c, 0),
       var = channelValues(args, "running_var", c, 1),
       weight = channelValues(args, "weight", c, 1),
       bias = channelValues(args, "bias", c, 0);
  if (failed(mean) || failed(var) || failed(weight) || failed(bias))
    return failure();
  return ChannelAffine{*mean, *var, *weight, *bias};
}

/// batch_norm's result, and in training mode the per-channel batch mean and
/// 1 / sqrt(var + eps) it normalized by (`savedMean`, `savedInvstd`: the
/// input's dtype, [C]; left as they are in eval mode).
static FailureOr<Tensor> batchNormImpl(const KernelArgs &args,
                                       Tensor *savedMean = nullptr,
                                       Tensor *savedInvstd = nullptr) {
  FailureOr<ChannelsInput> input = channelsInput(
      args, "training", "expects a floating-point input of rank >= 2");
  if (failed(input))
    return failure();
  const Tensor &in = input->tensor;
  bool training = input->flag;
  double eps = input->eps;
  int64_t c = in.dim(1);
  if (!training && (args.isNone("running_mean") || args.isNone("running_var")))
    return args.emitError() << "eval-mode batch_norm needs running statistics";
  // In training mode the running statistics are only updated (in place, by
  // torch), never read: the result is normalized by the batch's.
  FailureOr<ChannelAffine> affine = channelAffine(args, c);
  if (failed(affine))
    return failure();
  std::vector<double> &mean = affine->mean, &var = affine->var,
                      &weight = affine->weight, &bias = affine->bias;
  int64_t inner = 1;
  for (int64_t d = 2; d < in.rank(); ++d)
    inner *= in.dim(d);
  int64_t perChannel = in.dim(0) * inner;
  // Per channel, 1 / sqrt(var + eps) in double, rounded to the dtype below.
  std::vector<double> invstd(c);
  for (int64_t ch = 0; ch < c; ++ch)
    invstd[ch] = 1.0 / std::sqrt(var[ch] + eps);
  if (training) {
    // torch's CPU kernel: the mean accumulated in double and rounded to the
    // dtype, then the squared deviations from that rounded mean. (Zeros for
    // an empty input, whose result is empty.)
    Tensor m(in.dtype(), {c}), r(in.dtype(), {c});
    for (int64_t ch = 0; perChannel != 0 && ch < c; ++ch) {
      double sum = 0;
      for (int64_t b = 0; b < in.dim(0); ++b)
        for (int64_t i = 0; i < inner; ++i)
          sum += in.getDouble((b * c + ch) * inner + i);
      m.setDouble(ch, sum / perChannel);
    }
    m.roundToDType();
    for (int64_t ch = 0; perChannel != 0 && ch < c; ++ch) {
      double mu = m.getDouble(ch), squares = 0;
      for (int64_t b = 0; b < in.dim(0); ++b)
        for (int64_t i = 0; i < inner; ++i) {
          double d = in.getDouble((b * c + ch) * inner + i) - mu;
          squares += d * d;
        }
      r.setDouble(ch, 1.0 / std::sqrt(squares / perChannel + eps));
    }
    r.roundToDType();
    for (int64_t ch = 0; ch < c; ++ch) {
      mean[ch] = m.getDouble(ch);
      invstd[ch] = r.getDouble(ch);
    }
    if (savedMean)
      *savedMean = m;
    if (savedInvstd)
      *savedInvstd = r;
  }
  return mapStorage<std::is_floating_point>(in, [&](const auto *p, auto *o) {
    using T = std::remove_pointer_t<decltype(o)>;
    for (int64_t ch = 0; ch < c; ++ch) {
      // Folded into one scale and shift, as PyTorch's CPU kernel does.
      T scale = static_cast<T>(weight[ch]) * static_cast<T>(invstd[ch]);
      T shift = static_cast<T>(bias[ch]) - static_cast<T>(mean[ch]) * scale;
      for (int64_t b = 0; b < in.dim(0); ++b) {
        const T *src = p + (b * c + ch) * inner;
        T *dst = o + (b * c + ch) * inner;
        for (int64_t i = 0; i < inner; ++i)
          dst[i] = src[i] * scale + shift;
      }
    }
  });
}

FailureOr<RtValue> batchNorm(const KernelArgs &args) {
  FailureOr<bool> training = args.getBool("training");
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(training) || failed(in))
    return failure();
  // F.batch_norm's own check (aten::native_batch_norm has none).
  if (*training && in->rank() >= 2 && in->numel() == in->dim(1)) {
    InFlightDiagnostic diag = args.emitError();
    diag << "Expected more than 1 value per channel when training, got input "
            "size [";
    llvm::interleaveComma(in->shape(), diag);
    return diag << "]";
  }
  FailureOr<Tensor> out = batchNormImpl(args);
  if (failed(out))
    return failure();
  return RtValue(*out);
}

FailureOr<RtValue> layerNorm(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> shape = args.getInts("normalized_shape");
  FailureOr<double> eps = args.getFloat("eps");
  if (failed(in) || failed(shape) || failed(eps))
    return failure();
  if (!isFloatingPoint(in->dtype()))
    return args.emitError() << "expects a floating-point input";
  int64_t count = 1;
  for (int64_t d : *shape)
    count *= d;
  if (shape->size() > static_cast<size_t>(in->rank()) ||
      in->shape().take_back(shape->size()) != ArrayRef<int64_t>(*shape))
    return args.emitError() << "normalized_shape does not match the input";
  auto weight = channelValues(args, "weight", count, 1),
       bias = channelValues(args, "bias", count, 0);
  if (failed(weight) || failed(bias))
    return failure();
  int64_t rows = in->numel() / std::max<int64_t>(count, 1);
  return RtValue(
      mapStorage<std::is_floating_point>(*in, [&](const auto *p, auto *o) {
        using T = std::remove_pointer_t<decltype(o)>;
        for (int64_t r = 0; r < rows; ++r) {
          const T *row = p + r * count;
          double mean = 0, var = 0;
          for (int64_t i = 0; i < count; ++i)
            mean += row[i];
          mean /= count;
          for (int64_t i = 0; i < count; ++i)
            var += (row[i] - mean) * (row[i] - mean);
          var /= count;
          double invstd = 1.0 / std::sqrt(var + *eps);
          for (int64_t i = 0; i < count; ++i)
            o[r * count + i] = static_cast<T>(
                ((row[i] - mean) * invstd) * (*weight)[i] + (*bias)[i]);
        }
      }));
}

/// aten::native_layer_norm: layer_norm's result with the mean and the
/// reciprocal standard deviation of each normalized slice (its shape with
/// the normalized dims kept as 1).
FailureOr<RtValue> nativeLayerNorm(const KernelArgs &args) {
  FailureOr<RtValue> out = layerNorm(args);
  if (failed(out))
    return failure();
  Tensor in = *args.tensor("input");
  SmallVector<int64_t> normalized = args.getInts("normalized_shape").value();
  double eps = args.getFloat("eps").value();
  int64_t count = 1;
  for (int64_t d : normalized)
    count *= d;
  SmallVector<int64_t> statShape(in.shape().drop_back(normalized.size()));
  statShape.append(normalized.size(), 1);
  int64_t rows = in.numel() / std::max<int64_t>(count, 1);
  Tensor mean(in.dtype(), statShape), rstd(in.dtype(), statShape);
  for (int64_t r = 0; r < rows; ++r) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < count; ++i)
      m += in.getDouble(r * count + i);
    m /= count;
    for (int64_t i = 0; i < count; ++i) {
      double d = in.getDouble(r * count + i) - m;
      v += d * d;
    }
    mean.setDouble(r, m);
    rstd.setDouble(r, 1.0 / std::sqrt(v / count + eps));
  }
  mean.roundToDType();
  rstd.roundToDType();
  return RtValue::ofList({*out, RtValue(mean), RtValue(rstd)}, true);
}

/// aten::native_group_norm: the input as [N, C, HxW], each (sample, group)
/// normalized by its biased mean and variance, then the per-channel affine;
/// with the mean and 1 / sqrt(var + eps) as [N, group].
FailureOr<RtValue> nativeGroupNorm(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> n = args.getInt("N"), c = args.getInt("C"),
                     hw = args.getInt("HxW"), group = args.getInt("group");
  FailureOr<double> eps = args.getFloat("eps");
  if (failed(in) || failed(n) || failed(c) || failed(hw) || failed(group) ||
      failed(eps))
    return failure();
  if (*group <= 0 || *c % *group || in->numel() != *n * *c * *hw)
    return args.emitError() << "expects N * C * HxW elements and C divisible "
                               "by group";
  auto weight = channelValues(args, "weight", *c, 1),
       bias = channelValues(args, "bias", *c, 0);
  if (failed(weight) || failed(bias))
    return failure();
  Tensor mean(in->dtype(), {*n, *group}), rstd(in->dtype(), {*n, *group});
  Tensor out = groupNormImpl(*in, *n, *c, *hw, *group, *weight, *bias, *eps,
                             &mean, &rstd);
  mean.roundToDType();
  rstd.roundToDType();
  return RtValue::ofList({RtValue(out), RtValue(mean), RtValue(rstd)}, true);
}

/// aten::native_group_norm_backward, torch's formulas per sample n and
/// group g (D channels of HxW positions, gamma the weight or ones):
///   ds[c] = sum(dy * x), db[c] = sum(dy) over a channel's positions;
///   grad_bias[c] = sum_n db; grad_weight[c] = sum_n (ds - db mean) rstd;
///   c2 = (sum_c db gamma * mean - sum_c ds gamma) rstd^3 / (D HxW),
///   c3 = -c2 mean - sum_c db gamma * rstd / (D HxW),
///   grad_input = gamma rstd dy + c2 x + c3;
/// in double, rounded to the dtype; None where output_mask is false.
static FailureOr<RtValue> nativeGroupNormBackward(const KernelArgs &args) {
  FailureOr<Tensor> dy = args.tensor("grad_out"), x = args.tensor("input"),
                    mean = args.tensor("mean"), rstd = args.tensor("rstd");
  FailureOr<int64_t> n = args.getInt("N"), c = args.getInt("C"),
                     hw = args.getInt("HxW"), group = args.getInt("group");
  if (failed(dy) || failed(x) || failed(mean) || failed(rstd) || failed(n) ||
      failed(c) || failed(hw) || failed(group))
    return failure();
  SmallVector<bool> mask;
  if (const RtValue::List *list = args.get("output_mask").list())
    for (const RtValue &v : list->items)
      if (auto *b = std::get_if<bool>(&v.v))
        mask.push_back(*b);
  if (mask.size() != 3)
    return args.emitError() << "argument 'output_mask' expects bool[3]";
  if (*group <= 0 || *c % *group || x->numel() != *n * *c * *hw ||
      dy->numel() != x->numel() || mean->numel() != *n * *group ||
      rstd->numel() != *n * *group)
    return args.emitError() << "expects N * C * HxW elements in grad_out and "
                               "input, N * group in mean and rstd, and C "
                               "divisible by group";
  auto gamma = channelValues(args, "weight", *c, 1);
  if (failed(gamma))
    return failure();
  int64_t groups = *group, d = *c / groups, inner = *hw;
  double s = 1.0 / static_cast<double>(d * inner);
  std::vector<double> ds(*n * *c), db(*n * *c);
  for (int64_t i = 0; i < *n * *c; ++i)
    for (int64_t k = 0; k < inner; ++k) {
      double g = dy->getDouble(i * inner + k);
      ds[i] += g * x->getDouble(i * inner + k);
      db[i] += g;
    }
  Tensor dx(x->dtype(), x->shape()), dw(x->dtype(), {*c}), dbias(x->dtype(), {*c});
  for (int64_t b = 0; b < *n; ++b)
    for (int64_t g = 0; g < groups; ++g) {
      double m = mean->getDouble(b * groups + g), r = rstd->getDouble(b * groups + g);
      double dsg = 0, dbg = 0;
      for (int64_t j = 0; j < d; ++j) {
        int64_t ch = g * d + j;
        dsg += ds[b * *c + ch] * (*gamma)[ch];
        dbg += db[b * *c + ch] * (*gamma)[ch];
        dw.setDouble(ch, dw.getDouble(ch) + (ds[b * *c + ch] - db[b * *c + ch] * m) * r);
        dbias.setDouble(ch, dbias.getDouble(ch) + db[b * *c + ch]);
      }
      double c2 = (dbg * m - dsg) * r * r * r * s;
      double c3 = -c2 * m - dbg * r * s;
      for (int64_t j = 0; j < d; ++j) {
        int64_t ch = g * d + j;
        for (int64_t k = 0; k < inner; ++k) {
          int64_t at = (b * *c + ch) * inner + k;
          dx.setDouble(at, (*gamma)[ch] * r * dy->getDouble(at) +
                               c2 * x->getDouble(at) + c3);
        }
      }
    }
  dx.roundToDType();
  dw.roundToDType();
  dbias.roundToDType();
  return RtValue::ofList({mask[0] ? RtValue(dx) : RtValue(),
                          mask[1] ? RtValue(dw) : RtValue(),
                          mask[2] ? RtValue(dbias) : RtValue()},
                         true);
}

/// torch._weight_norm and the fused _weight_norm_interface: the 2-norm of
/// v over every dim but `dim` (all of them for -1), in double, then
/// v * (g / norm) broadcast; the interface also gives the norm (float32 for
/// bfloat16).
template <bool Fused>
FailureOr<RtValue> weightNorm(const KernelArgs &args) {
  FailureOr<Tensor> v = args.tensor("v"), g = args.tensor("g");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(v) || failed(g) || failed(dim))
    return failure();
  int64_t rank = v->rank();
  if (rank == 0 || *dim < -1 || *dim >= rank || !isFloatingPoint(v->dtype()))
    return args.emitError() << "expects a floating-point v and a dim in range";
  // (The rule has checked the dtypes; the unfused form promotes.)
  DType outType = g->dtype() == v->dtype()
                      ? v->dtype()
                      : resultType({promotionOf(Operand{*v, 0, true}), promotionOf(Operand{*g, 0, true})});
  SmallVector<int64_t> normShape;
  int64_t size = 1, inner = 1;
  if (*dim >= 0) {
    normShape.assign(rank, 1);
    normShape[*dim] = size = v->dim(*dim);
    for (int64_t i = *dim + 1; i < rank; ++i)
      inner *= v->dim(i);
  } else {
    inner = v->numel();
  }
  Tensor norm(DType::F64, normShape);
  for (int64_t i = 0; i < v->numel(); ++i) {
    double x = v->getDouble(i);
    int64_t slot = *dim >= 0 ? (i / inner) % size : 0;
    norm.data<double>()[slot] += x * x;
  }
  for (int64_t k = 0; k < norm.numel(); ++k)
    norm.data<double>()[k] = std::sqrt(norm.data<double>()[k]);
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(v->shape(), g->shape());
  if (succeeded(shape))
    shape = broadcastShape(*shape, normShape);
  if (failed(shape))
    return args.emitError() << "v, g and the norm cannot be broadcast together";
  Tensor bv = broadcastTo(*v, *shape), bg = broadcastTo(*g, *shape),
         bn = broadcastTo(norm, *shape);
  Tensor w(outType, *shape);
  for (int64_t i = 0; i < w.numel(); ++i)
    w.setDouble(i, bv.getDouble(i) * (bg.getDouble(i) / bn.getDouble(i)));
  w.roundToDType();
  if (!Fused)
    return RtValue(w);
  return RtValue::ofList(
      {RtValue(w), RtValue(norm.to(v->dtype() == DType::BF16 ? DType::F32
                                                              : v->dtype()))},
      true);
}

/// aten::native_batch_norm: batch_norm's result and the saved statistics,
/// the batch mean and invstd in training mode, two empty tensors in eval.
FailureOr<RtValue> nativeBatchNorm(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  Tensor mean(in->dtype(), {0}), invstd(in->dtype(), {0});
  FailureOr<Tensor> out = batchNormImpl(args, &mean, &invstd);
  if (failed(out))
    return failure();
  return RtValue::ofList({RtValue(*out), RtValue(mean), RtValue(invstd)}, true);
}

FailureOr<RtValue> normalize(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<double> p = args.getFloat("p"), eps = args.getFloat("eps");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(p) || failed(eps) || failed(d))
    return failure();
  FailureOr<DimSplit> split = splitAtDim(args, *in, *d);
  if (failed(split))
    return failure();
  int64_t outer = split->outer, size = split->size, inner = split->inner;
  Tensor out(in->dtype(), in->shape());
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t c = 0; c < inner; ++c) {
      double norm = 0;
      for (int64_t j = 0; j < size; ++j) {
        double v = std::fabs(in->getDouble((a * size + j) * inner + c));
        if (std::isinf(*p))
          norm = *p > 0 ? std::max(norm, v) : (j ? std::min(norm, v) : v);
        else
          norm += std::pow(v, *p);
      }
      if (!std::isinf(*p))
        norm = std::pow(norm, 1.0 / *p);
      double denom = std::max(norm, *eps);
      for (int64_t j = 0; j < size; ++j) {
        int64_t i = (a * size + j) * inner + c;
        out.setDouble(i, in->getDouble(i) / denom);
      }
    }
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> groupNorm(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> groups = args.getInt("num_groups");
  FailureOr<double> eps = args.getFloat("eps");
  if (failed(in) || failed(groups) || failed(eps))
    return failure();
  if (in->rank() < 2)
    return args.emitError() << "group_norm expects an input of rank 2 or more";
  int64_t n = in->dim(0), c = in->dim(1);
  if (*groups <= 0 || c % *groups)
    return args.emitError() << "expected the number of channels (" << c
                            << ") to be divisible by num_groups ("
                            << *groups << ")";
  auto weight = channelValues(args, "weight", c, 1),
       bias = channelValues(args, "bias", c, 0);
  if (failed(weight) || failed(bias))
    return failure();
  int64_t inner = n * c ? in->numel() / (n * c) : 0;
  Tensor out = groupNormImpl(*in, n, c, inner, *groups, *weight, *bias, *eps);
  return RtValue(out);
}

/// F.instance_norm: each (sample, channel) slice normalized by its own
/// biased mean and variance (use_input_stats) or by the running ones, in
/// torch's folded form x * alpha + beta (it runs batch_norm over a
/// (1, N*C, ...) view).
FailureOr<RtValue> instanceNorm(const KernelArgs &args) {
  FailureOr<ChannelsInput> input = channelsInput(
      args, "use_input_stats",
      "instance_norm expects a floating-point input of rank >= 2");
  if (failed(input))
    return failure();
  const Tensor &in = input->tensor;
  bool useInputStats = input->flag;
  double eps = input->eps;
  int64_t n = in.dim(0), c = in.dim(1);
  int64_t inner = n * c ? in.numel() / (n * c) : 0;
  if (useInputStats && inner <= 1)
    return args.emitError() << "Expected more than 1 spatial element when training";
  if (!useInputStats &&
      (args.isNone("running_mean") || args.isNone("running_var")))
    return args.emitError() << "Expected running_mean and running_var to be defined when "
                               "use_input_stats is false";
  FailureOr<ChannelAffine> affine = channelAffine(args, c);
  if (failed(affine))
    return failure();
  std::vector<double> &mean = affine->mean, &var = affine->var,
                      &weight = affine->weight, &bias = affine->bias;
  Tensor x = in.to(DType::F64);
  const double *p = x.data<double>();
  Tensor out(in.dtype(), in.shape());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      const double *slice = p + (b * c + ch) * inner;
      double m = mean[ch], v = var[ch];
      if (useInputStats) {
        m = 0;
        for (int64_t i = 0; i < inner; ++i)
          m += slice[i];
        m /= inner;
        v = 0;
        for (int64_t i = 0; i < inner; ++i)
          v += (slice[i] - m) * (slice[i] - m);
        v /= inner;
      }
      double alpha = weight[ch] / std::sqrt(v + eps);
      double beta = bias[ch] - m * alpha;
      for (int64_t i = 0; i < inner; ++i)
        out.setDouble((b * c + ch) * inner + i, slice[i] * alpha + beta);
    }
  out.roundToDType();
  return RtValue(out);
}

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

void mlir::traced::kernels::populateNormKernels(KernelTable &table) {
  table["torch.nn.functional.normalize"] = normalize;
  table["torch.nn.functional.group_norm"] = groupNorm;
  table["torch.nn.functional.instance_norm"] = instanceNorm;
  table["torch.nn.functional.batch_norm"] = batchNorm;
  table["torch.nn.functional.layer_norm"] = layerNorm;
  table["torch.ops.aten.native_layer_norm.default"] = nativeLayerNorm;
  table["torch.ops.aten.native_group_norm.default"] = nativeGroupNorm;
  table["torch.ops.aten.native_group_norm_backward.default"] =
      nativeGroupNormBackward;
  table["torch._weight_norm"] = weightNorm<false>;
  table["torch.ops.aten._weight_norm_interface.default"] = weightNorm<true>;
  table["torch.ops.aten.native_batch_norm.default"] = nativeBatchNorm;
}
