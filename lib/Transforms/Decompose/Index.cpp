//===- Index.cpp - decompositions of indexing entries ---------------------===//
//
// index_select and embedding as `aten.index` with one index tensor;
// take_along_dim as `gather` after broadcasting; index_put and `x[index] =
// v` with index tensors as scatters; F.interpolate as weighted
// index_selects.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;



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
  // index_fill takes a negative index (from the end); scatter does not.
  index = d.binary("torch.remainder", index, d.i64(size));
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

/// The index tensors of an `indices` argument that is a list or tuple of
/// tensors only (no None), or nothing.
static std::optional<SmallVector<Value>> indexTensors(const Arg &indices) {
  ArrayAttr list = dyn_cast_or_null<ArrayAttr>(indices.attr);
  if (!list)
    if (auto tuple = dyn_cast_or_null<TupleAttr>(indices.attr))
      list = tuple.getElements();
  if (!list || list.empty() || list.size() != indices.values.size() ||
      !llvm::all_of(list, [](Attribute a) { return isa<OperandAttr>(a); }))
    return std::nullopt;
  SmallVector<Value> tensors;
  for (Attribute a : list)
    tensors.push_back(indices.values[cast<OperandAttr>(a).getIndex()]);
  return tensors;
}

/// index_put with k integer index tensors on the leading dims: the indices
/// broadcast together, wrapped (a negative index counts from the end, as in
/// torch) and flattened into one row index of x viewed as
/// [size_0 * ... * size_{k-1}, rest...]; then scatter (or scatter_add when
/// accumulating) of the values, broadcast to [indices..., rest...], along
/// that dim.
static Results decomposeIndexPut(Decomposer &d) {
  Value x = d.tensor("input"), values = d.tensor("values");
  auto accumulate = d.getBool("accumulate");
  RankedTensorType xt = typeOf(x), vt = typeOf(values);
  std::optional<SmallVector<Value>> index = indexTensors(d.arg("indices"));
  if (!accumulate || !xt || !xt.hasStaticShape() || !vt || !index ||
      index->size() > static_cast<size_t>(xt.getRank()))
    return d.decline("only index tensors on the leading dims (no None) are "
                     "decomposed");
  size_t k = index->size();
  SmallVector<int64_t> broadcast;
  for (Value i : *index) {
    RankedTensorType it = typeOf(i);
    if (!it || !it.hasStaticShape() || !isa<IntegerType>(it.getElementType()) ||
        it.getElementType().isInteger(1))
      return d.decline("only static integer index tensors are decomposed (a "
                       "bool mask selects a number of elements known at run "
                       "time only)");
    ArrayRef<int64_t> shape = it.getShape();
    if (shape.size() > broadcast.size())
      broadcast.insert(broadcast.begin(), shape.size() - broadcast.size(), 1);
    for (size_t j = 0; j < shape.size(); ++j) {
      int64_t &b = broadcast[broadcast.size() - shape.size() + j];
      if (b == 1)
        b = shape[j];
      else if (shape[j] != 1 && shape[j] != b)
        return d.decline("the index tensors do not broadcast together");
    }
  }
  int64_t count = 1, rows = 1;
  for (int64_t s : broadcast)
    count *= s;
  for (size_t j = 0; j < k; ++j)
    rows *= xt.getDimSize(j);
  ArrayRef<int64_t> rest = xt.getShape().drop_front(k);
  // One row index: ((i_0 mod s_0) * s_1 + (i_1 mod s_1)) * s_2 + ...
  Value row;
  for (size_t j = 0; j < k; ++j) {
    Value i = d.cast((*index)[j], IntegerType::get(d.ctx, 64));
    if (typeOf(i) && typeOf(i).getShape() != ArrayRef<int64_t>(broadcast))
      i = d.call("Tensor.expand", {{"input", i}, {"size", d.ints(broadcast)}});
    i = d.binary("torch.remainder", i, d.i64(xt.getDimSize(j)));
    row = j == 0 ? i
                 : d.binary("torch.add",
                            d.binary("torch.mul", row, d.i64(xt.getDimSize(j))), i);
  }
  row = d.call("torch.reshape", {{"input", row}, {"shape", d.ints({count})}});
  SmallVector<int64_t> flatShape = {rows}, srcShape = {count}, wide(broadcast);
  llvm::append_range(flatShape, rest);
  llvm::append_range(srcShape, rest);
  llvm::append_range(wide, rest);
  // The values, broadcast to [indices..., rest...] (leading ones dropped).
  Value v = d.cast(values, xt.getElementType());
  ArrayRef<int64_t> vs = vt.getShape();
  if (vs.size() > wide.size()) {
    if (!llvm::all_of(vs.take_front(vs.size() - wide.size()),
                      [](int64_t s) { return s == 1; }))
      return d.decline("the values do not broadcast to the indexed shape");
    v = d.call("torch.reshape",
               {{"input", v}, {"shape", d.ints(vs.take_back(wide.size()))}});
  }
  if (typeOf(v) && typeOf(v).getShape() != ArrayRef<int64_t>(wide))
    v = d.call("Tensor.expand", {{"input", v}, {"size", d.ints(wide)}});
  v = d.call("torch.reshape", {{"input", v}, {"shape", d.ints(srcShape)}});
  Value flat = d.call("torch.reshape", {{"input", x}, {"shape", d.ints(flatShape)}});
  Value spread = spreadIndex(d, row, 0, srcShape);
  Value out = d.call(*accumulate ? "torch.scatter_add" : "torch.scatter",
                     {{"input", flat}, {"dim", d.i64(0)}, {"index", spread}, {"src", v}});
  return one(d.call("torch.reshape", {{"input", out}, {"shape", d.ints(xt.getShape())}}));
}

/// `x[index] = value` where the index holds tensors (a basic index is
/// lowered directly): integer index tensors are index_put; a bool mask over
/// x's leading dims with one value is masked_fill. Values for the elements
/// a mask selects would need the mask's count, known at run time only.
static Results decomposeSetitem(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType xt = typeOf(x);
  Arg index = d.arg("index");
  if (index.values.empty())
    return d.decline("a basic index is lowered directly");
  Arg list(Attribute{});
  if (auto tuple = dyn_cast_or_null<TupleAttr>(index.attr))
    list.attr = tuple.getElements();
  else
    list.attr = ArrayAttr::get(d.ctx, {index.attr});
  list.values = index.values;
  std::optional<SmallVector<Value>> tensors = indexTensors(list);
  if (!xt || !tensors)
    return d.decline("only an index of tensors alone is decomposed");
  Type element = xt.getElementType();
  Value value = d.tensor("value");
  RankedTensorType maskType = typeOf((*tensors)[0]);
  if (tensors->size() == 1 && maskType && maskType.getElementType().isInteger(1)) {
    ArrayRef<int64_t> ms = maskType.getShape();
    if (!maskType.hasStaticShape() || ms.size() > static_cast<size_t>(xt.getRank()) ||
        ms != xt.getShape().take_front(ms.size()))
      return d.decline("the mask does not cover x's leading dims");
    SmallVector<int64_t> shape(ms);
    shape.append(xt.getRank() - ms.size(), 1);
    Value mask = d.call("torch.reshape", {{"input", (*tensors)[0]}, {"shape", d.ints(shape)}});
    Arg fill = d.arg("value");
    if (value) {
      RankedTensorType vt = typeOf(value);
      if (!vt || !vt.hasStaticShape() || vt.getNumElements() != 1)
        return d.decline("values for the elements a mask selects need the "
                         "mask's count, known at run time only");
      fill = Arg(d.call("torch.reshape",
                        {{"input", d.cast(value, element)}, {"shape", d.ints({})}}));
    }
    return one(d.call("Tensor.masked_fill",
                      {{"input", x}, {"mask", mask}, {"value", fill}}));
  }
  if (!value) {
    std::optional<double> number = d.getFloat("value");
    if (!number)
      return d.decline("the value is not a constant number or a tensor");
    value = d.tensorConstant(RankedTensorType::get({}, element),
                             [&](ArrayRef<int64_t>) { return *number; });
  }
  return one(d.call("torch.index_put", {{"input", x},
                                        {"indices", Arg::list(d.ctx, *tensors)},
                                        {"values", value},
                                        {"accumulate", d.boolean(false)}}));
}

static Results decomposeInterpolate(Decomposer &d);
static Results decomposeUnfold(Decomposer &d);
static Results decomposeFold(Decomposer &d);
static Results decomposeAsStrided(Decomposer &d);
static Results decomposeEmbeddingBag(Decomposer &d);
static Results decomposeGridSample(Decomposer &d);
static Results decomposeGridSampler(Decomposer &d);

void decompose::populateIndexDecompositions(DecompositionTable &t) {
  t["torch.nn.functional.grid_sample"] = decomposeGridSample;
  t["torch.ops.aten.grid_sampler.default"] = decomposeGridSampler;
  t["torch.nn.functional.unfold"] = decomposeUnfold;
  t["torch.nn.functional.fold"] = decomposeFold;
  t["torch.as_strided"] = decomposeAsStrided;
  t["torch.nn.functional.embedding_bag"] = decomposeEmbeddingBag;
  t["torch.nn.functional.interpolate"] = decomposeInterpolate;
  t["torch.index_add"] = decomposeIndexAddCopy;
  t["torch.index_copy"] = decomposeIndexAddCopy;
  t["torch.index_fill"] = decomposeIndexFill;
  t["torch.index_put"] = decomposeIndexPut;
  t["operator.setitem"] = decomposeSetitem;
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

//===----------------------------------------------------------------------===//
// im2col and col2im, as_strided, embedding_bag
//===----------------------------------------------------------------------===//

namespace {
/// F.unfold's and F.fold's window: per spatial dim (2 of them) the kernel,
/// dilation, padding and stride, and the number of blocks.
struct Im2Col {
  int64_t k[2], dil[2], pad[2], st[2], blocks[2];
};
} // namespace

static std::optional<Im2Col> im2colParams(Decomposer &d, ArrayRef<int64_t> spatial) {
  auto k = d.getInts("kernel_size", 2), dil = d.getInts("dilation", 2),
       pad = d.getInts("padding", 2), st = d.getInts("stride", 2);
  if (!k || !dil || !pad || !st || k->size() != 2 || dil->size() != 2 || pad->size() != 2 ||
      st->size() != 2)
    return std::nullopt;
  Im2Col p;
  for (int i = 0; i < 2; ++i) {
    p.k[i] = (*k)[i];
    p.dil[i] = (*dil)[i];
    p.pad[i] = (*pad)[i];
    p.st[i] = (*st)[i];
    if (p.k[i] <= 0 || p.dil[i] <= 0 || p.st[i] <= 0 || p.pad[i] < 0)
      return std::nullopt;
    p.blocks[i] = slidingBlocks(spatial[i], p.k[i], p.dil[i], p.pad[i], p.st[i]);
  }
  return p;
}

/// F.unfold: the zero-padded input gathered at [kernel offsets, blocks]
/// index tensors over its two spatial dims: [N, C, kh kw, L] -> [N, C kh kw, L].
static Results decomposeUnfold(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType xt = typeOf(x), rt = d.resultTensorType();
  if (!xt || !xt.hasStaticShape() || !rt || !rt.hasStaticShape() ||
      (xt.getRank() != 3 && xt.getRank() != 4))
    return d.decline("needs a static 3-D or 4-D input");
  int64_t r = xt.getRank();
  std::optional<Im2Col> p = im2colParams(d, xt.getShape().take_back(2));
  if (!p)
    return d.decline("the window arguments must be constants");
  if (p->pad[0] || p->pad[1])
    x = d.call("torch.nn.functional.pad",
               {{"input", x}, {"pad", d.ints({p->pad[1], p->pad[1], p->pad[0], p->pad[0]})}});
  int64_t kk = p->k[0] * p->k[1], blocks = p->blocks[0] * p->blocks[1];
  auto indexType = RankedTensorType::get({kk, blocks}, d.b.getI64Type());
  auto rows = d.tensorConstant(indexType, [&](ArrayRef<int64_t> i) {
    return static_cast<double>((i[1] / p->blocks[1]) * p->st[0] + (i[0] / p->k[1]) * p->dil[0]);
  });
  auto cols = d.tensorConstant(indexType, [&](ArrayRef<int64_t> i) {
    return static_cast<double>((i[1] % p->blocks[1]) * p->st[1] + (i[0] % p->k[1]) * p->dil[1]);
  });
  SmallVector<Attribute> items(r - 2, d.none());
  items.push_back(OperandAttr::get(d.ctx, 0));
  items.push_back(OperandAttr::get(d.ctx, 1));
  Arg indices(ArrayAttr::get(d.ctx, items));
  indices.values = {rows, cols};
  Value g = d.call("torch.ops.aten.index.Tensor", {{"input", x}, {"indices", indices}});
  return one(d.call("torch.reshape", {{"input", g}, {"shape", d.ints(rt.getShape())}}));
}

/// F.fold: every column element added at its padded output position (one
/// scatter_add over the flattened plane), then the padding cropped.
static Results decomposeFold(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType xt = typeOf(x), rt = d.resultTensorType();
  auto outSize = d.getInts("output_size", 2);
  if (!xt || !xt.hasStaticShape() || !rt || !rt.hasStaticShape() || !outSize ||
      outSize->size() != 2 || (xt.getRank() != 2 && xt.getRank() != 3))
    return d.decline("needs a static 2-D or 3-D input and a constant output_size");
  std::optional<Im2Col> p = im2colParams(d, *outSize);
  if (!p)
    return d.decline("the window arguments must be constants");
  bool batched = xt.getRank() == 3;
  int64_t n = batched ? xt.getDimSize(0) : 1;
  int64_t kk = p->k[0] * p->k[1], blocks = p->blocks[0] * p->blocks[1];
  int64_t c = xt.getDimSize(batched ? 1 : 0) / std::max<int64_t>(kk, 1);
  if (xt.getShape().back() != blocks)
    return d.decline("the input's block count does not match");
  int64_t hp = (*outSize)[0] + 2 * p->pad[0], wp = (*outSize)[1] + 2 * p->pad[1];
  Value cols = d.call("torch.reshape", {{"input", x}, {"shape", d.ints({n, c, kk * blocks})}});
  auto indexType = RankedTensorType::get({kk * blocks}, d.b.getI64Type());
  Value index = d.tensorConstant(indexType, [&](ArrayRef<int64_t> i) {
    int64_t k = i[0] / blocks, b = i[0] % blocks;
    int64_t row = (b / p->blocks[1]) * p->st[0] + (k / p->k[1]) * p->dil[0];
    int64_t col = (b % p->blocks[1]) * p->st[1] + (k % p->k[1]) * p->dil[1];
    return static_cast<double>(row * wp + col);
  });
  Value spread = d.call("Tensor.expand", {{"input", d.call("torch.reshape", {{"input", index},
                                                                            {"shape", d.ints({1, 1, kk * blocks})}})},
                                          {"size", d.ints({n, c, kk * blocks})}});
  auto planeType = RankedTensorType::get({n, c, hp * wp}, xt.getElementType());
  Value zeros = d.tensorConstant(planeType, [](ArrayRef<int64_t>) { return 0.0; });
  Value sum = d.call("torch.scatter_add", {{"input", zeros}, {"dim", d.i64(2)},
                                           {"index", spread}, {"src", cols}});
  Value plane = d.call("torch.reshape", {{"input", sum}, {"shape", d.ints({n, c, hp, wp})}});
  SmallVector<Attribute> parts = {
      SliceAttr::get(d.ctx, d.none(), d.none(), d.none()),
      SliceAttr::get(d.ctx, d.none(), d.none(), d.none()),
      SliceAttr::get(d.ctx, d.i64(p->pad[0]), d.i64(p->pad[0] + (*outSize)[0]), d.i64(1)),
      SliceAttr::get(d.ctx, d.i64(p->pad[1]), d.i64(p->pad[1] + (*outSize)[1]), d.i64(1))};
  Value cropped = d.call("operator.getitem",
                         {{"input", plane}, {"index", TupleAttr::get(d.ctx, ArrayAttr::get(d.ctx, parts))}});
  return one(d.call("torch.reshape", {{"input", cropped}, {"shape", d.ints(rt.getShape())}}));
}

/// as_strided over the input's elements in row-major order (the
/// interpreter's reading: the storage of a contiguous tensor): one gather
/// from the flattened input.
static Results decomposeAsStrided(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType xt = typeOf(x);
  auto size = d.getInts("size"), stride = d.getInts("stride");
  std::optional<int64_t> offset = 0;
  if (!d.isNone("storage_offset"))
    offset = d.getInt("storage_offset");
  if (!xt || !xt.hasStaticShape() || !size || !stride || !offset || size->size() != stride->size())
    return d.decline("needs a static input and constant size, stride and offset");
  int64_t last = *offset;
  for (auto [n, s] : llvm::zip(*size, *stride)) {
    if (n < 0 || s < 0)
      return d.decline("negative sizes or strides");
    last += (n - 1) * s;
  }
  if (last >= xt.getNumElements() && llvm::all_of(*size, [](int64_t n) { return n > 0; }))
    return d.decline("the view reaches past the storage");
  Value flat = d.call("torch.reshape", {{"input", x}, {"shape", d.ints({xt.getNumElements()})}});
  auto indexType = RankedTensorType::get(*size, d.b.getI64Type());
  Value index = d.tensorConstant(indexType, [&](ArrayRef<int64_t> i) {
    int64_t at = *offset;
    for (auto [k, s] : llvm::zip(i, *stride))
      at += k * s;
    return static_cast<double>(at);
  });
  if (size->empty()) {
    Value one1 = d.call("torch.reshape", {{"input", index}, {"shape", d.ints({1})}});
    Value g = indexDim(d, flat, 0, one1);
    return one(d.call("torch.reshape", {{"input", g}, {"shape", d.ints({})}}));
  }
  return one(indexDim(d, flat, 0, index));
}

/// embedding_bag: the rows the indices name, reduced per bag (sum, mean or
/// max): over dim 1 for a 2-D input, else through a scatter_reduce by bag
/// number (from the offsets); empty bags are zeros.
static Results decomposeEmbeddingBag(Decomposer &d) {
  Value input = d.tensor("input"), weight = d.tensor("weight");
  RankedTensorType it = typeOf(input), wt = typeOf(weight), rt;
  auto mode = d.getStr("mode");
  auto includeLast = d.getBool("include_last_offset");
  if (auto tuple = dyn_cast<TupleType>(d.resultType()))
    rt = dyn_cast<RankedTensorType>(tuple.getType(0));
  else
    rt = d.resultTensorType();
  if (!it || !wt || !it.hasStaticShape() || !wt.hasStaticShape() || !mode || !includeLast ||
      !d.isNone("max_norm") || !rt || !rt.hasStaticShape())
    return d.decline("needs static shapes, constant mode and no max_norm");
  if (isa<TupleType>(d.resultType()))
    return d.decline("the (output, offsets, ...) tuple form is not decomposed");
  std::optional<int64_t> padding;
  if (!d.isNone("padding_idx")) {
    padding = d.getInt("padding_idx");
    if (!padding)
      return d.decline("padding_idx must be a constant");
    if (*padding < 0)
      *padding += wt.getDimSize(0);
  }
  Value psw = d.tensor("per_sample_weights");
  Type element = wt.getElementType();
  Value rows = indexDim(d, weight, 0, input);
  Value keep; // where an index is not the padding index
  if (padding)
    keep = d.binary("torch.ne", input, d.i64(*padding));
  if (psw)
    rows = d.binary("torch.mul", rows, d.call("torch.unsqueeze", {{"input", psw}, {"dim", d.i64(-1)}}));
  if (keep)
    rows = d.call("Tensor.masked_fill",
                  {{"input", rows},
                   {"mask", d.call("torch.unsqueeze", {{"input", d.unary("torch.logical_not", keep)},
                                                       {"dim", d.i64(-1)}})},
                   {"value", d.f64(*mode == "max" ? -INFINITY : 0.0)}});
  if (it.getRank() == 2) {
    Value count = keep ? d.call("torch.sum", {{"input", keep}, {"dim", d.ints({1})}, {"keepdim", d.boolean(true)}})
                       : Value();
    if (*mode == "sum")
      return one(d.call("torch.sum", {{"input", rows}, {"dim", d.ints({1})}}));
    if (*mode == "mean") {
      Value s = d.call("torch.sum", {{"input", rows}, {"dim", d.ints({1})}});
      if (!count)
        return one(d.binary("torch.div", s, d.i64(it.getDimSize(1))));
      Value safe = d.call("torch.clamp", {{"input", count}, {"min", d.i64(1)}});
      return one(d.cast(d.binary("torch.div", s, safe), element));
    }
    if (*mode == "max") {
      Value m = d.call("torch.amax", {{"input", rows}, {"dim", d.ints({1})}});
      if (count)
        m = d.call("Tensor.masked_fill", {{"input", m}, {"mask", d.binary("torch.eq", count, d.i64(0))},
                                          {"value", d.f64(0)}});
      return one(m);
    }
    return d.decline("unknown mode");
  }
  Value offsets = d.tensor("offsets");
  if (it.getRank() != 1 || !offsets || keep)
    return d.decline("a 1-D input needs offsets (and no padding_idx)");
  int64_t k = it.getDimSize(0), bags = rt.getDimSize(0), dim = wt.getDimSize(1);
  // bag[k] = #{offsets[b] <= k} - 1 over the bags' offsets.
  Value starts = offsets;
  if (*includeLast)
    starts = d.call("operator.getitem", {{"input", offsets},
                                         {"index", SliceAttr::get(d.ctx, d.none(), d.i64(-1), d.none())}});
  Value positions = d.tensorConstant(RankedTensorType::get({k, 1}, d.b.getI64Type()),
                                     [](ArrayRef<int64_t> i) { return static_cast<double>(i[0]); });
  Value bag = d.binary("torch.sub",
                       d.call("torch.sum", {{"input", d.binary("torch.le", starts, positions)},
                                            {"dim", d.ints({1})}}),
                       d.i64(1));
  Value spread = d.call("Tensor.expand", {{"input", d.call("torch.unsqueeze", {{"input", bag}, {"dim", d.i64(1)}})},
                                          {"size", d.ints({k, dim})}});
  Value zeros = d.tensorConstant(RankedTensorType::get({bags, dim}, element),
                                 [](ArrayRef<int64_t>) { return 0.0; });
  StringRef reduce = *mode == "max" ? "amax" : StringRef(*mode);
  if (reduce != "sum" && reduce != "mean" && reduce != "amax")
    return d.decline("unknown mode");
  return one(d.call("torch.scatter_reduce", {{"input", zeros}, {"dim", d.i64(0)}, {"index", spread},
                                             {"src", rows}, {"reduce", d.str(reduce)},
                                             {"include_self", d.boolean(false)}}));
}

//===----------------------------------------------------------------------===//
// grid_sample
//===----------------------------------------------------------------------===//

/// One coordinate of grid_sample: the normalized grid value `g` mapped to a
/// source position along a dim of `size`, with the padding's clipping or
/// reflection (torch's grid_sampler_compute_source_index).
static Value gridSource(Decomposer &d, Value g, int64_t size, int padding, bool alignCorners) {
  Value x = alignCorners
                ? d.binary("torch.mul", d.binary("torch.add", g, d.i64(1)), d.f64((size - 1) / 2.0))
                : d.binary("torch.div",
                           d.binary("torch.sub", d.binary("torch.mul", d.binary("torch.add", g, d.i64(1)),
                                                          d.f64(static_cast<double>(size))),
                                    d.i64(1)),
                           d.f64(2.0));
  auto clip = [&](Value v) {
    return d.call("torch.clamp", {{"input", v}, {"min", d.f64(0)}, {"max", d.f64(static_cast<double>(size - 1))}});
  };
  if (padding == 1)
    return clip(x);
  if (padding == 2) {
    // Reflect about [lo, hi] = [0, size - 1] (align_corners) or
    // [-0.5, size - 0.5], then clip.
    double lo = alignCorners ? 0.0 : -0.5, span = alignCorners ? size - 1.0 : double(size);
    if (span <= 0)
      return clip(d.binary("torch.mul", x, d.i64(0)));
    Value in = d.unary("torch.abs", d.binary("torch.sub", x, d.f64(lo)));
    Value extra = d.binary("torch.fmod", in, d.f64(span));
    Value flips = d.unary("torch.floor", d.binary("torch.div", in, d.f64(span)));
    Value even = d.binary("torch.eq", d.binary("torch.remainder", flips, d.i64(2)), d.i64(0));
    Value r = d.call("torch.where", {{"condition", even},
                                     {"input", d.binary("torch.add", extra, d.f64(lo))},
                                     {"other", d.call("torch.sub", {{"input", d.f64(span + lo)}, {"other", extra}})}});
    return clip(r);
  }
  return x;
}

/// F.grid_sample / aten::grid_sampler on 4-D inputs: each output point reads
/// the input at its (up to four) neighbours through one gather per corner,
/// weighted, and zero where a neighbour is outside.
static Results gridSample(Decomposer &d, Value input, Value grid, bool bilinear, int padding,
                          bool alignCorners) {
  RankedTensorType it = typeOf(input), gt = typeOf(grid), rt = d.resultTensorType();
  if (!it || !gt || !rt || !it.hasStaticShape() || !gt.hasStaticShape() || it.getRank() != 4 ||
      gt.getRank() != 4)
    return d.decline("only 4-D inputs with static shapes are decomposed");
  Type element = rt.getElementType();
  grid = d.cast(grid, element);
  input = d.cast(input, element);
  int64_t n = it.getDimSize(0), h = it.getDimSize(2), w = it.getDimSize(3);
  auto component = [&](int64_t i) {
    SmallVector<Attribute> parts = {EllipsisAttr::get(d.ctx), d.i64(i)};
    return d.call("operator.getitem", {{"input", grid}, {"index", TupleAttr::get(d.ctx, ArrayAttr::get(d.ctx, parts))}});
  };
  Value ix = gridSource(d, component(0), w, padding, alignCorners);
  Value iy = gridSource(d, component(1), h, padding, alignCorners);
  Value batch = d.tensorConstant(RankedTensorType::get({n, 1, 1}, d.b.getI64Type()),
                                 [](ArrayRef<int64_t> i) { return static_cast<double>(i[0]); });
  Type i64 = d.b.getI64Type();
  // input[b, :, y, x] for integer positions, times the weight where inside.
  auto corner = [&](Value y, Value x, Value weight) {
    Value inside = d.binary(
        "torch.logical_and",
        d.binary("torch.logical_and", d.binary("torch.ge", x, d.i64(0)), d.binary("torch.le", x, d.i64(w - 1))),
        d.binary("torch.logical_and", d.binary("torch.ge", y, d.i64(0)), d.binary("torch.le", y, d.i64(h - 1))));
    SmallVector<Attribute> items = {OperandAttr::get(d.ctx, 0), d.none(), OperandAttr::get(d.ctx, 1),
                                    OperandAttr::get(d.ctx, 2)};
    Arg indices(ArrayAttr::get(d.ctx, items));
    // (Outside points read a clamped neighbour, weighted 0: the gather
    // never leaves the input.)
    auto clamped = [&](Value v, int64_t size) {
      return d.cast(d.call("torch.clamp", {{"input", v}, {"min", d.i64(0)}, {"max", d.i64(size - 1)}}), i64);
    };
    indices.values = {batch, clamped(y, h), clamped(x, w)};
    Value v = d.call("torch.ops.aten.index.Tensor", {{"input", input}, {"indices", indices}});
    v = d.call("torch.permute", {{"input", v}, {"dims", d.ints({0, 3, 1, 2})}});
    Value wgt = d.binary("torch.mul", weight, d.cast(inside, element));
    return d.binary("torch.mul", v, d.call("torch.unsqueeze", {{"input", wgt}, {"dim", d.i64(1)}}));
  };
  if (!bilinear) {
    Value one1 = d.binary("torch.add", d.binary("torch.mul", ix, d.i64(0)), d.i64(1));
    return one(corner(d.unary("torch.round", iy), d.unary("torch.round", ix), one1));
  }
  Value x0 = d.unary("torch.floor", ix), y0 = d.unary("torch.floor", iy);
  Value x1 = d.binary("torch.add", x0, d.i64(1)), y1 = d.binary("torch.add", y0, d.i64(1));
  Value wx1 = d.binary("torch.sub", ix, x0), wy1 = d.binary("torch.sub", iy, y0);
  Value wx0 = d.call("torch.sub", {{"input", d.i64(1)}, {"other", wx1}});
  Value wy0 = d.call("torch.sub", {{"input", d.i64(1)}, {"other", wy1}});
  Value r = corner(y0, x0, d.binary("torch.mul", wy0, wx0));
  r = d.binary("torch.add", r, corner(y0, x1, d.binary("torch.mul", wy0, wx1)));
  r = d.binary("torch.add", r, corner(y1, x0, d.binary("torch.mul", wy1, wx0)));
  r = d.binary("torch.add", r, corner(y1, x1, d.binary("torch.mul", wy1, wx1)));
  return one(r);
}

static Results decomposeGridSample(Decomposer &d) {
  auto mode = d.getStr("mode"), padding = d.getStr("padding_mode");
  if (!mode || !padding || (*mode != "bilinear" && *mode != "nearest"))
    return d.decline("mode must be bilinear or nearest");
  int pad = *padding == "zeros" ? 0 : *padding == "border" ? 1 : *padding == "reflection" ? 2 : -1;
  if (pad < 0)
    return d.decline("unknown padding_mode");
  return gridSample(d, d.tensor("input"), d.tensor("grid"), *mode == "bilinear", pad,
                    d.getBool("align_corners").value_or(false));
}

static Results decomposeGridSampler(Decomposer &d) {
  auto mode = d.getInt("interpolation_mode"), padding = d.getInt("padding_mode");
  auto align = d.getBool("align_corners");
  if (!mode || !padding || !align || (*mode != 0 && *mode != 1) || *padding < 0 || *padding > 2)
    return d.decline("mode must be 0 (bilinear) or 1 (nearest)");
  return gridSample(d, d.tensor("input"), d.tensor("grid"), *mode == 0, *padding, *align);
}
