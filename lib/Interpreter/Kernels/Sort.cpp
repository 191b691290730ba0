//===- Sort.cpp - sorting and searching -----------------------------------===//
//
// sort, argsort, topk and kthvalue along a dim (a stable sort, NaN the
// largest value), and bucketize's binary search.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::traced;

namespace mlir::traced::kernels {

/// sort/argsort/topk along `dim`: NaN counts as the largest value, ties
/// keep their order (a stable sort).
static FailureOr<std::pair<Tensor, Tensor>>
sortAlong(const KernelArgs &args, const Tensor &x, int64_t d, bool descending,
          int64_t k) {
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
  SmallVector<int64_t> shape(x.shape());
  if (x.rank())
    shape[*dim] = k;
  Tensor values(x.dtype(), shape), indices(DType::I64, shape);
  SmallVector<int64_t> order(size);
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t c = 0; c < inner; ++c) {
      auto at = [&](int64_t j) { return (a * size + j) * inner + c; };
      for (int64_t j = 0; j < size; ++j)
        order[j] = j;
      if (x.storage() == Storage::Int) {
        // Compared as int64: doubles would tie distinct values above 2^53.
        const int64_t *p = x.data<int64_t>();
        std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
          return descending ? p[at(i)] > p[at(j)] : p[at(i)] < p[at(j)];
        });
      } else {
        std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
          double u = x.getDouble(at(p)), v = x.getDouble(at(q));
          bool un = u != u, vn = v != v;
          if (descending)
            return (un && !vn) || (!un && !vn && u > v);
          return (!un && vn) || (!un && !vn && u < v);
        });
      }
      for (int64_t j = 0; j < k; ++j) {
        int64_t o = (a * k + j) * inner + c, src = (a * size + order[j]) * inner + c;
        dispatchStorage(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          values.template data<T>()[o] = x.template data<T>()[src];
          return 0;
        });
        indices.data<int64_t>()[o] = order[j];
      }
    }
  return std::make_pair(values, indices);
}

FailureOr<RtValue> sort(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  FailureOr<bool> desc = args.getBool("descending");
  if (failed(in) || failed(d) || failed(desc))
    return failure();
  int64_t size = in->rank() ? in->dim(*d < 0 ? *d + in->rank() : *d) : 1;
  auto r = sortAlong(args, *in, *d, *desc, size);
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
  auto r = sortAlong(args, *in, *d, *desc, size);
  if (failed(r))
    return failure();
  return RtValue(r->second);
}

FailureOr<RtValue> topk(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> k = args.getInt("k"), d = args.getInt("dim");
  FailureOr<bool> largest = args.getBool("largest");
  if (failed(in) || failed(k) || failed(d) || failed(largest))
    return failure();
  auto r = sortAlong(args, *in, *d, *largest, *k);
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
  auto r = sortAlong(args, *in, *dim, /*descending=*/false, *k);
  if (failed(r))
    return failure();
  // The last of the k smallest, with the dim dropped unless keepdim.
  auto pick = [&](const Tensor &t) {
    if (!t.rank())
      return t;
    SmallVector<int64_t> shape(t.shape()), strides = t.strides();
    int64_t offset = (*k - 1) * strides[*dim];
    shape[*dim] = 1;
    Tensor one = gatherStrided(t, shape, offset, strides);
    if (!*keepdim)
      shape.erase(shape.begin() + *dim);
    return one.reshaped(shape);
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
}
