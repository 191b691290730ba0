//===- QuantParams.cpp - a quantized type's parameters --------------------===//

#include "TracedIR/Support/QuantParams.h"

#include "TracedIR/Support/DType.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;

QuantParams::QuantParams(Type type) {
  auto q = cast<quant::QuantizedType>(type);
  lo = q.getStorageTypeMin();
  hi = q.getStorageTypeMax();
  storage = quantStorageElement(type);
  if (auto u = dyn_cast<quant::UniformQuantizedType>(q)) {
    scales.push_back(u.getScale());
    zeroPoints.push_back(u.getZeroPoint());
  } else if (auto a = dyn_cast<quant::UniformQuantizedPerAxisType>(q)) {
    scales.assign(a.getScales().begin(), a.getScales().end());
    zeroPoints.assign(a.getZeroPoints().begin(), a.getZeroPoints().end());
    axis = a.getQuantizedDimension();
  }
}

int64_t QuantParams::quantize(float x, int64_t i) const {
  float inv = 1.0f / static_cast<float>(scale(i));
  float v = static_cast<float>(zeroPoint(i)) + std::nearbyint(x * inv);
  if (!(std::fabs(v) < 9.2233720368547758e18f))
    return lo;
  return clamp(static_cast<int64_t>(v));
}

float QuantParams::dequantize(int64_t q, int64_t i) const {
  float s = static_cast<float>(scale(i));
  return std::fma(s, static_cast<float>(q), s * static_cast<float>(-zeroPoint(i)));
}
