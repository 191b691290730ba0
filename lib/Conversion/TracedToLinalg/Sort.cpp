//===- Sort.cpp - sort, argsort, topk and kthvalue ------------------------===//
//
// A call of the sort runtime (Runtime/SortRuntime.h, docs/linalg-runtime.md)
// orders each slice along the dim: it runs torch 1.13's CPU algorithms
// (std::sort's introsort for stable=False, a stable sort, std::partial_sort
// or std::nth_element for topk, TH's quickselect for kthvalue), so ties come
// out in torch's order, as the interpreter's (which calls the same runtime).
// linalg has no sorting op; a rank-counting generic would be quadratic and
// give a stable order where torch's is not. The runtime returns the kept
// positions; a generic gathers the values at them.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "TracedIR/Runtime/SortRuntime.h"

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

/// `x` (static, rank >= 1) ordered along `dim` by the sort runtime: the
/// `kept` positions per slice that `order` leaves first (kthvalue: the
/// k-th), and the values there, in x's shape with `kept` along `dim`.
static Sorted buildSort(LoweringCall &c, Value x, Type logical, int64_t dim,
                        bool descending, int64_t k, int64_t order) {
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  RankedTensorType type = typeOf(x);
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = type.getRank(), size = shape[dim], outer = 1, inner = 1;
  for (int64_t e = 0; e < dim; ++e)
    outer *= shape[e];
  for (int64_t e = dim + 1; e < rank; ++e)
    inner *= shape[e];
  int64_t kept = order == TRACED_SORT_SELECT ? 1 : k;
  // The keys, widened exactly: floats to f64, integers and bool to i64.
  bool isFloat = isa<FloatType>(computeType(logical));
  Type i64 = b.getI64Type(), keyType = isFloat ? b.getF64Type() : i64;
  auto keysType = RankedTensorType::get(shape, keyType);
  Value keys = buildElementwise(
      b, loc, keysType, ValueRange{x},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return a[0];
      },
      /*inputTypes=*/{logical});
  SmallVector<int64_t> keptShape(shape);
  keptShape[dim] = kept;
  auto indicesType = RankedTensorType::get(keptShape, i64);
  RuntimeCall call = buildRuntimeCall(
      b, loc, c.op, isFloat ? "traced_sort_order_f64_memref" : "traced_sort_order_i64_memref",
      {keys}, {indicesType}, {outer, size, inner, k, descending ? 1 : 0, order});
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  c.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, call.status, zero),
          "the sort runtime failed");
  Value indices = call.results[0];
  // values[q] = x[q with indices[q] along dim].
  auto valuesType = RankedTensorType::get(keptShape, type.getElementType());
  Value init = tensor::EmptyOp::create(b, loc, keptShape, type.getElementType());
  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto gather = linalg::GenericOp::create(
      b, loc, valuesType, ValueRange{indices}, ValueRange{init}, {id, id}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        SmallVector<Value> at;
        for (int64_t e = 0; e < rank; ++e)
          at.push_back(e == dim ? arith::IndexCastOp::create(nb, l, nb.getIndexType(), a[0])
                                      .getResult()
                                : linalg::IndexOp::create(nb, l, e).getResult());
        linalg::YieldOp::create(nb, l, tensor::ExtractOp::create(nb, l, x, at).getResult());
      });
  return {gather.getResult(0), indices};
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
  int64_t size = type.getDimSize(dim);
  bool descending = false;
  int64_t k = size, order = TRACED_SORT_UNSTABLE;
  if (target == "torch.topk") {
    std::optional<bool> largest = c.getBool("largest"), sorted = c.getBool("sorted");
    std::optional<int64_t> kGiven = c.getInt("k");
    if (!largest || !kGiven || !sorted)
      return c.fail("k, largest and sorted must be constants");
    if (*kGiven < 0 || *kGiven > size)
      return c.fail("k must be a constant within the dim");
    descending = *largest;
    k = *kGiven;
    order = *sorted ? TRACED_SORT_TOPK : TRACED_SORT_TOPK_UNSORTED;
  } else if (target == "torch.kthvalue") {
    std::optional<int64_t> kGiven = c.getInt("k");
    if (!kGiven || *kGiven < 1 || *kGiven > size)
      return c.fail("k must be a constant within the dim");
    k = *kGiven;
    order = TRACED_SORT_SELECT;
  } else {
    std::optional<bool> desc = c.getBool("descending");
    if (!desc)
      return c.fail("descending must be a constant");
    descending = *desc;
    if (c.spec->signature.lookup("stable") && !c.isNone("stable")) {
      std::optional<bool> stable = c.getBool("stable");
      if (!stable)
        return c.fail("stable must be a constant");
      if (*stable)
        order = TRACED_SORT_STABLE;
    }
  }
  if (size == 0)
    return Sorted{buildReshape(b, loc, x, resultShape),
                  buildFilled(b, loc, RankedTensorType::get(resultShape, b.getI64Type()), 0)};
  Sorted s = buildSort(c, x, logical, dim, descending, k, order);
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
