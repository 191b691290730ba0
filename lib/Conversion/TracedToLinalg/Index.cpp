//===- Index.cpp - advanced indexing, gather and index_select -------------===//
//
// Tensor indices read elements at computed positions: one `linalg.generic`
// over the result whose body loads each index, wraps it (negative counts
// from the end) and clamps it into the dimension, then `tensor.extract`s the
// element. torch raises on an out-of-range index; compiled code cannot, so
// it clamps rather than read outside the tensor (the interpreter reports
// it).
//
// `x[...]` with tensors follows torch's two steps: the ints, slices, None
// and Ellipsis select a view first (ints drop their dims), then the tensors
// index that view as `aten.index` does: broadcast together, their result
// dims replace the indexed dims where those are adjacent, else they lead.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "TracedIR/Dialect/Traced/PyValue.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

using Results = FailureOr<SmallVector<Value>>;

static RankedTensorType typeOf(Value v) {
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

/// Index `v` (a signless integer scalar) as a position in a dim of `size`:
/// negative counts from the end, then clamped into [0, size - 1].
static Value position(OpBuilder &b, Location loc, Value v, int64_t size) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value n = arith::ConstantIndexOp::create(b, loc, size);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(b, loc, neg, arith::AddIOp::create(b, loc, i, n), i);
  Value last = arith::ConstantIndexOp::create(b, loc, std::max<int64_t>(size - 1, 0));
  i = arith::MaxSIOp::create(b, loc, i, zero);
  return arith::MinSIOp::create(b, loc, i, last);
}

/// Whether `c` may use `v` (a lowered operand) as an index tensor: int64 or
/// int32 (bool and uint8 masks select a data-dependent number of elements).
static LogicalResult checkIndexTensor(LoweringCall &c, Value v) {
  Type t = c.logicalElementType(v);
  if (t.isSignlessInteger(64) || t.isSignlessInteger(32))
    return success();
  std::string name;
  llvm::raw_string_ostream os(name);
  os << t;
  return c.fail("index tensors of " + name +
                " are not lowered (int64 and int32 are; bool masks select a "
                "data-dependent number of elements)");
}

/// `aten.index(x, indices)`: `indices[i]` (null: none) indexes dim i of `x`.
static FailureOr<Value> buildAdvancedIndex(LoweringCall &c, Value x,
                                           ArrayRef<Value> indices,
                                           RankedTensorType resultType) {
  auto xType = typeOf(x);
  int64_t rank = xType.getRank();
  SmallVector<int64_t> bshape;
  int64_t first = -1, last = -1, count = 0;
  for (auto [i, t] : llvm::enumerate(indices)) {
    if (!t)
      continue;
    if (failed(checkIndexTensor(c, t)))
      return failure();
    RankedTensorType it = typeOf(t);
    if (!it || !it.hasStaticShape())
      return c.fail("index tensors must be statically shaped");
    // Broadcast the index shapes NumPy-style.
    ArrayRef<int64_t> s = it.getShape();
    SmallVector<int64_t> merged(std::max(bshape.size(), s.size()), 1);
    for (size_t k = 0; k < merged.size(); ++k) {
      int64_t a = k < merged.size() - bshape.size() ? 1 : bshape[k - (merged.size() - bshape.size())];
      int64_t bdim = k < merged.size() - s.size() ? 1 : s[k - (merged.size() - s.size())];
      if (a != bdim && a != 1 && bdim != 1)
        return c.fail("the index tensors do not broadcast together");
      merged[k] = a == 1 ? bdim : a;
    }
    bshape = merged;
    if (first < 0)
      first = i;
    last = i;
    ++count;
  }
  if (count == 0)
    return c.fail("no index tensor");
  if (static_cast<int64_t>(indices.size()) > rank)
    return c.fail("too many indices");
  bool adjacent = last - first + 1 == count;
  int64_t nb = bshape.size();
  int64_t bStart = adjacent ? first : 0;
  SmallVector<int64_t> outShape;
  // Where each unindexed dim of x goes in the result.
  SmallVector<int64_t> outDimOf(rank, -1);
  if (adjacent) {
    for (int64_t i = 0; i < first; ++i) {
      outDimOf[i] = outShape.size();
      outShape.push_back(xType.getDimSize(i));
    }
    llvm::append_range(outShape, bshape);
    for (int64_t i = last + 1; i < rank; ++i) {
      outDimOf[i] = outShape.size();
      outShape.push_back(xType.getDimSize(i));
    }
  } else {
    llvm::append_range(outShape, bshape);
    for (int64_t i = 0; i < rank; ++i)
      if (i >= static_cast<int64_t>(indices.size()) || !indices[i]) {
        outDimOf[i] = outShape.size();
        outShape.push_back(xType.getDimSize(i));
      }
  }
  for (int64_t i = indices.size(); i < rank; ++i)
    if (adjacent && outDimOf[i] < 0)
      return c.fail("internal: unplaced dim");
  if (ArrayRef<int64_t>(outShape) != resultType.getShape())
    return c.fail("the indexed shape differs from the traced result shape");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  MLIRContext *ctx = b.getContext();
  int64_t outRank = outShape.size();
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  for (Value t : indices) {
    if (!t)
      continue;
    ArrayRef<int64_t> s = typeOf(t).getShape();
    SmallVector<AffineExpr> exprs;
    for (size_t j = 0; j < s.size(); ++j) {
      int64_t bdim = nb - s.size() + j;
      exprs.push_back(s[j] == 1 && bshape[bdim] != 1
                          ? getAffineConstantExpr(0, ctx)
                          : getAffineDimExpr(bStart + bdim, ctx));
    }
    ins.push_back(t);
    maps.push_back(AffineMap::get(outRank, 0, exprs, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(outRank));
  auto outType = RankedTensorType::get(outShape, xType.getElementType());
  Value init = tensor::EmptyOp::create(b, loc, outShape, xType.getElementType());
  SmallVector<utils::IteratorType> iterators(outRank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, outType, ins, init, maps, iterators,
      [&](OpBuilder &nb2, Location l, ValueRange args) {
        SmallVector<Value> coords;
        unsigned k = 0;
        for (int64_t i = 0; i < rank; ++i) {
          if (i < static_cast<int64_t>(indices.size()) && indices[i])
            coords.push_back(position(nb2, l, args[k++], xType.getDimSize(i)));
          else
            coords.push_back(linalg::IndexOp::create(nb2, l, outDimOf[i]));
        }
        Value v = tensor::ExtractOp::create(nb2, l, x, coords);
        linalg::YieldOp::create(nb2, l, v);
      });
  return generic.getResult(0);
}

/// The lowered operand a marker in a call's arguments stands for.
static Value markedOperand(LoweringCall &c, OperandAttr m) {
  return c.operands[m.getIndex() + (isa<CallMethodOp>(c.op) ? 1 : 0)];
}

/// A constant index tensor (int64) for a Python list of ints, nested lists
/// giving more dims; null for anything else (bools are masks).
static Value listIndex(LoweringCall &c, ArrayAttr list) {
  SmallVector<int64_t> shape;
  SmallVector<APInt> values;
  std::function<bool(Attribute, unsigned)> walk = [&](Attribute a,
                                                      unsigned depth) {
    if (auto l = dyn_cast<ArrayAttr>(a)) {
      if (depth == shape.size())
        shape.push_back(l.size());
      else if (shape[depth] != static_cast<int64_t>(l.size()))
        return false;
      for (Attribute e : l)
        if (!walk(e, depth + 1))
          return false;
      return true;
    }
    auto i = dyn_cast<IntegerAttr>(a);
    if (!i || isa<BoolAttr>(a) || depth != shape.size())
      return false;
    values.push_back(APInt(64, i.getValue().getSExtValue(), /*isSigned=*/true));
    return true;
  };
  if (!walk(list, 0))
    return {};
  auto type = RankedTensorType::get(shape, c.rewriter.getI64Type());
  return arith::ConstantOp::create(c.rewriter, c.loc, type,
                                   DenseElementsAttr::get(type, values));
}

FailureOr<SmallVector<Value>> lowering::lowerAdvancedGetitem(LoweringCall &c,
                                                            Value x) {
  RankedTensorType type = c.resultType();
  RankedTensorType xType = typeOf(x);
  if (!type || !xType || !xType.hasStaticShape())
    return c.fail("expected statically shaped tensors");
  Attribute slot = c.slots[*c.spec->signature.lookup("index")];
  SmallVector<Attribute> items;
  // (A list is one index, like a tensor: x[[0, 2]].)
  if (auto tuple = dyn_cast_or_null<TupleAttr>(slot))
    llvm::append_range(items, tuple.getElements().getValue());
  else
    items.push_back(slot);
  // Step 1: the view the basic items select.
  int64_t rank = xType.getRank();
  int64_t consumed = llvm::count_if(items, [](Attribute a) {
    return !isa<NoneAttr, EllipsisAttr>(a);
  });
  SmallVector<int64_t> offsets, sizes, strides, viewShape;
  SmallVector<Value> viewIndices; // per view dim: the index tensor or null
  int64_t dim = 0;
  auto fullDim = [&](Value index) {
    offsets.push_back(0);
    sizes.push_back(xType.getDimSize(dim));
    strides.push_back(1);
    viewShape.push_back(xType.getDimSize(dim));
    viewIndices.push_back(index);
    ++dim;
  };
  for (Attribute item : items) {
    if (isa<NoneAttr>(item)) {
      viewShape.push_back(1);
      viewIndices.push_back(Value());
      continue;
    }
    if (isa<EllipsisAttr>(item)) {
      for (int64_t n = rank - consumed; n > 0; --n)
        fullDim(Value());
      continue;
    }
    if (dim >= rank)
      return c.fail("too many indices");
    int64_t size = xType.getDimSize(dim);
    if (auto m = dyn_cast<OperandAttr>(item)) {
      Value t = markedOperand(c, m);
      if (!typeOf(t))
        return c.fail("an index is neither a tensor nor a constant");
      fullDim(t);
      continue;
    }
    if (auto list = dyn_cast<ArrayAttr>(item)) {
      Value t = listIndex(c, list);
      if (!t)
        return c.fail("a list index must hold ints (a nested list: of one "
                      "length per level)");
      fullDim(t);
      continue;
    }
    if (auto i = dyn_cast<IntegerAttr>(item)) {
      int64_t v = i.getValue().getSExtValue();
      if (v < 0)
        v += size;
      if (v < 0 || v >= size)
        return c.fail("index out of range");
      offsets.push_back(v);
      sizes.push_back(1);
      strides.push_back(1);
      ++dim;
      continue;
    }
    if (auto s = dyn_cast<SliceAttr>(item)) {
      auto bound = [](Attribute a, int64_t dflt) -> std::optional<int64_t> {
        if (!a || isa<NoneAttr>(a))
          return dflt;
        if (auto i = dyn_cast<IntegerAttr>(a))
          return i.getValue().getSExtValue();
        return std::nullopt;
      };
      std::optional<int64_t> step = bound(s.getStep(), 1);
      std::optional<int64_t> start = bound(s.getStart(), 0), stop = bound(s.getStop(), size);
      if (!step || *step <= 0 || !start || !stop)
        return c.fail("slices need constant bounds and a positive step");
      SliceBounds sb = clampSlice(size, start, stop, *step);
      offsets.push_back(sb.begin);
      sizes.push_back(sb.length);
      strides.push_back(*step);
      viewShape.push_back(sb.length);
      viewIndices.push_back(Value());
      ++dim;
      continue;
    }
    return c.fail("unsupported index item");
  }
  while (dim < rank)
    fullDim(Value());
  OpBuilder &b = c.rewriter;
  Value view = buildSlice(b, c.loc, x, offsets, sizes, strides);
  view = buildReshape(b, c.loc, view, viewShape);
  FailureOr<Value> r = buildAdvancedIndex(c, view, viewIndices, type);
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

/// aten.index.Tensor(input, indices): a list of index tensors and Nones.
static Results lowerAtenIndex(LoweringCall &c) {
  Value x = c.tensor("input");
  RankedTensorType type = c.resultType();
  if (!x || !type || !typeOf(x).hasStaticShape())
    return c.fail("expected statically shaped tensors");
  Attribute slot = c.slots[*c.spec->signature.lookup("indices")];
  SmallVector<Attribute> items;
  if (auto list = dyn_cast_or_null<ArrayAttr>(slot))
    llvm::append_range(items, list.getValue());
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(slot))
    llvm::append_range(items, tuple.getElements().getValue());
  else
    return c.fail("indices must be a list");
  SmallVector<Value> indices;
  for (Attribute item : items) {
    if (isa<NoneAttr>(item)) {
      indices.push_back(Value());
      continue;
    }
    auto m = dyn_cast<OperandAttr>(item);
    if (!m || !typeOf(markedOperand(c, m)))
      return c.fail("indices must be tensors or None");
    indices.push_back(markedOperand(c, m));
  }
  FailureOr<Value> r = buildAdvancedIndex(c, x, indices, type);
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

/// torch.gather(input, dim, index): out[p] = input[p with dim = index[p]].
static Results lowerGather(LoweringCall &c) {
  Value x = c.tensor("input"), index = c.tensor("index");
  RankedTensorType type = c.resultType();
  std::optional<int64_t> dim = c.getInt("dim");
  if (!x || !index || !type || !dim || !typeOf(x).hasStaticShape() ||
      !typeOf(index).hasStaticShape())
    return c.fail("expected statically shaped tensors and a constant dim");
  if (failed(checkIndexTensor(c, index)))
    return failure();
  RankedTensorType xType = typeOf(x);
  int64_t rank = xType.getRank();
  int64_t d = rank == 0 ? 0 : normalizeDim(*dim, rank);
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  int64_t outRank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), xType.getElementType());
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(outRank));
  SmallVector<utils::IteratorType> iterators(outRank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), index, init, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> coords;
        for (int64_t i = 0; i < rank; ++i)
          coords.push_back(i == d ? position(nb, l, args[0], xType.getDimSize(i))
                                  : linalg::IndexOp::create(nb, l, i).getResult());
        linalg::YieldOp::create(nb, l, tensor::ExtractOp::create(nb, l, x, coords).getResult());
      });
  return SmallVector<Value>{generic.getResult(0)};
}

void lowering::populateIndexLowerings(LoweringTable &t) {
  t["torch.ops.aten.index.Tensor"] = lowerAtenIndex;
  t["torch.gather"] = lowerGather;
}
