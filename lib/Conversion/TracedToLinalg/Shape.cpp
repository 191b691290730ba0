//===- Shape.cpp - reshapes, permutes, concatenation and indexing ---------===//
//
// Every reshape-like target (view, reshape, flatten, unflatten, squeeze,
// unsqueeze) is a reshape to the result type the result rule computed:
// `tensor.collapse_shape` / `tensor.expand_shape`. Permutes are
// `linalg.transpose`, expand a broadcasting copy, cat a chain of
// `tensor.insert_slice`, basic indexing a `tensor.extract_slice`. `chunk`
// and the attention call produce tuples; they are lowered where
// `operator.getitem` reads an element. Copies (clone, contiguous, detach)
// are the identity on values.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "TracedIR/Dialect/Traced/BoundOp.h"

#include "TracedIR/Dialect/Traced/PyValue.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

/// x.view(dtype) of static shapes: the same bytes, little-endian. Equal
/// element sizes are a bitcast per element; a narrower dtype splits each
/// element into [..., n, r] pieces (a shift and truncation by the piece's
/// index), a wider one joins r pieces (a reduction: or of the shifted
/// pieces). Bool results hold 0 or 1, as the interpreter decodes them.
static FailureOr<SmallVector<Value>> lowerViewDType(LoweringCall &c, Value x) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  RankedTensorType type = c.resultType(0);
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !xType || !xType.hasStaticShape())
    return c.fail("view(dtype) is compiled for static shapes");
  Type logicalOut = c.logicalResultType(0).getElementType();
  Type in = xType.getElementType(), out = type.getElementType();
  unsigned wIn = in.getIntOrFloatBitWidth(), wOut = out.getIntOrFloatBitWidth();
  Type intIn = b.getIntegerType(wIn), intOut = b.getIntegerType(wOut);
  auto toBits = [&](OpBuilder &nb, Location l, Value v, Type bits) -> Value {
    return v.getType() == bits ? v : arith::BitcastOp::create(nb, l, bits, v).getResult();
  };
  auto fromBits = [&](OpBuilder &nb, Location l, Value v) -> Value {
    if (logicalOut.isInteger(1)) // 0 or 1
      return arith::ExtUIOp::create(
          nb, l, out,
          arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, v,
                                arith::ConstantIntOp::create(nb, l, v.getType(), 0)));
    return v.getType() == out ? v : arith::BitcastOp::create(nb, l, out, v).getResult();
  };
  int64_t rank = xType.getRank();
  auto identity = [&](int64_t n) { return b.getMultiDimIdentityMap(n); };
  auto parallel = [](int64_t n) {
    return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
  };
  if (wIn == wOut) {
    Value init = tensor::EmptyOp::create(b, loc, type.getShape(), out);
    auto g = linalg::GenericOp::create(
        b, loc, type, ValueRange{x}, ValueRange{init},
        SmallVector<AffineMap>{identity(rank), identity(rank)}, parallel(rank),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          linalg::YieldOp::create(nb, l, fromBits(nb, l, toBits(nb, l, args[0], intOut)));
        });
    return SmallVector<Value>{g.getResult(0)};
  }
  // The pieces: [..., n, r], r pieces of the smaller dtype per element of
  // the larger.
  bool narrower = wOut < wIn;
  int64_t r = narrower ? wIn / wOut : wOut / wIn;
  ArrayRef<int64_t> wideShape = narrower ? xType.getShape() : type.getShape();
  SmallVector<int64_t> pieces(wideShape);
  pieces.push_back(r);
  SmallVector<AffineExpr> lead;
  for (int64_t i = 0; i < rank; ++i)
    lead.push_back(b.getAffineDimExpr(i));
  AffineMap dropLast = AffineMap::get(rank + 1, 0, lead, b.getContext());
  if (narrower) {
    auto piecesType = RankedTensorType::get(pieces, out);
    Value init = tensor::EmptyOp::create(b, loc, pieces, out);
    auto g = linalg::GenericOp::create(
        b, loc, piecesType, ValueRange{x}, ValueRange{init},
        SmallVector<AffineMap>{dropLast, identity(rank + 1)}, parallel(rank + 1),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value bits = toBits(nb, l, args[0], intIn);
          Value k = arith::IndexCastOp::create(nb, l, intIn,
                                               linalg::IndexOp::create(nb, l, rank));
          Value shift = arith::MulIOp::create(
              nb, l, k, arith::ConstantIntOp::create(nb, l, intIn, wOut));
          Value piece = arith::TruncIOp::create(
              nb, l, intOut, arith::ShRUIOp::create(nb, l, bits, shift));
          linalg::YieldOp::create(nb, l, fromBits(nb, l, piece));
        });
    return SmallVector<Value>{buildReshape(b, loc, g.getResult(0), type.getShape())};
  }
  Value split = buildReshape(b, loc, x, pieces);
  auto accType = RankedTensorType::get(type.getShape(), intOut);
  Value zero = arith::ConstantIntOp::create(b, loc, intOut, 0);
  Value acc = linalg::FillOp::create(
                  b, loc, zero, ValueRange{tensor::EmptyOp::create(b, loc, type.getShape(), intOut)})
                  .getResult(0);
  SmallVector<utils::IteratorType> iterators = parallel(rank);
  iterators.push_back(utils::IteratorType::reduction);
  auto joined = linalg::GenericOp::create(
      b, loc, accType, ValueRange{split}, ValueRange{acc},
      SmallVector<AffineMap>{identity(rank + 1), dropLast}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value piece = arith::ExtUIOp::create(nb, l, intOut, toBits(nb, l, args[0], intIn));
        Value k = arith::IndexCastOp::create(nb, l, intOut,
                                             linalg::IndexOp::create(nb, l, rank));
        Value shift = arith::MulIOp::create(
            nb, l, k, arith::ConstantIntOp::create(nb, l, intOut, wIn));
        Value joined = arith::OrIOp::create(nb, l, args[1],
                                            arith::ShLIOp::create(nb, l, piece, shift));
        linalg::YieldOp::create(nb, l, joined);
      });
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), out);
  auto g = linalg::GenericOp::create(
      b, loc, type, ValueRange{joined.getResult(0)}, ValueRange{init},
      SmallVector<AffineMap>{identity(rank), identity(rank)}, parallel(rank),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, fromBits(nb, l, args[0]));
      });
  return SmallVector<Value>{g.getResult(0)};
}

static FailureOr<SmallVector<Value>> lowerReshapeLike(LoweringCall &c) {
  if (c.target() == "Tensor.view") {
    // x.view(torch.int8): view's `*size` is one dtype.
    Attribute size = c.value("size");
    if (auto list = dyn_cast_or_null<ArrayAttr>(size); list && list.size() == 1)
      size = list[0];
    if (isa_and_nonnull<DTypeAttr>(size))
      if (Value x = c.tensor("input"))
        return lowerViewDType(c, x);
  }
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  Value x = c.tensor("input");
  if (!type || !x || !rankedTensorType(x))
    return c.fail("expected ranked tensors");
  // A dynamic result dim takes what the element count leaves (torch's -1,
  // or a size read from the input), which needs the others static.
  if (llvm::count_if(type.getShape(), ShapedType::isDynamic) > 1)
    return c.fail("a reshape to more than one dynamic dim is not compiled");
  return SmallVector<Value>{
      buildReshape(c.rewriter, c.loc, x, type.getShape())};
}

static FailureOr<SmallVector<Value>> lowerPermute(LoweringCall &c) {
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  Value x = c.tensor("input");
  if (!type || !x || !rankedTensorType(x))
    return c.fail("expected ranked tensors");
  int64_t rank = type.getRank();
  if (rank == 0) // (dims 0 and -1 of a 0-d tensor name the tensor itself)
    return SmallVector<Value>{x};
  SmallVector<int64_t> perm;
  if (c.target() == "torch.transpose") {
    std::optional<int64_t> d0 = c.getInt("dim0"), d1 = c.getInt("dim1");
    if (!d0 || !d1)
      return c.fail("dim0 and dim1 must be constants");
    perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[normalizeDim(*d0, rank)], perm[normalizeDim(*d1, rank)]);
  } else {
    auto dims = c.getInts("dims");
    if (!dims)
      return c.fail("dims must be constants");
    for (int64_t d : *dims)
      perm.push_back(normalizeDim(d, rank));
  }
  return SmallVector<Value>{buildTranspose(c.rewriter, c.loc, x, perm)};
}

static FailureOr<SmallVector<Value>> lowerExpand(LoweringCall &c) {
  RankedTensorType type = c.resultType();
  Value x = c.tensor("input");
  if (x && rankedTensorType(x) && (!type || !staticTensorType(x))) {
    // Dynamic dims (sizes as values): a dynamic dim of the result is the
    // input's same dim, which torch requires unless it is 1; a run-time
    // check compares it with the size asked for.
    type = c.resultType(0, /*dynamic=*/true);
    auto xType = cast<RankedTensorType>(x.getType());
    if (!type || xType.getRank() > type.getRank())
      return c.fail("expected ranked tensors");
    int64_t lead = type.getRank() - xType.getRank();
    std::optional<SmallVector<OpFoldResult>> asked = c.sizeList("size");
    SmallVector<OpFoldResult> have = dimSizes(c.rewriter, c.loc, x);
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      if (d < lead || !xType.isDynamicDim(d - lead)) {
        // A 1 (or a new leading dim) expanded to a traced size.
        if (!asked || asked->size() != static_cast<size_t>(type.getRank()) ||
            (d >= lead && xType.getDimSize(d - lead) != 1))
          return c.fail("a dynamic result dim must be the input's dynamic "
                        "dim or a 1 expanded to a traced size");
        continue;
      }
      if (asked && asked->size() == static_cast<size_t>(type.getRank())) {
        std::optional<int64_t> k = getConstantIntValue((*asked)[d]);
        if (!k || *k != -1)
          checkSameSize(c.rewriter, c.loc, have[d - lead], (*asked)[d],
                        "'" + c.target() + "': a dynamic dim expanded to "
                        "another size");
      }
    }
    // The result's sizes: a dynamic dim of x as it is, a broadcast one as
    // asked; x's size-1 dims read index 0.
    OpBuilder &b = c.rewriter;
    SmallVector<OpFoldResult> sizes;
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      bool fromX = d >= lead && (xType.isDynamicDim(d - lead) ||
                                 xType.getDimSize(d - lead) == type.getDimSize(d));
      sizes.push_back(!type.isDynamicDim(d) ? OpFoldResult(b.getIndexAttr(type.getDimSize(d)))
                      : fromX               ? have[d - lead]
                                            : (*asked)[d]);
      if (d >= lead)
        exprs.push_back(fromX ? b.getAffineDimExpr(d) : b.getAffineConstantExpr(0));
    }
    auto storage = cast<RankedTensorType>(storageType(type));
    Value init = buildEmpty(b, c.loc, storage, sizes);
    SmallVector<AffineMap> maps = {
        AffineMap::get(type.getRank(), 0, exprs, b.getContext()),
        b.getMultiDimIdentityMap(type.getRank())};
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, c.loc, TypeRange{storage}, ValueRange{x}, ValueRange{init}, maps,
        iterators, [](OpBuilder &nb, Location l, ValueRange a) {
          linalg::YieldOp::create(nb, l, a[0]);
        });
    return SmallVector<Value>{generic.getResult(0)};
  }
  if (!type || !x || !staticTensorType(x))
    return c.fail("expected statically shaped tensors");
  if (cast<RankedTensorType>(x.getType()) == type)
    return SmallVector<Value>{x};
  return SmallVector<Value>{
      buildElementwise(c.rewriter, c.loc, type, x,
                       [](OpBuilder &, Location, ValueRange a) { return a[0]; })};
}

/// `parts` (of traced element types `partTypes`) concatenated along `dim`
/// into traced type `type`, converting their elements (torch.cat promotes).
/// Dynamic dims are sized at run time: the concatenated dim is the sum of the
/// parts', the others are the first part's, and a run-time check says when
/// another part's differs.
static Value concat(OpBuilder &b, Location loc, ArrayRef<Value> parts,
                    ArrayRef<Type> partTypes, int64_t dim,
                    RankedTensorType type) {
  auto storage = cast<RankedTensorType>(storageType(type));
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = dimSizes(b, loc, parts.front());
  for (Value part : parts.drop_front()) {
    SmallVector<OpFoldResult> partSizes = dimSizes(b, loc, part);
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim)
        checkSameSize(b, loc, sizes[d], partSizes[d],
                      "torch.cat: the tensors' sizes differ outside the "
                      "concatenated dim");
  }
  SmallVector<OpFoldResult> offsets;
  OpFoldResult total = b.getIndexAttr(0);
  for (Value part : parts) {
    offsets.push_back(total);
    OpFoldResult n = dimSizes(b, loc, part)[dim];
    std::optional<int64_t> t = getConstantIntValue(total), m = getConstantIntValue(n);
    total = t && m ? OpFoldResult(b.getIndexAttr(*t + *m))
                   : OpFoldResult(arith::AddIOp::create(
                                      b, loc, getValueOrCreateConstantIndexOp(b, loc, total),
                                      getValueOrCreateConstantIndexOp(b, loc, n))
                                      .getResult());
  }
  sizes[dim] = total;
  Value out = buildEmpty(b, loc, storage, sizes);
  for (auto [i, partType] : llvm::enumerate(partTypes)) {
    Value part = parts[i];
    auto t = cast<RankedTensorType>(part.getType());
    if (partType != type.getElementType())
      part = buildElementwise(
          b, loc, RankedTensorType::get(t.getShape(), type.getElementType()),
          part, [](OpBuilder &, Location, ValueRange a) { return a[0]; },
          partType);
    SmallVector<OpFoldResult> at(rank, b.getIndexAttr(0)),
        strides(rank, b.getIndexAttr(1));
    at[dim] = offsets[i];
    out = tensor::InsertSliceOp::create(b, loc, part, out, at,
                                        dimSizes(b, loc, part), strides);
  }
  return castChecked(b, loc, out, storage,
                     "torch.cat: a dim has another size than the trace's");
}

static FailureOr<SmallVector<Value>> lowerCat(LoweringCall &c) {
  RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
  FailureOr<SmallVector<Value>> parts = c.tensors("tensors");
  std::optional<int64_t> dim = c.getInt("dim");
  if (!type || failed(parts) || !dim)
    return c.fail("expected a list of tensors and a constant dim");
  bool stack = c.target() == "torch.stack";
  int64_t d = normalizeDim(*dim, type.getRank());
  SmallVector<Value> pieces;
  SmallVector<Type> pieceTypes;
  for (Value p : *parts) {
    if (!rankedTensorType(p))
      return c.fail("expected ranked tensors");
    Type logical = c.logicalElementType(p);
    if (stack) {
      SmallVector<int64_t> shape(cast<RankedTensorType>(p.getType()).getShape());
      shape.insert(shape.begin() + d, 1);
      if (staticTensorType(p)) {
        p = buildReshape(c.rewriter, c.loc, p, shape);
      } else {
        SmallVector<OpFoldResult> sizes = dimSizes(c.rewriter, c.loc, p);
        sizes.insert(sizes.begin() + d, c.rewriter.getIndexAttr(1));
        p = buildDynamicReshape(c.rewriter, c.loc, p, shape, sizes);
        if (!p)
          return c.fail("internal: cannot add the stacked dim");
      }
    }
    auto t = cast<RankedTensorType>(p.getType());
    if (t.getRank() == 1 && t.getDimSize(0) == 0 && type.getRank() != 1)
      continue; // torch.cat skips legacy empty 1-D tensors
    if (t.getRank() != type.getRank())
      return c.fail("the tensors' ranks differ from the result's");
    pieces.push_back(p);
    pieceTypes.push_back(logical);
  }
  if (pieces.empty())
    return c.fail("nothing to concatenate");
  return SmallVector<Value>{
      concat(c.rewriter, c.loc, pieces, pieceTypes, d, type)};
}

FailureOr<std::array<int64_t, 3>> lowering::sliceBounds(SliceAttr s,
                                                        int64_t size) {
  auto get = [](Attribute a, int64_t dflt) -> std::optional<int64_t> {
    if (!a || isa<NoneAttr>(a))
      return dflt;
    if (auto i = dyn_cast<IntegerAttr>(a))
      return i.getValue().getSExtValue();
    return std::nullopt;
  };
  std::optional<int64_t> step = get(s.getStep(), 1);
  if (!step || *step <= 0)
    return failure();
  std::optional<int64_t> start = get(s.getStart(), 0),
                         stop = get(s.getStop(), size);
  if (!start || !stop)
    return failure();
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  int64_t b = clamp(*start), e = clamp(*stop);
  int64_t n = e > b ? (e - b + *step - 1) / *step : 0;
  return std::array<int64_t, 3>{b, n, *step};
}

FailureOr<IndexView>
lowering::indexView(LoweringCall &c, RankedTensorType xType,
                    ArrayRef<Attribute> items,
                    function_ref<bool(Attribute)> isAdvanced) {
  int64_t rank = xType.getRank();
  int64_t consumed = llvm::count_if(items, [](Attribute a) {
    return !isa<NoneAttr, EllipsisAttr>(a);
  });
  IndexView v;
  int64_t dim = 0;
  auto fullDim = [&](Attribute advanced) {
    v.offsets.push_back(0);
    v.sizes.push_back(xType.getDimSize(dim));
    v.strides.push_back(1);
    v.shape.push_back(xType.getDimSize(dim));
    v.advanced.push_back(advanced);
    ++dim;
  };
  for (Attribute item : items) {
    if (isa<NoneAttr>(item)) {
      v.shape.push_back(1);
      v.advanced.push_back(Attribute());
      continue;
    }
    if (isa<EllipsisAttr>(item)) {
      for (int64_t n = rank - consumed; n > 0; --n)
        fullDim(Attribute());
      continue;
    }
    if (dim >= rank)
      return c.fail("too many indices");
    int64_t size = xType.getDimSize(dim);
    if (isAdvanced && isAdvanced(item)) {
      fullDim(item);
    } else if (auto i = dyn_cast<IntegerAttr>(item)) {
      int64_t at = i.getValue().getSExtValue();
      if (at < 0)
        at += size;
      if (at < 0 || at >= size)
        return c.fail("index out of range");
      v.offsets.push_back(at);
      v.sizes.push_back(1);
      v.strides.push_back(1);
      ++dim;
    } else if (auto s = dyn_cast<SliceAttr>(item)) {
      FailureOr<std::array<int64_t, 3>> bounds = sliceBounds(s, size);
      if (failed(bounds))
        return c.fail("slices need constant bounds and a positive step");
      v.offsets.push_back((*bounds)[0]);
      v.sizes.push_back((*bounds)[1]);
      v.strides.push_back((*bounds)[2]);
      v.shape.push_back((*bounds)[1]);
      v.advanced.push_back(Attribute());
      ++dim;
    } else {
      return c.fail(isAdvanced ? "unsupported index item"
                               : "only basic indexing (ints, slices, None, "
                                 "...) is supported");
    }
  }
  while (dim < rank)
    fullDim(Attribute());
  return v;
}

FailureOr<IndexView> lowering::basicIndexView(LoweringCall &c,
                                             RankedTensorType xType) {
  Attribute index = c.value("index");
  if (!index || !xType.hasStaticShape())
    return c.fail("only basic indexing (ints, slices, None, ...) with "
                  "constant bounds is supported");
  SmallVector<Attribute> items;
  if (auto tuple = dyn_cast<TupleAttr>(index))
    llvm::append_range(items, tuple.getElements().getValue());
  else
    items.push_back(index);
  return indexView(c, xType, items);
}

FailureOr<DynamicIndexView> lowering::dynamicIndexView(LoweringCall &c,
                                                       Value x) {
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!xType)
    return c.fail("only basic indexing of ranked tensors is supported");
  Attribute slot = c.slots[*c.spec->signature.lookup("index")];
  SmallVector<Attribute> items;
  if (auto tuple = dyn_cast_or_null<TupleAttr>(slot))
    llvm::append_range(items, tuple.getElements().getValue());
  else
    items.push_back(slot);
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // An int part of an item (a constant or a traced int) as an index.
  auto part = [&](Attribute a) -> Value {
    if (auto i = dyn_cast_or_null<IntegerAttr>(a))
      return i.getType().isInteger(1) ? Value() : index(i.getInt());
    Value v = c.lowered(a);
    if (!v || !v.getType().isInteger(64))
      return {};
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  };
  auto fold = [&](Value v) { return getAsOpFoldResult(v); };
  int64_t rank = xType.getRank();
  int64_t consumed = llvm::count_if(
      items, [](Attribute a) { return !isa<NoneAttr, EllipsisAttr>(a); });
  DynamicIndexView v;
  int64_t dim = 0;
  auto dimSize = [&](int64_t d) -> Value {
    return xType.isDynamicDim(d)
               ? tensor::DimOp::create(b, loc, x, d).getResult()
               : index(xType.getDimSize(d));
  };
  auto fullDim = [&]() {
    OpFoldResult size = xType.isDynamicDim(dim)
                            ? OpFoldResult(dimSize(dim))
                            : OpFoldResult(b.getIndexAttr(xType.getDimSize(dim)));
    v.offsets.push_back(b.getIndexAttr(0));
    v.sizes.push_back(size);
    v.strides.push_back(b.getIndexAttr(1));
    v.shape.push_back(size);
    ++dim;
  };
  // Python's reading of a bound: negative counts from the end, clamped.
  auto clamp = [&](Value at, Value size) -> Value {
    Value zero = index(0);
    Value negative = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, at, zero);
    at = b.createOrFold<arith::SelectOp>(
        loc, negative, b.createOrFold<arith::AddIOp>(loc, at, size), at);
    at = b.createOrFold<arith::MaxSIOp>(loc, at, zero);
    return b.createOrFold<arith::MinSIOp>(loc, at, size);
  };
  for (Attribute item : items) {
    if (isa_and_nonnull<NoneAttr>(item)) {
      v.shape.push_back(b.getIndexAttr(1));
      continue;
    }
    if (isa_and_nonnull<EllipsisAttr>(item)) {
      for (int64_t n = rank - consumed; n > 0; --n)
        fullDim();
      continue;
    }
    if (dim >= rank)
      return c.fail("too many indices");
    Value size = dimSize(dim);
    if (auto s = dyn_cast_or_null<SliceAttr>(item)) {
      int64_t step = 1;
      if (s.getStep() && !isa<NoneAttr>(s.getStep())) {
        auto st = dyn_cast<IntegerAttr>(s.getStep());
        if (!st || st.getInt() <= 0)
          return c.fail("slices need a constant positive step");
        step = st.getInt();
      }
      Value start = isa_and_nonnull<NoneAttr>(s.getStart()) || !s.getStart()
                        ? index(0)
                        : part(s.getStart());
      Value stop = isa_and_nonnull<NoneAttr>(s.getStop()) || !s.getStop()
                       ? size
                       : part(s.getStop());
      if (!start || !stop)
        return c.fail("slice bounds must be ints");
      Value begin = clamp(start, size), end = clamp(stop, size);
      Value span = b.createOrFold<arith::SubIOp>(loc, end, begin);
      Value n = b.createOrFold<arith::CeilDivSIOp>(loc, span, index(step));
      n = b.createOrFold<arith::MaxSIOp>(loc, n, index(0));
      v.offsets.push_back(fold(begin));
      v.sizes.push_back(fold(n));
      v.strides.push_back(b.getIndexAttr(step));
      v.shape.push_back(fold(n));
      ++dim;
      continue;
    }
    Value at = part(item);
    if (!at)
      return c.fail("only basic indexing (ints, slices, None, ...) is "
                    "supported here");
    Value zero = index(0);
    Value negative = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, at, zero);
    at = b.createOrFold<arith::SelectOp>(
        loc, negative, b.createOrFold<arith::AddIOp>(loc, at, size), at);
    if (!getConstantIntValue(fold(at)) || xType.isDynamicDim(dim)) {
      Value inRange = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, at, zero),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, size));
      c.check(inRange, "index out of range for dimension " + Twine(dim));
    }
    v.offsets.push_back(fold(at));
    v.sizes.push_back(b.getIndexAttr(1));
    v.strides.push_back(b.getIndexAttr(1));
    ++dim;
  }
  while (dim < rank)
    fullDim();
  return v;
}

/// x[index] with basic items (ints, slices, None, Ellipsis) whose bounds or
/// whose dims of x are known only at run time (sizes as values, docs/llm.md):
/// one extract_slice with run-time offsets and sizes, reshaped to the
/// result.
static FailureOr<SmallVector<Value>> lowerDynamicTensorIndex(LoweringCall &c,
                                                             Value x) {
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  if (!type)
    return c.fail("only basic indexing of ranked tensors is supported");
  FailureOr<DynamicIndexView> v = dynamicIndexView(c, x);
  if (failed(v))
    return failure();
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value slice = tensor::ExtractSliceOp::create(b, loc, x, v->offsets,
                                               v->sizes, v->strides);
  if (static_cast<int64_t>(v->shape.size()) != type.getRank())
    return c.fail("internal: the indexed rank differs from the traced result's");
  SmallVector<int64_t> target = decomposeMixedValues(v->shape).first;
  Value r = slice;
  if (cast<RankedTensorType>(slice.getType()).getShape() != ArrayRef<int64_t>(target)) {
    r = buildDynamicReshape(b, loc, slice, target, v->shape);
    if (!r)
      return c.fail("internal: cannot reshape the indexed view");
  }
  // (`T - T // 2` is 2 at the traced 3 and 4: a static dim computed here.)
  return SmallVector<Value>{castChecked(
      b, loc, r, type,
      "'" + c.target() + "': an indexed dim has another size than the "
      "trace's (trace again with dynamic dims that reach it)")};
}

static FailureOr<SmallVector<Value>> lowerTensorIndex(LoweringCall &c,
                                                      Value x) {
  RankedTensorType type = c.resultType();
  if (!type || !staticTensorType(x) || !c.value("index"))
    return lowerDynamicTensorIndex(c, x);
  FailureOr<IndexView> w =
      basicIndexView(c, cast<RankedTensorType>(x.getType()));
  if (failed(w))
    return failure();
  Value slice = buildSlice(c.rewriter, c.loc, x, w->offsets, w->sizes,
                           w->strides);
  return SmallVector<Value>{
      buildReshape(c.rewriter, c.loc, slice, type.getShape())};
}

/// The call whose tuple result a chain of getitems reads (an LSTM's
/// (h_n, c_n) inside (output, (h_n, c_n))): `producer` itself unless it is
/// a getitem with a constant index, whose indices are prepended to `path`.
static Operation *lookThroughGetitems(Operation *producer,
                                      SmallVector<int64_t> &path) {
  while (producer && isa<CallFunctionOp>(producer)) {
    std::optional<BoundOp> bound = bindCall(producer, {});
    if (!bound || bound->spec->name != "operator.getitem")
      break;
    auto index = dyn_cast_or_null<IntegerAttr>(
        bound->slots[*bound->spec->signature.lookup("index")]);
    auto input = dyn_cast_or_null<OperandAttr>(
        bound->slots[*bound->spec->signature.lookup("input")]);
    if (!index || !input)
      break;
    path.insert(path.begin(), index.getInt());
    producer = producer->getOperand(input.getIndex()).getDefiningOp();
  }
  return producer;
}

/// Element `i` of a tuple-producing call.
static FailureOr<SmallVector<Value>> lowerAggregateElement(LoweringCall &c,
                                                           Operation *producer) {
  std::optional<int64_t> i = c.getInt("index");
  SmallVector<int64_t> path;
  if (i) {
    path.push_back(*i);
    producer = lookThroughGetitems(producer, path);
  }
  std::optional<BoundOp> bound =
      producer ? bindCall(producer, {}) : std::nullopt;
  if (!i || !bound)
    return c.fail("expected a constant index into a known call's result");
  SmallVector<Value> operands;
  for (Value v : producer->getOperands())
    operands.push_back(c.remap(v));
  LoweringCall inner(producer, bound->spec, bound->slots, operands,
                     c.rewriter);
  inner.remap = c.remap;
  if (failed(checkElementTypes(inner)))
    return failure();
  RankedTensorType type = c.resultType();
  if (bound->spec->name == "torch.nn.functional.multi_head_attention_forward") {
    FailureOr<Value> out = lowerAttentionElement(inner, *i);
    if (failed(out))
      return failure();
    return SmallVector<Value>{*out};
  }
  if (isMaxPoolWithIndices(bound->spec->name)) {
    FailureOr<Value> element = lowerMaxPoolElement(inner, *i, type);
    if (failed(element))
      return failure();
    return SmallVector<Value>{*element};
  }
  if (bound->spec->name == "torch.frexp") {
    FailureOr<Value> element =
        lowerFrexpElement(inner, *i < 0 ? *i + 2 : *i, c.resultType(0, true));
    if (failed(element))
      return failure();
    return SmallVector<Value>{*element};
  }
  if (isLapackTarget(bound->spec->name)) {
    FailureOr<Value> element = lowerLapackElement(inner, *i);
    if (failed(element))
      return failure();
    return SmallVector<Value>{*element};
  }
  if (bound->spec->name == "torch.mode") {
    FailureOr<Value> element =
        lowerModeElement(inner, *i < 0 ? *i + 2 : *i, c.logicalResultType());
    if (failed(element))
      return failure();
    return SmallVector<Value>{*element};
  }
  if (isSortTarget(bound->spec->name)) {
    FailureOr<Value> element = lowerSortElement(inner, *i < 0 ? *i + 2 : *i, type);
    if (failed(element))
      return failure();
    return SmallVector<Value>{*element};
  }
  if (isRecurrentTarget(bound->spec->name)) {
    FailureOr<Value> element =
        lowerRecurrentElement(inner, path, c.resultType(0, /*dynamic=*/true));
    if (failed(element))
      return failure();
    return SmallVector<Value>{*element};
  }
  if (path.size() != 1)
    return c.fail(Twine("cannot index the result of '") + bound->spec->name +
                  "' twice");
  if (bound->spec->name == "torch.chunk") {
    Value x = inner.tensor("input");
    std::optional<int64_t> chunks = inner.getInt("chunks"),
                           dim = inner.getInt("dim");
    RankedTensorType xType = x ? rankedTensorType(x) : nullptr;
    type = c.resultType(0, /*dynamic=*/true);
    if (!xType || !chunks || *chunks <= 0 || !dim || !type ||
        xType.getRank() == 0)
      return c.fail("expected a ranked input and constant chunks and dim");
    int64_t d = normalizeDim(*dim, xType.getRank());
    if (xType.isDynamicDim(d))
      return c.fail("the chunked dim must be static");
    // (The other dims may be dynamic: sizes as values.)
    int64_t size = xType.getDimSize(d);
    int64_t step = (size + *chunks - 1) / *chunks;
    int64_t n = step ? (size + step - 1) / step : 0;
    int64_t k = *i < 0 ? *i + n : *i;
    OpBuilder &b = c.rewriter;
    SmallVector<OpFoldResult> offsets(xType.getRank(), b.getIndexAttr(0)),
        sizes = dimSizes(b, c.loc, x), strides(xType.getRank(), b.getIndexAttr(1));
    offsets[d] = b.getIndexAttr(k * step);
    sizes[d] = b.getIndexAttr(std::min(step, size - k * step));
    Value r = tensor::ExtractSliceOp::create(b, c.loc, x, offsets, sizes, strides);
    return SmallVector<Value>{castChecked(
        b, c.loc, r, type, "'torch.chunk': a dim has another size than the "
                           "trace's")};
  }
  return c.fail(Twine("cannot index the result of '") + bound->spec->name +
                "'");
}

static FailureOr<SmallVector<Value>> lowerGetitem(LoweringCall &c) {
  if (Value x = c.tensor("input")) {
    // Tensors in the index: advanced indexing (Index.cpp).
    bool tensors = false;
    walkOperandMarkers(c.slots[*c.spec->signature.lookup("index")],
                       [&](OperandAttr m) {
                         Value v = c.operands[m.getIndex() +
                                              (isa<CallMethodOp>(c.op) ? 1 : 0)];
                         tensors |= isa<TensorType>(v.getType());
                       });
    // (A constant list index is advanced too: x[[0, 2]].)
    Attribute slot = c.slots[*c.spec->signature.lookup("index")];
    if (auto tuple = dyn_cast_or_null<TupleAttr>(slot))
      tensors |= llvm::any_of(tuple.getElements(),
                              [](Attribute a) { return isa<ArrayAttr>(a); });
    tensors |= isa_and_nonnull<ArrayAttr>(slot);
    if (tensors)
      return lowerAdvancedGetitem(c, x);
    return lowerTensorIndex(c, x);
  }
  // The original operand: a tuple produced by another call.
  Attribute slot = c.slots[*c.spec->signature.lookup("input")];
  auto marker = dyn_cast_or_null<OperandAttr>(slot);
  Operation *producer =
      marker ? c.op->getOperand(marker.getIndex() +
                                (isa<CallMethodOp>(c.op) ? 1 : 0))
                   .getDefiningOp()
             : nullptr;
  if (producer && isa<CallFunctionOp, CallMethodOp>(producer))
    return lowerAggregateElement(c, producer);
  return c.fail("only tensors and the results of chunk and attention can be "
                "indexed");
}

static Value nonzero(OpBuilder &b, Location loc, Value v);

static FailureOr<SmallVector<Value>> lowerAssert(LoweringCall &c) {
  Attribute cond = c.value("condition");
  auto message = dyn_cast_or_null<StringAttr>(c.value("message"));
  // A tensor condition (one element) is checked at run time.
  if (Value t = c.tensor("condition")) {
    auto type = dyn_cast<RankedTensorType>(t.getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() != 1)
      return c.fail("the condition must be a tensor of one element");
    OpBuilder &b = c.rewriter;
    SmallVector<Value> zeros(type.getRank(),
                             arith::ConstantIndexOp::create(b, c.loc, 0));
    Value v = tensor::ExtractOp::create(b, c.loc, t, zeros);
    Value zero = arith::ConstantOp::create(b, c.loc, b.getZeroAttr(v.getType()));
    Value holds =
        isa<FloatType>(v.getType())
            ? arith::CmpFOp::create(b, c.loc, arith::CmpFPredicate::UNE, v, zero)
                  .getResult()
            : arith::CmpIOp::create(b, c.loc, arith::CmpIPredicate::ne, v, zero)
                  .getResult();
    c.check(holds, "assertion failed: " +
                       (message ? message.getValue() : StringRef()));
    return SmallVector<Value>{};
  }
  // A Python number known at run time (a guard on a scalar graph input).
  if (!cond) {
    if (Value v = c.scalar("condition")) {
      c.check(nonzero(c.rewriter, c.loc, v),
              "assertion failed: " + (message ? message.getValue() : StringRef()));
      return SmallVector<Value>{};
    }
  }
  auto b = dyn_cast_or_null<BoolAttr>(cond);
  if (!b)
    return c.fail("the condition is not known at compile time");
  if (!b.getValue())
    return c.fail("the assertion fails at compile time");
  return SmallVector<Value>{};
}

/// F.pad: constant mode as a tensor.pad of `value` (0 when None), the
/// other modes as conv's padding_mode generics; the pad list runs from the
/// last dim backwards, (before, after) per dim; a negative pad crops.
/// F.pad in constant mode of a tensor with dynamic dims or traced widths
/// (sizes as values: `F.pad(x, (0, S - T))`): one tensor.pad sized at run
/// time. A traced width that turns out negative (torch crops there) is
/// refused at run time rather than mis-sized.
static FailureOr<SmallVector<Value>> lowerDynamicConstantPad(LoweringCall &c,
                                                             Value x) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  RankedTensorType resultType = c.resultType(0, /*dynamic=*/true);
  std::optional<SmallVector<OpFoldResult>> pad = c.sizeList("pad");
  if (!type || !resultType || !pad)
    return c.fail("expected a ranked tensor and int pad widths");
  int64_t rank = type.getRank();
  if (pad->size() % 2 || static_cast<int64_t>(pad->size()) > 2 * rank)
    return c.fail("the pad list must hold (before, after) pairs for at most "
                  "every dim");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0)),
      high(rank, b.getIndexAttr(0));
  for (size_t i = 0; i < pad->size() / 2; ++i) {
    int64_t d = rank - 1 - static_cast<int64_t>(i);
    low[d] = (*pad)[2 * i];
    high[d] = (*pad)[2 * i + 1];
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (OpFoldResult w : llvm::concat<OpFoldResult>(low, high)) {
    if (std::optional<int64_t> k = getConstantIntValue(w)) {
      if (*k < 0)
        return c.fail("negative pads of a dynamically shaped tensor are not "
                      "compiled");
      continue;
    }
    c.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                  cast<Value>(w), zero),
            "a negative pad width (which crops) known only at run time is "
            "not compiled");
  }
  double v = c.isNone("value") ? 0.0 : c.getFloat("value").value_or(0.0);
  Value fill = scalarConstant(b, loc, resultType.getElementType(), v);
  SmallVector<int64_t> staticShape;
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<int64_t> l = getConstantIntValue(low[d]),
                           h = getConstantIntValue(high[d]);
    staticShape.push_back(!type.isDynamicDim(d) && l && h
                              ? type.getDimSize(d) + *l + *h
                              : ShapedType::kDynamic);
  }
  auto padType = RankedTensorType::get(staticShape, resultType.getElementType());
  Value r = tensor::PadOp::create(b, loc, padType, x, low, high, fill);
  return SmallVector<Value>{castChecked(
      b, loc, r, resultType,
      "'" + c.target() + "': a padded size differs from the trace's")};
}

/// Tensor.repeat of a tensor with dynamic dims or traced repeats: each
/// result element reads x at its index modulo x's size.
static FailureOr<SmallVector<Value>> lowerDynamicRepeat(LoweringCall &c) {
  Value x = c.tensor("input");
  auto xType = x ? dyn_cast<RankedTensorType>(x.getType()) : nullptr;
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  std::optional<SmallVector<OpFoldResult>> reps = c.sizeList("repeats");
  if (!xType || !type || !reps ||
      reps->size() != static_cast<size_t>(type.getRank()) ||
      type.getRank() < xType.getRank())
    return c.fail("expected a ranked tensor and one int repeat per dim");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  int64_t rank = type.getRank(), lead = rank - xType.getRank();
  SmallVector<OpFoldResult> have = dimSizes(b, loc, x), sizes;
  for (int64_t d = 0; d < rank; ++d) {
    Value n = getValueOrCreateConstantIndexOp(b, loc, (*reps)[d]);
    if (d >= lead)
      n = b.createOrFold<arith::MulIOp>(
          loc, n, getValueOrCreateConstantIndexOp(b, loc, have[d - lead]));
    sizes.push_back(getAsOpFoldResult(n));
  }
  Value init = buildEmpty(b, loc, type, sizes);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange) {
        SmallVector<Value> coords;
        for (int64_t d = lead; d < rank; ++d)
          coords.push_back(arith::RemUIOp::create(
              nb, l, linalg::IndexOp::create(nb, l, d),
              getValueOrCreateConstantIndexOp(nb, l, have[d - lead])));
        linalg::YieldOp::create(nb, l, tensor::ExtractOp::create(nb, l, x, coords)
                                           .getResult());
      });
  return SmallVector<Value>{generic.getResult(0)};
}

static FailureOr<SmallVector<Value>> lowerConstantPad(LoweringCall &c) {
  Value x = c.tensor("input");
  std::optional<SmallVector<int64_t>> pad = c.getInts("pad");
  auto mode = dyn_cast_or_null<StringAttr>(c.value("mode"));
  if (x && mode && mode.getValue() == "constant" &&
      (!pad || !staticTensorType(x)))
    return lowerDynamicConstantPad(c, x);
  if (!x || !pad || !mode)
    return c.fail("expected a tensor, a constant pad list and mode");
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !type.hasStaticShape())
    return c.fail("expected a statically shaped input");
  int64_t rank = type.getRank();
  if (pad->size() % 2 || static_cast<int64_t>(pad->size()) > 2 * rank)
    return c.fail("the pad list must hold (before, after) pairs for at most "
                  "every dim");
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (size_t i = 0; i < pad->size() / 2; ++i) {
    int64_t d = rank - 1 - static_cast<int64_t>(i);
    low[d] = (*pad)[2 * i];
    high[d] = (*pad)[2 * i + 1];
  }
  bool crops = llvm::any_of(low, [](int64_t v) { return v < 0; }) ||
               llvm::any_of(high, [](int64_t v) { return v < 0; });
  if (crops && mode.getValue() != "constant")
    return c.fail("negative pads are only lowered in constant mode");
  if (crops) {
    // A negative pad crops: slice first, then pad what is positive.
    SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
        ones(rank, 1);
    for (int64_t d = 0; d < rank; ++d) {
      offsets[d] = std::max<int64_t>(-low[d], 0);
      sizes[d] -= offsets[d] + std::max<int64_t>(-high[d], 0);
      if (sizes[d] < 0)
        return c.fail("the pads crop more than the input holds");
      low[d] = std::max<int64_t>(low[d], 0);
      high[d] = std::max<int64_t>(high[d], 0);
    }
    x = buildSlice(c.rewriter, c.loc, x, offsets, sizes, ones);
  }
  if (mode.getValue() != "constant") {
    // reflect / replicate / circular: the last pad->size() / 2 dims, in
    // order (the interpreter's rule has checked sizes and ranks).
    ConvParams::PadMode m = mode.getValue() == "reflect"
                                ? ConvParams::PadMode::Reflect
                            : mode.getValue() == "replicate"
                                ? ConvParams::PadMode::Replicate
                            : mode.getValue() == "circular"
                                ? ConvParams::PadMode::Circular
                                : ConvParams::PadMode::Zeros;
    if (m == ConvParams::PadMode::Zeros)
      return c.fail("unknown padding mode '" + mode.getValue() + "'");
    unsigned k = pad->size() / 2, first = rank - k;
    SmallVector<int64_t> before(low.begin() + first, low.end()),
        after(high.begin() + first, high.end());
    return SmallVector<Value>{
        padByMode(c.rewriter, c.loc, x, before, after, m, first)};
  }
  double value = 0;
  if (!c.isNone("value")) {
    std::optional<double> v = c.getFloat("value");
    if (!v)
      return c.fail("'value' must be a number");
    value = *v;
  }
  return SmallVector<Value>{buildPad(c.rewriter, c.loc, x, low, high, value)};
}

/// torch.roll: for each (shift, dim), the last `shift` elements moved to
/// the front, as two slices concatenated; with no dims, the flattened
/// tensor rolled and reshaped back.
static FailureOr<SmallVector<Value>> lowerRoll(LoweringCall &c) {
  Value x = c.tensor("input");
  RankedTensorType type = c.logicalResultType();
  std::optional<SmallVector<int64_t>> shifts = c.getInts("shifts");
  if (!x || !type || !shifts)
    return c.fail("expected a statically shaped tensor and constant shifts");
  auto inType = dyn_cast<RankedTensorType>(x.getType());
  if (!inType || !inType.hasStaticShape())
    return c.fail("expected a statically shaped tensor");
  // A 0-d tensor rolls onto itself (torch takes it as one element).
  if (inType.getRank() == 0)
    return SmallVector<Value>{x};
  Type elt = c.logicalElementType(x);
  bool flat = c.isNone("dims");
  SmallVector<int64_t> dims;
  if (flat) {
    if (shifts->size() != 1)
      return c.fail("without dims, roll takes one shift");
    x = buildReshape(c.rewriter, c.loc, x, {inType.getNumElements()});
    dims = {0};
  } else {
    std::optional<SmallVector<int64_t>> d = c.getInts("dims");
    if (!d || d->size() != shifts->size())
      return c.fail("expected as many constant dims as shifts");
    dims = *d;
  }
  for (auto [shift, d] : llvm::zip(*shifts, dims)) {
    auto t = cast<RankedTensorType>(x.getType());
    int64_t rank = t.getRank(), n = normalizeDim(d, rank);
    int64_t size = t.getDimSize(n);
    int64_t k = size ? ((shift % size) + size) % size : 0;
    if (k == 0)
      continue;
    SmallVector<int64_t> offsets(rank, 0), sizes(t.getShape()), ones(rank, 1);
    offsets[n] = size - k;
    sizes[n] = k;
    Value tail = buildSlice(c.rewriter, c.loc, x, offsets, sizes, ones);
    offsets[n] = 0;
    sizes[n] = size - k;
    Value head = buildSlice(c.rewriter, c.loc, x, offsets, sizes, ones);
    x = concat(c.rewriter, c.loc, {tail, head}, {elt, elt}, n,
               RankedTensorType::get(t.getShape(), elt));
  }
  if (flat)
    x = buildReshape(c.rewriter, c.loc, x, type.getShape());
  return SmallVector<Value>{x};
}

/// `x.size(d)` of a dynamic dim (static ones fold before lowering): the
/// run-time size, an i64 like the traced Python int. (`x.size()` and
/// `x.shape` are tuples: refused for dynamic dims.)
static FailureOr<SmallVector<Value>> lowerSize(LoweringCall &c) {
  Value x = c.tensor("input");
  std::optional<int64_t> dim = c.getInt("dim");
  RankedTensorType type = x ? rankedTensorType(x) : RankedTensorType();
  if (!type || !dim || c.op->getNumResults() != 1)
    return c.fail("only x.size(dim) with a constant dim is compiled for a "
                  "dynamic shape (x.size() and x.shape are tuples)");
  int64_t d = normalizeDim(*dim, type.getRank());
  if (d < 0 || d >= type.getRank())
    return c.fail("dim out of range");
  Value size = tensor::DimOp::create(c.rewriter, c.loc, x, d);
  return SmallVector<Value>{arith::IndexCastOp::create(
      c.rewriter, c.loc, c.rewriter.getI64Type(), size)};
}

//===----------------------------------------------------------------------===//
// Python numbers: ATen's conversions and prim's min and max
//===----------------------------------------------------------------------===//

/// A scalar `v` of traced element type `logical` (bool and uint8 stored as
/// i8) as an f64.
static Value toF64(OpBuilder &b, Location loc, Value v, Type logical) {
  Type f64 = b.getF64Type();
  if (v.getType() == f64)
    return v;
  if (isa<FloatType>(v.getType()))
    return arith::ExtFOp::create(b, loc, f64, v);
  if (logical.isInteger(1) || logical.isUnsignedInteger())
    return arith::UIToFPOp::create(b, loc, f64, v);
  return arith::SIToFPOp::create(b, loc, f64, v);
}

/// Whether scalar `v` is nonzero (a NaN is).
static Value nonzero(OpBuilder &b, Location loc, Value v) {
  if (isa<FloatType>(v.getType()))
    return arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::UNE, v,
        arith::ConstantFloatOp::create(b, loc, cast<FloatType>(v.getType()),
                                       APFloat::getZero(cast<FloatType>(v.getType())
                                                            .getFloatSemantics())));
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, v,
      arith::ConstantIntOp::create(b, loc, v.getType(), 0));
}

/// The number parameter `a` holds: a tensor's one element (with its traced
/// element type), or a Python number (its own type).
static std::pair<Value, Type> numberOperand(LoweringCall &c, StringRef name) {
  if (Value t = c.tensor(name)) {
    auto type = cast<RankedTensorType>(t.getType());
    if (!type.hasStaticShape() || type.getNumElements() != 1)
      return {};
    Value zero = arith::ConstantIndexOp::create(c.rewriter, c.loc, 0);
    SmallVector<Value> indices(type.getRank(), zero);
    Value e = tensor::ExtractOp::create(c.rewriter, c.loc, t, indices);
    return {e, c.logicalElementType(t)};
  }
  Value s = c.scalar(name);
  return {s, s ? s.getType() : Type()};
}

/// ScalarImplicit, Float, Int and Bool (the rules checked the shapes; the
/// interpreter's kernels in Kernels/Shape.cpp say what each computes).
static FailureOr<SmallVector<Value>> lowerPythonNumber(LoweringCall &c) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  std::pair<Value, Type> operand = numberOperand(c, "a");
  Value v = operand.first;
  Type logical = operand.second;
  if (!v)
    return c.fail("expects a tensor of one element or a Python number");
  Type result = c.op->getResult(0).getType();
  auto toI64 = [&]() -> Value {
    if (isa<FloatType>(v.getType())) {
      // NaN and values outside [-2^63, 2^63] fail torch's range check;
      // 2^63 passes it and converts to INT64_MIN, as on x86.
      Value d = toF64(b, loc, v, logical);
      auto bound = [&](double x) {
        return arith::ConstantFloatOp::create(b, loc, b.getF64Type(), APFloat(x));
      };
      Value top = bound(9223372036854775808.0);
      Value ok = arith::AndIOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, d,
                                bound(-9223372036854775808.0)),
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, d, top));
      c.check(ok, "value cannot be converted to type int64_t without overflow");
      Value atTop = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, d, top);
      // (fptosi of 2^63 is poison: convert a value in range instead.)
      Value safe = arith::SelectOp::create(b, loc, atTop, bound(0), d);
      return arith::SelectOp::create(
          b, loc, atTop,
          arith::ConstantIntOp::create(b, loc, std::numeric_limits<int64_t>::min(), 64),
          arith::FPToSIOp::create(b, loc, b.getI64Type(), safe));
    }
    if (v.getType().isInteger(64))
      return v;
    if (logical.isInteger(1) || logical.isUnsignedInteger())
      return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
    return arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
  };
  Value out;
  if (result.isF64())
    out = toF64(b, loc, v, logical);
  else if (result.isInteger(1))
    out = nonzero(b, loc, v);
  else
    out = toI64();
  return SmallVector<Value>{out};
}

/// prim::min and prim::max: `a < b ? a : b` (`a > b ? a : b`), in f64
/// when the result is a float.
template <bool Max>
static FailureOr<SmallVector<Value>> lowerPrimExtreme(LoweringCall &c) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value x = c.scalar("a"), y = c.scalar("b");
  if (!x || !y)
    return c.fail("expects two Python numbers");
  Value pick;
  if (c.op->getResult(0).getType().isF64()) {
    x = toF64(b, loc, x, x.getType());
    y = toF64(b, loc, y, y.getType());
    pick = arith::CmpFOp::create(
        b, loc, Max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x, y);
  } else {
    auto widen = [&](Value v) -> Value {
      return v.getType().isInteger(1)
                 ? arith::ExtUIOp::create(b, loc, b.getI64Type(), v).getResult()
                 : v;
    };
    x = widen(x);
    y = widen(y);
    pick = arith::CmpIOp::create(
        b, loc, Max ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, x, y);
  }
  return SmallVector<Value>{arith::SelectOp::create(b, loc, pick, x, y)};
}

/// math.ceil, math.floor and math.trunc of a traced number: an int as it
/// is, a float rounded in f64 and converted, with the interpreter's checks
/// (NaN, infinities and ints past int64's range are errors).
static FailureOr<SmallVector<Value>> lowerPythonRounding(LoweringCall &c) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Value x = c.scalar("x");
  if (!x)
    return c.fail("expects a Python number");
  if (x.getType().isInteger(64))
    return SmallVector<Value>{x};
  if (x.getType().isInteger(1))
    return SmallVector<Value>{
        arith::ExtUIOp::create(b, loc, b.getI64Type(), x).getResult()};
  Value d = toF64(b, loc, x, x.getType());
  StringRef target = c.target();
  Value r = target == "math.ceil"    ? math::CeilOp::create(b, loc, d).getResult()
            : target == "math.floor" ? math::FloorOp::create(b, loc, d).getResult()
                                     : math::TruncOp::create(b, loc, d).getResult();
  auto bound = [&](double v) {
    return arith::ConstantFloatOp::create(b, loc, b.getF64Type(), APFloat(v));
  };
  Value ok = arith::AndIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, r,
                            bound(-9223372036854775808.0)),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r,
                            bound(9223372036854775808.0)));
  c.check(ok, "cannot convert a NaN, an infinity or a float past int64's "
              "range to an int");
  Value safe = arith::SelectOp::create(b, loc, ok, r, bound(0));
  return SmallVector<Value>{
      arith::FPToSIOp::create(b, loc, b.getI64Type(), safe).getResult()};
}

/// tril / triu whose shape or diagonal is known only at run time (the
/// constant case is a masked_fill, Decompose/Shape.cpp): elements whose
/// column minus row lies past the diagonal become zero.
static FailureOr<SmallVector<Value>> lowerTriangle(LoweringCall &c) {
  bool lower = c.target() == "torch.tril";
  Value x = c.tensor("input");
  RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
  Value k = c.scalar("diagonal");
  if (!x || !type || type.getRank() < 2 || !k || !k.getType().isInteger(64))
    return c.fail("needs a tensor of 2 or more dims and an int diagonal");
  int64_t rank = type.getRank();
  Type element = computeType(type.getElementType());
  Value r = buildElementwise(
      c.rewriter, c.loc, type, x,
      [&](OpBuilder &b, Location loc, ValueRange a) {
        auto index = [&](int64_t d) -> Value {
          return arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                            linalg::IndexOp::create(b, loc, d));
        };
        Value diff = arith::SubIOp::create(b, loc, index(rank - 1), index(rank - 2));
        Value keep = arith::CmpIOp::create(
            b, loc, lower ? arith::CmpIPredicate::sle : arith::CmpIPredicate::sge,
            diff, k);
        return arith::SelectOp::create(b, loc, keep, a[0],
                                       scalarConstant(b, loc, element, 0))
            .getResult();
      },
      c.logicalElementTypes(x));
  return SmallVector<Value>{r};
}

/// numel of a tensor with dynamic dims: the product of its sizes, an int
/// known at run time (static shapes are constants, Decompose/Shape.cpp).
static FailureOr<SmallVector<Value>> lowerNumel(LoweringCall &c) {
  Value x = c.tensor("input");
  if (!x || !rankedTensorType(x))
    return c.fail("expected a ranked tensor");
  OpBuilder &b = c.rewriter;
  Value n = arith::ConstantIndexOp::create(b, c.loc, 1);
  for (OpFoldResult size : dimSizes(b, c.loc, x))
    n = b.createOrFold<arith::MulIOp>(
        c.loc, n, getValueOrCreateConstantIndexOp(b, c.loc, size));
  return SmallVector<Value>{
      arith::IndexCastOp::create(b, c.loc, b.getI64Type(), n).getResult()};
}

/// narrow(x, dim, start, length) with a traced start or length, or a
/// dynamic x (sizes as values): one extract_slice; a negative start counts
/// from the end, and a window outside the dim is refused at run time, as
/// torch raises.
static FailureOr<SmallVector<Value>> lowerNarrow(LoweringCall &c) {
  Value x = c.tensor("input");
  auto xType = x ? dyn_cast<RankedTensorType>(x.getType()) : nullptr;
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  std::optional<int64_t> dim = c.getInt("dim");
  Value start = c.scalar("start"), length = c.scalar("length");
  if (!xType || !type || !dim || xType.getRank() == 0 || !start || !length ||
      !start.getType().isInteger(64) || !length.getType().isInteger(64))
    return c.fail("expected a tensor, a constant dim and int start and length");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  int64_t d = normalizeDim(*dim, xType.getRank());
  Value size = getValueOrCreateConstantIndexOp(b, loc, dimSizes(b, loc, x)[d]);
  Value at = arith::IndexCastOp::create(b, loc, b.getIndexType(), start);
  Value n = arith::IndexCastOp::create(b, loc, b.getIndexType(), length);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  at = arith::SelectOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, zero),
      arith::AddIOp::create(b, loc, at, size), at);
  Value end = arith::AddIOp::create(b, loc, at, n);
  Value ok = arith::AndIOp::create(
      b, loc,
      arith::AndIOp::create(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, at, zero),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, n, zero)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, end, size));
  c.check(ok, "start (" + Twine("+ length) exceeds dimension size"));
  SmallVector<OpFoldResult> offsets(xType.getRank(), b.getIndexAttr(0)),
      sizes = dimSizes(b, loc, x), strides(xType.getRank(), b.getIndexAttr(1));
  offsets[d] = getAsOpFoldResult(at);
  sizes[d] = getAsOpFoldResult(n);
  Value r = tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
  return SmallVector<Value>{castChecked(
      b, loc, r, type, "'torch.narrow': the length differs from the trace's")};
}

void lowering::populateShapeLowerings(LoweringTable &t) {
  t["torch.numel"] = lowerNumel;
  t["torch.narrow"] = lowerNarrow;
  t["torch.tril"] = lowerTriangle;
  t["torch.triu"] = lowerTriangle;
  t["torch.ops.aten.ScalarImplicit.default"] = lowerPythonNumber;
  t["torch.ops.aten.Float"] = lowerPythonNumber;
  t["torch.ops.aten.Int"] = lowerPythonNumber;
  t["torch.ops.aten.Bool"] = lowerPythonNumber;
  t["torch.ops.prim.min"] = lowerPrimExtreme<false>;
  t["torch.ops.prim.max"] = lowerPrimExtreme<true>;
  for (StringRef name : {"math.ceil", "math.floor", "math.trunc"})
    t[name] = lowerPythonRounding;
  t["Tensor.size"] = lowerSize;
  // Copies and detaching are identities on values.
  t["Tensor.contiguous"] = lowerIdentityUnlessTraining;
  t["torch.clone"] = lowerIdentityUnlessTraining;
  t["Tensor.detach"] = lowerIdentityUnlessTraining;
  for (StringRef name :
       {"torch.flatten", "torch.reshape", "Tensor.view", "torch.unsqueeze",
        "torch.squeeze", "Tensor.unflatten"})
    t[name] = lowerReshapeLike;
  t["torch.permute"] = lowerPermute;
  t["torch.transpose"] = lowerPermute;
  t["Tensor.expand"] = lowerExpand;
  t["torch.cat"] = lowerCat;
  t["torch.stack"] = lowerCat;
  t["operator.getitem"] = lowerGetitem;
  t["torch.chunk"] = [](LoweringCall &c) -> FailureOr<SmallVector<Value>> {
    return c.fail("only indexed chunks (chunk(...)[i]) can be compiled");
  };
  t["torch._assert"] = lowerAssert;
  t["torch.nn.functional.pad"] = lowerConstantPad;
  t["Tensor.repeat"] = lowerDynamicRepeat;
  t["torch.roll"] = lowerRoll;
}
