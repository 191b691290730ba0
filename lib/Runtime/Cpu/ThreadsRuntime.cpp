//===- ThreadsRuntime.cpp - the thread count of compiled calls ------------===//
//
// include/TracedIR/Runtime/Threads.h: one process-wide count, applied to
// the calling thread's OpenMP data environment (omp_set_num_threads) when
// a call starts. Each thread remembers libomp's default for itself before
// the first change, so that a count of 0 restores it.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Runtime/Threads.h"
#include "MemrefAbi.h"

#include <omp.h>

namespace {
int32_t requested = 0;                 // 0: libomp's default
thread_local int32_t defaultCount = 0; // this thread's, before any change

int32_t threadDefault() {
  if (defaultCount == 0)
    defaultCount = omp_get_max_threads();
  return defaultCount;
}
} // namespace

TRACED_EXPORT void traced_set_num_threads(int32_t n) {
  __atomic_store_n(&requested, n > 0 ? n : 0, __ATOMIC_RELAXED);
}

TRACED_EXPORT int32_t traced_get_num_threads(void) {
  int32_t n = __atomic_load_n(&requested, __ATOMIC_RELAXED);
  return n > 0 ? n : threadDefault();
}

TRACED_EXPORT int32_t traced_enter_call(void) {
  int32_t want = traced_get_num_threads();
  if (omp_get_max_threads() != want)
    omp_set_num_threads(want);
  return want;
}
