//===- Pool.cpp - pooling and resampling ----------------------------------===//
//
// Max, average, adaptive and power-average pooling over 1-3 spatial dims,
// and F.interpolate. The pooling kernels view the input as [planes, D, H,
// W], a 1-D or 2-D window being a 3-D one with leading dims of size 1, so
// one loop nest serves every rank and the indices come out flattened over
// the spatial input as torch's do.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::traced;

namespace {
/// A pooling input viewed as [planes, D, H, W] with the window's
/// parameters per dim, a 1-D or 2-D call padded with leading unit dims.
struct Pooled {
  Tensor x;
  SmallVector<int64_t> outShape; // the result's shape
  int64_t planes = 1;
  int64_t size[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0},
          dil[3] = {1, 1, 1};

  int64_t inIndex(int64_t p, int64_t d, int64_t h, int64_t w) const {
    return ((p * size[0] + d) * size[1] + h) * size[2] + w;
  }
  int64_t outIndex(int64_t p, int64_t d, int64_t h, int64_t w) const {
    return ((p * out[0] + d) * out[1] + h) * out[2] + w;
  }
};

/// Checks the input's rank (`spatial` + 1 or + 2, non-batch dims
/// non-empty, as torch requires) and views it as [planes, D, H, W].
FailureOr<Pooled> viewPlanes(const KernelArgs &args, const Tensor &in,
                             unsigned spatial) {
  int64_t rank = in.rank();
  bool ok = rank == spatial + 1 || rank == spatial + 2;
  for (int64_t i = rank == spatial + 2 ? 1 : 0; ok && i < rank; ++i)
    ok = in.dim(i) != 0;
  if (!ok)
    return args.emitError() << "expects a " << spatial + 1 << "-D or "
                            << spatial + 2
                            << "-D (batched) input with non-empty channel "
                               "and spatial dims, got shape ["
                            << in.shape() << "]";
  Pooled v;
  unsigned lead = 3 - spatial;
  for (unsigned i = 0; i < spatial; ++i)
    v.size[lead + i] = v.out[lead + i] = in.dim(rank - spatial + i);
  for (int64_t i = 0; i < rank - spatial; ++i)
    v.planes *= in.dim(i);
  v.x = in;
  v.outShape.assign(in.shape().begin(), in.shape().end());
  return v;
}

/// Decodes the window of a max or average pooling call (hasDilation: max).
FailureOr<PoolParams> poolParams(const KernelArgs &args, unsigned spatial) {
  PoolParams w;
  if (failed(kernels::decodeArgs(
          args, "pooling", [&](const ArgReader &reader, std::string &error) {
            return decodePool(args.signature(), reader, spatial, w, error);
          })))
    return failure();
  return w;
}

/// The input of a windowed pooling call with its output sizes.
FailureOr<Pooled> windowed(const KernelArgs &args, const Tensor &in,
                           unsigned spatial, const PoolParams &w,
                           bool allowEmptyOutput = false) {
  FailureOr<Pooled> v = viewPlanes(args, in, spatial);
  if (failed(v))
    return failure();
  if (!allowEmptyOutput) {
    std::string error = w.checkOutput(in.shape());
    if (!error.empty())
      return args.emitError() << error;
  }
  unsigned lead = 3 - spatial;
  for (unsigned i = 0; i < spatial; ++i) {
    unsigned j = lead + i;
    v->out[j] = std::max<int64_t>(0, w.outputSize(i, v->size[j]));
    v->kernel[j] = w.kernel[i];
    v->stride[j] = w.stride[i];
    v->pad[j] = w.padding[i];
    v->dil[j] = w.dilation[i];
    v->outShape[in.rank() - spatial + i] = v->out[j];
  }
  return v;
}

/// Max over windows: `window(o, d)` gives output o's input positions along
/// dim d (start, step, count). The index is torch's: the first position of
/// the window until a larger value or a NaN (the last NaN wins) replaces it.
template <typename WindowFn>
RtValue maxOverWindows(const Pooled &v, bool withIndices, WindowFn window) {
  Tensor out(v.x.dtype(), v.outShape), idx(DType::I64, v.outShape);
  int64_t *idxData = idx.data<int64_t>();
  for (int64_t p = 0; p < v.planes; ++p)
    for (int64_t od = 0; od < v.out[0]; ++od)
      for (int64_t oh = 0; oh < v.out[1]; ++oh)
        for (int64_t ow = 0; ow < v.out[2]; ++ow) {
          auto [d0, dStep, dCount] = window(od, 0);
          auto [h0, hStep, hCount] = window(oh, 1);
          auto [w0, wStep, wCount] = window(ow, 2);
          double best = -std::numeric_limits<double>::infinity();
          int64_t bestIndex = (d0 * v.size[1] + h0) * v.size[2] + w0;
          for (int64_t a = 0; a < dCount; ++a)
            for (int64_t b = 0; b < hCount; ++b)
              for (int64_t c = 0; c < wCount; ++c) {
                int64_t id = d0 + a * dStep, ih = h0 + b * hStep,
                        iw = w0 + c * wStep;
                double val = v.x.getDouble(v.inIndex(p, id, ih, iw));
                if (val > best || std::isnan(val)) {
                  best = val;
                  bestIndex = (id * v.size[1] + ih) * v.size[2] + iw;
                }
              }
          int64_t o = v.outIndex(p, od, oh, ow);
          out.setDouble(o, best);
          idxData[o] = bestIndex;
        }
  if (withIndices)
    return RtValue::ofList({RtValue(out), RtValue(idx)}, /*isTuple=*/true);
  return RtValue(out);
}

/// The positions of a strided, dilated window clipped to the input.
std::tuple<int64_t, int64_t, int64_t> slidingWindow(const Pooled &v, int64_t o,
                                                    int d) {
  int64_t start = o * v.stride[d] - v.pad[d], step = v.dil[d];
  int64_t end = std::min(start + (v.kernel[d] - 1) * step + 1, v.size[d]);
  while (start < 0)
    start += step;
  int64_t count = end > start ? (end - start + step - 1) / step : 0;
  return {start, step, count};
}

/// Average pooling of `in` (torch's avg_poolNd): the sum over the window
/// clipped to the input, divided by PyTorch's count or the override; in
/// int64 the division truncates, as torch's does.
FailureOr<Tensor> avgPoolTensor(const KernelArgs &args, const Tensor &in,
                                unsigned spatial, const PoolParams &w,
                                bool includePad,
                                std::optional<int64_t> divisor) {
  FailureOr<Pooled> view = windowed(args, in, spatial, w);
  if (failed(view))
    return failure();
  const Pooled &v = *view;
  bool integral = !isFloatingPoint(in.dtype());
  Tensor out(in.dtype(), v.outShape);
  for (int64_t p = 0; p < v.planes; ++p)
    for (int64_t od = 0; od < v.out[0]; ++od)
      for (int64_t oh = 0; oh < v.out[1]; ++oh)
        for (int64_t ow = 0; ow < v.out[2]; ++ow) {
          int64_t o[3] = {od, oh, ow}, lo[3], hi[3];
          SmallVector<PoolWindow, 3> dims;
          for (int d = 0; d < 3; ++d) {
            int64_t start = o[d] * v.stride[d] - v.pad[d];
            lo[d] = std::max<int64_t>(start, 0);
            hi[d] = std::min(start + v.kernel[d], v.size[d]);
            dims.push_back({start, v.kernel[d], v.size[d], v.pad[d]});
          }
          int64_t count = divisor ? *divisor : avgPoolDivisor(dims, includePad);
          double sum = 0;
          int64_t isum = 0;
          for (int64_t id = lo[0]; id < hi[0]; ++id)
            for (int64_t ih = lo[1]; ih < hi[1]; ++ih)
              for (int64_t iw = lo[2]; iw < hi[2]; ++iw) {
                int64_t i = v.inIndex(p, id, ih, iw);
                if (integral)
                  isum += in.getInt(i);
                else
                  sum += in.getDouble(i);
              }
          int64_t at = v.outIndex(p, od, oh, ow);
          if (integral)
            out.data<int64_t>()[at] = isum / count;
          else
            out.setDouble(at, sum / count);
        }
  out.roundToDType();
  return out;
}

FailureOr<RtValue> avgPool(const KernelArgs &args, unsigned spatial) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> includePad = args.getBool("count_include_pad");
  if (failed(in) || failed(includePad))
    return failure();
  std::optional<int64_t> divisor;
  if (args.has("divisor_override") && !args.isNone("divisor_override")) {
    FailureOr<int64_t> d = args.getInt("divisor_override");
    if (failed(d))
      return failure();
    if (*d == 0)
      return args.emitError() << "divisor must be not zero";
    divisor = *d;
  }
  FailureOr<PoolParams> w = poolParams(args, spatial);
  if (failed(w))
    return failure();
  FailureOr<Tensor> out =
      avgPoolTensor(args, *in, spatial, *w, *includePad, divisor);
  if (failed(out))
    return failure();
  return RtValue(*out);
}

/// The output sizes of an adaptive pooling call: an int for every dim, or
/// one entry per dim where None keeps the input's size.
FailureOr<SmallVector<int64_t>> adaptiveSizes(const KernelArgs &args,
                                              const Tensor &in,
                                              unsigned spatial) {
  SmallVector<int64_t> sizes(in.shape().take_back(spatial));
  const RtValue &size = args.get("output_size");
  if (const RtValue::List *l = size.list()) {
    if (l->items.size() != spatial)
      return args.emitError() << "output_size must have " << spatial
                              << " elements, got " << l->items.size();
    for (unsigned i = 0; i < spatial; ++i) {
      if (auto *v = std::get_if<int64_t>(&l->items[i].v))
        sizes[i] = *v;
      else if (!l->items[i].isNone())
        return args.emitError() << "output_size elements must be ints or None";
    }
  } else if (auto *v = std::get_if<int64_t>(&size.v)) {
    sizes.assign(spatial, *v);
  } else {
    return args.emitError() << "output_size must be an int or a tuple of "
                            << spatial << " ints or None";
  }
  for (int64_t s : sizes)
    if (s < 0)
      return args.emitError() << "output_size must be non-negative, got "
                              << s;
  return sizes;
}

FailureOr<Pooled> adaptiveView(const KernelArgs &args, const Tensor &in,
                               unsigned spatial) {
  FailureOr<Pooled> v = viewPlanes(args, in, spatial);
  FailureOr<SmallVector<int64_t>> sizes =
      failed(v) ? FailureOr<SmallVector<int64_t>>(failure())
                : adaptiveSizes(args, in, spatial);
  if (failed(sizes))
    return failure();
  for (unsigned i = 0; i < spatial; ++i) {
    v->out[3 - spatial + i] = (*sizes)[i];
    v->outShape[in.rank() - spatial + i] = (*sizes)[i];
  }
  return v;
}

FailureOr<RtValue> adaptiveAvgPool(const KernelArgs &args, unsigned spatial) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  FailureOr<Pooled> view = adaptiveView(args, *in, spatial);
  if (failed(view))
    return failure();
  const Pooled &v = *view;
  Tensor out(in->dtype(), v.outShape);
  for (int64_t p = 0; p < v.planes; ++p)
    for (int64_t od = 0; od < v.out[0]; ++od)
      for (int64_t oh = 0; oh < v.out[1]; ++oh)
        for (int64_t ow = 0; ow < v.out[2]; ++ow) {
          auto [d0, d1] = adaptiveWindow(od, v.size[0], v.out[0]);
          auto [h0, h1] = adaptiveWindow(oh, v.size[1], v.out[1]);
          auto [w0, w1] = adaptiveWindow(ow, v.size[2], v.out[2]);
          double sum = 0;
          for (int64_t id = d0; id < d1; ++id)
            for (int64_t ih = h0; ih < h1; ++ih)
              for (int64_t iw = w0; iw < w1; ++iw)
                sum += v.x.getDouble(v.inIndex(p, id, ih, iw));
          out.setDouble(v.outIndex(p, od, oh, ow),
                        sum / ((d1 - d0) * (h1 - h0) * (w1 - w0)));
        }
  out.roundToDType();
  return RtValue(out);
}

/// max_pool (`adaptive`: adaptive_max_pool) over the input's `spatial`
/// dims, with the indices when `return_indices` or `alwaysIndices`.
static FailureOr<RtValue> maxPoolOf(const KernelArgs &args, unsigned spatial,
                                    bool alwaysIndices, bool adaptive) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> indices = args.getBool("return_indices");
  if (failed(in) || failed(indices))
    return failure();
  bool withIndices = *indices || alwaysIndices;
  if (adaptive) {
    FailureOr<Pooled> view = adaptiveView(args, *in, spatial);
    if (failed(view))
      return failure();
    const Pooled &v = *view;
    return maxOverWindows(v, withIndices, [&](int64_t o, int d) {
      auto [start, end] = adaptiveWindow(o, v.size[d], v.out[d]);
      return std::tuple<int64_t, int64_t, int64_t>{start, 1, end - start};
    });
  }
  FailureOr<PoolParams> w = poolParams(args, spatial);
  if (failed(w))
    return failure();
  // max_pool1d without indices has its own kernel, which allows an empty
  // output.
  FailureOr<Pooled> v =
      windowed(args, *in, spatial, *w,
               /*allowEmptyOutput=*/spatial == 1 && !withIndices);
  if (failed(v))
    return failure();
  return maxOverWindows(*v, withIndices, [&](int64_t o, int d) {
    return slidingWindow(*v, o, d);
  });
}

FailureOr<RtValue> maxPool(const KernelArgs &args, unsigned spatial,
                           bool alwaysIndices) {
  return maxPoolOf(args, spatial, alwaysIndices, /*adaptive=*/false);
}

FailureOr<RtValue> adaptiveMaxPool(const KernelArgs &args, unsigned spatial,
                                   bool alwaysIndices) {
  return maxPoolOf(args, spatial, alwaysIndices, /*adaptive=*/true);
}

/// F.lp_pool1d/2d as torch composes it: avg_pool(x ** p) in the dtype of
/// x ** p (an integer one truncates), times the window's size (after
/// sign(a) * relu(|a|), which is a), then ** (1 / p) in a float dtype.
FailureOr<RtValue> lpPool(const KernelArgs &args, unsigned spatial) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<double> p = args.getFloat("norm_type");
  if (failed(in) || failed(p))
    return failure();
  FailureOr<PoolParams> w = poolParams(args, spatial);
  if (failed(w))
    return failure();
  // torch.pow(int tensor, float) is float32; with an int exponent (and for
  // bool: int64) it stays integral.
  bool intExponent = std::holds_alternative<int64_t>(args.get("norm_type").v);
  DType powType = in->dtype();
  if (!isFloatingPoint(powType))
    powType = intExponent ? DType::I64 : kDefaultFloat;
  // (Fresh tensors throughout: `to` shares the storage of a tensor already
  // of the dtype, and writing into it changed the caller's input.)
  Tensor powered(powType, in->shape());
  for (int64_t i = 0; i < powered.numel(); ++i)
    powered.setDouble(i, std::pow(in->getDouble(i), *p));
  powered.roundToDType();
  FailureOr<Tensor> avg = avgPoolTensor(args, powered, spatial, *w,
                                        /*includePad=*/true, std::nullopt);
  if (failed(avg))
    return failure();
  int64_t windowSize = 1;
  for (int64_t k : w->kernel)
    windowSize *= k;
  Tensor scaled(avg->dtype(), avg->shape());
  for (int64_t i = 0; i < scaled.numel(); ++i)
    scaled.setDouble(i, avg->getDouble(i) * windowSize);
  scaled.roundToDType();
  DType outType = isFloatingPoint(powType) ? powType : kDefaultFloat;
  Tensor out(outType, scaled.shape());
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setDouble(i, std::pow(scaled.getDouble(i), 1.0 / *p));
  out.roundToDType();
  return RtValue(out);
}
} // namespace

namespace mlir::traced::kernels {

#define POOL_KERNELS(N)                                                        \
  FailureOr<RtValue> maxPool##N##d(const KernelArgs &args) {                   \
    return maxPool(args, N, /*alwaysIndices=*/false);                          \
  }                                                                            \
  FailureOr<RtValue> maxPool##N##dWithIndices(const KernelArgs &args) {        \
    return maxPool(args, N, /*alwaysIndices=*/true);                           \
  }                                                                            \
  FailureOr<RtValue> avgPool##N##d(const KernelArgs &args) {                   \
    return avgPool(args, N);                                                   \
  }                                                                            \
  FailureOr<RtValue> adaptiveAvgPool##N##d(const KernelArgs &args) {           \
    return adaptiveAvgPool(args, N);                                           \
  }                                                                            \
  FailureOr<RtValue> adaptiveMaxPool##N##d(const KernelArgs &args) {           \
    return adaptiveMaxPool(args, N, /*alwaysIndices=*/false);                  \
  }                                                                            \
  FailureOr<RtValue> adaptiveMaxPool##N##dWithIndices(                         \
      const KernelArgs &args) {                                                \
    return adaptiveMaxPool(args, N, /*alwaysIndices=*/true);                   \
  }
POOL_KERNELS(1)
POOL_KERNELS(2)
POOL_KERNELS(3)
#undef POOL_KERNELS

FailureOr<RtValue> lpPool1d(const KernelArgs &args) { return lpPool(args, 1); }
FailureOr<RtValue> lpPool2d(const KernelArgs &args) { return lpPool(args, 2); }

} // namespace mlir::traced::kernels


//===----------------------------------------------------------------------===//
// Resampling: F.interpolate (nearest, nearest-exact, linear, bilinear,
// trilinear), as separable passes over the spatial dims.
//===----------------------------------------------------------------------===//

namespace {
/// Output sizes and source scales of an interpolate call (torch's rules:
/// `size`, or floor(in * scale_factor) with the given factor as the scale
/// unless recompute_scale_factor).
struct Resample {
  SmallVector<int64_t> outSizes;
  SmallVector<double> scales; // in / out per spatial dim, as torch uses it
};

FailureOr<Resample> resamplePlan(const KernelArgs &args, const Tensor &x) {
  int64_t spatial = x.rank() - 2;
  if (spatial < 1 || spatial > 3)
    return args.emitError() << "interpolate expects a 3-D, 4-D or 5-D input, "
                               "got "
                            << x.rank() << "-D";
  Resample r;
  bool recompute = false;
  if (auto *b = std::get_if<bool>(&args.get("recompute_scale_factor").v))
    recompute = *b;
  if (!args.isNone("size")) {
    if (!args.isNone("scale_factor"))
      return args.emitError() << "only one of size or scale_factor should "
                                 "be defined";
    FailureOr<SmallVector<int64_t>> size = args.getInts("size", spatial);
    if (failed(size))
      return failure();
    if (static_cast<int64_t>(size->size()) != spatial)
      return args.emitError() << "size must have " << spatial << " elements";
    r.outSizes = *size;
    for (int64_t d = 0; d < spatial; ++d)
      r.scales.push_back(r.outSizes[d] ? double(x.dim(d + 2)) / r.outSizes[d]
                                       : 0.0);
    return r;
  }
  if (args.isNone("scale_factor"))
    return args.emitError() << "either size or scale_factor should be defined";
  SmallVector<double> factors;
  const RtValue &sf = args.get("scale_factor");
  if (std::optional<double> f = sf.number()) {
    factors.assign(spatial, *f);
  } else if (const RtValue::List *l = sf.list()) {
    for (const RtValue &v : l->items)
      if (std::optional<double> f = v.number())
        factors.push_back(*f);
  }
  if (static_cast<int64_t>(factors.size()) != spatial)
    return args.emitError() << "scale_factor must be a number or have "
                            << spatial << " elements";
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t out = static_cast<int64_t>(std::floor(x.dim(d + 2) * factors[d]));
    r.outSizes.push_back(out);
    r.scales.push_back(recompute ? (out ? double(x.dim(d + 2)) / out : 0.0)
                                 : 1.0 / factors[d]);
  }
  return r;
}
} // namespace

static Tensor resample(const Tensor &in, const Resample &plan,
                       ResampleMode kind, bool alignCorners);

using Taps = SmallVector<std::pair<int64_t, double>, 4>;

/// One pass of separable resampling along `axis` of a float64 tensor seen
/// as [outer, n, inner]: output position j (of `out`) is the weighted sum
/// of `taps(j)`, positions among `size`. Transposed, the pass is its
/// adjoint (a gradient): `x` has the `out` positions and each one's value
/// is added, weighted, into its taps of a result with `size` positions.
static Tensor resamplePass(const Tensor &x, int64_t axis, int64_t size,
                           int64_t out, function_ref<Taps(int64_t)> taps,
                           bool transposed) {
  int64_t from = transposed ? out : size, to = transposed ? size : out;
  int64_t outer, inner;
  std::tie(outer, inner) = kernels::outerInner(x.shape(), axis);
  SmallVector<int64_t> shape(x.shape());
  shape[axis] = to;
  Tensor y(DType::F64, shape);
  const double *p = x.data<double>();
  double *o = y.data<double>();
  for (int64_t j = 0; j < out; ++j) {
    Taps t = taps(j);
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t c = 0; c < inner; ++c) {
        if (transposed) {
          double g = p[(a * from + j) * inner + c];
          for (auto [i, w] : t)
            o[(a * to + i) * inner + c] += w * g;
          continue;
        }
        double acc = 0;
        for (auto [i, w] : t)
          acc += w * p[(a * from + i) * inner + c];
        o[(a * to + j) * inner + c] = acc;
      }
  }
  return y;
}

namespace mlir::traced::kernels {

FailureOr<RtValue> interpolate(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<std::string> mode = args.getStr("mode");
  if (failed(in) || failed(mode))
    return failure();
  bool antialias = false;
  if (auto *b = std::get_if<bool>(&args.get("antialias").v))
    antialias = *b;
  if (antialias)
    return args.emitError() << "antialias=True is not supported";
  int64_t spatial = in->rank() - 2;
  bool nearest = *mode == "nearest", exact = *mode == "nearest-exact";
  bool linear = (*mode == "linear" && spatial == 1) ||
                (*mode == "bilinear" && spatial == 2) ||
                (*mode == "trilinear" && spatial == 3);
  bool cubic = *mode == "bicubic" && spatial == 2;
  bool area = *mode == "area";
  if (!nearest && !exact && !linear && !cubic && !area)
    return args.emitError() << "mode \"" << *mode << "\" is not supported for "
                            << in->rank()
                            << "-D input (nearest, nearest-exact, area, "
                               "linear/bilinear/trilinear for 3/4/5-D, "
                               "bicubic for 4-D)";
  bool alignCorners = false;
  if (auto *b = std::get_if<bool>(&args.get("align_corners").v))
    alignCorners = *b;
  if (alignCorners && !linear && !cubic)
    return args.emitError() << "align_corners option can only be set with "
                               "the interpolating modes: linear | bilinear | "
                               "bicubic | trilinear";
  FailureOr<Resample> plan = resamplePlan(args, *in);
  if (failed(plan))
    return failure();
  ResampleMode kind = cubic    ? ResampleMode::Cubic
                      : area   ? ResampleMode::Area
                      : linear ? ResampleMode::Linear
                      : exact  ? ResampleMode::NearestExact
                               : ResampleMode::Nearest;
  return RtValue(resample(*in, *plan, kind, alignCorners));
}

/// aten::upsample_nearest{1,2,3}d: nearest resampling to output_size, the
/// source indices from the scales given (1 / scale), else in / out.
FailureOr<RtValue> upsampleNearest(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> size = args.getInts("output_size");
  if (failed(in) || failed(size))
    return failure();
  int64_t spatial = static_cast<int64_t>(size->size());
  if (in->rank() != spatial + 2)
    return args.emitError() << "expects a " << spatial + 2 << "-D input";
  Resample plan;
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t out = (*size)[d], n = in->dim(d + 2);
    if (out <= 0 || n <= 0)
      return args.emitError() << "input and output sizes should be greater "
                                 "than 0";
    plan.outSizes.push_back(out);
    plan.scales.push_back(upsampleScale(
        args.get(upsampleScaleParam(spatial, d)).number(), n, out));
  }
  return RtValue(resample(*in, plan, ResampleMode::Nearest, false));
}

/// aten::upsample_nearest{1,2,3}d_backward: per spatial dim, each output
/// position's gradient added to the input position nearest_idx reads
/// (resampleTaps with its equal-size and double-size cases), in double,
/// rounded once.
FailureOr<RtValue> upsampleNearestBackward(const KernelArgs &args) {
  FailureOr<Tensor> grad = args.tensor("grad_output");
  FailureOr<SmallVector<int64_t>> outSize = args.getInts("output_size"),
                                  inSize = args.getInts("input_size");
  if (failed(grad) || failed(outSize) || failed(inSize))
    return failure();
  int64_t spatial = static_cast<int64_t>(outSize->size());
  SmallVector<int64_t> expected(ArrayRef<int64_t>(*inSize).take_front(2));
  llvm::append_range(expected, *outSize);
  if (static_cast<int64_t>(inSize->size()) != spatial + 2 ||
      grad->shape() != ArrayRef<int64_t>(expected))
    return args.emitError() << "expects grad_output of the forward's output "
                               "shape";
  Tensor g = grad->to(DType::F64);
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t axis = d + 2, out = (*outSize)[d], size = (*inSize)[axis];
    double scale = upsampleScale(args.get(upsampleScaleParam(spatial, d)).number(),
                                 size, out);
    g = resamplePass(
        g, axis, size, out,
        [&](int64_t j) {
          return resampleTaps(ResampleMode::Nearest, size, out, j, scale,
                              /*alignCorners=*/false, /*channelsLast=*/true);
        },
        /*transposed=*/true);
  }
  return RtValue(g.to(grad->dtype()));
}

} // namespace mlir::traced::kernels

/// Separable resampling: one pass per spatial dim, [outer, size, inner] ->
/// [outer, out, inner], at `resampleTaps`' positions and weights; computed
/// in double and rounded to the input's dtype once.
static Tensor resample(const Tensor &in, const Resample &plan,
                       ResampleMode kind, bool alignCorners) {
  int64_t spatial = in.rank() - 2;
  bool channelsLast = resamplesChannelsLast(in.shape());
  Tensor x = in.to(DType::F64);
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t axis = d + 2, size = x.dim(axis), out = plan.outSizes[d];
    double scale = plan.scales[d];
    x = resamplePass(
        x, axis, size, out,
        [&](int64_t j) {
          return resampleTaps(kind, size, out, j, scale, alignCorners,
                              channelsLast);
        },
        /*transposed=*/false);
  }
  return x.to(in.dtype());
}

namespace mlir::traced::kernels {

//===----------------------------------------------------------------------===//
// Sampling at coordinates: F.grid_sample and F.affine_grid
//===----------------------------------------------------------------------===//

namespace {
enum class GridMode { Bilinear, Nearest };
enum class GridPadding { Zeros, Border, Reflection };
} // namespace

/// torch's reflect_coordinates: `x` reflected into [low, high] / 2.
static double reflectCoordinate(double x, int64_t twiceLow, int64_t twiceHigh) {
  if (twiceLow == twiceHigh)
    return 0;
  if (!std::isfinite(x))
    return NAN; // (torch: fmod of an infinity)
  double low = twiceLow / 2.0, span = (twiceHigh - twiceLow) / 2.0;
  x = std::fabs(x - low);
  double extra = std::fmod(x, span);
  int64_t flips = static_cast<int64_t>(std::floor(x / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

/// A normalized grid coordinate in [-1, 1] as a pixel position of a dim of
/// `size`, after the padding mode's clipping or reflection.
static double gridSourceIndex(double g, int64_t size, GridPadding padding,
                              bool alignCorners) {
  double x = alignCorners ? (g + 1) / 2 * (size - 1)
                          : ((g + 1) * size - 1) / 2;
  auto clip = [&](double v) { // (NaN becomes 0, as in torch's kernel)
    return std::isnan(v) ? 0.0 : std::min(static_cast<double>(size - 1), std::max(v, 0.0));
  };
  if (padding == GridPadding::Border)
    return clip(x);
  if (padding == GridPadding::Reflection)
    return clip(alignCorners ? reflectCoordinate(x, 0, 2 * (size - 1))
                             : reflectCoordinate(x, -1, 2 * size - 1));
  return x;
}

static FailureOr<RtValue> gridSample(const KernelArgs &args, GridMode mode,
                                     GridPadding padding, bool alignCorners) {
  FailureOr<Tensor> in = args.tensor("input"), grid = args.tensor("grid");
  if (failed(in) || failed(grid))
    return failure();
  if (in->rank() != 4 || grid->rank() != 4 || grid->dim(3) != 2 ||
      grid->dim(0) != in->dim(0))
    return args.emitError() << "expects a 4-D input (N, C, H, W) and a grid "
                               "(N, H_out, W_out, 2)";
  if (in->dtype() != grid->dtype() || !isFloatingPoint(in->dtype()))
    return args.emitError() << "expects input and grid of one floating-point "
                               "dtype";
  int64_t n = in->dim(0), c = in->dim(1), h = in->dim(2), w = in->dim(3),
          oh = grid->dim(1), ow = grid->dim(2);
  Tensor x = in->to(DType::F64), g = grid->to(DType::F64);
  Tensor out(DType::F64, {n, c, oh, ow});
  const double *p = x.data<double>(), *q = g.data<double>();
  double *o = out.data<double>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const double *at = q + ((b * oh + i) * ow + j) * 2;
        double sx = gridSourceIndex(at[0], w, padding, alignCorners);
        double sy = gridSourceIndex(at[1], h, padding, alignCorners);
        // The taps that read the image, with their weights. As in torch's
        // kernel, a tap outside reads 0 and still multiplies its weight: a
        // NaN or infinite position samples NaN bilinearly, 0 nearest.
        // (Positions are clamped to just outside before they become
        // integers; that keeps inside and outside apart.)
        bool finite = std::isfinite(sx) && std::isfinite(sy);
        auto index = [](double v, int64_t size) {
          return static_cast<int64_t>(std::clamp(v, -2.0, static_cast<double>(size) + 1));
        };
        SmallVector<std::tuple<int64_t, int64_t, double>, 4> taps;
        bool nan = false;
        if (mode == GridMode::Nearest) {
          if (finite)
            taps.push_back({index(std::nearbyint(sy), h), index(std::nearbyint(sx), w), 1.0});
        } else if (!finite) {
          nan = true;
        } else {
          double fx = std::floor(sx), fy = std::floor(sy);
          double tx = sx - fx, ty = sy - fy;
          int64_t x0 = index(fx, w), y0 = index(fy, h);
          taps.push_back({y0, x0, (1 - tx) * (1 - ty)});
          taps.push_back({y0, x0 + 1, tx * (1 - ty)});
          taps.push_back({y0 + 1, x0, (1 - tx) * ty});
          taps.push_back({y0 + 1, x0 + 1, tx * ty});
        }
        for (int64_t ch = 0; ch < c; ++ch) {
          double acc = nan ? NAN : 0.0;
          for (auto [y, xx, weight] : taps)
            acc += (y >= 0 && y < h && xx >= 0 && xx < w ? p[((b * c + ch) * h + y) * w + xx] : 0.0) *
                   weight;
          o[((b * c + ch) * oh + i) * ow + j] = acc;
        }
      }
  return RtValue(out.to(in->dtype()));
}

/// `align_corners=None` (grid_sample's and affine_grid's default) is False.
static FailureOr<bool> optionalAlignCorners(const KernelArgs &args) {
  if (args.isNone("align_corners"))
    return false;
  return args.getBool("align_corners");
}

/// F.grid_sample: bilinear or nearest sampling of a 4-D input at the
/// grid's normalized (x, y) positions; zeros, border or reflection padding.
FailureOr<RtValue> gridSampleKernel(const KernelArgs &args) {
  FailureOr<std::string> mode = args.getStr("mode"),
                         padding = args.getStr("padding_mode");
  if (failed(mode) || failed(padding))
    return failure();
  FailureOr<bool> alignCorners = optionalAlignCorners(args);
  if (failed(alignCorners))
    return failure();
  if (*mode != "bilinear" && *mode != "nearest")
    return args.emitError() << "mode '" << *mode
                            << "' is not supported (bilinear, nearest)";
  GridPadding pad = *padding == "zeros"    ? GridPadding::Zeros
                    : *padding == "border" ? GridPadding::Border
                                           : GridPadding::Reflection;
  if (*padding != "zeros" && *padding != "border" && *padding != "reflection")
    return args.emitError() << "padding_mode '" << *padding
                            << "' is not one of zeros, border, reflection";
  return gridSample(args,
                    *mode == "nearest" ? GridMode::Nearest : GridMode::Bilinear,
                    pad, *alignCorners);
}

/// aten::grid_sampler: the same with ATen's enums (interpolation 0
/// bilinear, 1 nearest; padding 0 zeros, 1 border, 2 reflection).
FailureOr<RtValue> gridSamplerAten(const KernelArgs &args) {
  FailureOr<int64_t> mode = args.getInt("interpolation_mode"),
                     padding = args.getInt("padding_mode");
  FailureOr<bool> alignCorners = args.getBool("align_corners");
  if (failed(mode) || failed(padding) || failed(alignCorners))
    return failure();
  if (*mode < 0 || *mode > 1 || *padding < 0 || *padding > 2)
    return args.emitError() << "interpolation_mode " << *mode
                            << " (0 bilinear, 1 nearest) or padding_mode "
                            << *padding << " (0-2) is not supported";
  return gridSample(args, *mode ? GridMode::Nearest : GridMode::Bilinear,
                    static_cast<GridPadding>(*padding), *alignCorners);
}

/// F.affine_grid: theta (N, 2, 3) or (N, 3, 4) applied to the normalized
/// positions of an output of `size` (N, C, H, W) or (N, C, D, H, W).
FailureOr<RtValue> affineGrid(const KernelArgs &args) {
  FailureOr<Tensor> theta = args.tensor("theta");
  FailureOr<SmallVector<int64_t>> size = args.getInts("size");
  if (failed(theta) || failed(size))
    return failure();
  FailureOr<bool> alignCorners = optionalAlignCorners(args);
  if (failed(alignCorners))
    return failure();
  if (!isFloatingPoint(theta->dtype()))
    return args.emitError() << "expected theta to have floating point type";
  int64_t spatial = static_cast<int64_t>(size->size()) - 2;
  if (spatial != 2 && spatial != 3)
    return args.emitError() << "affine_grid only supports 4D and 5D sizes";
  int64_t n = (*size)[0];
  if (theta->rank() != 3 || theta->dim(0) != n ||
      theta->dim(1) != spatial || theta->dim(2) != spatial + 1)
    return args.emitError() << "expected a batch of " << spatial << "x"
                            << spatial + 1 << " affine matrices";
  // Positions along each output dim, x first (W, H[, D]).
  SmallVector<SmallVector<double>> axes;
  for (int64_t k = 0; k < spatial; ++k) {
    int64_t steps = (*size)[size->size() - 1 - k];
    SmallVector<double> v(steps, 0.0);
    if (steps > 1)
      for (int64_t i = 0; i < steps; ++i) {
        v[i] = -1 + 2.0 * i / (steps - 1);
        if (!*alignCorners)
          v[i] *= static_cast<double>(steps - 1) / steps;
      }
    axes.push_back(v);
  }
  SmallVector<int64_t> shape = {n};
  for (int64_t k = spatial - 1; k >= 0; --k)
    shape.push_back(axes[k].size());
  shape.push_back(spatial);
  Tensor t = theta->to(DType::F64);
  Tensor out(DType::F64, shape);
  int64_t points = 1;
  for (auto &a : axes)
    points *= a.size();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t pnt = 0; pnt < points; ++pnt) {
      // The point's position: x varies fastest.
      SmallVector<double> base;
      int64_t rest = pnt;
      for (int64_t k = 0; k < spatial; ++k) {
        base.push_back(axes[k][rest % axes[k].size()]);
        rest /= axes[k].size();
      }
      base.push_back(1.0);
      for (int64_t r = 0; r < spatial; ++r) {
        double acc = 0;
        for (int64_t k = 0; k <= spatial; ++k)
          acc += t.data<double>()[(b * spatial + r) * (spatial + 1) + k] *
                 base[k];
        out.data<double>()[(b * points + pnt) * spatial + r] = acc;
      }
    }
  return RtValue(out.to(theta->dtype()));
}

//===----------------------------------------------------------------------===//
// Sliding blocks: F.unfold (im2col) and F.fold (col2im)
//===----------------------------------------------------------------------===//

namespace {
/// The 2-D window parameters of F.unfold and F.fold, decoded once.
struct BlockParams {
  SmallVector<int64_t> kernel, dilation, padding, stride;
};
} // namespace

static FailureOr<BlockParams> blockParams(const KernelArgs &args) {
  BlockParams b;
  const char *names[] = {"kernel_size", "dilation", "padding", "stride"};
  SmallVector<int64_t> *fields[] = {&b.kernel, &b.dilation, &b.padding,
                                    &b.stride};
  for (int i = 0; i < 4; ++i) {
    FailureOr<SmallVector<int64_t>> v = args.getInts(names[i], 2);
    if (failed(v))
      return failure();
    if (v->size() != 2)
      return args.emitError() << "'" << names[i] << "' must hold 2 ints";
    *fields[i] = *v;
  }
  for (int i = 0; i < 2; ++i)
    if (b.kernel[i] <= 0 || b.dilation[i] <= 0 || b.stride[i] <= 0 ||
        b.padding[i] < 0)
      return args.emitError() << "kernel_size, dilation and stride must be "
                                 "positive and padding non-negative";
  return b;
}

/// Calls fn(inputOffset, columnOffset) for every in-bounds pair of an
/// image (C, H, W) and its columns (C * kh * kw, L).
template <typename Fn>
static void forEachBlockElement(const BlockParams &b, int64_t channels,
                                int64_t h, int64_t w, int64_t oh, int64_t ow,
                                Fn fn) {
  int64_t kh = b.kernel[0], kw = b.kernel[1], l = oh * ow;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t j = 0; j < kw; ++j) {
        int64_t row = (c * kh + i) * kw + j;
        for (int64_t y = 0; y < oh; ++y) {
          int64_t iy = y * b.stride[0] - b.padding[0] + i * b.dilation[0];
          if (iy < 0 || iy >= h)
            continue;
          for (int64_t x = 0; x < ow; ++x) {
            int64_t ix = x * b.stride[1] - b.padding[1] + j * b.dilation[1];
            if (ix >= 0 && ix < w)
              fn((c * h + iy) * w + ix, row * l + y * ow + x);
          }
        }
      }
}

/// forEachBlockElement over each of the `n` samples of `in` and `out`
/// (`inSize` and `outSize` elements apart): `move(src, dst, i, o)` with
/// pointers of the storage type to sample's elements, `i` indexing the
/// image and `o` the columns.
template <typename Move>
static void
forEachSampleBlock(const Tensor &in, Tensor &out, int64_t n, int64_t inSize,
                   int64_t outSize, const BlockParams &b, int64_t channels,
                   int64_t h, int64_t w, int64_t oh, int64_t ow, Move move) {
  dispatchStorage(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t k = 0; k < n; ++k) {
      const T *src = in.template data<T>() + k * inSize;
      T *dst = out.template data<T>() + k * outSize;
      forEachBlockElement(b, channels, h, w, oh, ow,
                          [&](int64_t i, int64_t o) { move(src, dst, i, o); });
    }
    return 0;
  });
}

/// F.unfold: (N, C, H, W) -> (N, C * kh * kw, L), zero where the window
/// reads padding. An unbatched (C, H, W) input gives (C * kh * kw, L).
FailureOr<RtValue> im2col(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<BlockParams> b = blockParams(args);
  if (failed(in) || failed(b))
    return failure();
  if (in->rank() != 3 && in->rank() != 4)
    return args.emitError() << "expects a 3-D or 4-D input, got "
                            << in->rank() << "-D";
  bool batched = in->rank() == 4;
  int64_t n = batched ? in->dim(0) : 1, c = in->dim(in->rank() - 3),
          h = in->dim(in->rank() - 2), w = in->dim(in->rank() - 1);
  int64_t oh = slidingBlocks(h, b->kernel[0], b->dilation[0], b->padding[0],
                             b->stride[0]),
          ow = slidingBlocks(w, b->kernel[1], b->dilation[1], b->padding[1],
                             b->stride[1]);
  if (oh < 1 || ow < 1)
    return args.emitError() << "the sliding blocks do not fit the input";
  int64_t rows = c * b->kernel[0] * b->kernel[1];
  SmallVector<int64_t> shape = {rows, oh * ow};
  if (batched)
    shape.insert(shape.begin(), n);
  Tensor out(in->dtype(), shape);
  forEachSampleBlock(*in, out, n, c * h * w, rows * oh * ow, *b, c, h, w, oh,
                     ow, [](const auto *src, auto *dst, int64_t i, int64_t o) {
                       dst[o] = src[i];
                     });
  return RtValue(out);
}

/// F.fold: the columns (N, C * kh * kw, L) summed back into (N, C, H, W).
FailureOr<RtValue> col2im(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> size = args.getInts("output_size", 2);
  FailureOr<BlockParams> b = blockParams(args);
  if (failed(in) || failed(size) || failed(b))
    return failure();
  if (in->rank() != 2 && in->rank() != 3)
    return args.emitError() << "expects a 2-D or 3-D input, got "
                            << in->rank() << "-D";
  if (size->size() != 2)
    return args.emitError() << "'output_size' must hold 2 ints";
  bool batched = in->rank() == 3;
  int64_t n = batched ? in->dim(0) : 1, rows = in->dim(in->rank() - 2),
          l = in->dim(in->rank() - 1), h = (*size)[0], w = (*size)[1];
  int64_t block = b->kernel[0] * b->kernel[1];
  if (rows % block)
    return args.emitError() << "expected size of input's dimension 1 to be "
                               "divisible by the product of kernel_size, got "
                            << rows;
  int64_t oh = slidingBlocks(h, b->kernel[0], b->dilation[0], b->padding[0],
                             b->stride[0]),
          ow = slidingBlocks(w, b->kernel[1], b->dilation[1], b->padding[1],
                             b->stride[1]);
  if (oh * ow != l)
    return args.emitError() << "given output_size, kernel_size, dilation, "
                               "padding and stride, expected "
                            << oh * ow << " blocks in the input's last "
                            << "dimension, got " << l;
  int64_t c = rows / block;
  SmallVector<int64_t> shape = {c, h, w};
  if (batched)
    shape.insert(shape.begin(), n);
  Tensor out(in->dtype(), shape);
  // Sums in the storage type, as torch's col2im does.
  forEachSampleBlock(*in, out, n, rows * l, c * h * w, *b, c, h, w, oh, ow,
                     [](const auto *src, auto *dst, int64_t i, int64_t o) {
                       dst[i] += src[o];
                     });
  out.roundToDType();
  return RtValue(out);
}

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

namespace mlir::traced::kernels {
/// Max unpooling: each input element goes to its plane's flat `indices`
/// position in a zero output; an index outside the output plane is an
/// error (torch's message).
FailureOr<RtValue> maxUnpool(const KernelArgs &args) {
  FailureOr<Tensor> input = args.tensor("input"), indices = args.tensor("indices");
  if (failed(input) || failed(indices))
    return failure();
  unsigned k = 0;
  SmallVector<int64_t> size;
  if (failed(kernels::decodeArgs(
          args, "unpooling", [&](const ArgReader &reader, std::string &error) {
            return decodeUnpool(args.signature(), reader, input->shape(), k,
                                size, error);
          })))
    return failure();
  if (indices->dtype() != DType::I64 || indices->shape() != input->shape())
    return args.emitError() << "expects int64 indices of the input's shape";
  DType dt = input->dtype();
  if (dt != DType::F32 && dt != DType::F64)
    return args.emitError() << "has no CPU kernel for max unpooling in "
                            << dtypeName(dt);
  SmallVector<int64_t> shape(input->shape().drop_back(k));
  int64_t planes = 1, inPlane = 1, outPlane = 1;
  for (int64_t d : shape)
    planes *= d;
  for (int64_t d : input->shape().take_back(k))
    inPlane *= d;
  for (int64_t d : size)
    outPlane *= d;
  shape.append(size.begin(), size.end());
  Tensor out(dt, shape);
  if (outPlane == 0)
    return RtValue(out);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < inPlane; ++i) {
      int64_t at = indices->getInt(p * inPlane + i);
      if (at < 0 || at >= outPlane) {
        InFlightDiagnostic diag = args.emitError();
        diag << "Found an invalid max index: " << at
             << " (output volumes are of size ";
        llvm::interleave(size, diag, "x");
        return diag << ")";
      }
      out.setDouble(p * outPlane + at, input->getDouble(p * inPlane + i));
    }
  return RtValue(out);
}
} // namespace mlir::traced::kernels

void mlir::traced::kernels::populatePoolKernels(KernelTable &table) {
  for (StringRef name : {"torch.ops.aten.max_unpool2d.default",
                         "torch.ops.aten.max_unpool3d.default",
                         "torch.nn.functional.max_unpool1d",
                         "torch.nn.functional.max_unpool2d",
                         "torch.nn.functional.max_unpool3d"})
    table[name] = maxUnpool;
  for (StringRef name : {"torch.ops.aten.upsample_nearest1d_backward.default",
                         "torch.ops.aten.upsample_nearest2d_backward.default",
                         "torch.ops.aten.upsample_nearest3d_backward.default"})
    table[name] = upsampleNearestBackward;
  table["torch.nn.functional.max_pool1d"] = maxPool1d;
  table["torch.nn.functional.max_pool2d"] = maxPool2d;
  table["torch.nn.functional.max_pool3d"] = maxPool3d;
  table["torch.nn.functional.max_pool1d_with_indices"] = maxPool1dWithIndices;
  table["torch.nn.functional.max_pool2d_with_indices"] = maxPool2dWithIndices;
  table["torch.nn.functional.max_pool3d_with_indices"] = maxPool3dWithIndices;
  table["torch.nn.functional.avg_pool1d"] = avgPool1d;
  table["torch.nn.functional.avg_pool2d"] = avgPool2d;
  table["torch.nn.functional.avg_pool3d"] = avgPool3d;
  table["torch.nn.functional.adaptive_avg_pool1d"] = adaptiveAvgPool1d;
  table["torch.nn.functional.adaptive_avg_pool2d"] = adaptiveAvgPool2d;
  table["torch.nn.functional.adaptive_avg_pool3d"] = adaptiveAvgPool3d;
  table["torch.nn.functional.adaptive_max_pool1d"] = adaptiveMaxPool1d;
  table["torch.nn.functional.adaptive_max_pool2d"] = adaptiveMaxPool2d;
  table["torch.nn.functional.adaptive_max_pool3d"] = adaptiveMaxPool3d;
  table["torch.nn.functional.adaptive_max_pool1d_with_indices"] = adaptiveMaxPool1dWithIndices;
  table["torch.nn.functional.adaptive_max_pool2d_with_indices"] = adaptiveMaxPool2dWithIndices;
  table["torch.nn.functional.adaptive_max_pool3d_with_indices"] = adaptiveMaxPool3dWithIndices;
  table["torch.nn.functional.lp_pool1d"] = lpPool1d;
  table["torch.nn.functional.lp_pool2d"] = lpPool2d;
  table["torch.nn.functional.interpolate"] = interpolate;
  table["torch.ops.aten.upsample_nearest1d.default"] = upsampleNearest;
  table["torch.ops.aten.upsample_nearest2d.default"] = upsampleNearest;
  table["torch.ops.aten.upsample_nearest3d.default"] = upsampleNearest;
  table["torch.nn.functional.grid_sample"] = gridSampleKernel;
  table["torch.ops.aten.grid_sampler.default"] = gridSamplerAten;
  table["torch.nn.functional.affine_grid"] = affineGrid;
  table["torch.nn.functional.unfold"] = im2col;
  table["torch.nn.functional.fold"] = col2im;
}
