//===- QuantParams.h - a quantized type's parameters ------------*- C++ -*-===//
//
// The parameters of a quantized element type (the quant dialect's
// `!quant.uniform`, docs/quantization.md) as the interpreter's kernels and
// traced-lower-quantized read them, with torch 1.13's rounding of one
// value: quantize_val and the vectorized dequantize.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_SUPPORT_QUANTPARAMS_H
#define TRACEDIR_SUPPORT_QUANTPARAMS_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>

namespace mlir::traced {

/// The longest reduction (k padded to a multiple of 4) traced.int8.conv2d
/// and traced.int8.linear take: the exact sums of k uint8 x int8 products
/// stay in int32 (k * 255 * 128 < 2^31). The int8 runtime's
/// TRACED_INT8_MAX_REDUCTION (Runtime/Int8Runtime.h) is the same.
inline constexpr int64_t kInt8MaxReduction = 2147483647 / (255 * 128);

/// The row of traced.int8's packed weight for `taps` taps of `channels`
/// channels: each tap's channels padded to 4, the row to 64.
inline constexpr int64_t int8PackedRow(int64_t taps, int64_t channels) {
  return (taps * ((channels + 3) / 4 * 4) + 63) / 64 * 64;
}

/// One scale and zero point per tensor, or one per index along `axis`; the
/// storage range and element type (ui8, i8, i32).
struct QuantParams {
  llvm::SmallVector<double> scales;
  llvm::SmallVector<int64_t> zeroPoints;
  int64_t axis = -1;
  int64_t lo = 0, hi = 0;
  Type storage;

  /// `type` must be a uniform quantized type (per tensor or per axis).
  explicit QuantParams(Type type);

  bool perTensor() const { return axis < 0; }
  /// Index `i` along the axis (any for a per-tensor type).
  double scale(int64_t i = 0) const { return scales[axis < 0 ? 0 : i]; }
  int64_t zeroPoint(int64_t i = 0) const {
    return zeroPoints[axis < 0 ? 0 : i];
  }
  int64_t clamp(int64_t v) const { return std::min(std::max(v, lo), hi); }
  /// at::native::quantize_val: zero_point + Round(value * inv_scale), the
  /// sum in float32 (an int64 plus a float), then converted to int64 as
  /// x86 converts: a value out of int64's range (NaN, infinities) is
  /// INT64_MIN, which saturates to the lowest value.
  int64_t quantize(float x, int64_t i = 0) const;
  /// Vectorized<quint8>::dequantize: fmadd(scale, q, scale * -zero_point)
  /// in float32.
  float dequantize(int64_t q, int64_t i = 0) const;
};

} // namespace mlir::traced

#endif // TRACEDIR_SUPPORT_QUANTPARAMS_H
