//===- Reduce.cpp - reductions, norms and softmax -------------------------===//
//
// Sums, means, extrema, products, variances, cumulative scans and norms over
// dims, and the softmaxes (softmax, log_softmax, softmin), which reduce
// along a dim.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TracedIR/Runtime/LinalgRuntime.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::traced;

namespace {
/// torch's max and min of two values: NaN when either is (std::max and
/// std::min keep their first argument beside a NaN, which drops it).
double maxNaN(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
double minNaN(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }
} // namespace

namespace {
/// sum and mean; with `skipNaN`, nansum and nanmean: NaN counts as 0 in the
/// sum, and the mean divides by the count of the others (torch's nanmean
/// is nansum(...).div((~isnan(x)).sum(...))).
FailureOr<RtValue> reduce(const KernelArgs &args, bool average,
                          bool skipNaN = false) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(keepdim))
    return failure();
  // Sums of ints and bools are int64 unless dtype= says otherwise.
  FailureOr<DType> dtype = args.getDType(
      "dtype", !average && !isFloatingPoint(in->dtype()) ? DType::I64
                                                         : in->dtype());
  if (failed(dtype))
    return failure();
  if (average && !isFloatingPoint(*dtype))
    return args.emitError() << "mean needs a floating-point input or dtype";
  int64_t rank = in->rank();
  SmallVector<bool> reduced(rank, args.isNone("dim"));
  if (!args.isNone("dim")) {
    FailureOr<SmallVector<int64_t>> dims = args.getInts("dim", 1);
    if (failed(dims))
      return failure();
    if (dims->empty()) // dim=[] reduces every dim, as dim=None does
      reduced.assign(rank, true);
    for (int64_t d : *dims) {
      FailureOr<int64_t> n = normalizeDim(args, d, std::max<int64_t>(rank, 1));
      if (failed(n))
        return failure();
      if (rank)
        reduced[*n] = true;
    }
  }
  SmallVector<int64_t> outShape, keptShape;
  for (int64_t i = 0; i < rank; ++i) {
    keptShape.push_back(reduced[i] ? 1 : in->dim(i));
    if (!reduced[i])
      outShape.push_back(in->dim(i));
    else if (*keepdim)
      outShape.push_back(1);
  }
  Tensor x = in->to(*dtype);
  Tensor out(*dtype, keptShape);
  SmallVector<int64_t> outStrides = out.strides();
  std::vector<double> acc(out.numel(), 0.0);
  // Integer sums are exact and wrap, as torch's: int64 values beyond 2^53
  // do not pass through double.
  bool exact = storageOf(*dtype) == Storage::Int && !average;
  std::vector<uint64_t> iacc(exact ? out.numel() : 0, 0);
  std::vector<int64_t> counted(skipNaN ? out.numel() : 0, 0);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        o += index[d] * outStrides[d];
    if (exact) {
      iacc[o] += static_cast<uint64_t>(x.data<int64_t>()[i]);
    } else {
      double v = x.getDouble(i);
      if (!skipNaN || !std::isnan(v)) {
        acc[o] += v;
        if (skipNaN)
          ++counted[o];
      }
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < x.dim(d))
        break;
      index[d] = 0;
    }
  }
  int64_t count = out.numel() ? x.numel() / out.numel() : 0;
  // torch's mean is its sum, in the dtype, divided: a float16 sum beyond
  // 65504 is inf before the division.
  Tensor sums(*dtype, {out.numel()});
  if (average) {
    for (int64_t i = 0; i < out.numel(); ++i)
      sums.setDouble(i, acc[i]);
    sums.roundToDType();
  }
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (exact)
      out.data<int64_t>()[i] = static_cast<int64_t>(iacc[i]);
    else
      out.setDouble(i, average ? sums.getDouble(i) /
                                     static_cast<double>(skipNaN ? counted[i]
                                                                 : count)
                               : acc[i]);
  }
  out.roundToDType();
  return RtValue(out.reshaped(outShape));
}

FailureOr<RtValue> softmaxImpl(const KernelArgs &args, bool logarithm,
                               bool negate = false) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  FailureOr<int64_t> d = args.isNone("dim")
                            ? FailureOr<int64_t>(implicitSoftmaxDim(in->rank()))
                            : args.getInt("dim");
  if (failed(d))
    return failure();
  // An empty input returns early in torch, in its own dtype: integers too.
  DType fallback = in->numel() ? toFloatingDType(in->dtype()) : in->dtype();
  FailureOr<DType> target = args.getDType("dtype", fallback);
  if (failed(target))
    return failure();
  Tensor x = in->to(*target);
  if (negate) {
    Tensor negated(x.dtype(), x.shape());
    for (int64_t i = 0; i < x.numel(); ++i)
      negated.setDouble(i, -x.getDouble(i));
    x = negated;
  }
  FailureOr<kernels::DimSplit> split = kernels::splitAtDim(args, x, *d);
  if (failed(split))
    return failure();
  int64_t outer = split->outer, size = split->size, inner = split->inner;
  return RtValue(kernels::mapStorage<std::is_floating_point>(
      x, [&](const auto *p, auto *o) {
        using T = std::remove_pointer_t<decltype(o)>;
        for (int64_t a = 0; a < outer; ++a)
          for (int64_t b = 0; b < inner; ++b) {
            const T *row = p + a * size * inner + b;
            T *orow = o + a * size * inner + b;
            auto [mx, sum] = kernels::softmaxTerms(row, size, inner);
            for (int64_t j = 0; j < size; ++j)
              orow[j * inner] = logarithm ? row[j * inner] - mx - std::log(sum)
                                          : std::exp(row[j * inner] - mx) / sum;
          }
      }));
}
} // namespace

namespace mlir::traced::kernels {
FailureOr<RtValue> mean(const KernelArgs &args) { return reduce(args, true); }
FailureOr<RtValue> sum(const KernelArgs &args) { return reduce(args, false); }
FailureOr<RtValue> nanmean(const KernelArgs &args) {
  return reduce(args, true, /*skipNaN=*/true);
}
FailureOr<RtValue> nansum(const KernelArgs &args) {
  return reduce(args, false, /*skipNaN=*/true);
}
} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// Reductions over any dims: the reduced dims are moved last, so that each
// output element reduces one contiguous run of `k` elements.
//===----------------------------------------------------------------------===//

namespace {
struct Reduction {
  Tensor moved;                    // [outer..., k], contiguous
  int64_t outer = 1, k = 1;        // output elements, elements per output
  SmallVector<int64_t> outShape;   // the result's shape (keepdim applied)
};

/// The dims `dimName` names (None, an int or a list of ints; `allIfEmpty`:
/// an empty list means all, as amax's default does) moved last.
FailureOr<Reduction> prepareReduction(const KernelArgs &args, const Tensor &x,
                                      StringRef dimName, bool keepdim,
                                      bool allIfEmpty = false) {
  int64_t rank = x.rank();
  SmallVector<bool> reduced(rank, true);
  const RtValue &dimValue = args.get(dimName);
  // var(x, False): a bool in `dim`'s place is `unbiased` (all dims).
  if (!dimValue.isNone() && !std::holds_alternative<bool>(dimValue.v)) {
    FailureOr<SmallVector<int64_t>> dims = args.getInts(dimName, 1);
    if (failed(dims))
      return failure();
    if (!dims->empty() || !allIfEmpty) {
      reduced.assign(rank, false);
      for (int64_t d : *dims) {
        FailureOr<int64_t> n = normalizeDim(args, d, std::max<int64_t>(rank, 1));
        if (failed(n))
          return failure();
        if (rank) {
          if (reduced[*n])
            return args.emitError() << "dim " << d << " appears twice";
          reduced[*n] = true;
        }
      }
    }
  }
  Reduction r;
  SmallVector<int64_t> perm, shape, strides, xs = x.strides();
  for (int64_t pass = 0; pass < 2; ++pass)
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d] == (pass == 1)) {
        perm.push_back(d);
        shape.push_back(x.dim(d));
        strides.push_back(xs[d]);
      }
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d])
      r.k *= x.dim(d);
    else
      r.outer *= x.dim(d);
    if (!reduced[d])
      r.outShape.push_back(x.dim(d));
    else if (keepdim)
      r.outShape.push_back(1);
  }
  r.moved = gatherStrided(x, shape, 0, strides);
  return r;
}

/// Index of the first maximum (or minimum) of a run; NaN wins, as in torch.
template <typename T> int64_t extremeIndex(const T *p, int64_t k, bool max) {
  int64_t best = 0;
  for (int64_t i = 1; i < k; ++i) {
    T v = p[i], b = p[best];
    if (b != b)
      break;
    if (v != v || (max ? v > b : v < b))
      best = i;
  }
  return best;
}

FailureOr<RtValue> extreme(const KernelArgs &args, bool max, bool wantValues,
                           bool wantIndices, StringRef dimName,
                           bool allIfEmpty) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(keepdim))
    return failure();
  bool allDims = args.isNone(dimName);
  FailureOr<Reduction> r =
      prepareReduction(args, *in, dimName, *keepdim, allIfEmpty);
  if (failed(r))
    return failure();
  if (r->k == 0 && r->outer != 0)
    return args.emitError() << "cannot reduce an empty dimension (torch: "
                               "expected reduction dim to be specified for "
                               "input.numel() == 0)";
  if (allDims && in->numel() == 0)
    return args.emitError() << "cannot reduce an empty tensor over all dims";
  Tensor values(in->dtype(), r->outShape), indices(DType::I64, r->outShape);
  int64_t *pi = indices.data<int64_t>();
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = r->moved.template data<T>();
    T *pv = values.template data<T>();
    for (int64_t o = 0; o < r->outer; ++o) {
      int64_t i = extremeIndex(p + o * r->k, r->k, max);
      pv[o] = p[o * r->k + i];
      pi[o] = i;
    }
    return 0;
  });
  if (wantValues && wantIndices)
    return RtValue::ofList({RtValue(values), RtValue(indices)},
                           /*isTuple=*/true);
  return RtValue(wantValues ? values : indices);
}

/// torch.median and torch.nanmedian as torch 1.13's CPU kernels define
/// them: the element of rank (n - 1) / 2 under the order (value, index),
/// NaN the largest; median of a run holding NaN is its first NaN, nanmedian
/// counts only the other elements (n - #NaN; all NaN: the first).
FailureOr<RtValue> medianOf(const KernelArgs &args, bool ignoreNaN) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(keepdim))
    return failure();
  bool allDims = args.isNone("dim");
  FailureOr<Reduction> r = prepareReduction(args, *in, "dim", *keepdim);
  if (failed(r))
    return failure();
  if (!allDims && r->k == 0 && r->outer != 0) {
    FailureOr<int64_t> d = args.getInt("dim");
    return args.emitError() << "median(): Expected reduction dim "
                            << (failed(d) ? 0 : *d)
                            << " to have non-zero size.";
  }
  Tensor values(in->dtype(), r->outShape), indices(DType::I64, r->outShape);
  std::vector<int64_t> order;
  for (int64_t o = 0; o < r->outer; ++o) {
    int64_t k = r->k;
    auto at = [&](int64_t i) { return r->moved.getDouble(o * k + i); };
    order.resize(k);
    for (int64_t i = 0; i < k; ++i)
      order[i] = i;
    int64_t nan = 0, firstNaN = -1;
    for (int64_t i = 0; i < k; ++i)
      if (std::isnan(at(i))) {
        ++nan;
        if (firstNaN < 0)
          firstNaN = i;
      }
    int64_t pick;
    if (k == 0) {
      values.setDouble(o, NAN);
      continue;
    }
    if (!ignoreNaN && nan) {
      pick = firstNaN;
    } else {
      int64_t rank = ignoreNaN ? (k - nan - 1) / 2 : (k - 1) / 2;
      if (ignoreNaN && nan == k)
        rank = 0;
      // (Integers compare as int64: doubles would tie values above 2^53.)
      bool ints = r->moved.storage() == Storage::Int;
      std::nth_element(order.begin(), order.begin() + rank, order.end(),
                       [&](int64_t i, int64_t j) {
                         if (ints) {
                           int64_t a = r->moved.getInt(o * k + i),
                                   b = r->moved.getInt(o * k + j);
                           return a < b || (a == b && i < j);
                         }
                         double a = at(i), b = at(j);
                         bool an = std::isnan(a), bn = std::isnan(b);
                         if (an || bn)
                           return (!an && bn) || (an && bn && i < j);
                         return a < b || (a == b && i < j);
                       });
      pick = order[rank];
    }
    dispatchStorage(in->dtype(), [&](auto tag) {
      using T = decltype(tag);
      values.template data<T>()[o] = r->moved.template data<T>()[o * k + pick];
      return 0;
    });
    indices.data<int64_t>()[o] = pick;
  }
  if (allDims)
    return RtValue(values);
  return RtValue::ofList({RtValue(values), RtValue(indices)}, /*isTuple=*/true);
}

/// torch.lerp's CPU formula (Elementwise.cpp's lerp): from `a` for w < 0.5,
/// else from `b`, each one fused multiply-add.
template <typename T> T lerpOf(T a, T b, T w) {
  T diff = b - a;
  return w < T(0.5) ? std::fma(w, diff, a) : std::fma(w - T(1), diff, b);
}

/// One run's quantile as torch 1.13's quantile_compute finds it: `sorted`
/// ascending with NaN last, `q` in the input's type; quantile's rank is q
/// (n - 1), or the last one when a NaN is there; nanquantile's is q (the
/// non-NaN count - 1), 0 when negative; then rounded as `mode` says
/// (0 linear, 1 lower, 2 higher, 3 midpoint, 4 nearest) and interpolated
/// with lerp between the neighbours.
template <typename T>
T quantileOfSorted(const std::vector<T> &sorted, T q, bool ignoreNaN, int mode) {
  int64_t n = sorted.size(), nan = 0;
  for (T v : sorted)
    nan += std::isnan(v);
  T rank;
  if (ignoreNaN) {
    rank = q * T(n - nan - 1);
    if (rank < 0)
      rank = 0;
  } else {
    rank = nan ? T(n - 1) : q * T(n - 1);
  }
  if (mode == 1)
    rank = std::floor(rank);
  else if (mode == 2)
    rank = std::ceil(rank);
  else if (mode == 4)
    rank = std::nearbyint(rank);
  int64_t below = static_cast<int64_t>(rank);
  T value = sorted[below];
  if (mode == 0 || mode == 3) {
    T weight = mode == 3 ? T(0.5) : rank - T(below);
    value = lerpOf(value, sorted[static_cast<int64_t>(std::ceil(rank))], weight);
  }
  return value;
}

/// torch.quantile and torch.nanquantile: the q-th quantiles of the
/// elements along `dim` (None: of all), q's length first for a 1-D q.
FailureOr<RtValue> quantileOf(const KernelArgs &args, bool ignoreNaN) {
  StringRef op = ignoreNaN ? "nanquantile" : "quantile";
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  FailureOr<std::string> interpolation = args.getStr("interpolation");
  if (failed(in) || failed(keepdim) || failed(interpolation))
    return failure();
  int mode = llvm::StringSwitch<int>(*interpolation)
                 .Case("linear", 0).Case("lower", 1).Case("higher", 2)
                 .Case("midpoint", 3).Case("nearest", 4).Default(-1);
  if (mode < 0)
    return args.emitError() << op << "() interpolation must be one of linear, lower, higher, "
                                     "midpoint or nearest, but got " << *interpolation;
  // q: a number (checked as a double, then in the input's type) or a
  // 0-d/1-D tensor of the input's dtype.
  const RtValue &qArg = args.get("q");
  std::vector<double> qs;
  bool qList = false;
  if (qArg.isTensor()) {
    const Tensor &q = qArg.tensor();
    if (q.rank() > 1)
      return args.emitError() << op << "() q must be a scalar or 1D tensor";
    if (q.dtype() != in->dtype())
      return args.emitError() << op << "() q tensor must be same dtype as the input tensor";
    qList = q.rank() == 1;
    for (int64_t i = 0; i < q.numel(); ++i)
      qs.push_back(q.getDouble(i));
  } else {
    std::optional<double> q = qArg.number();
    if (!q)
      return args.emitError() << op << "() q must be a number or a tensor";
    if (!(*q >= 0 && *q <= 1))
      return args.emitError() << op << "() q must be in the range [0, 1] but got " << *q;
    qs.push_back(*q);
  }
  if (in->numel() == 0)
    return args.emitError() << op << "() input tensor must be non-empty";
  if (in->dtype() != DType::F32 && in->dtype() != DType::F64)
    return args.emitError() << op << "() input tensor must be either float or double dtype";
  for (double q : qs)
    if (!(q >= 0 && q <= 1))
      return args.emitError() << op << "() q values must be in the range [0, 1]";
  FailureOr<Reduction> r = prepareReduction(args, *in, "dim", *keepdim);
  if (failed(r))
    return failure();
  SmallVector<int64_t> shape(r->outShape);
  if (qList)
    shape.insert(shape.begin(), static_cast<int64_t>(qs.size()));
  Tensor out(in->dtype(), shape);
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T *p = r->moved.template data<T>();
      T *po = out.template data<T>();
      std::vector<T> sorted(r->k);
      for (int64_t o = 0; o < r->outer; ++o) {
        std::copy(p + o * r->k, p + (o + 1) * r->k, sorted.begin());
        std::sort(sorted.begin(), sorted.end(), [](T a, T b) {
          return std::isnan(b) ? !std::isnan(a) : a < b;
        });
        for (size_t i = 0; i < qs.size(); ++i)
          po[i * r->outer + o] =
              quantileOfSorted(sorted, static_cast<T>(qs[i]), ignoreNaN, mode);
      }
    }
    return 0;
  });
  return RtValue(out);
}

/// torch.mode along `dim` as torch 1.13's CPU kernel computes it, to the
/// index (the runtime's traced_stats_mode_*, which compiled code calls
/// too), over the values widened to double or int64 (exactly: the order
/// and the ties stay).
FailureOr<RtValue> modeOf(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> dim = args.getInt("dim");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(dim) || failed(keepdim))
    return failure();
  FailureOr<Reduction> r = prepareReduction(args, *in, "dim", *keepdim);
  if (failed(r))
    return failure();
  if (in->rank() > 0 && r->k == 0)
    return args.emitError() << "mode(): Expected reduction dim " << *dim
                            << " to have non-zero size.";
  bool floats = isFloatingPoint(in->dtype());
  Tensor wide = r->moved.to(floats ? DType::F64 : DType::I64);
  Tensor values(wide.dtype(), r->outShape), indices(DType::I64, r->outShape);
  if (floats)
    traced_stats_mode_f64(wide.data<double>(), values.data<double>(),
                          indices.data<int64_t>(), r->outer, r->k);
  else
    traced_stats_mode_i64(wide.data<int64_t>(), values.data<int64_t>(),
                          indices.data<int64_t>(), r->outer, r->k);
  return RtValue::ofList({RtValue(values.to(in->dtype())), RtValue(indices)},
                         /*isTuple=*/true);
}

/// torch.linspace's CPU values in type T, as its AVX2 kernel (this
/// machine's capability) computes them: runs of two vectors (8 floats or 4
/// doubles each) while they fit, each vector from its first element `base`
/// as base + j * step, the rest one by one; an element (or a vector's
/// base) at i is fma(step, i, lo) in the first half and fma(-step, steps -
/// 1 - i, hi) in the other (the compiler fuses them). bfloat16 computes
/// each step in it, one by one.
template <typename T> std::vector<T> linspaceOf(T lo, T hi, int64_t steps, DType dt) {
  std::vector<T> edges(steps);
  int64_t half = steps / 2;
  if (dt == DType::BF16) {
    auto r = [dt](T v) { return static_cast<T>(roundedTo(dt, v)); };
    T step = steps > 1 ? r(r(hi - lo) / T(steps - 1)) : T(0);
    for (int64_t i = 0; i < steps; ++i)
      edges[i] = i < half ? r(lo + r(step * T(i))) : r(hi - r(step * T(steps - i - 1)));
    return edges;
  }
  T step = steps > 1 ? (hi - lo) / T(steps - 1) : T(0);
  auto at = [&](int64_t i) {
    return i < half ? std::fma(step, T(i), lo) : std::fma(-step, T(steps - 1 - i), hi);
  };
  const int64_t width = 32 / sizeof(T);
  int64_t i = 0;
  for (; i + 2 * width <= steps; i += 2 * width)
    for (int64_t v = i; v < i + 2 * width; v += width) {
      T base = at(v);
      for (int64_t j = 0; j < width; ++j) {
        T offset = T(j) * step; // (not fused with the sum, as torch's)
        edges[v + j] = base + offset;
      }
    }
  for (; i < steps; ++i)
    edges[i] = at(i);
  return edges;
}

/// How torch 1.13's histogramdd kernel (HistogramKernel.cpp) finds an
/// element's bin among `edges`: skipped (-1) below the first edge or above
/// the last (NaN is not skipped); Linear: (x - first) / (last - first) *
/// bins (histc's formula), LinearSearch: (x - first) * bins / (last -
/// first), then upper_bound among the edges around it (histogram with an
/// int), Search: upper_bound among all the edges (histogram with a
/// tensor); the last bin takes its right edge. A NaN's bin is what torch's
/// code does with the int64 its conversion gives (INT64_MIN): bin 0 for
/// Linear, bin 1 (0 with one bin) for LinearSearch, the last for Search.
enum class BinSearch { Linear, LinearSearch, Search };
template <typename T>
int64_t binOf(T x, const std::vector<T> &edges, BinSearch how, DType dt) {
  auto r = [dt](T v) { return static_cast<T>(roundedTo(dt, v)); };
  int64_t bins = static_cast<int64_t>(edges.size()) - 1;
  T lo = edges.front(), hi = edges.back();
  if (x < lo || hi < x)
    return -1;
  int64_t pos;
  if (how == BinSearch::Search) {
    pos = std::upper_bound(edges.begin(), edges.end(), x) - edges.begin() - 1;
  } else if (std::isnan(x)) {
    pos = how == BinSearch::Linear ? 0 : 1;
  } else if (how == BinSearch::Linear) {
    pos = static_cast<int64_t>(r(r(r(x - lo) / r(hi - lo)) * T(bins)));
  } else {
    pos = static_cast<int64_t>(r(r(r(x - lo) * T(bins)) / r(hi - lo)));
    int64_t first = std::max<int64_t>(0, pos - 1), last = std::min(pos + 2, bins + 1);
    pos = std::upper_bound(edges.begin() + first, edges.begin() + last, x) - edges.begin() - 1;
  }
  return pos == bins ? bins - 1 : pos;
}

/// torch.histc: `bins` equal bins from min to max (equal: the data's
/// range, widened by 1 on each side when that is one value), counted in
/// the input's type.
FailureOr<RtValue> histcOf(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> bins = args.getInt("bins");
  FailureOr<double> min = args.getFloat("min"), max = args.getFloat("max");
  if (failed(in) || failed(bins) || failed(min) || failed(max))
    return failure();
  if (*bins <= 0)
    return args.emitError() << "torch.histogram(): bins must be > 0, but got " << *bins
                            << " for dimension 0";
  DType dt = in->dtype();
  if (dt != DType::F32 && dt != DType::F64 && dt != DType::BF16)
    return args.emitError() << "\"histogram_cpu\" not implemented for '" << dtypeName(dt) << "'";
  double lo = *min, hi = *max;
  if (lo == hi && in->numel() > 0) {
    lo = INFINITY;
    hi = -INFINITY;
    for (int64_t i = 0; i < in->numel(); ++i) {
      lo = minNaN(lo, in->getDouble(i));
      hi = maxNaN(hi, in->getDouble(i));
    }
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  if (!std::isfinite(lo) || !std::isfinite(hi))
    return args.emitError() << "torch.histc: range of [" << lo << ", " << hi
                            << "] is not finite";
  if (!(lo < hi))
    return args.emitError() << "torch.histc: max must be larger than min";
  Tensor out(dt, {*bins});
  dispatchStorage(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      std::vector<T> edges = linspaceOf(T(roundedTo(dt, lo)), T(roundedTo(dt, hi)), *bins + 1, dt),
                     hist(*bins, T(0));
      const T *p = in->template data<T>();
      for (int64_t i = 0; i < in->numel(); ++i)
        if (int64_t b = binOf(p[i], edges, BinSearch::Linear, dt); b >= 0)
          hist[b] = static_cast<T>(roundedTo(dt, hist[b] + 1));
      std::copy(hist.begin(), hist.end(), out.template data<T>());
    }
    return 0;
  });
  return RtValue(out);
}

/// torch.histogram: (hist, bin_edges); `bins` an int (equal bins over
/// `range`, else over the data's range, widened by 0.5 on each side when
/// that is one value; [0, 1] for no data) or a tensor of edges; each
/// element counts its `weight` (or 1); `density` divides by the total and
/// by each bin's width.
FailureOr<RtValue> histogramOf(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> density = args.getBool("density");
  if (failed(in) || failed(density))
    return failure();
  DType dt = in->dtype();
  // (bfloat16 has histogramdd's kernel, not the one finding the data's range.)
  bool dataRange = !args.get("bins").isTensor() && args.isNone("range");
  if (dt != DType::F32 && dt != DType::F64 && (dt != DType::BF16 || dataRange))
    return args.emitError() << "\"histogramdd\" not implemented for '" << dtypeName(dt) << "'";
  std::optional<Tensor> weight;
  if (!args.isNone("weight")) {
    FailureOr<Tensor> w = args.tensor("weight");
    if (failed(w))
      return failure();
    if (w->dtype() != dt || w->shape() != in->shape())
      return args.emitError() << "torch.histogramdd: if weight tensor is provided it should have "
                                 "the input tensor's shape and dtype";
    weight = *w;
  }
  const RtValue &binsArg = args.get("bins");
  std::optional<Tensor> given;
  int64_t bins = 0;
  double lo = 0, hi = 1;
  if (binsArg.isTensor()) {
    given = binsArg.tensor();
    if (given->rank() != 1 || given->dtype() != dt)
      return args.emitError() << "torch.histogramdd: the bins tensor must be 1-D of the input's dtype";
    bins = given->numel() - 1;
  } else {
    FailureOr<int64_t> n = args.getInt("bins");
    if (failed(n))
      return failure();
    bins = *n;
    if (!args.isNone("range")) {
      const RtValue &range = args.get("range");
      const RtValue::List *items = range.list();
      std::optional<double> a = items && items->items.size() == 2 ? items->items[0].number() : std::nullopt;
      std::optional<double> b = items && items->items.size() == 2 ? items->items[1].number() : std::nullopt;
      if (!a || !b)
        return args.emitError() << "histogram() expects range=(min, max)";
      lo = *a;
      hi = *b;
    } else if (in->numel() > 0) {
      lo = INFINITY;
      hi = -INFINITY;
      for (int64_t i = 0; i < in->numel(); ++i) {
        lo = minNaN(lo, in->getDouble(i));
        hi = maxNaN(hi, in->getDouble(i));
      }
    }
    if (!std::isfinite(lo) || !std::isfinite(hi))
      return args.emitError() << "torch.histogramdd: dimension 0's range [" << lo << ", " << hi
                              << "] is not finite";
    if (lo > hi)
      return args.emitError() << "torch.histogramdd: min should not exceed max, but got min "
                              << lo << " max " << hi << " for dimension 0";
    if (lo == hi) {
      lo -= 0.5;
      hi += 0.5;
    }
  }
  if (bins <= 0)
    return args.emitError() << "torch.histogram(): bins must be > 0, but got " << bins
                            << " for dimension 0";
  Tensor hist(dt, {bins}), edgesOut(dt, {bins + 1});
  dispatchStorage(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      std::vector<T> edges = given ? std::vector<T>(given->template data<T>(),
                                                    given->template data<T>() + bins + 1)
                                   : linspaceOf(T(roundedTo(dt, lo)), T(roundedTo(dt, hi)), bins + 1, dt);
      std::vector<T> h(bins, T(0));
      const T *p = in->template data<T>();
      BinSearch how = given ? BinSearch::Search : BinSearch::LinearSearch;
      for (int64_t i = 0; i < in->numel(); ++i)
        if (int64_t b = binOf(p[i], edges, how, dt); b >= 0)
          h[b] = static_cast<T>(roundedTo(dt, h[b] + (weight ? weight->template data<T>()[i] : T(1))));
      if (*density) {
        T total = 0;
        for (T v : h)
          total += v;
        total = static_cast<T>(roundedTo(dt, total));
        for (int64_t b = 0; b < bins; ++b)
          h[b] = static_cast<T>(roundedTo(dt, roundedTo(dt, h[b] / total) /
                                                  roundedTo(dt, edges[b + 1] - edges[b])));
      }
      std::copy(h.begin(), h.end(), hist.template data<T>());
      std::copy(edges.begin(), edges.end(), edgesOut.template data<T>());
    }
    return 0;
  });
  return RtValue::ofList({RtValue(hist), RtValue(edgesOut)}, /*isTuple=*/true);
}

/// torch.segment_reduce as torch 1.13's CPU kernel: for each segment (its
/// start and length from `lengths`, or from consecutive `offsets`) along
/// `axis`, the elements folded into `initial` (else the reduction's
/// identity: 0, 1, -inf or +inf) in order, NaN winning max and min; mean
/// divides the sum by the length (an empty segment's mean is NaN without
/// `initial`).
FailureOr<RtValue> segmentReduceOf(const KernelArgs &args) {
  FailureOr<Tensor> data = args.tensor("data");
  FailureOr<std::string> reduce = args.getStr("reduce");
  FailureOr<int64_t> axisArg = args.getInt("axis");
  FailureOr<bool> unsafe = args.getBool("unsafe");
  if (failed(data) || failed(reduce) || failed(axisArg) || failed(unsafe))
    return failure();
  int op = llvm::StringSwitch<int>(*reduce)
               .Case("sum", 0).Case("mean", 1).Case("max", 2).Case("min", 3).Case("prod", 4)
               .Default(-1);
  if (op < 0)
    return args.emitError() << "unsupported reduction given! " << *reduce;
  if (!args.isNone("indices"))
    return args.emitError() << "segment_reduce(): indices based reduction is not supported yet.";
  bool byLengths = !args.isNone("lengths");
  if (!byLengths && args.isNone("offsets"))
    return args.emitError() << "segment_reduce(): Either lengths or offsets must be defined.";
  FailureOr<Tensor> seg = args.tensor(byLengths ? "lengths" : "offsets");
  if (failed(seg))
    return failure();
  if (!isFloatingPoint(data->dtype()))
    return args.emitError() << "\"_segment_reduce_cpu\" not implemented for '"
                            << dtypeName(data->dtype()) << "'";
  FailureOr<int64_t> axis = normalizeDim(args, *axisArg, std::max<int64_t>(data->rank(), 1));
  if (failed(axis))
    return failure();
  if (*axis != seg->rank() - 1 || data->rank() < seg->rank())
    return args.emitError() << "segment_reduce(): Expected axis to be the last dimension of "
                            << (byLengths ? "lengths" : "offsets") << " but got " << *axisArg << ".";
  int64_t outer = 1, inner = 1, size = data->dim(*axis);
  for (int64_t i = 0; i < data->rank(); ++i) {
    if (i < *axis && seg->dim(i) != data->dim(i))
      return args.emitError() << "segment_reduce(): the segments differ from the data in dim " << i;
    if (i != *axis)
      (i < *axis ? outer : inner) *= data->dim(i);
  }
  int64_t count = byLengths ? seg->dim(*axis) : seg->dim(*axis) - 1;
  // Each segment's start and length.
  std::vector<int64_t> starts(outer * std::max<int64_t>(count, 0)), lengths(starts.size());
  for (int64_t o = 0; o < outer; ++o) {
    int64_t at = 0, total = 0;
    for (int64_t s = 0; s < count; ++s) {
      int64_t k = o * count + s, length;
      if (byLengths) {
        length = seg->getInt(o * count + s);
        starts[k] = at;
        at += length;
        total += length;
        if (!*unsafe && length < 0)
          return args.emitError() << "lengths contains negative value!";
      } else {
        starts[k] = seg->getInt(o * (count + 1) + s);
        length = seg->getInt(o * (count + 1) + s + 1) - starts[k];
      }
      if (length < 0)
        return args.emitError() << "Expected segment_length >= 0 to be true, but got false.";
      if (starts[k] < 0 || starts[k] + length > size)
        return args.emitError() << "segment_reduce(): a segment reaches beyond the data";
      lengths[k] = length;
    }
    if (byLengths && !*unsafe && total != size)
      return args.emitError() << "segment_reduce(): Expected all rows of lengths along axis to "
                                 "sum to data.size(lengths.dim()-1) when !unsafe.";
  }
  std::optional<double> initial;
  if (!args.isNone("initial")) {
    initial = args.get("initial").number();
    if (!initial)
      return args.emitError() << "segment_reduce(): 'initial' must be a number";
  }
  SmallVector<int64_t> shape(data->shape());
  shape[*axis] = count;
  Tensor out(data->dtype(), shape);
  dispatchStorage(data->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T *p = data->template data<T>();
      T *q = out.template data<T>();
      T identity = op == 2 ? -INFINITY : op == 3 ? INFINITY : op == 4 ? T(1) : T(0);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t s = 0; s < count; ++s)
          for (int64_t i = 0; i < inner; ++i) {
            int64_t k = o * count + s;
            T acc = initial ? static_cast<T>(*initial) : identity;
            for (int64_t j = 0; j < lengths[k]; ++j) {
              T v = p[(o * size + starts[k] + j) * inner + i];
              if (op == 2)
                acc = std::isnan(v) ? v : std::max(acc, v);
              else if (op == 3)
                acc = std::isnan(v) ? v : std::min(acc, v);
              else if (op == 4)
                acc = acc * v;
              else
                acc = acc + v;
            }
            if (op == 1 && lengths[k] == 0 && !initial)
              acc = NAN;
            else if (op == 1 && lengths[k] > 0 && !std::isnan(acc))
              acc = acc / T(lengths[k]);
            q[(o * count + s) * inner + i] = acc;
          }
    }
    return 0;
  });
  out.roundToDType();
  return RtValue(out);
}

/// var/std over `dim` with `correction` (unbiased: 1).
FailureOr<RtValue> moments(const KernelArgs &args, bool sqrtResult,
                           bool withMean) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(keepdim))
    return failure();
  if (!isFloatingPoint(in->dtype()))
    return args.emitError() << "std and var only support floating point "
                               "dtypes, got "
                            << dtypeName(in->dtype());
  double correction = 1;
  const RtValue &unbiased = args.get("unbiased");
  if (auto *b = std::get_if<bool>(&unbiased.v))
    correction = *b ? 1 : 0;
  if (auto *b = std::get_if<bool>(&args.get("dim").v))
    correction = *b ? 1 : 0;
  if (!args.isNone("correction")) {
    FailureOr<int64_t> c = args.getInt("correction");
    if (failed(c))
      return failure();
    correction = static_cast<double>(*c);
  }
  FailureOr<Reduction> r =
      prepareReduction(args, *in, "dim", *keepdim, /*allIfEmpty=*/true);
  if (failed(r))
    return failure();
  Tensor var(in->dtype(), r->outShape), mean(in->dtype(), r->outShape);
  for (int64_t o = 0; o < r->outer; ++o) {
    double sum = 0;
    for (int64_t i = 0; i < r->k; ++i)
      sum += r->moved.getDouble(o * r->k + i);
    double m = r->k ? sum / r->k : NAN, ss = 0;
    for (int64_t i = 0; i < r->k; ++i) {
      double d = r->moved.getDouble(o * r->k + i) - m;
      ss += d * d;
    }
    double v = ss / std::max(0.0, static_cast<double>(r->k) - correction);
    var.setDouble(o, sqrtResult ? std::sqrt(v) : v);
    mean.setDouble(o, m);
  }
  var.roundToDType();
  mean.roundToDType();
  if (withMean)
    return RtValue::ofList({RtValue(var), RtValue(mean)}, /*isTuple=*/true);
  return RtValue(var);
}
} // namespace

namespace mlir::traced::kernels {

FailureOr<RtValue> amax(const KernelArgs &args) {
  return extreme(args, true, true, false, "dim", /*allIfEmpty=*/true);
}
FailureOr<RtValue> amin(const KernelArgs &args) {
  return extreme(args, false, true, false, "dim", /*allIfEmpty=*/true);
}
FailureOr<RtValue> aminmax(const KernelArgs &args) {
  FailureOr<RtValue> lo = extreme(args, false, true, false, "dim", false);
  if (failed(lo))
    return failure();
  FailureOr<RtValue> hi = extreme(args, true, true, false, "dim", false);
  if (failed(hi))
    return failure();
  return RtValue::ofList({*lo, *hi}, /*isTuple=*/true);
}
FailureOr<RtValue> argmax(const KernelArgs &args) {
  return extreme(args, true, false, true, "dim", false);
}
FailureOr<RtValue> argmin(const KernelArgs &args) {
  return extreme(args, false, false, true, "dim", false);
}

/// torch.max/min: no dim gives the 0-d extreme; a dim gives (values,
/// indices); a tensor `dim` is the binary maximum (torch.max(a, b)).
static FailureOr<RtValue> maxOrMin(const KernelArgs &args, bool max) {
  if (args.get("dim").isTensor())
    return args.emitError() << "torch." << (max ? "max" : "min")
                            << "(input, other) is spelled torch."
                            << (max ? "maximum" : "minimum") << " here";
  if (args.isNone("dim"))
    return extreme(args, max, true, false, "dim", false);
  return extreme(args, max, true, true, "dim", false);
}
FailureOr<RtValue> max(const KernelArgs &args) { return maxOrMin(args, true); }
/// The p-norm of a - b over `m` elements `stride` apart: inf the largest
/// |a_k - b_k|, 0 the count of non-zeros (torch's min(ceil(|d|), 1): NaN
/// where a difference is).
static double pNormOfDifference(const double *a, const double *b, int64_t m,
                                int64_t stride, double p) {
  double acc = 0;
  for (int64_t k = 0; k < m; ++k) {
    double v = std::abs(a[k * stride] - b[k * stride]);
    if (p == INFINITY)
      acc = maxNaN(acc, v);
    else if (p == 0)
      acc += std::isnan(v) ? v : double(v != 0);
    else
      acc += p == 1 ? v : p == 2 ? v * v : std::pow(v, p);
  }
  if (p == INFINITY || p == 0 || p == 1)
    return acc;
  return p == 2 ? std::sqrt(acc) : std::pow(acc, 1 / p);
}

/// pdist and cdist's checks: float32/float64 operands, p >= 0.
static LogicalResult checkDistance(const KernelArgs &args, StringRef what,
                                   ArrayRef<const Tensor *> operands, double p) {
  for (const Tensor *t : operands)
    if (t->dtype() != DType::F32 && t->dtype() != DType::F64)
      return args.emitError() << what << " only supports float32 and float64, got "
                              << dtypeName(t->dtype());
  if (!(p >= 0))
    return args.emitError() << what << " only supports non-negative p values";
  return success();
}

/// pdist: the p-norm distances of the rows i < j of a matrix, in order.
FailureOr<RtValue> pdist(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<double> p = args.getFloat("p");
  if (failed(in) || failed(p))
    return failure();
  if (in->rank() != 2)
    return args.emitError() << "pdist only supports 2D tensors, got: " << in->rank() << "D";
  if (failed(checkDistance(args, "pdist", {&*in}, *p)))
    return failure();
  int64_t n = in->dim(0), m = in->dim(1);
  Tensor x = in->to(DType::F64), out(in->dtype(), {n * (n - 1) / 2});
  const double *px = x.data<double>();
  int64_t o = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      out.setDouble(o++, pNormOfDifference(px + i * m, px + j * m, m, 1, *p));
  return RtValue(out);
}

/// cdist: [B..., P, R] distances of the rows of x1 [B..., P, M] and x2
/// [B..., R, M]; for p = 2 where torch multiplies matrices (compute_mode,
/// or more than 25 rows on a side) as torch does: sqrt(max(|a|^2 + |b|^2 -
/// 2 a.b, 0)).
FailureOr<RtValue> cdist(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("x1"), b = args.tensor("x2");
  FailureOr<double> p = args.getFloat("p");
  FailureOr<std::string> mode = args.getStr("compute_mode");
  if (failed(a) || failed(b) || failed(p) || failed(mode))
    return failure();
  if (a->rank() < 2 || b->rank() < 2)
    return args.emitError() << "cdist only supports at least 2D tensors";
  if (failed(checkDistance(args, "cdist", {&*a, &*b}, *p)))
    return failure();
  if (a->dtype() != b->dtype())
    return args.emitError() << "expects x1 and x2 of one dtype";
  int64_t pr = a->dim(a->rank() - 2), r = b->dim(b->rank() - 2), m = a->dim(a->rank() - 1);
  if (b->dim(b->rank() - 1) != m)
    return args.emitError() << "X1 and X2 must have the same number of columns";
  if (*mode != "use_mm_for_euclid_dist_if_necessary" && *mode != "use_mm_for_euclid_dist" &&
      *mode != "donot_use_mm_for_euclid_dist")
    return args.emitError() << *mode << " is not a valid value for compute_mode";
  FailureOr<SmallVector<int64_t>> batch =
      broadcastShape(a->shape().drop_back(2), b->shape().drop_back(2));
  if (failed(batch))
    return args.emitError() << "the batch dims of x1 and x2 cannot be broadcast together";
  SmallVector<int64_t> sa(*batch), sb(*batch), outShape(*batch);
  sa.append({pr, m});
  sb.append({r, m});
  outShape.append({pr, r});
  Tensor x = broadcastTo(a->to(DType::F64), sa), y = broadcastTo(b->to(DType::F64), sb);
  bool mm = *p == 2 && (*mode == "use_mm_for_euclid_dist" ||
                        (*mode == "use_mm_for_euclid_dist_if_necessary" && (pr > 25 || r > 25)));
  Tensor out(a->dtype(), outShape);
  int64_t batches = 1;
  for (int64_t d : *batch)
    batches *= d;
  for (int64_t bi = 0; bi < batches; ++bi)
    for (int64_t i = 0; i < pr; ++i)
      for (int64_t j = 0; j < r; ++j) {
        const double *u = x.data<double>() + (bi * pr + i) * m,
                     *v = y.data<double>() + (bi * r + j) * m;
        double d;
        if (mm) {
          double uu = 0, vv = 0, uv = 0;
          for (int64_t k = 0; k < m; ++k) {
            uu += u[k] * u[k];
            vv += v[k] * v[k];
            uv += u[k] * v[k];
          }
          d = std::sqrt(std::max(-2 * uv + uu + vv, 0.0));
        } else {
          d = pNormOfDifference(u, v, m, 1, *p);
        }
        out.setDouble((bi * pr + i) * r + j, d);
      }
  return RtValue(out);
}

FailureOr<RtValue> median(const KernelArgs &args) { return medianOf(args, false); }
FailureOr<RtValue> nanmedian(const KernelArgs &args) { return medianOf(args, true); }
FailureOr<RtValue> quantile(const KernelArgs &args) { return quantileOf(args, false); }
FailureOr<RtValue> nanquantile(const KernelArgs &args) { return quantileOf(args, true); }
FailureOr<RtValue> mode(const KernelArgs &args) { return modeOf(args); }
FailureOr<RtValue> segmentReduce(const KernelArgs &args) { return segmentReduceOf(args); }
FailureOr<RtValue> histc(const KernelArgs &args) { return histcOf(args); }
FailureOr<RtValue> histogram(const KernelArgs &args) { return histogramOf(args); }

/// cummax/cummin along `dim` as torch's CPU kernel scans: an element at
/// least as large (small) as the running extreme, or NaN, takes its place
/// (so ties and NaN take the later index), and a NaN extreme stays.
static FailureOr<RtValue> cumulativeExtreme(const KernelArgs &args, bool max) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(d))
    return failure();
  FailureOr<DimSplit> split = splitAtDim(args, *in, *d);
  if (failed(split))
    return failure();
  Tensor values(in->dtype(), in->shape()), indices(DType::I64, in->shape());
  int64_t size = split->size, inner = split->inner;
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = in->template data<T>();
    T *pv = values.template data<T>();
    int64_t *pi = indices.data<int64_t>();
    for (int64_t o = 0; o < split->outer; ++o)
      for (int64_t c = 0; c < inner; ++c) {
        int64_t base = o * size * inner + c, idx = 0;
        T best = size ? p[base] : T();
        for (int64_t j = 0; j < size; ++j) {
          T v = p[base + j * inner];
          if (v != v || (best == best && (max ? v >= best : v <= best))) {
            best = v;
            idx = j;
          }
          pv[base + j * inner] = best;
          pi[base + j * inner] = idx;
        }
      }
    return 0;
  });
  return RtValue::ofList({RtValue(values), RtValue(indices)}, /*isTuple=*/true);
}
FailureOr<RtValue> cummax(const KernelArgs &args) { return cumulativeExtreme(args, true); }
FailureOr<RtValue> cummin(const KernelArgs &args) { return cumulativeExtreme(args, false); }

FailureOr<RtValue> min(const KernelArgs &args) { return maxOrMin(args, false); }

static FailureOr<RtValue> allOrAny(const KernelArgs &args, bool all) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(keepdim))
    return failure();
  FailureOr<Reduction> r = prepareReduction(args, *in, "dim", *keepdim);
  if (failed(r))
    return failure();
  // uint8 stays uint8, as in torch; everything else gives bool.
  Tensor out(in->dtype() == DType::U8 ? DType::U8 : DType::Bool, r->outShape);
  for (int64_t o = 0; o < r->outer; ++o) {
    bool acc = all;
    for (int64_t i = 0; i < r->k; ++i) {
      bool v = r->moved.getDouble(o * r->k + i) != 0;
      acc = all ? (acc && v) : (acc || v);
    }
    out.setDouble(o, acc);
  }
  return RtValue(out);
}
FailureOr<RtValue> all(const KernelArgs &args) { return allOrAny(args, true); }
FailureOr<RtValue> any(const KernelArgs &args) { return allOrAny(args, false); }

/// The `dtype` prod, cumsum and cumprod compute in: by default the input's,
/// int64 for integers and bools.
static FailureOr<DType> accumulationDType(const KernelArgs &args,
                                          const Tensor &in) {
  return args.getDType("dtype",
                       isIntegral(in.dtype()) ? DType::I64 : in.dtype());
}

FailureOr<RtValue> prod(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(keepdim))
    return failure();
  FailureOr<DType> d = accumulationDType(args, *in);
  if (failed(d))
    return failure();
  DType dtype = *d;
  FailureOr<Reduction> r =
      prepareReduction(args, in->to(dtype), "dim", *keepdim);
  if (failed(r))
    return failure();
  Tensor out(dtype, r->outShape);
  dispatchStorage(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *p = r->moved.template data<T>();
    T *o = out.template data<T>();
    for (int64_t i = 0; i < r->outer; ++i) {
      if constexpr (std::is_integral_v<T>) {
        uint64_t acc = 1;
        for (int64_t j = 0; j < r->k; ++j)
          acc *= static_cast<uint64_t>(p[i * r->k + j]);
        o[i] = static_cast<T>(acc);
      } else {
        double acc = 1;
        for (int64_t j = 0; j < r->k; ++j)
          acc *= p[i * r->k + j];
        o[i] = static_cast<T>(acc);
      }
    }
    return 0;
  });
  out.roundToDType();
  return RtValue(out);
}

/// prims.prod: torch.prod's kernel over each dim, sorted largest first
/// (the rule says why).
static FailureOr<RtValue> primsProd(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("inp");
  FailureOr<SmallVector<int64_t>> dims = args.getInts("dims");
  if (failed(in) || failed(dims))
    return failure();
  const OpSpec *spec = OpLibrary::get().lookupFunction("torch.prod");
  SmallVector<int64_t> order(*dims);
  llvm::sort(order, std::greater<int64_t>());
  RtValue current(*in);
  for (int64_t d : order) {
    KernelArgs step(spec->signature,
                    {current, RtValue::ofInt(d), RtValue::ofBool(false),
                     args.get("output_dtype")},
                    [&]() { return args.emitError(); });
    FailureOr<RtValue> next = prod(step);
    if (failed(next))
      return failure();
    current = *next;
  }
  return current;
}

FailureOr<RtValue> var(const KernelArgs &args) {
  return moments(args, false, false);
}

/// renorm: each slice along `dim` whose p-norm exceeds maxnorm, scaled to
/// maxnorm (torch's factor maxnorm / (norm + 1e-7)).
FailureOr<RtValue> renorm(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<double> p = args.getFloat("p"), maxnorm = args.getFloat("maxnorm");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(p) || failed(maxnorm) || failed(d))
    return failure();
  if (!isFloatingPoint(in->dtype()))
    return args.emitError() << "expects a floating-point input, got "
                            << dtypeName(in->dtype());
  if (*p <= 0 || *maxnorm < 0)
    return args.emitError() << "p must be positive and maxnorm non-negative";
  FailureOr<kernels::DimSplit> split = kernels::splitAtDim(args, *in, *d);
  if (failed(split))
    return failure();
  int64_t outer = split->outer, size = split->size, inner = split->inner;
  Tensor out(in->dtype(), in->shape());
  for (int64_t j = 0; j < size; ++j) {
    double acc = 0, maxAbs = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        double v = std::abs(in->getDouble((o * size + j) * inner + i));
        maxAbs = std::max(maxAbs, v);
        acc += std::isinf(*p) ? 0 : std::pow(v, *p);
      }
    double norm = std::isinf(*p) ? maxAbs : std::pow(acc, 1 / *p);
    double scale = norm > *maxnorm ? *maxnorm / (norm + 1e-7) : 1.0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t at = (o * size + j) * inner + i;
        out.setDouble(at, in->getDouble(at) * scale);
      }
  }
  out.roundToDType();
  return RtValue(out);
}

/// count_nonzero: int64 counts of the elements that are not zero (NaN
/// counts) over `dim`, every dim when None.
FailureOr<RtValue> countNonzero(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  FailureOr<Reduction> r = prepareReduction(args, *in, "dim", /*keepdim=*/false,
                                            /*allIfEmpty=*/true);
  if (failed(r))
    return failure();
  Tensor out(DType::I64, r->outShape);
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = r->moved.template data<T>();
    for (int64_t i = 0; i < r->outer; ++i) {
      int64_t n = 0;
      for (int64_t j = 0; j < r->k; ++j)
        n += p[i * r->k + j] != T(0);
      out.data<int64_t>()[i] = n;
    }
    return 0;
  });
  return RtValue(out);
}
FailureOr<RtValue> std(const KernelArgs &args) {
  return moments(args, true, false);
}
FailureOr<RtValue> varMean(const KernelArgs &args) {
  return moments(args, false, true);
}
FailureOr<RtValue> stdMean(const KernelArgs &args) {
  return moments(args, true, true);
}

FailureOr<RtValue> logsumexp(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(keepdim))
    return failure();
  DType dtype = toFloatingDType(in->dtype());
  FailureOr<Reduction> r = prepareReduction(args, in->to(dtype), "dim", *keepdim);
  if (failed(r))
    return failure();
  Tensor out(dtype, r->outShape);
  for (int64_t o = 0; o < r->outer; ++o) {
    // torch: the NaN-propagating amax, replaced by 0 where it is infinite
    // (so [inf, -inf] gives inf and an all -inf or empty slice -inf).
    double m = -INFINITY;
    for (int64_t i = 0; i < r->k; ++i) {
      m = maxNaN(m, r->moved.getDouble(o * r->k + i));
    }
    if (std::isinf(m))
      m = 0;
    // torch computes it as separate ops, each rounded to the dtype:
    // exp(x - m), their sum, its log, plus m. In float16 and bfloat16 those
    // roundings decide the last bit, so the kernel rounds where torch does.
    Tensor terms(dtype, {r->k});
    for (int64_t i = 0; i < r->k; ++i)
      terms.setDouble(i, r->moved.getDouble(o * r->k + i) - m);
    terms.roundToDType();
    for (int64_t i = 0; i < r->k; ++i)
      terms.setDouble(i, std::exp(terms.getDouble(i)));
    terms.roundToDType();
    double s = 0;
    for (int64_t i = 0; i < r->k; ++i)
      s += terms.getDouble(i);
    out.setDouble(o, roundedTo(dtype, std::log(roundedTo(dtype, s))) + m);
  }
  out.roundToDType();
  return RtValue(out);
}

/// cumsum/cumprod along `dim`: bools and integers accumulate in int64.
static FailureOr<RtValue> scan(const KernelArgs &args, bool product) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(d))
    return failure();
  FailureOr<DType> t = accumulationDType(args, *in);
  if (failed(t))
    return failure();
  DType dtype = *t;
  FailureOr<kernels::DimSplit> split = kernels::splitAtDim(args, *in, *d);
  if (failed(split))
    return failure();
  int64_t outer = split->outer, size = split->size, inner = split->inner;
  Tensor x = in->to(dtype);
  Tensor out(dtype, x.shape());
  dispatchStorage(dtype, [&](auto tag) {
    using T = decltype(tag);
    using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;
    const T *p = x.template data<T>();
    T *o = out.template data<T>();
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t c = 0; c < inner; ++c) {
        Acc acc = product ? 1 : 0;
        for (int64_t b = 0; b < size; ++b) {
          int64_t i = (a * size + b) * inner + c;
          Acc v = static_cast<Acc>(p[i]);
          acc = product ? acc * v : acc + v;
          o[i] = static_cast<T>(acc);
          if constexpr (std::is_floating_point_v<T>)
            if (dtype == DType::F16 || dtype == DType::BF16) {
              // Each partial result is rounded to the dtype, as torch's is.
              Tensor one(dtype, {});
              one.setDouble(0, static_cast<double>(o[i]));
              one.roundToDType();
              o[i] = static_cast<T>(one.getDouble(0));
              acc = static_cast<Acc>(o[i]);
            }
        }
      }
    return 0;
  });
  out.roundToDType();
  return RtValue(out);
}
FailureOr<RtValue> cumsum(const KernelArgs &args) { return scan(args, false); }

/// logcumsumexp: log(cumsum(exp(x))) along `dim`, computed stably in
/// double (each step as torch's log-add-exp).
FailureOr<RtValue> logcumsumexp(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(d))
    return failure();
  if (!isFloatingPoint(in->dtype()))
    return args.emitError() << "logcumsumexp takes floating-point tensors, got "
                            << dtypeName(in->dtype());
  FailureOr<kernels::DimSplit> split = kernels::splitAtDim(args, *in, *d);
  if (failed(split))
    return failure();
  int64_t outer = split->outer, size = split->size, inner = split->inner;
  Tensor out(in->dtype(), in->shape());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double acc = -INFINITY;
      for (int64_t j = 0; j < size; ++j) {
        int64_t at = (o * size + j) * inner + i;
        double x = in->getDouble(at);
        double hi = std::max(acc, x), lo = std::min(acc, x);
        if (std::isnan(x) || std::isnan(acc))
          acc = NAN;
        else if (hi == -INFINITY || (std::isinf(hi) && hi == lo))
          acc = hi; // (-inf with -inf, or an infinity with itself)
        else
          acc = hi + std::log1p(std::exp(lo - hi));
        out.setDouble(at, acc);
      }
    }
  out.roundToDType();
  return RtValue(out);
}
FailureOr<RtValue> cumprod(const KernelArgs &args) { return scan(args, true); }

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

namespace {
/// sum(|x|^p)^(1/p) over the reduced dims of `r`, with p = inf, -inf and
/// 0 (the count of nonzeros) as torch defines them.
std::vector<double> vectorNorms(const Reduction &r, double p) {
  std::vector<double> out(r.outer);
  Tensor x = r.moved.to(DType::F64);
  const double *v = x.data<double>();
  for (int64_t o = 0; o < r.outer; ++o) {
    const double *run = v + o * r.k;
    double acc = std::isinf(p) ? (p > 0 ? 0.0 : INFINITY) : 0.0;
    bool nan = false;
    for (int64_t i = 0; i < r.k; ++i) {
      double a = std::abs(run[i]);
      nan |= std::isnan(a);
      if (p == INFINITY)
        acc = std::max(acc, a);
      else if (p == -INFINITY)
        acc = std::min(acc, a);
      else if (p == 0)
        acc += a != 0;
      else if (p == 1)
        acc += a;
      else if (p == 2)
        acc += a * a;
      else
        acc += std::pow(a, p);
    }
    if (nan)
      acc = NAN;
    else if (!std::isinf(p) && p != 0 && p != 1)
      acc = p == 2 ? std::sqrt(acc) : std::pow(acc, 1.0 / p);
    out[o] = acc;
  }
  return out;
}

/// The dtype a norm computes in: dtype= when given, else the input's;
/// floating point only, as torch requires.
FailureOr<DType> normDType(const KernelArgs &args, const Tensor &x) {
  FailureOr<DType> d = args.getDType("dtype", x.dtype());
  if (failed(d))
    return failure();
  if (!isFloatingPoint(x.dtype()) || !isFloatingPoint(*d))
    return args.emitError() << "expected a floating point tensor as input, "
                               "got "
                            << dtypeName(x.dtype());
  return d;
}

/// The order of a norm: a number, or "fro" (2), inf as a float.
FailureOr<double> normOrder(const KernelArgs &args, StringRef name,
                            double fallback) {
  if (args.isNone(name))
    return fallback;
  const RtValue &v = args.get(name);
  if (auto *str = std::get_if<std::string>(&v.v)) {
    if (*str == "fro")
      return 2.0;
    return args.emitError() << "norm order \"" << *str
                            << "\" is not supported (numbers and \"fro\")";
  }
  std::optional<double> d = v.number();
  if (!d)
    return args.emitError() << "the norm order must be a number";
  return *d;
}

FailureOr<RtValue> vectorNormOver(const KernelArgs &args, StringRef dimName,
                                  double p) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(keepdim))
    return failure();
  FailureOr<DType> dtype = normDType(args, *in);
  if (failed(dtype))
    return failure();
  FailureOr<Reduction> r = prepareReduction(args, in->to(*dtype), dimName,
                                            *keepdim);
  if (failed(r))
    return failure();
  if (r->k == 0 && p < 0)
    return args.emitError() << "the norm of an empty tensor with a negative "
                               "order is undefined";
  std::vector<double> v = vectorNorms(*r, p);
  Tensor out(*dtype, r->outShape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setDouble(i, v[i]);
  out.roundToDType();
  return RtValue(out);
}

/// The matrix norms of the singular values over dims (a, b), torch
/// 1.13's linalg_matrix_norm: the input in `dtype` with those dims moved
/// last, then `reduce` (torch.sum: "nuc"; torch.amax, torch.amin: 2, -2)
/// of each matrix's singular values (linalg.svdvals).
FailureOr<RtValue> spectralNorm(const KernelArgs &args, const Tensor &in,
                                DType dtype, int64_t a, int64_t b,
                                bool keepdim, StringRef reduce) {
  SmallVector<int64_t> perm, kept(in.shape());
  for (int64_t d = 0; d < in.rank(); ++d)
    if (d != a && d != b)
      perm.push_back(d);
  perm.append({a, b});
  kept[a] = kept[b] = 1;
  FailureOr<Tensor> moved =
      kernels::callTensor(args, "torch.permute",
                          {{"input", RtValue(in.to(dtype))},
                           {"dims", kernels::intsValue(perm)}});
  if (failed(moved))
    return failure();
  FailureOr<Tensor> s = kernels::callTensor(args, "torch.linalg.svdvals",
                                            {{"A", RtValue(*moved)}});
  if (failed(s))
    return failure();
  FailureOr<Tensor> sum = kernels::callTensor(
      args, reduce,
      {{"input", RtValue(*s)}, {"dim", kernels::intsValue({-1})}});
  if (failed(sum))
    return failure();
  return RtValue(keepdim ? sum->reshaped(kept) : *sum);
}
/// A matrix norm over dims (d0, d1): "fro", 1/-1 (max/min column sum),
/// inf/-inf (max/min row sum), and of the singular values 2/-2 (max/min)
/// and the nuclear norm (`nuc`: their sum).
FailureOr<RtValue> matrixNormOver(const KernelArgs &args, const Tensor &in,
                                  double ord, bool fro, int64_t d0, int64_t d1,
                                  bool keepdim, bool nuc = false) {
  FailureOr<DType> dtype = normDType(args, in);
  if (failed(dtype))
    return failure();
  if (in.rank() < 2)
    return args.emitError() << "a matrix norm needs a tensor of rank >= 2";
  FailureOr<int64_t> a = normalizeDim(args, d0, in.rank()),
                     b = normalizeDim(args, d1, in.rank());
  if (failed(a) || failed(b))
    return failure();
  if (*a == *b)
    return args.emitError() << "the two dims of a matrix norm must differ";
  if (nuc || (!fro && std::abs(ord) == 2))
    return spectralNorm(args, in, *dtype, *a, *b, keepdim,
                        nuc       ? "torch.sum"
                        : ord > 0 ? "torch.amax"
                                  : "torch.amin");
  if (!fro && std::abs(ord) != 1 && !std::isinf(ord))
    return args.emitError() << "matrix norm order " << ord
                            << " is not supported (\"fro\", 1, -1, inf, "
                               "-inf, 2, -2 and \"nuc\")";
  // Move (a, b) last, then reduce each matrix.
  SmallVector<int64_t> perm, outShape;
  for (int64_t d = 0; d < in.rank(); ++d)
    if (d != *a && d != *b) {
      perm.push_back(d);
      outShape.push_back(in.dim(d));
    }
  perm.push_back(*a);
  perm.push_back(*b);
  Tensor f = in.to(DType::F64);
  SmallVector<int64_t> fs = f.strides(), shape, strides;
  for (int64_t d : perm) {
    shape.push_back(f.dim(d));
    strides.push_back(fs[d]);
  }
  Tensor x = gatherStrided(f, shape, 0, strides);
  int64_t m = in.dim(*a), n = in.dim(*b);
  Tensor out(*dtype, outShape);
  int64_t count = out.numel();
  const double *v = x.data<double>();
  for (int64_t c = 0; c < count; ++c) {
    const double *mat = v + c * m * n;
    double result;
    if (fro) {
      double s = 0;
      for (int64_t i = 0; i < m * n; ++i)
        s += mat[i] * mat[i];
      result = std::sqrt(s);
    } else {
      bool columns = std::abs(ord) == 1; // sums down each column
      bool max = ord > 0;
      result = max ? 0.0 : INFINITY;
      int64_t outerN = columns ? n : m, innerN = columns ? m : n;
      for (int64_t o = 0; o < outerN; ++o) {
        double s = 0;
        for (int64_t i = 0; i < innerN; ++i)
          s += std::abs(columns ? mat[i * n + o] : mat[o * n + i]);
        result = max ? maxNaN(result, s) : minNaN(result, s);
      }
    }
    out.setDouble(c, result);
  }
  out.roundToDType();
  if (keepdim) {
    SmallVector<int64_t> kept(in.shape());
    kept[*a] = 1;
    kept[*b] = 1;
    return RtValue(out.reshaped(kept));
  }
  return RtValue(out);
}
} // namespace

namespace mlir::traced::kernels {

FailureOr<RtValue> vectorNorm(const KernelArgs &args) {
  FailureOr<double> p = normOrder(args, "ord", 2.0);
  if (failed(p))
    return failure();
  return vectorNormOver(args, "dim", *p);
}

/// torch.norm / Tensor.norm: a vector norm over `dim` (all dims when
/// None); "fro" is the 2-norm.
FailureOr<RtValue> norm(const KernelArgs &args) {
  const RtValue &ord = args.get("p");
  if (auto *str = std::get_if<std::string>(&ord.v); str && *str == "nuc") {
    FailureOr<Tensor> in = args.tensor("input");
    FailureOr<bool> keepdim = args.getBool("keepdim");
    if (failed(in) || failed(keepdim))
      return failure();
    if (!args.isNone("dtype"))
      return args.emitError() << "dtype argument is not supported in nuclear "
                                 "norm";
    SmallVector<int64_t> dims = {0, 1};
    if (args.isNone("dim") && in->rank() != 2)
      return args.emitError() << "Expected a tensor with 2 dimensions, but "
                                 "got a tensor with "
                              << in->rank() << " dimensions instead.";
    if (!args.isNone("dim")) {
      FailureOr<SmallVector<int64_t>> d = args.getInts("dim", 1);
      if (failed(d))
        return failure();
      if (d->size() != 2)
        return args.emitError() << "the nuclear norm takes dim of 2 dims";
      dims = *d;
    }
    return matrixNormOver(args, *in, 0, false, dims[0], dims[1], *keepdim,
                          /*nuc=*/true);
  }
  FailureOr<double> p = normOrder(args, "p", 2.0);
  if (failed(p))
    return failure();
  return vectorNormOver(args, "dim", *p);
}

FailureOr<RtValue> matrixNorm(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  FailureOr<SmallVector<int64_t>> dims = args.getInts("dim");
  if (failed(in) || failed(keepdim) || failed(dims))
    return failure();
  if (dims->size() != 2)
    return args.emitError() << "dim must be a pair of dims";
  const RtValue &ord = args.get("ord");
  bool fro = false;
  double p = 0;
  if (auto *str = std::get_if<std::string>(&ord.v)) {
    if (*str == "nuc")
      return matrixNormOver(args, *in, 0, false, (*dims)[0], (*dims)[1],
                            *keepdim, /*nuc=*/true);
    if (*str != "fro")
      return args.emitError() << "matrix norm order \"" << *str
                              << "\" is not supported";
    fro = true;
  } else if (std::optional<double> d = ord.number()) {
    p = *d;
  } else {
    return args.emitError() << "the norm order must be a number or \"fro\"";
  }
  return matrixNormOver(args, *in, p, fro, (*dims)[0], (*dims)[1], *keepdim);
}

/// torch.linalg.norm: ord None is the 2-norm of the flattened input (or
/// of `dim`); a numeric order is a vector norm over one dim (or a 1-D
/// input) and a matrix norm over two (or a 2-D input).
FailureOr<RtValue> linalgNorm(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(keepdim))
    return failure();
  SmallVector<int64_t> dims;
  if (!args.isNone("dim")) {
    FailureOr<SmallVector<int64_t>> d = args.getInts("dim", 1);
    if (failed(d))
      return failure();
    dims = *d;
  }
  const RtValue &ord = args.get("ord");
  if (ord.isNone())
    return vectorNormOver(args, "dim", 2.0);
  bool matrix = dims.size() == 2 || (dims.empty() && in->rank() == 2);
  auto *str = std::get_if<std::string>(&ord.v);
  bool fro = str && *str == "fro";
  if (str && *str == "nuc") {
    if (dims.empty() && in->rank() != 2)
      return args.emitError() << "linalg.norm: If dim is not specified but "
                                 "ord is, the input must be 1D or 2D. Got "
                              << in->rank() << "D.";
    if (dims.empty())
      dims = {0, 1};
    if (dims.size() != 2)
      return args.emitError() << "order \"nuc\" takes a matrix";
    return matrixNormOver(args, *in, 0, false, dims[0], dims[1], *keepdim,
                          /*nuc=*/true);
  }
  if (str && !fro)
    return args.emitError() << "norm order \"" << *str
                            << "\" is not supported";
  if (!matrix) {
    if (fro)
      return args.emitError() << "order \"fro\" takes a matrix";
    if (dims.empty() && in->rank() != 1)
      return args.emitError() << "a numeric order without dim takes a 1-D or "
                                 "2-D input";
    std::optional<double> p = ord.number();
    if (!p)
      return args.emitError() << "the norm order must be a number";
    return vectorNormOver(args, "dim", *p);
  }
  if (dims.empty())
    dims = {0, 1};
  return matrixNormOver(args, *in, fro ? 0 : ord.number().value_or(0), fro,
                        dims[0], dims[1], *keepdim);
}

/// F.cosine_similarity(x1, x2, dim, eps) as torch 1.13 computes it: both in
/// torch.result_type(x1, x2) (a 0-d one gives way), expanded to one shape,
/// each divided by its norm with the squared norm clamped below at eps^2,
/// then the sum of their products: sum(x1 / n1 * x2 / n2).
/// x1 and x2 of a distance (`what`) in float64, broadcast together, when
/// `dtype`, their result's, is floating-point; failure (reported) otherwise.
static FailureOr<kernels::BroadcastPair>
distanceOperands(const KernelArgs &args, const Tensor &a, const Tensor &b,
                 DType dtype, StringRef what) {
  if (!isFloatingPoint(dtype))
    return args.emitError() << what << " expects floating-point inputs";
  return kernels::broadcastInF64(args, a, b, "x1", "x2");
}

FailureOr<RtValue> cosineSimilarity(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("x1"), b = args.tensor("x2");
  FailureOr<int64_t> d = args.getInt("dim");
  FailureOr<double> eps = args.getFloat("eps");
  if (failed(a) || failed(b) || failed(d) || failed(eps))
    return failure();
  auto priority = [](const Tensor &t) {
    return t.rank() ? PromotionPriority::Tensor : PromotionPriority::ZeroDim;
  };
  DType dtype = resultType({{a->dtype(), priority(*a)}, {b->dtype(), priority(*b)}});
  FailureOr<kernels::BroadcastPair> pair =
      distanceOperands(args, *a, *b, dtype, "cosine_similarity");
  if (failed(pair))
    return failure();
  ArrayRef<int64_t> shape = pair->shape;
  int64_t rank = shape.size();
  FailureOr<int64_t> n = normalizeDim(args, *d, std::max<int64_t>(rank, 1));
  if (failed(n))
    return failure();
  const Tensor &x = pair->a, &y = pair->b;
  int64_t k = rank ? shape[*n] : 1;
  int64_t outer, inner;
  std::tie(outer, inner) = kernels::outerInner(shape, *n);
  SmallVector<int64_t> outShape(shape);
  if (rank)
    outShape.erase(outShape.begin() + *n);
  Tensor out(dtype, outShape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double xx = 0, yy = 0;
      for (int64_t j = 0; j < k; ++j) {
        int64_t at = (o * k + j) * inner + i;
        double p = x.data<double>()[at], q = y.data<double>()[at];
        xx += p * p;
        yy += q * q;
      }
      double nx = std::sqrt(std::max(xx, *eps * *eps)),
             ny = std::sqrt(std::max(yy, *eps * *eps)), dot = 0;
      for (int64_t j = 0; j < k; ++j) {
        int64_t at = (o * k + j) * inner + i;
        dot += x.data<double>()[at] / nx * (y.data<double>()[at] / ny);
      }
      out.setDouble(o * inner + i, dot);
    }
  out.roundToDType();
  return RtValue(out);
}

/// F.pairwise_distance(x1, x2, p, eps, keepdim): the p-norm of x1 - x2 + eps
/// over the last dim.
FailureOr<RtValue> pairwiseDistance(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("x1"), b = args.tensor("x2");
  FailureOr<double> p = args.getFloat("p"), eps = args.getFloat("eps");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(a) || failed(b) || failed(p) || failed(eps) || failed(keepdim))
    return failure();
  // torch 1.13 computes x1 - x2 + eps: torch.result_type of the two (a
  // 0-d one gives way; a bool cannot be subtracted), then floating
  // (an integer difference plus the float eps is the default float).
  auto priority = [](const Tensor &t) {
    return t.rank() ? PromotionPriority::Tensor : PromotionPriority::ZeroDim;
  };
  if (a->dtype() == DType::Bool || b->dtype() == DType::Bool)
    return args.emitError() << "Subtraction, the `-` operator, with a bool "
                               "tensor is not supported";
  // (An integer difference wraps in its dtype: uint8 2 - 3 is 255.)
  DType sub = resultType({{a->dtype(), priority(*a)}, {b->dtype(), priority(*b)}});
  DType dtype = toFloatingDType(sub);
  FailureOr<kernels::BroadcastPair> pair =
      distanceOperands(args, *a, *b, dtype, "pairwise_distance");
  if (failed(pair))
    return failure();
  ArrayRef<int64_t> shape = pair->shape;
  const Tensor &x = pair->a, &y = pair->b;
  int64_t rank = shape.size();
  int64_t k = rank ? shape.back() : 1;
  int64_t outer = k ? x.numel() / k : 0;
  SmallVector<int64_t> outShape(shape);
  if (rank) {
    if (*keepdim)
      outShape.back() = 1;
    else
      outShape.pop_back();
  }
  Tensor out(dtype, outShape);
  for (int64_t o = 0; o < out.numel(); ++o) {
    double acc = *p == INFINITY ? 0.0 : (*p == -INFINITY ? INFINITY : 0.0);
    for (int64_t j = 0; j < k && o < outer; ++j) {
      double v = std::abs(roundedTo(
          dtype,
          roundedTo(dtype, roundedTo(sub, x.data<double>()[o * k + j] -
                                              y.data<double>()[o * k + j])) +
              *eps));
      if (*p == INFINITY)
        acc = maxNaN(acc, v);
      else if (*p == -INFINITY)
        acc = minNaN(acc, v);
      else if (*p == 0)
        acc += v != 0;
      else
        acc += std::pow(v, *p);
    }
    if (!std::isinf(*p) && *p != 0)
      acc = std::pow(acc, 1.0 / *p);
    out.setDouble(o, acc);
  }
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> softmax(const KernelArgs &args) {
  return softmaxImpl(args, /*logarithm=*/false);
}

FailureOr<RtValue> logSoftmax(const KernelArgs &args) {
  return softmaxImpl(args, /*logarithm=*/true);
}

FailureOr<RtValue> softmin(const KernelArgs &args) {
  return softmaxImpl(args, /*logarithm=*/false, /*negate=*/true);
}

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// The trapezoid rule and Vandermonde matrices, as torch composes them
// (callEntry)
//===----------------------------------------------------------------------===//

namespace mlir::traced::kernels {

/// trapezoid (cumulative: cumulative_trapezoid) in torch's steps: with
/// sample points x, dx = x[1:] - x[:-1] along dim (a vector x viewed
/// along dim, a lower-rank one padded with leading ones), then
/// sum(dx * (y[1:] + y[:-1])) / 2 or cumsum((y[:-1] + y[1:]) * dx) / 2;
/// with a spacing dx, (sum(y) - (y[0] + y[-1]) * 0.5) * dx or
/// cumsum(dx / 2 * (y[:-1] + y[1:])). Trapezoid over no samples is zeros
/// of y's dtype.
static FailureOr<RtValue> trapezoidRule(const KernelArgs &args, bool cumulative) {
  FailureOr<Tensor> y = args.tensor("y");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(y) || failed(d))
    return failure();
  if (y->rank() == 0)
    return args.emitError() << "Dimension specified as " << *d
                            << " but tensor has no dimensions";
  FailureOr<int64_t> dim = normalizeDim(args, *d, y->rank());
  if (failed(dim))
    return failure();
  int64_t len = y->dim(*dim);
  if (!cumulative && len == 0) {
    SmallVector<int64_t> shape(y->shape());
    shape.erase(shape.begin() + *dim);
    return RtValue(Tensor(y->dtype(), shape));
  }
  if (y->dtype() == DType::Bool)
    return args.emitError() << "received a bool input for `y`, but bool is "
                               "not supported";
  auto slice = [&](const Tensor &t, int64_t start, std::optional<int64_t> end) {
    return callTensor(args, "torch.ops.aten.slice.Tensor",
                      {{"input", RtValue(t)}, {"dim", RtValue::ofInt(*dim)},
                       {"start", RtValue::ofInt(start)},
                       {"end", end ? RtValue::ofInt(*end) : RtValue()}});
  };
  auto binaryOf = [&](StringRef entry, RtValue a, RtValue b) {
    return callTensor(args, entry, {{"input", a}, {"other", b}});
  };
  FailureOr<Tensor> left = slice(*y, 0, -1), right = slice(*y, 1, std::nullopt);
  if (failed(left) || failed(right))
    return failure();
  FailureOr<Tensor> pairs = binaryOf("torch.add", RtValue(*left), RtValue(*right));
  if (failed(pairs))
    return failure();
  FailureOr<Tensor> r = failure();
  if (!args.isNone("x")) {
    FailureOr<Tensor> x = args.tensor("x");
    if (failed(x))
      return failure();
    if (x->dtype() == DType::Bool)
      return args.emitError() << "received a bool input for `x`, but bool is "
                                 "not supported";
    Tensor xv = *x;
    if (x->rank() == 1) {
      if (x->dim(0) != len)
        return args.emitError() << "trapezoid: There must be one `x` value "
                                   "for each sample point";
      SmallVector<int64_t> shape(y->rank(), 1);
      shape[*dim] = len;
      xv = x->reshaped(shape);
    } else if (x->rank() < y->rank()) {
      SmallVector<int64_t> shape(y->rank() - x->rank(), 1);
      llvm::append_range(shape, x->shape());
      xv = x->reshaped(shape);
    }
    FailureOr<Tensor> xl = slice(xv, 0, -1), xr = slice(xv, 1, std::nullopt);
    if (failed(xl) || failed(xr))
      return failure();
    FailureOr<Tensor> dx = binaryOf("torch.sub", RtValue(*xr), RtValue(*xl));
    if (failed(dx))
      return failure();
    if (cumulative) {
      FailureOr<Tensor> p = binaryOf("torch.mul", RtValue(*pairs), RtValue(*dx));
      FailureOr<Tensor> c = failed(p) ? p : callTensor(args, "torch.cumsum",
                                                       {{"input", RtValue(*p)},
                                                        {"dim", RtValue::ofInt(*dim)}});
      r = failed(c) ? c : binaryOf("torch.div", RtValue(*c), RtValue::ofFloat(2.0));
    } else {
      FailureOr<Tensor> p = binaryOf("torch.mul", RtValue(*dx), RtValue(*pairs));
      FailureOr<Tensor> s = failed(p) ? p : callTensor(args, "torch.sum",
                                                       {{"input", RtValue(*p)},
                                                        {"dim", intsValue({*dim})}});
      r = failed(s) ? s : binaryOf("torch.div", RtValue(*s), RtValue::ofFloat(2.0));
    }
    if (failed(r))
      return failure();
    return RtValue(*r);
  }
  double dx = 1;
  if (!args.isNone("dx")) {
    FailureOr<double> given = args.getFloat("dx");
    if (failed(given))
      return failure();
    dx = *given;
  }
  if (cumulative) {
    FailureOr<Tensor> p = binaryOf("torch.mul", RtValue(*pairs), RtValue::ofFloat(dx / 2.0));
    r = failed(p) ? p : callTensor(args, "torch.cumsum",
                                   {{"input", RtValue(*p)}, {"dim", RtValue::ofInt(*dim)}});
  } else {
    auto select = [&](int64_t i) {
      return callTensor(args, "torch.select",
                        {{"input", RtValue(*y)}, {"dim", RtValue::ofInt(*dim)},
                         {"index", RtValue::ofInt(i)}});
    };
    FailureOr<Tensor> first = select(0), last = select(-1);
    FailureOr<Tensor> sum = callTensor(args, "torch.sum",
                                       {{"input", RtValue(*y)}, {"dim", intsValue({*dim})}});
    if (failed(first) || failed(last) || failed(sum))
      return failure();
    FailureOr<Tensor> ends = binaryOf("torch.add", RtValue(*first), RtValue(*last));
    FailureOr<Tensor> half = failed(ends) ? ends : binaryOf("torch.mul", RtValue(*ends),
                                                            RtValue::ofFloat(0.5));
    FailureOr<Tensor> diff = failed(half) ? half : binaryOf("torch.sub", RtValue(*sum),
                                                            RtValue(*half));
    r = failed(diff) ? diff : binaryOf("torch.mul", RtValue(*diff), RtValue::ofFloat(dx));
  }
  if (failed(r))
    return failure();
  return RtValue(*r);
}

/// linalg.vander: [1, cumprod(x repeated N - 1 times)] along a new last
/// dim (a 0-d x as a vector of one).
static FailureOr<RtValue> vander(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("x");
  if (failed(in))
    return failure();
  DType t = in->dtype();
  if (t == DType::Bool || t == DType::F16 || t == DType::BF16)
    return args.emitError() << "linalg.vander supports floating point, "
                               "complex, and integer tensors";
  Tensor x = in->rank() ? *in : in->reshaped({1});
  SmallVector<int64_t> shape(x.shape());
  int64_t n = shape.back();
  if (!args.isNone("N")) {
    FailureOr<int64_t> given = args.getInt("N");
    if (failed(given))
      return failure();
    n = *given;
  }
  if (n <= 1)
    return args.emitError() << "N must be greater than 1.";
  SmallVector<int64_t> column(shape);
  column.push_back(1);
  shape.push_back(n - 1);
  FailureOr<Tensor> repeated = callTensor(
      args, "Tensor.expand", {{"input", RtValue(x.reshaped(column))}, {"size", intsValue(shape)}});
  FailureOr<Tensor> powers = failed(repeated)
                                 ? repeated
                                 : callTensor(args, "torch.cumprod",
                                              {{"input", RtValue(*repeated)},
                                               {"dim", RtValue::ofInt(-1)}});
  if (failed(powers))
    return failure();
  Tensor ones(powers->dtype(), column);
  dispatchStorage(ones.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *o = ones.template data<T>();
    for (int64_t i = 0; i < ones.numel(); ++i)
      o[i] = T(1);
    return 0;
  });
  return callEntry(args, "torch.cat",
                   {{"tensors", RtValue::ofList({RtValue(ones), RtValue(*powers)}, false)},
                    {"dim", RtValue::ofInt(-1)}});
}


/// cov as torch composes it: the rows centered on their means, their
/// product with its transpose divided by observations - correction (0 when
/// not positive), squeezed. corrcoef: that over the outer product of the
/// standard deviations, clipped to [-1, 1] (a 0-d one: c / c).
static FailureOr<RtValue> covariance(const KernelArgs &args, bool corr) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  int64_t correction = 1;
  if (!corr) {
    FailureOr<int64_t> given = args.getInt("correction");
    if (failed(given))
      return failure();
    correction = *given;
    if (!args.isNone("fweights") || !args.isNone("aweights"))
      return args.emitError() << "cov(): fweights and aweights are not "
                                 "supported here";
  }
  if (in->rank() > 2 || in->dtype() == DType::Bool)
    return args.emitError() << "cov(): expects a 0-d, 1-D or 2-D input, not bool";
  Tensor x = in->rank() < 2 ? in->reshaped({1, in->numel()}) : *in;
  int64_t rows = x.dim(0), n = x.dim(1);
  auto binaryOf = [&](StringRef entry, RtValue a, RtValue b) {
    return callTensor(args, entry, {{"input", a}, {"other", b}});
  };
  FailureOr<Tensor> sum = callTensor(args, "torch.sum",
                                     {{"input", RtValue(x)}, {"dim", intsValue({1})}});
  FailureOr<Tensor> avg = failed(sum) ? sum : binaryOf("torch.div", RtValue(*sum), RtValue::ofInt(n));
  FailureOr<Tensor> centered =
      failed(avg) ? avg : binaryOf("torch.sub", RtValue(x), RtValue(avg->reshaped({rows, 1})));
  FailureOr<Tensor> tr = failed(centered) ? centered
                                          : callTensor(args, "torch.t", {{"input", RtValue(*centered)}});
  FailureOr<Tensor> c = failed(tr) ? tr
                                   : callTensor(args, "torch.mm", {{"input", RtValue(*centered)},
                                                                   {"mat2", RtValue(*tr)}});
  FailureOr<Tensor> cov = failed(c) ? c
                                    : binaryOf("torch.div", RtValue(*c),
                                               RtValue::ofInt(std::max<int64_t>(n - correction, 0)));
  if (failed(cov))
    return failure();
  if (!corr || rows == 1) {
    Tensor r = cov->reshaped(rows == 1 ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{rows, rows});
    if (!corr)
      return RtValue(r);
    return callEntry(args, "torch.div", {{"input", RtValue(r)}, {"other", RtValue(r)}});
  }
  FailureOr<Tensor> d = callTensor(args, "torch.diagonal", {{"input", RtValue(*cov)}});
  FailureOr<Tensor> sd = failed(d) ? d : callTensor(args, "torch.sqrt", {{"input", RtValue(*d)}});
  FailureOr<Tensor> byRow = failed(sd) ? sd
                                       : binaryOf("torch.div", RtValue(*cov),
                                                  RtValue(sd->reshaped({rows, 1})));
  FailureOr<Tensor> both = failed(byRow) ? byRow
                                         : binaryOf("torch.div", RtValue(*byRow),
                                                    RtValue(sd->reshaped({1, rows})));
  if (failed(both))
    return failure();
  return callEntry(args, "torch.clamp", {{"input", RtValue(*both)},
                                         {"min", RtValue::ofFloat(-1.0)},
                                         {"max", RtValue::ofFloat(1.0)}});
}

} // namespace mlir::traced::kernels

void mlir::traced::kernels::populateReduceKernels(KernelTable &table) {
  table["torch.cov"] = [](const KernelArgs &args) { return covariance(args, false); };
  table["torch.corrcoef"] = [](const KernelArgs &args) { return covariance(args, true); };
  table["torch.trapezoid"] = [](const KernelArgs &args) {
    return trapezoidRule(args, false);
  };
  table["torch.cumulative_trapezoid"] = [](const KernelArgs &args) {
    return trapezoidRule(args, true);
  };
  table["torch.linalg.vander"] = vander;
  table["torch.linalg.vector_norm"] = vectorNorm;
  table["torch.norm"] = norm;
  table["torch.linalg.norm"] = linalgNorm;
  table["torch.linalg.matrix_norm"] = matrixNorm;
  table["torch.nn.functional.cosine_similarity"] = cosineSimilarity;
  table["torch.nn.functional.pairwise_distance"] = pairwiseDistance;
  table["torch.median"] = median;
  table["torch.pdist"] = pdist;
  table["torch.cdist"] = cdist;
  table["torch.nanmedian"] = nanmedian;
  table["torch.quantile"] = quantile;
  table["torch.nanquantile"] = nanquantile;
  table["torch.mode"] = mode;
  table["torch.segment_reduce"] = segmentReduce;
  table["torch.histc"] = histc;
  table["torch.histogram"] = histogram;
  table["torch.cummax"] = cummax;
  table["torch.cummin"] = cummin;
  table["torch.mean"] = mean;
  table["torch.sum"] = sum;
  table["torch.nansum"] = nansum;
  table["torch.nanmean"] = nanmean;
  table["torch.amax"] = amax;
  table["torch.amin"] = amin;
  table["torch.aminmax"] = aminmax;
  table["torch.argmax"] = argmax;
  table["torch.argmin"] = argmin;
  table["torch.max"] = max;
  table["torch.min"] = min;
  table["torch.all"] = all;
  table["torch.any"] = any;
  table["torch.prod"] = prod;
  table["torch.ops.prims.prod.default"] = primsProd;
  table["torch.var"] = var;
  table["torch.std"] = std;
  table["torch.var_mean"] = varMean;
  table["torch.std_mean"] = stdMean;
  table["torch.logsumexp"] = logsumexp;
  table["torch.cumsum"] = cumsum;
  table["torch.cumprod"] = cumprod;
  table["torch.logcumsumexp"] = logcumsumexp;
  table["torch.renorm"] = renorm;
  table["torch.count_nonzero"] = countNonzero;
  table["torch.nn.functional.softmax"] = softmax;
  table["torch.nn.functional.log_softmax"] = logSoftmax;
  table["torch.nn.functional.softmin"] = softmin;
}
