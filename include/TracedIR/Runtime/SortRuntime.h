/*===- SortRuntime.h - torch's CPU orderings over raw buffers ----*- C -*-===//
 *
 * The sort runtime (docs/linalg-runtime.md, "The sort runtime"): the order
 * in which torch 1.13's CPU kernels leave each slice of sort, argsort,
 * topk and kthvalue, ties included. The interpreter's kernels and compiled
 * code both call it, so the two paths and torch agree on which of several
 * equal elements comes first (an unstable sort's order is the algorithm's,
 * not the values').
 *
 * Keys are float64 (float inputs, widened exactly; NaN is the largest, as
 * torch's comparators have it) or int64 (integer and bool inputs, widened
 * exactly). A buffer of keys holds `outer` x `size` x `inner` elements,
 * the sorted dim in the middle; `indices` receives, per slice, the
 * positions along that dim of the kept elements, laid out as
 * `outer` x `kept` x `inner`:
 *   - order 0 (stable sort) and 1 (sort with stable=False, torch's
 *     std::sort introsort): kept = k = size;
 *   - order 2 (topk, sorted) and 3 (topk, sorted=False): kept = k, by
 *     std::partial_sort when k * 64 <= size, else std::nth_element (then
 *     std::sort of the first k - 1 when sorted);
 *   - order 4 (kthvalue): kept = 1, the k-th smallest (1-based) by TH's
 *     quickselect.
 * `descending` orders from the largest (topk's largest=True).
 *
 * Each function returns 0, -1 when k is out of [0, size] (order 4: [1,
 * size]) or the order code is unknown, -2 when scratch memory runs out.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TRACEDIR_RUNTIME_SORTRUNTIME_H
#define TRACEDIR_RUNTIME_SORTRUNTIME_H

#include <stdint.h>

#include "TracedIR/Runtime/RuntimeSymbol.h"

#ifdef __cplusplus
extern "C" {
#endif

enum TracedSortOrder {
  TRACED_SORT_STABLE = 0,
  TRACED_SORT_UNSTABLE = 1,
  TRACED_SORT_TOPK = 2,
  TRACED_SORT_TOPK_UNSORTED = 3,
  TRACED_SORT_SELECT = 4,
};

int32_t traced_sort_order_f64(const double *keys, int64_t *indices,
                              int64_t outer, int64_t size, int64_t inner,
                              int64_t k, int64_t descending, int64_t order);
int32_t traced_sort_order_i64(const int64_t *keys, int64_t *indices,
                              int64_t outer, int64_t size, int64_t inner,
                              int64_t k, int64_t descending, int64_t order);

/* The entry points of compiled code (`traced_sort_order_f64_memref` and
 * `_i64_memref`: the same, each buffer as an expanded memref<?xT>
 * descriptor) by name, for a JIT to define. */
const TracedRuntimeSymbol *traced_sort_runtime_symbols(int64_t *count);

#ifdef __cplusplus
}
#endif

#endif /* TRACEDIR_RUNTIME_SORTRUNTIME_H */
