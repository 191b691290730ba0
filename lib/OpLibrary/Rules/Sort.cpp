//===- Sort.cpp - result rules of sorting and selection ------------------===//
//
// The op table (OpTable.cpp) names these rules; Common.h holds what
// several families share.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

namespace mlir::traced::rules {

/// sort (values, indices), argsort (indices) and topk (k along dim).
LogicalResult sortLike(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> dim = h.dimArg(input);
  if (!dim)
    return h.stop();
  SmallVector<int64_t> shape(input.getShape());
  Type i64 = Builder(call.getContext()).getI64Type();
  if (call.getSignature().lookup("k")) {
    std::optional<int64_t> k = call.getInt("k");
    if (!k)
      return h.unknown();
    int64_t size = input.getRank() ? input.getDimSize(*dim) : 1;
    if (*k < 0 || (!ShapedType::isDynamic(size) && *k > size))
      return call.emitError() << "k (" << *k << ") is out of range for "
                              << input;
    if (input.getRank())
      shape[*dim] = *k;
  }
  auto values = RankedTensorType::get(shape, input.getElementType());
  auto indices = RankedTensorType::get(shape, i64);
  if (!call.getSignature().lookup("stable") && !call.getSignature().lookup("k"))
    return h.result(indices); // argsort
  return h.result(TupleType::get(call.getContext(), {values, indices}));
}

/// kthvalue: values and int64 indices, `dim` reduced (kept with keepdim).
LogicalResult kthvalue(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> k = call.getInt("k"), d = call.getInt("dim");
  if (input && k && d) {
    int64_t n = *d < 0 ? *d + std::max<int64_t>(input.getRank(), 1) : *d;
    int64_t size = input.getRank() && n >= 0 && n < input.getRank()
                       ? input.getDimSize(n)
                       : 1;
    if (!ShapedType::isDynamic(size) && (*k < 1 || *k > size))
      return call.emitError() << "k (" << *k << ") is out of range for "
                              << input;
  }
  return reductionResult(call, h.results, Type(), /*allIfEmpty=*/false,
                         /*withIndices=*/true);
}

/// bucketize: the input's shape, int64 (int32 with out_int32).
LogicalResult bucketize(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), b = h.tensor("boundaries");
  std::optional<bool> outInt32 = call.getBool("out_int32");
  if (!input || !b || !outInt32)
    return h.unknown();
  if (b.getRank() != 1)
    return call.emitError() << "boundaries tensor must be 1 dimension, got "
                            << b;
  Builder builder(call.getContext());
  return h.result(input.getShape(), *outInt32 ? builder.getI32Type()
                                              : builder.getI64Type());
}

/// isin: bool, of the elements' shape (0-d for a number); torch refuses
/// bool and bfloat16 operands, and two tensors that promote to float16.
LogicalResult isin(const BoundCall &call, RuleHelper &h) {
  Type elements = call.getType("elements"), test = call.getType("test_elements");
  if (!elements || !test)
    return h.unknown();
  for (Type t : {elements, test}) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (isa<TensorType>(t) && !tensor)
      return h.unknown();
    Type elt = tensor ? tensor.getElementType() : Type();
    if (elt && (elt.isInteger(1) || elt.isBF16()))
      return call.emitError() << "Unsupported input type encountered for "
                                 "isin(): "
                              << elt;
  }
  if (!isa<RankedTensorType>(elements) && !isa<RankedTensorType>(test))
    return call.emitError() << "expects at least one tensor operand";
  // (Two tensors go through a kernel with no float16 case; a number is
  // compared with eq.)
  if (isa<RankedTensorType>(elements) && isa<RankedTensorType>(test))
    if (Type common = resultElementType({elements, test}, call.getContext());
        common && common.isF16())
      return call.emitError() << "\"isin_default_cpu\" not implemented for 'Half'";
  Type i1 = Builder(call.getContext()).getI1Type();
  auto tensor = dyn_cast<RankedTensorType>(elements);
  return h.result(tensor ? tensor.getShape() : ArrayRef<int64_t>{}, i1);
}

/// searchsorted: int64 (int32 with out_int32) of the values' shape (0-d
/// for a number); searchsortedSide's checks, a sorter of the sequence's
/// shape, no bool comparison.
LogicalResult searchsorted(const BoundCall &call, RuleHelper &h) {
  RankedTensorType seq = h.tensor("sorted_sequence");
  Type valuesType = call.getType("input");
  std::optional<bool> outInt32 = call.getBool("out_int32"), right = call.getBool("right");
  auto values = dyn_cast_or_null<RankedTensorType>(valuesType);
  if (!seq || !valuesType || (isa<TensorType>(valuesType) && !values) || !outInt32 ||
      !right || !seq.hasStaticShape() || (values && !values.hasStaticShape()))
    return h.unknown();
  std::optional<std::string> side;
  if (!call.isNone("side")) {
    auto s = dyn_cast_or_null<StringAttr>(call.get("side").value);
    if (!s)
      return h.unknown();
    side = s.str();
  }
  std::string error;
  std::optional<ArrayRef<int64_t>> valueShape;
  if (values)
    valueShape = values.getShape();
  if (!searchsortedSide(seq.getShape(), valueShape, side, *right, error))
    return call.emitError() << error;
  if (RankedTensorType sorter = call.getTensor("sorter");
      sorter && (sorter.getShape() != seq.getShape() || !sorter.getElementType().isInteger(64)))
    return call.emitError() << "torch.searchsorted(): sorter must be an int64 tensor of "
                               "the boundaries' shape, got "
                            << sorter;
  Type common = resultElementType({seq, valuesType}, call.getContext());
  if (common && common.isInteger(1))
    return call.emitError() << "\"searchsorted_out_cpu\" not implemented for 'Bool'";
  Builder b(call.getContext());
  return h.result(values ? values.getShape() : ArrayRef<int64_t>{},
                  *outInt32 ? b.getI32Type() : b.getI64Type());
}

} // namespace mlir::traced::rules
