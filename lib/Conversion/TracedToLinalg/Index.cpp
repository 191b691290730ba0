//===- Index.cpp - indexing, setitem, gather and scatter ------------------===//
//
// Tensor indices read elements at computed positions: one `linalg.generic`
// over the result whose body loads each index, wraps it (negative counts
// from the end) and clamps it into the dimension, then `tensor.extract`s the
// element. torch raises on an out-of-range index; compiled code
// it clamps rather than read outside the tensor, and a run-time check
// (LoweringCall::check) reports the call instead of its outputs, as the
// interpreter does.
//
// The scatter family reads the same way round: one generic over the output
// whose reduction loop visits the index and combines what lands on each
// element.
//
// `x[...]` with tensors follows torch's two steps: the ints, slices, None
// and Ellipsis select a view first (ints drop their dims), then the tensors
// index that view as `aten.index` does: broadcast together, their result
// dims replace the indexed dims where those are adjacent, else they lead.
//
// `x[index] = value` (setitem) with a basic index overwrites the window the
// index selects (`tensor.insert_slice`).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

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

/// The run-time check that every element of index tensor `t`, indexing
/// dimension `dim`, lies in [low, high] (what torch raises on); a constant
/// index is checked by the verifier and the interpreter already.
static void checkIndices(LoweringCall &c, Value t, int64_t low, int64_t high,
                         int64_t dim) {
  if (t.getDefiningOp<arith::ConstantOp>())
    return;
  c.check(buildAllInRange(c.rewriter, c.loc, t, low, high),
          "an index is out of bounds for dimension " + Twine(dim) +
              " with size " + Twine(high + 1));
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
    if (!it)
      return c.fail("index tensors must be ranked");
    // Broadcast the index shapes NumPy-style. A dynamic dim broadcasts with
    // the same dim or a 1 (sizes as values: an embedding's ids of any
    // length); against a static size it would need a run-time check.
    ArrayRef<int64_t> s = it.getShape();
    SmallVector<int64_t> merged(std::max(bshape.size(), s.size()), 1);
    for (size_t k = 0; k < merged.size(); ++k) {
      int64_t a = k < merged.size() - bshape.size() ? 1 : bshape[k - (merged.size() - bshape.size())];
      int64_t bdim = k < merged.size() - s.size() ? 1 : s[k - (merged.size() - s.size())];
      if (a != bdim && a != 1 && bdim != 1)
        return c.fail(ShapedType::isDynamic(a) || ShapedType::isDynamic(bdim)
                          ? "index tensors whose dynamic dims broadcast "
                            "against static ones are not lowered"
                          : "the index tensors do not broadcast together");
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
  for (auto [i, t] : llvm::enumerate(indices))
    if (t && xType.isDynamicDim(i))
      return c.fail("an indexed dim of dynamic size is not lowered");
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
  for (auto [i, t] : llvm::enumerate(indices))
    if (t) {
      int64_t n = xType.getDimSize(i);
      checkIndices(c, t, -n, n - 1, i);
    }
  auto outType = RankedTensorType::get(outShape, xType.getElementType());
  // A dynamic result dim's size: the index tensor's dim it broadcasts from,
  // or the unindexed dim of x it comes from.
  SmallVector<OpFoldResult> outSizes;
  for (int64_t o = 0; o < outRank; ++o) {
    if (!ShapedType::isDynamic(outShape[o])) {
      outSizes.push_back(b.getIndexAttr(outShape[o]));
      continue;
    }
    Value size;
    if (o >= bStart && o < bStart + nb) {
      int64_t bdim = o - bStart;
      for (Value t : indices) {
        if (!t)
          continue;
        ArrayRef<int64_t> ts = typeOf(t).getShape();
        int64_t j = bdim - (nb - static_cast<int64_t>(ts.size()));
        if (j >= 0 && ShapedType::isDynamic(ts[j])) {
          size = tensor::DimOp::create(b, loc, t, j);
          break;
        }
      }
    } else {
      for (int64_t i = 0; i < rank; ++i)
        if (outDimOf[i] == o)
          size = tensor::DimOp::create(b, loc, x, i);
    }
    if (!size)
      return c.fail("internal: a dynamic result dim has no source");
    outSizes.push_back(size);
  }
  Value init = buildEmpty(b, loc, outType, outSizes);
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

SmallVector<Value> lowering::buildMaskIndices(LoweringCall &c, Value mask,
                                              int64_t count, StringRef what) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  RankedTensorType maskType = typeOf(mask);
  ArrayRef<int64_t> shape = maskType.getShape();
  int64_t total = maskType.getNumElements();
  Value flat = buildReshape(b, loc, mask, {total});
  auto idxType = RankedTensorType::get({count}, b.getI64Type());
  Value init = buildFilled(b, loc, idxType, 0);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value limit = arith::ConstantIndexOp::create(b, loc, count);
  // One pass in order over the mask: the k-th nonzero position goes to
  // element k (while k < count); the loop also counts them.
  auto loop = scf::ForOp::create(
      b, loc, zero, arith::ConstantIndexOp::create(b, loc, total), one,
      ValueRange{zero, init},
      [&](OpBuilder &lb, Location l, Value k, ValueRange carried) {
        Value n = carried[0], idx = carried[1];
        Value m = tensor::ExtractOp::create(lb, l, flat, k);
        Value nonzero = arith::CmpIOp::create(
            lb, l, arith::CmpIPredicate::ne, m,
            arith::ConstantOp::create(lb, l, lb.getZeroAttr(m.getType())));
        Value room =
            arith::CmpIOp::create(lb, l, arith::CmpIPredicate::ult, n, limit);
        Value put = arith::AndIOp::create(lb, l, nonzero, room);
        auto stored = scf::IfOp::create(
            lb, l, put,
            [&](OpBuilder &tb, Location tl) {
              Value v = arith::IndexCastOp::create(tb, tl, tb.getI64Type(), k);
              scf::YieldOp::create(
                  tb, tl,
                  tensor::InsertOp::create(tb, tl, v, idx, n).getResult());
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, idx);
            });
        Value next = arith::SelectOp::create(
            lb, l, nonzero, arith::AddIOp::create(lb, l, n, one), n);
        scf::YieldOp::create(lb, l, ValueRange{next, stored.getResult(0)});
      });
  c.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                loop.getResult(0), limit),
          what + " than the " + Twine(count) +
              " of the trace (a data-dependent shape: trace again with "
              "this input)");
  // Flat positions into one index per mask dim.
  SmallVector<Value> indices;
  int64_t stride = total;
  for (int64_t size : shape) {
    stride = size ? stride / size : 0;
    int64_t s = stride, n = size;
    indices.push_back(buildElementwise(
        b, loc, idxType, {loop.getResult(1)},
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          auto c64 = [&](int64_t v) {
            return arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(v))
                .getResult();
          };
          Value q = s > 1 ? arith::DivSIOp::create(nb, l, a[0], c64(s))
                                .getResult()
                          : a[0];
          return arith::RemSIOp::create(nb, l, q, c64(std::max<int64_t>(n, 1)))
              .getResult();
        }));
  }
  return indices;
}

/// Whether `t` (a lowered operand of `c`) is a boolean or uint8 index: a
/// mask, which selects its nonzero positions.
static bool isMask(LoweringCall &c, Value t) {
  Type e = c.logicalElementType(t);
  return e.isInteger(1) || e.isUnsignedInteger(8);
}

namespace {
/// An index whose one mask (of rank r) is replaced by r placeholder
/// markers, numbered from `base`, so that it spans the dims it indexes.
struct MaskedItems {
  SmallVector<Attribute> items;
  Value mask;
  int64_t base = 0;
  bool isPlaceholder(Attribute a) const {
    auto m = dyn_cast_or_null<OperandAttr>(a);
    return mask && m && m.getIndex() >= base;
  }
};
} // namespace

static FailureOr<MaskedItems> expandMask(LoweringCall &c,
                                         ArrayRef<Attribute> items) {
  MaskedItems out;
  out.base = c.operands.size() + 1;
  unsigned tensors = 0;
  for (Attribute item : items) {
    auto m = dyn_cast<OperandAttr>(item);
    Value t = m ? markedOperand(c, m) : Value();
    if (t || isa<ArrayAttr>(item))
      ++tensors;
    if (!t || !typeOf(t) || !isMask(c, t)) {
      out.items.push_back(item);
      continue;
    }
    if (out.mask)
      return c.fail("only one boolean mask per index is lowered");
    out.mask = t;
    for (int64_t d = 0; d < typeOf(t).getRank(); ++d)
      out.items.push_back(OperandAttr::get(c.rewriter.getContext(), out.base + d));
  }
  if (out.mask && tensors > 1)
    return c.fail("a boolean mask with other index tensors is not lowered");
  return out;
}

/// The mask's nonzero positions, one index tensor per placeholder, for the
/// result dim `first` the placeholders' dims become.
static FailureOr<SmallVector<Value>>
maskIndices(LoweringCall &c, const MaskedItems &m, ArrayRef<int64_t> dims,
            RankedTensorType resultType, int64_t first) {
  if (typeOf(m.mask).getShape() != dims)
    return c.fail("the mask's shape differs from the dims it indexes");
  if (first >= resultType.getRank())
    return c.fail("internal: the mask's result dim is missing");
  return buildMaskIndices(c, m.mask, resultType.getDimSize(first));
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
  FailureOr<MaskedItems> masked = expandMask(c, items);
  if (failed(masked))
    return failure();
  // Step 1: the view the basic items select; the tensors and lists keep
  // their dims (a mask one per dim it spans).
  FailureOr<IndexView> v = indexView(c, xType, masked->items, [](Attribute a) {
    return isa<OperandAttr, ArrayAttr>(a);
  });
  if (failed(v))
    return failure();
  SmallVector<Value> maskIndex;
  if (masked->mask) {
    int64_t first = llvm::find_if(v->advanced, [&](Attribute a) {
                      return masked->isPlaceholder(a);
                    }) - v->advanced.begin();
    FailureOr<SmallVector<Value>> built = maskIndices(
        c, *masked,
        ArrayRef<int64_t>(v->shape).slice(first, typeOf(masked->mask).getRank()),
        type, first);
    if (failed(built))
      return failure();
    maskIndex = std::move(*built);
  }
  SmallVector<Value> viewIndices; // per view dim: the index tensor or null
  for (Attribute a : v->advanced) {
    Value t;
    if (masked->isPlaceholder(a)) {
      t = maskIndex[cast<OperandAttr>(a).getIndex() - masked->base];
    } else if (auto m = dyn_cast_or_null<OperandAttr>(a)) {
      t = markedOperand(c, m);
      if (!typeOf(t))
        return c.fail("an index is neither a tensor nor a constant");
    } else if (auto list = dyn_cast_or_null<ArrayAttr>(a)) {
      t = listIndex(c, list);
      if (!t)
        return c.fail("a list index must hold ints (a nested list: of one "
                      "length per level)");
    }
    viewIndices.push_back(t);
  }
  OpBuilder &b = c.rewriter;
  Value view = buildSlice(b, c.loc, x, v->offsets, v->sizes, v->strides);
  view = buildReshape(b, c.loc, view, v->shape);
  FailureOr<Value> r = buildAdvancedIndex(c, view, viewIndices, type);
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

/// aten.index.Tensor(input, indices): a list of index tensors and Nones.
static Results lowerAtenIndex(LoweringCall &c) {
  Value x = c.tensor("input");
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  if (!x || !type || !typeOf(x))
    return c.fail("expected ranked tensors");
  Attribute slot = c.slots[*c.spec->signature.lookup("indices")];
  SmallVector<Attribute> items;
  if (auto list = dyn_cast_or_null<ArrayAttr>(slot))
    llvm::append_range(items, list.getValue());
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(slot))
    llvm::append_range(items, tuple.getElements().getValue());
  else
    return c.fail("indices must be a list");
  FailureOr<MaskedItems> masked = expandMask(c, items);
  if (failed(masked))
    return failure();
  SmallVector<Value> maskIndex;
  if (masked->mask) {
    int64_t first = llvm::find_if(masked->items, [&](Attribute a) {
                      return masked->isPlaceholder(a);
                    }) - masked->items.begin();
    int64_t r = typeOf(masked->mask).getRank();
    if (first + r > typeOf(x).getRank())
      return c.fail("the mask indexes more dims than the input has");
    FailureOr<SmallVector<Value>> built = maskIndices(
        c, *masked, typeOf(x).getShape().slice(first, r), type, first);
    if (failed(built))
      return failure();
    maskIndex = std::move(*built);
  }
  SmallVector<Value> indices;
  for (Attribute item : masked->items) {
    if (isa<NoneAttr>(item)) {
      indices.push_back(Value());
      continue;
    }
    if (masked->isPlaceholder(item)) {
      indices.push_back(maskIndex[cast<OperandAttr>(item).getIndex() - masked->base]);
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
  checkIndices(c, index, 0, (rank ? xType.getDimSize(d) : 1) - 1, d);
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

/// x[index] = value where the window's bounds or x's dims are known at run
/// time only (sizes as values: a key-value cache written at `P:P + T`):
/// the value (a number, or a tensor of the window's shape, broadcast only
/// along static dims) goes in with one insert_slice, which bufferization
/// can do in place (compile(donate=)); a value of another size than the
/// window fails a run-time check, as torch refuses it.
static FailureOr<SmallVector<Value>> lowerDynamicSetitem(LoweringCall &c,
                                                         Value x) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  FailureOr<DynamicIndexView> w = dynamicIndexView(c, x);
  if (failed(w))
    return failure();
  Type elt = c.logicalElementType(x);
  auto viewType =
      RankedTensorType::get(decomposeMixedValues(w->shape).first, elt);
  Value fill;
  if (Value value = c.tensor("value")) {
    auto vType = rankedTensorType(value);
    if (!vType || vType.getRank() > viewType.getRank())
      return c.fail("the value has more dims than the indexed window");
    int64_t lead = viewType.getRank() - vType.getRank();
    // A size-1 dim of the value against a window dim known at run time
    // only (`cache[:, :, P:S] = k` with one new token, S - P traced) is
    // broadcast along it: the value, converted, is read at index 0 there.
    SmallVector<bool> spread(viewType.getRank(), false);
    for (int64_t d = 0; d < vType.getRank(); ++d)
      spread[lead + d] =
          vType.getDimSize(d) == 1 && viewType.isDynamicDim(lead + d);
    if (llvm::is_contained(spread, true)) {
      SmallVector<int64_t> shape(vType.getShape());
      Value converted = buildElementwise(
          b, loc, RankedTensorType::get(shape, elt), {value},
          [](OpBuilder &, Location, ValueRange a) { return a[0]; },
          c.logicalElementTypes({value}));
      auto storage = cast<RankedTensorType>(storageType(viewType));
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < viewType.getRank(); ++d)
        if (viewType.isDynamicDim(d))
          sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, w->shape[d]));
      Value init = tensor::EmptyOp::create(b, loc, storage, sizes);
      SmallVector<AffineExpr> reads;
      for (int64_t d = 0; d < vType.getRank(); ++d)
        reads.push_back(vType.getDimSize(d) == 1
                            ? b.getAffineConstantExpr(0)
                            : b.getAffineDimExpr(lead + d));
      SmallVector<AffineMap> maps = {
          AffineMap::get(viewType.getRank(), 0, reads, b.getContext()),
          b.getMultiDimIdentityMap(viewType.getRank())};
      fill = linalg::GenericOp::create(
                 b, loc, storage, converted, init, maps,
                 SmallVector<utils::IteratorType>(viewType.getRank(),
                                                  utils::IteratorType::parallel),
                 [](OpBuilder &nb, Location l, ValueRange a) {
                   linalg::YieldOp::create(nb, l, a[0]);
                 })
                 .getResult(0);
    } else {
      fill = buildElementwise(
          b, loc, viewType, {value},
          [](OpBuilder &, Location, ValueRange a) { return a[0]; },
          c.logicalElementTypes({value}));
    }
    for (int64_t d = 0; d < viewType.getRank(); ++d)
      if (d >= lead && viewType.isDynamicDim(d) && !spread[d])
        checkSameSize(b, loc, w->shape[d],
                      tensor::DimOp::create(b, loc, fill, d).getResult(),
                      "'" + c.target() + "': shape mismatch: the value "
                      "cannot be broadcast to the indexed window");
  } else {
    std::optional<double> v = c.getFloat("value");
    if (!v)
      return c.fail("the value must be a constant number or a tensor");
    fill = buildFilled(b, loc, cast<RankedTensorType>(storageType(viewType)),
                       w->shape, *v);
  }
  // The view's shape (ints' dims dropped, None's added) as the window's.
  SmallVector<int64_t> window = decomposeMixedValues(w->sizes).first;
  if (cast<RankedTensorType>(fill.getType()).getShape() !=
      ArrayRef<int64_t>(window)) {
    fill = buildDynamicReshape(b, loc, fill, window, w->sizes);
    if (!fill)
      return c.fail("internal: cannot reshape the value to the window");
  }
  fill = castChecked(b, loc, fill,
                     RankedTensorType::get(window, getElementTypeOrSelf(fill)),
                     "'" + c.target() + "': internal: the window's size");
  Value out = tensor::InsertSliceOp::create(b, loc, fill, x, w->offsets,
                                            w->sizes, w->strides);
  return SmallVector<Value>{out};
}

/// `x[index] = value` as a value, for a basic index: the input with the
/// index's window overwritten (tensor.insert_slice) by the number, or by
/// the tensor converted to x's dtype and broadcast to the view's shape, as
/// torch's copy_ does. (An index of tensors is decomposed first, into
/// index_put or masked_fill.)
static FailureOr<SmallVector<Value>> lowerSetitem(LoweringCall &c) {
  Value x = c.tensor("input");
  RankedTensorType type = c.logicalResultType();
  if (x && type && (!staticTensorType(x) || !c.value("index")))
    return lowerDynamicSetitem(c, x);
  if (!x || !type || !staticTensorType(x))
    return c.fail("expected a statically shaped tensor");
  auto xType = cast<RankedTensorType>(x.getType());
  FailureOr<IndexView> w = basicIndexView(c, xType);
  if (failed(w))
    return failure();
  auto viewType = RankedTensorType::get(w->shape, type.getElementType());
  Value fill;
  if (Value value = c.tensor("value")) {
    if (!staticTensorType(value))
      return c.fail("expected a statically shaped value");
    fill = buildElementwise(
        c.rewriter, c.loc, viewType, {value},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; },
        c.logicalElementTypes({value}));
  } else {
    std::optional<double> v = c.getFloat("value");
    if (!v)
      return c.fail("the value must be a constant number or a tensor");
    // The number in the tensor's traced dtype (as torch converts it),
    // stored like every tensor.
    fill = buildElementwise(
        c.rewriter, c.loc, viewType, {},
        [&](OpBuilder &b, Location loc, ValueRange) {
          return scalarConstant(b, loc, computeType(type.getElementType()),
                                *v);
        });
  }
  fill = buildReshape(c.rewriter, c.loc, fill, w->sizes);
  Value out = tensor::InsertSliceOp::create(
      c.rewriter, c.loc, fill, x, ValueRange{}, ValueRange{}, ValueRange{},
      w->offsets, w->sizes, w->strides);
  return SmallVector<Value>{out};
}

static Results lowerScatter(LoweringCall &c);
static Results lowerSliceScatter(LoweringCall &c);
/// argwhere (nonzero decomposes into it): the coordinates of the nonzero
/// elements (NaN too), from one sequential pass over the input
/// (buildMaskIndices, which checks at run time that the count is the
/// trace's), one column per dim.
static Results lowerArgwhere(LoweringCall &c) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value x = c.tensor("input");
  RankedTensorType type = c.resultType();
  RankedTensorType xType = x ? typeOf(x) : RankedTensorType();
  if (!type || !xType || !xType.hasStaticShape() || type.getRank() != 2)
    return c.fail("expected a statically shaped input and the traced count");
  Value mask = x;
  Type logical = c.logicalElementType(x);
  if (isa<FloatType>(logical))
    mask = buildElementwise(
        b, loc, RankedTensorType::get(xType.getShape(), b.getI1Type()), {x},
        [](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value zero = arith::ConstantOp::create(
              nb, l, nb.getZeroAttr(a[0].getType()));
          return arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNE, a[0],
                                       zero);
        },
        {logical}, computeType(logical));
  int64_t count = type.getDimSize(0);
  SmallVector<Value> columns = buildMaskIndices(
      c, mask, count, "the input has another number of nonzero elements");
  Value out = tensor::EmptyOp::create(b, loc, type.getShape(), b.getI64Type());
  // (No nonzero element, as the run-time check above holds it: the result
  // is empty, and an insert_slice at offset 0 of an empty dim does not
  // verify.)
  if (count == 0)
    return SmallVector<Value>{out};
  for (auto [d, column] : llvm::enumerate(columns)) {
    Value tall = buildReshape(b, loc, column, {count, 1});
    SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0),
                                         b.getIndexAttr(d)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(count),
                                       b.getIndexAttr(1)};
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    out = tensor::InsertSliceOp::create(b, loc, tall, out, offsets, sizes,
                                        strides);
  }
  return SmallVector<Value>{out};
}

/// bincount: one sequential pass over the input adding 1, or the weight
/// converted to the result's dtype, to the value's bin. The number of bins
/// is the trace's; run-time checks report a negative value and an input
/// whose max(input) + 1 (at least minlength) is another number.
static Results lowerBincount(LoweringCall &c) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value x = c.tensor("input"), w = c.tensor("weights");
  RankedTensorType type = c.resultType();
  std::optional<int64_t> minlength = c.getInt("minlength");
  RankedTensorType xType = x ? typeOf(x) : RankedTensorType();
  if (!type || !xType || !xType.hasStaticShape() || !minlength ||
      (!w && !c.isNone("weights")) || (w && !typeOf(w).hasStaticShape()))
    return c.fail("expected a statically shaped input, a constant minlength "
                  "and weights a tensor or None");
  int64_t bins = type.getDimSize(0), n = xType.getDimSize(0);
  Type element = type.getElementType();
  bool xUnsigned = isUnsignedElement(c.logicalElementType(x));
  Type wLogical = w ? c.logicalElementType(w) : Type();
  bool wUnsigned =
      w && (isUnsignedElement(wLogical) || wLogical.isInteger(1));
  Type i64 = b.getI64Type();
  auto i64Const = [&](OpBuilder &ob, Location l, int64_t v) -> Value {
    return arith::ConstantOp::create(ob, l, ob.getI64IntegerAttr(v));
  };
  Value hist = buildFilled(b, loc, type, 0);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value noNegative = arith::ConstantIntOp::create(b, loc, 1, 1);
  auto loop = scf::ForOp::create(
      b, loc, zero, arith::ConstantIndexOp::create(b, loc, n), one,
      ValueRange{hist, i64Const(b, loc, -1), noNegative},
      [&](OpBuilder &lb, Location l, Value k, ValueRange carried) {
        Value v = castScalar(lb, l, tensor::ExtractOp::create(lb, l, x, k),
                             i64, xUnsigned);
        Value ok = arith::AndIOp::create(
            lb, l, carried[2],
            arith::CmpIOp::create(lb, l, arith::CmpIPredicate::sge, v,
                                  i64Const(lb, l, 0)));
        Value top = arith::MaxSIOp::create(lb, l, carried[1], v);
        Value inRange = arith::CmpIOp::create(
            lb, l, arith::CmpIPredicate::ult, v, i64Const(lb, l, bins));
        auto added = scf::IfOp::create(
            lb, l, inRange,
            [&](OpBuilder &tb, Location tl) {
              Value bin = arith::IndexCastOp::create(tb, tl,
                                                     tb.getIndexType(), v);
              Value old = tensor::ExtractOp::create(tb, tl, carried[0], bin);
              Value add =
                  w ? castScalar(tb, tl, tensor::ExtractOp::create(tb, tl, w, k),
                                 element, wUnsigned)
                    : i64Const(tb, tl, 1);
              Value sum = isa<FloatType>(element)
                              ? arith::AddFOp::create(tb, tl, old, add)
                                    .getResult()
                              : arith::AddIOp::create(tb, tl, old, add)
                                    .getResult();
              scf::YieldOp::create(
                  tb, tl,
                  tensor::InsertOp::create(tb, tl, sum, carried[0], bin)
                      .getResult());
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, carried[0]);
            });
        scf::YieldOp::create(lb, l,
                             ValueRange{added.getResult(0), top, ok});
      });
  c.check(loop.getResult(2),
          "bincount only supports 1-d non-negative integral inputs.");
  Value wanted = arith::MaxSIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, loop.getResult(1), i64Const(b, loc, 1)),
      i64Const(b, loc, *minlength));
  c.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wanted,
                                i64Const(b, loc, bins)),
          "the input needs another number of bins than the " + Twine(bins) +
              " of the trace (a data-dependent shape: trace again with this "
              "input)");
  return SmallVector<Value>{loop.getResult(0)};
}

void lowering::populateIndexLowerings(LoweringTable &t) {
  t["torch.ops.aten.index.Tensor"] = lowerAtenIndex;
  t["torch.gather"] = lowerGather;
  t["torch.argwhere"] = lowerArgwhere;
  t["torch.bincount"] = lowerBincount;
  t["torch.scatter"] = lowerScatter;
  t["torch.scatter_add"] = lowerScatter;
  t["torch.scatter_reduce"] = lowerScatter;
  t["torch.slice_scatter"] = lowerSliceScatter;
  t["operator.setitem"] = lowerSetitem;
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

namespace {
enum class Combine { Replace, Sum, Prod, Mean, Max, Min };

/// What the stages of one scatter (buildScatter) share.
struct ScatterPlan {
  int64_t rank, dim;
  RankedTensorType xType, iType;
  Value index, src;
  double srcValue;
  Combine combine;
  bool includeSelf;
  /// The accumulators' type; src's traced element type (src only).
  Type compute, srcLogical;
  bool isBool, isFloat, isUnsigned;
};
} // namespace

/// `acc` combined with the contribution `v` as `s.combine` says.
static Value combineScatter(OpBuilder &nb, Location l, const ScatterPlan &s,
                            Value acc, Value v) {
  bool isFloat = s.isFloat, isBool = s.isBool;
  Value combined;
  switch (s.combine) {
  case Combine::Replace:
    combined = v;
    break;
  case Combine::Sum:
  case Combine::Mean:
    combined = isFloat ? arith::AddFOp::create(nb, l, acc, v).getResult()
                       : (isBool ? arith::OrIOp::create(nb, l, acc, v).getResult()
                                               : arith::AddIOp::create(nb, l, acc, v).getResult());
    break;
  case Combine::Prod:
    combined = isFloat ? arith::MulFOp::create(nb, l, acc, v).getResult()
                       : (isBool ? arith::AndIOp::create(nb, l, acc, v).getResult()
                                               : arith::MulIOp::create(nb, l, acc, v).getResult());
    break;
  case Combine::Max:
  case Combine::Min:
    combined = buildExtreme(nb, l, acc, v, s.combine == Combine::Max, s.isUnsigned);
    break;
  }
  return combined;
}

/// The scatter generic's body at output q and reduction index j: the
/// accumulator and the count `a[1]`, `a[2]` updated when index[p] names q.
static void buildScatterBody(OpBuilder &nb, Location l, ValueRange a,
                             const ScatterPlan &s) {
  int64_t rank = s.rank, dim = s.dim;
  Value acc = a[1], n = a[2];
  Value j = linalg::IndexOp::create(nb, l, rank);
  // p: q with j along dim, each coordinate clamped into index's shape
  // and the clamping remembered as invalid.
  Value valid = arith::ConstantIntOp::create(nb, l, 1, 1);
  SmallVector<Value> p;
  for (int64_t e = 0; e < rank; ++e) {
    Value coord = e == dim ? j : linalg::IndexOp::create(nb, l, e).getResult();
    int64_t extent = s.iType.getDimSize(e);
    Value limit = arith::ConstantIndexOp::create(nb, l, extent);
    valid = arith::AndIOp::create(
        nb, l, valid, arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, coord, limit));
    Value last = arith::ConstantIndexOp::create(nb, l, std::max<int64_t>(extent - 1, 0));
    p.push_back(arith::MinUIOp::create(nb, l, coord, last));
  }
  if (s.iType.getNumElements() == 0) {
    linalg::YieldOp::create(nb, l, ValueRange{acc, n});
    return;
  }
  Value target = position(nb, l, tensor::ExtractOp::create(nb, l, s.index, p),
                          s.xType.getDimSize(dim));
  Value hit = arith::AndIOp::create(
      nb, l, valid,
      arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, target,
                            linalg::IndexOp::create(nb, l, dim)));
  Value v = s.src ? castScalar(nb, l, tensor::ExtractOp::create(nb, l, s.src, p), s.compute,
                               isUnsignedElement(s.srcLogical) || s.srcLogical.isInteger(1))
                  : scalarConstant(nb, l, s.compute, s.srcValue);
  Value combined = combineScatter(nb, l, s, acc, v);
  Value one = arith::ConstantIntOp::create(nb, l, nb.getI64Type(), 1);
  linalg::YieldOp::create(
      nb, l,
      ValueRange{arith::SelectOp::create(nb, l, hit, combined, acc),
                 arith::SelectOp::create(nb, l, hit,
                                         arith::AddIOp::create(nb, l, n, one), n)});
}

/// The scatter generic: over the output, with a reduction loop j over
/// index's extent along dim, from the accumulators `start` and the counts
/// `count`.
static linalg::GenericOp buildScatterLoop(OpBuilder &b, Location loc,
                                          const ScatterPlan &s, Value start,
                                          Value count) {
  int64_t rank = s.rank;
  // (The reduction loop's extent comes from an unread [K] operand: no other
  // operand is indexed by j.)
  int64_t extent = s.iType.getDimSize(s.dim);
  Value loopExtent = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{extent}, b.getI8Type());
  AffineMap outMap = AffineMap::getMultiDimIdentityMap(rank + 1, b.getContext()).getMajorSubMap(rank);
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank + 1, 0, b.getAffineDimExpr(rank), b.getContext()), outMap, outMap};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  return linalg::GenericOp::create(
      b, loc, TypeRange{start.getType(), count.getType()}, ValueRange{loopExtent},
      ValueRange{start, count}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        buildScatterBody(nb, l, a, s);
      });
}

/// Means: the sums `acc` divided by their counts (+1 for the input with
/// include_self).
static Value divideScatterMeans(OpBuilder &b, Location loc,
                                const ScatterPlan &s, Value acc,
                                Value counts) {
  Type compute = s.compute;
  bool isFloat = s.isFloat, isUnsigned = s.isUnsigned;
  bool includeSelf = s.includeSelf;
  SmallVector<Type> inTypes = {compute, b.getI64Type()};
  return buildElementwise(
      b, loc, RankedTensorType::get(s.xType.getShape(), compute), ValueRange{acc, counts},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value n = a[1];
        if (includeSelf)
          n = isFloat ? arith::AddFOp::create(nb, l, n, scalarConstant(nb, l, compute, 1)).getResult()
                      : arith::AddIOp::create(nb, l, n, scalarConstant(nb, l, compute, 1)).getResult();
        Value zero = scalarConstant(nb, l, compute, 0);
        Value safe = isFloat ? arith::SelectOp::create(
                                   nb, l, arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, n, zero),
                                   scalarConstant(nb, l, compute, 1), n).getResult()
                             : arith::SelectOp::create(
                                   nb, l, arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, n, zero),
                                   scalarConstant(nb, l, compute, 1), n).getResult();
        if (isFloat)
          return arith::DivFOp::create(nb, l, a[0], safe);
        // (Integer means round toward negative infinity, as torch's do.)
        return isUnsigned ? arith::DivUIOp::create(nb, l, a[0], safe).getResult()
                          : arith::FloorDivSIOp::create(nb, l, a[0], safe).getResult();
      },
      inTypes);
}

/// Without include_self: `acc` where something landed (per `counts`),
/// else the input (`self`).
static Value keepUntouched(OpBuilder &b, Location loc, const ScatterPlan &s,
                           Value acc, Value counts, Value self) {
  Type compute = s.compute;
  return buildElementwise(
      b, loc, RankedTensorType::get(s.xType.getShape(), compute), ValueRange{acc, counts, self},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        // (The count arrives converted to the compute type.)
        Value zero = scalarConstant(nb, l, a[1].getType(), 0);
        Value touched =
            isa<FloatType>(a[1].getType())
                ? arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNE, a[1], zero).getResult()
                : arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, a[1], zero).getResult();
        return arith::SelectOp::create(nb, l, touched, a[0], a[2]);
      },
      {compute, b.getI64Type(), compute});
}

/// The scatter family along `dim`: out[q] combines input[q] (unless
/// `includeSelf` is false and something lands on q) with every src[p] whose
/// index[p] names q along dim (p's other coordinates equal q's, within
/// index's shape). One generic over the output with a reduction loop j over
/// index's extent along dim; it also counts the contributions (for mean
/// and include_self=False). `src` null: the number `srcValue`. Replace
/// keeps the last contribution, as torch's CPU loop does.
static FailureOr<Value> buildScatter(LoweringCall &c, Value input, int64_t dim,
                                     Value index, Value src, double srcValue,
                                     Combine combine, bool includeSelf) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  RankedTensorType type = c.resultType();
  RankedTensorType xType = typeOf(input), iType = typeOf(index);
  if (!type || !xType || !iType || !xType.hasStaticShape() || !iType.hasStaticShape() ||
      (src && !typeOf(src).hasStaticShape()))
    return c.fail("expected statically shaped tensors");
  if (failed(checkIndexTensor(c, index)))
    return failure();
  int64_t rank = xType.getRank();
  if (iType.getRank() != rank || (src && typeOf(src).getRank() != rank))
    return c.fail("index and src must have the input's rank");
  checkIndices(c, index, 0, (rank ? xType.getDimSize(dim) : 1) - 1, dim);
  Type logical = c.logicalResultType().getElementType();
  Type compute = computeType(logical);
  // (Bools accumulate as 0/1 bytes, the tensors' storage: sum is or, prod
  // is and.)
  bool isBool = compute.isInteger(1);
  if (isBool)
    compute = b.getI8Type();
  bool isFloat = isa<FloatType>(compute);
  bool isUnsigned = isUnsignedElement(logical) || isBool;
  // The accumulator starts from the input (converted to the compute type).
  auto identityFn = [](OpBuilder &, Location, ValueRange a) { return a[0]; };
  Value start = buildElementwise(b, loc, RankedTensorType::get(xType.getShape(), compute), input,
                                 identityFn, c.logicalElementTypes(input));
  if (!includeSelf) {
    double init = 0;
    if (combine == Combine::Prod)
      init = 1;
    else if (combine == Combine::Max || combine == Combine::Min)
      init = extremeIdentity(compute, combine == Combine::Max, isUnsigned);
    start = buildFilled(b, loc, RankedTensorType::get(xType.getShape(), compute), init);
  }
  Value count = buildFilled(b, loc, RankedTensorType::get(xType.getShape(), b.getI64Type()), 0);
  Type srcLogical = src ? c.logicalElementType(src) : Type();
  ScatterPlan s{rank,        dim,     xType,      iType,
                index,       src,     srcValue,   combine,
                includeSelf, compute, srcLogical, isBool,
                isFloat,     isUnsigned};
  linalg::GenericOp generic = buildScatterLoop(b, loc, s, start, count);
  Value acc = generic.getResult(0), counts = generic.getResult(1);
  // Finish: means divide by their counts (+1 for the input), and without
  // include_self the untouched elements keep the input.
  if (combine == Combine::Mean)
    acc = divideScatterMeans(b, loc, s, acc, counts);
  if (!includeSelf) {
    Value self = buildElementwise(b, loc, RankedTensorType::get(xType.getShape(), compute), input,
                                  identityFn, c.logicalElementTypes(input));
    acc = keepUntouched(b, loc, s, acc, counts, self);
  }
  return buildElementwise(b, loc, c.logicalResultType(), acc, identityFn, {compute});
}

static Results lowerScatter(LoweringCall &c) {
  StringRef target = c.target();
  Value x = c.tensor("input"), index = c.tensor("index");
  std::optional<int64_t> dim = c.getInt("dim");
  if (!x || !index || !dim)
    return c.fail("expected tensors and a constant dim");
  int64_t rank = typeOf(x).getRank();
  int64_t d = rank == 0 ? 0 : normalizeDim(*dim, rank);
  Combine combine = Combine::Replace;
  bool includeSelf = true;
  Value src = c.tensor("src");
  double srcValue = 0;
  if (target == "torch.scatter_add") {
    combine = Combine::Sum;
  } else if (target == "torch.scatter_reduce") {
    Attribute reduce = c.value("reduce");
    auto name = dyn_cast_or_null<StringAttr>(reduce);
    std::optional<bool> self = c.getBool("include_self");
    if (!name || !self)
      return c.fail("reduce and include_self must be constants");
    includeSelf = *self;
    combine = llvm::StringSwitch<Combine>(name.getValue())
                  .Case("sum", Combine::Sum)
                  .Case("prod", Combine::Prod)
                  .Case("mean", Combine::Mean)
                  .Case("amax", Combine::Max)
                  .Case("amin", Combine::Min)
                  .Default(Combine::Replace);
    if (combine == Combine::Replace)
      return c.fail("unknown reduce");
  } else { // torch.scatter
    if (!c.isNone("reduce")) {
      auto name = dyn_cast_or_null<StringAttr>(c.value("reduce"));
      if (!name || (name.getValue() != "add" && name.getValue() != "multiply"))
        return c.fail("reduce must be 'add' or 'multiply'");
      combine = name.getValue() == "add" ? Combine::Sum : Combine::Prod;
    }
    if (!src) {
      std::optional<double> v = c.getFloat("src");
      if (!v)
        return c.fail("the value must be a tensor or a constant number");
      srcValue = *v;
    }
  }
  if (rank == 0) {
    // A 0-d scatter is a 1-element one.
    return c.fail("0-d scatters are not lowered");
  }
  FailureOr<Value> r = buildScatter(c, x, d, index, src, srcValue, combine, includeSelf);
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

/// slice_scatter: src written into input's strided window along dim.
static Results lowerSliceScatter(LoweringCall &c) {
  Value x = c.tensor("input"), src = c.tensor("src");
  RankedTensorType type = c.resultType();
  std::optional<int64_t> dim = c.getInt("dim"), step = c.getInt("step");
  if (!x || !src || !type || !dim || !step || *step <= 0 || !typeOf(x).hasStaticShape() ||
      !typeOf(src).hasStaticShape() || typeOf(x).getRank() == 0)
    return c.fail("expected static tensors and constant dim, start, end and a positive step");
  std::optional<int64_t> startV, endV;
  if (!c.isNone("start") && !(startV = c.getInt("start")))
    return c.fail("start must be a constant");
  if (!c.isNone("end") && !(endV = c.getInt("end")))
    return c.fail("end must be a constant");
  RankedTensorType xType = typeOf(x);
  int64_t d = normalizeDim(*dim, xType.getRank());
  SliceBounds s = clampSlice(xType.getDimSize(d), startV, endV, *step);
  SmallVector<int64_t> offsets(xType.getRank(), 0), sizes(xType.getShape()),
      strides(xType.getRank(), 1);
  offsets[d] = s.begin;
  sizes[d] = s.length;
  strides[d] = *step;
  if (ArrayRef<int64_t>(sizes) != typeOf(src).getShape())
    return c.fail("src does not have the window's shape");
  // (src in the result's storage type: slice_scatter keeps input's dtype.)
  Value fill = buildElementwise(c.rewriter, c.loc, c.logicalResultType().clone(sizes), src,
                                [](OpBuilder &, Location, ValueRange a) { return a[0]; },
                                c.logicalElementTypes(src));
  Value out = tensor::InsertSliceOp::create(c.rewriter, c.loc, fill, x, ValueRange{}, ValueRange{},
                                            ValueRange{}, offsets, sizes, strides);
  return SmallVector<Value>{out};
}
