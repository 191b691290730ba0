//===- Shape.cpp - decompositions of shape entries ------------------------===//
//
// Views as `operator.getitem` windows and reshapes/permutes; stacking,
// tiling and shuffles as reshape, expand, permute and cat; triangles and
// diagonals through constant masks and strided windows.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"
#include "TracedIR/Transforms/GraphRewrites.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

Value decompose::reshape(Decomposer &d, Value v, ArrayRef<int64_t> shape) {
  if (typeOf(v) && typeOf(v).getShape() == shape)
    return v;
  return d.call("torch.reshape", {{"input", v}, {"shape", d.ints(shape)}});
}

Value decompose::window(Decomposer &d, Value x, int64_t dim, Attribute index) {
  SmallVector<Attribute> parts;
  Attribute none = d.none();
  for (int64_t i = 0; i < dim; ++i)
    parts.push_back(SliceAttr::get(d.ctx, none, none, none));
  parts.push_back(index);
  return d.call("operator.getitem",
                {{"input", x}, {"index", TupleAttr::get(d.ctx, ArrayAttr::get(d.ctx, parts))}});
}

Attribute decompose::sliceOf(Decomposer &d, std::optional<int64_t> start,
                             std::optional<int64_t> stop, int64_t step) {
  return SliceAttr::get(d.ctx, start ? d.i64(*start) : d.none(),
                        stop ? d.i64(*stop) : d.none(), d.i64(step));
}

int64_t decompose::normDim(int64_t dim, int64_t rank) {
  return dim < 0 ? dim + rank : dim;
}

/// The diagonal `offset` of the last two dims of `x` ([..., n, m]) as the
/// strided window of the flattened matrix: elements start + i (m + 1).
static Value lastDiagonal(Decomposer &d, Value x, int64_t offset) {
  RankedTensorType t = typeOf(x);
  int64_t rank = t.getRank(), n = t.getDimSize(rank - 2), m = t.getDimSize(rank - 1);
  int64_t length = offset >= 0 ? std::min(n, m - offset) : std::min(n + offset, m);
  length = std::max<int64_t>(length, 0);
  int64_t start = offset >= 0 ? offset : -offset * m;
  SmallVector<int64_t> flat(t.getShape().drop_back(2));
  flat.push_back(n * m);
  Value f = reshape(d, x, flat);
  if (length == 0)
    return window(d, f, rank - 2, sliceOf(d, 0, 0, 1));
  return window(d, f, rank - 2,
                sliceOf(d, start, start + (length - 1) * (m + 1) + 1, m + 1));
}

static Results decomposeDiagonal(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType t = typeOf(x);
  auto offset = d.getInt("offset");
  auto dim1 = d.getInt("dim1"), dim2 = d.getInt("dim2");
  if (!t || !t.hasStaticShape() || !offset || !dim1 || !dim2 || t.getRank() < 2)
    return d.decline("diagonal needs constant arguments and a static shape");
  int64_t rank = t.getRank(), a = normDim(*dim1, rank), b = normDim(*dim2, rank);
  if (a < 0 || b < 0 || a >= rank || b >= rank)
    return d.decline("dims out of range");
  if (a == b)
    return d.decline("dim1 and dim2 are the same");
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != a && i != b)
      perm.push_back(i);
  perm.push_back(a);
  perm.push_back(b);
  Value moved = d.call("torch.permute", {{"input", x}, {"dims", d.ints(perm)}});
  return one(lastDiagonal(d, moved, *offset));
}

/// tril/triu: zeros where column - row is above (tril) or below (triu) the
/// diagonal, through a constant mask over the last two dims.
static Results decomposeTriangle(Decomposer &d) {
  bool lower = d.target() == "torch.tril";
  Value x = d.tensor("input");
  RankedTensorType t = typeOf(x);
  auto k = d.getInt("diagonal");
  if (!t || !t.hasStaticShape() || !k || t.getRank() < 2)
    return d.decline("needs a static shape and a constant diagonal");
  int64_t rank = t.getRank();
  auto maskType = RankedTensorType::get(t.getShape().take_back(2),
                                        IntegerType::get(d.ctx, 1));
  Value mask = d.tensorConstant(maskType, [&](ArrayRef<int64_t> idx) {
    int64_t diff = idx[1] - idx[0];
    return (lower ? diff > *k : diff < *k) ? 1.0 : 0.0;
  });
  (void)rank;
  return one(d.call("Tensor.masked_fill",
                    {{"input", x}, {"mask", mask}, {"value", d.i64(0)}}));
}

/// `x` repeated `reps` times along each dim (len(reps) >= rank; leading
/// new dims): [1, s0, 1, s1, ...] expanded to [r0, s0, r1, s1, ...].
static Value repeatTensor(Decomposer &d, Value x, ArrayRef<int64_t> reps) {
  RankedTensorType t = typeOf(x);
  SmallVector<int64_t> shape(reps.size() - t.getRank(), 1);
  llvm::append_range(shape, t.getShape());
  SmallVector<int64_t> inter, expanded, result;
  for (auto [r, s] : llvm::zip(reps, shape)) {
    inter.append({1, s});
    expanded.append({r, s});
    result.push_back(r * s);
  }
  Value v = reshape(d, x, inter);
  v = d.call("Tensor.expand", {{"input", v}, {"size", d.ints(expanded)}});
  return d.call("torch.reshape", {{"input", v}, {"shape", d.ints(result)}});
}

/// atleast_Nd as hstack/vstack/dstack/column_stack see their inputs.
static Value atLeast(Decomposer &d, Value x, unsigned n) {
  ArrayRef<int64_t> s = typeOf(x).getShape();
  if (s.size() >= n)
    return x;
  SmallVector<int64_t> shape;
  if (n == 1)
    shape = {1};
  else if (n == 2)
    shape = s.empty() ? SmallVector<int64_t>{1, 1} : SmallVector<int64_t>{1, s[0]};
  else if (s.empty())
    shape = {1, 1, 1};
  else if (s.size() == 1)
    shape = {1, s[0], 1};
  else
    shape = {s[0], s[1], 1};
  return reshape(d, x, shape);
}

static Results decomposeStack(Decomposer &d) {
  StringRef target = d.target();
  SmallVector<Value> tensors = d.arg("tensors").values;
  if (tensors.empty() || llvm::any_of(tensors, [](Value v) {
        return !typeOf(v) || !typeOf(v).hasStaticShape();
      }))
    return d.decline("needs statically shaped tensors");
  SmallVector<Value> parts;
  int64_t dim = 0;
  for (Value v : tensors) {
    if (target == "torch.hstack") {
      parts.push_back(atLeast(d, v, 1));
    } else if (target == "torch.vstack") {
      parts.push_back(atLeast(d, v, 2));
    } else if (target == "torch.dstack") {
      parts.push_back(atLeast(d, v, 3));
      dim = 2;
    } else { // column_stack
      ArrayRef<int64_t> s = typeOf(v).getShape();
      parts.push_back(s.size() <= 1 ? reshape(d, v, {s.empty() ? 1 : s[0], 1}) : v);
      dim = 1;
    }
  }
  if (target == "torch.hstack")
    dim = typeOf(parts[0]).getRank() == 1 ? 0 : 1;
  return one(d.call("torch.cat", {{"tensors", Arg::list(d.ctx, parts)}, {"dim", d.i64(dim)}}));
}

/// The element types of a tuple result, as ranked tensor types (null when
/// one is not).
static SmallVector<RankedTensorType> elementTypes(Decomposer &d) {
  SmallVector<RankedTensorType> types;
  if (auto tuple = dyn_cast<TupleType>(d.resultType()))
    for (Type t : tuple.getTypes())
      types.push_back(dyn_cast<RankedTensorType>(t));
  return types;
}

/// split: consecutive windows of the given sizes (one int: equal chunks of
/// that size, the last smaller) along dim.
/// The [begin, end) slices of `x` along dim `n`, as the call's results (a
/// split's tuple).
static Results slicesAlong(Decomposer &d, Value x, int64_t n,
                           ArrayRef<std::pair<int64_t, int64_t>> pieces) {
  SmallVector<Value> parts;
  for (auto [begin, end] : pieces)
    parts.push_back(window(d, x, n, sliceOf(d, begin, end, 1)));
  if (isa<TupleType>(d.resultType()) && parts.size() != elementTypes(d).size())
    return d.decline("the split does not match the traced result");
  return parts;
}

/// The input of an op that cuts a tensor along its constant `dim` of static
/// size (split, tensor_split, unbind; the other dims may be dynamic), with
/// that dim normalized; none when the dim or its size is not known.
static std::optional<std::pair<Value, int64_t>> staticAlongDim(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType type = typeOf(x);
  auto dim = d.getInt("dim");
  if (!type || !dim || type.getRank() == 0)
    return std::nullopt;
  int64_t n = normDim(*dim, type.getRank());
  if (n < 0 || n >= type.getRank() || type.isDynamicDim(n))
    return std::nullopt;
  return std::make_pair(x, n);
}

static Results decomposeSplit(Decomposer &d) {
  auto along = staticAlongDim(d);
  if (!along)
    return d.decline("needs a constant dim of static size");
  auto [x, n] = *along;
  RankedTensorType type = typeOf(x);
  int64_t size = type.getDimSize(n);
  SmallVector<int64_t> sizes;
  if (auto one = d.getInt("split_size_or_sections")) {
    if (*one <= 0)
      return d.decline("the split size must be positive");
    for (int64_t at = 0; at < size || (size == 0 && sizes.empty()); at += *one)
      sizes.push_back(std::min(*one, size - at));
  } else if (auto list = d.getInts("split_size_or_sections")) {
    sizes = *list;
  } else {
    return d.decline("the split sizes are not constants");
  }
  SmallVector<std::pair<int64_t, int64_t>> pieces;
  int64_t at = 0;
  for (int64_t len : sizes) {
    pieces.push_back({at, at + len});
    at += len;
  }
  return slicesAlong(d, x, n, pieces);
}

/// tensor_split: the slices tensorSplitPieces names.
static Results decomposeTensorSplit(Decomposer &d) {
  auto along = staticAlongDim(d);
  if (!along)
    return d.decline("needs a constant dim of static size");
  auto [x, n] = *along;
  RankedTensorType type = typeOf(x);
  std::optional<int64_t> sections;
  SmallVector<int64_t> indices;
  for (StringRef name : {"indices_or_sections", "sections", "indices", "tensor_indices_or_sections"}) {
    if (d.isNone(name))
      continue;
    if (name != "indices")
      sections = d.getInt(name);
    if (sections)
      continue;
    auto list = d.getInts(name);
    if (!list)
      return d.decline("the sections or indices are not constants");
    indices = *list;
  }
  std::string error;
  auto pieces = tensorSplitPieces(type.getDimSize(n), sections, indices, error);
  if (failed(pieces))
    return d.decline(error);
  return slicesAlong(d, x, n, *pieces);
}

static Results decomposeUnbind(Decomposer &d) {
  auto along = staticAlongDim(d);
  if (!along)
    return d.decline("needs a constant dim of static size");
  auto [x, n] = *along;
  RankedTensorType type = typeOf(x);
  SmallVector<Value> parts;
  for (int64_t i = 0; i < type.getDimSize(n); ++i)
    parts.push_back(window(d, x, n, d.i64(i)));
  return parts;
}

/// meshgrid and broadcast_tensors: each input reshaped and expanded to the
/// traced element type's shape.
static Results decomposeMeshgrid(Decomposer &d) {
  SmallVector<Value> tensors = d.arg("tensors").values;
  SmallVector<RankedTensorType> types = elementTypes(d);
  if (types.size() != tensors.size() ||
      llvm::any_of(types, [](RankedTensorType t) { return !t || !t.hasStaticShape(); }))
    return d.decline("needs static result shapes");
  bool xy = d.getStr("indexing") == std::optional<std::string>("xy");
  SmallVector<Value> parts;
  for (auto [i, v] : llvm::enumerate(tensors)) {
    ArrayRef<int64_t> shape = types[i].getShape();
    SmallVector<int64_t> ones(shape.size(), 1);
    int64_t pos = i;
    if (xy && tensors.size() >= 2 && i < 2)
      pos = 1 - i;
    ones[pos] = shape[pos];
    parts.push_back(d.call("Tensor.expand", {{"input", reshape(d, v, ones)},
                                             {"size", d.ints(shape)}}));
  }
  return parts;
}

static Results decomposeBroadcastTensors(Decomposer &d) {
  SmallVector<Value> tensors = d.arg("tensors").values;
  SmallVector<RankedTensorType> types = elementTypes(d);
  if (types.size() != tensors.size() ||
      llvm::any_of(types, [](RankedTensorType t) { return !t || !t.hasStaticShape(); }))
    return d.decline("needs static result shapes");
  SmallVector<Value> parts;
  for (auto [i, v] : llvm::enumerate(tensors))
    parts.push_back(typeOf(v) == types[i]
                        ? d.unary("torch.clone", v)
                        : d.call("Tensor.expand", {{"input", v},
                                                   {"size", d.ints(types[i].getShape())}}));
  return parts;
}

/// Shape queries of static shapes: the constants their folders give; and
/// the tensor attributes getattr reads (x.T, x.mT, x.H, x.mH, x.data,
/// x.real) as the calls they mean.
static Results decomposeShapeQuery(Decomposer &d) {
  if (d.target() == "builtins.getattr") {
    std::optional<std::string> name = d.getStr("name");
    Value x = d.tensor("input");
    RankedTensorType type = typeOf(x);
    if (name && type) {
      int64_t rank = type.getRank();
      if ((*name == "T" || *name == "H") && rank != 2) {
        SmallVector<int64_t> perm;
        for (int64_t i = rank - 1; i >= 0; --i)
          perm.push_back(i);
        return one(d.call("torch.permute", {{"input", x}, {"dims", d.ints(perm)}}));
      }
      if ((*name == "mT" || *name == "mH") && rank == 0)
        return one(d.unary("torch.clone", x));
      if (*name == "T" || *name == "H" || ((*name == "mT" || *name == "mH") && rank >= 2))
        return one(d.call("torch.transpose", {{"input", x}, {"dim0", d.i64(-2)}, {"dim1", d.i64(-1)}}));
      if (*name == "data" || *name == "real")
        return one(d.unary("torch.clone", x));
      if (*name == "ndim")
        return one(d.constant(d.i64(rank), d.resultType()));
    }
  }
  SmallVector<OpFoldResult> folded;
  Operation *op = d.bound.op;
  if (failed(op->fold(folded)) || folded.size() != op->getNumResults() ||
      !llvm::all_of(folded, [](OpFoldResult r) { return isa<Attribute>(r); }))
    return d.decline("the shape is not static");
  SmallVector<Value> values;
  for (auto [result, value] : llvm::zip(op->getResults(), folded))
    values.push_back(d.constant(cast<Attribute>(value), result.getType()));
  return values;
}

/// x reversed along `dim`: a gather at n-1, ..., 0.
static Value reverse(Decomposer &d, Value x, int64_t dim) {
  int64_t n = typeOf(x).getDimSize(dim);
  auto indexType = RankedTensorType::get({n}, d.b.getI64Type());
  Value index = d.tensorConstant(indexType, [&](ArrayRef<int64_t> i) {
    return static_cast<double>(n - 1 - i[0]);
  });
  return d.call("torch.index_select", {{"input", x}, {"dim", d.i64(dim)}, {"index", index}});
}

static Results decomposeFlip(Decomposer &d) {
  Value x = d.tensor("input");
  auto dims = d.getInts("dims");
  RankedTensorType type = typeOf(x);
  if (!dims || !type || !type.hasStaticShape())
    return d.decline("needs constant dims and a static shape");
  Value r = x;
  // (A 0-d tensor flips to itself.)
  for (int64_t dim : *dims) {
    if (type.getRank() == 0)
      break;
    int64_t n = normDim(dim, type.getRank());
    if (n < 0 || n >= type.getRank())
      return d.decline("dim out of range");
    r = reverse(d, r, n);
  }
  if (r == x)
    r = d.unary("torch.clone", x);
  return one(r);
}

/// rot90 as torch writes it: flips and a transpose.
static Results decomposeRot90(Decomposer &d) {
  Value x = d.tensor("input");
  auto k = d.getInt("k");
  auto dims = d.getInts("dims");
  RankedTensorType type = typeOf(x);
  if (!k || !dims || dims->size() != 2 || !type || !type.hasStaticShape())
    return d.decline("needs constant k and dims and a static shape");
  int64_t rank = type.getRank();
  int64_t a = normDim((*dims)[0], rank), b = normDim((*dims)[1], rank);
  if (a < 0 || b < 0 || a >= rank || b >= rank || a == b)
    return d.decline("dims out of range");
  int64_t turns = ((*k % 4) + 4) % 4;
  auto swap = [&](Value v) {
    return d.call("torch.transpose", {{"input", v}, {"dim0", d.i64(a)}, {"dim1", d.i64(b)}});
  };
  switch (turns) {
  case 1:
    return one(swap(reverse(d, x, b)));
  case 2:
    return one(reverse(d, reverse(d, x, a), b));
  case 3:
    return one(swap(reverse(d, x, a)));
  default:
    return one(d.unary("torch.clone", x));
  }
}

static Results decomposeTensorUnfold(Decomposer &d);
static Results decomposeDiagEmbed(Decomposer &d);

/// pixel_shuffle: [*, C r r, H, W] -> [*, C, H r, W r]; pixel_unshuffle
/// the inverse. Both split the dims, permute and merge.
static Results pixelShuffle(Decomposer &d, bool up) {
  Value x = d.tensor("input");
  auto r = d.getInt(up ? "upscale_factor" : "downscale_factor");
  RankedTensorType type = typeOf(x);
  if (!r || !type.hasStaticShape() || type.getRank() < 3 || *r <= 0)
    return d.decline("needs a constant factor and a static shape");
  int64_t rank = type.getRank(), f = *r;
  ArrayRef<int64_t> s = type.getShape();
  SmallVector<int64_t> split(s.drop_back(3)), perm, out(s.drop_back(3));
  int64_t b = split.size();
  for (int64_t i = 0; i < b; ++i)
    perm.push_back(i);
  int64_t c = s[rank - 3], h = s[rank - 2], w = s[rank - 1];
  if (up) {
    split.append({c / (f * f), f, f, h, w});
    perm.append({b, b + 3, b + 1, b + 4, b + 2});
    out.append({c / (f * f), h * f, w * f});
  } else {
    split.append({c, h / f, f, w / f, f});
    perm.append({b, b + 2, b + 4, b + 1, b + 3});
    out.append({c * f * f, h / f, w / f});
  }
  Value v = d.call("torch.permute", {{"input", reshape(d, x, split)}, {"dims", d.ints(perm)}});
  return one(reshape(d, v, out));
}

/// repeat_interleave(x, counts, dim): row i of x along dim, counts[i] times,
/// for a result length T known from the trace. Row j of the result is the
/// i whose running total first exceeds j: bucketize(arange(T),
/// cumsum(counts), right=True), then index_select. The counts decide the
/// shape, so two run-time checks (torch._assert) stand for what torch
/// computes from them: no count is negative, and they add up to T.
static Results repeatByCounts(Decomposer &d) {
  Value x = d.tensor("input"), counts = d.tensor("repeats");
  RankedTensorType type = typeOf(x), ct = typeOf(counts);
  RankedTensorType result = d.resultTensorType();
  if (!ct || !ct.hasStaticShape() || ct.getRank() > 1 || !result ||
      !result.hasStaticShape())
    return d.decline("the counts must be a static 0-d or 1-d tensor");
  int64_t dim = 0;
  if (d.isNone("dim")) {
    x = reshape(d, x, {type.getNumElements()});
  } else if (auto given = d.getInt("dim")) {
    if (type.getRank() == 0)
      x = reshape(d, x, {1});
    dim = normDim(*given, typeOf(x).getRank());
    if (dim < 0 || dim >= typeOf(x).getRank())
      return d.decline("dim out of range");
  } else {
    return d.decline("dim must be a constant");
  }
  int64_t rows = typeOf(x).getDimSize(dim);
  int64_t length = result.getDimSize(dim);
  Value c = d.cast(counts, IntegerType::get(d.ctx, 64));
  c = reshape(d, c, {ct.getNumElements()});
  if (ct.getNumElements() == 1 && rows != 1)
    c = d.call("Tensor.expand", {{"input", c}, {"size", d.ints({rows})}});
  if (typeOf(c).getDimSize(0) != rows)
    return d.decline("the counts must have one element per row");
  Value nonnegative = d.call("torch.all", {{"input", d.binary("torch.ge", c, d.i64(0))}});
  d.call("torch._assert", {{"condition", nonnegative},
                           {"message", d.str("repeats can not be negative")}});
  Value total = d.call("torch.sum", {{"input", c}});
  d.call("torch._assert",
         {{"condition", d.binary("torch.eq", total, d.i64(length))},
          {"message", d.str("the repeats add up to another length than the " +
                            std::to_string(length) +
                            " of the trace (a data-dependent shape: trace "
                            "again with this input)")}});
  Value ends = d.call("torch.cumsum", {{"input", c}, {"dim", d.i64(0)}});
  Value positions = d.call("torch.arange", {{"start", d.i64(length)}});
  Value rowOf = d.call("torch.bucketize", {{"input", positions},
                                           {"boundaries", ends},
                                           {"right", d.boolean(true)}});
  return one(d.call("torch.index_select",
                    {{"input", x}, {"dim", d.i64(dim)}, {"index", rowOf}}));
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

/// diff: prepend, input and append concatenated, then n times the slice
/// from 1 minus the slice from 0 along dim (xor for bools).
static Results decomposeDiff(Decomposer &d) {
  std::optional<int64_t> n = d.getInt("n"), dim = d.getInt("dim");
  Value x = d.tensor("input");
  if (!n || !dim || !x)
    return d.decline("n and dim must be constants");
  SmallVector<Value> parts;
  for (StringRef name : {"prepend", "input", "append"})
    if (!d.isNone(name))
      parts.push_back(d.tensor(name));
  if (parts.size() > 1)
    x = d.call("torch.cat",
               {{"tensors", Arg::list(d.ctx, parts)}, {"dim", d.i64(*dim)}});
  for (int64_t k = 0; k < *n && x; ++k) {
    RankedTensorType type = typeOf(x);
    int64_t rank = type.getRank();
    int64_t axis = *dim < 0 ? *dim + rank : *dim;
    int64_t size = type.getDimSize(axis);
    if (ShapedType::isDynamic(size))
      return d.decline("the size along dim is dynamic");
    if (size == 0)
      break;
    auto narrow = [&](int64_t start) {
      return d.call("torch.narrow", {{"input", x},
                                     {"dim", d.i64(axis)},
                                     {"start", d.i64(start)},
                                     {"length", d.i64(size - 1)}});
    };
    x = d.binary(type.getElementType().isInteger(1) ? "torch.logical_xor"
                                                    : "torch.sub",
                 narrow(1), narrow(0));
  }
  return one(x);
}

/// torch.gradient in the kernel's steps (Kernels/Shape.cpp).
static Results decomposeGradient(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType type = typeOf(x);
  auto edge = d.getInt("edge_order");
  if (!type || !type.hasStaticShape() || !edge)
    return d.decline("needs a static shape and a constant edge_order");
  SmallVector<double> spacing;
  if (!d.isNone("spacing")) {
    Attribute given = d.value("spacing");
    if (auto one = getPyFloat(given)) {
      spacing.push_back(*one);
    } else if (auto list = dyn_cast_or_null<ArrayAttr>(given)) {
      for (Attribute a : list.getValue()) {
        auto v = getPyFloat(a);
        if (!v)
          return d.decline("the spacing must be numbers");
        spacing.push_back(*v);
      }
    } else if (auto tuple = dyn_cast_or_null<TupleAttr>(given)) {
      for (Attribute a : tuple.getElements().getValue()) {
        auto v = getPyFloat(a);
        if (!v)
          return d.decline("the spacing must be numbers");
        spacing.push_back(*v);
      }
    } else {
      return d.decline("the spacing must be numbers");
    }
  }
  std::optional<SmallVector<int64_t>> dims;
  if (!d.isNone("dim") && !(dims = d.getInts("dim")))
    return d.decline("dim must be a constant");
  std::string error;
  auto plan = gradientDims(type.getShape(),
                           dims ? std::optional<ArrayRef<int64_t>>(*dims) : std::nullopt,
                           spacing, *edge, error);
  if (failed(plan))
    return d.decline(error);
  SmallVector<Value> outs;
  for (auto [dim, h] : llvm::zip(plan->first, plan->second)) {
    int64_t n = type.getDimSize(dim);
    auto at = [&, dim = dim](int64_t start, int64_t length) {
      return window(d, x, dim, sliceOf(d, start, start + length, 1));
    };
    auto op = [&](StringRef target, Value a, Arg b) { return d.call(target, {{"input", a}, {"other", b}}); };
    Attribute dx = d.f64(h);
    Value center = op("torch.div", op("torch.div", op("torch.sub", at(2, n - 2), at(0, n - 2)), dx),
                      d.i64(2));
    Value first, last;
    if (*edge == 1) {
      first = op("torch.div", op("torch.sub", at(1, 1), at(0, 1)), dx);
      last = op("torch.div", op("torch.sub", at(n - 1, 1), at(n - 2, 1)), dx);
    } else {
      first = op("torch.div",
                 op("torch.sub",
                    op("torch.add", op("torch.mul", at(0, 1), d.f64(-1.5)),
                       op("torch.mul", at(1, 1), d.i64(2))),
                    op("torch.mul", at(2, 1), d.f64(0.5))),
                 dx);
      last = op("torch.div",
                op("torch.add",
                   op("torch.sub", op("torch.mul", at(n - 3, 1), d.f64(0.5)),
                      op("torch.mul", at(n - 2, 1), d.i64(2))),
                   op("torch.mul", at(n - 1, 1), d.f64(1.5))),
                dx);
    }
    outs.push_back(d.call("torch.cat", {{"tensors", Arg::list(d.ctx, {first, center, last})},
                                        {"dim", d.i64(dim)}}));
  }
  return outs;
}

/// block_diag: each tensor as a matrix in the promoted dtype, padded with
/// zeros to the full width at its column, the rows concatenated.
static Results decomposeBlockDiag(Decomposer &d) {
  SmallVector<Value> ts = d.arg("tensors").values;
  RankedTensorType result = d.resultTensorType();
  if (ts.empty() || !allStaticShapes(ts) || !result)
    return d.decline("needs tensors of static shapes");
  int64_t cols = result.getDimSize(1), at = 0;
  SmallVector<Value> rows;
  for (Value v : ts) {
    RankedTensorType t = typeOf(v);
    int64_t r = t.getRank() == 2 ? t.getDimSize(0) : 1;
    int64_t c = t.getRank() ? t.getShape().back() : 1;
    Value m = reshape(d, d.cast(v, result.getElementType()), {r, c});
    rows.push_back(d.call("torch.nn.functional.pad",
                          {{"input", m}, {"pad", d.ints({at, cols - at - c})}}));
    at += c;
  }
  return one(d.call("torch.cat", {{"tensors", Arg::list(d.ctx, rows)}, {"dim", d.i64(0)}}));
}

/// cartesian_prod: the meshgrid (ij) of the vectors, flattened and stacked
/// as columns; one vector as it is.
static Results decomposeCartesianProd(Decomposer &d) {
  SmallVector<Value> ts = d.arg("tensors").values;
  if (ts.empty() || !allStaticShapes(ts))
    return d.decline("needs vectors of static shapes");
  if (ts.size() == 1)
    return one(d.unary("torch.clone", ts[0]));
  SmallVector<int64_t> shape;
  int64_t rows = 1;
  for (Value v : ts) {
    shape.push_back(typeOf(v).getDimSize(0));
    rows *= shape.back();
  }
  SmallVector<Value> cols;
  for (auto [i, v] : llvm::enumerate(ts)) {
    SmallVector<int64_t> ones(ts.size(), 1);
    ones[i] = shape[i];
    Value grid = d.call("Tensor.expand", {{"input", reshape(d, v, ones)},
                                          {"size", d.ints(shape)}});
    cols.push_back(reshape(d, grid, {rows}));
  }
  return one(d.call("torch.stack", {{"tensors", Arg::list(d.ctx, cols)}, {"dim", d.i64(1)}}));
}

/// combinations: a gather at the constant indices of the combinations
/// (the kernel's order: lexicographic).
static Results decomposeCombinations(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType type = typeOf(x), result = d.resultTensorType();
  auto r = d.getInt("r");
  auto replacement = d.getBool("with_replacement");
  if (!type || !result || !r || !replacement || !type.hasStaticShape() ||
      !result.hasStaticShape())
    return d.decline("needs constant arguments and a static shape");
  if (*r == 0 || result.getNumElements() == 0)
    return one(reshape(d, window(d, x, 0, sliceOf(d, 0, 0, 1)), result.getShape()));
  int64_t n = type.getDimSize(0);
  SmallVector<int64_t> picks, idx(*r, 0);
  if (!*replacement)
    for (int64_t j = 0; j < *r; ++j)
      idx[j] = j;
  while (true) {
    llvm::append_range(picks, idx);
    int64_t j = *r - 1;
    while (j >= 0 && idx[j] == (*replacement ? n - 1 : n - *r + j))
      --j;
    if (j < 0)
      break;
    ++idx[j];
    for (int64_t l = j + 1; l < *r; ++l)
      idx[l] = *replacement ? idx[j] : idx[l - 1] + 1;
  }
  auto indexType = RankedTensorType::get({static_cast<int64_t>(picks.size())},
                                         d.b.getI64Type());
  Value index = d.tensorConstant(indexType, [&](ArrayRef<int64_t> i) {
    return static_cast<double>(picks[i[0]]);
  });
  return one(reshape(d, indexDim(d, x, 0, index), result.getShape()));
}

void decompose::populateShapeDecompositions(DecompositionTable &t) {
  t["torch.gradient"] = decomposeGradient;
  t["torch.block_diag"] = decomposeBlockDiag;
  t["torch.cartesian_prod"] = decomposeCartesianProd;
  t["torch.combinations"] = decomposeCombinations;
  t["torch.constant_pad_nd"] = [](Decomposer &d) -> Results {
    auto value = d.getFloat("value");
    if (!value)
      return d.decline("value must be a constant");
    return one(d.call("torch.nn.functional.pad", {{"input", d.tensor("input")},
                                                  {"pad", d.arg("pad")},
                                                  {"value", d.f64(*value)}}));
  };
  for (StringRef name : {"torch.hsplit", "torch.vsplit", "torch.dsplit"})
    t[name] = [](Decomposer &d) -> Results {
      RankedTensorType type = typeOf(d.tensor("input"));
      if (!type)
        return d.decline("the input is not a ranked tensor");
      int64_t dim = d.target() == "torch.hsplit" ? (type.getRank() > 1 ? 1 : 0)
                    : d.target() == "torch.vsplit" ? 0
                                                   : 2;
      return one(d.call("torch.tensor_split",
                        {{"input", d.tensor("input")},
                         {"indices_or_sections", d.arg("indices_or_sections")},
                         {"dim", d.i64(dim)}}));
    };
  t["torch.diagflat"] = [](Decomposer &d) -> Results {
    RankedTensorType type = typeOf(d.tensor("input"));
    if (!type || !type.hasStaticShape())
      return d.decline("needs a static shape");
    return one(d.call("torch.diag", {{"input", reshape(d, d.tensor("input"),
                                                       {type.getNumElements()})},
                                     {"diagonal", d.arg("offset")}}));
  };
  // sum_to_size: sum (keepdim) over the leading dims and the dims the size
  // has as 1, viewed as the size.
  t["Tensor.sum_to_size"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    RankedTensorType type = typeOf(x), result = d.resultTensorType();
    if (!type || !result || !type.hasStaticShape())
      return d.decline("needs a static shape");
    ArrayRef<int64_t> size = result.getShape();
    int64_t lead = type.getRank() - static_cast<int64_t>(size.size());
    SmallVector<int64_t> dims;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (i < lead || (size[i - lead] == 1 && type.getDimSize(i) != 1))
        dims.push_back(i);
    if (size.empty())
      return one(d.unary("torch.sum", x));
    if (dims.empty())
      return one(d.unary("torch.clone", x));
    Value sum = d.call("torch.sum", {{"input", x}, {"dim", d.ints(dims)},
                                     {"keepdim", d.boolean(true)}});
    return one(reshape(d, sum, size));
  };
  for (StringRef name : {"torch.fft.fftshift", "torch.fft.ifftshift"})
    t[name] = [](Decomposer &d) -> Results {
      Value x = d.tensor("input");
      RankedTensorType type = typeOf(x);
      if (!type || !type.hasStaticShape())
        return d.decline("needs a static shape");
      SmallVector<int64_t> dims;
      if (d.isNone("dim")) {
        for (int64_t i = 0; i < type.getRank(); ++i)
          dims.push_back(i);
      } else if (auto given = d.getInts("dim")) {
        for (int64_t g : *given)
          dims.push_back(normDim(g, type.getRank()));
      } else {
        return d.decline("dim must be a constant");
      }
      bool inverse = d.target() == "torch.fft.ifftshift";
      SmallVector<int64_t> shifts;
      for (int64_t i : dims) {
        if (i < 0 || i >= type.getRank())
          return d.decline("dim out of range");
        shifts.push_back((type.getDimSize(i) + (inverse ? 1 : 0)) / 2);
      }
      if (dims.empty())
        return d.decline("`shifts` required");
      return one(d.call("torch.roll", {{"input", x}, {"shifts", d.ints(shifts)},
                                       {"dims", d.ints(dims)}}));
    };
  t["torch.diff"] = decomposeDiff;
  t["Tensor.unfold"] = decomposeTensorUnfold;
  t["torch.diag_embed"] = decomposeDiagEmbed;
  for (StringRef name : {"torch.ops.prims.squeeze.default", "torch.ops.prims.split_dim.default"})
    t[name] = [](Decomposer &d) -> Results {
      return one(d.call("torch.reshape", {{"input", d.tensor("a")},
                                          {"shape", d.ints(d.resultTensorType().getShape())}}));
    };
  for (StringRef name : {"torch.atleast_1d", "torch.atleast_2d", "torch.atleast_3d"})
    t[name] = [](Decomposer &d) -> Results {
      return one(d.call("torch.reshape", {{"input", d.tensor("input")},
                                          {"shape", d.ints(d.resultTensorType().getShape())}}));
    };
  t["Tensor.view_as"] = [](Decomposer &d) -> Results {
    return one(d.call("Tensor.view", {{"input", d.tensor("input")},
                                      {"size", d.ints(typeOf(d.tensor("other")).getShape())}}));
  };
  t["Tensor.reshape_as"] = [](Decomposer &d) -> Results {
    return one(d.call("torch.reshape", {{"input", d.tensor("input")},
                                        {"shape", d.ints(typeOf(d.tensor("other")).getShape())}}));
  };
  // resize_ / resize_as_: the first elements (the rule refuses growing),
  // reshaped.
  for (StringRef name : {"Tensor.resize_", "torch.resize_as_"})
    t[name] = [](Decomposer &d) -> Results {
      Value x = d.tensor("input");
      RankedTensorType in = typeOf(x), out = d.resultTensorType();
      if (!in || !out || !in.hasStaticShape() || !out.hasStaticShape())
        return d.decline("needs static shapes");
      Value flat = d.call("torch.reshape", {{"input", x}, {"shape", d.ints({in.getNumElements()})}});
      flat = d.call("torch.narrow", {{"input", flat},
                                     {"dim", d.i64(0)},
                                     {"start", d.i64(0)},
                                     {"length", d.i64(out.getNumElements())}});
      return one(d.call("torch.reshape", {{"input", flat}, {"shape", d.ints(out.getShape())}}));
    };
  t["Tensor.expand_as"] = [](Decomposer &d) -> Results {
    return one(d.call("Tensor.expand", {{"input", d.tensor("input")},
                                        {"size", d.ints(typeOf(d.tensor("other")).getShape())}}));
  };
  t["torch.t"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    if (typeOf(x).getRank() < 2)
      return one(x);
    return one(d.call("torch.transpose", {{"input", x}, {"dim0", d.i64(0)}, {"dim1", d.i64(1)}}));
  };
  t["torch.narrow"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto dim = d.getInt("dim"), start = d.getInt("start"), length = d.getInt("length");
    RankedTensorType type = typeOf(x);
    if (Value s = d.tensor("start"); s && dim && length && type && type.getRank() &&
                                     type.hasStaticShape()) {
      // A start known at run time: index_select at start + [0, length),
      // a negative start counted from the end; index_select's run-time
      // check refuses a window outside the dim.
      int64_t n = normDim(*dim, type.getRank());
      if (n < 0 || n >= type.getRank())
        return d.decline("dim out of range");
      Value start64 = d.cast(s, d.b.getI64Type());
      Value wrapped = d.call("torch.where",
                             {{"condition", d.binary("torch.lt", start64, d.i64(0))},
                              {"input", d.binary("torch.add", start64, d.i64(type.getDimSize(n)))},
                              {"other", start64}});
      auto rangeType = RankedTensorType::get({*length}, d.b.getI64Type());
      Value range = d.tensorConstant(rangeType, [](ArrayRef<int64_t> i) {
        return static_cast<double>(i[0]);
      });
      return one(d.call("torch.index_select",
                        {{"input", x}, {"dim", d.i64(n)},
                         {"index", d.binary("torch.add", range, wrapped)}}));
    }
    if (!dim || !start || !length || !type)
      return d.decline("narrow's arguments must be constants");
    int64_t n = normDim(*dim, type.getRank());
    if (n < 0 || n >= type.getRank())
      return d.decline("dim out of range");
    int64_t s = *start < 0 ? *start + type.getDimSize(n) : *start;
    return one(window(d, x, n, sliceOf(d, s, s + *length, 1)));
  };
  t["torch.select"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto dim = d.getInt("dim"), index = d.getInt("index");
    if (!dim || !index || typeOf(x).getRank() == 0)
      return d.decline("select's arguments must be constants");
    return one(window(d, x, normDim(*dim, typeOf(x).getRank()), d.i64(*index)));
  };
  t["torch.ops.aten.slice.Tensor"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto dim = d.getInt("dim"), step = d.getInt("step");
    std::optional<int64_t> start, end;
    if (!d.isNone("start") && !(start = d.getInt("start")))
      return d.decline("start must be a constant");
    if (!d.isNone("end") && !(end = d.getInt("end")))
      return d.decline("end must be a constant");
    if (!dim || !step || *step <= 0 || typeOf(x).getRank() == 0)
      return d.decline("dim and step must be constants, step positive");
    return one(window(d, x, normDim(*dim, typeOf(x).getRank()), sliceOf(d, start, end, *step)));
  };
  t["torch.movedim"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    int64_t rank = typeOf(x).getRank();
    auto src = d.getInts("source"), dst = d.getInts("destination");
    if (!src || !dst)
      return d.decline("source and destination must be constants");
    std::string error;
    FailureOr<SmallVector<int64_t>> perm = movedimPermutation(*src, *dst, rank, error);
    if (failed(perm))
      return d.decline(error);
    return one(d.call("torch.permute", {{"input", x}, {"dims", d.ints(*perm)}}));
  };
  for (StringRef name : {"torch.hstack", "torch.vstack", "torch.dstack", "torch.column_stack"})
    t[name] = decomposeStack;
  t["Tensor.repeat"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto reps = d.getInts("repeats");
    if (!reps || reps->size() < static_cast<size_t>(typeOf(x).getRank()) ||
        !typeOf(x).hasStaticShape())
      return d.decline("repeats must be constants, at least one per dim");
    return one(repeatTensor(d, x, *reps));
  };
  t["torch.tile"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto reps = d.getInts("dims");
    if (!reps || !typeOf(x).hasStaticShape())
      return d.decline("dims must be constants");
    SmallVector<int64_t> full(std::max<int64_t>(typeOf(x).getRank() - reps->size(), 0), 1);
    llvm::append_range(full, *reps);
    return one(repeatTensor(d, x, full));
  };
  t["torch.nn.functional.pixel_shuffle"] = [](Decomposer &d) { return pixelShuffle(d, true); };
  t["torch.nn.functional.pixel_unshuffle"] = [](Decomposer &d) { return pixelShuffle(d, false); };
  // channel_shuffle: [N, g, C/g, *] with the two group dims swapped.
  t["torch.nn.functional.channel_shuffle"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto g = d.getInt("groups");
    RankedTensorType type = typeOf(x);
    if (!g || *g <= 0 || !type.hasStaticShape() || type.getRank() < 2 ||
        type.getDimSize(1) % *g)
      return d.decline("needs constant groups dividing the channels");
    SmallVector<int64_t> split = {type.getDimSize(0), *g, type.getDimSize(1) / *g};
    llvm::append_range(split, type.getShape().drop_front(2));
    Value v = d.call("torch.transpose", {{"input", reshape(d, x, split)},
                                         {"dim0", d.i64(1)}, {"dim1", d.i64(2)}});
    return one(reshape(d, v, type.getShape()));
  };
  t["torch.split"] = decomposeSplit;
  t["torch.tensor_split"] = decomposeTensorSplit;
  t["Tensor.size"] = decomposeShapeQuery;
  t["Tensor.dim"] = decomposeShapeQuery;
  t["builtins.getattr"] = decomposeShapeQuery;
  t["torch.flip"] = decomposeFlip;
  t["torch.rot90"] = decomposeRot90;
  t["torch.unbind"] = decomposeUnbind;
  t["torch.meshgrid"] = decomposeMeshgrid;
  t["torch.broadcast_tensors"] = decomposeBroadcastTensors;
  t["torch.tril"] = decomposeTriangle;
  t["torch.triu"] = decomposeTriangle;
  t["torch.diagonal"] = decomposeDiagonal;
  t["torch.trace"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    RankedTensorType type = typeOf(x);
    if (!type || !type.hasStaticShape() || type.getRank() != 2)
      return d.decline("trace needs a static matrix");
    return one(d.unary("torch.sum", lastDiagonal(d, x, 0)));
  };
  t["torch.diag"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    RankedTensorType type = typeOf(x);
    auto k = d.getInt("diagonal");
    if (!type || !type.hasStaticShape() || !k)
      return d.decline("diag needs a static shape and a constant diagonal");
    if (type.getRank() == 2)
      return one(lastDiagonal(d, x, *k));
    if (type.getRank() != 1)
      return d.decline("diag takes a vector or a matrix");
    // A vector: its elements at (i, i + k), zeros elsewhere.
    int64_t n = type.getDimSize(0), a = std::abs(*k), size = n + a;
    Value padded = d.call("torch.nn.functional.pad",
                          {{"input", x}, {"pad", d.ints({*k >= 0 ? 0 : a, *k >= 0 ? a : 0})}});
    Value rows = d.call("Tensor.expand", {{"input", reshape(d, padded, {size, 1})},
                                          {"size", d.ints({size, size})}});
    auto maskType = RankedTensorType::get({size, size}, IntegerType::get(d.ctx, 1));
    Value off = d.tensorConstant(maskType, [&](ArrayRef<int64_t> idx) {
      return idx[1] - idx[0] != *k ? 1.0 : 0.0;
    });
    return one(d.call("Tensor.masked_fill", {{"input", rows}, {"mask", off}, {"value", d.i64(0)}}));
  };
  // repeat_interleave with an int count: each element repeated in place;
  // with a tensor of counts, see repeatByCounts.
  t["torch.repeat_interleave"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input");
    auto repeats = d.getInt("repeats");
    RankedTensorType type = typeOf(x);
    if (d.tensor("repeats") && type && type.hasStaticShape())
      return repeatByCounts(d);
    if (!repeats || !type || !type.hasStaticShape())
      return d.decline("repeats must be a constant int or a tensor");
    int64_t dim = 0;
    if (d.isNone("dim")) {
      x = reshape(d, x, {type.getNumElements()});
      type = typeOf(x);
    } else if (auto given = d.getInt("dim")) {
      if (type.getRank() == 0) {
        x = reshape(d, x, {1});
        type = typeOf(x);
      }
      dim = normDim(*given, type.getRank());
      if (dim < 0 || dim >= type.getRank())
        return d.decline("dim out of range");
    } else {
      return d.decline("dim must be a constant");
    }
    SmallVector<int64_t> inter(type.getShape()), expanded, out(type.getShape());
    inter.insert(inter.begin() + dim + 1, 1);
    expanded = inter;
    expanded[dim + 1] = *repeats;
    out[dim] *= *repeats;
    Value v = d.call("Tensor.expand", {{"input", reshape(d, x, inter)}, {"size", d.ints(expanded)}});
    return one(reshape(d, v, out));
  };
  // repeat_interleave(repeats): arange(len(repeats)) repeated by the
  // counts, the traced call's length.
  t["torch.ops.aten.repeat_interleave.Tensor"] = [](Decomposer &d) -> Results {
    Value repeats = d.tensor("repeats");
    RankedTensorType type = typeOf(repeats);
    if (!type || !type.hasStaticShape() || type.getRank() != 1)
      return d.decline("the repeats' shape is not static");
    Value index = d.call("torch.arange", {{"start", d.i64(type.getDimSize(0))},
                                          {"dtype", d.dtype(type.getElementType())}});
    return one(d.call("torch.repeat_interleave",
                      {{"input", index}, {"repeats", repeats}, {"dim", d.i64(0)}},
                      d.resultType()));
  };
  t["torch.is_floating_point"] = [](Decomposer &d) -> Results {
    bool fp = isa<FloatType>(typeOf(d.tensor("input")).getElementType());
    return one(d.constant(d.boolean(fp), d.resultType()));
  };
  t["torch.numel"] = [](Decomposer &d) -> Results {
    RankedTensorType type = typeOf(d.tensor("input"));
    if (!type || !type.hasStaticShape())
      return d.decline("the shape is not static");
    return one(d.constant(d.i64(type.getNumElements()), d.resultType()));
  };
  // copy(input, src): src converted to input's dtype and broadcast to its
  // shape.
  t["torch.ops.aten.copy.default"] = [](Decomposer &d) -> Results {
    RankedTensorType type = d.resultTensorType();
    Value src = d.cast(d.tensor("src"), type.getElementType());
    if (!src)
      return failure();
    auto st = cast<RankedTensorType>(src.getType());
    if (st.getShape() == type.getShape())
      return one(d.unary("torch.clone", src));
    return one(d.call("Tensor.expand", {{"input", src}, {"size", d.ints(type.getShape())}}));
  };
  t["torch.as_strided"] = decomposeAsStrided;
}

//===----------------------------------------------------------------------===//
// Windows and embeddings of diagonals
//===----------------------------------------------------------------------===//

/// Tensor.unfold(dim, size, step): one gather with a [windows, size] index
/// along dim, then the window dim moved last.
static Results decomposeTensorUnfold(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType type = typeOf(x);
  auto dim = d.getInt("dimension"), size = d.getInt("size"), step = d.getInt("step");
  if (!type || !type.hasStaticShape() || !dim || !size || !step || *step <= 0 || *size < 0)
    return d.decline("needs a static shape and constant arguments");
  if (type.getRank() == 0)
    x = reshape(d, x, {1});
  type = typeOf(x);
  int64_t n = normDim(*dim, type.getRank());
  int64_t extent = type.getDimSize(n);
  if (*size > extent)
    return d.decline("the window is larger than the dim");
  int64_t windows = (extent - *size) / *step + 1;
  auto indexType = RankedTensorType::get({windows, *size}, d.b.getI64Type());
  Value index = d.tensorConstant(indexType, [&](ArrayRef<int64_t> i) {
    return static_cast<double>(i[0] * *step + i[1]);
  });
  SmallVector<Attribute> items(n, d.none());
  items.push_back(OperandAttr::get(d.ctx, 0));
  Arg indices(ArrayAttr::get(d.ctx, items));
  indices.values.push_back(index);
  Value g = d.call("torch.ops.aten.index.Tensor", {{"input", x}, {"indices", indices}});
  Value r = d.call("torch.movedim", {{"input", g}, {"source", d.ints({n + 1})},
                                     {"destination", d.ints({-1})}});
  return one(reshape(d, r, d.resultTensorType().getShape()));
}

/// diag_embed: the last dim of the input laid along diagonal `offset` of
/// two new dims (zeros elsewhere), which then move to dim1 and dim2.
static Results decomposeDiagEmbed(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType type = typeOf(x), result = d.resultTensorType();
  auto offset = d.getInt("offset"), dim1 = d.getInt("dim1"), dim2 = d.getInt("dim2");
  if (!type || !type.hasStaticShape() || !result || !result.hasStaticShape() || !offset ||
      !dim1 || !dim2 || type.getRank() == 0)
    return d.decline("needs static shapes and constant arguments");
  int64_t rank = result.getRank(), k = *offset;
  int64_t a = normDim(*dim1, rank), b = normDim(*dim2, rank);
  if (a < 0 || b < 0 || a >= rank || b >= rank || a == b)
    return d.decline("dims out of range");
  int64_t n = type.getShape().back(), size = n + std::abs(k);
  SmallVector<int64_t> lead(type.getShape().drop_back());
  // Pad to the diagonal's length: the value of (i, j) is v[i] (k >= 0) or
  // v[j] (k < 0).
  Value padded = d.call("torch.nn.functional.pad", {{"input", x}, {"pad", d.ints({0, std::abs(k)})}});
  SmallVector<int64_t> column(lead), square(lead);
  column.append(k >= 0 ? SmallVector<int64_t>{size, 1} : SmallVector<int64_t>{1, size});
  square.append({size, size});
  Value full = d.call("Tensor.expand", {{"input", reshape(d, padded, column)}, {"size", d.ints(square)}});
  auto maskType = RankedTensorType::get({size, size}, IntegerType::get(d.ctx, 1));
  Value off = d.tensorConstant(maskType, [&](ArrayRef<int64_t> i) {
    return i[1] - i[0] != k ? 1.0 : 0.0;
  });
  Value r = d.call("Tensor.masked_fill", {{"input", full}, {"mask", off}, {"value", d.i64(0)}});
  // The two new dims (now last) go to dim1 and dim2.
  return one(d.call("torch.movedim", {{"input", r}, {"source", d.ints({rank - 2, rank - 1})},
                                      {"destination", d.ints({a, b})}}));
}
