//===- Factory.cpp - result rules of the tensor factories ----------------===//
//
// The op table (OpTable.cpp) names these rules; Common.h holds what
// several families share.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

namespace mlir::traced::rules {

LogicalResult fullLike(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  return h.result(input.getShape(), dtypeOr(call, input.getElementType()));
}

/// A factory's `size`, no dim of it negative; empty when it is traced or
/// invalid (RuleHelper::stop()).
static std::optional<SmallVector<int64_t>> factorySize(RuleHelper &h) {
  std::optional<SmallVector<int64_t>> size = h.call.getSizes("size");
  if (!size)
    return std::nullopt;
  for (int64_t d : *size)
    if (d < 0 && !ShapedType::isDynamic(d)) {
      h.error() << "negative dimension " << d;
      return std::nullopt;
    }
  return size;
}

LogicalResult newFilled(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  std::optional<SmallVector<int64_t>> size = factorySize(h);
  if (!size)
    return h.stop();
  return h.result(*size, dtypeOr(call, input.getElementType()));
}

//===----------------------------------------------------------------------===//
// Factories
//===----------------------------------------------------------------------===//

/// zeros/ones/empty(*size, dtype=None): float32 unless dtype= says.
LogicalResult factory(const BoundCall &call, RuleHelper &h) {
  std::optional<SmallVector<int64_t>> size = factorySize(h);
  if (!size)
    return h.stop();
  return h.result(*size,
                  dtypeOr(call, Float32Type::get(call.getContext())));
}

/// full(size, fill_value): the fill value's kind picks the default dtype.
LogicalResult full(const BoundCall &call, RuleHelper &h) {
  std::optional<SmallVector<int64_t>> size = factorySize(h);
  if (!size)
    return h.stop();
  MLIRContext *ctx = call.getContext();
  Type fill = call.getType("fill_value");
  Type fallback = Float32Type::get(ctx);
  if (fill && fill.isInteger(1))
    fallback = IntegerType::get(ctx, 1);
  else if (fill && fill.isInteger(64))
    fallback = IntegerType::get(ctx, 64);
  else if (fill && !isa<FloatType>(fill))
    return call.emitError() << "'fill_value' must be a number";
  return h.result(*size, dtypeOr(call, fallback));
}

/// arange(end) / arange(start, end[, step]): int64 when every bound is an
/// int, else float32; ceil((end - start) / step) elements.
LogicalResult arange(const BoundCall &call, RuleHelper &h) {
  MLIRContext *ctx = call.getContext();
  bool ints = true;
  for (StringRef name : {"start", "end", "step"}) {
    Type t = call.getType(name);
    if (t && !isa<traced::NoneType>(t) && isa<FloatType>(t))
      ints = false;
    else if (t && !t.isInteger(64) && !t.isInteger(1) &&
             !isa<FloatType>(t) && !(name == "end" && call.isNone("end")))
      return call.emitError() << "arange takes numbers";
  }
  Type elt = dtypeOr(call, ints ? Type(IntegerType::get(ctx, 64))
                                : Type(Float32Type::get(ctx)));
  // With `out=`, the values are computed in the out tensor's dtype, and
  // the result keeps its shape when its size is the range's.
  RankedTensorType out = call.getTensor("out");
  if (out) {
    if (!call.isNone("dtype") && elt != out.getElementType())
      return call.emitError() << "dtype " << elt
                              << " does not match the out tensor's " << out;
    elt = out.getElementType();
  }
  std::optional<double> start = call.getFloat("start"),
                        end = call.getFloat("end"), step = call.getFloat("step");
  if (call.isNone("end")) {
    end = start;
    start = 0.0;
  }
  if (!start || !end || !step)
    return h.result({ShapedType::kDynamic}, elt);
  if (*step == 0)
    return call.emitError() << "step must be nonzero";
  if ((*step > 0 && *end < *start) || (*step < 0 && *end > *start))
    return call.emitError()
           << "upper bound and larger bound inconsistent with step sign";
  int64_t n = static_cast<int64_t>(std::ceil((*end - *start) / *step));
  if (out && out.hasStaticShape() && out.getNumElements() == n)
    return h.result(out.getShape(), elt);
  return h.result({n}, elt);
}

LogicalResult linspace(const BoundCall &call, RuleHelper &h) {
  Type elt = dtypeOr(call, Float32Type::get(call.getContext()));
  std::optional<int64_t> steps = call.getInt("steps");
  if (!steps)
    return h.result({ShapedType::kDynamic}, elt);
  if (*steps < 0)
    return call.emitError() << "number of steps must be non-negative";
  return h.result({*steps}, elt);
}

LogicalResult eye(const BoundCall &call, RuleHelper &h) {
  Type elt = dtypeOr(call, Float32Type::get(call.getContext()));
  std::optional<int64_t> n = call.getInt("n");
  std::optional<int64_t> m = call.isNone("m") ? n : call.getInt("m");
  if (!n || !m)
    return h.unknown();
  if (*n < 0 || *m < 0)
    return call.emitError() << "n and m must be non-negative";
  return h.result({*n, *m}, elt);
}

/// torch.fill (x.fill_(v)): the input's type; a tensor value must be 0-d.
LogicalResult fillValue(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), value = h.tensor("value");
  if (value && value.getRank() != 0)
    return call.emitError() << "fill_ only supports 0-dimension value "
                               "tensors, got "
                            << value;
  if (!input)
    return h.unknown();
  return h.result(input);
}

} // namespace mlir::traced::rules
