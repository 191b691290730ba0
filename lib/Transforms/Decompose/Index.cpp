//===- Index.cpp - decompositions of indexing entries ---------------------===//
//
// index_select and embedding as `aten.index` with one index tensor;
// take_along_dim as `gather` after broadcasting; F.interpolate as weighted
// index_selects.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

using Results = FailureOr<SmallVector<Value>>;

static Results one(Value v) {
  if (!v)
    return failure();
  return SmallVector<Value>{v};
}

static RankedTensorType typeOf(Value v) {
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

/// `aten.index(x, [None] * dim + [index])`.
static Value indexDim(Decomposer &d, Value x, int64_t dim, Value index) {
  SmallVector<Attribute> items(dim, d.none());
  items.push_back(OperandAttr::get(d.ctx, 0));
  Arg indices(ArrayAttr::get(d.ctx, items));
  indices.values.push_back(index);
  return d.call("torch.ops.aten.index.Tensor", {{"input", x}, {"indices", indices}});
}

/// A 1-D `index` along `dim` spread over `shape` (index[k] at every
/// position whose coordinate along dim is k), for the scatter entries.
static Value spreadIndex(Decomposer &d, Value index, int64_t dim, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> ones(shape.size(), 1);
  ones[dim] = shape[dim];
  Value r = d.call("torch.reshape", {{"input", index}, {"shape", d.ints(ones)}});
  return d.call("Tensor.expand", {{"input", r}, {"size", d.ints(shape)}});
}

/// index_add, index_copy: scatter_add / scatter with the index spread over
/// the source.
static Results decomposeIndexAddCopy(Decomposer &d) {
  bool add = d.target() == "torch.index_add";
  Value x = d.tensor("input"), index = d.tensor("index"), source = d.tensor("source");
  auto dim = d.getInt("dim");
  RankedTensorType xt = typeOf(x), st = typeOf(source), it = typeOf(index);
  if (!dim || !xt || !st || !it || !st.hasStaticShape() || it.getRank() > 1 || xt.getRank() == 0 ||
      st.getRank() != xt.getRank())
    return d.decline("needs a constant dim, a 1-D index and a source of the input's rank");
  int64_t n = *dim < 0 ? *dim + xt.getRank() : *dim;
  if (it.getRank() == 0)
    index = d.call("torch.reshape", {{"input", index}, {"shape", d.ints({1})}});
  Value spread = spreadIndex(d, index, n, st.getShape());
  if (add) {
    std::optional<double> alpha = d.getFloat("alpha");
    if (!alpha)
      return d.decline("alpha must be a constant");
    if (*alpha != 1)
      source = d.cast(d.binary("torch.mul", source, d.arg("alpha")), xt.getElementType());
    return one(d.call("torch.scatter_add", {{"input", x}, {"dim", d.i64(n)},
                                            {"index", spread}, {"src", source}}));
  }
  return one(d.call("torch.scatter", {{"input", x}, {"dim", d.i64(n)},
                                      {"index", spread}, {"src", source}}));
}

/// index_fill: the positions the index names along dim, as a mask
/// scattered from the index, filled.
static Results decomposeIndexFill(Decomposer &d) {
  Value x = d.tensor("input"), index = d.tensor("index");
  auto dim = d.getInt("dim");
  RankedTensorType xt = typeOf(x), it = typeOf(index);
  if (!dim || !xt || !it || !xt.hasStaticShape() || it.getRank() > 1)
    return d.decline("needs a constant dim and a 1-D index");
  int64_t rank = std::max<int64_t>(xt.getRank(), 1);
  int64_t n = *dim < 0 ? *dim + rank : *dim;
  int64_t size = xt.getRank() == 0 ? 1 : xt.getDimSize(n);
  if (it.getRank() == 0)
    index = d.call("torch.reshape", {{"input", index}, {"shape", d.ints({1})}});
  auto maskType = RankedTensorType::get({size}, IntegerType::get(d.ctx, 1));
  Value none = d.tensorConstant(maskType, [](ArrayRef<int64_t>) { return 0.0; });
  Value mask = d.call("torch.scatter", {{"input", none}, {"dim", d.i64(0)},
                                        {"index", index}, {"src", d.boolean(true)}});
  SmallVector<int64_t> shape(xt.getRank(), 1);
  if (xt.getRank() > 0)
    shape[n] = size;
  mask = d.call("torch.reshape", {{"input", mask}, {"shape", d.ints(shape)}});
  return one(d.call("Tensor.masked_fill", {{"input", x}, {"mask", mask}, {"value", d.arg("value")}}));
}

/// index_put with one index tensor on the leading dim: index_add when
/// accumulating, else index_copy, with the values broadcast to the rows.
static Results decomposeIndexPut(Decomposer &d) {
  Value x = d.tensor("input"), values = d.tensor("values");
  Arg indices = d.arg("indices");
  auto accumulate = d.getBool("accumulate");
  RankedTensorType xt = typeOf(x);
  auto list = dyn_cast_or_null<ArrayAttr>(indices.attr);
  if (!list)
    if (auto tuple = dyn_cast_or_null<TupleAttr>(indices.attr))
      list = tuple.getElements();
  if (!accumulate || !xt || !xt.hasStaticShape() || xt.getRank() == 0 || !list ||
      list.size() != 1 || indices.values.size() != 1)
    return d.decline("only one index tensor on the leading dim is decomposed");
  Value index = indices.values[0];
  RankedTensorType it = typeOf(index);
  if (!it || it.getRank() != 1 || !isa<IntegerType>(it.getElementType()) ||
      it.getElementType().isInteger(1))
    return d.decline("only a 1-D integer index is decomposed");
  SmallVector<int64_t> rows(xt.getShape());
  rows[0] = it.getDimSize(0);
  Value v = d.cast(values, xt.getElementType());
  if (typeOf(v).getShape() != ArrayRef<int64_t>(rows))
    v = d.call("Tensor.expand", {{"input", v}, {"size", d.ints(rows)}});
  Value spread = spreadIndex(d, index, 0, rows);
  return one(d.call(*accumulate ? "torch.scatter_add" : "torch.scatter",
                    {{"input", x}, {"dim", d.i64(0)}, {"index", spread}, {"src", v}}));
}

static Results decomposeInterpolate(Decomposer &d);

void decompose::populateIndexDecompositions(DecompositionTable &t) {
  t["torch.nn.functional.interpolate"] = decomposeInterpolate;
  t["torch.index_add"] = decomposeIndexAddCopy;
  t["torch.index_copy"] = decomposeIndexAddCopy;
  t["torch.index_fill"] = decomposeIndexFill;
  t["torch.index_put"] = decomposeIndexPut;
  t["torch.ops.aten._index_put_impl.default"] = decomposeIndexPut;
  t["torch.index_select"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input"), index = d.tensor("index");
    auto dim = d.getInt("dim");
    RankedTensorType xt = typeOf(x), it = typeOf(index);
    if (!dim || !xt || !it || !it.hasStaticShape() || xt.getRank() == 0)
      return d.decline("needs a constant dim and static shapes");
    int64_t n = *dim < 0 ? *dim + xt.getRank() : *dim;
    // (A 0-d index selects one element and keeps the dim.)
    if (it.getRank() == 0)
      index = d.call("torch.reshape", {{"input", index}, {"shape", d.ints({1})}});
    return one(indexDim(d, x, n, index));
  };
  t["torch.nn.functional.embedding"] = [](Decomposer &d) -> Results {
    if (!d.isNone("max_norm"))
      return d.decline("max_norm renormalizes the weight in place");
    return one(indexDim(d, d.tensor("weight"), 0, d.tensor("input")));
  };
  t["torch.take_along_dim"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input"), index = d.tensor("indices");
    RankedTensorType xt = typeOf(x), it = typeOf(index);
    if (!xt || !it || !xt.hasStaticShape() || !it.hasStaticShape())
      return d.decline("needs static shapes");
    if (d.isNone("dim")) {
      Value fx = d.call("torch.reshape", {{"input", x}, {"shape", d.ints({xt.getNumElements()})}});
      Value fi = d.call("torch.reshape", {{"input", index}, {"shape", d.ints({it.getNumElements()})}});
      return one(d.call("torch.gather", {{"input", fx}, {"dim", d.i64(0)}, {"index", fi}}));
    }
    auto dim = d.getInt("dim");
    if (!dim || xt.getRank() != it.getRank())
      return d.decline("needs a constant dim and operands of one rank");
    int64_t rank = xt.getRank(), n = *dim < 0 ? *dim + rank : *dim;
    SmallVector<int64_t> xs(xt.getShape()), is(it.getShape());
    for (int64_t i = 0; i < rank; ++i) {
      if (i == n)
        continue;
      int64_t m = std::max(xs[i], is[i]);
      xs[i] = is[i] = m;
    }
    Value ex = xs == xt.getShape() ? x : d.call("Tensor.expand", {{"input", x}, {"size", d.ints(xs)}});
    Value ei = is == it.getShape() ? index
                                   : d.call("Tensor.expand", {{"input", index}, {"size", d.ints(is)}});
    return one(d.call("torch.gather", {{"input", ex}, {"dim", d.i64(n)}, {"index", ei}}));
  };
}

//===----------------------------------------------------------------------===//
// F.interpolate
//===----------------------------------------------------------------------===//

/// F.interpolate as separable passes over the spatial dims, each a weighted
/// sum of index_selects at the positions `resampleTaps` gives (the
/// interpreter's kernel reads the same taps). float16 and bfloat16 compute
/// in float32 and round once.
static Results decomposeInterpolate(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType xt = typeOf(x), rt = d.resultTensorType();
  auto mode = d.getStr("mode");
  if (!xt || !rt || !xt.hasStaticShape() || !rt.hasStaticShape() || !mode)
    return d.decline("needs static shapes and a constant mode");
  int64_t rank = xt.getRank(), spatial = rank - 2;
  if (spatial < 1 || spatial > 3)
    return d.decline("needs a 3-D, 4-D or 5-D input");
  if (d.getBool("antialias").value_or(false))
    return d.decline("antialias is not decomposed");
  ResampleMode kind;
  if (*mode == "nearest")
    kind = ResampleMode::Nearest;
  else if (*mode == "nearest-exact")
    kind = ResampleMode::NearestExact;
  else if (*mode == "linear" || *mode == "bilinear" || *mode == "trilinear")
    kind = ResampleMode::Linear;
  else if (*mode == "bicubic")
    kind = ResampleMode::Cubic;
  else if (*mode == "area")
    kind = ResampleMode::Area;
  else
    return d.decline("unknown mode");
  bool alignCorners = d.getBool("align_corners").value_or(false);
  bool recompute = d.getBool("recompute_scale_factor").value_or(false);
  SmallVector<double> factors;
  if (!d.isNone("scale_factor")) {
    Attribute sf = d.value("scale_factor");
    auto number = [](Attribute a) -> std::optional<double> {
      if (auto f = dyn_cast_or_null<FloatAttr>(a))
        return f.getValueAsDouble();
      if (auto i = dyn_cast_or_null<IntegerAttr>(a); i && !isa<BoolAttr>(a))
        return static_cast<double>(i.getInt());
      return std::nullopt;
    };
    if (auto f = number(sf)) {
      factors.assign(spatial, *f);
    } else {
      SmallVector<Attribute> items;
      if (auto l = dyn_cast_or_null<ArrayAttr>(sf))
        llvm::append_range(items, l.getValue());
      else if (auto tp = dyn_cast_or_null<TupleAttr>(sf))
        llvm::append_range(items, tp.getElements().getValue());
      for (Attribute a : items)
        if (auto f = number(a))
          factors.push_back(*f);
    }
    if (static_cast<int64_t>(factors.size()) != spatial)
      return d.decline("scale_factor is not a constant");
  }
  Type element = rt.getElementType();
  bool narrow = element.isF16() || element.isBF16();
  Type compute = narrow ? d.b.getF32Type() : element;
  bool weighted = kind != ResampleMode::Nearest && kind != ResampleMode::NearestExact;
  if (weighted && !isa<FloatType>(compute))
    return d.decline("interpolating modes need a floating-point input");
  Value y = weighted ? d.cast(x, compute) : x;
  for (int64_t s = 0; s < spatial; ++s) {
    int64_t axis = s + 2, size = xt.getDimSize(axis), out = rt.getDimSize(axis);
    double scale = (factors.empty() || recompute) ? (out ? double(size) / out : 0.0)
                                                  : 1.0 / factors[s];
    if (size == out && !weighted && scale == 1.0)
      continue;
    SmallVector<SmallVector<std::pair<int64_t, double>, 4>> taps;
    size_t k = 0;
    for (int64_t j = 0; j < out; ++j) {
      taps.push_back(resampleTaps(kind, size, out, j, scale, alignCorners));
      k = std::max(k, taps.back().size());
    }
    auto indexType = RankedTensorType::get({out}, d.b.getI64Type());
    SmallVector<int64_t> weightShape(rank - axis, 1);
    weightShape[0] = out;
    auto weightType = RankedTensorType::get(weightShape, compute);
    Value acc;
    for (size_t t = 0; t < k; ++t) {
      auto tap = [&](int64_t j) {
        return t < taps[j].size() ? taps[j][t] : std::pair<int64_t, double>{0, 0.0};
      };
      Value index = d.tensorConstant(indexType, [&](ArrayRef<int64_t> i) {
        return static_cast<double>(tap(i[0]).first);
      });
      Value picked = indexDim(d, y, axis, index);
      if (weighted) {
        Value w = d.tensorConstant(weightType, [&](ArrayRef<int64_t> i) {
          return tap(i[0]).second;
        });
        picked = d.binary("torch.mul", picked, w);
      }
      acc = acc ? d.binary("torch.add", acc, picked) : picked;
    }
    y = acc;
  }
  if (!y || y == x)
    y = d.unary("torch.clone", x);
  return one(d.cast(y, element));
}
