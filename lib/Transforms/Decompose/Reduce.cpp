//===- Reduce.cpp - decompositions of reductions and norms ----------------===//
//
// var and std, max and min along a dim, and the other reductions in calls
// of sum, amax and amin; the vector and matrix norms (and renorm,
// cosine_similarity, pairwise_distance) through one p-norm; softmin as
// softmax of the negation.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

#include <cmath>
#include <limits>

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

Value decompose::vectorNorm(Decomposer &d, Value x, double p, Arg dim,
                           Attribute keepdim, Type element) {
  // float16 and bfloat16 compute in float32 and round once (torch's kernels
  // accumulate in float; 1.13 has no float16 sqrt on the CPU).
  if (element.isF16() || element.isBF16())
    return d.cast(vectorNorm(d, d.cast(x, d.b.getF32Type()), p, dim, keepdim,
                             d.b.getF32Type()),
                  element);
  auto reduceCall = [&](StringRef target, Value v) {
    return d.call(target, {{"input", v}, {"dim", dim}, {"keepdim", keepdim}});
  };
  if (std::isinf(p)) {
    if (isa_and_nonnull<NoneAttr>(dim.attr))
      dim = Arg(d.ints({}));
    return reduceCall(p > 0 ? "torch.amax" : "torch.amin", d.unary("torch.abs", x));
  }
  if (p == 0)
    return d.cast(reduceCall("torch.sum", d.binary("torch.ne", x, d.i64(0))), element);
  Value a = d.unary("torch.abs", x);
  if (p == 1)
    return reduceCall("torch.sum", a);
  if (p == 2)
    return d.unary("torch.sqrt", reduceCall("torch.sum", d.binary("torch.mul", x, x)));
  Value s = reduceCall("torch.sum", d.call("torch.pow", {{"input", a}, {"exponent", d.f64(p)}}));
  return d.call("torch.pow", {{"input", s}, {"exponent", d.f64(1.0 / p)}});
}

/// A norm order given as a number (or inf), or nullopt.
static std::optional<double> numericOrder(Attribute v) {
  if (auto f = dyn_cast_or_null<FloatAttr>(v))
    return f.getValueAsDouble();
  if (auto i = dyn_cast_or_null<IntegerAttr>(v); i && !isa<BoolAttr>(v))
    return static_cast<double>(i.getInt());
  return std::nullopt;
}

/// `x` converted to the `dtype=` argument when one is given.
static Value withDType(Decomposer &d, Value x) {
  if (auto t = dyn_cast_or_null<DTypeAttr>(d.value("dtype")))
    return d.cast(x, t.getType());
  return x;
}

static Results decomposeVectorNorm(Decomposer &d) {
  std::optional<double> p = numericOrder(d.value("ord"));
  // (vector_norm's ord is a Scalar: a bool is 1 or 0, as torch takes it.)
  if (auto b = dyn_cast_or_null<BoolAttr>(d.value("ord")))
    p = b.getValue() ? 1.0 : 0.0;
  if (!p)
    return d.decline("the order is not a constant number");
  Type element = d.resultTensorType().getElementType();
  return one(vectorNorm(d, withDType(d, d.tensor("input")), *p, d.arg("dim"),
                        d.boolean(d.getBool("keepdim").value_or(false)), element));
}

/// The matrix norms of the singular values of `x` over `dims` (torch
/// 1.13's linalg_matrix_norm): the dims moved last, then `reduce` of each
/// matrix's singular values (torch.sum: "nuc"; torch.amax, torch.amin: 2,
/// -2).
static Results spectralNorm(Decomposer &d, Value x,
                            std::optional<SmallVector<int64_t>> dims,
                            bool keepdim, StringRef reduce = "torch.sum") {
  RankedTensorType type = typeOf(x), result = d.resultTensorType();
  if (!type || !result || !type.hasStaticShape() || !result.hasStaticShape())
    return d.decline("the nuclear norm needs static shapes");
  int64_t rank = type.getRank();
  SmallVector<int64_t> pair = dims ? *dims : SmallVector<int64_t>{0, 1};
  if (pair.size() != 2 || rank < 2)
    return d.decline("the nuclear norm takes two dims");
  for (int64_t &v : pair)
    v = v < 0 ? v + rank : v;
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(pair, i))
      perm.push_back(i);
  perm.append(pair.begin(), pair.end());
  Value moved = d.call("torch.permute", {{"input", x}, {"dims", d.ints(perm)}});
  Value s = d.call("torch.linalg.svdvals", {{"A", moved}});
  Value sum = d.call(reduce, {{"input", s}, {"dim", d.ints({-1})}});
  return one(keepdim ? reshape(d, sum, result.getShape()) : sum);
}

/// torch.norm and torch.linalg.norm: vector norms (and the Frobenius norm,
/// a 2-norm over two dims); other matrix norms go to linalg.matrix_norm.
static Results decomposeNorm(Decomposer &d) {
  bool linalg = d.target() == "torch.linalg.norm";
  StringRef ordName = linalg ? "ord" : "p";
  Attribute ord = d.value(ordName);
  Value x = withDType(d, d.tensor("input"));
  Type element = d.resultTensorType().getElementType();
  Attribute keepdim = d.boolean(d.getBool("keepdim").value_or(false));
  auto dims = d.getInts("dim");
  if (!ord)
    return d.decline("the order is not a constant");
  bool fro = isa<NoneAttr>(ord) ||
             (isa<StringAttr>(ord) && cast<StringAttr>(ord).getValue() == "fro");
  if (fro)
    return one(vectorNorm(d, x, 2, d.arg("dim"), keepdim, element));
  if (isa<StringAttr>(ord) && cast<StringAttr>(ord).getValue() == "nuc")
    return spectralNorm(d, x, dims, d.getBool("keepdim").value_or(false));
  std::optional<double> p = numericOrder(ord);
  if (!p)
    return d.decline("the order is not a constant number");
  if (!x)
    return failure();
  auto rank = cast<RankedTensorType>(x.getType()).getRank();
  bool matrix = linalg && ((dims && dims->size() == 2) || (d.isNone("dim") && rank == 2));
  if (!matrix)
    return one(vectorNorm(d, x, *p, d.arg("dim"), keepdim, element));
  return one(d.call("torch.linalg.matrix_norm",
                    {{"input", x},
                     {"ord", ord},
                     {"dim", dims ? d.ints(*dims) : d.ints({-2, -1})},
                     {"keepdim", keepdim}}));
}

/// Frobenius, and the 1/inf norms (max of absolute column/row sums).
static Results decomposeMatrixNorm(Decomposer &d) {
  Attribute ord = d.value("ord");
  auto dims = d.getInts("dim");
  std::optional<bool> keepdim = d.getBool("keepdim");
  Value x = withDType(d, d.tensor("input"));
  Type element = d.resultTensorType().getElementType();
  if (!ord || !dims || dims->size() != 2 || !keepdim)
    return d.decline("ord, dim and keepdim must be constants");
  if (isa<StringAttr>(ord) && cast<StringAttr>(ord).getValue() == "fro")
    return one(vectorNorm(d, x, 2, d.ints(*dims), d.boolean(*keepdim), element));
  if (isa<StringAttr>(ord) && cast<StringAttr>(ord).getValue() == "nuc")
    return spectralNorm(d, x, dims, *keepdim);
  std::optional<double> p = numericOrder(ord);
  if (p && std::abs(*p) == 2)
    return spectralNorm(d, x, dims, *keepdim,
                        *p > 0 ? "torch.amax" : "torch.amin");
  if (!p || (std::abs(*p) != 1 && !std::isinf(*p)))
    return d.decline("matrix norms other than fro, nuc, 1, 2 and inf are "
                     "not supported");
  if (!x)
    return failure();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  int64_t d0 = (*dims)[0] < 0 ? (*dims)[0] + rank : (*dims)[0];
  int64_t d1 = (*dims)[1] < 0 ? (*dims)[1] + rank : (*dims)[1];
  // 1: sum over rows (d0), extreme over columns (d1); inf: the other way.
  int64_t sumDim = std::isinf(*p) ? d1 : d0, extDim = std::isinf(*p) ? d0 : d1;
  Value s = d.call("torch.sum", {{"input", d.unary("torch.abs", x)},
                                 {"dim", d.ints({sumDim})},
                                 {"keepdim", d.boolean(true)}});
  Value r = d.call(*p > 0 ? "torch.amax" : "torch.amin",
                   {{"input", s}, {"dim", d.ints({extDim})}, {"keepdim", d.boolean(true)}});
  if (!*keepdim)
    r = d.call("torch.reshape", {{"input", r},
                                 {"shape", d.ints(d.resultTensorType().getShape())}});
  return one(r);
}

/// nansum and nanmean: a sum (and a count) of the input with its NaNs as 0.
static Value withoutNaN(Decomposer &d, Value x) {
  RankedTensorType type = typeOf(x);
  if (!type || !isa<FloatType>(type.getElementType()))
    return x;
  return d.call("Tensor.masked_fill", {{"input", x},
                                       {"mask", d.unary("torch.isnan", x)},
                                       {"value", d.f64(0.0)}});
}

/// trapezoid and cumulative_trapezoid in the kernel's steps (Kernels/
/// Reduce.cpp, torch's).
static Results decomposeTrapezoid(Decomposer &d) {
  Value y = d.tensor("y");
  RankedTensorType ty = typeOf(y), result = d.resultTensorType();
  auto given = d.getInt("dim");
  if (!ty || !result || !given || !ty.hasStaticShape() || ty.getRank() == 0)
    return d.decline("needs a static shape and a constant dim");
  bool cumulative = d.target() == "torch.cumulative_trapezoid";
  int64_t dim = normDim(*given, ty.getRank()), len = ty.getDimSize(dim);
  if (!cumulative && len == 0)
    return one(d.call("torch.zeros", {{"size", d.ints(result.getShape())},
                                      {"dtype", d.dtype(result.getElementType())}}));
  auto slice = [&](Value v, int64_t start, std::optional<int64_t> end) {
    return window(d, v, dim, sliceOf(d, start, end, 1));
  };
  Value pairs = d.binary("torch.add", slice(y, 0, -1), slice(y, 1, std::nullopt));
  if (Value x = d.tensor("x")) {
    RankedTensorType tx = typeOf(x);
    if (!tx || !tx.hasStaticShape())
      return d.decline("needs a static shape");
    if (tx.getRank() == 1) {
      SmallVector<int64_t> shape(ty.getRank(), 1);
      shape[dim] = tx.getDimSize(0);
      x = reshape(d, x, shape);
    } else if (tx.getRank() < ty.getRank()) {
      SmallVector<int64_t> shape(ty.getRank() - tx.getRank(), 1);
      llvm::append_range(shape, tx.getShape());
      x = reshape(d, x, shape);
    }
    Value dx = d.binary("torch.sub", slice(x, 1, std::nullopt), slice(x, 0, -1));
    if (cumulative) {
      Value c = d.call("torch.cumsum", {{"input", d.binary("torch.mul", pairs, dx)},
                                        {"dim", d.i64(dim)}});
      return one(d.binary("torch.div", c, d.f64(2.0)));
    }
    Value s = d.call("torch.sum", {{"input", d.binary("torch.mul", dx, pairs)},
                                   {"dim", d.ints({dim})}});
    return one(d.binary("torch.div", s, d.f64(2.0)));
  }
  std::optional<double> dx = d.isNone("dx") ? std::optional<double>(1.0) : d.getFloat("dx");
  if (!dx)
    return d.decline("dx must be a constant");
  if (cumulative)
    return one(d.call("torch.cumsum", {{"input", d.binary("torch.mul", pairs, d.f64(*dx / 2.0))},
                                       {"dim", d.i64(dim)}}));
  Value ends = d.binary("torch.add", window(d, y, dim, d.i64(0)), window(d, y, dim, d.i64(-1)));
  Value sum = d.call("torch.sum", {{"input", y}, {"dim", d.ints({dim})}});
  Value diff = d.binary("torch.sub", sum, d.binary("torch.mul", ends, d.f64(0.5)));
  return one(d.binary("torch.mul", diff, d.f64(*dx)));
}

/// linalg.vander: [1, cumprod(x repeated N - 1 times)] along a new last dim.
static Results decomposeVander(Decomposer &d) {
  Value x = d.tensor("x");
  RankedTensorType tx = typeOf(x), result = d.resultTensorType();
  if (!tx || !result || !result.hasStaticShape())
    return d.decline("needs a static shape");
  SmallVector<int64_t> column(result.getShape().drop_back()), shape(column);
  column.push_back(1);
  shape.push_back(result.getShape().back() - 1);
  Value repeated = d.call("Tensor.expand", {{"input", reshape(d, x, column)},
                                            {"size", d.ints(shape)}});
  Value powers = d.call("torch.cumprod", {{"input", repeated}, {"dim", d.i64(-1)}});
  Value ones = d.call("torch.ones", {{"size", d.ints(column)},
                                     {"dtype", d.dtype(result.getElementType())}});
  return one(d.call("torch.cat", {{"tensors", Arg::list(d.ctx, {ones, powers})},
                                  {"dim", d.i64(-1)}}));
}

/// cov and corrcoef in the kernel's steps (Kernels/Reduce.cpp).
static Results decomposeCovariance(Decomposer &d) {
  Value in = d.tensor("input");
  RankedTensorType type = typeOf(in);
  bool corr = d.target() == "torch.corrcoef";
  std::optional<int64_t> correction = corr ? std::optional<int64_t>(1) : d.getInt("correction");
  if (!type || !type.hasStaticShape() || !correction ||
      (!corr && (!d.isNone("fweights") || !d.isNone("aweights"))))
    return d.decline("needs a static shape, a constant correction, no weights");
  Value x = type.getRank() < 2 ? reshape(d, in, {1, type.getNumElements()}) : in;
  int64_t rows = typeOf(x).getDimSize(0), n = typeOf(x).getDimSize(1);
  Value avg = d.binary("torch.div", d.call("torch.sum", {{"input", x}, {"dim", d.ints({1})}}),
                       d.i64(n));
  Value centered = d.binary("torch.sub", x, reshape(d, avg, {rows, 1}));
  Value c = d.call("torch.mm", {{"input", centered}, {"mat2", d.unary("torch.t", centered)}});
  Value cov = d.binary("torch.div", c, d.i64(std::max<int64_t>(n - *correction, 0)));
  if (!corr || rows == 1) {
    cov = reshape(d, cov, rows == 1 ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{rows, rows});
    return one(corr ? d.binary("torch.div", cov, cov) : cov);
  }
  Value sd = d.unary("torch.sqrt", d.unary("torch.diagonal", cov));
  Value r = d.binary("torch.div", d.binary("torch.div", cov, reshape(d, sd, {rows, 1})),
                     reshape(d, sd, {1, rows}));
  return one(d.call("torch.clamp", {{"input", r}, {"min", d.f64(-1.0)}, {"max", d.f64(1.0)}}));
}

/// The p-norm of the distances `diff` over `dim`, as torch's pdist and cdist
/// compute it: for p = 0 the sum of min(ceil(|d|), 1) (NaN where a
/// difference is, where vector_norm counts it), else vector_norm's.
static Value distanceNorm(Decomposer &d, Value diff, double p, int64_t dim, Type element) {
  if (p != 0)
    return vectorNorm(d, diff, p, d.i64(dim), d.boolean(false), element);
  Value ones = d.call("torch.clamp", {{"input", d.unary("torch.ceil", d.unary("torch.abs", diff))},
                                      {"max", d.i64(1)}});
  return d.call("torch.sum", {{"input", ones}, {"dim", d.ints({dim})}});
}

/// pdist: the norms of the differences of the row pairs i < j, gathered
/// with constant indices.
static Results decomposePdist(Decomposer &d) {
  std::optional<double> p = d.getFloat("p");
  RankedTensorType type = d.tensorType("input");
  if (!p || !type || !type.hasStaticShape() || type.getRank() != 2)
    return d.decline("needs a constant p and a static matrix");
  int64_t n = type.getDimSize(0), pairs = n * (n - 1) / 2;
  if (pairs == 0)
    return one(d.call("torch.reshape",
                      {{"input", window(d, d.tensor("input"), 0, sliceOf(d, 0, 0, 1))},
                       {"shape", d.ints({0})}}));
  std::vector<std::pair<int64_t, int64_t>> ij;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      ij.push_back({i, j});
  auto rows = [&](bool second) {
    Value index = d.tensorConstant(RankedTensorType::get({pairs}, d.b.getI64Type()),
                                   [&](ArrayRef<int64_t> k) {
                                     return double(second ? ij[k[0]].second : ij[k[0]].first);
                                   });
    return d.call("torch.index_select", {{"input", d.tensor("input")}, {"dim", d.i64(0)},
                                         {"index", index}});
  };
  Value diff = d.binary("torch.sub", rows(false), rows(true));
  return one(distanceNorm(d, diff, *p, 1, type.getElementType()));
}

/// cdist: the norms of x1[..., :, None, :] - x2[..., None, :, :] over the
/// last dim; for p = 2 where torch multiplies matrices, its formula:
/// sqrt(clamp(-2 x1 x2^T + |x1|^2 + |x2|^2, 0)).
static Results decomposeCdist(Decomposer &d) {
  std::optional<double> p = d.getFloat("p");
  std::optional<std::string> mode = d.getStr("compute_mode");
  RankedTensorType a = d.tensorType("x1"), b = d.tensorType("x2");
  if (!p || !mode || !a || !b || a.getRank() < 2 || b.getRank() < 2)
    return d.decline("needs constant p and compute_mode and ranked operands");
  int64_t pr = a.getDimSize(a.getRank() - 2), r = b.getDimSize(b.getRank() - 2);
  bool mm = *p == 2 && (*mode == "use_mm_for_euclid_dist" ||
                        (*mode == "use_mm_for_euclid_dist_if_necessary" && (pr > 25 || r > 25)));
  Value x = d.tensor("x1"), y = d.tensor("x2");
  Type element = a.getElementType();
  if (mm) {
    auto squares = [&](Value v) {
      return d.call("torch.sum", {{"input", d.binary("torch.mul", v, v)},
                                  {"dim", d.ints({-1})}, {"keepdim", d.boolean(true)}});
    };
    auto mT = [&](Value v) {
      return d.call("torch.transpose", {{"input", v}, {"dim0", d.i64(-2)}, {"dim1", d.i64(-1)}});
    };
    Value dot = d.binary("torch.matmul", d.binary("torch.mul", x, d.f64(-2)), mT(y));
    Value sq = d.binary("torch.add", d.binary("torch.add", dot, squares(x)), mT(squares(y)));
    return one(d.unary("torch.sqrt", d.call("torch.clamp", {{"input", sq}, {"min", d.i64(0)}})));
  }
  Value diff = d.binary("torch.sub", d.call("torch.unsqueeze", {{"input", x}, {"dim", d.i64(-2)}}),
                        d.call("torch.unsqueeze", {{"input", y}, {"dim", d.i64(-3)}}));
  return one(distanceNorm(d, diff, *p, -1, element));
}

/// cummax and cummin, as torch's scan defines them (ties and NaN take the
/// later index, a NaN extreme stays), through an [.., i, j] square of the
/// dim: value i is the extreme of elements j <= i (amax/amin keep NaN),
/// index i the last such j holding it.
static Results decomposeCumulativeExtreme(Decomposer &d) {
  bool max = d.target() == "torch.cummax";
  RankedTensorType type = d.tensorType("input");
  std::optional<int64_t> given = d.getInt("dim");
  if (!type || !type.hasStaticShape() || !given)
    return d.decline("needs a static input and a constant dim");
  Value x = d.tensor("input");
  int64_t rank = std::max<int64_t>(type.getRank(), 1);
  SmallVector<int64_t> shape(type.getShape());
  if (type.getRank() == 0)
    shape = {1};
  x = reshape(d, x, shape);
  int64_t dim = normDim(*given, rank), n = shape[dim];
  Type i64 = d.b.getI64Type();
  if (n == 0)
    return SmallVector<Value>{d.tensor("input"), d.cast(d.tensor("input"), i64)};
  Value xt = d.call("torch.movedim", {{"input", x}, {"source", d.i64(dim)},
                                      {"destination", d.i64(-1)}});
  Value a = d.call("torch.unsqueeze", {{"input", xt}, {"dim", d.i64(-2)}});
  auto index = [&](ArrayRef<int64_t> s, int axis) {
    return d.tensorConstant(RankedTensorType::get(s, i64),
                            [axis](ArrayRef<int64_t> i) { return double(i[axis]); });
  };
  Value j = index({1, n}, 1);
  Value mask = d.binary("torch.le", j, index({n, 1}, 0));
  // Masked-out positions hold the row's first element, which every i sees.
  Value first = window(d, a, rank, sliceOf(d, 0, 1, 1));
  Value square = d.call("torch.where", {{"condition", mask}, {"input", a}, {"other", first}});
  Value v = d.call(max ? "torch.amax" : "torch.amin",
                   {{"input", square}, {"dim", d.ints({-1})}});
  Value vv = d.call("torch.unsqueeze", {{"input", v}, {"dim", d.i64(-1)}});
  Value match = d.binary("torch.eq", a, vv);
  if (isa<FloatType>(type.getElementType()))
    match = d.binary("torch.logical_or", match,
                     d.binary("torch.logical_and", d.unary("torch.isnan", a),
                              d.unary("torch.isnan", vv)));
  match = d.binary("torch.logical_and", match, mask);
  Value idx = d.call("torch.amax", {{"input", d.call("torch.where", {{"condition", match},
                                                                     {"input", j},
                                                                     {"other", d.i64(-1)}})},
                                    {"dim", d.ints({-1})}});
  auto back = [&](Value t) {
    Value m = d.call("torch.movedim", {{"input", t}, {"source", d.i64(-1)},
                                       {"destination", d.i64(dim)}});
    return reshape(d, m, type.getShape());
  };
  Value values = back(v), indices = back(idx);
  if (!values || !indices)
    return failure();
  return SmallVector<Value>{values, indices};
}

/// median and nanmedian: the element of rank (n - 1) / 2 in a stable sort
/// along the dim (NaN last, ties in index order, as torch's (value, index)
/// order); median of a run holding NaN gives its first NaN, nanmedian
/// takes the rank among the other elements ((n - #NaN - 1) / 2, at least
/// 0).
static Results decomposeMedian(Decomposer &d) {
  bool ignoreNaN = d.target() == "torch.nanmedian";
  RankedTensorType type = d.tensorType("input");
  std::optional<bool> keepdim = d.getBool("keepdim");
  bool allDims = d.isNone("dim");
  std::optional<int64_t> given = allDims ? std::optional<int64_t>(0) : d.getInt("dim");
  if (!type || !type.hasStaticShape() || !keepdim || !given)
    return d.decline("needs a static input and constant dim and keepdim");
  Value x = d.tensor("input");
  SmallVector<int64_t> shape(type.getShape());
  if (allDims || type.getRank() == 0)
    shape = {type.getNumElements()};
  x = reshape(d, x, shape);
  int64_t dim = normDim(*given, shape.size()), n = shape[dim];
  if (n == 0)
    return d.decline("an empty dim has no median");
  Value sorted = d.call("torch.sort", {{"input", x}, {"dim", d.i64(dim)},
                                       {"stable", d.boolean(true)}});
  Value sv = d.call("operator.getitem", {{"input", sorted}, {"index", d.i64(0)}});
  Value si = d.call("operator.getitem", {{"input", sorted}, {"index", d.i64(1)}});
  bool isFloat = isa<FloatType>(type.getElementType());
  Value nan = isFloat ? d.unary("torch.isnan", x) : Value();
  Value values, indices;
  auto pick = [&](Value rank) {
    values = d.call("torch.gather", {{"input", sv}, {"dim", d.i64(dim)}, {"index", rank}});
    indices = d.call("torch.gather", {{"input", si}, {"dim", d.i64(dim)}, {"index", rank}});
  };
  SmallVector<int64_t> kept(shape);
  kept[dim] = 1;
  auto rankType = RankedTensorType::get(kept, d.b.getI64Type());
  if (ignoreNaN && isFloat) {
    Value count = d.call("torch.sum", {{"input", nan}, {"dim", d.ints({dim})},
                                       {"keepdim", d.boolean(true)}});
    Value rank = d.call("torch.floor_divide",
                        {{"input", d.call("torch.rsub", {{"input", count}, {"other", d.i64(n - 1)}})},
                         {"other", d.i64(2)}});
    pick(d.call("torch.clamp", {{"input", rank}, {"min", d.i64(0)}}));
  } else {
    pick(d.tensorConstant(rankType, [n](ArrayRef<int64_t>) { return double((n - 1) / 2); }));
  }
  if (!ignoreNaN && isFloat) {
    Value hasNaN = d.call("torch.any", {{"input", nan}, {"dim", d.i64(dim)},
                                        {"keepdim", d.boolean(true)}});
    // (argmax of a bool tensor has no CPU kernel: of its int64 copy.)
    Value firstNaN = d.call("torch.argmax", {{"input", d.cast(nan, d.b.getI64Type())},
                                             {"dim", d.i64(dim)},
                                             {"keepdim", d.boolean(true)}});
    Value nanValue = d.call("torch.gather", {{"input", x}, {"dim", d.i64(dim)}, {"index", firstNaN}});
    values = d.call("torch.where", {{"condition", hasNaN}, {"input", nanValue}, {"other", values}});
    indices = d.call("torch.where", {{"condition", hasNaN}, {"input", firstNaN}, {"other", indices}});
  }
  RankedTensorType result = allDims ? d.resultTensorType()
                                    : dyn_cast<RankedTensorType>(
                                          cast<TupleType>(d.resultType()).getType(0));
  if (!values || !indices || !result)
    return failure();
  values = reshape(d, values, result.getShape());
  if (allDims)
    return one(values);
  return SmallVector<Value>{values, reshape(d, indices, result.getShape())};
}

/// `x`'s values sorted along its last dim (NaN last, as torch's sort).
static Value sortedValues(Decomposer &d, Value x) {
  Value sorted = d.call("torch.sort", {{"input", x}, {"dim", d.i64(-1)}});
  return d.call("operator.getitem", {{"input", sorted}, {"index", d.i64(0)}});
}

/// q of quantile and nanquantile as a 1-D tensor of the input's type (a
/// number is rounded to it, as torch's scalar_tensor(q, self.options())
/// does); a tensor q's values are checked at run time, as torch's CPU
/// kernel checks them.
static Value quantileQ(Decomposer &d, Type elt, bool &list) {
  if (Value q = d.tensor("q")) {
    RankedTensorType qt = typeOf(q);
    list = qt.getRank() == 1;
    Value ok = d.call("torch.logical_and", {{"input", d.binary("torch.ge", q, d.f64(0))},
                                            {"other", d.binary("torch.le", q, d.f64(1))}});
    std::string op = d.target() == "torch.nanquantile" ? "nanquantile" : "quantile";
    d.call("torch._assert", {{"condition", d.call("torch.all", {{"input", ok}})},
                             {"message", d.str(op + "() q values must be in the range [0, 1]")}});
    return reshape(d, q, {qt.getNumElements()});
  }
  std::optional<double> q = d.getFloat("q");
  if (!q)
    if (std::optional<int64_t> i = d.getInt("q"))
      q = static_cast<double>(*i);
  if (!q)
    return Value();
  list = false;
  return d.tensorConstant(RankedTensorType::get({1}, elt),
                          [&](ArrayRef<int64_t>) { return *q; });
}

/// quantile and nanquantile as torch 1.13's quantile_compute: the dim moved
/// last (every element flattened for dim=None) and sorted; the rank is
/// q (n - 1), the last one where a NaN is (quantile), or q (the non-NaN
/// count - 1), at least 0 (nanquantile); rounded as `interpolation` says;
/// linear and midpoint lerp between the elements at the rank's floor and
/// ceiling (by the rank's fraction, or by 0.5).
static Results decomposeQuantile(Decomposer &d) {
  bool ignoreNaN = d.target() == "torch.nanquantile";
  RankedTensorType type = d.tensorType("input");
  RankedTensorType result = d.resultTensorType();
  std::optional<std::string> mode = d.getStr("interpolation");
  bool allDims = d.isNone("dim");
  std::optional<int64_t> given = allDims ? std::optional<int64_t>(0) : d.getInt("dim");
  if (!type || !type.hasStaticShape() || !result || !result.hasStaticShape() || !mode ||
      !given)
    return d.decline("needs a static input and constant dim and interpolation");
  Type elt = type.getElementType();
  bool list = false;
  Value q = quantileQ(d, elt, list);
  if (!q)
    return d.decline("q must be a constant number or a tensor");
  int64_t numQ = typeOf(q) ? typeOf(q).getDimSize(0) : 1;
  Value x = d.tensor("input");
  if (allDims || type.getRank() == 0)
    x = reshape(d, x, {type.getNumElements()});
  else
    x = d.call("torch.movedim", {{"input", x},
                                 {"source", d.i64(normDim(*given, type.getRank()))},
                                 {"destination", d.i64(-1)}});
  RankedTensorType xt = typeOf(x);
  if (!xt)
    return failure();
  SmallVector<int64_t> full(xt.getShape());
  int64_t n = full.back();
  full.back() = numQ;
  Value sorted = sortedValues(d, x);
  Value nan = d.unary("torch.isnan", sorted);
  Value rank;
  if (ignoreNaN) {
    Value count = d.call("torch.sum", {{"input", d.unary("torch.logical_not", nan)},
                                       {"dim", d.ints({-1})},
                                       {"keepdim", d.boolean(true)}});
    rank = d.binary("torch.mul", q, d.binary("torch.sub", count, d.i64(1)));
    rank = d.call("torch.where", {{"condition", d.binary("torch.lt", rank, d.f64(0))},
                                  {"input", d.f64(0)},
                                  {"other", rank}});
  } else {
    Value hasNaN = d.call("torch.any", {{"input", nan}, {"dim", d.i64(-1)},
                                        {"keepdim", d.boolean(true)}});
    rank = d.call("torch.where",
                  {{"condition", hasNaN},
                   {"input", d.f64(static_cast<double>(n - 1))},
                   {"other", d.binary("torch.mul", q, d.f64(static_cast<double>(n - 1)))}});
  }
  rank = d.call("Tensor.expand", {{"input", rank}, {"size", d.ints(full)}});
  if (*mode == "lower")
    rank = d.unary("torch.floor", rank);
  else if (*mode == "higher")
    rank = d.unary("torch.ceil", rank);
  else if (*mode == "nearest")
    rank = d.unary("torch.round", rank);
  auto at = [&](Value r) {
    return d.call("torch.gather", {{"input", sorted}, {"dim", d.i64(-1)},
                                   {"index", d.cast(r, d.b.getI64Type())}});
  };
  Value values = at(rank);
  if (*mode == "linear" || *mode == "midpoint") {
    Arg weight = *mode == "midpoint"
                     ? Arg(d.f64(0.5))
                     : Arg(d.binary("torch.sub", rank, d.cast(rank, d.b.getI64Type())));
    values = d.call("torch.lerp", {{"input", values},
                                   {"end", at(d.unary("torch.ceil", rank))},
                                   {"weight", weight}});
  }
  if (list)
    values = d.call("torch.movedim", {{"input", values}, {"source", d.i64(-1)},
                                      {"destination", d.i64(0)}});
  if (!values)
    return failure();
  return one(reshape(d, values, result.getShape()));
}

/// A 0-d tensor constant `v` of element type `elt`.
static Value scalarTensor(Decomposer &d, Type elt, double v) {
  return d.tensorConstant(RankedTensorType::get({}, elt),
                          [v](ArrayRef<int64_t>) { return v; });
}

/// The outer edges of histc and histogram as 0-d tensors of the input's
/// type: the data's min and max (x flattened, not empty), moved apart by
/// `widen` on each side where they are equal, checked finite at run time
/// (`message`, torch's error).
static std::pair<Value, Value> dataRange(Decomposer &d, Value x, double widen,
                                         const std::string &message) {
  Value lo = d.call("torch.amin", {{"input", x}}), hi = d.call("torch.amax", {{"input", x}});
  Value finite = d.call("torch.logical_and", {{"input", d.unary("torch.isfinite", lo)},
                                              {"other", d.unary("torch.isfinite", hi)}});
  d.call("torch._assert", {{"condition", finite}, {"message", d.str(message)}});
  Value same = d.binary("torch.eq", lo, hi);
  lo = d.call("torch.where", {{"condition", same}, {"input", d.binary("torch.sub", lo, d.f64(widen))},
                              {"other", lo}});
  hi = d.call("torch.where", {{"condition", same}, {"input", d.binary("torch.add", hi, d.f64(widen))},
                              {"other", hi}});
  return {lo, hi};
}

/// `x` (finite) where compiled code cannot fuse it, a product, into the
/// sum that reads it (LLVM contracts a * b + c into one fma; torch's kernels
/// and these formulas round the product first): a select it cannot fold.
static Value separate(Decomposer &d, Value x) {
  return d.call("torch.where", {{"condition", d.unary("torch.isnan", x)}, {"input", d.f64(0)},
                                {"other", x}});
}

/// fma(a, k, c) of float64 tensors, `k` holding integers below 2^26:
/// Dekker's exact product a * k = p + e (a split in halves of 26 bits),
/// then p + c summed exactly (Knuth's two-sum) and their errors added:
/// the fused result but for ties of double rounding.
static Value fusedMulAdd64(Decomposer &d, Value a, Value k, Value c) {
  auto mul = [&](Value x, Arg y) { return separate(d, d.binary("torch.mul", x, y)); };
  auto add = [&](Value x, Value y) { return d.binary("torch.add", x, y); };
  auto sub = [&](Value x, Value y) { return d.binary("torch.sub", x, y); };
  Value p = mul(a, k);
  Value big = mul(a, d.f64(134217729.0));
  Value high = sub(big, sub(big, a)), low = sub(a, high);
  Value e = add(sub(mul(high, k), p), mul(low, k));
  Value sum = add(p, c), back = sub(sum, p);
  Value t = add(sub(p, sub(sum, back)), sub(c, back));
  return add(sum, add(t, e));
}

/// torch.linspace(lo, hi, steps) (0-d lo and hi of type `elt`, steps > 1)
/// as its AVX2 CPU kernel computes it (Kernels/Reduce.cpp's linspaceOf):
/// element (or vector base) v is fma(step, v, lo) in the first half and
/// fma(-step, steps - 1 - v, hi) in the other, a vector's elements base +
/// j * step; float32's fma is computed in float64, float64's exactly
/// (fusedMulAdd64); bfloat16 rounds each step, one element at a time.
static Value linspaceBetween(Decomposer &d, Value lo, Value hi, int64_t steps, Type elt) {
  if (elt.isBF16()) {
    // (bfloat16: each step rounded to it, one element at a time.)
    auto type = RankedTensorType::get({steps}, elt);
    Value up = d.tensorConstant(type, [](ArrayRef<int64_t> i) { return double(i[0]); });
    Value down = d.tensorConstant(type, [steps](ArrayRef<int64_t> i) { return double(steps - 1 - i[0]); });
    Value first = d.tensorConstant(RankedTensorType::get({steps}, d.b.getI1Type()),
                                   [steps](ArrayRef<int64_t> i) { return i[0] < steps / 2 ? 1.0 : 0.0; });
    Value step = d.binary("torch.div", d.binary("torch.sub", hi, lo), d.i64(steps - 1));
    return d.call("torch.where",
                  {{"condition", first},
                   {"input", d.binary("torch.add", lo, d.binary("torch.mul", step, up))},
                   {"other", d.binary("torch.sub", hi, d.binary("torch.mul", step, down))}});
  }
  int64_t width = elt.isF32() ? 8 : 4, half = steps / 2, vectors = steps / (2 * width) * 2 * width;
  auto baseOf = [&](int64_t i) { return i < vectors ? i / width * width : i; };
  auto type = RankedTensorType::get({steps}, d.b.getF64Type());
  Value k = d.tensorConstant(type, [&](ArrayRef<int64_t> i) {
    int64_t v = baseOf(i[0]);
    return double(v < half ? v : -(steps - 1 - v));
  });
  Value j = d.tensorConstant(type, [&](ArrayRef<int64_t> i) { return double(i[0] - baseOf(i[0])); });
  Value fromLo = d.tensorConstant(RankedTensorType::get({steps}, d.b.getI1Type()),
                                  [&](ArrayRef<int64_t> i) { return baseOf(i[0]) < half ? 1.0 : 0.0; });
  Value step = d.binary("torch.div", d.binary("torch.sub", hi, lo), d.i64(steps - 1));
  Value anchor = d.call("torch.where", {{"condition", fromLo}, {"input", lo}, {"other", hi}});
  Value base;
  if (elt.isF64()) {
    base = fusedMulAdd64(d, step, k, anchor);
  } else {
    Type f64 = d.b.getF64Type();
    base = d.cast(d.binary("torch.add", d.binary("torch.mul", d.cast(step, f64), k), d.cast(anchor, f64)),
                  elt);
  }
  return d.binary("torch.add", base, separate(d, d.binary("torch.mul", d.cast(j, elt), step)));
}

/// The bins' counts: each element of flat `x` with `inRange` adds its
/// `weight` (null: 1) to bin `pos` (int64), as a scatter_add into zeros.
static Value countBins(Decomposer &d, Value pos, Value inRange, Value weight,
                       int64_t bins, Type elt) {
  Value src = weight ? d.call("torch.where", {{"condition", inRange}, {"input", weight},
                                              {"other", d.f64(0)}})
                     : d.cast(inRange, elt);
  Value index = d.call("torch.where", {{"condition", inRange}, {"input", pos}, {"other", d.i64(0)}});
  Value zeros = d.tensorConstant(RankedTensorType::get({bins}, elt), [](ArrayRef<int64_t>) { return 0.0; });
  return d.call("torch.scatter_add", {{"input", zeros}, {"dim", d.i64(0)}, {"index", index},
                                      {"src", src}});
}

/// Whether an element of `x` is counted: not below `lo` nor above `hi`
/// (NaN is, as torch's kernel lets it through).
static Value notOutside(Decomposer &d, Value x, Value lo, Value hi) {
  return d.unary("torch.logical_not",
                 d.call("torch.logical_or", {{"input", d.binary("torch.lt", x, lo)},
                                             {"other", d.binary("torch.lt", hi, x)}}));
}

/// `t` (a float bin position) truncated to int64 where `ok`, else 0 (NaN
/// and the elements outside are not converted).
static Value truncatedBin(Decomposer &d, Value t, Value ok) {
  t = d.call("torch.where", {{"condition", ok}, {"input", t}, {"other", d.f64(0)}});
  return d.cast(t, d.b.getI64Type());
}

/// histc as torch 1.13's kernel: equal bins from min to max (equal: the
/// data's range, moved apart by 1 where it is one value); an element's bin
/// is trunc((x - lo) / (hi - lo) * bins) in the input's type, the last bin
/// taking hi; NaN counts in bin 0 (what torch's conversion of it gives).
static Results decomposeHistc(Decomposer &d) {
  RankedTensorType type = d.tensorType("input");
  std::optional<int64_t> bins = d.getInt("bins");
  std::optional<double> min = d.getFloat("min"), max = d.getFloat("max");
  if (!type || !type.hasStaticShape() || !bins || !min || !max || *bins <= 0)
    return d.decline("needs a static input and constant bins, min and max");
  Type elt = type.getElementType();
  Value x = reshape(d, d.tensor("input"), {type.getNumElements()});
  Value lo, hi;
  if (*min != *max) {
    lo = scalarTensor(d, elt, *min);
    hi = scalarTensor(d, elt, *max);
  } else if (type.getNumElements() == 0) {
    if (!std::isfinite(*min))
      return d.decline("torch.histc: the range is not finite");
    lo = scalarTensor(d, elt, *min - 1);
    hi = scalarTensor(d, elt, *max + 1);
  } else {
    std::tie(lo, hi) = dataRange(d, x, 1, "torch.histc: range of the data is not finite");
  }
  Value nan = d.unary("torch.isnan", x);
  Value counted = notOutside(d, x, lo, hi);
  Value t = d.binary("torch.mul", d.binary("torch.div", d.binary("torch.sub", x, lo),
                                           d.binary("torch.sub", hi, lo)),
                     d.i64(*bins));
  Value ok = d.call("torch.logical_and", {{"input", counted}, {"other", d.unary("torch.logical_not", nan)}});
  Value pos = d.call("torch.clamp", {{"input", truncatedBin(d, t, ok)}, {"max", d.i64(*bins - 1)}});
  return one(countBins(d, pos, counted, Value(), *bins, elt));
}

/// histogram as torch 1.13's histogramdd kernel: with a bins tensor, an
/// element's bin is upper_bound among the edges - 1 (searchsorted, right);
/// with an int, the edges are linspace over `range` (else the data's
/// range, moved apart by 0.5 where it is one value; [0, 1] without data),
/// and the bin is trunc((x - lo) * bins / (hi - lo)) corrected by
/// upper_bound among the three edges around it (a NaN's is bin 1, what
/// torch's code makes of its conversion). The last bin takes its right
/// edge; `density` divides by the total and by each bin's width.
static Results decomposeHistogram(Decomposer &d) {
  RankedTensorType type = d.tensorType("input");
  std::optional<bool> density = d.getBool("density");
  RankedTensorType histType = dyn_cast_or_null<RankedTensorType>(
      d.resultType() ? cast<TupleType>(d.resultType()).getType(0) : Type());
  if (!type || !type.hasStaticShape() || !density || !histType || !histType.hasStaticShape())
    return d.decline("needs a static input and constant bins, range and density");
  Type elt = type.getElementType(), i64 = d.b.getI64Type();
  int64_t n = type.getNumElements(), bins = histType.getDimSize(0);
  Value x = reshape(d, d.tensor("input"), {n});
  Value weight = d.isNone("weight") ? Value() : reshape(d, d.tensor("weight"), {n});
  Value nan = d.unary("torch.isnan", x);
  Value edges = d.tensor("bins"), pos, counted;
  if (edges) {
    counted = notOutside(d, x, window(d, edges, 0, d.i64(0)), window(d, edges, 0, d.i64(bins)));
    pos = d.binary("torch.sub", d.call("torch.searchsorted", {{"sorted_sequence", edges},
                                                              {"input", x},
                                                              {"right", d.boolean(true)}}),
                   d.i64(1));
  } else {
    Value lo, hi;
    if (!d.isNone("range")) {
      auto range = dyn_cast_or_null<ArrayAttr>(d.value("range"));
      std::optional<double> a = range && range.size() == 2 ? getPyFloat(range[0]) : std::nullopt;
      std::optional<double> b = range && range.size() == 2 ? getPyFloat(range[1]) : std::nullopt;
      if (!a || !b)
        return d.decline("range must be a constant (min, max)");
      if (*a == *b) {
        *a -= 0.5;
        *b += 0.5;
      }
      lo = scalarTensor(d, elt, *a);
      hi = scalarTensor(d, elt, *b);
    } else if (n == 0) {
      lo = scalarTensor(d, elt, 0);
      hi = scalarTensor(d, elt, 1);
    } else {
      std::tie(lo, hi) = dataRange(d, x, 0.5, "torch.histogramdd: dimension 0's range is not finite");
    }
    edges = linspaceBetween(d, lo, hi, bins + 1, elt);
    counted = notOutside(d, x, lo, hi);
    Value ok = d.call("torch.logical_and", {{"input", counted}, {"other", d.unary("torch.logical_not", nan)}});
    Value t = d.binary("torch.div", d.binary("torch.mul", d.binary("torch.sub", x, lo), d.i64(bins)),
                       d.binary("torch.sub", hi, lo));
    Value guess = truncatedBin(d, t, ok);
    // upper_bound among edges [max(guess - 1, 0), min(guess + 2, bins + 1)).
    Value below = d.call("torch.clamp", {{"input", d.binary("torch.sub", guess, d.i64(1))},
                                         {"min", d.i64(0)}});
    pos = d.binary("torch.sub", below, d.i64(1));
    for (int64_t j = -1; j <= 1; ++j) {
      Value k = d.binary("torch.add", guess, d.i64(j));
      Value valid = d.call("torch.logical_and", {{"input", d.binary("torch.ge", k, d.i64(0))},
                                                 {"other", d.binary("torch.le", k, d.i64(bins))}});
      Value e = d.call("torch.gather", {{"input", edges}, {"dim", d.i64(0)},
                                        {"index", d.call("torch.clamp", {{"input", k},
                                                                         {"min", d.i64(0)},
                                                                         {"max", d.i64(bins)}})}});
      Value hit = d.call("torch.logical_and", {{"input", valid}, {"other", d.binary("torch.le", e, x)}});
      pos = d.binary("torch.add", pos, d.cast(hit, i64));
    }
    pos = d.call("torch.where", {{"condition", nan}, {"input", d.i64(1)}, {"other", pos}});
  }
  pos = d.call("torch.clamp", {{"input", pos}, {"min", d.i64(0)}, {"max", d.i64(bins - 1)}});
  Value hist = countBins(d, pos, counted, weight, bins, elt);
  if (*density) {
    hist = d.binary("torch.div", hist, d.call("torch.sum", {{"input", hist}}));
    hist = d.binary("torch.div", hist, d.call("torch.diff", {{"input", edges}}));
  }
  if (!hist || !edges)
    return failure();
  return SmallVector<Value>{hist, edges};
}

/// segment_reduce as masked reductions: data viewed as [outer, 1, P,
/// inner] against a mask [outer, S, P, 1] of each segment's positions
/// (start <= p < start + length, the starts from the lengths' running sum
/// or the offsets), reduced over P from the reduction's identity, then
/// combined with `initial` (max and min keep NaN, as torch's kernel does;
/// mean divides by the length, an empty segment's mean is NaN without
/// `initial`). torch's checks of the lengths (unless `unsafe`) and of the
/// offsets' order run at run time.
static Results decomposeSegmentReduce(Decomposer &d) {
  RankedTensorType type = d.tensorType("data"), result = d.resultTensorType();
  std::optional<std::string> reduce = d.getStr("reduce");
  std::optional<int64_t> axis = d.getInt("axis");
  std::optional<bool> unsafe = d.getBool("unsafe");
  bool byLengths = !d.isNone("lengths");
  Value seg = d.tensor(byLengths ? "lengths" : "offsets");
  if (!type || !type.hasStaticShape() || !result || !result.hasStaticShape() || !reduce ||
      !axis || !unsafe || !seg || !typeOf(seg).hasStaticShape() || type.getRank() == 0)
    return d.decline("needs static shapes and constant reduce, axis and unsafe");
  std::optional<double> initial;
  if (!d.isNone("initial")) {
    initial = d.getFloat("initial");
    if (!initial)
      if (std::optional<int64_t> i = d.getInt("initial"))
        initial = static_cast<double>(*i);
    if (!initial)
      return d.decline("initial must be a constant");
  }
  Type elt = type.getElementType(), i64 = d.b.getI64Type();
  int64_t a = normDim(*axis, type.getRank()), size = type.getDimSize(a), outer = 1, inner = 1;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (i != a)
      (i < a ? outer : inner) *= type.getDimSize(i);
  int64_t count = result.getDimSize(a);
  seg = d.cast(reshape(d, seg, {outer, count + (byLengths ? 0 : 1)}), i64);
  Value start, length;
  if (byLengths) {
    length = seg;
    start = d.binary("torch.sub", d.call("torch.cumsum", {{"input", seg}, {"dim", d.i64(1)}}), seg);
    if (!*unsafe) {
      assertInRange(d, seg, 0, std::numeric_limits<int64_t>::max(), "lengths contains negative value!");
      Value total = d.call("torch.sum", {{"input", seg}, {"dim", d.ints({1})}});
      d.call("torch._assert",
             {{"condition", d.call("torch.all", {{"input", d.binary("torch.eq", total, d.i64(size))}})},
              {"message", d.str("segment_reduce(): Expected all rows of lengths along axis to sum "
                                "to data.size(lengths.dim()-1) when !unsafe.")}});
    }
  } else {
    start = window(d, seg, 1, sliceOf(d, 0, count, 1));
    length = d.binary("torch.sub", window(d, seg, 1, sliceOf(d, 1, std::nullopt, 1)), start);
    assertInRange(d, length, 0, std::numeric_limits<int64_t>::max(),
                  "Expected segment_length >= 0 to be true, but got false.");
  }
  Value positions = d.tensorConstant(RankedTensorType::get({1, 1, size}, i64),
                                     [](ArrayRef<int64_t> i) { return double(i[2]); });
  Value first = reshape(d, start, {outer, count, 1});
  Value mask = d.call("torch.logical_and",
                      {{"input", d.binary("torch.ge", positions, first)},
                       {"other", d.binary("torch.lt", positions,
                                          d.binary("torch.add", first, reshape(d, length, {outer, count, 1})))}});
  mask = reshape(d, mask, {outer, count, size, 1});
  Value x = reshape(d, d.tensor("data"), {outer, 1, size, inner});
  double identity = *reduce == "max" ? -INFINITY : *reduce == "min" ? INFINITY
                    : *reduce == "prod" ? 1.0 : 0.0;
  Value masked = d.call("torch.where", {{"condition", mask}, {"input", x}, {"other", d.f64(identity)}});
  StringRef target = *reduce == "max" ? "torch.amax" : *reduce == "min" ? "torch.amin"
                     : *reduce == "prod" ? "torch.prod" : "torch.sum";
  Value r = d.call(target, {{"input", masked},
                            {"dim", *reduce == "prod" ? d.i64(2) : d.ints({2})}});
  if (initial) {
    Value init = scalarTensor(d, elt, *initial);
    if (*reduce == "max" || *reduce == "min")
      r = d.binary(*reduce == "max" ? "torch.maximum" : "torch.minimum", init, r);
    else
      r = d.binary(*reduce == "prod" ? "torch.mul" : "torch.add", init, r);
  }
  if (*reduce == "mean") {
    Value n = reshape(d, length, {outer, count, 1});
    Value empty = d.binary("torch.eq", n, d.i64(0));
    Value mean = d.binary("torch.div", r, n);
    r = d.call("torch.where", {{"condition", empty},
                               {"input", initial ? r : Value(scalarTensor(d, elt, NAN))},
                               {"other", mean}});
  }
  if (!r)
    return failure();
  return one(reshape(d, r, result.getShape()));
}

void decompose::populateReduceDecompositions(DecompositionTable &t) {
  t["torch.cov"] = decomposeCovariance;
  t["torch.corrcoef"] = decomposeCovariance;
  t["torch.trapezoid"] = decomposeTrapezoid;
  t["torch.cumulative_trapezoid"] = decomposeTrapezoid;
  t["torch.linalg.vander"] = decomposeVander;
  t["torch.cummax"] = decomposeCumulativeExtreme;
  t["torch.cummin"] = decomposeCumulativeExtreme;
  t["torch.median"] = decomposeMedian;
  t["torch.pdist"] = decomposePdist;
  t["torch.cdist"] = decomposeCdist;
  t["torch.nanmedian"] = decomposeMedian;
  t["torch.quantile"] = decomposeQuantile;
  t["torch.segment_reduce"] = decomposeSegmentReduce;
  t["torch.histc"] = decomposeHistc;
  t["torch.histogram"] = decomposeHistogram;
  t["torch.nanquantile"] = decomposeQuantile;
  t["torch.nansum"] = [](Decomposer &d) -> Results {
    return one(d.call("torch.sum", {{"input", withoutNaN(d, d.tensor("input"))},
                                    {"dim", d.arg("dim")},
                                    {"keepdim", d.arg("keepdim")},
                                    {"dtype", d.arg("dtype")}}));
  };
  // torch's own: nansum(x, ...).div((~isnan(x)).sum(...)).
  t["torch.nanmean"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    Value sum = d.call("torch.sum", {{"input", withoutNaN(d, x)},
                                     {"dim", d.arg("dim")},
                                     {"keepdim", d.arg("keepdim")},
                                     {"dtype", d.arg("dtype")}});
    Value count = d.call(
        "torch.sum",
        {{"input", d.unary("torch.logical_not", d.unary("torch.isnan", x))},
         {"dim", d.arg("dim")},
         {"keepdim", d.arg("keepdim")}});
    return one(d.binary("torch.div", sum, count));
  };
  // prims.prod: torch.prod over each dim, sorted largest first.
  t["torch.ops.prims.prod.default"] = [](Decomposer &d) -> Results {
    std::optional<SmallVector<int64_t>> dims = d.getInts("dims");
    if (!dims)
      return d.decline("dims must be constants");
    SmallVector<int64_t> order(*dims);
    llvm::sort(order, std::greater<int64_t>());
    Value x = d.tensor("inp");
    if (order.empty())
      return one(d.unary("torch.clone", x));
    for (int64_t dim : order)
      x = d.call("torch.prod", {{"input", x}, {"dim", d.i64(dim)}, {"keepdim", d.boolean(false)},
                                {"dtype", d.arg("output_dtype")}});
    return one(x);
  };
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
  // aminmax: amin and amax over the same dims (None: all of them).
  t["torch.aminmax"] = [](Decomposer &d) -> Results {
    RankedTensorType x = typeOf(d.tensor("input"));
    if (!x)
      return d.decline("the input is not a ranked tensor");
    Arg dim = d.isNone("dim") ? Arg(d.ints({})) : d.arg("dim");
    SmallVector<KwArg> args = {{"input", d.tensor("input")}, {"dim", dim},
                               {"keepdim", d.arg("keepdim")}};
    Value lo = d.call("torch.amin", args), hi = d.call("torch.amax", args);
    if (!lo || !hi)
      return failure();
    return SmallVector<Value>{lo, hi};
  };
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
  // renorm: each slice along dim scaled to norm maxnorm when above it.
  t["torch.renorm"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto type = cast<RankedTensorType>(x.getType());
    std::optional<double> p = d.getFloat("p"), maxnorm = d.getFloat("maxnorm");
    std::optional<int64_t> dim = d.getInt("dim");
    if (!p || !maxnorm || !dim || type.getRank() == 0)
      return d.decline("p, dim and maxnorm must be constants");
    int64_t keep = *dim < 0 ? *dim + type.getRank() : *dim;
    SmallVector<int64_t> dims;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (i != keep)
        dims.push_back(i);
    Type element = type.getElementType();
    // (A 1-D input: each slice is one element, its norm its magnitude.)
    Value n = dims.empty() ? d.unary("torch.abs", x)
                           : vectorNorm(d, x, *p, d.ints(dims), d.boolean(true), element);
    Value factor = d.call("torch.where",
                          {{"condition", d.binary("torch.gt", n, d.f64(*maxnorm))},
                           {"input", d.call("torch.div", {{"input", d.f64(*maxnorm)},
                                                          {"other", d.binary("torch.add", n, d.f64(1e-7))}})},
                           {"other", d.f64(1.0)}});
    return one(d.binary("torch.mul", x, factor));
  };
  t["torch.linalg.vector_norm"] = decomposeVectorNorm;
  t["torch.norm"] = decomposeNorm;
  t["torch.linalg.norm"] = decomposeNorm;
  t["torch.linalg.matrix_norm"] = decomposeMatrixNorm;
  // sum(x1 x2) / sqrt(max(sum(x1^2) sum(x2^2), eps^2)) along dim.
  t["torch.nn.functional.cosine_similarity"] = [](Decomposer &d) -> Results {
    std::optional<double> eps = d.getFloat("eps");
    if (!eps)
      return d.decline("eps must be a constant");
    // Both in the (floating) result dtype first, as torch converts them:
    // uint8 products must not wrap.
    Type element = d.resultTensorType().getElementType();
    Value a = d.cast(d.tensor("x1"), element), b = d.cast(d.tensor("x2"), element);
    // (torch expands both to their common shape first: a broadcast dim
    // counts in every norm.)
    Value product = d.binary("torch.mul", a, b);
    if (!product)
      return failure();
    auto common = cast<RankedTensorType>(product.getType()).getShape();
    auto expand = [&](Value v) {
      if (cast<RankedTensorType>(v.getType()).getShape() == common)
        return v;
      return d.call("Tensor.expand", {{"input", v}, {"size", d.ints(common)}});
    };
    a = expand(a);
    b = expand(b);
    // torch 1.13: each side divided by its norm, the squared norm clamped
    // below at eps^2 (bit for bit: sum((x1 / n1) * (x2 / n2))).
    auto normalized = [&](Value v) {
      Value w = d.call("torch.sum", {{"input", d.binary("torch.mul", v, v)},
                                     {"dim", d.arg("dim")}, {"keepdim", d.boolean(true)}});
      w = d.call("torch.clamp", {{"input", w}, {"min", d.f64(*eps * *eps)}});
      return d.binary("torch.div", v, d.unary("torch.sqrt", w));
    };
    return one(d.call("torch.sum", {{"input", d.binary("torch.mul", normalized(a), normalized(b))},
                                    {"dim", d.arg("dim")}}));
  };
  // norm_p(x1 - x2 + eps) over the last dim.
  t["torch.nn.functional.pairwise_distance"] = [](Decomposer &d) -> Results {
    std::optional<double> p = d.getFloat("p"), eps = d.getFloat("eps");
    std::optional<bool> keepdim = d.getBool("keepdim");
    if (!p || !eps || !keepdim)
      return d.decline("p, eps and keepdim must be constants");
    Value diff = d.binary("torch.add", d.binary("torch.sub", d.arg("x1"), d.arg("x2")),
                          d.f64(*eps));
    if (!diff)
      return failure();
    int64_t rank = cast<RankedTensorType>(diff.getType()).getRank();
    Type element = d.resultTensorType().getElementType();
    return one(vectorNorm(d, diff, *p, d.i64(rank == 0 ? 0 : rank - 1),
                          d.boolean(*keepdim), element));
  };
  t["torch.nn.functional.softmin"] = [](Decomposer &d) -> Results {
    return one(d.call("torch.nn.functional.softmax",
                      {{"input", d.unary("torch.neg", d.tensor("input"))},
                       {"dim", d.arg("dim")},
                       {"dtype", d.arg("dtype")}}));
  };
}
