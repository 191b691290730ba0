//===- SortRuntime.cpp - torch's CPU orderings for traced code ------------===//
//
// The routines of include/TracedIR/Runtime/SortRuntime.h. torch 1.13's CPU
// kernels order a slice with libstdc++'s algorithms (std::sort,
// std::partial_sort, std::nth_element; aten/src/ATen/native/cpu/
// SortingKernel.cpp and TopKImpl.h) and TH's quickselect (kthvalue), over
// (value, index) pairs with comparators that put NaN above every number.
// Unstable algorithms leave equal keys in an order of their own, so the
// same algorithms run here, from the same libstdc++ headers torch's build
// used: their order is torch's. The stable sort's order is determined by
// the keys alone, so a merge sort of our own gives it without
// std::stable_sort's operator new.
//
// Like the linear-algebra runtime, no C++ runtime is used (no exceptions,
// no operator new): the archive links into an AOT library with a C linker.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Runtime/SortRuntime.h"
#include "MemrefAbi.h"

#include <algorithm>
#include <stdlib.h>
#include <string.h>


namespace {

template <typename Key> struct Elem {
  Key key;
  int64_t index;
};

template <typename Key> bool isNaN(Key v) { return v != v; }

/// torch's comparators: ascending with NaN last, descending with NaN first.
template <typename Key> struct Ascending {
  bool operator()(const Elem<Key> &a, const Elem<Key> &b) const {
    return (!isNaN(a.key) && isNaN(b.key)) || a.key < b.key;
  }
};
template <typename Key> struct Descending {
  bool operator()(const Elem<Key> &a, const Elem<Key> &b) const {
    return (isNaN(a.key) && !isNaN(b.key)) || a.key > b.key;
  }
};

/// A stable merge sort of q[0, n) through `scratch` (n elements).
template <typename Key, typename Less>
void mergeSort(Elem<Key> *q, Elem<Key> *scratch, int64_t n, Less less) {
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      int64_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      int64_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi)
        scratch[o++] = less(q[j], q[i]) ? q[j++] : q[i++];
      while (i < mid)
        scratch[o++] = q[i++];
      while (j < hi)
        scratch[o++] = q[j++];
    }
    memcpy(q, scratch, sizeof(Elem<Key>) * n);
  }
}

/// TH's quick_select_template (Sedgewick's partition): moves the k-th
/// smallest (0-based) of q[0, n) to position k; NaN is the largest.
template <typename Key> void quickSelect(Elem<Key> *q, int64_t n, int64_t k) {
  auto gtOrNaN = [](Key a, Key b) { return (isNaN(a) && !isNaN(b)) || a > b; };
  auto gt = [&](int64_t i, int64_t j) { return gtOrNaN(q[i].key, q[j].key); };
  int64_t lo = 0, hi = n - 1;
  while (true) {
    if (hi <= lo)
      return;
    if (hi == lo + 1) {
      if (gt(lo, hi))
        std::swap(q[lo], q[hi]);
      return;
    }
    int64_t mid = (lo + hi) >> 1;
    std::swap(q[mid], q[lo + 1]);
    if (gt(lo + 1, hi))
      std::swap(q[lo + 1], q[hi]);
    if (gt(lo, hi))
      std::swap(q[lo], q[hi]);
    if (gt(lo + 1, lo))
      std::swap(q[lo + 1], q[lo]);
    int64_t i = lo + 1, j = hi;
    Key pivot = q[lo].key;
    while (true) {
      do
        ++i;
      while (gtOrNaN(pivot, q[i].key));
      do
        --j;
      while (gtOrNaN(q[j].key, pivot));
      if (j < i)
        break;
      std::swap(q[i], q[j]);
    }
    std::swap(q[lo], q[j]);
    if (j <= k)
      lo = i;
    if (j >= k)
      hi = j - 1;
  }
}

/// Orders q[0, n) as `order` says; the kept pairs start at q[0] (order 4:
/// at q[k - 1]).
template <typename Key, typename Less>
void orderSlice(Elem<Key> *q, Elem<Key> *scratch, int64_t n, int64_t k,
                int64_t order, Less less) {
  switch (order) {
  case TRACED_SORT_STABLE:
    mergeSort(q, scratch, n, less);
    return;
  case TRACED_SORT_UNSTABLE:
    std::sort(q, q + n, less);
    return;
  case TRACED_SORT_TOPK:
  case TRACED_SORT_TOPK_UNSORTED:
    if (k == 0)
      return;
    if (k * 64 <= n) {
      std::partial_sort(q, q + k, q + n, less);
      return;
    }
    std::nth_element(q, q + k - 1, q + n, less);
    if (order == TRACED_SORT_TOPK)
      std::sort(q, q + k - 1, less);
    return;
  default:
    quickSelect(q, n, k - 1);
    return;
  }
}

template <typename Key>
int32_t sortOrder(const Key *keys, int64_t *indices, int64_t outer,
                  int64_t size, int64_t inner, int64_t k, int64_t descending,
                  int64_t order) {
  if (order < TRACED_SORT_STABLE || order > TRACED_SORT_SELECT)
    return -1;
  bool select = order == TRACED_SORT_SELECT;
  if (k < (select ? 1 : 0) || k > size)
    return -1;
  if (size == 0 || outer == 0 || inner == 0)
    return 0;
  auto *q = static_cast<Elem<Key> *>(malloc(sizeof(Elem<Key>) * 2 * size));
  if (!q)
    return -2;
  Elem<Key> *scratch = q + size;
  int64_t kept = select ? 1 : k, first = select ? k - 1 : 0;
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t c = 0; c < inner; ++c) {
      const Key *slice = keys + a * size * inner + c;
      for (int64_t j = 0; j < size; ++j)
        q[j] = {slice[j * inner], j};
      if (descending)
        orderSlice(q, scratch, size, k, order, Descending<Key>());
      else
        orderSlice(q, scratch, size, k, order, Ascending<Key>());
      int64_t *out = indices + a * kept * inner + c;
      for (int64_t j = 0; j < kept; ++j)
        out[j * inner] = q[first + j].index;
    }
  free(q);
  return 0;
}

} // namespace

TRACED_EXPORT int32_t traced_sort_order_f64(const double *keys,
                                            int64_t *indices, int64_t outer,
                                            int64_t size, int64_t inner,
                                            int64_t k, int64_t descending,
                                            int64_t order) {
  return sortOrder(keys, indices, outer, size, inner, k, descending, order);
}

TRACED_EXPORT int32_t traced_sort_order_i64(const int64_t *keys,
                                            int64_t *indices, int64_t outer,
                                            int64_t size, int64_t inner,
                                            int64_t k, int64_t descending,
                                            int64_t order) {
  return sortOrder(keys, indices, outer, size, inner, k, descending, order);
}

//===----------------------------------------------------------------------===//
// Compiled code's entry points: each buffer as MLIR passes a memref<?xT>
// argument of an external function (base, aligned, offset, size, stride).
//===----------------------------------------------------------------------===//

#define TRACED_SORT_MEMREF_ENTRY(T, suffix)                                    \
  TRACED_EXPORT int32_t traced_sort_order_##suffix##_memref(                   \
      MR(T, keys), MR(int64_t, indices), int64_t outer, int64_t size,          \
      int64_t inner, int64_t k, int64_t descending, int64_t order) {           \
    return traced_sort_order_##suffix(AT(keys), AT(indices), outer, size,      \
                                      inner, k, descending, order);            \
  }

TRACED_SORT_MEMREF_ENTRY(double, f64)
TRACED_SORT_MEMREF_ENTRY(int64_t, i64)

TRACED_EXPORT const TracedRuntimeSymbol *
traced_sort_runtime_symbols(int64_t *count) {
  static const TracedRuntimeSymbol symbols[] = {
      {"traced_sort_order_f64_memref",
       reinterpret_cast<void *>(&traced_sort_order_f64_memref)},
      {"traced_sort_order_i64_memref",
       reinterpret_cast<void *>(&traced_sort_order_i64_memref)},
  };
  *count = sizeof(symbols) / sizeof(symbols[0]);
  return symbols;
}
