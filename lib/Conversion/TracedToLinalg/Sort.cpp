//===- Sort.cpp - sort, argsort, topk and kthvalue ------------------------===//
//
// A stable sort along one static dim as two generics: the first counts, for
// each element, the elements that go before it (its rank; ties keep the
// input order, NaN sorts as the largest, as torch's CPU sort does), the
// second gathers each output position's element by rank. Both are
// quadratic in the sorted dim, which suits the short dims (top-k over
// classes, a few hundred boxes) traced models sort; a long sort wants a
// real sorting kernel, which linalg does not have.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

static RankedTensorType typeOf(Value v) {
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

namespace {
struct Sorted {
  Value values, indices;
};
} // namespace

/// `x` (static, rank >= 1) sorted along `dim`.
static Sorted buildSort(OpBuilder &b, Location loc, Value x, Type logical, int64_t dim,
                        bool descending) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  Type compute = computeType(logical);
  bool isUnsigned = isUnsignedElement(logical) || logical.isInteger(1);
  bool isFloat = isa<FloatType>(compute);
  // Maps over (q0 .. q{rank-1}, j): q itself, and q with j along dim.
  SmallVector<AffineExpr> self, other;
  for (int64_t e = 0; e < rank; ++e) {
    self.push_back(getAffineDimExpr(e, ctx));
    other.push_back(getAffineDimExpr(e == dim ? rank : e, ctx));
  }
  AffineMap selfMap = AffineMap::get(rank + 1, 0, self, ctx);
  AffineMap otherMap = AffineMap::get(rank + 1, 0, other, ctx);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Type i64 = b.getI64Type();
  auto i64Type = RankedTensorType::get(type.getShape(), i64);
  // 1. rank[q] = #{j : x[j] goes before x[q]}.
  Value zeros = buildFilled(b, loc, i64Type, 0);
  auto ranks = linalg::GenericOp::create(
      b, loc, i64Type, ValueRange{x, x}, zeros, {selfMap, otherMap, selfMap}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value mine = castScalar(nb, l, a[0], compute, isUnsigned);
        Value theirs = castScalar(nb, l, a[1], compute, isUnsigned);
        Value i = linalg::IndexOp::create(nb, l, dim), j = linalg::IndexOp::create(nb, l, rank);
        Value earlier = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, j, i);
        Value before, same;
        if (isFloat) {
          Value mineNan = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, mine, mine);
          Value theirNan = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, theirs, theirs);
          Value t = arith::ConstantIntOp::create(nb, l, 1, 1);
          // (NaN is the largest: ascending it goes last, descending first.)
          if (descending)
            before = arith::OrIOp::create(
                nb, l, arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, theirs, mine),
                arith::AndIOp::create(nb, l, theirNan,
                                      arith::XOrIOp::create(nb, l, mineNan, t)));
          else
            before = arith::OrIOp::create(
                nb, l, arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLT, theirs, mine),
                arith::AndIOp::create(nb, l, mineNan,
                                      arith::XOrIOp::create(nb, l, theirNan, t)));
          same = arith::OrIOp::create(
              nb, l, arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, theirs, mine),
              arith::AndIOp::create(nb, l, mineNan, theirNan));
        } else {
          arith::CmpIPredicate pred =
              descending ? (isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                         : (isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt);
          before = arith::CmpIOp::create(nb, l, pred, theirs, mine);
          same = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, theirs, mine);
        }
        Value goes = arith::OrIOp::create(nb, l, before,
                                          arith::AndIOp::create(nb, l, same, earlier));
        Value one = arith::ConstantIntOp::create(nb, l, i64, 1);
        Value n = arith::AddIOp::create(nb, l, a[2], one);
        linalg::YieldOp::create(nb, l, arith::SelectOp::create(nb, l, goes, n, a[2]).getResult());
      });
  // 2. out[q] = x[j] for the j whose rank is q's position along dim.
  Value valuesInit = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value indicesInit = buildFilled(b, loc, i64Type, 0);
  auto gather = linalg::GenericOp::create(
      b, loc, TypeRange{valuesInit.getType(), i64Type}, ValueRange{ranks.getResult(0), x},
      ValueRange{valuesInit, indicesInit}, {otherMap, otherMap, selfMap, selfMap}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value position = arith::IndexCastOp::create(nb, l, i64, linalg::IndexOp::create(nb, l, dim));
        Value j = arith::IndexCastOp::create(nb, l, i64, linalg::IndexOp::create(nb, l, rank));
        Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, a[0], position);
        linalg::YieldOp::create(nb, l,
                                ValueRange{arith::SelectOp::create(nb, l, hit, a[1], a[2]),
                                           arith::SelectOp::create(nb, l, hit, j, a[3])});
      });
  return {gather.getResult(0), gather.getResult(1)};
}

/// The sort a call means, as (values, indices) of the call's result shape
/// (topk's first k, kthvalue's k-th).
static FailureOr<Sorted> lowerSortCall(LoweringCall &c, ArrayRef<int64_t> resultShape) {
  StringRef target = c.target();
  Value x = c.tensor("input");
  std::optional<int64_t> given = c.getInt("dim");
  if (!x || !staticTensorType(x) || !given)
    return c.fail("expected a statically shaped input and a constant dim");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  Type logical = c.logicalElementType(x);
  RankedTensorType type = typeOf(x);
  if (type.getRank() == 0)
    x = buildReshape(b, loc, x, {1});
  type = typeOf(x);
  int64_t dim = normalizeDim(*given, type.getRank());
  bool descending = false;
  std::optional<int64_t> k;
  if (target == "torch.topk") {
    std::optional<bool> largest = c.getBool("largest");
    k = c.getInt("k");
    if (!largest || !k)
      return c.fail("k and largest must be constants");
    descending = *largest;
  } else if (target == "torch.kthvalue") {
    k = c.getInt("k");
    if (!k || *k < 1 || *k > type.getDimSize(dim))
      return c.fail("k must be a constant within the dim");
  } else {
    std::optional<bool> desc = c.getBool("descending");
    if (!desc)
      return c.fail("descending must be a constant");
    descending = *desc;
  }
  if (type.getDimSize(dim) == 0)
    return Sorted{buildReshape(b, loc, x, resultShape),
                  buildFilled(b, loc, RankedTensorType::get(resultShape, b.getI64Type()), 0)};
  Sorted s = buildSort(b, loc, x, logical, dim, descending);
  if (k) {
    // topk: the first k; kthvalue: the k-th (1-based) smallest.
    SmallVector<int64_t> offsets(type.getRank(), 0), sizes(type.getShape()),
        strides(type.getRank(), 1);
    if (target == "torch.kthvalue") {
      offsets[dim] = *k - 1;
      sizes[dim] = 1;
    } else {
      sizes[dim] = *k;
    }
    s.values = buildSlice(b, loc, s.values, offsets, sizes, strides);
    s.indices = buildSlice(b, loc, s.indices, offsets, sizes, strides);
  }
  s.values = buildReshape(b, loc, s.values, resultShape);
  s.indices = buildReshape(b, loc, s.indices, resultShape);
  return s;
}

bool lowering::isSortTarget(StringRef target) {
  return target == "torch.sort" || target == "torch.topk" || target == "torch.kthvalue";
}

FailureOr<Value> lowering::lowerSortElement(LoweringCall &c, int64_t index,
                                            RankedTensorType type) {
  if (!type)
    return c.fail("expected a statically shaped result");
  FailureOr<Sorted> s = lowerSortCall(c, type.getShape());
  if (failed(s))
    return failure();
  return index == 0 ? s->values : s->indices;
}

void lowering::populateSortLowerings(LoweringTable &t) {
  // Lowered where operator.getitem reads the values (0) or the indices (1).
  for (const char *name : {"torch.sort", "torch.topk", "torch.kthvalue"})
    t[name] = [](LoweringCall &c) -> FailureOr<SmallVector<Value>> {
      return c.fail("only the indexed values or indices (result[0] or "
                    "result[1]) can be compiled");
    };
  t["torch.argsort"] = [](LoweringCall &c) -> FailureOr<SmallVector<Value>> {
    RankedTensorType type = c.resultType();
    if (!type)
      return c.fail("expected a statically shaped result");
    FailureOr<Sorted> s = lowerSortCall(c, type.getShape());
    if (failed(s))
      return failure();
    return SmallVector<Value>{s->indices};
  };
}
