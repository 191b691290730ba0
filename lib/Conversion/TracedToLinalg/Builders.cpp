//===- Builders.cpp - linalg builders the op families share ---------------===//

#include "Lowering.h"
#include "TracedIR/Support/Blobs.h"

#include <cmath>

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <limits>

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

RankedTensorType lowering::rankedTensorType(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

SmallVector<OpFoldResult> lowering::dimSizes(OpBuilder &b, Location loc,
                                             Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(type.isDynamicDim(d)
                        ? OpFoldResult(
                              tensor::DimOp::create(b, loc, v, d).getResult())
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  return sizes;
}

Value lowering::buildEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                           ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynamic);
}

std::string lowering::checkMessage(Location loc, const Twine &what) {
  std::string message;
  llvm::raw_string_ostream os(message);
  // The user's source line, when the call has one.
  FileLineColLoc where;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      where = f;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (where)
    os << where.getFilename().getValue() << ":" << where.getLine() << ": ";
  os << what;
  return message;
}

void lowering::checkSameSize(OpBuilder &b, Location loc, OpFoldResult a,
                             OpFoldResult c, const Twine &what) {
  std::optional<int64_t> ca = getConstantIntValue(a), cc = getConstantIntValue(c);
  if (ca && cc)
    return;
  Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                   getValueOrCreateConstantIndexOp(b, loc, a),
                                   getValueOrCreateConstantIndexOp(b, loc, c));
  cf::AssertOp::create(b, loc, eq, checkMessage(loc, what));
}

Value lowering::castChecked(OpBuilder &b, Location loc, Value v,
                            RankedTensorType type, const Twine &what) {
  if (v.getType() == type)
    return v;
  SmallVector<OpFoldResult> have = dimSizes(b, loc, v);
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d))
      checkSameSize(b, loc, have[d], b.getIndexAttr(type.getDimSize(d)), what);
  return tensor::CastOp::create(b, loc, type, v);
}

Type lowering::storageType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(storageType(tensor.getElementType()));
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.getWidth() == 1)
      return IntegerType::get(type.getContext(), 8);
    if (!integer.isSignless())
      return IntegerType::get(type.getContext(), integer.getWidth());
  }
  return type;
}

Type lowering::computeType(Type type) {
  if (type.isF16() || type.isBF16())
    return Float32Type::get(type.getContext());
  if (auto integer = dyn_cast<IntegerType>(type))
    if (!integer.isSignless())
      return IntegerType::get(type.getContext(), integer.getWidth());
  return type;
}

bool lowering::isUnsignedElement(Type type) {
  return type.isUnsignedInteger();
}

/// A dense attribute of `type` holding the row-major `bytes` (one element
/// at most, or zero).
static DenseElementsAttr denseFromBytes(ShapedType type, ArrayRef<char> bytes) {
  if (type.getNumElements() == 0)
    return DenseElementsAttr::get(type, ArrayRef<Attribute>{});
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  if (width % 8 != 0 ||
      bytes.size() != static_cast<size_t>(type.getNumElements()) * width / 8)
    return {};
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

Value lowering::buildConstant(OpBuilder &b, Location loc, ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  auto storage = cast<ShapedType>(storageType(type));
  TypedAttr result;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    // A bool blob holds one byte per element, like its i8 storage.
    if (type.getNumElements() > 1) {
      result = DenseResourceElementsAttr::get(storage, resource.getRawHandle());
    } else {
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      result = denseFromBytes(storage, blob ? blob->getData() : ArrayRef<char>());
    }
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (type.getElementType().isInteger(1))
      result = dense.mapValues(storage.getElementType(),
                               [](const APInt &v) { return v.zext(8); });
    else if (storage != type)
      result = dense.bitcast(storage.getElementType());
    else
      result = dense;
  }
  if (!result)
    return {};
  return arith::ConstantOp::create(b, loc, result);
}

Value lowering::scalarConstant(OpBuilder &b, Location loc, Type type,
                               double v) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, v));
  if (type.isInteger(1))
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(v != 0));
  // (Wrapping: 200 as uint8's signless i8, 300 + an int8 tensor as torch;
  // 2^63, which no int64 holds, saturates to int64's largest.)
  int64_t i = v >= 0x1p63 ? std::numeric_limits<int64_t>::max()
                          : static_cast<int64_t>(v);
  APInt value(type.getIntOrFloatBitWidth(), static_cast<uint64_t>(i),
              /*isSigned=*/false, /*implicitTrunc=*/true);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

double lowering::extremeIdentity(Type type, bool isMax, bool isUnsigned) {
  if (isa<FloatType>(type))
    return isMax ? -INFINITY : INFINITY;
  unsigned width = type.getIntOrFloatBitWidth();
  if (isUnsigned || width == 1)
    return isMax ? 0 : std::ldexp(1.0, width) - 1;
  return isMax ? -std::ldexp(1.0, width - 1) : std::ldexp(1.0, width - 1) - 1;
}

Value lowering::buildExtreme(OpBuilder &b, Location loc, Value x, Value y,
                             bool isMax, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return isMax ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                 : arith::MinimumFOp::create(b, loc, x, y).getResult();
  if (isUnsigned)
    return isMax ? arith::MaxUIOp::create(b, loc, x, y).getResult()
                 : arith::MinUIOp::create(b, loc, x, y).getResult();
  return isMax ? arith::MaxSIOp::create(b, loc, x, y).getResult()
               : arith::MinSIOp::create(b, loc, x, y).getResult();
}

Value lowering::buildRsqrt(OpBuilder &b, Location loc, Value x) {
  Value one = scalarConstant(b, loc, x.getType(), 1.0);
  return arith::DivFOp::create(b, loc, one, math::SqrtOp::create(b, loc, x));
}

Value lowering::castScalar(OpBuilder &b, Location loc, Value v, Type to,
                           bool fromUnsigned) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  if (fromF && toF) {
    // f16 <-> bf16, and f64 to f16/bf16 through f32: torch's Half and
    // BFloat16 convert from float (and the JIT has no f64-to-half libcall).
    if (fromF.getWidth() == toF.getWidth() ||
        (fromF.getWidth() == 64 && toF.getWidth() == 16))
      return castScalar(b, loc, castScalar(b, loc, v, b.getF32Type()), to);
    return fromF.getWidth() < toF.getWidth()
               ? arith::ExtFOp::create(b, loc, to, v).getResult()
               : arith::TruncFOp::create(b, loc, to, v).getResult();
  }
  if (!fromF && toF)
    return fromUnsigned || from.isInteger(1)
               ? arith::UIToFPOp::create(b, loc, to, v).getResult()
               : arith::SIToFPOp::create(b, loc, to, v).getResult();
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0.0);
    if (fromF) // NaN is true, as bool(float('nan')) is
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  unsigned tw = to.getIntOrFloatBitWidth();
  if (fromF) {
    // As torch's C casts compile on x86: int64 converts directly, narrower
    // types through int32 (so -1.0 becomes 255 as uint8), and NaN or an
    // out-of-range value gives the minimum of that width (the hardware's
    // "integer indefinite"; fptosi alone would make it poison).
    unsigned via = tw == 64 ? 64 : 32;
    Type viaType = b.getIntegerType(via);
    double limit = std::ldexp(1.0, via - 1);
    Value lo = scalarConstant(b, loc, from, -limit),
          hi = scalarConstant(b, loc, from, limit);
    Value inRange = arith::AndIOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v, lo),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v, hi));
    Value safe = arith::SelectOp::create(
        b, loc, inRange, v, scalarConstant(b, loc, from, 0.0));
    Value wide = arith::FPToSIOp::create(b, loc, viaType, safe);
    Value indefinite = arith::ConstantOp::create(
        b, loc, viaType, b.getIntegerAttr(viaType, APInt::getSignedMinValue(via)));
    wide = arith::SelectOp::create(b, loc, inRange, wide, indefinite);
    return tw == via ? wide : arith::TruncIOp::create(b, loc, to, wide).getResult();
  }
  unsigned fw = from.getIntOrFloatBitWidth();
  if (fw < tw)
    return fromUnsigned || fw == 1
               ? arith::ExtUIOp::create(b, loc, to, v).getResult()
               : arith::ExtSIOp::create(b, loc, to, v).getResult();
  return arith::TruncIOp::create(b, loc, to, v);
}

Value lowering::buildElementwise(OpBuilder &b, Location loc,
                                 RankedTensorType resultType, ValueRange inputs,
                                 ScalarFn fn, ArrayRef<Type> inputTypes,
                                 Type operandType) {
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
  return buildElementwise(b, loc, resultType, inputs, maps, fn, inputTypes,
                          operandType);
}

Value lowering::buildElementwise(OpBuilder &b, Location loc,
                                 RankedTensorType resultType, ValueRange inputs,
                                 ArrayRef<AffineMap> inputMaps, ScalarFn fn,
                                 ArrayRef<Type> inputTypes,
                                 Type operandType) {
  assert((inputTypes.empty() || inputTypes.size() == inputs.size()) &&
         "one traced element type per input");
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  auto storage = cast<RankedTensorType>(storageType(resultType));
  Value init;
  if (storage.hasStaticShape()) {
    init = tensor::EmptyOp::create(b, loc, storage.getShape(),
                                   storage.getElementType());
  } else {
    // A dynamic result dim has the size of the inputs that read it with a
    // plain dim expression; all of them must agree (a dynamic size of 1
    // that torch would broadcast is refused at run time).
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!storage.isDynamicDim(d)) {
        sizes.push_back(b.getIndexAttr(storage.getDimSize(d)));
        continue;
      }
      SmallVector<OpFoldResult> readers;
      for (auto [in, map] : llvm::zip(inputs, maps))
        for (auto [j, e] : llvm::enumerate(map.getResults()))
          if (auto dimExpr = dyn_cast<AffineDimExpr>(e);
              dimExpr && dimExpr.getPosition() == d) {
            auto inType = cast<RankedTensorType>(in.getType());
            readers.push_back(
                inType.isDynamicDim(j)
                    ? OpFoldResult(
                          tensor::DimOp::create(b, loc, in, j).getResult())
                    : OpFoldResult(b.getIndexAttr(inType.getDimSize(j))));
          }
      if (readers.empty()) {
        // (No input reads the dim: an internal error, reported at run
        // time rather than by a crash.)
        Value no = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
        cf::AssertOp::create(
            b, loc, no,
            checkMessage(loc, "internal: a dynamic dim that no operand reads"));
        readers.push_back(b.getIndexAttr(0));
      }
      for (OpFoldResult other : ArrayRef(readers).drop_front())
        checkSameSize(b, loc, readers.front(), other,
                      "operands differ in a dynamic dim (compiled code does "
                      "not broadcast a dynamic dim of size 1)");
      sizes.push_back(readers.front());
    }
    init = buildEmpty(b, loc, storage, sizes);
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type compute = computeType(resultType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, storage, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> converted;
        for (auto [i, a] : llvm::enumerate(args.drop_back())) {
          Type in = inputTypes.empty() ? a.getType() : inputTypes[i];
          Value v = a;
          if (in.isInteger(1)) // stored as i8
            v = castScalar(nb, nloc, v, in);
          // An operand of another dtype is first converted to the dtype the
          // op computes in, as torch converts it: a float16 or int value
          // joining bfloat16 is rounded to bfloat16 before the f32 compute.
          Type target = operandType ? operandType : resultType.getElementType();
          bool fromUnsigned = isUnsignedElement(in);
          if (in != target && isa<FloatType>(target) &&
              target.getIntOrFloatBitWidth() == 16) {
            v = castScalar(nb, nloc, v, target, fromUnsigned);
            fromUnsigned = false;
          }
          converted.push_back(castScalar(
              nb, nloc, v, operandType ? computeType(operandType) : compute,
              fromUnsigned));
        }
        // Back to storage: f16 rounded once, bool as a 0/1 byte.
        Value r = castScalar(nb, nloc, fn(nb, nloc, converted), compute);
        r = castScalar(nb, nloc, r, storage.getElementType());
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value lowering::buildFilled(OpBuilder &b, Location loc, RankedTensorType type,
                            double v) {
  assert(type.hasStaticShape() && "dynamic dims need their sizes");
  return buildFilled(b, loc, type, {}, v);
}

Value lowering::buildFilled(OpBuilder &b, Location loc, RankedTensorType type,
                            ArrayRef<OpFoldResult> sizes, double v) {
  Value init = buildEmpty(b, loc, type, sizes);
  Value c = scalarConstant(b, loc, type.getElementType(), v);
  return linalg::FillOp::create(b, loc, c, init).getResult(0);
}

Value lowering::buildAllInRange(OpBuilder &b, Location loc, Value t,
                                int64_t low, int64_t high) {
  auto type = cast<RankedTensorType>(t.getType());
  auto element = cast<IntegerType>(type.getElementType());
  int64_t rank = type.getRank();
  // (An i8 flag rather than an i1 one: vectors of i1 are bit-packed.)
  auto flagType = RankedTensorType::get({}, b.getI8Type());
  Value init = buildFilled(b, loc, flagType, 0);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, {}, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, flagType, t, init, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        auto bound = [&](int64_t v) {
          return arith::ConstantOp::create(nb, l, IntegerAttr::get(element, v))
              .getResult();
        };
        Value below = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                            a[0], bound(low));
        Value above = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt,
                                            a[0], bound(high));
        Value bad = arith::OrIOp::create(nb, l, below, above);
        Value flag = arith::ExtUIOp::create(nb, l, nb.getI8Type(), bad);
        linalg::YieldOp::create(nb, l,
                                arith::OrIOp::create(nb, l, a[1], flag)
                                    .getResult());
      });
  Value flag = tensor::ExtractOp::create(b, loc, generic.getResult(0),
                                         ValueRange{});
  Value zero = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, flag, zero);
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
  SmallVector<OpFoldResult> sizes;
  if (!resultType.hasStaticShape()) {
    SmallVector<OpFoldResult> inSizes = dimSizes(b, loc, input);
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(dims, d))
        sizes.push_back(inSizes[d]);
  }
  Value init = buildFilled(b, loc, resultType, sizes, initValue);
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
  // (Equal shapes are the same tensor when at most one dim is dynamic: the
  // element count fixes it. [?, ?] to [?, ?] may be a real reshape.)
  if (type.getShape() == shape &&
      llvm::count_if(shape, ShapedType::isDynamic) <= 1)
    return input;
  auto target = RankedTensorType::get(shape, type.getElementType());
  if (!type.hasStaticShape() || !target.hasStaticShape())
    return buildDynamicReshape(b, loc, input, shape);
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

/// The product of `sizes`, as an index value.
static Value productOf(OpBuilder &b, Location loc,
                       ArrayRef<OpFoldResult> sizes) {
  Value p = arith::ConstantIndexOp::create(b, loc, 1);
  for (OpFoldResult s : sizes)
    p = arith::MulIOp::create(b, loc, p,
                              getValueOrCreateConstantIndexOp(b, loc, s));
  return p;
}

Value lowering::buildDynamicReshape(OpBuilder &b, Location loc, Value input,
                                    ArrayRef<int64_t> shape,
                                    ArrayRef<OpFoldResult> targetSizes) {
  auto type = cast<RankedTensorType>(input.getType());
  auto target = RankedTensorType::get(shape, type.getElementType());
  SmallVector<OpFoldResult> inSizes = dimSizes(b, loc, input);
  if (type == target) {
    // The same shape: each dynamic dim must be the size asked for.
    for (auto [d, size] : llvm::enumerate(targetSizes))
      if (type.isDynamicDim(d))
        checkSameSize(b, loc, inSizes[d], size,
                      "a reshape to another number of elements");
    return input;
  }
  // The target's sizes: given, or static, or (one dynamic dim) what the
  // element count leaves.
  SmallVector<OpFoldResult> sizes(targetSizes);
  if (sizes.empty()) {
    int64_t dynamicDims = llvm::count_if(
        shape, [](int64_t d) { return ShapedType::isDynamic(d); });
    if (dynamicDims > 1)
      return {};
    for (int64_t d : shape)
      sizes.push_back(b.getIndexAttr(ShapedType::isDynamic(d) ? 0 : d));
    for (auto [d, size] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(size)) {
        Value known = productOf(
            b, loc, ArrayRef<OpFoldResult>(sizes).take_front(d));
        known = arith::MulIOp::create(
            b, loc, known,
            productOf(b, loc, ArrayRef<OpFoldResult>(sizes).drop_front(d + 1)));
        // (A zero product leaves the dim at 0: no elements either way.)
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        known = arith::MaxUIOp::create(b, loc, known, one);
        sizes[d] = arith::DivUIOp::create(b, loc, productOf(b, loc, inSizes),
                                          known)
                       .getResult();
      }
  }
  // The element counts agree (torch's view raises otherwise).
  checkSameSize(b, loc, productOf(b, loc, sizes), productOf(b, loc, inSizes),
                "a reshape to another number of elements");
  // Upstream's grouping when it finds one (a collapse or an expansion of
  // adjacent dims), else through one dim.
  if (target.getRank() < type.getRank())
    if (auto r = getReassociationIndicesForCollapse(type.getShape(), shape))
      return tensor::CollapseShapeOp::create(b, loc, target, input, *r);
  if (target.getRank() > type.getRank())
    if (auto r = getReassociationIndicesForCollapse(shape, type.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, target, input, *r, sizes);
  auto all = [](int64_t rank) {
    SmallVector<ReassociationIndices> r;
    if (rank > 0)
      r.push_back(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
    return r;
  };
  int64_t count = 1;
  for (int64_t d : type.getShape())
    count = ShapedType::isDynamic(d) || ShapedType::isDynamic(count)
                ? ShapedType::kDynamic
                : count * d;
  auto flatType = RankedTensorType::get({count}, type.getElementType());
  Value flat = input;
  if (type.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, input, all(0),
                                         ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  else if (type.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, input,
                                           all(type.getRank()));
  if (target.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, target, flat, all(0));
  if (target.getRank() == 1)
    return flatType == target
               ? flat
               : tensor::CastOp::create(b, loc, target, flat).getResult();
  return tensor::ExpandShapeOp::create(b, loc, target, flat,
                                       all(target.getRank()), sizes);
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
  SmallVector<OpFoldResult> sizes;
  if (!type.hasStaticShape()) {
    SmallVector<OpFoldResult> inSizes = dimSizes(b, loc, input);
    for (int64_t p : perm)
      sizes.push_back(inSizes[p]);
  }
  Value init = buildEmpty(
      b, loc, RankedTensorType::get(shape, type.getElementType()), sizes);
  return linalg::TransposeOp::create(b, loc, input, init, perm).getResult()[0];
}

Value lowering::buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  auto l = cast<RankedTensorType>(lhs.getType());
  auto r = cast<RankedTensorType>(rhs.getType());
  auto type = RankedTensorType::get({l.getDimSize(0), r.getDimSize(1)},
                                    l.getElementType());
  SmallVector<OpFoldResult> sizes;
  if (!type.hasStaticShape())
    sizes = {dimSizes(b, loc, lhs)[0], dimSizes(b, loc, rhs)[1]};
  Value init = buildFilled(b, loc, type, sizes, 0.0);
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
  SmallVector<OpFoldResult> sizes;
  if (!type.hasStaticShape()) {
    SmallVector<OpFoldResult> ls = dimSizes(b, loc, lhs);
    sizes = {ls[0], ls[1], dimSizes(b, loc, rhs)[2]};
  }
  Value init = buildFilled(b, loc, type, sizes, 0.0);
  return linalg::BatchMatmulOp::create(b, loc, TypeRange{type},
                                       ValueRange{lhs, rhs}, ValueRange{init})
      .getResult(0);
}

/// The bytes of a constant's elements, row-major; empty when unavailable.
static ArrayRef<char> rawElements(ElementsAttr attr,
                                  std::vector<char> &storage) {
  if (std::optional<ArrayRef<char>> raw = storedBytes(attr))
    return *raw;
  // A splat: its one element, repeated.
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat() || dense.getElementType().isInteger(1))
    return {};
  ArrayRef<char> raw = dense.getRawData();
  for (int64_t i = 0, e = dense.getNumElements(); i < e; ++i)
    storage.insert(storage.end(), raw.begin(), raw.end());
  return storage;
}

Value lowering::zeroFilledDestination(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return {};
  return fill.getOutputs()[0];
}

ArrayRef<char> lowering::constantBytes(Value weight,
                                       std::vector<char> &storage) {
  // A reshaped constant has the same row-major bytes.
  Value source = weight;
  while (true) {
    if (auto collapse = source.getDefiningOp<tensor::CollapseShapeOp>())
      source = collapse.getSrc();
    else if (auto expand = source.getDefiningOp<tensor::ExpandShapeOp>())
      source = expand.getSrc();
    else
      break;
  }
  auto c = source.getDefiningOp<arith::ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(weight.getType());
  if (!c || !type || !type.hasStaticShape())
    return {};
  auto attr = dyn_cast<ElementsAttr>(c.getValue());
  Type et = type.getElementType();
  if (!attr || !et.isIntOrFloat() || et.getIntOrFloatBitWidth() % 8 != 0)
    return {};
  ArrayRef<char> raw = rawElements(attr, storage);
  size_t width = et.getIntOrFloatBitWidth() / 8;
  if (raw.size() != static_cast<size_t>(type.getNumElements()) * width)
    return {};
  return raw;
}

/// out[o] = in[from(o)] for the output in row-major order, where `strides`
/// are the input's strides in the output's dimension order. The last two
/// output dimensions go in 32 x 32 blocks, so that a transpose reads and
/// writes whole cache lines (a weight of 768 x 3072 floats walked one
/// element at a time along the input's columns missed on every read).
template <typename T>
static void permuteElements(const T *in, T *out, ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> strides) {
  int64_t rank = shape.size();
  int64_t rows = rank >= 2 ? shape[rank - 2] : 1;
  int64_t cols = shape[rank - 1];
  int64_t rowStride = rank >= 2 ? strides[rank - 2] : 0;
  int64_t colStride = strides[rank - 1];
  int64_t outer = 1;
  for (int64_t d = 0; d + 2 < rank; ++d)
    outer *= shape[d];
  SmallVector<int64_t> index(std::max<int64_t>(rank - 2, 0), 0);
  int64_t from = 0;
  constexpr int64_t kBlock = 32;
  for (int64_t o = 0; o < outer; ++o) {
    T *plane = out + o * rows * cols;
    if (colStride == 1) {
      for (int64_t r = 0; r < rows; ++r)
        std::memcpy(plane + r * cols, in + from + r * rowStride,
                    cols * sizeof(T));
    } else {
      for (int64_t r0 = 0; r0 < rows; r0 += kBlock)
        for (int64_t c0 = 0; c0 < cols; c0 += kBlock)
          for (int64_t r = r0, re = std::min(rows, r0 + kBlock); r < re; ++r) {
            const T *src = in + from + r * rowStride;
            T *dst = plane + r * cols;
            for (int64_t c = c0, ce = std::min(cols, c0 + kBlock); c < ce; ++c)
              dst[c] = src[c * colStride];
          }
    }
    // The next index of the dimensions before the last two.
    for (int64_t i = rank - 3; i >= 0; --i) {
      from += strides[i];
      if (++index[i] < shape[i])
        break;
      from -= strides[i] * shape[i];
      index[i] = 0;
    }
  }
}

Value lowering::permutedConstant(OpBuilder &b, Location loc, Value weight,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> perm, StringRef name) {
  auto type = cast<RankedTensorType>(weight.getType());
  if (shape.size() != perm.size() || !isPermutationVector(perm) ||
      !type.hasStaticShape() ||
      ShapedType::getNumElements(shape) != type.getNumElements())
    return {};
  std::vector<char> storage;
  ArrayRef<char> raw = constantBytes(weight, storage);
  if (raw.empty())
    return {};
  Type et = type.getElementType();
  size_t width = et.getIntOrFloatBitWidth() / 8;
  // out[i_0, ..., i_r] = in[...] with in's index d at out's position
  // where perm names d.
  int64_t rank = shape.size();
  SmallVector<int64_t> inStrides(rank, 1), outShape(rank), strides(rank);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * shape[d + 1];
  for (int64_t i = 0; i < rank; ++i) {
    outShape[i] = shape[perm[i]];
    strides[i] = inStrides[perm[i]];
  }
  auto newType = RankedTensorType::get(outShape, et);
  // (The bytes go straight into the blob: for vit_b_16's 330 MB of
  // weights, a vector then a copy into the blob was 0.1 s.)
  AsmResourceBlob blob = allocateBlob(raw.size(), alignof(double));
  MutableArrayRef<char> out = blob.getMutableData();
  if (rank == 0) {
    std::memcpy(out.data(), raw.data(), raw.size());
  } else {
    auto permute = [&](auto element) {
      using T = decltype(element);
      permuteElements(reinterpret_cast<const T *>(raw.data()),
                      reinterpret_cast<T *>(out.data()), outShape, strides);
    };
    switch (width) {
    case 1:
      permute(uint8_t());
      break;
    case 2:
      permute(uint16_t());
      break;
    case 4:
      permute(uint32_t());
      break;
    case 8:
      permute(uint64_t());
      break;
    default:
      return {};
    }
  }
  if (newType.getNumElements() <= 1) // (see buildConstant)
    if (DenseElementsAttr dense = denseFromBytes(
            newType, ArrayRef<char>(out.data(), out.size())))
      return arith::ConstantOp::create(b, loc, dense);
  return arith::ConstantOp::create(
      b, loc, contentNamedResource(newType, name, std::move(blob)));
}

DenseResourceElementsAttr lowering::contentNamedResource(ShapedType type,
                                                         StringRef hint,
                                                         AsmResourceBlob blob) {
  ArrayRef<char> bytes = blob.getData();
  uint64_t hash = llvm::xxh3_64bits(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  return DenseResourceElementsAttr::get(
      type, (hint + "_" + llvm::utohexstr(hash, /*LowerCase=*/true)).str(),
      std::move(blob));
}

Value lowering::transposedConstant(OpBuilder &b, Location loc, Value weight) {
  auto type = cast<RankedTensorType>(weight.getType());
  if (type.getRank() != 2)
    return {};
  return permutedConstant(b, loc, weight, type.getShape(), {1, 0},
                          "transposed");
}

Value lowering::buildLinear(OpBuilder &b, Location loc, Value x, Value weight,
                            Value bias) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  int64_t k = xType.getShape().back(), n = wType.getDimSize(0);
  int64_t m = 1; // (not numElements / k: k may be 0)
  for (int64_t d : xType.getShape().drop_back())
    m = ShapedType::isDynamic(d) || ShapedType::isDynamic(m)
            ? ShapedType::kDynamic
            : m * d;
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
  if (xType.hasStaticShape() || xType.getRank() == 2)
    return buildReshape(b, loc, y, shape);
  SmallVector<OpFoldResult> sizes = dimSizes(b, loc, x);
  sizes.back() = b.getIndexAttr(n);
  return buildDynamicReshape(b, loc, y, shape, sizes);
}

static Value maxOf(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value lowering::buildSoftmax(OpBuilder &b, Location loc, Value input,
                             int64_t dim, bool log) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getRank() == 0) // torch takes a 0-d input as one element
    return buildReshape(
        b, loc, buildSoftmax(b, loc, buildReshape(b, loc, input, {1}), 0, log),
        {});
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
    shape.push_back(type.isDynamicDim(d)
                        ? ShapedType::kDynamic
                        : type.getDimSize(d) + low[d] + high[d]);
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
  // (An empty window: its offsets may sit at the end of a dim, which
  // extract_slice does not allow.)
  if (resultType.getNumElements() == 0)
    return tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, resultType, input,
                                        ValueRange{}, ValueRange{},
                                        ValueRange{}, offsets, sizes, strides);
}

static Value flatBuffer(OpBuilder &b, Location loc, Type element, int64_t size) {
  Value alloc = memref::AllocOp::create(b, loc, MemRefType::get({size}, element));
  return alloc;
}

static Value dynamicView(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return memref::CastOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, type.getElementType()),
      buffer);
}

RuntimeCall lowering::buildRuntimeCall(OpBuilder &b, Location loc,
                                       Operation *anchor, StringRef symbol,
                                       ArrayRef<Value> inputs,
                                       ArrayRef<RankedTensorType> outputs,
                                       ArrayRef<int64_t> ints,
                                       bool copyInputs) {
  SmallVector<Value> operands;
  SmallVector<Value> outBuffers;
  for (Value input : inputs) {
    RankedTensorType type = cast<RankedTensorType>(input.getType());
    int64_t size = type.getNumElements();
    Value flat = buildReshape(b, loc, input, {size});
    if (!copyInputs) {
      Value view = bufferization::ToBufferOp::create(
          b, loc, MemRefType::get({size}, type.getElementType()), flat,
          /*read_only=*/true);
      operands.push_back(dynamicView(b, loc, view));
      continue;
    }
    Value buffer = flatBuffer(b, loc, type.getElementType(), size);
    bufferization::MaterializeInDestinationOp::create(
        b, loc, TypeRange(), flat, buffer, /*restrict=*/true,
        /*writable=*/true);
    operands.push_back(dynamicView(b, loc, buffer));
  }
  for (RankedTensorType type : outputs) {
    Value buffer =
        flatBuffer(b, loc, type.getElementType(), type.getNumElements());
    outBuffers.push_back(buffer);
    operands.push_back(dynamicView(b, loc, buffer));
  }
  for (int64_t v : ints)
    operands.push_back(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v)));
  std::string name = symbol.str();
  // The external declaration, once per module.
  auto module = anchor->getParentOfType<mlir::ModuleOp>();
  auto fnType = b.getFunctionType(ValueRange(operands).getTypes(),
                                  {b.getI32Type()});
  if (!module.lookupSymbol<func::FuncOp>(name)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto decl = func::FuncOp::create(b, loc, name, fnType);
    decl.setPrivate();
  }
  Value status =
      func::CallOp::create(b, loc, name, TypeRange{b.getI32Type()}, operands)
          .getResult(0);
  RuntimeCall call{{}, status};
  for (auto [buffer, type] : llvm::zip(outBuffers, outputs)) {
    Type flatType =
        RankedTensorType::get({type.getNumElements()}, type.getElementType());
    Value flat = bufferization::ToTensorOp::create(
        b, loc, flatType, buffer, /*restrict=*/true, /*writable=*/true);
    call.results.push_back(buildReshape(b, loc, flat, type.getShape()));
  }
  return call;
}

