/*===- SpecialRuntime.h - scalar special functions for traced code -*- C -*-===*
 *
 * The special functions whose algorithm is a scalar routine with loops and
 * early exits, which neither path builds as IR (docs/special-runtime.md):
 * the regularized incomplete gamma functions of torch.igamma and
 * torch.igammac, as torch 1.13's calc_igamma / calc_igammac
 * (aten/src/ATen/native/Math.h) compute them, in float or double. The
 * interpreter's kernels call these functions; compiled code calls them
 * from the body of a linalg.generic (func.call of an external function),
 * the JIT defining the symbols from traced_special_runtime_symbols() and
 * traced.save_library linking the archive they live in
 * (libtraced_linalg_runtime.a).
 *
 *===----------------------------------------------------------------------===*/

#ifndef TRACEDIR_RUNTIME_SPECIALRUNTIME_H
#define TRACEDIR_RUNTIME_SPECIALRUNTIME_H

#include <stdint.h>

#include "TracedIR/Runtime/RuntimeSymbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* P(a, x), the regularized lower incomplete gamma function. */
float traced_igamma_f32(float a, float x);
double traced_igamma_f64(double a, double x);
/* Q(a, x) = 1 - P(a, x), the regularized upper one. */
float traced_igammac_f32(float a, float x);
double traced_igammac_f64(double a, double x);

/* The functions above by name, for a JIT to define. */
const TracedRuntimeSymbol *traced_special_runtime_symbols(int64_t *count);

#ifdef __cplusplus
}
#endif

#endif /* TRACEDIR_RUNTIME_SPECIALRUNTIME_H */
