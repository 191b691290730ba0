//===- Sort.cpp - decompositions of searching -----------------------------===//
//
// bucketize as torch's binary search, unrolled: one gather of the
// boundaries per step; isin as a comparison with every test element (sort,
// argsort, topk and kthvalue have direct lowerings).
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

/// bucketize: torch's binary search (cus_lower_bound, or cus_upper_bound
/// when `right`), unrolled: bit_width(n) steps over n boundaries, each
/// gathering boundaries[mid] for every element at once. Counting the
/// boundaries below x gives the same for sorted boundaries but not for
/// unsorted ones, where the interpreter and torch follow the search.
static Results decomposeBucketize(Decomposer &d) {
  Value x = d.tensor("input"), bounds = d.tensor("boundaries");
  auto right = d.getBool("right");
  RankedTensorType xt = typeOf(x), bt = typeOf(bounds);
  if (!x || !bounds || !right || bt.getRank() != 1 || !bt.hasStaticShape() ||
      !xt.hasStaticShape())
    return d.decline("needs static shapes, 1-D boundaries and a constant "
                     "right");
  int64_t n = bt.getDimSize(0), m = xt.getNumElements();
  auto indexType = RankedTensorType::get({m}, d.b.getI64Type());
  Value flat = d.call("torch.reshape", {{"input", x}, {"shape", d.ints({m})}});
  Value lo = d.tensorConstant(indexType, [](ArrayRef<int64_t>) { return 0.0; });
  Value hi = d.tensorConstant(indexType, [n](ArrayRef<int64_t>) {
    return static_cast<double>(n);
  });
  for (unsigned step = 0, steps = llvm::bit_width(uint64_t(n)); step < steps;
       ++step) {
    Value active = d.binary("torch.lt", lo, hi);
    Value mid = d.binary("torch.add", lo,
                         d.binary("torch.floor_divide",
                                  d.binary("torch.sub", hi, lo), d.i64(2)));
    Value at = d.call("torch.clamp", {{"input", mid}, {"min", d.i64(0)},
                                      {"max", d.i64(std::max<int64_t>(n - 1, 0))}});
    Value b = d.call("torch.index_select",
                     {{"input", bounds}, {"dim", d.i64(0)}, {"index", at}});
    Value stop = d.binary(*right ? "torch.gt" : "torch.ge", b, flat);
    Value goRight = d.binary("torch.logical_and", active,
                             d.unary("torch.logical_not", stop));
    Value goLeft = d.binary("torch.logical_and", active, stop);
    lo = d.call("torch.where", {{"condition", goRight},
                                {"input", d.binary("torch.add", mid, d.i64(1))},
                                {"other", lo}});
    hi = d.call("torch.where",
                {{"condition", goLeft}, {"input", mid}, {"other", hi}});
  }
  Value result = d.call("torch.reshape",
                        {{"input", lo}, {"shape", d.ints(xt.getShape())}});
  return one(d.cast(result, d.resultTensorType().getElementType()));
}

/// isin: any(elements[..., None] == flatten(test_elements)) over the last
/// dim (eq promotes the two, NaN equals nothing), negated for `invert`.
static Results decomposeIsin(Decomposer &d) {
  std::optional<bool> invert = d.getBool("invert");
  if (!invert)
    return d.decline("invert must be a constant");
  Value e = d.tensor("elements"), t = d.tensor("test_elements");
  Value found;
  if (!t) {
    found = d.binary("torch.eq", e, d.arg("test_elements"));
  } else {
    RankedTensorType tt = typeOf(t);
    if (!tt || !tt.hasStaticShape())
      return d.decline("needs static test_elements");
    Value flat = d.call("torch.reshape", {{"input", t}, {"shape", d.ints({tt.getNumElements()})}});
    Value column = e ? d.call("torch.unsqueeze", {{"input", e}, {"dim", d.i64(-1)}}) : Value();
    Value eq = e ? d.binary("torch.eq", column, flat) : d.binary("torch.eq", flat, d.arg("elements"));
    found = d.call("torch.any", {{"input", eq}, {"dim", d.i64(-1)}});
  }
  if (*invert)
    found = d.unary("torch.logical_not", found);
  return one(found);
}

/// searchsorted: bucketize for a 1-D sequence without a sorter; else
/// torch's binary search unrolled as bucketize's, each step gathering
/// every value's row of the sequence (through the sorter when given) at
/// its midpoint.
static Results decomposeSearchsorted(Decomposer &d) {
  Value seq = d.tensor("sorted_sequence"), x = d.tensor("input");
  // (torch makes a number a 0-d tensor, float64 or int64, first; a bool
  // compares as 0 or 1, so as an int64.)
  if (!x) {
    Attribute number = d.value("input");
    std::optional<double> f = getPyFloat(number);
    if (!f)
      return d.decline("input is neither a tensor nor a number");
    Type type = isa<FloatAttr>(number) ? Type(d.b.getF64Type()) : Type(d.b.getI64Type());
    x = d.tensorConstant(RankedTensorType::get({}, type), [&](ArrayRef<int64_t>) { return *f; });
  }
  std::optional<bool> rightArg = d.getBool("right"), outInt32 = d.getBool("out_int32");
  std::optional<std::string> side = d.isNone("side") ? std::nullopt : d.getStr("side");
  RankedTensorType st = typeOf(seq), xt = typeOf(x);
  if (!seq || !x || !rightArg || !outInt32 || (!d.isNone("side") && !side) || !st ||
      !xt || !st.hasStaticShape() || !xt.hasStaticShape())
    return d.decline("needs static tensors and constant arguments");
  bool right = *rightArg || (side && *side == "right");
  if (st.getRank() == 1 && d.isNone("sorter"))
    return one(d.call("torch.bucketize", {{"input", x}, {"boundaries", seq},
                                          {"out_int32", d.boolean(*outInt32)},
                                          {"right", d.boolean(right)}}));
  int64_t m = st.getShape().back();
  if (!d.isNone("sorter")) {
    Value sorter = d.tensor("sorter");
    assertInRange(d, sorter, 0, m - 1, "torch.searchsorted(): sorter index out of range");
    seq = d.call("torch.gather", {{"input", seq}, {"dim", d.i64(-1)}, {"index", sorter}});
  }
  // A 1-D sequence (with a sorter) searched by every value: as one row.
  Value values = x;
  if (st.getRank() == 1) {
    values = d.call("torch.reshape", {{"input", x}, {"shape", d.ints({1, xt.getNumElements()})}});
    seq = d.call("torch.unsqueeze", {{"input", seq}, {"dim", d.i64(0)}});
  }
  RankedTensorType vt = typeOf(values);
  if (!vt)
    return failure();
  auto indexType = RankedTensorType::get(vt.getShape(), d.b.getI64Type());
  Value lo = d.tensorConstant(indexType, [](ArrayRef<int64_t>) { return 0.0; });
  Value hi = d.tensorConstant(indexType, [m](ArrayRef<int64_t>) { return double(m); });
  for (unsigned step = 0, steps = llvm::bit_width(uint64_t(m)); step < steps; ++step) {
    Value active = d.binary("torch.lt", lo, hi);
    Value mid = d.binary("torch.add", lo,
                         d.binary("torch.floor_divide", d.binary("torch.sub", hi, lo), d.i64(2)));
    Value at = d.call("torch.clamp", {{"input", mid}, {"min", d.i64(0)},
                                      {"max", d.i64(std::max<int64_t>(m - 1, 0))}});
    Value b = d.call("torch.gather", {{"input", seq}, {"dim", d.i64(-1)}, {"index", at}});
    Value stop = d.binary(right ? "torch.gt" : "torch.ge", b, values);
    Value goRight = d.binary("torch.logical_and", active, d.unary("torch.logical_not", stop));
    Value goLeft = d.binary("torch.logical_and", active, stop);
    lo = d.call("torch.where", {{"condition", goRight},
                                {"input", d.binary("torch.add", mid, d.i64(1))},
                                {"other", lo}});
    hi = d.call("torch.where", {{"condition", goLeft}, {"input", mid}, {"other", hi}});
  }
  Value result = d.call("torch.reshape", {{"input", lo}, {"shape", d.ints(xt.getShape())}});
  return one(d.cast(result, d.resultTensorType().getElementType()));
}

void decompose::populateSortDecompositions(DecompositionTable &t) {
  t["torch.msort"] = [](Decomposer &d) -> Results {
    Value sorted = d.call("torch.sort", {{"input", d.tensor("input")}, {"dim", d.i64(0)}});
    return one(d.call("operator.getitem", {{"input", sorted}, {"index", d.i64(0)}}));
  };
  t["torch.bucketize"] = decomposeBucketize;
  t["torch.isin"] = decomposeIsin;
  t["torch.searchsorted"] = decomposeSearchsorted;
}
