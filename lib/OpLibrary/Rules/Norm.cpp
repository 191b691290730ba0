//===- Norm.cpp - result rules of the normalizations ---------------------===//
//
// The op table (OpTable.cpp) names these rules; Common.h holds what
// several families share.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

namespace mlir::traced::rules {

/// A normalization's input: (N, C, ...), of rank 2 or more.
static LogicalResult checkNormInput(const BoundCall &call,
                                    RankedTensorType input) {
  if (input.getRank() >= 2)
    return success();
  return call.emitError() << "expects an input of rank 2 or more, got "
                          << input;
}

LogicalResult groupNorm(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> groups = call.getInt("num_groups");
  if (!input || !groups)
    return h.unknown();
  if (failed(checkNormInput(call, input)))
    return failure();
  int64_t c = input.getDimSize(1);
  if (*groups <= 0 || (!ShapedType::isDynamic(c) && c % *groups))
    return call.emitError() << "expected the number of channels (" << c
                            << ") to be divisible by num_groups (" << *groups
                            << ")";
  return h.result(input);
}

/// torch 1.13's CPU batch norm (which instance norm calls): the running
/// statistics, weight and bias given are 1-D and of one dtype, the input's,
/// or float32 beside a bfloat16 input ("mixed dtype (CPU)").
static LogicalResult checkNormParameters(const BoundCall &call,
                                         RankedTensorType input) {
  std::optional<DType> in = dtypeFromType(input.getElementType()), common;
  for (StringRef name : {"running_mean", "running_var", "weight", "bias"}) {
    RankedTensorType t = call.getTensor(name);
    if (!t)
      continue;
    if (t.getRank() != 1)
      return call.emitError() << "'" << name << "' must be 1-D (one value a "
                              << "channel), got " << t;
    std::optional<DType> d = dtypeFromType(t.getElementType());
    if (!d || !in)
      continue;
    if (!common)
      common = d;
    bool mixed = *in == DType::BF16 && *d == DType::F32;
    if (*d != *common || (*d != *in && !mixed))
      return call.emitError()
             << "mixed dtype (CPU): expect parameter to have scalar type of "
             << (*in == DType::BF16 ? "float32" : dtypeName(*in)) << ", got "
             << dtypeName(*d) << " for '" << name << "'";
  }
  return success();
}

/// F.instance_norm: the input's type. Each (sample, channel) slice is
/// normalized by its own statistics (use_input_stats), which needs more
/// than one element in it, or by the running ones; every per-channel
/// argument has C elements.
LogicalResult instanceNorm(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<bool> useInputStats = call.getBool("use_input_stats");
  if (!input || !useInputStats)
    return h.unknown();
  if (failed(checkNormInput(call, input)) ||
      failed(checkNormParameters(call, input)))
    return failure();
  if (!input.hasStaticShape())
    return h.result(input);
  int64_t c = input.getDimSize(1), spatial = 1;
  for (int64_t d = 2; d < input.getRank(); ++d)
    spatial *= input.getDimSize(d);
  if (*useInputStats && spatial <= 1)
    return call.emitError() << "Expected more than 1 spatial element when training, got "
                               "input size "
                            << input;
  if (!*useInputStats && (call.isNone("running_mean") || call.isNone("running_var")))
    return call.emitError() << "Expected running_mean and running_var to be defined when "
                               "use_input_stats is false";
  for (StringRef name : {"running_mean", "running_var", "weight", "bias"}) {
    RankedTensorType t = h.tensor(name);
    if (t && t.hasStaticShape() && t.getNumElements() != c)
      return call.emitError() << "'" << name << "' should contain " << c
                              << " elements (one a channel), not " << t.getNumElements();
  }
  return h.result(input);
}

LogicalResult batchNorm(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (failed(checkNormInput(call, input)))
    return failure();
  int64_t channels = input.getDimSize(1);
  // F.batch_norm's own check: a batch statistic needs two values.
  if (call.getBool("training") == std::optional<bool>(true) &&
      input.hasStaticShape() && input.getNumElements() == channels)
    return call.emitError() << "Expected more than 1 value per channel when "
                               "training, got input size "
                            << shapeStr(input.getShape());
  if (failed(checkNormParameters(call, input)))
    return failure();
  for (StringRef name : {"running_mean", "running_var", "weight", "bias"}) {
    RankedTensorType t = h.tensor(name);
    if (!t)
      continue;
    if (t.getRank() != 1 || (!ShapedType::isDynamic(channels) &&
                             !t.isDynamicDim(0) && t.getDimSize(0) != channels))
      return call.emitError() << "'" << name << "' must have shape ["
                              << channels << "], got " << t;
  }
  return h.result(input);
}

LogicalResult layerNorm(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> normalized =
      call.getInts("normalized_shape");
  if (!input || !normalized)
    return h.unknown();
  ArrayRef<int64_t> shape = input.getShape();
  bool ok = normalized->size() <= shape.size();
  for (size_t i = 0; ok && i < normalized->size(); ++i) {
    int64_t d = shape[shape.size() - normalized->size() + i];
    ok = ShapedType::isDynamic(d) || d == (*normalized)[i];
  }
  if (!ok)
    return call.emitError()
           << "normalized_shape " << shapeStr(*normalized)
           << " does not match the trailing dimensions of " << input;
  // torch 1.13's CPU kernel: weight and bias of normalized_shape's shape
  // and of the input's dtype.
  for (StringRef name : {"weight", "bias"}) {
    RankedTensorType t = call.getTensor(name);
    if (!t)
      continue;
    if (t.getShape() != ArrayRef<int64_t>(*normalized) &&
        llvm::none_of(t.getShape(), ShapedType::isDynamic))
      return call.emitError()
             << "Expected " << name
             << " to be of same shape as normalized_shape, but got " << name
             << " of shape " << shapeStr(t.getShape())
             << " and normalized_shape = " << shapeStr(*normalized);
    if (t.getElementType() != input.getElementType())
      return call.emitError() << "expected " << name << " of the input's "
                              << "dtype " << input.getElementType()
                              << ", got " << t.getElementType();
  }
  return h.result(input);
}

/// aten::native_layer_norm: (result, mean, rstd); the statistics keep the
/// normalized dims as 1.
LogicalResult nativeLayerNorm(const BoundCall &call, RuleHelper &h) {
  LogicalResult norm = layerNorm(call, h);
  if (failed(norm) || h.results.empty())
    return norm;
  // (layerNorm typed the known input, of at least normalized_shape's rank.)
  RankedTensorType input = call.getTensor("input");
  size_t normalized = call.getInts("normalized_shape")->size();
  SmallVector<int64_t> stat(input.getShape().drop_back(normalized));
  stat.append(normalized, 1);
  Type statType = RankedTensorType::get(stat, input.getElementType());
  h.results[0] =
      TupleType::get(call.getContext(), {h.results[0], statType, statType});
  return success();
}

/// aten::native_group_norm_backward: (grad_input of the input's type,
/// grad_weight and grad_bias of C elements), each None where output_mask
/// is false, after torch's checks: one float dtype (float32, float64 or
/// bfloat16) throughout, N * C * HxW elements in grad_out and input,
/// N * group in mean and rstd, C divisible by group, C weights. (torch
/// 1.13 fails without a weight when grad_weight is asked for.)
LogicalResult nativeGroupNormBackward(const BoundCall &call, RuleHelper &h) {
  RankedTensorType grad = h.tensor("grad_out"), input = h.tensor("input"),
                   mean = h.tensor("mean"), rstd = h.tensor("rstd");
  std::optional<int64_t> n = call.getInt("N"), c = call.getInt("C"),
                         hw = call.getInt("HxW"), group = call.getInt("group");
  if (!grad || !input || !mean || !rstd || !n || !c || !hw || !group ||
      !call.get("output_mask").value)
    return h.unknown();
  SmallVector<bool> mask;
  if (failed(outputMask(call, mask)))
    return failure();
  RankedTensorType weight = call.getTensor("weight");
  Type et = input.getElementType();
  for (RankedTensorType t : {grad, mean, rstd, weight})
    if (t && t.getElementType() != et)
      return call.emitError() << "expected one dtype for grad_out, input, "
                                 "mean, rstd and weight, got "
                              << t << " beside " << input;
  if (!et.isF32() && !et.isF64() && !et.isBF16())
    return call.emitError() << "has no CPU kernel for " << et;
  auto count = [](RankedTensorType t) -> std::optional<int64_t> {
    if (!t.hasStaticShape())
      return std::nullopt;
    return t.getNumElements();
  };
  if (*group <= 0 || *c % *group)
    return call.emitError() << "expects C (" << *c << ") divisible by group ("
                            << *group << ")";
  for (RankedTensorType t : {grad, input})
    if (count(t) && *count(t) != *n * *c * *hw)
      return call.emitError() << "expects N * C * HxW elements, got " << t;
  for (RankedTensorType t : {mean, rstd})
    if (count(t) && *count(t) != *n * *group)
      return call.emitError() << "Expected mean.numel() == N * group, got "
                              << t;
  if (grad.getShape() != input.getShape())
    return call.emitError() << "expects grad_out of the input's shape, got "
                            << grad << " and " << input;
  if (weight && count(weight) && *count(weight) != *c)
    return call.emitError() << "expects C weights, got " << weight;
  if (!weight && mask[1])
    return call.emitError() << "grad_weight needs a weight (torch 1.13 "
                               "fails without one)";
  Type none = NoneType::get(call.getContext());
  Type channels = RankedTensorType::get({*c}, et);
  Type parts[3] = {mask[0] ? Type(input) : none, mask[1] ? channels : none,
                   mask[2] ? channels : none};
  return h.result(TupleType::get(call.getContext(), parts));
}

/// aten::native_group_norm: (group_norm's result, mean, rstd), the
/// statistics [N, group], after torch's checks: N * C * HxW elements, C
/// divisible by group, weight and bias of C elements in the input's dtype
/// (float32, float64, bfloat16).
LogicalResult nativeGroupNorm(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> n = call.getInt("N"), c = call.getInt("C"),
                         hw = call.getInt("HxW"), group = call.getInt("group");
  if (!input || !n || !c || !hw || !group)
    return h.unknown();
  Type et = input.getElementType();
  if (!et.isF32() && !et.isF64() && !et.isBF16())
    return call.emitError() << "has no CPU kernel for group norm in " << et;
  if (failed(checkNormInput(call, input)))
    return failure();
  if (input.hasStaticShape() && input.getNumElements() != *n * *c * *hw)
    return call.emitError() << "Expected X.numel() == N * C * HxW, got " << input
                            << " for N = " << *n << ", C = " << *c
                            << ", HxW = " << *hw;
  if (*group <= 0 || *c % *group || dimsDiffer(input.getDimSize(1), *c))
    return call.emitError() << "Expected number of channels in input to be "
                               "divisible by num_groups, but got input "
                            << input << " and num_groups=" << *group;
  for (StringRef name : {"weight", "bias"})
    if (RankedTensorType t = call.getTensor(name)) {
      if (t.getElementType() != et)
        return call.emitError() << "expects a " << name << " of the input's dtype, got " << t;
      if (t.getRank() != 1 || dimsDiffer(t.getDimSize(0), *c))
        return call.emitError() << "Expected " << name
                                << " to be a vector of size equal to the number "
                                   "of channels in input, but got "
                                << t;
    }
  Type stat = RankedTensorType::get({*n, *group}, et);
  return h.result(TupleType::get(call.getContext(), {input, stat, stat}));
}

/// torch._weight_norm: v * (g / norm_except_dim(v, 2, dim)), broadcast, in
/// v's dtype (g of the same, floating). The norm keeps `dim` and has size
/// one elsewhere; dim = -1 takes the whole tensor's (0-d). The fused
/// aten::_weight_norm_interface takes dim 0 or the last only and a g of
/// the norm's shape, and also gives the norm (float32 for bfloat16; no
/// float16 kernel).
LogicalResult weightNorm(const BoundCall &call, RuleHelper &h) {
  RankedTensorType v = h.tensor("v"), g = h.tensor("g");
  std::optional<int64_t> dim = call.getInt("dim");
  if (!v || !g || !dim)
    return h.unknown();
  Type et = v.getElementType();
  int64_t rank = v.getRank();
  // (fuzz-diff: a 0-d v indexed the norm's shape out of bounds;
  // test/Fuzz/diff/weight-norm-0d.)
  if (rank == 0)
    return call.emitError() << "Dimension specified as " << *dim
                            << " but tensor has no dimensions";
  // torch._weight_norm takes the fused kernel unless a dtype is float16 or
  // dim is a middle one; otherwise v * (g / norm), promoted.
  bool interface = call.getTarget().contains("interface");
  bool fused = interface || (!et.isF16() && !g.getElementType().isF16() &&
                             (*dim == 0 || *dim == rank - 1));
  if (fused && (!isa<FloatType>(et) || g.getElementType() != et))
    return call.emitError() << "expects floating-point v and g of one dtype, got "
                            << v << " and " << g;
  if (!isa<FloatType>(et))
    return call.emitError() << "expects a floating-point v, got " << v;
  if (*dim < -1 || *dim >= std::max<int64_t>(rank, 1))
    return call.emitError() << "dim " << *dim << " is out of range for v "
                            << v << " (-1: the whole tensor)";
  SmallVector<int64_t> norm;
  if (*dim >= 0) {
    norm.assign(rank, 1);
    norm[*dim] = v.getDimSize(*dim);
  }
  if (!fused) {
    // (g / norm) in their promoted dtype, then v times it.
    MLIRContext *ctx = call.getContext();
    Type quotient = resultElementType({g, RankedTensorType::get(norm, et)}, ctx);
    FailureOr<SmallVector<int64_t>> qs = broadcastShapes(call, g.getShape(), norm);
    if (!quotient || failed(qs))
      return failure();
    et = resultElementType({v, RankedTensorType::get(*qs, quotient)}, ctx);
    if (!et)
      return h.unknown();
  }
  if (interface) {
    if (et.isF16())
      return call.emitError() << "has no CPU kernel for the fused weight norm "
                                 "in f16";
    if (*dim != 0 && *dim != rank - 1)
      return call.emitError() << "fused kernels can only be applied for the "
                                 "first or last dim, got dim "
                              << *dim;
    if (g.getShape() != ArrayRef<int64_t>(norm))
      return call.emitError() << "expects g of the norm's shape "
                              << shapeStr(norm) << ", got " << g;
  }
  FailureOr<SmallVector<int64_t>> s = broadcastShapes(call, v.getShape(), g.getShape());
  if (failed(s))
    return failure();
  s = broadcastShapes(call, *s, norm);
  if (failed(s))
    return failure();
  Type w = RankedTensorType::get(*s, et);
  if (!interface)
    return h.result(w);
  Type normType = RankedTensorType::get(
      norm, et.isBF16() ? Float32Type::get(call.getContext()) : et);
  return h.result(TupleType::get(call.getContext(), {w, normType}));
}

/// aten::native_batch_norm: (result, saved mean, saved invstd); the saved
/// statistics are empty in eval mode, per channel in training.
LogicalResult nativeBatchNorm(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<bool> training = call.getBool("training");
  if (!input || !training)
    return h.unknown();
  if (input.getRank() < 2 || !isa<FloatType>(input.getElementType()))
    return call.emitError() << "expects a floating-point input of rank >= 2, "
                               "got "
                            << input;
  Type stat = RankedTensorType::get({*training ? input.getDimSize(1) : 0},
                                    input.getElementType());
  return h.result(TupleType::get(call.getContext(), {input, stat, stat}));
}

} // namespace mlir::traced::rules
