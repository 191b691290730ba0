//===- Pool.cpp - decompositions of pooling and resampling ----------------===//
//
// lp_pool as torch composes it (the direct lowering takes float32 and
// float64; convert-traced-to-linalg decomposes the calls it refuses).
// Windows and resampling: F.interpolate as weighted index_selects;
// F.unfold and F.fold as gathers and scatters of their windows;
// grid_sample as gathers at its grid's positions, affine_grid as a
// product with a base grid.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

/// F.lp_pool1d/2d as torch 1.13 writes it in Python:
/// (sign(a) * relu(|a|)).mul(window size).pow(1 / p) with
/// a = avg_pool(x.pow(p), kernel_size, stride, 0, ceil_mode); sign(a) *
/// relu(|a|) is a itself. Every dtype follows from the entries' own rules
/// (an integer x with an integer p pools in int64 and truncates).
static Results decomposeLpPool(Decomposer &d, unsigned spatial) {
  std::optional<double> p = d.getFloat("norm_type");
  std::optional<SmallVector<int64_t>> kernel = d.getInts("kernel_size", spatial);
  if (!p || !kernel)
    return d.decline("norm_type and kernel_size are not constants");
  int64_t window = 1;
  for (int64_t k : *kernel)
    window *= k;
  Value powered = d.call("torch.pow", {{"input", d.tensor("input")},
                                       {"exponent", d.arg("norm_type")}});
  std::string pool = "torch.nn.functional.avg_pool" + std::to_string(spatial) + "d";
  Value avg = d.call(pool, {{"input", powered},
                            {"kernel_size", d.ints(*kernel)},
                            {"stride", d.arg("stride")},
                            {"padding", d.i64(0)},
                            {"ceil_mode", d.arg("ceil_mode")}});
  Value scaled = d.binary("torch.mul", avg, d.i64(window));
  return one(d.call("torch.pow", {{"input", scaled}, {"exponent", d.f64(1.0 / *p)}}));
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
      taps.push_back(resampleTaps(kind, size, out, j, scale, alignCorners,
                                  resamplesChannelsLast(xt.getShape())));
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
// F.unfold and F.fold (im2col and col2im)
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

//===----------------------------------------------------------------------===//
// grid_sample and affine_grid
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
  auto clip = [&](Value v) { // (NaN becomes 0, as in torch's kernel)
    v = d.call("torch.where", {{"condition", d.unary("torch.isnan", v)}, {"input", d.f64(0)}, {"other", v}});
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
    // (Outside points read a clamped neighbour, NaN positions the first:
    // the gather never leaves the input.)
    auto clamped = [&](Value v, int64_t size) {
      v = d.call("torch.where", {{"condition", d.unary("torch.isnan", v)}, {"input", d.i64(0)}, {"other", v}});
      return d.cast(d.call("torch.clamp", {{"input", v}, {"min", d.i64(0)}, {"max", d.i64(size - 1)}}), i64);
    };
    indices.values = {batch, clamped(y, h), clamped(x, w)};
    Value v = d.call("torch.ops.aten.index.Tensor", {{"input", input}, {"indices", indices}});
    v = d.call("torch.permute", {{"input", v}, {"dims", d.ints({0, 3, 1, 2})}});
    // torch's kernel: an outside tap reads 0, then multiplies its weight
    // (so a NaN position gives NaN bilinearly); nearest has no weight.
    Value in = d.call("torch.unsqueeze", {{"input", inside}, {"dim", d.i64(1)}});
    v = d.call("torch.where", {{"condition", in}, {"input", v}, {"other", d.i64(0)}});
    if (!weight)
      return v;
    return d.binary("torch.mul", v, d.call("torch.unsqueeze", {{"input", weight}, {"dim", d.i64(1)}}));
  };
  if (!bilinear)
    return one(corner(d.unary("torch.round", iy), d.unary("torch.round", ix), Value()));
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

/// affine_grid: the base grid of normalized output coordinates (x, y[, z],
/// 1), times theta transposed, per batch.
static Results decomposeAffineGrid(Decomposer &d) {
  Value theta = d.tensor("theta");
  auto size = d.getInts("size");
  RankedTensorType result = d.resultTensorType();
  if (!theta || !size || !result || !result.hasStaticShape() || (size->size() != 4 && size->size() != 5))
    return d.decline("needs a constant size of 4 or 5 elements");
  bool alignCorners = d.getBool("align_corners").value_or(false);
  SmallVector<int64_t> spatial(size->begin() + 2, size->end()); // (D,) H, W
  int64_t k = spatial.size(), points = 1;
  for (int64_t s : spatial)
    points *= s;
  auto coord = [&](int64_t i, int64_t n) -> double {
    if (n <= 1)
      return 0.0;
    double c = -1.0 + 2.0 * i / (n - 1);
    return alignCorners ? c : c * (n - 1) / n;
  };
  Type element = result.getElementType();
  auto baseType = RankedTensorType::get({points, k + 1}, element);
  Value base = d.tensorConstant(baseType, [&](ArrayRef<int64_t> i) {
    if (i[1] == k)
      return 1.0;
    // Column 0 is x (the last spatial dim), then y, then z.
    int64_t p = i[0];
    SmallVector<int64_t> pos(k);
    for (int64_t s = k - 1; s >= 0; --s) {
      pos[s] = p % spatial[s];
      p /= spatial[s];
    }
    int64_t axis = k - 1 - i[1];
    return coord(pos[axis], spatial[axis]);
  });
  Value t = d.call("torch.transpose", {{"input", theta}, {"dim0", d.i64(1)}, {"dim1", d.i64(2)}});
  Value g = d.call("torch.matmul", {{"input", base}, {"other", t}});
  return one(reshape(d, g, result.getShape()));
}

/// Max unpooling as a scatter of each plane's values to their flat
/// indices in a zero plane of the result's size (the result rule has
/// decoded and checked the output size).
static Results decomposeMaxUnpool(Decomposer &d) {
  Value x = d.tensor("input"), indices = d.tensor("indices");
  RankedTensorType xT = typeOf(x), result = d.resultTensorType();
  if (!xT || !result || !xT.hasStaticShape() || !result.hasStaticShape())
    return d.decline("the shapes must be static");
  std::optional<unsigned> param = d.bound.spec->signature.lookup(
      d.bound.spec->signature.lookup("kernel_size") ? "kernel_size" : "output_size");
  unsigned k = d.bound.spec->signature.params[*param].type.listSize;
  SmallVector<int64_t> flatIn(xT.getShape().drop_back(k)),
      flatOut(result.getShape().drop_back(k));
  int64_t inPlane = 1, outPlane = 1;
  for (int64_t s : xT.getShape().take_back(k))
    inPlane *= s;
  for (int64_t s : result.getShape().take_back(k))
    outPlane *= s;
  flatIn.push_back(inPlane);
  flatOut.push_back(outPlane);
  Value zeros = d.call("torch.zeros", {{"size", d.ints(flatOut)},
                                       {"dtype", d.dtype(result.getElementType())}});
  Value r = d.call("torch.scatter",
                   {{"input", zeros},
                    {"dim", d.i64(static_cast<int64_t>(flatOut.size()) - 1)},
                    {"index", reshape(d, indices, flatIn)},
                    {"src", reshape(d, x, flatIn)}});
  return one(r ? reshape(d, r, result.getShape()) : Value());
}

/// aten::upsample_nearest{1,2,3}d_backward: per spatial dim, an
/// index_add of the gradient into zeros of the input's size at the
/// constant source index of each output position (the kernel's
/// resampleTaps); bfloat16 in float32, rounded once.
static Results decomposeUpsampleNearestBackward(Decomposer &d) {
  Value g = d.tensor("grad_output");
  auto out = d.getInts("output_size"), in = d.getInts("input_size");
  RankedTensorType result = d.resultTensorType();
  if (!out || !in || !result)
    return d.decline("output_size and input_size must be constants");
  int64_t spatial = static_cast<int64_t>(out->size());
  Type element = result.getElementType();
  Type compute = element.isBF16() ? d.b.getF32Type() : element;
  g = d.cast(g, compute);
  for (int64_t k = 0; k < spatial; ++k) {
    int64_t axis = k + 2, size = (*in)[axis], n = (*out)[k];
    double scale = upsampleScale(d.getFloat(upsampleScaleParam(spatial, k)), size, n);
    RankedTensorType gt = typeOf(g);
    if (!gt)
      return failure();
    SmallVector<int64_t> shape(gt.getShape());
    shape[axis] = size;
    Value index = d.tensorConstant(
        RankedTensorType::get({n}, IntegerType::get(d.ctx, 64)),
        [&](ArrayRef<int64_t> j) {
          return double(resampleTaps(ResampleMode::Nearest, size, n, j[0], scale,
                                     /*alignCorners=*/false, /*channelsLast=*/true)
                            .front()
                            .first);
        });
    Value zeros = d.call("torch.zeros", {{"size", d.ints(shape)}, {"dtype", d.dtype(compute)}});
    g = d.call("torch.index_add", {{"input", zeros}, {"dim", d.i64(axis)},
                                   {"index", index}, {"source", g}});
  }
  return one(d.cast(g, element));
}

void decompose::populatePoolDecompositions(DecompositionTable &t) {
  for (StringRef name : {"torch.ops.aten.upsample_nearest1d_backward.default",
                         "torch.ops.aten.upsample_nearest2d_backward.default",
                         "torch.ops.aten.upsample_nearest3d_backward.default"})
    t[name] = decomposeUpsampleNearestBackward;
  for (StringRef name : {"torch.ops.aten.max_unpool2d.default",
                         "torch.ops.aten.max_unpool3d.default",
                         "torch.nn.functional.max_unpool1d",
                         "torch.nn.functional.max_unpool2d",
                         "torch.nn.functional.max_unpool3d"})
    t[name] = decomposeMaxUnpool;
  t["torch.nn.functional.lp_pool1d"] = [](Decomposer &d) { return decomposeLpPool(d, 1); };
  t["torch.nn.functional.lp_pool2d"] = [](Decomposer &d) { return decomposeLpPool(d, 2); };
  t["torch.nn.functional.interpolate"] = decomposeInterpolate;
  // aten::upsample_nearest{1,2,3}d: an index_select per spatial dim at the
  // nearest taps, the scales given (1 / scale) or in / out.
  for (StringRef name : {"torch.ops.aten.upsample_nearest1d.default",
                         "torch.ops.aten.upsample_nearest2d.default",
                         "torch.ops.aten.upsample_nearest3d.default"})
    t[name] = [](Decomposer &d) -> Results {
      Value x = d.tensor("input");
      RankedTensorType xt = typeOf(x), rt = d.resultTensorType();
      if (!xt || !rt || !xt.hasStaticShape() || !rt.hasStaticShape())
        return d.decline("needs static shapes");
      int64_t spatial = xt.getRank() - 2;
      Value y = x;
      for (int64_t s = 0; s < spatial; ++s) {
        int64_t axis = s + 2, size = xt.getDimSize(axis), out = rt.getDimSize(axis);
        StringRef param = upsampleScaleParam(spatial, s);
        std::optional<double> given = d.getFloat(param);
        if (!given && !d.isNone(param))
          return d.decline("the scales are not constants");
        double scale = upsampleScale(given, size, out);
        auto indexType = RankedTensorType::get({out}, d.b.getI64Type());
        Value index = d.tensorConstant(indexType, [&](ArrayRef<int64_t> i) {
          return static_cast<double>(
              resampleTaps(ResampleMode::Nearest, size, out, i[0], scale, false,
                           resamplesChannelsLast(xt.getShape()))[0].first);
        });
        y = indexDim(d, y, axis, index);
      }
      return one(y);
    };
  t["torch.nn.functional.unfold"] = decomposeUnfold;
  t["torch.nn.functional.fold"] = decomposeFold;
  t["torch.nn.functional.grid_sample"] = decomposeGridSample;
  t["torch.ops.aten.grid_sampler.default"] = decomposeGridSampler;
  t["torch.nn.functional.affine_grid"] = decomposeAffineGrid;
}
