//===- Index.cpp - result rules of indexing ops --------------------------===//
//
// The op table (OpTable.cpp) names these rules; Common.h holds what
// several families share.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

namespace mlir::traced::rules {

LogicalResult takeAlongDim(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input"), idx = h.tensor("indices");
  if (!in || !idx)
    return h.unknown();
  // (torch 1.13 takes int64 indices only.)
  if (!idx.getElementType().isInteger(64))
    return call.emitError() << "torch.take_along_dim(): dtype of indices "
                               "should be Long but got "
                            << idx.getElementType();
  if (call.isNone("dim")) {
    int64_t n = idx.hasStaticShape() ? idx.getNumElements()
                                     : ShapedType::kDynamic;
    return h.result({n}, in.getElementType());
  }
  std::optional<int64_t> d = call.getInt("dim");
  if (!d)
    return h.unknown();
  if (in.getRank() != idx.getRank())
    return call.emitError() << "input and indices should have the same "
                               "number of dimensions";
  FailureOr<int64_t> n = h.dim(*d, in.getRank());
  if (failed(n))
    return failure();
  SmallVector<int64_t> a(in.getShape()), b(idx.getShape());
  a[*n] = 1;
  b[*n] = 1;
  FailureOr<SmallVector<int64_t>> shape = broadcastShapes(call, a, b);
  if (failed(shape))
    return failure();
  (*shape)[*n] = idx.getDimSize(*n);
  return h.result(*shape, in.getElementType());
}

/// index_put: the input's type; torch requires values of the input's dtype.
LogicalResult indexPut(const BoundCall &call, RuleHelper &h) {
  auto in = dyn_cast_or_null<RankedTensorType>(call.getType("input"));
  auto values = dyn_cast_or_null<RankedTensorType>(call.getType("values"));
  if (in && values && in.getElementType() != values.getElementType())
    return call.emitError()
           << "index_put requires values of the input's dtype: got "
           << values.getElementType() << " values for a "
           << in.getElementType() << " input";
  h.results.push_back(call.getType("input"));
  return success();
}

LogicalResult indexSelect(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), index = h.tensor("index");
  if (!input || !index)
    return h.unknown();
  // torch 1.13: "Expected dtype int32 or int64 for index".
  std::optional<DType> d = dtypeFromType(index.getElementType());
  if (!d || (*d != DType::I32 && *d != DType::I64) || index.getRank() > 1)
    return call.emitError() << "argument 'index' must be a 0-d or 1-d int32 "
                               "or int64 tensor, got "
                            << index;
  std::optional<int64_t> dim = h.dimArg(input);
  if (!dim)
    return h.stop();
  return h.result(
      withDimSize(input, *dim, index.getRank() ? index.getDimSize(0) : 1));
}

/// torch.nonzero and argwhere: one int64 row of coordinates per nonzero
/// element ([count, rank]; a 0-d input has no columns), or with as_tuple
/// one 1-D tensor per dim (one for a 0-d input). The count depends on the
/// values: unknown unless the input is empty (a traced call declares its
/// trace's).
LogicalResult nonzero(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  std::optional<bool> asTuple = false;
  if (call.getSignature().lookup("as_tuple"))
    asTuple = call.getBool("as_tuple");
  if (!asTuple)
    return h.unknown();
  bool empty = input.hasStaticShape() && input.getNumElements() == 0;
  int64_t count = empty ? 0 : ShapedType::kDynamic;
  Type i64 = IntegerType::get(call.getContext(), 64);
  if (!*asTuple)
    return h.result({count, input.getRank()}, i64);
  SmallVector<Type> parts(std::max<int64_t>(input.getRank(), 1),
                          RankedTensorType::get({count}, i64));
  return h.result(TupleType::get(call.getContext(), parts));
}

/// torch.masked_select: the input's elements (broadcast with the mask)
/// where the mask (bool, or uint8 as torch 1.13 still takes it) is set, in
/// row-major order, as a 1-D tensor of the input's dtype. The count depends
/// on the values: unknown unless the broadcast shape is empty (a traced
/// call declares its trace's).
LogicalResult maskedSelect(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), mask = h.tensor("mask");
  if (!input || !mask)
    return h.unknown();
  std::optional<DType> m = dtypeFromType(mask.getElementType());
  if (!m || (*m != DType::Bool && *m != DType::U8))
    return call.emitError()
           << "masked_select: expected BoolTensor or ByteTensor for mask, got "
           << mask;
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, input.getShape(), mask.getShape());
  if (failed(shape))
    return failure();
  bool empty = llvm::is_contained(*shape, 0);
  return h.result({empty ? 0 : ShapedType::kDynamic}, input.getElementType());
}

/// torch.unique_consecutive: the input with each run of equal elements
/// (along `dim`, of equal slices; NaN equals nothing) kept once, in the
/// input's dtype; return_inverse adds each element's run (the input's
/// shape; along `dim`, one per slice), return_counts each run's length,
/// both int64. The run count depends on the values: unknown unless at most
/// one element (slice) is given (a traced call declares its trace's).
LogicalResult uniqueConsecutive(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<bool> inverse = call.getBool("return_inverse"),
                      counts = call.getBool("return_counts");
  if (!input || !inverse || !counts)
    return h.unknown();
  auto runsOf = [](int64_t n) { return n == 0 || n == 1 ? n : ShapedType::kDynamic; };
  SmallVector<int64_t> values, inverseShape;
  int64_t runs;
  if (call.isNone("dim")) {
    runs = runsOf(input.hasStaticShape() ? input.getNumElements() : ShapedType::kDynamic);
    values = {runs};
    inverseShape.assign(input.getShape().begin(), input.getShape().end());
  } else {
    std::optional<int64_t> given = call.getInt("dim");
    if (given && input.getRank() == 0)
      return call.emitError() << "Dimension specified as " << *given
                              << " but tensor has no dimensions";
    std::optional<int64_t> dim = h.dimArg(input);
    if (!dim)
      return h.stop();
    int64_t n = input.getDimSize(*dim);
    runs = runsOf(n);
    values.assign(input.getShape().begin(), input.getShape().end());
    values[*dim] = runs;
    inverseShape = {n};
  }
  MLIRContext *ctx = call.getContext();
  Type i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> parts = {RankedTensorType::get(values, input.getElementType())};
  if (*inverse)
    parts.push_back(RankedTensorType::get(inverseShape, i64));
  if (*counts)
    parts.push_back(RankedTensorType::get({runs}, i64));
  if (parts.size() == 1)
    return h.result(parts[0]);
  return h.result(TupleType::get(ctx, parts));
}

/// torch.bincount: how often each value of a 1-D non-negative integer
/// input occurs (or the sum of its weights), max(input) + 1 bins but at
/// least `minlength`: int64, float32 for float32 weights, else float64. The
/// size depends on the values (a traced call declares its trace's).
LogicalResult bincount(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> minlength = call.getInt("minlength");
  if (!input || !minlength)
    return h.unknown();
  if (input.getRank() != 1)
    return call.emitError()
           << "bincount only supports 1-d non-negative integral inputs.";
  if (*minlength < 0)
    return call.emitError() << "minlength should be >= 0";
  MLIRContext *ctx = call.getContext();
  Type element = IntegerType::get(ctx, 64);
  if (!call.isNone("weights")) {
    RankedTensorType weights = h.tensor("weights");
    if (!weights)
      return h.unknown();
    if (weights.getRank() != 1 ||
        (!input.isDynamicDim(0) && !weights.isDynamicDim(0) &&
         weights.getDimSize(0) != input.getDimSize(0)))
      return call.emitError() << "weights should be 1-d and have the same "
                                 "length as input";
    element = weights.getElementType().isF32()
                  ? static_cast<Type>(Float32Type::get(ctx))
                  : static_cast<Type>(Float64Type::get(ctx));
  }
  int64_t size = input.getDimSize(0) == 0 ? *minlength : ShapedType::kDynamic;
  return h.result({size}, element);
}

LogicalResult gather(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), index = h.tensor("index");
  if (!h.gatherIndex(input, index))
    return h.stop();
  return h.result(index.getShape(), input.getElementType());
}

LogicalResult embedding(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), weight = h.tensor("weight");
  if (!input || !weight)
    return h.unknown();
  if (!isa<IntegerType>(input.getElementType()) ||
      input.getElementType().isInteger(1))
    return call.emitError() << "argument 'input' (the indices) must be an "
                               "integer tensor, got "
                            << input;
  if (weight.getRank() != 2)
    return call.emitError() << "argument 'weight' must be 2-D, got " << weight;
  if (!call.isNone("max_norm"))
    return call.emitError() << "'max_norm' renormalizes the weight in place "
                               "on every call; it is not supported";
  SmallVector<int64_t> shape(input.getShape());
  shape.push_back(weight.getDimSize(1));
  return h.result(shape, weight.getElementType());
}

LogicalResult oneHot(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> classes = call.getInt("num_classes");
  if (!input || !classes)
    return h.unknown();
  if (!input.getElementType().isInteger(64))
    return call.emitError() << "one_hot is only applicable to index tensors "
                               "(int64), got "
                            << input;
  if (*classes < 0)
    return call.emitError() << "needs a static 'num_classes' (-1 makes the "
                               "result shape depend on the values)";
  SmallVector<int64_t> shape(input.getShape());
  shape.push_back(*classes);
  return h.result(shape, input.getElementType());
}

LogicalResult scatter(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), index = h.tensor("index");
  // (The kernels check the reduce= names: scatter's add/multiply,
  // scatter_reduce's sum/prod/mean/amax/amin.)
  if (!h.gatherIndex(input, index))
    return h.stop();
  return h.result(input);
}

/// torch.masked_scatter: the input broadcast with the mask (a bool or, as
/// torch 1.13 takes it, an integer tensor), in its dtype; the source must
/// have the input's dtype.
LogicalResult maskedScatter(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), mask = h.tensor("mask"),
                   source = h.tensor("source");
  if (!input || !mask || !source)
    return h.unknown();
  if (!isa<IntegerType>(mask.getElementType()))
    return call.emitError() << "expects a bool (or integer) mask, got " << mask;
  if (source.getElementType() != input.getElementType())
    return call.emitError() << "masked_scatter: expected self and source to "
                               "have same dtypes but got "
                            << input << " and " << source;
  return h.broadcastResult(input.getShape(), mask.getShape(),
                           input.getElementType());
}

LogicalResult sliceScatter(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), src = h.tensor("src");
  if (!input || !src)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "slice() cannot be applied to a 0-dim tensor.";
  std::optional<SmallVector<int64_t>> want = h.slicedShape(input);
  if (h.reported)
    return failure();
  if (want && input.hasStaticShape() && src.hasStaticShape() &&
      ArrayRef<int64_t>(*want) != src.getShape())
    return call.emitError() << "expected src to have a size equal to the "
                               "slice of self: "
                            << src << " for slice shape " << shapeStr(*want);
  return h.result(input);
}

/// select_scatter: the input with `input.select(dim, index)` replaced by
/// src (of that shape, converted to the input's dtype).
LogicalResult selectScatter(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), src = h.tensor("src");
  std::optional<int64_t> dim = call.getInt("dim"), index = call.getInt("index");
  if (!input || !src || !dim || !index)
    return h.unknown();
  std::optional<int64_t> d =
      h.dimArg(input, "dim", "select() cannot be applied to a 0-dim tensor");
  if (!d)
    return h.stop();
  int64_t size = input.getDimSize(*d);
  if (!ShapedType::isDynamic(size) && (*index < -size || *index >= size))
    return call.emitError() << "select(): index " << *index
                            << " out of range for " << input
                            << " at dimension " << *d;
  ArrayRef<int64_t> slice = withoutDim(input, *d).getShape();
  if (input.hasStaticShape() && src.hasStaticShape() && slice != src.getShape())
    return call.emitError() << "expected src to have a size equal to the "
                               "slice of self: "
                            << src << " for slice shape " << shapeStr(slice);
  return h.result(input);
}

/// embedding_bag: (bags, embedding_dim) in the weight's dtype.
LogicalResult embeddingBag(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), weight = h.tensor("weight");
  std::optional<bool> includeLast = call.getBool("include_last_offset");
  if (!input || !weight || !includeLast)
    return h.unknown();
  if (weight.getRank() != 2)
    return call.emitError() << "'weight' must be 2-D, got " << weight;
  if (!isa<IntegerType>(input.getElementType()) ||
      input.getElementType().isInteger(1))
    return call.emitError() << "indices must be an integer tensor, got "
                            << input;
  int64_t bags;
  if (input.getRank() == 2) {
    bags = input.getDimSize(0);
  } else if (input.getRank() == 1) {
    RankedTensorType offsets = h.tensor("offsets");
    if (!offsets || offsets.getRank() != 1)
      return call.emitError() << "a 1-D input needs 1-D offsets";
    bags = offsets.getDimSize(0);
    if (*includeLast && !ShapedType::isDynamic(bags))
      bags = std::max<int64_t>(bags - 1, 0);
  } else {
    return call.emitError() << "input has to be 1-D or 2-D, got " << input;
  }
  return h.result({bags, weight.getDimSize(1)}, weight.getElementType());
}

/// ATen's embedding_bag and _embedding_bag: (output, offset2bag, bag_size,
/// max_indices), the last three in the indices' and offsets' promoted
/// dtype (int64 unless both are int32), sized as torch 1.13's CPU kernel
/// sizes them (Kernels/Index.cpp, atenEmbeddingBag, says what they hold):
/// offset2bag is empty on the fast path (sum of float32 or float16 rows,
/// no padding index), else one per index; bag_size and max_indices have
/// one per bag (embedding_bag in sum mode: the offsets' count), and
/// max_indices is [bags, dim] in max mode.
LogicalResult atenEmbeddingBag(const BoundCall &call, RuleHelper &h) {
  RankedTensorType weight = h.tensor("weight"), indices = h.tensor("indices"),
                   offsets = h.tensor("offsets");
  std::optional<int64_t> mode = call.getInt("mode");
  std::optional<bool> includeLast = call.getBool("include_last_offset");
  if (!weight || !indices || !offsets || !mode || !includeLast)
    return h.unknown();
  Type w = weight.getElementType();
  if (!w.isF16() && !w.isF32() && !w.isF64())
    return call.emitError() << "Expected tensor for argument #1 'weight' to "
                               "have one of the following scalar types: "
                               "Half, Float, Double; got "
                            << weight;
  for (RankedTensorType t : {indices, offsets})
    if (!t.getElementType().isSignlessInteger(32) &&
        !t.getElementType().isSignlessInteger(64))
      return call.emitError() << "indices and offsets must be int32 or "
                                 "int64, got "
                              << t;
  if (weight.getRank() != 2 || indices.getRank() != 1 || offsets.getRank() != 1)
    return call.emitError() << "expects a 2-D weight and 1-D indices and "
                               "offsets, got "
                            << weight << ", " << indices << " and " << offsets;
  if (*mode < 0 || *mode > 2)
    return call.emitError() << "mode has to be one of sum (0), mean (1) or "
                               "max (2), got "
                            << *mode;
  if (*mode != 0 && !call.isNone("per_sample_weights"))
    return call.emitError() << "embedding_bag: per_sample_weights only "
                               "supported with mode='sum'";
  if (RankedTensorType psw = call.getTensor("per_sample_weights")) {
    if (psw.getElementType() != w)
      return call.emitError() << "expected per_sample_weights of the "
                                 "weight's dtype, got "
                              << psw;
    if (psw.getShape() != indices.getShape())
      return call.emitError() << "expected per_sample_weights.shape to be "
                                 "the indices' shape, got "
                              << psw;
  }
  // A padding index, as the kernel reads it: the padding_idx overload's
  // None is none; _embedding_bag's negative ones are.
  bool raw = call.getTarget() == "torch.ops.aten._embedding_bag.default";
  bool padding = false;
  if (!call.isNone("padding_idx")) {
    std::optional<int64_t> p = call.getInt("padding_idx");
    if (!p)
      return h.unknown();
    padding = raw ? *p >= 0 : true;
  }
  int64_t count = offsets.getDimSize(0), n = indices.getDimSize(0),
          dim = weight.getDimSize(1);
  int64_t bags = ShapedType::isDynamic(count) ? count
                 : *includeLast              ? std::max<int64_t>(count - 1, 0)
                                             : count;
  MLIRContext *ctx = call.getContext();
  Type index = (indices.getElementType().isSignlessInteger(32) &&
                offsets.getElementType().isSignlessInteger(32))
                   ? IntegerType::get(ctx, 32)
                   : IntegerType::get(ctx, 64);
  bool fastPath = *mode == 0 && !padding && (w.isF32() || w.isF16());
  auto vec = [&](int64_t size) { return RankedTensorType::get({size}, index); };
  Type out = RankedTensorType::get({bags, dim}, w);
  // (embedding_bag of a weight that needs no gradient runs torch's
  // forward-only kernel, whose sum-mode bag_size has the offsets' count;
  // _embedding_bag's has one per bag.)
  Type bagSize = vec(*mode == 0 && !raw ? count : bags);
  Type maxIndices = *mode == 2 ? RankedTensorType::get({bags, dim}, index)
                               : bagSize;
  h.results.push_back(TupleType::get(
      ctx, {out, vec(fastPath ? 0 : n), bagSize, maxIndices}));
  return success();
}

/// aten::index with integer index tensors (and Nones): the index tensors
/// broadcast together, and their shape replaces the indexed dims where those
/// are adjacent, else leads. Bool and uint8 masks select a data-dependent
/// number of elements: unknown.
LogicalResult atenIndex(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  const BoundCall::Arg &indices = call.get("indices");
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(indices.elements.size()) > rank)
    return call.emitError() << "too many indices for a tensor of rank "
                            << rank;
  SmallVector<int64_t> broadcast;
  int64_t first = -1, last = -1, count = 0;
  SmallVector<bool> indexed(rank, false);
  for (auto [i, t] : llvm::enumerate(indices.elements)) {
    auto tensor = dyn_cast_or_null<RankedTensorType>(t);
    if (!tensor) {
      if (t && !isa<traced::NoneType>(t))
        return h.unknown();
      continue;
    }
    Type e = tensor.getElementType();
    if (!isa<IntegerType>(e) || e.isInteger(1) || e.isUnsignedInteger())
      return h.unknown();
    SmallVector<int64_t> merged;
    if (!OpTrait::util::getBroadcastedShape(broadcast, tensor.getShape(), merged))
      return call.emitError() << "shape mismatch: indexing tensors could not "
                                 "be broadcast together";
    broadcast = merged;
    indexed[i] = true;
    first = first < 0 ? i : first;
    last = i;
    ++count;
  }
  if (count == 0)
    return h.unknown();
  SmallVector<int64_t> shape;
  if (last - first + 1 == count) {
    llvm::append_range(shape, input.getShape().take_front(first));
    llvm::append_range(shape, broadcast);
    llvm::append_range(shape, input.getShape().drop_front(last + 1));
  } else {
    shape = broadcast;
    for (int64_t i = 0; i < rank; ++i)
      if (!indexed[i])
        shape.push_back(input.getDimSize(i));
  }
  return h.result(shape, input.getElementType());
}

/// torch.take: the flattened input's elements at an int64 index, in the
/// index's shape.
LogicalResult take(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), index = h.tensor("index");
  if (!input || !index)
    return h.unknown();
  if (!index.getElementType().isSignlessInteger(64))
    return call.emitError() << "take(): Expected a long tensor for index, "
                               "but got "
                            << index.getElementType();
  return h.result(index.getShape(), input.getElementType());
}

/// torch.put: the input with its flattened elements at the index set to
/// (or, accumulating, increased by) the source's, of one dtype and count.
LogicalResult put(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), index = h.tensor("index"),
                   source = h.tensor("source");
  if (!input || !index || !source)
    return h.unknown();
  if (!index.getElementType().isSignlessInteger(64))
    return call.emitError() << "put_(): Expected a long tensor for index, "
                               "but got "
                            << index.getElementType();
  if (source.getElementType() != input.getElementType())
    return call.emitError() << "put_(): self and source expected to have the "
                               "same dtype, but got "
                            << input.getElementType() << " and "
                            << source.getElementType();
  if (index.hasStaticShape() && source.hasStaticShape() &&
      index.getNumElements() != source.getNumElements())
    return call.emitError()
           << "put_(): Expected source and index to have the same number of "
              "elements, but got source.numel() = "
           << source.getNumElements() << ", index.numel() = "
           << index.getNumElements();
  return h.result(input);
}

/// torch.index_reduce: the input's type, after torch 1.13's checks: reduce
/// prod, mean, amax or amin; a 0-d or 1-D int32/int64 index with one entry
/// per slice of `source` along dim; source of the input's dtype and rank;
/// bool only over more than one dim, and not for mean.
LogicalResult indexReduce(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), index = h.tensor("index"),
                   source = h.tensor("source");
  if (auto r = dyn_cast_or_null<StringAttr>(call.get("reduce").value))
    if (!llvm::is_contained({"prod", "mean", "amax", "amin"}, r.getValue()))
      return call.emitError() << "index_reduce(): Expected reduce to be one of prod, mean, "
                                 "amax or amin but got "
                              << r.getValue() << ".";
  if (index && index.getRank() > 1)
    return call.emitError() << "index_reduce_(): Index is supposed to be a vector, but got dim: "
                            << index.getRank();
  if (index && !index.getElementType().isSignlessInteger(64) &&
      !index.getElementType().isSignlessInteger(32))
    return call.emitError() << "index_reduce_(): Expected dtype int32/int64 for index";
  if (!input || !source || !index)
    return h.unknown();
  // (torch's kernel for bool runs over more than one dim, and has no mean.)
  if (input.getElementType().isInteger(1) && input.getRank() <= 1)
    return call.emitError() << "\"index_func_\" not implemented for 'Bool'";
  if (input.getElementType().isInteger(1))
    if (auto r = dyn_cast_or_null<StringAttr>(call.get("reduce").value); r && r.getValue() == "mean")
      return call.emitError() << "\"div_floor_cpu\" not implemented for 'Bool'";
  if (source.getElementType() != input.getElementType())
    return call.emitError() << "index_reduce_(): self (" << input.getElementType()
                            << ") and source (" << source.getElementType()
                            << ") must have the same scalar type";
  std::optional<int64_t> d = h.dimArg(input);
  if (!d)
    return h.stop();
  int64_t rank = std::max<int64_t>(input.getRank(), 1);
  if (std::max<int64_t>(source.getRank(), 1) != rank)
    return call.emitError() << "index_reduce_(): source has " << source.getRank()
                            << " dims and self has " << input.getRank();
  int64_t slices = source.getRank() ? source.getDimSize(*d) : 1;
  int64_t entries = index.getRank() ? index.getDimSize(0) : 1;
  if (dimsDiffer(slices, entries))
    return call.emitError() << "index_reduce_(): Number of indices (" << entries
                            << ") should be equal to source.size(dim): (" << slices
                            << "), for dim: " << *d;
  for (int64_t i = 0; i < input.getRank(); ++i)
    if (i != *d && dimsDiffer(input.getDimSize(i), source.getDimSize(i)))
      return call.emitError() << "index_reduce_(): source and self differ in dim " << i;
  return h.result(input);
}

/// torch.index_fill: the input's type, after torch's checks (a fuzzed graph
/// with an int32 index ran in the interpreter where torch refuses it): an
/// int64 index of at most one dim, a dim in range, a 0-d value tensor.
LogicalResult indexFill(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), index = h.tensor("index"),
                   value = h.tensor("value");
  if (index && !index.getElementType().isSignlessInteger(64))
    return call.emitError() << "index_fill_(): Expected dtype int64 for index.";
  if (index && index.getRank() > 1)
    return call.emitError() << "index_fill_(): Index is supposed to be a "
                               "vector, got "
                            << index;
  if (value && value.getRank() != 0)
    return call.emitError() << "index_fill_ only supports a 0-dimensional "
                               "value tensor, but got tensor with "
                            << value.getRank() << " dimension(s).";
  if (!input)
    return h.unknown();
  // (A 0-d input takes dim 0 and -1, as one of size 1.)
  if (std::optional<int64_t> d = call.getInt("dim"))
    if (failed(h.dim(*d, std::max<int64_t>(input.getRank(), 1))))
      return failure();
  return h.result(input);
}

} // namespace mlir::traced::rules
