//===- KernelsPool.cpp - max, average and adaptive average pooling --------===//

#include "Kernels.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::traced;

namespace {
struct Window {
  SmallVector<int64_t> kernel, stride, padding, dilation;
  bool ceilMode = false;
};

int64_t pooledSize(int64_t size, int64_t k, int64_t s, int64_t p, int64_t d,
                   bool ceil) {
  int64_t out = (size + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0)) / s + 1;
  if (ceil && (out - 1) * s >= size + p)
    --out;
  return out;
}

FailureOr<Window> window(const KernelArgs &args, bool hasDilation) {
  Window w;
  FailureOr<SmallVector<int64_t>> k = args.getInts("kernel_size", 2);
  if (failed(k))
    return failure();
  w.kernel = *k;
  if (args.isNone("stride") ||
      (args.get("stride").list() && args.get("stride").list()->items.empty())) {
    w.stride = w.kernel;
  } else {
    FailureOr<SmallVector<int64_t>> s = args.getInts("stride", 2);
    if (failed(s))
      return failure();
    w.stride = *s;
  }
  FailureOr<SmallVector<int64_t>> p = args.getInts("padding", 2);
  if (failed(p))
    return failure();
  w.padding = *p;
  if (hasDilation) {
    FailureOr<SmallVector<int64_t>> d = args.getInts("dilation", 2);
    if (failed(d))
      return failure();
    w.dilation = *d;
  } else {
    w.dilation = {1, 1};
  }
  FailureOr<bool> ceil = args.getBool("ceil_mode");
  if (failed(ceil))
    return failure();
  w.ceilMode = *ceil;
  for (auto *v : {&w.kernel, &w.stride, &w.padding, &w.dilation})
    if (v->size() != 2)
      return args.emitError() << "pooling parameters need 2 values";
  return w;
}

/// The input as [planes, H, W] (batched or not) and the output shape.
FailureOr<Tensor> planes(const KernelArgs &args, const Tensor &in) {
  if (in.rank() != 3 && in.rank() != 4)
    return args.emitError() << "expects a 3-D or 4-D input";
  if (!isFloatingPoint(in.dtype()))
    return args.emitError() << "expects a floating-point input";
  int64_t h = in.dim(in.rank() - 2), w = in.dim(in.rank() - 1);
  return in.reshaped({in.numel() / (h * w), h, w});
}
} // namespace

int64_t mlir::traced::avgPoolDivisor(PoolWindow y, PoolWindow x,
                                     bool countIncludePad) {
  // PyTorch's window: clipped to input+padding for the divisor with
  // count_include_pad, to the input without.
  auto extent = [&](PoolWindow w) {
    int64_t begin = w.start, end = std::min(w.start + w.kernel, w.size + w.padding);
    if (countIncludePad)
      return end - begin;
    return std::min(end, w.size) - std::max<int64_t>(begin, 0);
  };
  return extent(y) * extent(x);
}

namespace mlir::traced::kernels {

FailureOr<RtValue> maxPool2d(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> indices = args.getBool("return_indices");
  if (failed(in) || failed(indices))
    return failure();
  FailureOr<Window> w = window(args, /*hasDilation=*/true);
  FailureOr<Tensor> x = planes(args, *in);
  if (failed(w) || failed(x))
    return failure();
  int64_t h = x->dim(1), wd = x->dim(2);
  int64_t oh = pooledSize(h, w->kernel[0], w->stride[0], w->padding[0],
                          w->dilation[0], w->ceilMode);
  int64_t ow = pooledSize(wd, w->kernel[1], w->stride[1], w->padding[1],
                          w->dilation[1], w->ceilMode);
  SmallVector<int64_t> shape(in->shape().drop_back(2));
  shape.append({oh, ow});
  Tensor out(in->dtype(), shape), idx(DType::I64, shape);
  for (int64_t p = 0; p < x->dim(0); ++p)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo) {
        double best = -std::numeric_limits<double>::infinity();
        int64_t bestIndex = -1;
        bool nan = false;
        for (int64_t ky = 0; ky < w->kernel[0]; ++ky) {
          int64_t iy = y * w->stride[0] - w->padding[0] + ky * w->dilation[0];
          if (iy < 0 || iy >= h)
            continue;
          for (int64_t kx = 0; kx < w->kernel[1]; ++kx) {
            int64_t ix =
                xo * w->stride[1] - w->padding[1] + kx * w->dilation[1];
            if (ix < 0 || ix >= wd)
              continue;
            double v = x->getDouble((p * h + iy) * wd + ix);
            if (bestIndex < 0 || v > best || (v != v && !nan)) {
              nan |= v != v;
              best = v;
              bestIndex = iy * wd + ix;
            }
          }
        }
        int64_t o = (p * oh + y) * ow + xo;
        out.setDouble(o, best);
        idx.data<int64_t>()[o] = bestIndex;
      }
  if (*indices)
    return RtValue::ofList({RtValue(out), RtValue(idx)}, /*isTuple=*/true);
  return RtValue(out);
}

FailureOr<RtValue> avgPool2d(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> includePad = args.getBool("count_include_pad");
  if (failed(in) || failed(includePad))
    return failure();
  std::optional<int64_t> divisor;
  if (!args.isNone("divisor_override")) {
    FailureOr<int64_t> d = args.getInt("divisor_override");
    if (failed(d))
      return failure();
    divisor = *d;
  }
  FailureOr<Window> w = window(args, /*hasDilation=*/false);
  FailureOr<Tensor> x = planes(args, *in);
  if (failed(w) || failed(x))
    return failure();
  int64_t h = x->dim(1), wd = x->dim(2);
  int64_t oh =
      pooledSize(h, w->kernel[0], w->stride[0], w->padding[0], 1, w->ceilMode);
  int64_t ow =
      pooledSize(wd, w->kernel[1], w->stride[1], w->padding[1], 1, w->ceilMode);
  SmallVector<int64_t> shape(in->shape().drop_back(2));
  shape.append({oh, ow});
  Tensor out(in->dtype(), shape);
  for (int64_t p = 0; p < x->dim(0); ++p)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo) {
        // The sum runs over the window clipped to the input.
        int64_t y0 = y * w->stride[0] - w->padding[0],
                x0 = xo * w->stride[1] - w->padding[1];
        int64_t y1 = std::min(y0 + w->kernel[0], h),
                x1 = std::min(x0 + w->kernel[1], wd);
        y0 = std::max<int64_t>(y0, 0);
        x0 = std::max<int64_t>(x0, 0);
        double sum = 0;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t ix = x0; ix < x1; ++ix)
            sum += x->getDouble((p * h + iy) * wd + ix);
        int64_t count =
            divisor ? *divisor
                    : avgPoolDivisor({y * w->stride[0] - w->padding[0],
                                      w->kernel[0], h, w->padding[0]},
                                     {xo * w->stride[1] - w->padding[1],
                                      w->kernel[1], wd, w->padding[1]},
                                     *includePad);
        out.setDouble((p * oh + y) * ow + xo, sum / count);
      }
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> adaptiveAvgPool2d(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  FailureOr<Tensor> x = planes(args, *in);
  if (failed(x))
    return failure();
  int64_t h = x->dim(1), wd = x->dim(2);
  int64_t sizes[2] = {h, wd};
  const RtValue &size = args.get("output_size");
  if (const RtValue::List *l = size.list()) {
    if (l->items.size() != 2)
      return args.emitError() << "output_size needs 2 values";
    for (int i = 0; i < 2; ++i)
      if (auto *v = std::get_if<int64_t>(&l->items[i].v))
        sizes[i] = *v;
  } else if (auto *v = std::get_if<int64_t>(&size.v)) {
    sizes[0] = sizes[1] = *v;
  } else {
    return args.emitError() << "output_size must be an int or a pair";
  }
  int64_t oh = sizes[0], ow = sizes[1];
  SmallVector<int64_t> shape(in->shape().drop_back(2));
  shape.append({oh, ow});
  Tensor out(in->dtype(), shape);
  for (int64_t p = 0; p < x->dim(0); ++p)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo) {
        int64_t y0 = (y * h) / oh, y1 = ((y + 1) * h + oh - 1) / oh;
        int64_t x0 = (xo * wd) / ow, x1 = ((xo + 1) * wd + ow - 1) / ow;
        double sum = 0;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t ix = x0; ix < x1; ++ix)
            sum += x->getDouble((p * h + iy) * wd + ix);
        out.setDouble((p * oh + y) * ow + xo, sum / ((y1 - y0) * (x1 - x0)));
      }
  out.roundToDType();
  return RtValue(out);
}

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
  // One pass per spatial dim: [outer, size, inner] -> [outer, out, inner].
  Tensor x = in->to(DType::F64);
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t axis = d + 2, size = x.dim(axis), out = plan->outSizes[d];
    double scale = plan->scales[d];
    int64_t inner = 1, outer = 1;
    for (int64_t i = axis + 1; i < x.rank(); ++i)
      inner *= x.dim(i);
    for (int64_t i = 0; i < axis; ++i)
      outer *= x.dim(i);
    SmallVector<int64_t> shape(x.shape());
    shape[axis] = out;
    Tensor y(DType::F64, shape);
    const double *p = x.data<double>();
    double *o = y.data<double>();
    if (cubic || area) {
      // Taps and weights of output j along this dim: bicubic's four
      // (Keys' kernel, A = -0.75, border taps clamped), area's window
      // [floor(j * size / out), ceil((j + 1) * size / out)) averaged, as
      // adaptive average pooling does.
      for (int64_t j = 0; j < out; ++j) {
        SmallVector<std::pair<int64_t, double>, 4> taps;
        if (cubic) {
          double src = alignCorners
                           ? (out > 1 ? j * double(size - 1) / (out - 1) : 0.0)
                           : (j + 0.5) * scale - 0.5;
          int64_t i = static_cast<int64_t>(std::floor(src));
          double t = src - i, A = -0.75;
          auto near = [&](double v) {
            return ((A + 2) * v - (A + 3)) * v * v + 1;
          };
          auto far = [&](double v) {
            return ((A * v - 5 * A) * v + 8 * A) * v - 4 * A;
          };
          double w[4] = {far(t + 1), near(t), near(1 - t), far(2 - t)};
          for (int k = 0; k < 4; ++k)
            taps.push_back(
                {std::clamp<int64_t>(i - 1 + k, 0, size - 1), w[k]});
        } else {
          int64_t start = (j * size) / out;
          int64_t end = ((j + 1) * size + out - 1) / out;
          for (int64_t i = start; i < end; ++i)
            taps.push_back({i, 1.0 / double(end - start)});
        }
        for (int64_t a = 0; a < outer; ++a)
          for (int64_t c = 0; c < inner; ++c) {
            double acc = 0;
            for (auto [i, w] : taps)
              acc += w * p[(a * size + i) * inner + c];
            o[(a * out + j) * inner + c] = acc;
          }
      }
      x = y;
      continue;
    }
    for (int64_t j = 0; j < out; ++j) {
      int64_t i0, i1;
      double lambda = 0;
      if (linear) {
        double src;
        if (alignCorners)
          src = out > 1 ? j * double(size - 1) / (out - 1) : 0.0;
        else
          src = std::max(0.0, (j + 0.5) * scale - 0.5);
        i0 = std::min<int64_t>(static_cast<int64_t>(std::floor(src)), size - 1);
        i1 = std::min<int64_t>(i0 + 1, size - 1);
        lambda = src - i0;
      } else {
        double src = exact ? std::floor((j + 0.5) * scale)
                           : std::floor(j * scale);
        i0 = i1 = std::min<int64_t>(static_cast<int64_t>(src), size - 1);
      }
      for (int64_t a = 0; a < outer; ++a)
        for (int64_t c = 0; c < inner; ++c) {
          double v0 = p[(a * size + i0) * inner + c];
          double v1 = p[(a * size + i1) * inner + c];
          o[(a * out + j) * inner + c] =
              linear ? v0 * (1 - lambda) + v1 * lambda : v0;
        }
    }
    x = y;
  }
  return RtValue(x.to(in->dtype()));
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
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t k = 0; k < n; ++k) {
      const T *src = in->template data<T>() + k * c * h * w;
      T *dst = out.template data<T>() + k * rows * oh * ow;
      forEachBlockElement(*b, c, h, w, oh, ow,
                          [&](int64_t i, int64_t o) { dst[o] = src[i]; });
    }
    return 0;
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
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t k = 0; k < n; ++k) {
      const T *src = in->template data<T>() + k * rows * l;
      T *dst = out.template data<T>() + k * c * h * w;
      forEachBlockElement(*b, c, h, w, oh, ow,
                          [&](int64_t i, int64_t o) { dst[i] += src[o]; });
    }
    return 0;
  });
  out.roundToDType();
  return RtValue(out);
}

} // namespace mlir::traced::kernels
