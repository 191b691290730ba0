//===- Backward.cpp - result rules of the gradient ops -------------------===//
//
// The op table (OpTable.cpp) names these rules; Common.h holds what
// several families share.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

namespace mlir::traced::rules {

/// An activation's gradient from the forward's input (`input`), output
/// (`output`) or either (`self_or_result`): broadcast and promoted with
/// `grad_output`.
LogicalResult activationGrad(const BoundCall &call, RuleHelper &h) {
  const Signature &sig = call.getSignature();
  StringRef other = sig.lookup("input")    ? "input"
                    : sig.lookup("output") ? "output"
                                           : "self_or_result";
  return pointwise(call, h.results, {"grad_output", other}, /*toFloat=*/false);
}

/// aten::rrelu_with_noise_backward as torch 1.13 computes it: in training,
/// grad_output * noise (broadcast and promoted, whatever lower and upper
/// are); otherwise leaky_relu_backward(grad_output, input, (lower + upper)
/// / 2, self_is_result), whose CPU kernel takes float32, float64 and
/// bfloat16 and refuses a negative slope on the forward's result.
LogicalResult rreluNoiseGrad(const BoundCall &call, RuleHelper &h) {
  std::optional<bool> training = call.getBool("training");
  std::optional<bool> selfIsResult = call.getBool("self_is_result");
  std::optional<double> lower = call.getFloat("lower"),
                        upper = call.getFloat("upper");
  if (!training || !selfIsResult || !lower || !upper)
    return h.unknown();
  if (*training)
    return pointwise(call, h.results, {"grad_output", "noise"},
                     /*toFloat=*/false);
  if (failed(pointwise(call, h.results, {"grad_output", "input"},
                       /*toFloat=*/false)))
    return failure();
  auto type = h.results.empty()
                  ? RankedTensorType()
                  : dyn_cast_or_null<RankedTensorType>(h.results[0]);
  if (type) {
    Type et = type.getElementType();
    if (!et.isF32() && !et.isF64() && !et.isBF16())
      return call.emitError() << "has no CPU kernel for leaky_relu_backward "
                                 "(outside training) in "
                              << et;
  }
  if (*selfIsResult && (*lower + *upper) / 2 < 0)
    return call.emitError()
           << "In-place leakyReLu backward calculation is triggered with a "
              "negative slope which is not supported";
  return success();
}

/// _softmax_backward_data / _log_softmax_backward_data: the gradient, in
/// the dtype of grad_output and output (torch 1.13's CPU kernels: float32,
/// float64 or bfloat16, the two of one dtype and shape; an input_dtype of
/// float16 asks for a conversion the CPU does not make).
LogicalResult softmaxBackwardData(const BoundCall &call, RuleHelper &h) {
  RankedTensorType grad = h.tensor("grad_output"), out = h.tensor("output");
  std::optional<int64_t> dim = call.getInt("dim");
  auto inputDType = dyn_cast_or_null<DTypeAttr>(call.get("input_dtype").value);
  if (!grad || !out || !dim || !inputDType)
    return h.unknown();
  Type elt = grad.getElementType();
  if (out.getElementType() != elt)
    return call.emitError() << "expects output of grad_output's dtype, got "
                            << out << " and " << grad;
  if (!elt.isF32() && !elt.isF64() && !elt.isBF16())
    return call.emitError() << "computes in " << elt
                            << ", which torch 1.13's CPU kernel does not "
                               "implement (float32, float64, bfloat16)";
  if (elt.isF32() && inputDType.getType().isF16())
    return call.emitError() << "expected scalar type Float but found Half";
  if (grad.getShape() != out.getShape())
    return call.emitError() << "expects grad_output of output's size, got "
                            << grad << " and " << out;
  if (failed(h.dim(*dim, std::max<int64_t>(grad.getRank(), 1))))
    return failure();
  return h.result(grad);
}

/// threshold_backward: as activationGrad; torch converts a Python float
/// threshold to an integer compute dtype with an overflow check (-1.75 is
/// -1 in int32, but raises for uint8; an int threshold wraps instead).
LogicalResult thresholdGrad(const BoundCall &call, RuleHelper &h) {
  if (failed(activationGrad(call, h)))
    return failure();
  auto t = h.results.size() == 1
               ? dyn_cast_or_null<RankedTensorType>(h.results[0])
               : RankedTensorType();
  auto integer = t ? dyn_cast<IntegerType>(t.getElementType()) : IntegerType();
  auto value = dyn_cast_or_null<FloatAttr>(call.get("threshold").value);
  if (!integer || integer.getWidth() == 1 || !value)
    return success();
  double v = std::trunc(value.getValueAsDouble());
  unsigned w = integer.getWidth();
  double lo = integer.isUnsigned() ? 0 : -std::ldexp(1.0, w - 1);
  double hi = integer.isUnsigned() ? std::ldexp(1.0, w) - 1
                                   : std::ldexp(1.0, w - 1) - 1;
  if (!(v >= lo && v <= hi))
    return call.emitError() << "threshold " << value.getValueAsDouble()
                            << " cannot be converted to " << integer
                            << " without overflow";
  return success();
}

/// gelu_backward: as activationGrad, except that a float32 or bfloat16
/// input takes torch 1.13's oneDNN kernel, which needs grad_output of the
/// same dtype: it refuses others, and reads a float32 grad_output with a
/// bfloat16 input as the wrong memory (garbage results). Those are refused.
LogicalResult geluGrad(const BoundCall &call, RuleHelper &h) {
  RankedTensorType grad = call.getTensor("grad_output"),
                   input = call.getTensor("input");
  if (grad && input && grad.getElementType() != input.getElementType() &&
      (input.getElementType().isF32() || input.getElementType().isBF16()))
    return call.emitError()
           << "expects grad_output of the input's dtype for a float32 or "
              "bfloat16 input (torch 1.13's oneDNN kernel), got "
           << grad << " and " << input;
  return activationGrad(call, h);
}

/// The gradients of max pooling and of nll_loss: of a floating-point
/// input.
static LogicalResult checkFloatInput(const BoundCall &call,
                                     RankedTensorType input) {
  if (isa<FloatType>(input.getElementType()))
    return success();
  return call.emitError() << "expects a floating-point input, got " << input;
}

/// aten::max_pool{2,3}d_with_indices_backward: the input's type, after
/// torch's checks of the forward (its input, its window, its output size)
/// and of grad_output and indices (the forward's output shape; int64
/// indices). Without them a nonsense window ran in the interpreter.
LogicalResult maxPoolGrad(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), grad = h.tensor("grad_output"),
                   indices = h.tensor("indices");
  if (!input || !grad || !indices)
    return h.unknown();
  if (failed(checkFloatInput(call, input)))
    return failure();
  unsigned spatial = call.getSignature()
                         .params[*call.getSignature().lookup("kernel_size")]
                         .type.listSize;
  std::optional<PoolParams> w = h.poolWindow(input, spatial);
  if (!w)
    return h.stop();
  std::optional<SmallVector<int64_t>> out =
      h.pooledShape(input, *w, /*checkOutput=*/true);
  if (!out)
    return h.stop();
  if (grad.getShape() != ArrayRef<int64_t>(*out))
    return call.emitError() << "expects grad_output of the forward's output "
                               "shape, got "
                            << grad;
  if (indices.getShape() != ArrayRef<int64_t>(*out) ||
      !indices.getElementType().isSignlessInteger(64))
    return call.emitError() << "expects int64 indices of the forward's "
                               "output shape, got "
                            << indices;
  return h.result(input);
}

/// aten::nll_loss_backward, max_pool*_with_indices_backward: the gradient
/// has the (floating-point) input's type.
LogicalResult nllLossBackward(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (failed(checkFloatInput(call, input)))
    return failure();
  if (!call.getSignature().lookup("target"))
    return h.result(input); // (max pooling's)
  // nll_loss_backward: torch 1.13's checks (its meta function), which the
  // kernel indexes by: a (C) or (N, C) input; an int64 target of one class
  // a sample (a 1-D input takes a 0-d target, or a 1-D one whose first
  // element it reads); a weight per class; grad_output of the samples'
  // shape for reduction 'none' over a batch, else one element.
  RankedTensorType target = h.tensor("target"), total = h.tensor("total_weight"),
                   grad = h.tensor("grad_output");
  std::optional<int64_t> reduction = call.getInt("reduction");
  if (!target || !total || !grad || !reduction)
    return h.unknown();
  if (!target.getElementType().isSignlessInteger(64))
    return call.emitError() << "expects an int64 target, got " << target;
  if (input.getRank() < 1 || input.getRank() > 2)
    return call.emitError() << "expects a 1-D or 2-D input, got " << input;
  if (target.getRank() > 1)
    return call.emitError() << "expects a 0-D or 1-D target, got " << target;
  bool noBatch = input.getRank() == 1 && target.getRank() == 0;
  if (!noBatch && (target.getRank() == 0 ||
                   input.getDimSize(0) != target.getDimSize(0)))
    return call.emitError() << "expects a target of " << input.getDimSize(0)
                            << " elements for input " << input << ", got "
                            << target;
  int64_t classes = input.getShape().back();
  if (RankedTensorType weight = h.tensor("weight"))
    if (weight.getNumElements() != classes)
      return call.emitError() << "expects a weight of " << classes
                              << " elements (one a class), got " << weight;
  if (total.getNumElements() != 1)
    return call.emitError() << "expects a total_weight of one element, got "
                            << total;
  bool perSample = *reduction == 0 && input.getRank() == 2;
  if (perSample ? grad.getRank() != 1 ||
                      grad.getDimSize(0) != input.getDimSize(0)
                : grad.getRank() > 1 || grad.getNumElements() != 1)
    return call.emitError() << "expects grad_output of "
                            << (perSample ? "the target's shape"
                                          : "one element")
                            << " for this reduction, got " << grad;
  return h.result(input);
}

} // namespace mlir::traced::rules
