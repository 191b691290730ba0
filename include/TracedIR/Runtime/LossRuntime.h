/*===- LossRuntime.h - the CTC loss over raw buffers --------------*- C -*-===*
 *
 * torch.nn.functional.ctc_loss's per-sequence negative log-likelihood, as
 * torch 1.13's CPU kernel computes it (aten/src/ATen/native/LossCTC.cpp,
 * ctc_loss_cpu_template): the log-space alpha recursion over the
 * blank-extended target, in the input's type, with its logsumexp of the
 * three predecessors. A recursion over time whose extent per sequence is
 * a run-time length is a loop with data-dependent bounds, which the
 * interpreter's kernel and compiled code both take from here (docs/
 * linalg-runtime.md, "The loss runtime"); the reduction and zero_infinity
 * are done by the callers.
 *
 * log_probs is (T, batch, C) row-major; targets (batch, S) padded when
 * `targets2d`, else the sequences' targets concatenated (S elements);
 * input_lengths and target_lengths hold `batch` int64 each; nll gets
 * `batch` values. Returns 0, or
 *   1: an input length outside [0, T];
 *   2: a target length below 0, or beyond S (2-D targets) or, summed,
 *      beyond S (1-D targets);
 *   3: a target outside [0, C) (torch would read out of bounds);
 *   4: out of memory.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TRACEDIR_RUNTIME_LOSSRUNTIME_H
#define TRACEDIR_RUNTIME_LOSSRUNTIME_H

#include <stdint.h>

#include "TracedIR/Runtime/RuntimeSymbol.h"

#ifdef __cplusplus
extern "C" {
#endif

int32_t traced_ctc_loss_f32(const float *logProbs, const int64_t *targets,
                            const int64_t *inputLengths,
                            const int64_t *targetLengths, float *nll,
                            int64_t T, int64_t batch, int64_t C, int64_t S,
                            int64_t targets2d, int64_t blank);
int32_t traced_ctc_loss_f64(const double *logProbs, const int64_t *targets,
                            const int64_t *inputLengths,
                            const int64_t *targetLengths, double *nll,
                            int64_t T, int64_t batch, int64_t C, int64_t S,
                            int64_t targets2d, int64_t blank);

/* Compiled code's entry points (`traced_ctc_loss_f32_memref`, `_f64_`:
 * each buffer as an expanded memref<?xT> descriptor) by name. */
const TracedRuntimeSymbol *traced_loss_runtime_symbols(int64_t *count);

#ifdef __cplusplus
}
#endif

#endif /* TRACEDIR_RUNTIME_LOSSRUNTIME_H */
