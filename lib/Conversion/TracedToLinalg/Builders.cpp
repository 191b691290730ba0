//===- Builders.cpp - linalg builders the op families share ---------------===//

#include "Lowering.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

RankedTensorType lowering::staticTensorType(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? t : RankedTensorType();
}

int64_t lowering::normalizeDim(int64_t dim, int64_t rank) {
  return dim < 0 ? dim + rank : dim;
}

Value lowering::scalarConstant(OpBuilder &b, Location loc, Type type,
                               double v) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, v));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(v)));
}

Value lowering::buildRsqrt(OpBuilder &b, Location loc, Value x) {
  Value one = scalarConstant(b, loc, x.getType(), 1.0);
  return arith::DivFOp::create(b, loc, one, math::SqrtOp::create(b, loc, x));
}

Value lowering::castScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  if (fromF && toF)
    return fromF.getWidth() < toF.getWidth()
               ? arith::ExtFOp::create(b, loc, to, v).getResult()
               : arith::TruncFOp::create(b, loc, to, v).getResult();
  if (!fromF && toF)
    return from.isInteger(1)
               ? arith::UIToFPOp::create(b, loc, to, v).getResult()
               : arith::SIToFPOp::create(b, loc, to, v).getResult();
  if (fromF && !toF)
    return arith::FPToSIOp::create(b, loc, to, v);
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return fw == 1 ? arith::ExtUIOp::create(b, loc, to, v).getResult()
                   : arith::ExtSIOp::create(b, loc, to, v).getResult();
  return arith::TruncIOp::create(b, loc, to, v);
}

Value lowering::buildElementwise(OpBuilder &b, Location loc,
                                 RankedTensorType resultType, ValueRange inputs,
                                 ScalarFn fn) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps;
  for (Value in : inputs) {
    auto type = cast<RankedTensorType>(in.getType());
    SmallVector<AffineExpr> exprs;
    for (int64_t j = 0; j < type.getRank(); ++j) {
      int64_t d = rank - type.getRank() + j;
      if (type.getDimSize(j) == 1 && resultType.getDimSize(d) != 1)
        exprs.push_back(b.getAffineConstantExpr(0));
      else
        exprs.push_back(b.getAffineDimExpr(d));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  return buildElementwise(b, loc, resultType, inputs, maps, fn);
}

Value lowering::buildElementwise(OpBuilder &b, Location loc,
                                 RankedTensorType resultType, ValueRange inputs,
                                 ArrayRef<AffineMap> inputMaps, ScalarFn fn) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type elementType = resultType.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> converted;
        for (Value a : args.drop_back())
          converted.push_back(castScalar(nb, nloc, a, elementType));
        Value r = castScalar(nb, nloc, fn(nb, nloc, converted), elementType);
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value lowering::buildFilled(OpBuilder &b, Location loc, RankedTensorType type,
                            double v) {
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value c = scalarConstant(b, loc, type.getElementType(), v);
  return linalg::FillOp::create(b, loc, c, init).getResult(0);
}

Value lowering::buildReduce(OpBuilder &b, Location loc, Value input,
                            ArrayRef<int64_t> dims, double initValue,
                            ScalarFn combine) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(dims, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced) {
      shape.push_back(type.getDimSize(d));
      outExprs.push_back(b.getAffineDimExpr(d));
    }
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  Value init = buildFilled(b, loc, resultType, initValue);
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, outExprs, b.getContext())};
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, input, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, combine(nb, nloc, args));
      });
  return generic.getResult(0);
}

Value lowering::buildReshape(OpBuilder &b, Location loc, Value input,
                             ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getShape() == shape)
    return input;
  auto target = RankedTensorType::get(shape, type.getElementType());
  if (target.getRank() < type.getRank())
    if (auto r = getReassociationIndicesForReshape(type, target))
      return tensor::CollapseShapeOp::create(b, loc, target, input, *r);
  if (target.getRank() > type.getRank())
    if (auto r = getReassociationIndicesForReshape(target, type))
      return tensor::ExpandShapeOp::create(b, loc, target, input, *r);
  // Through one dimension.
  auto flatType =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  Value flat = input;
  if (type.getRank() != 1) {
    SmallVector<ReassociationIndices> all;
    if (type.getRank() > 0)
      all.push_back(llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
    flat = type.getRank() == 0
               ? tensor::ExpandShapeOp::create(b, loc, flatType, input, all)
                     .getResult()
               : tensor::CollapseShapeOp::create(b, loc, flatType, input, all)
                     .getResult();
  }
  if (target.getRank() == 1)
    return flat;
  SmallVector<ReassociationIndices> all;
  if (target.getRank() > 0) {
    all.push_back(llvm::to_vector(llvm::seq<int64_t>(0, target.getRank())));
    return tensor::ExpandShapeOp::create(b, loc, target, flat, all);
  }
  return tensor::CollapseShapeOp::create(b, loc, target, flat, all);
}

Value lowering::buildTranspose(OpBuilder &b, Location loc, Value input,
                               ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(input.getType());
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perm))
    identity &= static_cast<int64_t>(i) == p;
  if (identity)
    return input;
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, input, init, perm).getResult()[0];
}

Value lowering::buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  auto l = cast<RankedTensorType>(lhs.getType());
  auto r = cast<RankedTensorType>(rhs.getType());
  auto type = RankedTensorType::get({l.getDimSize(0), r.getDimSize(1)},
                                    l.getElementType());
  Value init = buildFilled(b, loc, type, 0.0);
  return linalg::MatmulOp::create(b, loc, TypeRange{type},
                                  ValueRange{lhs, rhs}, ValueRange{init})
      .getResult(0);
}

Value lowering::buildBatchMatmul(OpBuilder &b, Location loc, Value lhs,
                                 Value rhs) {
  auto l = cast<RankedTensorType>(lhs.getType());
  auto r = cast<RankedTensorType>(rhs.getType());
  auto type = RankedTensorType::get(
      {l.getDimSize(0), l.getDimSize(1), r.getDimSize(2)}, l.getElementType());
  Value init = buildFilled(b, loc, type, 0.0);
  return linalg::BatchMatmulOp::create(b, loc, TypeRange{type},
                                       ValueRange{lhs, rhs}, ValueRange{init})
      .getResult(0);
}

/// The bytes of a constant's elements, row-major; empty when unavailable.
static ArrayRef<char> rawElements(ElementsAttr attr,
                                  std::vector<char> &storage) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.getElementType().isInteger(1))
      return {};
    ArrayRef<char> raw = dense.getRawData();
    if (!dense.isSplat())
      return raw;
    for (int64_t i = 0, e = dense.getNumElements(); i < e; ++i)
      storage.insert(storage.end(), raw.begin(), raw.end());
    return storage;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
  return {};
}

Value lowering::transposedConstant(OpBuilder &b, Location loc, Value weight) {
  // A reshaped constant has the same row-major bytes.
  Value source = weight;
  while (auto collapse = source.getDefiningOp<tensor::CollapseShapeOp>())
    source = collapse.getSrc();
  auto c = source.getDefiningOp<arith::ConstantOp>();
  if (!c)
    return {};
  auto attr = dyn_cast<ElementsAttr>(c.getValue());
  auto type = cast<RankedTensorType>(weight.getType());
  if (!attr || type.getRank() != 2 ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementType().getIntOrFloatBitWidth() % 8 != 0)
    return {};
  std::vector<char> storage;
  ArrayRef<char> raw = rawElements(attr, storage);
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  size_t width = type.getElementType().getIntOrFloatBitWidth() / 8;
  if (raw.size() != static_cast<size_t>(rows * cols) * width)
    return {};
  std::vector<char> out(raw.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      std::memcpy(&out[(j * rows + i) * width], &raw[(i * cols + j) * width],
                  width);
  auto newType = RankedTensorType::get({cols, rows}, type.getElementType());
  auto blob = DenseResourceElementsAttr::get(
      newType, "transposed",
      HeapAsmResourceBlob::allocateAndCopyWithAlign(out, alignof(double)));
  return arith::ConstantOp::create(b, loc, blob);
}

Value lowering::buildLinear(OpBuilder &b, Location loc, Value x, Value weight,
                            Value bias) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  int64_t k = xType.getShape().back(), n = wType.getDimSize(0);
  int64_t m = xType.getNumElements() / std::max<int64_t>(k, 1);
  Value x2 = buildReshape(b, loc, x, {m, k});
  Value wT = transposedConstant(b, loc, weight);
  if (!wT)
    wT = buildTranspose(b, loc, weight, {1, 0});
  Value y = buildMatmul(b, loc, x2, wT);
  if (bias)
    y = buildElementwise(b, loc, cast<RankedTensorType>(y.getType()),
                         {y, bias}, [](OpBuilder &nb, Location l, ValueRange a) {
                           return arith::AddFOp::create(nb, l, a[0], a[1])
                               .getResult();
                         });
  SmallVector<int64_t> shape(xType.getShape());
  shape.back() = n;
  return buildReshape(b, loc, y, shape);
}

static Value maxOf(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value lowering::buildSoftmax(OpBuilder &b, Location loc, Value input,
                             int64_t dim, bool log) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  dim = normalizeDim(dim, rank);
  Type et = type.getElementType();
  // A reduced tensor read back along `dim`.
  SmallVector<AffineExpr> keep;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      keep.push_back(b.getAffineDimExpr(d));
  AffineMap reducedMap = AffineMap::get(rank, 0, keep, b.getContext());
  AffineMap id = b.getMultiDimIdentityMap(rank);
  Value max = buildReduce(
      b, loc, input, {dim}, -std::numeric_limits<double>::infinity(),
      [](OpBuilder &nb, Location l, ValueRange a) {
        return maxOf(nb, l, a[0], a[1]);
      });
  Value shifted = buildElementwise(
      b, loc, type, {input, max}, {id, reducedMap},
      [&](OpBuilder &nb, Location l, ValueRange a) {
        return arith::SubFOp::create(nb, l, a[0], a[1]).getResult();
      });
  Value exps = buildElementwise(b, loc, type, {shifted}, {id},
                                [&](OpBuilder &nb, Location l, ValueRange a) {
                                  return math::ExpOp::create(nb, l, a[0])
                                      .getResult();
                                });
  Value sum = buildReduce(b, loc, exps, {dim}, 0.0,
                          [](OpBuilder &nb, Location l, ValueRange a) {
                            return arith::AddFOp::create(nb, l, a[0], a[1])
                                .getResult();
                          });
  (void)et;
  if (log)
    return buildElementwise(
        b, loc, type, {shifted, sum}, {id, reducedMap},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value lg = math::LogOp::create(nb, l, a[1]);
          return arith::SubFOp::create(nb, l, a[0], lg).getResult();
        });
  return buildElementwise(
      b, loc, type, {exps, sum}, {id, reducedMap},
      [&](OpBuilder &nb, Location l, ValueRange a) {
        return arith::DivFOp::create(nb, l, a[0], a[1]).getResult();
      });
}

Value lowering::buildPad(OpBuilder &b, Location loc, Value input,
                         ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                         double value) {
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d)
    shape.push_back(type.getDimSize(d) + low[d] + high[d]);
  auto padded = RankedTensorType::get(shape, type.getElementType());
  Value pad = scalarConstant(b, loc, type.getElementType(), value);
  SmallVector<OpFoldResult> lo, hi;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    lo.push_back(b.getIndexAttr(low[d]));
    hi.push_back(b.getIndexAttr(high[d]));
  }
  return tensor::PadOp::create(b, loc, padded, input, lo, hi, pad);
}

Value lowering::buildSlice(OpBuilder &b, Location loc, Value input,
                           ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                           ArrayRef<int64_t> strides) {
  auto type = cast<RankedTensorType>(input.getType());
  if (llvm::all_of(offsets, [](int64_t o) { return o == 0; }) &&
      llvm::all_of(strides, [](int64_t s) { return s == 1; }) &&
      type.getShape() == sizes)
    return input;
  auto resultType = RankedTensorType::get(sizes, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, resultType, input,
                                        ValueRange{}, ValueRange{},
                                        ValueRange{}, offsets, sizes, strides);
}
