//===- LossRuntime.cpp - the CTC loss for traced code ---------------------===//
//
// include/TracedIR/Runtime/LossRuntime.h: torch 1.13's ctc_loss_cpu_template
// step for step (the same order of operations in the same type, with
// libm's exp and log), so the interpreter and compiled code give torch's
// values. No C++ runtime is used (malloc, no exceptions), like the rest
// of the archive.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Runtime/LossRuntime.h"
#include "MemrefAbi.h"

#include <cmath>
#include <limits>
#include <stdlib.h>


namespace {

template <typename T>
int32_t ctcLoss(const T *lp, const int64_t *targets, const int64_t *inLen,
                const int64_t *tgLen, T *nll, int64_t time, int64_t batch,
                int64_t classes, int64_t s, int64_t targets2d, int64_t blank) {
  const T neginf = -std::numeric_limits<T>::infinity();
  // Each sequence's targets: its row (2-D) or its run of the
  // concatenation (1-D), checked as torch checks them, and every target
  // in [0, C) (torch reads log_probs at the target unchecked).
  int64_t offset = 0, maxTarget = 0, longest = 0;
  for (int64_t b = 0; b < batch; ++b) {
    if (inLen[b] < 0 || inLen[b] > time)
      return 1;
    if (tgLen[b] < 0 || (targets2d && tgLen[b] > s))
      return 2;
    offset += tgLen[b];
    maxTarget = tgLen[b] > maxTarget ? tgLen[b] : maxTarget;
    longest = inLen[b] > longest ? inLen[b] : longest;
  }
  if (!targets2d && offset > s)
    return 2;
  offset = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t *tg = targets2d ? targets + b * s : targets + offset;
    for (int64_t i = 0; i < tgLen[b]; ++i)
      if (tg[i] < 0 || tg[i] >= classes)
        return 3;
    offset += tgLen[b];
  }
  int64_t width = 2 * maxTarget + 1;
  T *alpha = static_cast<T *>(malloc(sizeof(T) * (longest ? longest : 1) * width));
  if (!alpha)
    return 4;
  offset = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t *tg = targets2d ? targets + b * s : targets + offset;
    offset += tgLen[b];
    int64_t il = inLen[b], tl = tgLen[b];
    // log_probs[t][b][c]
    auto at = [&](int64_t t, int64_t c) { return lp[(t * batch + b) * classes + c]; };
    auto prime = [&](int64_t i) { return i % 2 == 0 ? blank : tg[i / 2]; };
    auto la = [&](int64_t t, int64_t i) -> T & { return alpha[t * width + i]; };
    if (il == 0) {
      nll[b] = -(tl == 0 ? T(0) : neginf);
      continue;
    }
    for (int64_t i = 0; i < width; ++i)
      la(0, i) = neginf;
    la(0, 0) = at(0, blank);
    if (tl > 0)
      la(0, 1) = at(0, prime(1));
    for (int64_t t = 1; t < il; ++t)
      for (int64_t i = 0; i < 2 * tl + 1; ++i) {
        int64_t current = prime(i);
        T la1 = la(t - 1, i), lamax = la1, la2, la3;
        if (i > 0) {
          la2 = la(t - 1, i - 1);
          if (la2 > lamax)
            lamax = la2;
        } else {
          la2 = neginf;
        }
        if (i > 1 && prime(i - 2) != current) {
          la3 = la(t - 1, i - 2);
          if (la3 > lamax)
            lamax = la3;
        } else {
          la3 = neginf;
        }
        if (lamax == neginf)
          lamax = 0;
        la(t, i) = std::log(std::exp(la1 - lamax) + std::exp(la2 - lamax) +
                            std::exp(la3 - lamax)) +
                   lamax + at(t, current);
      }
    if (tl == 0) {
      nll[b] = -la(il - 1, 0);
    } else {
      T l1 = la(il - 1, tl * 2), l2 = la(il - 1, tl * 2 - 1);
      T m = l1 > l2 ? l1 : l2;
      m = m == neginf ? 0 : m;
      nll[b] = -(std::log(std::exp(l1 - m) + std::exp(l2 - m)) + m);
    }
  }
  free(alpha);
  return 0;
}

} // namespace

TRACED_EXPORT int32_t traced_ctc_loss_f32(
    const float *logProbs, const int64_t *targets, const int64_t *inputLengths,
    const int64_t *targetLengths, float *nll, int64_t T, int64_t batch,
    int64_t C, int64_t S, int64_t targets2d, int64_t blank) {
  return ctcLoss(logProbs, targets, inputLengths, targetLengths, nll, T, batch,
                 C, S, targets2d, blank);
}

TRACED_EXPORT int32_t traced_ctc_loss_f64(
    const double *logProbs, const int64_t *targets, const int64_t *inputLengths,
    const int64_t *targetLengths, double *nll, int64_t T, int64_t batch,
    int64_t C, int64_t S, int64_t targets2d, int64_t blank) {
  return ctcLoss(logProbs, targets, inputLengths, targetLengths, nll, T, batch,
                 C, S, targets2d, blank);
}

#define TRACED_CTC_MEMREF_ENTRY(T, suffix)                                     \
  TRACED_EXPORT int32_t traced_ctc_loss_##suffix##_memref(                     \
      MR(T, lp), MR(int64_t, tg), MR(int64_t, il), MR(int64_t, tl),            \
      MR(T, nll), int64_t time, int64_t batch, int64_t classes, int64_t s,     \
      int64_t targets2d, int64_t blank) {                                      \
    return traced_ctc_loss_##suffix(AT(lp), AT(tg), AT(il), AT(tl), AT(nll),   \
                                    time, batch, classes, s, targets2d,        \
                                    blank);                                    \
  }

TRACED_CTC_MEMREF_ENTRY(float, f32)
TRACED_CTC_MEMREF_ENTRY(double, f64)

TRACED_EXPORT const TracedRuntimeSymbol *traced_loss_runtime_symbols(int64_t *count) {
  static const TracedRuntimeSymbol symbols[] = {
      {"traced_ctc_loss_f32_memref", reinterpret_cast<void *>(&traced_ctc_loss_f32_memref)},
      {"traced_ctc_loss_f64_memref", reinterpret_cast<void *>(&traced_ctc_loss_f64_memref)},
  };
  *count = sizeof(symbols) / sizeof(symbols[0]);
  return symbols;
}
