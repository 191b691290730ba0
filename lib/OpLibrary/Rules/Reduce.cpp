//===- Reduce.cpp - result rules of reductions ---------------------------===//
//
// The op table (OpTable.cpp) names these rules; Common.h holds what
// several families share.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

namespace mlir::traced::rules {

/// The dtype of a norm: dtype= or the input's, floating point only.
static Type normElementType(const BoundCall &call, RankedTensorType input) {
  Type elt = dtypeOr(call, input.getElementType());
  if (!isa<FloatType>(input.getElementType()) || !isa<FloatType>(elt)) {
    call.emitError() << "expected a floating point tensor as input, got "
                     << input.getElementType();
    return {};
  }
  return elt;
}

/// The nuclear norm's checks (ord/p "nuc": the sum of the singular values
/// over two dims, all of a matrix's without dim): torch.norm takes no
/// dtype, and the SVD float32 and float64 only.
static LogicalResult nuclearNormChecks(const BoundCall &call,
                                       RankedTensorType input) {
  StringRef ordName = call.getSignature().lookup("p") ? "p" : "ord";
  Attribute value = call.get(ordName).value;
  auto ord = dyn_cast_or_null<StringAttr>(value);
  // linalg.matrix_norm's 2 and -2, and linalg.norm's over two dims, are
  // the extreme singular values: the SVD's dtypes.
  std::optional<double> number = call.getFloat(ordName);
  std::optional<SmallVector<int64_t>> given = call.getInts("dim");
  bool matrix = call.getTarget() == "torch.linalg.matrix_norm" ||
                (call.getTarget() == "torch.linalg.norm" &&
                 ((given && given->size() == 2) ||
                  (call.isNone("dim") && input.getRank() == 2)));
  if (!ord && matrix && number && std::abs(*number) == 2) {
    Type elt = dtypeOr(call, input.getElementType());
    if (!elt.isF32() && !elt.isF64())
      return call.emitError() << "the matrix 2-norm's SVD takes float32 or "
                                 "float64 (no LAPACK kernel for "
                              << elt << ")";
    return success();
  }
  if (!ord || ord.getValue() != "nuc")
    return success();
  if (call.getTarget() == "torch.norm" && !call.isNone("dtype"))
    return call.emitError() << "dtype argument is not supported in nuclear "
                               "norm";
  if (call.isNone("dim")) {
    if (input.getRank() != 2)
      return call.emitError() << "Expected a tensor with 2 dimensions, but "
                                 "got a tensor with "
                              << input.getRank() << " dimensions instead.";
  } else if (std::optional<SmallVector<int64_t>> dims = call.getInts("dim")) {
    if (dims->size() != 2)
      return call.emitError() << "the nuclear norm takes dim of 2 dims, got "
                              << dims->size();
  }
  Type elt = dtypeOr(call, input.getElementType());
  if (!elt.isF32() && !elt.isF64())
    return call.emitError() << "the nuclear norm's SVD takes float32 or "
                               "float64 (no LAPACK kernel for "
                            << elt << ")";
  return success();
}

/// vector_norm, torch.norm and linalg.norm over `dim` (matrix norms over
/// two dims reduce the same dims).
LogicalResult norm(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<bool> keepdim = call.getBool("keepdim");
  if (!input || !keepdim)
    return h.unknown();
  Type elt = normElementType(call, input);
  if (!elt)
    return failure();
  if (failed(nuclearNormChecks(call, input)))
    return failure();
  // linalg.norm of a 2-D input without dim reduces both dims, as None does.
  std::optional<SmallVector<int64_t>> shape =
      h.reducedShape(input, "dim", *keepdim);
  if (!shape)
    return h.stop();
  return h.result(*shape, elt);
}

/// cosine_similarity (drops `dim`) and pairwise_distance (drops the last
/// dim, or keeps it as 1): the broadcast inputs' promoted float dtype.
LogicalResult pairDistance(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("x1"), b = h.tensor("x2");
  if (!a || !b)
    return h.unknown();
  Type elt = resultElementType({a, b}, call.getContext());
  if (!elt)
    return h.unknown();
  bool pairwise = !call.getSignature().lookup("dim");
  // pairwise_distance computes x1 - x2 + eps: no bool, and integers
  // give the default float.
  if (pairwise && (a.getElementType().isInteger(1) ||
                   b.getElementType().isInteger(1)))
    return call.emitError() << "Subtraction, the `-` operator, with a bool "
                               "tensor is not supported";
  if (pairwise && !isa<FloatType>(elt))
    elt = Float32Type::get(call.getContext());
  if (!isa<FloatType>(elt))
    return call.emitError() << "expects floating-point inputs, got " << a
                            << " and " << b;
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, a.getShape(), b.getShape());
  if (failed(shape))
    return failure();
  int64_t rank = shape->size();
  if (call.getSignature().lookup("dim")) {
    std::optional<int64_t> d = call.getInt("dim");
    if (!d)
      return h.unknown();
    FailureOr<int64_t> n = h.dim(*d, std::max<int64_t>(rank, 1));
    if (failed(n))
      return failure();
    if (rank)
      shape->erase(shape->begin() + *n);
    return h.result(*shape, elt);
  }
  std::optional<bool> keepdim = call.getBool("keepdim");
  if (!keepdim)
    return h.unknown();
  if (rank) {
    if (*keepdim)
      shape->back() = 1;
    else
      shape->pop_back();
  }
  return h.result(*shape, elt);
}

/// pdist's and cdist's dtype check: float32 or float64, p >= 0.
static LogicalResult distanceOperands(const BoundCall &call, StringRef what,
                                      ArrayRef<RankedTensorType> operands) {
  for (RankedTensorType t : operands) {
    Type elt = t.getElementType();
    if (elt.isF16() || elt.isBF16())
      return call.emitError() << "\"" << what << "\" not implemented for '"
                              << (elt.isF16() ? "Half" : "BFloat16") << "'";
    if (!isa<FloatType>(elt))
      return call.emitError() << what << " only supports floating-point dtypes, got "
                              << elt;
  }
  std::optional<double> p = call.getFloat("p");
  if (p && !(*p >= 0))
    return call.emitError() << what << " only supports non-negative p values";
  return success();
}

/// pdist: the distances of the N(N - 1) / 2 row pairs i < j of a matrix.
LogicalResult pdist(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getRank() != 2)
    return call.emitError() << "pdist only supports 2D tensors, got: "
                            << input.getRank() << "D";
  if (failed(distanceOperands(call, "pdist", {input})))
    return failure();
  int64_t n = input.getDimSize(0);
  return h.result({ShapedType::isDynamic(n) ? kDynamic : n * (n - 1) / 2},
                  input.getElementType());
}

/// cdist: [B..., P, M] and [B..., R, M] give [B..., P, R] (the batch dims
/// broadcast).
LogicalResult cdist(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("x1"), b = h.tensor("x2");
  if (!a || !b)
    return h.unknown();
  for (RankedTensorType t : {a, b})
    if (t.getRank() < 2)
      return call.emitError() << "cdist only supports at least 2D tensors, got "
                              << t.getRank() << "D";
  if (failed(distanceOperands(call, "cdist", {a, b})))
    return failure();
  if (a.getElementType() != b.getElementType())
    return call.emitError() << "expects x1 and x2 of one dtype, got " << a
                            << " and " << b;
  if (dimsDiffer(a.getShape().back(), b.getShape().back()))
    return call.emitError() << "X1 and X2 must have the same number of columns. X1: "
                            << a.getShape().back() << " X2: " << b.getShape().back();
  if (auto mode = dyn_cast_or_null<StringAttr>(call.get("compute_mode").value);
      mode && mode.getValue() != "use_mm_for_euclid_dist_if_necessary" &&
      mode.getValue() != "use_mm_for_euclid_dist" &&
      mode.getValue() != "donot_use_mm_for_euclid_dist")
    return call.emitError() << mode.getValue() << " is not a valid value for compute_mode";
  FailureOr<SmallVector<int64_t>> batch =
      broadcastShapes(call, a.getShape().drop_back(2), b.getShape().drop_back(2));
  if (failed(batch))
    return failure();
  batch->push_back(a.getShape()[a.getRank() - 2]);
  batch->push_back(b.getShape()[b.getRank() - 2]);
  return h.result(*batch, a.getElementType());
}

/// torch.renorm: the input's type; torch refuses fewer than 2 dims.
LogicalResult renorm(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = call.getTensor("input");
  if (input && input.getRank() < 2)
    return call.emitError() << "renorm: input needs at least 2 dimensions, got "
                            << input.getRank() << " dimensions";
  return sameAsInput(call, h);
}

LogicalResult softmax(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  Type elt = dtypeOr(call, input.getElementType());
  // ATen's _softmax/_log_softmax(x, dim, half_to_float).
  if (call.getSignature().lookup("half_to_float") &&
      call.getBool("half_to_float").value_or(true))
    return call.emitError() << "softmax with half to float conversion is not "
                               "supported on CPU";
  // torch 1.13's CPU softmax takes float32, float64 and bfloat16, after
  // the conversion to `dtype`.
  // (An empty input never reaches the kernel, so torch accepts it.)
  bool empty = input.hasStaticShape() && input.getNumElements() == 0;
  if (std::optional<DType> d = dtypeFromType(elt))
    if (!empty && *d != DType::F32 && *d != DType::F64 && *d != DType::BF16)
      return call.emitError()
             << "computes in " << dtypeName(*d)
             << ", which is not supported: torch 1.13 has no CPU kernel for "
                "it (pass a floating 'dtype=')";
  return h.result(input.getShape(), elt);
}

static Type i64Type(const BoundCall &call) {
  return Builder(call.getContext()).getI64Type();
}

/// A reduction over floating-point input only (var, std).
static LogicalResult floatOnlyReduction(const BoundCall &call,
                                        SmallVectorImpl<Type> &results,
                                        bool pair) {
  RankedTensorType input = call.getTensor("input");
  if (input && dtypeFromType(input.getElementType()) &&
      !isa<FloatType>(input.getElementType()))
    return call.emitError() << "argument 'input' of type " << input
                            << " is not supported: std and var take floating "
                               "point tensors";
  return reductionResult(call, results, Type(), /*allIfEmpty=*/true,
                         /*withIndices=*/false, pair);
}

LogicalResult amaxAmin(const BoundCall &call, RuleHelper &h) {
  return reductionResult(call, h.results, Type(), /*allIfEmpty=*/true);
}

/// torch.aminmax: (min, max) over `dim` (None: every dim).
LogicalResult aminmax(const BoundCall &call, RuleHelper &h) {
  // "aminmax_cpu" has no bfloat16 kernel with a dim (the whole-tensor
  // form has one), whatever the size.
  if (RankedTensorType in = call.getTensor("input"))
    if (in.getElementType().isBF16() && !call.isNone("dim"))
      return noCpuKernel(call, in.getElementType());
  return reductionResult(call, h.results, Type(), /*allIfEmpty=*/false,
                         /*withIndices=*/false, /*pair=*/true);
}

LogicalResult argExtreme(const BoundCall &call, RuleHelper &h) {
  return reductionResult(call, h.results, i64Type(call));
}

LogicalResult maxMin(const BoundCall &call, RuleHelper &h) {
  if (isa<TensorType>(call.getType("dim")))
    return call.emitError() << "the binary form (input, other) is spelled "
                               "torch.maximum / torch.minimum here";
  // torch.max(x, keepdim=True) has no overload in torch ("received an
  // invalid combination of arguments"); kept, it typed a keepdim reduction.
  if (call.isNone("dim") && call.getBool("keepdim").value_or(false))
    return call.emitError() << "keepdim needs a dim: torch has no overload "
                               "(input, keepdim)";
  return reductionResult(call, h.results, Type(), false,
                         /*withIndices=*/!call.isNone("dim"));
}

/// quantile and nanquantile (torch 1.13's quantile_checks and
/// quantile_output_shape): a float32/float64 input, non-empty; q a number
/// in [0, 1] or a 0-d/1-D tensor of the input's dtype; the result is the
/// input reduced over `dim` (None: every dim; keepdim keeps ones), with q's
/// length in front for a 1-D q.
LogicalResult quantile(const BoundCall &call, RuleHelper &h) {
  StringRef op = call.getTarget() == "torch.nanquantile" ? "nanquantile" : "quantile";
  RankedTensorType input = h.tensor("input");
  Type qType = call.getType("q");
  if (!isa<TensorType>(qType)) {
    std::optional<double> q = call.getFloat("q");
    if (q && !(*q >= 0 && *q <= 1))
      return call.emitError() << op << "() q must be in the range [0, 1] but got " << *q;
  }
  if (auto s = dyn_cast_or_null<StringAttr>(call.get("interpolation").value)) {
    if (!llvm::is_contained({"linear", "lower", "higher", "midpoint", "nearest"}, s.getValue()))
      return call.emitError() << op << "() interpolation must be one of linear, lower, "
                                       "higher, midpoint or nearest, but got "
                              << s.getValue();
  }
  std::optional<bool> keepdim = call.getBool("keepdim");
  if (!input || !keepdim)
    return h.unknown();
  if (input.hasStaticShape() && input.getNumElements() == 0)
    return call.emitError() << op << "() input tensor must be non-empty";
  auto qTensor = dyn_cast<RankedTensorType>(qType);
  if (qTensor && qTensor.getRank() > 1)
    return call.emitError() << op << "() q must be a scalar or 1D tensor";
  Type elt = input.getElementType();
  if (!elt.isF32() && !elt.isF64())
    return call.emitError() << op << "() input tensor must be either float or double dtype";
  if (qTensor && qTensor.getElementType() != elt)
    return call.emitError() << op << "() q tensor must be same dtype as the input tensor";
  SmallVector<int64_t> shape;
  if (!call.isNone("dim")) {
    std::optional<int64_t> d = h.dimArg(input);
    if (!d)
      return h.stop();
    if (input.getRank() > 0) {
      shape.assign(input.getShape().begin(), input.getShape().end());
      if (*keepdim)
        shape[*d] = 1;
      else
        shape.erase(shape.begin() + *d);
    }
  } else if (*keepdim) {
    shape.assign(input.getRank(), 1);
  }
  if (qTensor && qTensor.getRank() == 1)
    shape.insert(shape.begin(), qTensor.getDimSize(0));
  return h.result(shape, elt);
}

/// mode: (values, int64 indices) along `dim`, which must not be empty.
LogicalResult mode(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (std::optional<int64_t> d = h.dimArg(input))
    if (input.getRank() > 0 && input.getDimSize(*d) == 0)
      return call.emitError() << "mode(): Expected reduction dim " << *call.getInt("dim")
                              << " to have non-zero size.";
  if (h.reported)
    return failure();
  return reductionResult(call, h.results, Type(), /*allIfEmpty=*/false,
                         /*withIndices=*/true);
}

/// histc: `bins` counts of float32/float64/bfloat16 input (torch 1.13's
/// histogram_cpu kernels), between min and max (equal: the data's range,
/// checked when the data is there).
LogicalResult histc(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> bins = call.getInt("bins");
  if (bins && *bins <= 0)
    return call.emitError() << "torch.histogram(): bins must be > 0, but got " << *bins
                            << " for dimension 0";
  std::optional<double> lo = call.getFloat("min"), hi = call.getFloat("max");
  if (lo && hi && *lo != *hi) {
    if (!std::isfinite(*lo) || !std::isfinite(*hi))
      return call.emitError() << "torch.histc: range of [" << *lo << ", " << *hi
                              << "] is not finite";
    if (!(*lo < *hi))
      return call.emitError() << "torch.histc: max must be larger than min";
  }
  if (!input || !bins)
    return h.unknown();
  Type elt = input.getElementType();
  if (!elt.isF32() && !elt.isF64() && !elt.isBF16())
    return call.emitError() << "\"histogram_cpu\" not implemented for '" << elt << "'";
  return h.result({*bins}, elt);
}

/// histogram: (hist, bin_edges) of float32/float64 input, `bins` an int
/// (equal bins over `range`, else the data's) or a 1-D tensor of edges;
/// `weight` of the input's shape and dtype (torch 1.13's histogramdd checks).
LogicalResult histogram(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  RankedTensorType weight = call.isNone("weight") ? nullptr : h.tensor("weight");
  int64_t bins = kDynamic;
  if (auto edges = dyn_cast<RankedTensorType>(call.getType("bins"))) {
    if (edges.getRank() != 1)
      return call.emitError() << "torch.histogramdd: bins tensor should have one dimension, but got "
                              << edges.getRank() << " dimensions in the bins tensor for dimension 0";
    if (!call.isNone("range"))
      return call.emitError() << "histogram() takes no range with a bins tensor";
    if (!ShapedType::isDynamic(edges.getDimSize(0)))
      bins = edges.getDimSize(0) - 1;
    if (input && edges.getElementType() != input.getElementType())
      return call.emitError() << "torch.histogramdd: input tensor and bins tensors should have "
                                 "the same dtype, but got input with dtype "
                              << input.getElementType() << " and bins for dimension 0 with dtype "
                              << edges.getElementType();
  } else if (std::optional<int64_t> n = call.getInt("bins")) {
    bins = *n;
  }
  if (!ShapedType::isDynamic(bins) && bins <= 0)
    return call.emitError() << "torch.histogram(): bins must be > 0, but got " << bins
                            << " for dimension 0";
  if (auto range = dyn_cast_or_null<ArrayAttr>(call.get("range").value)) {
    std::optional<double> lo = range.size() == 2 ? getPyFloat(range[0]) : std::nullopt;
    std::optional<double> hi = range.size() == 2 ? getPyFloat(range[1]) : std::nullopt;
    if (!lo || !hi)
      return call.emitError() << "histogram() expects range=(min, max)";
    if (!std::isfinite(*lo) || !std::isfinite(*hi))
      return call.emitError() << "torch.histogramdd: dimension 0's range [" << *lo << ", "
                              << *hi << "] is not finite";
    if (*lo > *hi)
      return call.emitError() << "torch.histogramdd: min should not exceed max, but got min "
                              << *lo << " max " << *hi << " for dimension 0";
  }
  if (!input)
    return h.unknown();
  Type elt = input.getElementType();
  // (bfloat16 has histogramdd's kernel, not the one finding the data's range.)
  bool dataRange = !isa<TensorType>(call.getType("bins")) && call.isNone("range");
  if (!elt.isF32() && !elt.isF64() && (!elt.isBF16() || dataRange))
    return call.emitError() << "\"histogramdd\" not implemented for '" << elt << "'";
  if (weight && weight.getElementType() != elt)
    return call.emitError() << "torch.histogramdd: if weight tensor is provided, input tensor "
                               "and weight tensor should have the same dtype";
  if (weight && weight.getShape() != input.getShape())
    return call.emitError() << "torch.histogramdd: if weight tensor is provided it should have "
                               "the same shape as the input tensor";
  if (ShapedType::isDynamic(bins))
    return h.unknown();
  auto hist = RankedTensorType::get({bins}, elt);
  auto edges = RankedTensorType::get({bins + 1}, elt);
  return h.result(TupleType::get(call.getContext(), {hist, edges}));
}

/// segment_reduce (torch 1.13's checks): floating data, reduced along
/// `axis` in segments given by `lengths` or `offsets` (int32/int64, axis
/// their last dim, their other dims the data's leading ones); the result
/// is the data with dim `axis` the segments' count.
LogicalResult segmentReduce(const BoundCall &call, RuleHelper &h) {
  RankedTensorType data = h.tensor("data");
  if (auto r = dyn_cast_or_null<StringAttr>(call.get("reduce").value))
    if (!llvm::is_contained({"sum", "mean", "max", "min", "prod"}, r.getValue()))
      return call.emitError() << "unsupported reduction given! " << r.getValue();
  if (!call.isNone("indices"))
    return call.emitError() << "segment_reduce(): indices based reduction is not supported yet.";
  bool byLengths = !call.isNone("lengths");
  if (!byLengths && call.isNone("offsets"))
    return call.emitError() << "segment_reduce(): Either lengths or offsets must be defined.";
  RankedTensorType segments = h.tensor(byLengths ? "lengths" : "offsets");
  std::optional<int64_t> axis = call.getInt("axis");
  if (!data || !segments || !axis)
    return h.unknown();
  Type elt = data.getElementType();
  if (!isa<FloatType>(elt))
    return call.emitError() << "\"_segment_reduce_cpu\" not implemented for '" << elt << "'";
  if (!segments.getElementType().isSignlessInteger(64) &&
      !segments.getElementType().isSignlessInteger(32))
    return call.emitError() << "segment_reduce(): expects int32 or int64 "
                            << (byLengths ? "lengths" : "offsets");
  FailureOr<int64_t> a = h.dim(*axis, std::max<int64_t>(data.getRank(), 1), "axis");
  if (failed(a))
    return failure();
  if (*a != segments.getRank() - 1 || data.getRank() < segments.getRank())
    return call.emitError() << "segment_reduce(): Expected axis to be the last dimension of "
                            << (byLengths ? "lengths" : "offsets") << " but got " << *axis << ".";
  for (int64_t i = 0; i < *a; ++i)
    if (dimsDiffer(segments.getDimSize(i), data.getDimSize(i)))
      return call.emitError() << "segment_reduce(): the " << (byLengths ? "lengths" : "offsets")
                              << " differ from the data in dim " << i;
  SmallVector<int64_t> shape(data.getShape());
  int64_t count = segments.getDimSize(*a);
  shape[*a] = ShapedType::isDynamic(count) || byLengths ? count : count - 1;
  return h.result(shape, elt);
}

LogicalResult allAny(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = call.getTensor("input");
  Builder b(call.getContext());
  Type elt = input && input.getElementType().isUnsignedInteger(8)
                 ? input.getElementType()
                 : Type(b.getI1Type());
  return reductionResult(call, h.results, elt);
}

LogicalResult prod(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = call.getTensor("input");
  Type elt;
  if (auto dtype = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    elt = dtype.getType();
  else if (input && isa<IntegerType>(input.getElementType()))
    elt = i64Type(call);
  return reductionResult(call, h.results, elt);
}

/// prims.prod: torch.prod over each of `dims` in turn, sorted largest
/// first as given (so a later negative dim counts from the reduced rank);
/// none leaves the input as it is.
LogicalResult primsProd(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("inp");
  std::optional<SmallVector<int64_t>> dims = call.getInts("dims");
  if (!input || !dims)
    return h.unknown();
  if (dims->empty())
    return h.result(input);
  Type elt = input.getElementType();
  if (auto dtype = dyn_cast_or_null<DTypeAttr>(call.get("output_dtype").value))
    elt = dtype.getType();
  else if (isa<IntegerType>(elt))
    elt = i64Type(call);
  SmallVector<int64_t> shape(input.getShape());
  SmallVector<int64_t> order(*dims);
  llvm::sort(order, std::greater<int64_t>());
  for (int64_t d : order) {
    // torch.prod has no float16 or bfloat16 kernel, but an empty input
    // never reaches it.
    bool empty = llvm::is_contained(shape, 0);
    if (isa<FloatType>(elt) && !elt.isF32() && !elt.isF64() && !empty)
      return call.emitError() << "\"prod_cpu\" not implemented for '"
                              << torchTypeName(*dtypeFromType(elt)) << "'";
    FailureOr<int64_t> n = h.dim(d, shape.size());
    if (failed(n))
      return failure();
    if (!shape.empty())
      shape.erase(shape.begin() + *n);
  }
  return h.result(shape, elt);
}

LogicalResult moments(const BoundCall &call, RuleHelper &h) {
  return floatOnlyReduction(call, h.results, /*pair=*/false);
}

LogicalResult momentsWithMean(const BoundCall &call, RuleHelper &h) {
  return floatOnlyReduction(call, h.results, /*pair=*/true);
}

LogicalResult logsumexp(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = call.getTensor("input");
  Type elt;
  if (input)
    if (std::optional<DType> d = dtypeFromType(input.getElementType()))
      elt = typeFromDType(call.getContext(), toFloatingDType(*d));
  return reductionResult(call, h.results, elt);
}

LogicalResult scan(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  std::optional<int64_t> d = call.getInt("dim");
  if (d && failed(h.dim(*d, std::max<int64_t>(input.getRank(), 1))))
    return failure();
  Type elt = input.getElementType();
  if (auto dtype = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    elt = dtype.getType();
  else if (isa<IntegerType>(elt))
    elt = i64Type(call);
  // cumsum and cumprod compute in the result's dtype and have no float16
  // kernel, but return first when the input is empty or 0-d (a copy).
  bool trivial = input.getRank() == 0 ||
                 (input.hasStaticShape() && input.getNumElements() == 0);
  if (elt.isF16() && !trivial)
    return noCpuKernel(call, elt);
  return h.result(input.getShape(), elt);
}

/// trapezoid (trapz) and cumulative_trapezoid: the rule's integral of y
/// along dim over the sample points x (or a spacing dx): y without dim (the
/// cumulative one: dim one shorter), broadcast with x's differences, in
/// the promoted dtype made floating (trapezoid over no samples: zeros of
/// y's dtype).
LogicalResult trapezoid(const BoundCall &call, RuleHelper &h) {
  RankedTensorType y = h.tensor("y"), x = h.tensor("x");
  std::optional<int64_t> dim = call.getInt("dim");
  if (!y || !dim || (!x && !call.isNone("x")))
    return h.unknown();
  bool cumulative = call.getTarget().contains("cumulative");
  if (y.getRank() == 0)
    return call.emitError() << "Dimension specified as " << *dim
                            << " but tensor has no dimensions";
  FailureOr<int64_t> n = h.dim(*dim, y.getRank());
  if (failed(n))
    return failure();
  if (!x && !call.isNone("dx") && !call.getFloat("dx"))
    return h.unknown();
  if (x && !call.isNone("dx"))
    return call.emitError() << "takes x or dx, not both";
  if (!cumulative && y.getDimSize(*n) == 0)
    return h.result(withoutDim(y, *n));
  if (y.getElementType().isInteger(1) || (x && x.getElementType().isInteger(1)))
    return call.emitError() << (cumulative ? "cumulative_trapezoid" : "trapezoid")
                            << ": received a bool input for `" << (x && x.getElementType().isInteger(1) ? "x" : "y")
                            << "`, but bool is not supported";
  int64_t len = y.getDimSize(*n);
  SmallVector<int64_t> shape(y.getShape());
  if (!ShapedType::isDynamic(len))
    shape[*n] = std::max<int64_t>(len - 1, 0);
  Type e = y.getElementType();
  if (x) {
    SmallVector<int64_t> xs(x.getShape());
    if (x.getRank() == 1) {
      if (dimsDiffer(x.getDimSize(0), len))
        return call.emitError() << "trapezoid: There must be one `x` value for "
                                   "each sample point";
      xs.assign(y.getRank(), 1);
      xs[*n] = x.getDimSize(0);
    }
    if (static_cast<int64_t>(xs.size()) > y.getRank() ||
        (static_cast<int64_t>(xs.size()) == y.getRank() && xs[*n] == 0))
      return call.emitError() << "x does not broadcast with y";
    xs.insert(xs.begin(), y.getRank() - xs.size(), 1);
    if (!ShapedType::isDynamic(xs[*n]))
      xs[*n] = std::max<int64_t>(xs[*n] - 1, 0);
    FailureOr<SmallVector<int64_t>> b = broadcastShapes(call, shape, xs);
    if (failed(b))
      return failure();
    shape = *b;
    e = resultElementType({y, x}, call.getContext());
  }
  if (!e)
    return h.unknown();
  if (!isa<FloatType>(e))
    e = Float32Type::get(call.getContext());
  // (cumsum has no float16 kernel, but returns first when empty.)
  if (cumulative && e.isF16() &&
      !llvm::any_of(shape, [](int64_t s) { return s == 0; }))
    return noCpuKernel(call, e);
  if (!cumulative)
    shape.erase(shape.begin() + *n);
  return h.result(shape, e);
}

/// linalg.vander: [..., n, N] powers 0..N-1 of the elements (integers as
/// int64: cumprod's dtype).
LogicalResult vander(const BoundCall &call, RuleHelper &h) {
  RankedTensorType x = h.tensor("x");
  if (!x)
    return h.unknown();
  Type e = x.getElementType();
  if (e.isInteger(1) || e.isF16() || e.isBF16())
    return call.emitError() << "linalg.vander supports floating point, "
                               "complex, and integer tensors, but got "
                            << e;
  SmallVector<int64_t> shape(x.getShape());
  if (shape.empty())
    shape.push_back(1);
  int64_t n = shape.back();
  if (!call.isNone("N")) {
    std::optional<int64_t> given = call.getInt("N");
    if (!given)
      return h.unknown();
    n = *given;
  }
  if (!ShapedType::isDynamic(n) && n <= 1)
    return call.emitError() << "N must be greater than 1.";
  shape.push_back(n);
  if (isa<IntegerType>(e))
    e = IntegerType::get(call.getContext(), 64);
  return h.result(shape, e);
}

/// cov and corrcoef: the [rows, rows] matrix of the variables (rows; a
/// vector is one, and the matrix of one is 0-d), floating (integers as
/// float32); weights are not supported here.
LogicalResult covariance(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  if (!in)
    return h.unknown();
  bool isCov = call.getTarget() == "torch.cov";
  if (in.getRank() > 2)
    return call.emitError() << (isCov ? "cov" : "corrcoef")
                            << "(): expected input to have two or fewer "
                               "dimensions but got an input with "
                            << in.getRank() << " dimensions";
  Type e = in.getElementType();
  if (e.isInteger(1))
    return call.emitError() << "cov(): bool dtype is not supported for input";
  if (isCov && (!call.isNone("fweights") || !call.isNone("aweights")))
    return call.emitError() << "cov(): fweights and aweights are not "
                               "supported here";
  if (isCov && !call.getInt("correction"))
    return h.unknown();
  if (e.isF16())
    return noCpuKernel(call, e);
  if (!isa<FloatType>(e))
    e = Float32Type::get(call.getContext());
  int64_t rows = in.getRank() == 2 ? in.getDimSize(0) : 1;
  if (rows == 1)
    return h.result(ArrayRef<int64_t>{}, e);
  return h.result({rows, rows}, e);
}

/// cummax and cummin: (values, int64 indices), both of the input's shape.
LogicalResult cumulativeExtreme(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> dim = h.dimArg(input);
  if (!dim)
    return h.stop();
  auto indices = RankedTensorType::get(input.getShape(), i64Type(call));
  return h.result(TupleType::get(call.getContext(), {input, indices}));
}

LogicalResult reduce(const BoundCall &call, RuleHelper &h) {
  return reduction(call, h.results, /*isSum=*/false);
}

LogicalResult sum(const BoundCall &call, RuleHelper &h) {
  return reduction(call, h.results, /*isSum=*/true);
}

/// count_nonzero: an int64 count over `dim` (all dims when None).
LogicalResult countNonzero(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  std::optional<SmallVector<int64_t>> shape =
      h.reducedShape(input, "dim", /*keepdim=*/false, /*allIfEmpty=*/true);
  if (!shape)
    return h.stop();
  return h.result(*shape, Builder(call.getContext()).getI64Type());
}

} // namespace mlir::traced::rules
