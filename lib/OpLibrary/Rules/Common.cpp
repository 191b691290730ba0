//===- Common.cpp - what the result rules share ---------------------------===//
//
// The helpers Common.h declares, and the table of every rule by name.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

using namespace mlir;
using namespace mlir::traced;

namespace mlir::traced::rules {

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return s;
}

bool dimsDiffer(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

int64_t mulDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) ? kDynamic
                                                              : a * b;
}

std::optional<PromotionOperand> promotionOperand(Type t) {
  if (auto tensor = dyn_cast<RankedTensorType>(t)) {
    std::optional<DType> d = dtypeFromType(tensor.getElementType());
    if (!d)
      return std::nullopt;
    return PromotionOperand{*d, tensor.getRank() == 0
                                    ? PromotionPriority::ZeroDim
                                    : PromotionPriority::Tensor};
  }
  if (t.isInteger(1))
    return PromotionOperand{DType::Bool, PromotionPriority::Scalar};
  if (t.isInteger(64))
    return PromotionOperand{DType::I64, PromotionPriority::Scalar};
  if (t.isF64())
    return PromotionOperand{DType::F64, PromotionPriority::Scalar};
  return std::nullopt;
}

Type resultElementType(ArrayRef<Type> types, MLIRContext *ctx) {
  SmallVector<PromotionOperand> operands;
  Type unknown;
  for (Type t : types) {
    std::optional<PromotionOperand> o = promotionOperand(t);
    if (o) {
      operands.push_back(*o);
      continue;
    }
    Type elt = isa<ShapedType>(t) ? cast<ShapedType>(t).getElementType() : t;
    if (unknown && unknown != elt)
      return Type();
    unknown = elt;
  }
  if (unknown)
    return operands.empty() ? unknown : Type();
  return typeFromDType(ctx, resultType(operands));
}

FailureOr<SmallVector<int64_t>> broadcastShapes(const BoundCall &call,
                                                ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b) {
  FailureOr<SmallVector<int64_t>> out = broadcastShape(a, b);
  if (failed(out))
    call.emitError() << "shapes " << shapeStr(a) << " and " << shapeStr(b)
                     << " cannot be broadcast together";
  return out;
}

LogicalResult RuleHelper::broadcastResult(ArrayRef<int64_t> a,
                                          ArrayRef<int64_t> b,
                                          Type elementType) {
  FailureOr<SmallVector<int64_t>> shape = broadcastShapes(call, a, b);
  if (failed(shape))
    return failure();
  return result(*shape, elementType);
}

bool RuleHelper::broadcastOperand(Type operand, SmallVectorImpl<Type> &types,
                                  SmallVector<int64_t> &shape) {
  if (auto tensor = dyn_cast<TensorType>(operand)) {
    if (!tensor.hasRank())
      return false;
    FailureOr<SmallVector<int64_t>> s =
        broadcastShapes(call, shape, tensor.getShape());
    if (failed(s)) {
      reported = true;
      return false;
    }
    shape = *s;
  }
  types.push_back(operand);
  return true;
}

LogicalResult pointwise(const BoundCall &call, SmallVectorImpl<Type> &results,
                        ArrayRef<StringRef> names, bool toFloat) {
  RuleHelper h{call, results};
  MLIRContext *ctx = call.getContext();
  SmallVector<Type> types;
  SmallVector<int64_t> shape;
  bool anyTensor = false;
  for (StringRef name : names) {
    Type t = call.getType(name);
    if (!t || isa<traced::NoneType>(t))
      continue;
    if (!h.broadcastOperand(t, types, shape))
      return h.stop();
    anyTensor |= isa<TensorType>(t);
  }
  if (!anyTensor)
    return h.unknown();
  Type elt = resultElementType(types, ctx);
  if (!elt)
    return h.unknown();
  if (toFloat)
    if (std::optional<DType> d = dtypeFromType(elt))
      elt = typeFromDType(ctx, toFloatingDType(*d));
  return h.result(shape, elt);
}

FailureOr<int64_t> RuleHelper::dim(int64_t d, int64_t rank, StringRef what) {
  int64_t n = d < 0 ? d + rank : d;
  if (n < 0 || n >= rank) {
    error() << what << " " << d << " is out of range for a tensor of rank "
            << (rank == 0 ? 1 : rank);
    return failure();
  }
  return n;
}

std::optional<int64_t> RuleHelper::dimArg(RankedTensorType input,
                                          StringRef name,
                                          StringRef scalarError) {
  if (!input)
    return std::nullopt;
  if (!scalarError.empty() && input.getRank() == 0) {
    error() << scalarError;
    return std::nullopt;
  }
  std::optional<int64_t> d = call.getInt(name);
  if (!d)
    return std::nullopt;
  FailureOr<int64_t> n = dim(*d, std::max<int64_t>(input.getRank(), 1), name);
  if (failed(n))
    return std::nullopt;
  return *n;
}

LogicalResult outputMask(const BoundCall &call, SmallVectorImpl<bool> &mask) {
  auto maskAttr = dyn_cast_or_null<ArrayAttr>(call.get("output_mask").value);
  if (!maskAttr)
    return call.emitError() << "argument 'output_mask' expects bool[3]";
  for (Attribute a : maskAttr) {
    auto b = dyn_cast<BoolAttr>(a);
    if (!b)
      return call.emitError() << "argument 'output_mask' expects bool[3]";
    mask.push_back(b.getValue());
  }
  if (mask.size() != 3)
    return call.emitError()
           << "argument 'output_mask' expects 3 bools, got " << mask.size();
  return success();
}

LogicalResult checkPoolInput(const BoundCall &call, RankedTensorType input,
                             unsigned spatial) {
  int64_t rank = input.getRank();
  bool ok = rank == spatial + 1 || rank == spatial + 2;
  for (int64_t i = rank == spatial + 2 ? 1 : 0; ok && i < rank; ++i)
    ok = input.getDimSize(i) != 0;
  if (ok)
    return success();
  return call.emitError() << "expects a " << spatial + 1 << "-D or "
                          << spatial + 2
                          << "-D (batched) input with non-empty channel and "
                             "spatial dims, got "
                          << input;
}

bool RuleHelper::oneDType(RankedTensorType a, RankedTensorType b) {
  if (!a || !b)
    return false;
  if (a.getElementType() == b.getElementType())
    return true;
  error() << "expects operands of one dtype, got " << a << " and " << b;
  return false;
}

bool RuleHelper::decoded(ConvDecode status, const std::string &message) {
  if (status == ConvDecode::Invalid)
    error() << message;
  return status == ConvDecode::Ok;
}

std::optional<PoolParams> RuleHelper::poolWindow(RankedTensorType input,
                                                 unsigned spatial) {
  if (failed(checkPoolInput(call, input, spatial))) {
    reported = true;
    return std::nullopt;
  }
  PoolParams w;
  std::string message;
  ConvDecode status = withArgReader(call, [&](const ArgReader &reader) {
    return decodePool(call.getSignature(), reader, spatial, w, message);
  });
  if (!decoded(status, message))
    return std::nullopt;
  return w;
}

std::optional<SmallVector<int64_t>>
RuleHelper::pooledShape(RankedTensorType input, const PoolParams &window,
                        bool checkOutput) {
  if (checkOutput) {
    std::string message = window.checkOutput(input.getShape());
    if (!message.empty()) {
      error() << message;
      return std::nullopt;
    }
  }
  SmallVector<int64_t> out(input.getShape());
  unsigned spatial = window.kernel.size();
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t &size = out[input.getRank() - spatial + i];
    size = window.outputSize(i, size);
    if (!ShapedType::isDynamic(size))
      size = std::max<int64_t>(size, 0);
  }
  return out;
}

std::optional<SmallVector<int64_t>>
RuleHelper::reducedShape(RankedTensorType input, StringRef dimName,
                         bool keepdim, bool allIfEmpty) {
  int64_t rank = input.getRank();
  SmallVector<bool> reduced(rank, true);
  Attribute dimValue = call.get(dimName).value;
  if (!call.isNone(dimName) && !isa_and_nonnull<BoolAttr>(dimValue)) {
    std::optional<SmallVector<int64_t>> dims = call.getInts(dimName, 1);
    if (!dims)
      return std::nullopt;
    if (!dims->empty() || !allIfEmpty) {
      reduced.assign(rank, false);
      for (int64_t d : *dims) {
        FailureOr<int64_t> n = dim(d, std::max<int64_t>(rank, 1));
        if (failed(n))
          return std::nullopt;
        if (rank)
          reduced[*n] = true;
      }
    }
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i)
    if (!reduced[i])
      out.push_back(input.getDimSize(i));
    else if (keepdim)
      out.push_back(1);
  return out;
}

LogicalResult reductionResult(const BoundCall &call,
                              SmallVectorImpl<Type> &results, Type elt,
                              bool allIfEmpty, bool withIndices, bool pair,
                              StringRef dimName) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<bool> keepdim = call.getBool("keepdim");
  if (!input || !keepdim)
    return h.unknown();
  std::optional<SmallVector<int64_t>> shape =
      h.reducedShape(input, dimName, *keepdim, allIfEmpty);
  if (!shape)
    return h.stop();
  Type t = RankedTensorType::get(*shape, elt ? elt : input.getElementType());
  if (withIndices || pair) {
    Type second = pair ? t
                       : RankedTensorType::get(
                             *shape, Builder(call.getContext()).getI64Type());
    return h.result(TupleType::get(call.getContext(), {t, second}));
  }
  return h.result(t);
}

LogicalResult reduction(const BoundCall &call, SmallVectorImpl<Type> &results,
                        bool isSum) {
  RankedTensorType input = call.getTensor("input");
  if (!input || !call.getBool("keepdim").has_value())
    return RuleHelper{call, results}.unknown();
  Type elt = input.getElementType();
  // Sums of integers and bools are int64, as in PyTorch.
  if (isSum && isa<IntegerType>(elt))
    elt = IntegerType::get(call.getContext(), 64);
  if (auto dtype = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    elt = dtype.getType();
  else if (!isSum && !isa<FloatType>(elt) && dtypeFromType(elt))
    return call.emitError()
           << "argument 'input' of dtype " << elt
           << " needs a floating-point 'dtype=' (torch cannot infer the "
              "output dtype of a mean of integers)";
  // (dim=[] reduces every dim, as dim=None does.)
  return reductionResult(call, results, elt, /*allIfEmpty=*/true);
}

Type dtypeOr(const BoundCall &call, Type fallback) {
  if (auto d = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    return d.getType();
  return fallback;
}

LogicalResult noCpuKernel(const BoundCall &call, Type computed) {
  return call.emitError() << "computes in " << computed
                          << ", which is not supported: torch 1.13 has no "
                             "CPU kernel for it";
}

RankedTensorType withDimSize(RankedTensorType t, int64_t d, int64_t size) {
  SmallVector<int64_t> shape(t.getShape());
  if (!shape.empty())
    shape[d] = size;
  return RankedTensorType::get(shape, t.getElementType());
}

RankedTensorType withoutDim(RankedTensorType t, int64_t d) {
  SmallVector<int64_t> shape(t.getShape());
  shape.erase(shape.begin() + d);
  return RankedTensorType::get(shape, t.getElementType());
}

LogicalResult shapeAndDType(const BoundCall &call,
                            SmallVectorImpl<Type> &results, StringRef shapeOf,
                            StringRef dtypeOf) {
  RuleHelper h{call, results};
  RankedTensorType shape = h.tensor(shapeOf), dtype = h.tensor(dtypeOf);
  if (!shape || !dtype)
    return h.unknown();
  return h.result(shape.getShape(), dtype.getElementType());
}

SmallVector<RankedTensorType> tensorList(const BoundCall &call,
                                         StringRef name) {
  SmallVector<RankedTensorType> out;
  for (Type t : call.get(name).elements) {
    auto r = dyn_cast_or_null<RankedTensorType>(t);
    if (!r)
      return {};
    out.push_back(r);
  }
  return out;
}

std::optional<SmallVector<int64_t>>
RuleHelper::slicedShape(RankedTensorType input) {
  std::optional<int64_t> d = call.getInt("dim"), step = call.getInt("step");
  if (!d || !step)
    return std::nullopt;
  if (*step <= 0) {
    error() << "slice step must be positive, got " << *step;
    return std::nullopt;
  }
  FailureOr<int64_t> n = dim(*d, std::max<int64_t>(input.getRank(), 1));
  if (failed(n))
    return std::nullopt;
  std::optional<int64_t> start, end;
  if ((!call.isNone("start") && !(start = call.getInt("start"))) ||
      (!call.isNone("end") && !(end = call.getInt("end"))))
    return std::nullopt;
  SmallVector<int64_t> shape(input.getShape());
  if (input.getRank() && !ShapedType::isDynamic(shape[*n]))
    shape[*n] = clampSlice(shape[*n], start, end, *step).length;
  return shape;
}

bool RuleHelper::gatherIndex(RankedTensorType input, RankedTensorType index) {
  if (!input || !index)
    return false;
  if (!index.getElementType().isInteger(64)) {
    error() << "argument 'index' must be an int64 tensor, got " << index;
    return false;
  }
  if (std::max<int64_t>(index.getRank(), 1) !=
      std::max<int64_t>(input.getRank(), 1)) {
    error() << "'index' " << index << " must have as many dims as 'input' "
            << input;
    return false;
  }
  // (A traced dim is checked at run time.)
  return dimArg(input).has_value() || !reported;
}

/// A rule of Rules.def as the op table calls it: with a RuleHelper of its
/// own over the call and its results.
template <LogicalResult (&Rule)(const BoundCall &, RuleHelper &)>
static LogicalResult withHelper(const BoundCall &call,
                                SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  return Rule(call, h);
}

/// Every rule by the name the op table's rows give it (Rules.def);
/// OpTable.cpp refers to it by name.
const llvm::StringMap<ResultRule> &ruleTable() {
  static const llvm::StringMap<ResultRule> table = [] {
    static const std::pair<const char *, ResultRule> kRules[] = {
#define TRACED_RULE(name) {#name, withHelper<name>},
#define TRACED_CAST_RULE(D)                                                    \
  {"castTo<DType::" #D ">", withHelper<castTo<DType::D>>},
#include "Rules.def"
    };
    llvm::StringMap<ResultRule> byName;
    for (const auto &[name, rule] : kRules)
      byName[name] = rule;
    return byName;
  }();
  return table;
}

} // namespace mlir::traced::rules
