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
