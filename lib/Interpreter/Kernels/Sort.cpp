//===- Sort.cpp - sorting and searching -----------------------------------===//
//
// sort, argsort, topk and kthvalue along a dim (torch's CPU algorithms, so
// that ties come out in torch's order; NaN the largest value), and
// bucketize's binary search.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TracedIR/Runtime/SortRuntime.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::traced;

namespace mlir::traced::kernels {

/// How a slice is ordered, as torch 1.13's CPU kernels do it: sort with
/// std::sort (stable=False: ties in introsort's order) or a stable sort;
/// topk with std::partial_sort or std::nth_element; kthvalue with TH's
/// quickselect. The sort runtime (Runtime/SortRuntime.h) runs those
/// algorithms for the interpreter and for compiled code alike, so that
/// ties come out where torch's do on both paths.
enum class Order {
  Stable = TRACED_SORT_STABLE,
  Unstable = TRACED_SORT_UNSTABLE,
  TopK = TRACED_SORT_TOPK,
  TopKUnsorted = TRACED_SORT_TOPK_UNSORTED,
  Select = TRACED_SORT_SELECT,
};

/// sort/argsort/topk/kthvalue along `dim` in `how`: values and indices of
/// the first k pairs (kthvalue: of positions k - 1 after its select, as
/// [..., 1, ...] along the dim).
static FailureOr<std::pair<Tensor, Tensor>>
sortAlong(const KernelArgs &args, const Tensor &x, int64_t d, bool descending,
          int64_t k, Order how) {
  FailureOr<int64_t> dim = normalizeDim(args, d, std::max<int64_t>(x.rank(), 1));
  if (failed(dim))
    return failure();
  int64_t size = x.rank() ? x.dim(*dim) : 1, inner = 1;
  for (int64_t i = *dim + 1; i < x.rank(); ++i)
    inner *= x.dim(i);
  int64_t outer = size * inner ? x.numel() / (size * inner) : 0;
  if (k < 0 || k > size)
    return args.emitError() << "k (" << k << ") is out of range for "
                               "dimension of size "
                            << size;
  // kthvalue keeps one position: the k-th.
  int64_t kept = how == Order::Select ? 1 : k;
  SmallVector<int64_t> shape(x.shape());
  if (x.rank())
    shape[*dim] = kept;
  Tensor values(x.dtype(), shape), indices(DType::I64, shape);
  // The keys, widened exactly: integers as int64 (doubles would tie
  // distinct values above 2^53), floats as float64.
  int64_t n = x.numel();
  auto ordered = [&](auto read, auto run) {
    std::vector<decltype(read(0))> keys(n);
    for (int64_t i = 0; i < n; ++i)
      keys[i] = read(i);
    return run(keys.data(), indices.data<int64_t>(), outer, size, inner, k,
               descending, static_cast<int64_t>(how));
  };
  int32_t status =
      x.storage() == Storage::Int
          ? ordered([&](int64_t i) { return x.getInt(i); }, traced_sort_order_i64)
          : ordered([&](int64_t i) { return x.getDouble(i); }, traced_sort_order_f64);
  if (status != 0)
    return args.emitError() << "the sort runtime failed (status " << status
                            << ")";
  // values[a, j, c] = x[a, indices[a, j, c], c].
  const int64_t *idx = indices.data<int64_t>();
  dispatchStorage(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = x.template data<T>();
    T *dst = values.template data<T>();
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t j = 0; j < kept; ++j)
        for (int64_t c = 0; c < inner; ++c) {
          int64_t o = (a * kept + j) * inner + c;
          dst[o] = src[(a * size + idx[o]) * inner + c];
        }
    return 0;
  });
  return std::make_pair(values, indices);
}

FailureOr<RtValue> sort(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  FailureOr<bool> desc = args.getBool("descending");
  if (failed(in) || failed(d) || failed(desc))
    return failure();
  bool stable = false;
  if (!args.isNone("stable")) {
    FailureOr<bool> s = args.getBool("stable");
    if (failed(s))
      return failure();
    stable = *s;
  }
  int64_t size = in->rank() ? in->dim(*d < 0 ? *d + in->rank() : *d) : 1;
  auto r = sortAlong(args, *in, *d, *desc, size,
                     stable ? Order::Stable : Order::Unstable);
  if (failed(r))
    return failure();
  return RtValue::ofList({RtValue(r->first), RtValue(r->second)}, true);
}

FailureOr<RtValue> argsort(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  FailureOr<bool> desc = args.getBool("descending");
  if (failed(in) || failed(d) || failed(desc))
    return failure();
  int64_t rank = std::max<int64_t>(in->rank(), 1);
  int64_t nd = *d < 0 ? *d + rank : *d;
  int64_t size = in->rank() && nd >= 0 && nd < rank ? in->dim(nd) : 1;
  auto r = sortAlong(args, *in, *d, *desc, size, Order::Unstable);
  if (failed(r))
    return failure();
  return RtValue(r->second);
}

FailureOr<RtValue> topk(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> k = args.getInt("k"), d = args.getInt("dim");
  FailureOr<bool> largest = args.getBool("largest"), sorted = args.getBool("sorted");
  if (failed(in) || failed(k) || failed(d) || failed(largest) || failed(sorted))
    return failure();
  auto r = sortAlong(args, *in, *d, *largest, *k,
                     *sorted ? Order::TopK : Order::TopKUnsorted);
  if (failed(r))
    return failure();
  return RtValue::ofList({RtValue(r->first), RtValue(r->second)}, true);
}

/// kthvalue: the k-th smallest element along `dim` and its index.
FailureOr<RtValue> kthvalue(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> k = args.getInt("k"), d = args.getInt("dim");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(k) || failed(d) || failed(keepdim))
    return failure();
  FailureOr<int64_t> dim = normalizeDim(args, *d, std::max<int64_t>(in->rank(), 1));
  if (failed(dim))
    return failure();
  int64_t size = in->rank() ? in->dim(*dim) : 1;
  if (*k < 1 || *k > size)
    return args.emitError() << "selected number k out of range for dimension "
                            << *d;
  auto r = sortAlong(args, *in, *dim, /*descending=*/false, *k, Order::Select);
  if (failed(r))
    return failure();
  // The k-th, with the dim dropped unless keepdim.
  auto pick = [&](const Tensor &t) {
    if (!t.rank() || *keepdim)
      return t;
    SmallVector<int64_t> shape(t.shape());
    shape.erase(shape.begin() + *dim);
    return t.reshaped(shape);
  };
  return RtValue::ofList({RtValue(pick(r->first)), RtValue(pick(r->second))},
                         true);
}

/// bucketize: per element, the index of its bucket among the sorted 1-D
/// `boundaries` (the first boundary >= x, or > x when `right`), by torch's
/// binary search.
FailureOr<RtValue> bucketize(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), b = args.tensor("boundaries");
  FailureOr<bool> outInt32 = args.getBool("out_int32"),
                  right = args.getBool("right");
  if (failed(in) || failed(b) || failed(outInt32) || failed(right))
    return failure();
  if (b->rank() != 1)
    return args.emitError() << "boundaries tensor must be 1 dimension, but "
                               "got dim("
                            << b->rank() << ")";
  Tensor out(*outInt32 ? DType::I32 : DType::I64, in->shape());
  std::vector<double> bounds(b->numel());
  for (int64_t i = 0; i < b->numel(); ++i)
    bounds[i] = b->getDouble(i);
  // torch's own binary search (cus_lower_bound / cus_upper_bound), step for
  // step: on unsorted boundaries, where the result is torch's to define,
  // it is still torch's (and the decomposition's, which takes the same
  // steps).
  int64_t n = b->numel();
  for (int64_t i = 0; i < in->numel(); ++i) {
    double x = in->getDouble(i);
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      int64_t mid = lo + ((hi - lo) >> 1);
      bool goRight = *right ? !(bounds[mid] > x) : !(bounds[mid] >= x);
      if (goRight)
        lo = mid + 1;
      else
        hi = mid;
    }
    out.data<int64_t>()[i] = lo;
  }
  return RtValue(out);
}

/// isin: per element, whether it equals one of test_elements, compared in
/// their promoted dtype (NaN equals nothing); `invert` negates.
FailureOr<RtValue> isin(const KernelArgs &args) {
  FailureOr<Operand> e = operand(args, "elements"), t = operand(args, "test_elements");
  FailureOr<bool> invert = args.getBool("invert");
  if (failed(e) || failed(t) || failed(invert))
    return failure();
  for (const Operand *o : {&*e, &*t})
    if (o->isTensor && (o->tensor.dtype() == DType::Bool || o->tensor.dtype() == DType::BF16))
      return args.emitError() << "Unsupported input type encountered for isin(): "
                              << dtypeName(o->tensor.dtype());
  if (!e->isTensor && !t->isTensor)
    return args.emitError() << "expects at least one tensor operand";
  DType dtype = resultType({promotionOf(*e), promotionOf(*t)});
  if (e->isTensor && t->isTensor && dtype == DType::F16)
    return args.emitError() << "\"isin_default_cpu\" not implemented for 'Half'";
  auto asTensor = [&](const Operand &o) {
    if (o.isTensor)
      return o.tensor.to(dtype);
    Tensor one(dtype, {});
    one.setDouble(0, o.number);
    one.roundToDType();
    return one;
  };
  Tensor el = asTensor(*e), test = asTensor(*t);
  Tensor out(DType::Bool, el.shape());
  bool ints = el.storage() == Storage::Int;
  for (int64_t i = 0; i < el.numel(); ++i) {
    bool found = false;
    for (int64_t j = 0; j < test.numel() && !found; ++j)
      found = ints ? el.getInt(i) == test.getInt(j) : el.getDouble(i) == test.getDouble(j);
    out.data<uint8_t>()[i] = found != *invert;
  }
  return RtValue(out);
}

/// searchsorted: per value, torch's binary search (as bucketize's) in the
/// sorted sequence (its row of the same leading index when N-D, seen
/// through `sorter` when given), compared in the two's promoted dtype.
FailureOr<RtValue> searchsorted(const KernelArgs &args) {
  FailureOr<Tensor> seq = args.tensor("sorted_sequence");
  FailureOr<Operand> v = operand(args, "input");
  FailureOr<bool> outInt32 = args.getBool("out_int32"), rightArg = args.getBool("right");
  if (failed(seq) || failed(v) || failed(outInt32) || failed(rightArg))
    return failure();
  std::optional<std::string> side;
  if (!args.isNone("side")) {
    FailureOr<std::string> s = args.getStr("side");
    if (failed(s))
      return failure();
    side = *s;
  }
  std::optional<ArrayRef<int64_t>> valueShape;
  if (v->isTensor)
    valueShape = v->tensor.shape();
  std::string error;
  std::optional<bool> right = searchsortedSide(seq->shape(), valueShape, side, *rightArg, error);
  if (!right)
    return args.emitError() << error;
  // (torch makes a number a 0-d tensor first: a float one is float64.)
  PromotionOperand value = promotionOf(*v);
  if (!v->isTensor)
    value.priority = PromotionPriority::ZeroDim;
  DType dtype = resultType({{seq->dtype(), PromotionPriority::Tensor}, value});
  if (dtype == DType::Bool)
    return args.emitError() << "\"searchsorted_out_cpu\" not implemented for 'Bool'";
  Tensor values = v->isTensor ? v->tensor.to(dtype) : Tensor(dtype, {});
  if (!v->isTensor) {
    values.setDouble(0, v->number);
    values.roundToDType();
  }
  Tensor bounds = seq->to(dtype);
  int64_t m = seq->dim(seq->rank() - 1), rows = m ? seq->numel() / m : 0;
  std::optional<Tensor> sorter;
  if (!args.isNone("sorter")) {
    FailureOr<Tensor> s = args.tensor("sorter");
    if (failed(s))
      return failure();
    if (s->shape() != seq->shape() || s->dtype() != DType::I64)
      return args.emitError() << "torch.searchsorted(): sorter must be an int64 tensor "
                                 "of the boundaries' shape";
    for (int64_t i = 0; i < s->numel(); ++i)
      if (s->getInt(i) < 0 || s->getInt(i) >= m)
        return args.emitError() << "torch.searchsorted(): sorter index out of range";
    sorter = *s;
  }
  bool ints = isIntegral(dtype);
  // (Values per row: all of them for a 1-D sequence.)
  int64_t n = values.numel(), perRow = seq->rank() == 1 ? n : (rows ? n / rows : 0);
  Tensor out(*outInt32 ? DType::I32 : DType::I64, values.shape());
  for (int64_t i = 0; i < n; ++i) {
    int64_t row = seq->rank() == 1 ? 0 : i / std::max<int64_t>(perRow, 1);
    auto at = [&](int64_t j) {
      int64_t k = sorter ? sorter->getInt(row * m + j) : j;
      return row * m + k;
    };
    int64_t lo = 0, hi = m;
    while (lo < hi) {
      int64_t mid = lo + ((hi - lo) >> 1);
      bool goRight;
      if (ints) {
        int64_t b = bounds.getInt(at(mid)), x = values.getInt(i);
        goRight = *right ? !(b > x) : !(b >= x);
      } else {
        double b = bounds.getDouble(at(mid)), x = values.getDouble(i);
        goRight = *right ? !(b > x) : !(b >= x);
      }
      if (goRight)
        lo = mid + 1;
      else
        hi = mid;
    }
    out.setDouble(i, static_cast<double>(lo));
  }
  return RtValue(out);
}

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

/// torch.msort: the values of sort along dim 0.
static FailureOr<RtValue> msort(const KernelArgs &args) {
  FailureOr<RtValue> sorted = kernels::callEntry(
      args, "torch.sort", {{"input", args.get("input")}, {"dim", RtValue::ofInt(0)}});
  if (failed(sorted))
    return failure();
  if (!sorted->list() || sorted->list()->items.empty())
    return args.emitError() << "sort gave no values";
  return sorted->list()->items[0];
}

void mlir::traced::kernels::populateSortKernels(KernelTable &table) {
  table["torch.msort"] = msort;
  table["torch.sort"] = sort;
  table["torch.argsort"] = argsort;
  table["torch.topk"] = topk;
  table["torch.kthvalue"] = kthvalue;
  table["torch.bucketize"] = bucketize;
  table["torch.isin"] = isin;
  table["torch.searchsorted"] = searchsorted;
}
