/*===- Int8Runtime.h - int8 convolutions and linears, AMX/VNNI -*- C -*-===*
 *
 * The int8 runtime (docs/quantization.md, "int8 code"): the quantized
 * convolutions and linears of `traced.int8.conv2d` and `traced.int8.linear`,
 * which traced-lower-quantized emits for quint8 inputs and results and a
 * qint8 weight whose zero points are 0. The interpreter's kernels and
 * compiled code both call it.
 *
 * Per output element of channel c, with x the input's storage integers
 * (uint8), w the weight's (int8) and zx the input's zero point:
 *   acc = sum_k x[k] * w[k] - compensation[c]     (int32, exact)
 * where compensation[c] = zx * sum_k w[k] (traced-lower-quantized computes
 * it with the packing), so that acc = sum_k (x[k] - zx) * w[k]; then
 *   y   = (float)acc * multiplier[c]              (float32)
 *   y   = y + offset[c]                           (float32, not fused)
 *   y   = y + zo                                  (float32: oneDNN's order)
 *   r   = nearbyint(y), clamped to [lo, 255]      (lo: 0, or zo with ReLU)
 * which is what traced-lower-quantized's float path computes
 * (docs/quantization.md, "Compiling"), without its float64 sums.
 *
 * The weight is packed (traced-lower-quantized does it once, at compile
 * time): one row per output channel, k in (kernel row, kernel column,
 * channel) order, the channels padded to a multiple of 4 and the row to a
 * multiple of 64 with zeros.
 *
 * The sums are taken with AMX (tdpbsud: int8 x uint8 tiles into int32)
 * where the CPU and the kernel allow it, else AVX-512 VNNI (vpdpbusd),
 * else a portable loop; all three are exact, so the answers are the same.
 * TRACED_INT8_NO_AMX and TRACED_INT8_PORTABLE, set in the environment,
 * turn the first two off (for tests). Input patches are packed per call
 * (padding with zx, so that padding adds nothing); the work is spread over
 * OpenMP's threads.
 *
 * Geometry of a convolution (NCHW): `g` holds n, c, h, w, oc, kh, kw,
 * stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, oh, ow, zx, zo,
 * relu, groups: 1, or c == oc (depthwise: each channel's filter is a row
 * of one channel padded to 4 per tap, summed in float32, exactly, for at
 * most 514 taps). A linear: `g` holds rows, k, n (out features), zx, zo,
 * relu; input [rows, k], weight [n, k padded], output [rows, n].
 *
 * The `_add` forms fuse the residual add of torch.ops.quantized.add /
 * add_relu after that requantization: with `residual` a uint8 tensor laid
 * out as the output, `scales` the output's scale so, the residual's sr and
 * the sum's ss, and TRACED_INT8_ADD_GEOMETRY more geometry values zr, zs,
 * relu (the residual's and the sum's zero points, add_relu), each output
 * r becomes (in float32, as the interpreter's quantized add computes it)
 *   y   = fma(r, so, so * -zo) + fma(residual, sr, sr * -zr)
 *   out = nearbyint(y * (1 / ss)) + zs, clamped to [lo, 255] (lo: 0, or
 *         zs for add_relu).
 * A null residual is the plain form.
 *
 * Each function returns 0, -1 for a geometry it cannot compute (a sum that
 * could leave int32) or add parameters out of range, -2 when scratch
 * memory runs out.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TRACEDIR_RUNTIME_INT8RUNTIME_H
#define TRACEDIR_RUNTIME_INT8RUNTIME_H

#include <stdint.h>

#include "TracedIR/Runtime/RuntimeSymbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The number of int64 geometry values each function reads, and the
 * longest reduction (k padded to 4) whose exact sums stay in int32:
 * k * 255 * 128 < 2^31. */
enum {
  TRACED_INT8_CONV_GEOMETRY = 19,
  TRACED_INT8_LINEAR_GEOMETRY = 6,
  TRACED_INT8_ADD_GEOMETRY = 3,
  TRACED_INT8_MAX_REDUCTION = 2147483647 / (255 * 128)
};

int32_t traced_int8_conv2d(const uint8_t *x, const int8_t *w,
                           const float *multiplier, const float *offset,
                           const int32_t *compensation, uint8_t *out,
                           const int64_t *g);
int32_t traced_int8_linear(const uint8_t *x, const int8_t *w,
                           const float *multiplier, const float *offset,
                           const int32_t *compensation, uint8_t *out,
                           const int64_t *g);

int32_t traced_int8_conv2d_add(const uint8_t *x, const int8_t *w,
                               const float *multiplier, const float *offset,
                               const int32_t *compensation, const uint8_t *residual,
                               const float *scales, uint8_t *out, const int64_t *g);
int32_t traced_int8_linear_add(const uint8_t *x, const int8_t *w,
                               const float *multiplier, const float *offset,
                               const int32_t *compensation, const uint8_t *residual,
                               const float *scales, uint8_t *out, const int64_t *g);

/* The path this process takes: 2 AMX, 1 VNNI, 0 portable. */
int32_t traced_int8_path(void);

/* The entry points of compiled code (`traced_int8_conv2d_memref`,
 * `traced_int8_linear_memref` and their `_add_memref` forms: each buffer an expanded memref<?xT>
 * descriptor, then the geometry as int64 values) by name, for a JIT. */
const TracedRuntimeSymbol *traced_int8_runtime_symbols(int64_t *count);

#ifdef __cplusplus
}
#endif

#endif /* TRACEDIR_RUNTIME_INT8RUNTIME_H */
