//===- StatsRuntime.cpp - torch.mode's run order for compiled code --------===//
//
// torch.mode picks its index from the order in which libstdc++'s std::sort
// (an introsort, not stable) leaves equal values, so compiled code calls
// the same std::sort here, and so does the interpreter's kernel
// (lib/Interpreter/Kernels/Reduce.cpp): the answer is torch's to the
// index, NaN included. Plain C++ like LinalgRuntime.cpp (no exceptions,
// malloc), in the same library.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Runtime/LinalgRuntime.h"
#include "MemrefAbi.h"

#include <algorithm>
#include <stdlib.h>
#include <utility>


namespace {
/// mode of each of `outer` runs of `k` elements: torch 1.13's CPU kernel
/// (aten/src/ATen/native/cpu/TensorCompareKernel.cpp, mode_kernel_impl):
/// (value, index) pairs sorted by value alone, then the first run of
/// equal values longer than every earlier one; its value and the index of
/// its last pair.
template <typename T>
int32_t modeRuns(const T *a, T *values, int64_t *indices, int64_t outer,
                 int64_t k) {
  if (k <= 0)
    return 0;
  auto *elements =
      static_cast<std::pair<T, int64_t> *>(malloc(sizeof(std::pair<T, int64_t>) * k));
  if (!elements)
    return -1;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < k; ++i)
      elements[i] = {a[o * k + i], i};
    std::sort(elements, elements + k,
              [](const auto &x, const auto &y) { return x.first < y.first; });
    std::pair<T, int64_t> mode{T(0), 0};
    int64_t run = 0, best = 0;
    for (int64_t i = 0; i < k; ++i) {
      ++run;
      if (i == k - 1 || elements[i].first != elements[i + 1].first) {
        if (run > best) {
          mode = elements[i];
          best = run;
        }
        run = 0;
      }
    }
    values[o] = mode.first;
    indices[o] = mode.second;
  }
  free(elements);
  return 0;
}
} // namespace

TRACED_EXPORT int32_t traced_stats_mode_f64(const double *a, double *values,
                                            int64_t *indices, int64_t outer,
                                            int64_t k) {
  return modeRuns(a, values, indices, outer, k);
}

TRACED_EXPORT int32_t traced_stats_mode_i64(const int64_t *a, int64_t *values,
                                            int64_t *indices, int64_t outer,
                                            int64_t k) {
  return modeRuns(a, values, indices, outer, k);
}


TRACED_EXPORT int32_t traced_linalg_mode_f64(MR(double, a), MR(double, values),
                                             MR(int64_t, indices),
                                             int64_t outer, int64_t k) {
  return modeRuns(AT(a), AT(values), AT(indices), outer, k);
}

TRACED_EXPORT int32_t traced_linalg_mode_i64(MR(int64_t, a), MR(int64_t, values),
                                             MR(int64_t, indices),
                                             int64_t outer, int64_t k) {
  return modeRuns(AT(a), AT(values), AT(indices), outer, k);
}

TRACED_EXPORT const TracedRuntimeSymbol *
traced_stats_runtime_symbols(int64_t *count) {
  static const TracedRuntimeSymbol symbols[] = {
      {"traced_linalg_mode_f64", reinterpret_cast<void *>(&traced_linalg_mode_f64)},
      {"traced_linalg_mode_i64", reinterpret_cast<void *>(&traced_linalg_mode_i64)}};
  *count = sizeof(symbols) / sizeof(symbols[0]);
  return symbols;
}
