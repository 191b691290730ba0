//===- Reduce.cpp - decompositions of reductions --------------------------===//

#include "Decompose.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;


/// The dims a `dim` argument names (None or []: all), normalized.
static std::optional<SmallVector<int64_t>> reducedDims(Decomposer &d,
                                                       int64_t rank) {
  return reductionDims(d.value("dim"), rank);
}

/// var (and std = sqrt(var)): sum((x - mean)^2) / max(N - correction, 0),
/// correction from `correction`, else 1 unless unbiased=False.
static Results decomposeVar(Decomposer &d) {
  Value x = d.tensor("input");
  auto type = cast<RankedTensorType>(x.getType());
  // var(x, False): the bool binds `dim` but means `unbiased` (torch's
  // var(input, unbiased) overload).
  std::optional<bool> positionalUnbiased;
  if (auto flag = dyn_cast_or_null<BoolAttr>(d.value("dim")))
    positionalUnbiased = flag.getValue();
  std::optional<SmallVector<int64_t>> dims;
  if (positionalUnbiased) {
    dims.emplace();
    for (int64_t i = 0; i < type.getRank(); ++i)
      dims->push_back(i);
  } else {
    dims = reducedDims(d, type.getRank());
  }
  std::optional<bool> keepdim = d.getBool("keepdim");
  if (!dims || !keepdim || !type.hasStaticShape())
    return d.decline("dim and keepdim must be constants and the shape static");
  int64_t correction = 1;
  if (positionalUnbiased) {
    correction = *positionalUnbiased ? 1 : 0;
  } else if (!d.isNone("correction")) {
    std::optional<int64_t> c = d.getInt("correction");
    if (!c)
      return d.decline("correction must be a constant");
    correction = *c;
  } else if (!d.isNone("unbiased")) {
    std::optional<bool> u = d.getBool("unbiased");
    if (!u)
      return d.decline("unbiased must be a constant");
    correction = *u ? 1 : 0;
  }
  int64_t count = 1;
  for (int64_t dim : *dims)
    count *= type.getDimSize(dim);
  // Computed in torch's accumulate type and rounded once: its Welford
  // kernel accumulates float32 in double (a float32 two-pass sum loses
  // the variance of large inputs), float16 and bfloat16 in float.
  Type element = d.resultTensorType().getElementType();
  Type accumulate = element.isF32() ? Type(d.b.getF64Type())
                    : (element.isF16() || element.isBF16()) ? Type(d.b.getF32Type())
                                                            : element;
  bool reduced = accumulate != element;
  if (reduced)
    x = d.cast(x, accumulate);
  Value mean = d.call("torch.mean", {{"input", x}, {"dim", d.ints(*dims)},
                                     {"keepdim", d.boolean(true)}});
  Value dev = d.binary("torch.sub", x, mean);
  Value s = d.call("torch.sum", {{"input", d.binary("torch.mul", dev, dev)},
                                 {"dim", d.ints(*dims)},
                                 {"keepdim", d.boolean(*keepdim)}});
  Value var = d.binary("torch.div", s,
                       d.f64(static_cast<double>(std::max<int64_t>(count - correction, 0))));
  if (d.target() == "torch.std")
    var = d.unary("torch.sqrt", var);
  return one(reduced ? d.cast(var, element) : var);
}

/// all and any: whether no element (any element) is zero, counted with a
/// sum so that empty inputs give True (False); uint8 inputs give uint8.
static Results decomposeAllAny(Decomposer &d) {
  bool all = d.target() == "torch.all";
  Value x = d.tensor("input");
  Value hits = d.binary(all ? "torch.eq" : "torch.ne", x, d.i64(0));
  Value count = d.call("torch.sum", {{"input", hits}, {"dim", d.arg("dim")},
                                     {"keepdim", d.arg("keepdim")}});
  Value r = d.binary(all ? "torch.eq" : "torch.gt", count, d.i64(0));
  return one(d.cast(r, d.resultTensorType().getElementType()));
}

/// var_mean and std_mean: (var or std, mean) over the same dims.
static Results decomposeVarMean(Decomposer &d) {
  bool isStd = d.target() == "torch.std_mean";
  SmallVector<KwArg> args = {{"input", d.arg("input")},
                             {"dim", d.arg("dim")},
                             {"unbiased", d.arg("unbiased")},
                             {"keepdim", d.arg("keepdim")},
                             {"correction", d.arg("correction")}};
  Value spread = d.call(isStd ? "torch.std" : "torch.var", args);
  // (var_mean(x, False): the bool is `unbiased`; the mean is over all.)
  Attribute dim = d.value("dim");
  bool all = isa_and_nonnull<BoolAttr>(dim);
  Value mean = d.call("torch.mean", {{"input", d.arg("input")},
                                     {"dim", all ? Arg(d.none()) : d.arg("dim")},
                                     {"keepdim", d.arg("keepdim")}});
  if (!spread || !mean)
    return failure();
  return SmallVector<Value>{spread, mean};
}

/// torch.max and torch.min: over everything (amax), elementwise against a
/// tensor (maximum), or along a dim as (values, indices).
static Results decomposeMaxMin(Decomposer &d) {
  bool isMax = d.target() == "torch.max";
  Value x = d.tensor("input");
  if (Value other = d.tensor("dim"))
    return one(d.binary(isMax ? "torch.maximum" : "torch.minimum", x, other));
  if (d.isNone("dim"))
    return one(d.call(isMax ? "torch.amax" : "torch.amin", {{"input", x}}));
  auto dim = d.getInt("dim");
  if (!dim)
    return d.decline("dim must be a constant");
  SmallVector<KwArg> args = {{"input", x}, {"dim", d.i64(*dim)}, {"keepdim", d.arg("keepdim")}};
  Value values = d.call(isMax ? "torch.amax" : "torch.amin", args);
  // (argmax has no bool kernel; as uint8 the indices are the same.)
  Value argInput = x;
  if (cast<RankedTensorType>(x.getType()).getElementType().isInteger(1))
    argInput = d.cast(x, IntegerType::get(d.ctx, 8, IntegerType::Unsigned));
  Value indices = d.call(isMax ? "torch.argmax" : "torch.argmin",
                         {{"input", argInput}, {"dim", d.i64(*dim)}, {"keepdim", d.arg("keepdim")}});
  if (!values || !indices)
    return failure();
  return SmallVector<Value>{values, indices};
}

void decompose::populateReduceDecompositions(DecompositionTable &t) {
  // log(cumsum(exp(x - m))) + m, m the max along dim (0 where infinite).
  t["torch.logcumsumexp"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto dim = d.getInt("dim");
    if (!dim)
      return d.decline("dim must be a constant");
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getRank() > 0 && type.getDimSize(*dim < 0 ? *dim + type.getRank() : *dim) == 0)
      return one(d.unary("torch.clone", x));
    // (NaNs do not count for the max: they make NaN only from where they
    // are on, as in torch's running sum.)
    Value finiteOrInf = d.call("Tensor.masked_fill", {{"input", x},
                                                      {"mask", d.unary("torch.isnan", x)},
                                                      {"value", d.f64(-INFINITY)}});
    Value m = d.call("torch.amax", {{"input", finiteOrInf}, {"dim", d.ints({*dim})},
                                    {"keepdim", d.boolean(true)}});
    m = d.call("Tensor.masked_fill", {{"input", m}, {"mask", d.unary("torch.isinf", m)}, {"value", d.f64(0)}});
    Value s = d.call("torch.cumsum", {{"input", d.unary("torch.exp", d.binary("torch.sub", x, m))},
                                      {"dim", d.i64(*dim)}});
    return one(d.binary("torch.add", d.unary("torch.log", s), m));
  };
  t["torch.var"] = decomposeVar;
  t["torch.var_mean"] = decomposeVarMean;
  t["torch.std_mean"] = decomposeVarMean;
  t["torch.max"] = decomposeMaxMin;
  t["torch.min"] = decomposeMaxMin;
  t["torch.std"] = decomposeVar;
  t["torch.all"] = decomposeAllAny;
  t["torch.any"] = decomposeAllAny;
  t["torch.count_nonzero"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    return one(d.call("torch.sum", {{"input", d.binary("torch.ne", x, d.i64(0))},
                                    {"dim", d.arg("dim")}}));
  };
  // log(sum(exp(x - m))) + m with m the max over dim (0 where infinite).
  t["torch.logsumexp"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    std::optional<bool> keepdim = d.getBool("keepdim");
    if (!keepdim)
      return d.decline("keepdim must be a constant");
    Type element = d.resultTensorType().getElementType();
    x = d.cast(x, element);
    // Over an empty dim the sum is 0 and the result -inf; there is no max.
    auto type = cast<RankedTensorType>(x.getType());
    auto dims = reducedDims(d, type.getRank());
    if (!dims)
      return d.decline("dim must be a constant");
    if (llvm::any_of(*dims, [&](int64_t i) { return type.getDimSize(i) == 0; }))
      return one(d.unary("torch.log", d.call("torch.sum", {{"input", d.unary("torch.exp", x)},
                                                           {"dim", d.arg("dim")},
                                                           {"keepdim", d.boolean(*keepdim)}})));
    auto maxOf = [&](bool keep) {
      Value m = d.call("torch.amax", {{"input", x}, {"dim", d.arg("dim")},
                                      {"keepdim", d.boolean(keep)}});
      return d.call("Tensor.masked_fill", {{"input", m},
                                           {"mask", d.unary("torch.isinf", m)},
                                           {"value", d.f64(0)}});
    };
    Value s = d.call("torch.sum",
                     {{"input", d.unary("torch.exp", d.binary("torch.sub", x, maxOf(true)))},
                      {"dim", d.arg("dim")},
                      {"keepdim", d.boolean(*keepdim)}});
    return one(d.binary("torch.add", d.unary("torch.log", s), maxOf(*keepdim)));
  };
}
