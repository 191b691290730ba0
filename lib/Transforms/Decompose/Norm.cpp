//===- Norm.cpp - decompositions of norms and normalizations --------------===//

#include "Decompose.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;


/// The p-norm of `x` over `dim` (an int, a list, or None: all dims):
/// inf/-inf: max/min |x|; 0: the count of non-zeros; 1: sum |x|; 2:
/// sqrt(sum x^2); else (sum |x|^p)^(1/p). `element` is the result's element
/// type (the count of non-zeros is converted to it).
static Value vectorNorm(Decomposer &d, Value x, double p, Arg dim, Attribute keepdim,
                        Type element) {
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
  if (!p)
    return d.decline("the order is not a constant number");
  Type element = d.resultTensorType().getElementType();
  return one(vectorNorm(d, withDType(d, d.tensor("input")), *p, d.arg("dim"),
                        d.boolean(d.getBool("keepdim").value_or(false)), element));
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
  std::optional<double> p = numericOrder(ord);
  if (!p)
    return d.decline("the nuclear norm is not decomposed");
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
  std::optional<double> p = numericOrder(ord);
  if (!p || (std::abs(*p) != 1 && !std::isinf(*p)))
    return d.decline("matrix norms other than fro, 1 and inf need an SVD");
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

void decompose::populateNormDecompositions(DecompositionTable &t) {
  // aten::native_layer_norm: (layer_norm, mean, 1 / sqrt(var + eps)) with
  // the statistics keeping the normalized dims as 1s.
  t["torch.ops.aten.native_layer_norm.default"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto shape = d.getInts("normalized_shape");
    std::optional<double> eps = d.getFloat("eps");
    auto type = cast<RankedTensorType>(x.getType());
    if (!shape || !eps || shape->size() > static_cast<size_t>(type.getRank()))
      return d.decline("normalized_shape and eps must be constants");
    SmallVector<int64_t> dims;
    for (int64_t i = type.getRank() - shape->size(); i < type.getRank(); ++i)
      dims.push_back(i);
    Value out = d.call("torch.nn.functional.layer_norm",
                       {{"input", x}, {"normalized_shape", d.ints(*shape)},
                        {"weight", d.arg("weight")}, {"bias", d.arg("bias")},
                        {"eps", d.f64(*eps)}});
    Type element = type.getElementType();
    Type compute = (element.isF16() || element.isBF16()) ? d.b.getF32Type() : element;
    Value xc = d.cast(x, compute);
    Value mean = d.call("torch.mean", {{"input", xc}, {"dim", d.ints(dims)}, {"keepdim", d.boolean(true)}});
    Value dev = d.binary("torch.sub", xc, mean);
    Value var = d.call("torch.mean", {{"input", d.binary("torch.mul", dev, dev)},
                                      {"dim", d.ints(dims)}, {"keepdim", d.boolean(true)}});
    Value rstd = d.unary("torch.rsqrt", d.binary("torch.add", var, d.f64(*eps)));
    SmallVector<Value> parts = {out, d.cast(mean, element), d.cast(rstd, element)};
    if (llvm::is_contained(parts, Value()))
      return failure();
    return parts;
  };
  // aten::native_batch_norm in eval mode: (batch_norm, empty, empty).
  t["torch.ops.aten.native_batch_norm.default"] = [](Decomposer &d) -> Results {
    if (d.getBool("training") != std::optional<bool>(false))
      return d.decline("training-mode batch norm is not decomposed");
    Value out = d.call("torch.nn.functional.batch_norm",
                       {{"input", d.arg("input")}, {"running_mean", d.arg("running_mean")},
                        {"running_var", d.arg("running_var")}, {"weight", d.arg("weight")},
                        {"bias", d.arg("bias")}, {"training", d.boolean(false)},
                        {"momentum", d.arg("momentum")}, {"eps", d.arg("eps")}});
    auto tuple = dyn_cast<TupleType>(d.resultType());
    if (!out || !tuple || tuple.size() != 3)
      return failure();
    SmallVector<Value> parts = {out};
    for (unsigned i = 1; i < 3; ++i) {
      auto t = dyn_cast<RankedTensorType>(tuple.getType(i));
      if (!t || !t.hasStaticShape() || t.getNumElements() != 0)
        return d.decline("the saved statistics are not empty");
      parts.push_back(d.constant(DenseElementsAttr::get(t, ArrayRef<Attribute>{}), t));
    }
    return parts;
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
  // input / max(norm_p(input, dim), eps).
  t["torch.nn.functional.normalize"] = [](Decomposer &d) -> Results {
    std::optional<double> p = d.getFloat("p"), eps = d.getFloat("eps");
    if (!p || !eps || !d.isNone("out"))
      return d.decline("p and eps must be constants and out None");
    Value x = d.tensor("input");
    Type element = cast<RankedTensorType>(x.getType()).getElementType();
    Value n = vectorNorm(d, x, *p, d.arg("dim"), d.boolean(true), element);
    Value denom = d.call("torch.clamp", {{"input", n}, {"min", d.f64(*eps)}});
    return one(d.binary("torch.div", x, denom));
  };
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
    auto sumDim = [&](Value v) {
      return d.call("torch.sum", {{"input", v}, {"dim", d.arg("dim")}});
    };
    Value w12 = sumDim(d.binary("torch.mul", a, b));
    Value w1 = sumDim(d.binary("torch.mul", a, a));
    Value w2 = sumDim(d.binary("torch.mul", b, b));
    Value n = d.unary("torch.sqrt",
                      d.call("torch.clamp", {{"input", d.binary("torch.mul", w1, w2)},
                                             {"min", d.f64(*eps * *eps)}}));
    return one(d.binary("torch.div", w12, n));
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
  // group_norm: a layer_norm over each group's elements, then the
  // per-channel affine.
  t["torch.nn.functional.group_norm"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto type = cast<RankedTensorType>(x.getType());
    std::optional<int64_t> groups = d.getInt("num_groups");
    if (!groups || !type.hasStaticShape() || type.getRank() < 2 || *groups <= 0)
      return d.decline("num_groups must be a constant and the shape static");
    int64_t n = type.getDimSize(0), c = type.getDimSize(1);
    int64_t per = type.getNumElements() / std::max<int64_t>(n * *groups, 1);
    Value g = d.call("torch.reshape", {{"input", x}, {"shape", d.ints({n, *groups, per})}});
    Value normed = d.call("torch.nn.functional.layer_norm",
                          {{"input", g}, {"normalized_shape", d.ints({per})}, {"eps", d.arg("eps")}});
    Value y = d.call("torch.reshape", {{"input", normed}, {"shape", d.ints(type.getShape())}});
    SmallVector<int64_t> channel(type.getRank(), 1);
    channel[1] = c;
    if (!d.isNone("weight"))
      y = d.binary("torch.mul", y,
                   d.call("torch.reshape", {{"input", d.arg("weight")}, {"shape", d.ints(channel)}}));
    if (!d.isNone("bias"))
      y = d.binary("torch.add", y,
                   d.call("torch.reshape", {{"input", d.arg("bias")}, {"shape", d.ints(channel)}}));
    return one(y);
  };
}
