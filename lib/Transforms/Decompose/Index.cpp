//===- Index.cpp - decompositions of indexing entries ---------------------===//
//
// index_select and embedding as `aten.index` with one index tensor;
// take_along_dim as `gather` after broadcasting; index_put and `x[index] =
// v` with index tensors as scatters; embedding_bag as a scatter_reduce of
// its rows; one_hot as a comparison with arange.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"
#include "mlir/Dialect/Traits.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

Value decompose::indexDim(Decomposer &d, Value x, int64_t dim, Value index) {
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
  if (dim && xt && st && it && xt.getRank() == 0 && st.getRank() == 0 &&
      it.hasStaticShape() && it.getNumElements() == 1 && (*dim == 0 || *dim == -1)) {
    // A 0-d input is one element, the index's only value must be 0: the
    // result is the input plus alpha * source (index_add), or the source.
    assertInRange(d, index, 0, 0, "index out of range in self");
    if (!add)
      return one(d.unary("torch.clone", source));
    std::optional<double> alpha = d.getFloat("alpha");
    if (!alpha)
      return d.decline("alpha must be a constant");
    if (*alpha != 1)
      source = d.cast(d.binary("torch.mul", source, d.arg("alpha")), xt.getElementType());
    return one(d.binary("torch.add", x, source));
  }
  if (!dim || !xt || !st || !it || !st.hasStaticShape() || it.getRank() > 1 || xt.getRank() == 0 ||
      st.getRank() != xt.getRank())
    return d.decline("needs a constant dim, a 1-D index and a source of the input's rank");
  int64_t n = *dim < 0 ? *dim + xt.getRank() : *dim;
  if (it.getRank() == 0)
    index = d.call("torch.reshape", {{"input", index}, {"shape", d.ints({1})}});
  // (index_add takes an int32 index too; scatter_add only int64.)
  index = d.cast(index, d.b.getI64Type());
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
void decompose::assertInRange(Decomposer &d, Value index, int64_t low,
                              int64_t high, const std::string &message,
                              std::optional<int64_t> except) {
  // (An unbounded side, INT64_MIN or INT64_MAX, is not compared: such a
  // bound does not survive every kernel's conversion of a Python number.)
  bool checkLow = low != std::numeric_limits<int64_t>::min();
  bool checkHigh = high != std::numeric_limits<int64_t>::max();
  Value above = checkLow ? d.binary("torch.ge", index, d.i64(low)) : Value();
  Value below = checkHigh ? d.binary("torch.le", index, d.i64(high)) : Value();
  Value ok = above && below
                 ? d.call("torch.logical_and", {{"input", above}, {"other", below}})
                 : (above ? above : below);
  if (!ok)
    return;
  if (except)
    ok = d.call("torch.logical_or",
                {{"input", ok},
                 {"other", d.binary("torch.eq", index, d.i64(*except))}});
  d.call("torch._assert", {{"condition", d.call("torch.all", {{"input", ok}})},
                           {"message", d.str(message)}});
}

static std::string outOfBounds(int64_t dim, int64_t size) {
  return "an index is out of bounds for dimension " + std::to_string(dim) +
         " with size " + std::to_string(size);
}

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
  assertInRange(d, index, -size, size - 1, outOfBounds(n, size));
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
static Results decomposeIndexPutLeading(Decomposer &d, Value x, Value values,
                                        Arg indices);

/// index_put whose indices hold None (a whole dim): x with its indexed dims
/// moved to the front, the values moved to match (torch keeps adjacent
/// index tensors' broadcast dims in place, and puts them first when a None
/// separates them), index_put on the leading dims, and the result moved
/// back.
static Results decomposeIndexPut(Decomposer &d) {
  Value x = d.tensor("input"), values = d.tensor("values");
  Arg indices = d.arg("indices");
  ArrayAttr list = dyn_cast_or_null<ArrayAttr>(indices.attr);
  if (!list)
    if (auto tuple = dyn_cast_or_null<TupleAttr>(indices.attr))
      list = tuple.getElements();
  RankedTensorType xt = typeOf(x), vt = typeOf(values);
  if (!list || !xt || !xt.hasStaticShape() || !vt || !vt.hasStaticShape() ||
      llvm::none_of(list, [](Attribute a) { return isa<NoneAttr>(a); }))
    return decomposeIndexPutLeading(d, x, values, indices);
  SmallVector<int64_t> positions;
  SmallVector<Value> tensors;
  for (auto [k, a] : llvm::enumerate(list)) {
    if (isa<NoneAttr>(a))
      continue;
    auto m = dyn_cast<OperandAttr>(a);
    if (!m)
      return d.decline("an index is neither a tensor nor None");
    positions.push_back(k);
    tensors.push_back(indices.values[m.getIndex()]);
  }
  if (tensors.empty() || list.size() > static_cast<size_t>(xt.getRank()))
    return d.decline("indices need a tensor and at most one entry a dim");
  SmallVector<int64_t> broadcast;
  for (Value t : tensors) {
    RankedTensorType it = typeOf(t);
    if (!it || !it.hasStaticShape())
      return d.decline("the index tensors are not static");
    FailureOr<SmallVector<int64_t>> b = broadcastShape(broadcast, it.getShape());
    if (failed(b))
      return d.decline("the index tensors do not broadcast together");
    broadcast = *b;
  }
  int64_t rank = xt.getRank(), first = positions.front();
  bool adjacent = positions.back() - first + 1 ==
                  static_cast<int64_t>(positions.size());
  // x's dims, indexed ones first.
  SmallVector<int64_t> perm(positions), rest;
  for (int64_t k = 0; k < rank; ++k)
    if (!llvm::is_contained(positions, k))
      rest.push_back(k);
  llvm::append_range(perm, rest);
  // The values' shape as torch indexes: adjacent index dims in place.
  SmallVector<int64_t> indexed, restShape;
  for (int64_t k : rest)
    restShape.push_back(xt.getDimSize(k));
  int64_t before = adjacent ? first : 0;
  llvm::append_range(indexed, ArrayRef<int64_t>(restShape).take_front(before));
  llvm::append_range(indexed, broadcast);
  llvm::append_range(indexed, ArrayRef<int64_t>(restShape).drop_front(before));
  Value v = values;
  if (vt.getShape() != ArrayRef<int64_t>(indexed))
    v = d.call("Tensor.expand", {{"input", v}, {"size", d.ints(indexed)}});
  if (before > 0) {
    SmallVector<int64_t> vperm;
    int64_t nb = broadcast.size();
    for (int64_t k = 0; k < nb; ++k)
      vperm.push_back(before + k);
    for (int64_t k = 0; k < before; ++k)
      vperm.push_back(k);
    for (int64_t k = before + nb; k < static_cast<int64_t>(indexed.size()); ++k)
      vperm.push_back(k);
    v = d.call("torch.permute", {{"input", v}, {"dims", d.ints(vperm)}});
  }
  bool identity = llvm::equal(perm, llvm::seq<int64_t>(0, rank));
  Value xp = identity ? x : d.call("torch.permute", {{"input", x}, {"dims", d.ints(perm)}});
  Value r = d.call(d.target(), {{"input", xp},
                                {"indices", Arg::list(d.ctx, tensors)},
                                {"values", v},
                                {"accumulate", d.arg("accumulate")}});
  if (identity || !r)
    return one(r);
  SmallVector<int64_t> inverse(rank);
  for (int64_t k = 0; k < rank; ++k)
    inverse[perm[k]] = k;
  return one(d.call("torch.permute", {{"input", r}, {"dims", d.ints(inverse)}}));
}

/// A run-time check that bool `mask` selects exactly `k` elements: an
/// index_select at |count - k| of a one-element zero tensor, which is 0
/// (to add to an index) when the count is k and fails with index_select's
/// out-of-bounds error otherwise. (Compiled code has no other way to
/// raise from a tensor value.)
static Value countCheck(Decomposer &d, Value mask, int64_t k) {
  Type i64 = IntegerType::get(d.ctx, 64);
  Value total = d.call("torch.sum", {{"input", d.cast(mask, i64)}});
  return d.call(
      "torch.index_select",
      {{"input", d.tensorConstant(RankedTensorType::get({1}, i64),
                                  [](ArrayRef<int64_t>) { return 0.0; })},
       {"dim", d.i64(0)},
       {"index", reshape(d, d.unary("torch.abs", d.binary("torch.sub", total, d.i64(k))), {1})}});
}

/// For a 1-D bool mask, each position's rank among the selected ones:
/// cumsum(mask) - 1, clamped at 0 (so positions before the first selected
/// one read row 0 too). The mask decompositions index values with it.
static Value selectedRank(Decomposer &d, Value flatMask) {
  Value counts = d.call("torch.cumsum", {{"input", d.cast(flatMask, IntegerType::get(d.ctx, 64))},
                                         {"dim", d.i64(0)}});
  return d.call("torch.clamp", {{"input", d.binary("torch.sub", counts, d.i64(1))},
                                {"min", d.i64(0)}});
}

/// index_put with one bool mask over x's leading dims, in static shapes:
/// x viewed as [M, rest...] (M the mask's elements), the selected rows take
/// the values' rows in order, row i the values' row cumsum(mask)[i] - 1
/// (an index_select). Values with K > 1 rows need exactly K selected rows,
/// as torch does: an index_select at |count - K| of a one-element tensor
/// fails at run time otherwise (its out-of-bounds error); one row (or none)
/// broadcasts to any count.
static Results decomposeIndexPutMask(Decomposer &d, Value x, Value values,
                                     Value mask, bool accumulate) {
  RankedTensorType xt = typeOf(x), vt = typeOf(values), mt = typeOf(mask);
  if (!xt || !vt || !mt || !xt.hasStaticShape() || !vt.hasStaticShape() ||
      !mt.hasStaticShape() || mt.getRank() > xt.getRank() ||
      mt.getShape() != xt.getShape().take_front(mt.getRank()))
    return d.decline("the mask does not cover x's leading dims");
  if (accumulate && xt.getElementType().isInteger(1))
    return d.decline("accumulating into a bool tensor is not decomposed");
  ArrayRef<int64_t> rest = xt.getShape().drop_front(mt.getRank());
  int64_t m = mt.getNumElements();
  // The values as [K, rest...]: leading ones dropped, a missing row dim 1.
  ArrayRef<int64_t> vs = vt.getShape();
  size_t wide = rest.size() + 1;
  if (vs.size() > wide) {
    if (!llvm::all_of(vs.drop_back(wide), [](int64_t s) { return s == 1; }))
      return d.decline("the values do not broadcast to the indexed shape");
    vs = vs.take_back(wide);
  }
  int64_t rows = vs.size() == wide ? vs.front() : 1;
  SmallVector<int64_t> rowShape = {rows};
  llvm::append_range(rowShape, rest);
  SmallVector<int64_t> given(wide - std::min(wide, vs.size()), 1);
  llvm::append_range(given, vs);
  Value v = reshape(d, d.cast(values, xt.getElementType()), given);
  if (typeOf(v) && typeOf(v).getShape() != ArrayRef<int64_t>(rowShape))
    v = d.call("Tensor.expand", {{"input", v}, {"size", d.ints(rowShape)}});
  Value flatMask = reshape(d, mask, {m});
  SmallVector<int64_t> flatShape = {m};
  llvm::append_range(flatShape, rest);
  Value gathered;
  if (rows == 1) {
    gathered = d.call("Tensor.expand", {{"input", v}, {"size", d.ints(flatShape)}});
  } else {
    Value row = selectedRank(d, flatMask);
    row = d.binary("torch.add", row, countCheck(d, flatMask, rows));
    gathered = d.call("torch.index_select",
                      {{"input", v}, {"dim", d.i64(0)}, {"index", row}});
  }
  SmallVector<int64_t> maskShape = {m};
  maskShape.append(rest.size(), 1);
  Value where = reshape(d, flatMask, maskShape);
  Value flat = reshape(d, x, flatShape);
  Value update = accumulate ? d.binary("torch.add", flat, gathered) : gathered;
  Value out = d.call("torch.where", {{"condition", where}, {"input", update},
                                     {"other", flat}});
  return one(out ? reshape(d, out, xt.getShape()) : Value());
}

/// 1-D bool masks among integer index tensors (`x[i, mask] = v`) as the
/// positions they select: torch pairs the mask's nonzero positions with
/// the integers', so a mask must select as many as the 1-D integer indices
/// hold (K). The r-th selected position is #{j : cumsum(mask)[j] <= r}; a
/// count other than K fails at run time (an index_select at |count - K| of
/// a one-element tensor, as in decomposeIndexPutMask). Fails, changing
/// nothing, when a mask is not 1-D or no 1-D integer index gives K.
static LogicalResult masksToPositions(Decomposer &d, SmallVectorImpl<Value> &index) {
  auto isMask = [](Value v) {
    RankedTensorType t = typeOf(v);
    return t && t.getElementType().isInteger(1);
  };
  if (index.size() < 2 || llvm::none_of(index, isMask))
    return success();
  std::optional<int64_t> k;
  for (Value v : index) {
    RankedTensorType t = typeOf(v);
    if (!t || !t.hasStaticShape())
      return failure();
    if (isMask(v)) {
      if (t.getRank() != 1)
        return failure();
      continue;
    }
    if (t.getRank() > 1 || (t.getRank() == 1 && k && *k != t.getDimSize(0)))
      return failure();
    if (t.getRank() == 1)
      k = t.getDimSize(0);
  }
  if (!k)
    return failure();
  Type i64 = IntegerType::get(d.ctx, 64);
  for (Value &v : index) {
    if (!isMask(v))
      continue;
    int64_t n = typeOf(v).getDimSize(0);
    Value counts = d.call("torch.cumsum", {{"input", d.cast(v, i64)}, {"dim", d.i64(0)}});
    Value ranks = d.tensorConstant(RankedTensorType::get({*k, 1}, i64),
                                   [](ArrayRef<int64_t> i) { return static_cast<double>(i[0]); });
    Value before = d.binary("torch.le", reshape(d, counts, {1, n}), ranks);
    Value positions = d.call("torch.sum", {{"input", before}, {"dim", d.ints({1})}});
    v = d.binary("torch.add", positions, countCheck(d, v, *k));
    if (!v)
      return failure();
  }
  return success();
}

static Results decomposeIndexPutLeading(Decomposer &d, Value x, Value values,
                                        Arg indices) {
  auto accumulate = d.getBool("accumulate");
  RankedTensorType xt = typeOf(x), vt = typeOf(values);
  std::optional<SmallVector<Value>> index = indexTensors(indices);
  if (!accumulate || !xt || !xt.hasStaticShape() || !vt || !index ||
      index->size() > static_cast<size_t>(xt.getRank()))
    return d.decline("only index tensors on the leading dims (no None) are "
                     "decomposed");
  size_t k = index->size();
  if (RankedTensorType mt = typeOf(index->front());
      k == 1 && mt && mt.getElementType().isInteger(1))
    return decomposeIndexPutMask(d, x, values, index->front(), *accumulate);
  if (failed(masksToPositions(d, *index)))
    return d.decline("only static integer index tensors are decomposed (a "
                     "bool mask selects a number of elements known at run "
                     "time only, unless 1-D beside 1-D integer indices)");
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
    assertInRange(d, i, -xt.getDimSize(j), xt.getDimSize(j) - 1,
                  outOfBounds(j, xt.getDimSize(j)));
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
/// x's leading dims with one value is masked_fill, with rows of values
/// index_put's mask form.
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
      if (vt && vt.hasStaticShape() && vt.getNumElements() != 1)
        return decomposeIndexPutMask(d, x, value, (*tensors)[0],
                                     /*accumulate=*/false);
      if (!vt || !vt.hasStaticShape())
        return d.decline("the values' shape is not static");
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

static Results decomposeEmbeddingBag(Decomposer &d);
static Results decomposeAtenEmbeddingBag(Decomposer &d);

/// torch.masked_scatter in static shapes: selected position i (of the
/// broadcast mask, flattened) takes source element cumsum(mask)[i] - 1, an
/// index_select whose own run-time check refuses a source shorter than
/// the selected count.
static Results decomposeMaskedScatter(Decomposer &d) {
  Value x = d.tensor("input"), mask = d.tensor("mask"), source = d.tensor("source");
  RankedTensorType result = d.resultTensorType(), st = typeOf(source),
                   mt = typeOf(mask);
  if (!result || !st || !mt || !result.hasStaticShape() || !st.hasStaticShape())
    return d.decline("the shapes must be static");
  if (st.getNumElements() == 0)
    return d.decline("the source is empty");
  int64_t m = result.getNumElements();
  Value selected = mt.getElementType().isInteger(1) ? mask : d.binary("torch.ne", mask, d.i64(0));
  selected = reshape(d, d.call("Tensor.expand", {{"input", selected},
                                                 {"size", d.ints(result.getShape())}}),
                     {m});
  Value flat = reshape(d, d.call("Tensor.expand", {{"input", x},
                                                   {"size", d.ints(result.getShape())}}),
                       {m});
  Value row = selectedRank(d, selected);
  Value gathered = d.call("torch.index_select",
                          {{"input", reshape(d, source, {st.getNumElements()})},
                           {"dim", d.i64(0)}, {"index", row}});
  Value out = d.call("torch.where", {{"condition", selected}, {"input", gathered},
                                     {"other", flat}});
  return one(out ? reshape(d, out, result.getShape()) : Value());
}

/// torch.unique_consecutive over the input as rows [n, r] (dim None: its
/// elements; else its slices along dim, moved first): a run starts at row
/// 0 and where a row differs from the one before in any element (so NaN
/// starts one); the values are the start rows (argwhere, index_select), the
/// inverse the running count of starts, the counts the distances between
/// starts. The run count is the traced call's.
static Results decomposeUniqueConsecutive(Decomposer &d) {
  Value x = d.tensor("input");
  RankedTensorType xt = typeOf(x);
  std::optional<bool> inverse = d.getBool("return_inverse"),
                      counts = d.getBool("return_counts");
  if (!xt || !xt.hasStaticShape() || !inverse || !counts)
    return d.decline("needs a static shape and constant flags");
  SmallVector<Type> types;
  if (auto tuple = dyn_cast<TupleType>(d.resultType()))
    types.assign(tuple.getTypes().begin(), tuple.getTypes().end());
  else
    types.push_back(d.resultType());
  auto valuesType = dyn_cast<RankedTensorType>(types[0]);
  if (!valuesType || !valuesType.hasStaticShape())
    return d.decline("the number of runs is not known");
  int64_t dim = -1;
  if (!d.isNone("dim")) {
    std::optional<int64_t> given = d.getInt("dim");
    if (!given || xt.getRank() == 0)
      return d.decline("needs a constant dim of a tensor of rank 1 or more");
    dim = normDim(*given, xt.getRank());
  }
  MLIRContext *ctx = d.ctx;
  Type i64 = IntegerType::get(ctx, 64), i1 = IntegerType::get(ctx, 1);
  int64_t n = dim < 0 ? xt.getNumElements() : xt.getDimSize(dim);
  int64_t runs = valuesType.getDimSize(dim < 0 ? 0 : dim);
  auto filled = [&](ArrayRef<int64_t> shape, Type element, double v) {
    return d.tensorConstant(RankedTensorType::get(shape, element),
                            [v](ArrayRef<int64_t>) { return v; });
  };
  SmallVector<Value> out;
  if (n == 0) {
    out.push_back(dim < 0 ? reshape(d, x, {0}) : x);
    if (*inverse)
      out.push_back(filled(cast<RankedTensorType>(types[1]).getShape(), i64, 0));
    if (*counts)
      out.push_back(filled({0}, i64, 0));
    return out;
  }
  // The rows: [n, r].
  Value moved = dim <= 0 ? x
                         : d.call("torch.movedim", {{"input", x},
                                                    {"source", d.i64(dim)},
                                                    {"destination", d.i64(0)}});
  SmallVector<int64_t> movedShape(typeOf(moved).getShape());
  Value rows = reshape(d, moved, {n, xt.getNumElements() / n});
  Value isNew = filled({1}, i1, 1);
  if (n > 1) {
    Value diff = d.binary("torch.ne", window(d, rows, 0, sliceOf(d, 1, n, 1)),
                          window(d, rows, 0, sliceOf(d, 0, n - 1, 1)));
    Value changed = d.call("torch.any", {{"input", diff}, {"dim", d.i64(1)}});
    isNew = d.call("torch.cat", {{"tensors", Arg::list(ctx, {isNew, changed})},
                                 {"dim", d.i64(0)}});
  }
  Value starts = d.call(
      "torch.select",
      {{"input", d.call("torch.argwhere", {{"input", isNew}},
                        RankedTensorType::get({runs, 1}, i64))},
       {"dim", d.i64(1)},
       {"index", d.i64(0)}});
  Value picked = d.call("torch.index_select", {{"input", rows}, {"dim", d.i64(0)}, {"index", starts}});
  if (dim < 0) {
    out.push_back(reshape(d, picked, {runs}));
  } else {
    movedShape[0] = runs;
    Value v = reshape(d, picked, movedShape);
    out.push_back(dim == 0 ? v
                           : d.call("torch.movedim", {{"input", v},
                                                      {"source", d.i64(0)},
                                                      {"destination", d.i64(dim)}}));
  }
  if (*inverse) {
    Value run = d.binary("torch.sub", d.call("torch.cumsum", {{"input", d.cast(isNew, i64)},
                                                             {"dim", d.i64(0)}}),
                         d.i64(1));
    out.push_back(dim < 0 ? reshape(d, run, xt.getShape()) : run);
  }
  if (*counts) {
    Value end = filled({1}, i64, double(n));
    Value ends = runs == 1 ? end
                           : d.call("torch.cat", {{"tensors", Arg::list(ctx, {window(d, starts, 0, sliceOf(d, 1, runs, 1)), end})},
                                                  {"dim", d.i64(0)}});
    out.push_back(d.binary("torch.sub", ends, starts));
  }
  for (Value v : out)
    if (!v)
      return failure();
  return out;
}

/// `index` (static, int64) with negative entries counted from the end of
/// `n` elements, checked in range at run time (take, put).
static Value wrappedFlatIndex(Decomposer &d, Value index, int64_t n,
                              StringRef op) {
  RankedTensorType ti = typeOf(index);
  assertInRange(d, index, -n, n - 1,
                (op + ": an index is out of range for a tensor of " +
                 std::to_string(n) + " elements").str());
  Value flat = reshape(d, index, {ti.getNumElements()});
  return d.call("torch.where", {{"condition", d.binary("torch.lt", flat, d.i64(0))},
                                {"input", d.binary("torch.add", flat, d.i64(n))},
                                {"other", flat}});
}

/// put: a scatter (scatter_add when accumulating) of the flattened source
/// into the flattened input.
static Results decomposePut(Decomposer &d) {
  Value x = d.tensor("input"), index = d.tensor("index"), src = d.tensor("source");
  auto accumulate = d.getBool("accumulate");
  if (!accumulate || !allStaticShapes({x, index, src}))
    return d.decline("needs static shapes and a constant accumulate");
  RankedTensorType tx = typeOf(x);
  int64_t n = tx.getNumElements(), k = typeOf(index).getNumElements();
  Value idx = wrappedFlatIndex(d, index, n, "put");
  Value flat = reshape(d, x, {n});
  Value values = reshape(d, src, {k});
  Value out;
  if (*accumulate && tx.getElementType().isInteger(1))
    out = d.binary("torch.logical_or", flat,
                   d.call("torch.scatter_add",
                          {{"input", d.unary("torch.zeros_like", flat)}, {"dim", d.i64(0)},
                           {"index", idx}, {"src", values}}));
  else
    out = d.call(*accumulate ? "torch.scatter_add" : "torch.scatter",
                 {{"input", flat}, {"dim", d.i64(0)}, {"index", idx}, {"src", values}});
  return one(reshape(d, out, tx.getShape()));
}

/// A scatter of src (converted to the input's dtype) into the flattened
/// input at the storage offsets of a strided view (diagonal_scatter,
/// as_strided_scatter): a constant index of the view's offsets.
static Results scatterStridedView(Decomposer &d, ArrayRef<int64_t> shape,
                                  int64_t offset, ArrayRef<int64_t> strides) {
  Value x = d.tensor("input");
  RankedTensorType tx = typeOf(x);
  int64_t n = tx.getNumElements(), k = 1;
  for (int64_t s : shape)
    k *= s;
  if (k == 0)
    return one(d.unary("torch.clone", x));
  auto indexType = RankedTensorType::get({k}, d.b.getI64Type());
  SmallVector<int64_t> pos(shape.size(), 0);
  Value index = d.tensorConstant(indexType, [&](ArrayRef<int64_t> i) {
    int64_t at = offset, rest = i[0];
    for (int64_t j = shape.size() - 1; j >= 0; --j) {
      at += (rest % shape[j]) * strides[j];
      rest /= shape[j];
    }
    return static_cast<double>(at);
  });
  Value values = reshape(d, d.cast(d.tensor("src"), tx.getElementType()), {k});
  Value out = d.call("torch.scatter", {{"input", reshape(d, x, {n})}, {"dim", d.i64(0)},
                                       {"index", index}, {"src", values}});
  return one(reshape(d, out, tx.getShape()));
}

static SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

static Results decomposeDiagonalScatter(Decomposer &d) {
  RankedTensorType tx = typeOf(d.tensor("input"));
  auto off = d.getInt("offset"), a = d.getInt("dim1"), b = d.getInt("dim2");
  if (!off || !a || !b || !allStaticShapes({d.tensor("input"), d.tensor("src")}) ||
      tx.getRank() < 2)
    return d.decline("needs constant dims and static shapes");
  int64_t rank = tx.getRank(), d1 = normDim(*a, rank), d2 = normDim(*b, rank);
  SmallVector<int64_t> strides = rowMajorStrides(tx.getShape()), shape, viewStrides;
  for (int64_t i = 0; i < rank; ++i)
    if (i != d1 && i != d2) {
      shape.push_back(tx.getDimSize(i));
      viewStrides.push_back(strides[i]);
    }
  int64_t rows = std::max<int64_t>(-*off, 0), cols = std::max<int64_t>(*off, 0);
  int64_t len = std::max<int64_t>(
      std::min(tx.getDimSize(d1) - rows, tx.getDimSize(d2) - cols), 0);
  shape.push_back(len);
  viewStrides.push_back(strides[d1] + strides[d2]);
  return scatterStridedView(d, shape, rows * strides[d1] + cols * strides[d2],
                            viewStrides);
}

static Results decomposeAsStridedScatter(Decomposer &d) {
  auto size = d.getInts("size"), stride = d.getInts("stride");
  std::optional<int64_t> offset = d.isNone("storage_offset")
                                      ? std::optional<int64_t>(0)
                                      : d.getInt("storage_offset");
  if (!size || !stride || !offset ||
      !allStaticShapes({d.tensor("input"), d.tensor("src")}))
    return d.decline("needs constant sizes, strides and offset, and static shapes");
  return scatterStridedView(d, *size, *offset, *stride);
}

/// index_reduce: scatter_reduce with the index spread over the source's
/// shape along dim (torch's index_reduce reduces each source slice into
/// the input's slice index[i], as scatter_reduce does element by
/// element); an index outside [0, size) is refused at run time, as torch
/// refuses it.
static Results decomposeIndexReduce(Decomposer &d) {
  Value x = d.tensor("input"), index = d.tensor("index"), src = d.tensor("source");
  std::optional<int64_t> dim = d.getInt("dim");
  if (!dim || !allStaticShapes({x, index, src}))
    return d.decline("needs static shapes and a constant dim");
  RankedTensorType tx = typeOf(x), ts = typeOf(src);
  int64_t rank = std::max<int64_t>(tx.getRank(), 1), n = normDim(*dim, rank);
  SmallVector<int64_t> shape(tx.getShape()), srcShape(ts.getShape());
  if (shape.empty())
    shape = {1};
  if (srcShape.empty())
    srcShape = {1};
  if (static_cast<int64_t>(srcShape.size()) != rank)
    return d.decline("source and input ranks differ");
  Value idx = d.cast(reshape(d, index, {typeOf(index).getNumElements()}), d.b.getI64Type());
  assertInRange(d, idx, 0, shape[n] - 1, "index out of range in self");
  SmallVector<int64_t> along(rank, 1);
  along[n] = srcShape[n];
  idx = d.call("Tensor.expand", {{"input", reshape(d, idx, along)}, {"size", d.ints(srcShape)}});
  Value out = d.call("torch.scatter_reduce", {{"input", reshape(d, x, shape)},
                                              {"dim", d.i64(n)},
                                              {"index", idx},
                                              {"src", reshape(d, src, srcShape)},
                                              {"reduce", d.arg("reduce")},
                                              {"include_self", d.arg("include_self")}});
  return one(reshape(d, out, tx.getShape()));
}

void decompose::populateIndexDecompositions(DecompositionTable &t) {
  t["torch.index_reduce"] = decomposeIndexReduce;
  t["torch.functional.unique_consecutive"] = decomposeUniqueConsecutive;
  t["torch.put"] = decomposePut;
  t["torch.diagonal_scatter"] = decomposeDiagonalScatter;
  t["torch.as_strided_scatter"] = decomposeAsStridedScatter;
  // take: the flattened input gathered at the flattened index (negative
  // ones wrapped; one out of range is torch's error at run time).
  t["torch.take"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input"), index = d.tensor("index");
    RankedTensorType tx = typeOf(x), ti = typeOf(index);
    if (!tx || !ti || !tx.hasStaticShape() || !ti.hasStaticShape())
      return d.decline("needs static shapes");
    int64_t n = tx.getNumElements();
    Value wrapped = wrappedFlatIndex(d, index, n, "take");
    Value picked = indexDim(d, reshape(d, x, {n}), 0, wrapped);
    return one(reshape(d, picked, ti.getShape()));
  };
  t["torch.masked_scatter"] = decomposeMaskedScatter;
  // select_scatter: a slice_scatter of src with the selected dim restored.
  t["torch.select_scatter"] = [](Decomposer &d) -> Results {
    RankedTensorType x = typeOf(d.tensor("input"));
    auto dim = d.getInt("dim"), index = d.getInt("index");
    if (!x || !x.hasStaticShape() || !dim || !index || x.getRank() == 0)
      return d.decline("needs a static input and constant dim and index");
    int64_t n = *dim < 0 ? *dim + x.getRank() : *dim;
    int64_t i = *index < 0 ? *index + x.getDimSize(n) : *index;
    Value src = d.call("torch.unsqueeze", {{"input", d.tensor("src")}, {"dim", d.i64(n)}});
    return one(d.call("torch.slice_scatter", {{"input", d.tensor("input")}, {"src", src},
                                              {"dim", d.i64(n)}, {"start", d.i64(i)},
                                              {"end", d.i64(i + 1)}}));
  };
  t["torch.nn.functional.embedding_bag"] = decomposeEmbeddingBag;
  t["torch.ops.aten.embedding_bag.padding_idx"] = decomposeAtenEmbeddingBag;
  t["torch.ops.aten._embedding_bag.default"] = decomposeAtenEmbeddingBag;
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
    if (dim && xt && it && xt.getRank() == 0 && (*dim == 0 || *dim == -1)) {
      // A 0-d input is one element: every index must be 0, and the result
      // is the input (torch's, whatever the index's length).
      assertInRange(d, index, 0, 0, "index out of range in self");
      return one(d.unary("torch.clone", x));
    }
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
    // (aten.index counts a negative index from the end; embedding does not.)
    if (RankedTensorType wt = typeOf(d.tensor("weight"));
        wt && wt.getRank() > 0 && !wt.isDynamicDim(0))
      assertInRange(d, d.tensor("input"), 0, wt.getDimSize(0) - 1,
                    "index out of range in self");
    return one(indexDim(d, d.tensor("weight"), 0, d.tensor("input")));
  };
  // nonzero: argwhere's rows, or with as_tuple its columns (a 0-d input
  // read as 1-D); the count is the traced call's.
  t["torch.nonzero"] = [](Decomposer &d) -> Results {
    std::optional<bool> asTuple = d.getBool("as_tuple");
    Value x = d.tensor("input");
    RankedTensorType xt = typeOf(x);
    if (!asTuple || !xt)
      return d.decline("as_tuple must be a constant");
    if (!*asTuple)
      return one(d.call("torch.argwhere", {{"input", x}}, d.resultType()));
    auto tuple = dyn_cast<TupleType>(d.resultType());
    auto column = tuple && tuple.size()
                      ? dyn_cast<RankedTensorType>(tuple.getType(0))
                      : RankedTensorType();
    if (!column || column.getRank() != 1)
      return d.decline("the result is not a tuple of 1-D tensors");
    if (xt.getRank() == 0)
      x = reshape(d, x, {1});
    int64_t rank = std::max<int64_t>(xt.getRank(), 1);
    Value rows = d.call(
        "torch.argwhere", {{"input", x}},
        RankedTensorType::get({column.getDimSize(0), rank}, column.getElementType()));
    SmallVector<Value> columns;
    for (int64_t i = 0; i < rank; ++i)
      columns.push_back(d.call("torch.select", {{"input", rows}, {"dim", d.i64(1)},
                                                {"index", d.i64(i)}}));
    return columns;
  };
  // masked_select: the broadcast input, flattened, at argwhere's rows of
  // the broadcast mask (the count is the traced call's).
  t["torch.masked_select"] = [](Decomposer &d) -> Results {
    Value x = d.tensor("input"), mask = d.tensor("mask");
    RankedTensorType xt = typeOf(x), mt = typeOf(mask), result = d.resultTensorType();
    if (!xt || !mt || !result || !xt.hasStaticShape() || !mt.hasStaticShape())
      return d.decline("needs static shapes");
    SmallVector<int64_t> shape;
    if (!OpTrait::util::getBroadcastedShape(xt.getShape(), mt.getShape(), shape))
      return d.decline("the input and the mask do not broadcast");
    int64_t m = ShapedType::getNumElements(shape);
    if (!mt.getElementType().isInteger(1)) {
      assertInRange(d, mask, 0, 1, "Mask tensor can take 0 and 1 values only");
      mask = d.binary("torch.ne", mask, d.i64(0));
    }
    auto flat = [&](Value v) {
      return reshape(d, d.call("Tensor.expand", {{"input", v}, {"size", d.ints(shape)}}), {m});
    };
    Type i64 = IntegerType::get(d.ctx, 64);
    Value rows = d.call("torch.argwhere", {{"input", flat(mask)}},
                        RankedTensorType::get({result.getDimSize(0), 1}, i64));
    Value index = d.call("torch.select", {{"input", rows}, {"dim", d.i64(1)}, {"index", d.i64(0)}});
    return one(d.call("torch.index_select",
                      {{"input", flat(x)}, {"dim", d.i64(0)}, {"index", index}}));
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
  // one_hot: x[..., None] == arange(num_classes), as int64.
  t["torch.nn.functional.one_hot"] = [](Decomposer &d) -> Results {
    RankedTensorType result = d.resultTensorType();
    if (!result || !result.hasStaticShape() || result.getRank() == 0)
      return d.decline("the number of classes is not known statically");
    int64_t classes = result.getShape().back();
    auto rangeType = RankedTensorType::get({classes}, d.b.getI64Type());
    Value range = d.tensorConstant(rangeType, [](ArrayRef<int64_t> i) {
      return static_cast<double>(i[0]);
    });
    Value input = d.tensor("input");
    assertInRange(d, input, 0, std::numeric_limits<int64_t>::max(),
                  "Class values must be non-negative.");
    assertInRange(d, input, std::numeric_limits<int64_t>::min(), classes - 1,
                  "Class values must be smaller than num_classes.");
    Value x = d.call("torch.unsqueeze", {{"input", input}, {"dim", d.i64(-1)}});
    return one(d.cast(d.binary("torch.eq", x, range), result.getElementType()));
  };
}

//===----------------------------------------------------------------------===//
// embedding_bag
//===----------------------------------------------------------------------===//

/// The bag number of each of `n` indices: #{offsets[i] <= k} - 1, as
/// int64 (torch's offset2bag: empty bags are skipped over).
static Value bagNumbers(Decomposer &d, Value offsets, int64_t n) {
  Value positions = d.tensorConstant(RankedTensorType::get({n, 1}, d.b.getI64Type()),
                                     [](ArrayRef<int64_t> i) { return static_cast<double>(i[0]); });
  return d.binary("torch.sub",
                  d.call("torch.sum", {{"input", d.binary("torch.le", offsets, positions)},
                                       {"dim", d.ints({1})}}),
                  d.i64(1));
}

/// How many of the `n` indices of each of `bags` bags are kept (`keep`,
/// when not null: not the padding index), as int64 [bags].
static Value bagCounts(Decomposer &d, Value bag, Value keep, int64_t bags) {
  Value ids = d.tensorConstant(RankedTensorType::get({bags, 1}, d.b.getI64Type()),
                               [](ArrayRef<int64_t> i) { return static_cast<double>(i[0]); });
  Value member = d.binary("torch.eq", d.call("torch.unsqueeze", {{"input", bag}, {"dim", d.i64(0)}}), ids);
  if (keep)
    member = d.binary("torch.logical_and", member, keep);
  return d.call("torch.sum", {{"input", member}, {"dim", d.ints({1})}});
}

/// The weight row an embedding_bag's constant `padding_idx` names among
/// `rows` (a negative one counts from the end), or none: None, or with
/// `raw` (_embedding_bag's) any negative one. Failure when not constant.
static FailureOr<std::optional<int64_t>> paddingRow(Decomposer &d, int64_t rows,
                                                    bool raw) {
  if (d.isNone("padding_idx"))
    return std::optional<int64_t>();
  std::optional<int64_t> p = d.getInt("padding_idx");
  if (!p)
    return failure();
  if (*p < 0)
    return raw ? std::optional<int64_t>() : std::optional<int64_t>(*p + rows);
  return p;
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
  FailureOr<std::optional<int64_t>> paddingArg =
      paddingRow(d, wt.getDimSize(0), /*raw=*/false);
  if (failed(paddingArg))
    return d.decline("padding_idx must be a constant");
  std::optional<int64_t> padding = *paddingArg;
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
  if (it.getRank() != 1 || !offsets)
    return d.decline("a 1-D input needs offsets");
  int64_t k = it.getDimSize(0), bags = rt.getDimSize(0), dim = wt.getDimSize(1);
  // bag[k] = #{offsets[b] <= k} - 1 over every offset: with
  // include_last_offset the indices from the last offset on get bag
  // `bags`, a row of the reduction that is dropped.
  Value bag = bagNumbers(d, offsets, k);
  Value spread = d.call("Tensor.expand", {{"input", d.call("torch.unsqueeze", {{"input", bag}, {"dim", d.i64(1)}})},
                                          {"size", d.ints({k, dim})}});
  int64_t rowsOut = *includeLast ? bags + 1 : bags;
  Value zeros = d.tensorConstant(RankedTensorType::get({rowsOut, dim}, element),
                                 [](ArrayRef<int64_t>) { return 0.0; });
  StringRef reduce = *mode == "max" ? "amax" : StringRef(*mode);
  if (reduce != "sum" && reduce != "mean" && reduce != "amax")
    return d.decline("unknown mode");
  // With a padding index, its rows are zeros (-inf for max) and mean
  // divides by the count of the others; a bag of padding alone is zeros.
  if (keep && reduce == "mean")
    reduce = "sum";
  Value out = d.call("torch.scatter_reduce", {{"input", zeros}, {"dim", d.i64(0)}, {"index", spread},
                                              {"src", rows}, {"reduce", d.str(reduce)},
                                              {"include_self", d.boolean(false)}});
  if (keep) {
    Value count = d.call("torch.unsqueeze", {{"input", bagCounts(d, bag, keep, rowsOut)},
                                             {"dim", d.i64(1)}});
    if (*mode == "mean")
      out = d.cast(d.binary("torch.div", out, d.call("torch.clamp", {{"input", count}, {"min", d.i64(1)}})),
                   element);
    else if (*mode == "max")
      out = d.call("Tensor.masked_fill", {{"input", out}, {"mask", d.binary("torch.eq", count, d.i64(0))},
                                          {"value", d.f64(0)}});
  }
  if (*includeLast)
    out = d.call("operator.getitem", {{"input", out},
                                      {"index", SliceAttr::get(d.ctx, d.none(), d.i64(bags), d.none())}});
  return one(out);
}

/// ATen's embedding_bag and _embedding_bag:
/// F.embedding_bag's output, and offset2bag, bag_size and max_indices as
/// the kernel (Kernels/Index.cpp, atenEmbeddingBag) computes them, from
/// the bag numbers of the indices.
static Results decomposeAtenEmbeddingBag(Decomposer &d) {
  auto tuple = dyn_cast<TupleType>(d.resultType());
  Value weight = d.tensor("weight"), indices = d.tensor("indices"),
        offsets = d.tensor("offsets");
  std::optional<int64_t> mode = d.getInt("mode");
  std::optional<bool> includeLast = d.getBool("include_last_offset");
  if (!tuple || tuple.size() != 4 || !weight || !indices || !offsets || !mode ||
      !includeLast)
    return d.decline("needs constant mode and include_last_offset");
  RankedTensorType it = typeOf(indices), ot = typeOf(offsets), wt = typeOf(weight);
  if (!it.hasStaticShape() || !ot.hasStaticShape() || !wt.hasStaticShape())
    return d.decline("needs static shapes");
  FailureOr<std::optional<int64_t>> paddingArg = paddingRow(
      d, wt.getDimSize(0), d.target() == "torch.ops.aten._embedding_bag.default");
  if (failed(paddingArg))
    return d.decline("padding_idx must be a constant");
  std::optional<int64_t> padding = *paddingArg;
  Value out = d.call("torch.nn.functional.embedding_bag",
                     {{"input", indices}, {"weight", weight}, {"offsets", offsets},
                      {"mode", d.str(*mode == 0 ? "sum" : *mode == 1 ? "mean" : "max")},
                      {"per_sample_weights", d.arg("per_sample_weights")},
                      {"include_last_offset", d.boolean(*includeLast)},
                      {"padding_idx", padding ? d.i64(*padding) : d.none()}});
  auto o2bType = cast<RankedTensorType>(tuple.getType(1));
  auto sizeType = cast<RankedTensorType>(tuple.getType(2));
  Type index = o2bType.getElementType();
  int64_t n = it.getDimSize(0), bags = cast<RankedTensorType>(tuple.getType(0)).getDimSize(0);
  auto zeros = [&](RankedTensorType type) {
    return d.tensorConstant(type, [](ArrayRef<int64_t>) { return 0.0; });
  };
  Value bag = bagNumbers(d, offsets, n);
  Value offset2bag = o2bType.getDimSize(0) == 0 ? zeros(o2bType) : d.cast(bag, index);
  if (*mode == 0) {
    Value z = zeros(sizeType);
    SmallVector<Value> parts = {out, offset2bag, z, z};
    if (llvm::is_contained(parts, Value()))
      return failure();
    return parts;
  }
  // bag_size[b]: the indices of bag b that are not the padding index.
  Value keep = padding ? d.binary("torch.ne", indices, d.i64(*padding)) : Value();
  Value size = d.cast(bagCounts(d, bag, keep, bags), index);
  Value maxIndices = size;
  if (*mode == 2) {
    // Per bag and column, the row of the first index whose value is the
    // bag's max (torch keeps the first: `v > max`); 0 for a bag with none.
    if (bags == 0 || n == 0)
      return d.decline("max mode needs a bag and an index");
    int64_t dim = wt.getDimSize(1);
    Value clamped = d.call("torch.clamp", {{"input", bag}, {"max", d.i64(bags - 1)}});
    Value rowsOf = indexDim(d, weight, 0, indices);
    Value bagMax = d.call("torch.index_select", {{"input", out}, {"dim", d.i64(0)}, {"index", clamped}});
    Value hit = d.binary("torch.eq", rowsOf, bagMax);
    Value inBag = d.binary("torch.lt", bag, d.i64(bags));
    if (keep)
      inBag = d.binary("torch.logical_and", inBag, keep);
    hit = d.binary("torch.logical_and", hit,
                   d.call("torch.unsqueeze", {{"input", inBag}, {"dim", d.i64(1)}}));
    Value positions = d.tensorConstant(RankedTensorType::get({n, 1}, d.b.getI64Type()),
                                       [](ArrayRef<int64_t> i) { return static_cast<double>(i[0]); });
    Value pos = d.call("torch.where", {{"condition", hit}, {"input", positions}, {"other", d.i64(n)}});
    Value spread = d.call("Tensor.expand", {{"input", d.call("torch.unsqueeze", {{"input", clamped}, {"dim", d.i64(1)}})},
                                            {"size", d.ints({n, dim})}});
    Value none = d.tensorConstant(RankedTensorType::get({bags, dim}, d.b.getI64Type()),
                                  [n](ArrayRef<int64_t>) { return static_cast<double>(n); });
    Value first = d.call("torch.scatter_reduce", {{"input", none}, {"dim", d.i64(0)}, {"index", spread},
                                                  {"src", pos}, {"reduce", d.str("amin")}});
    Value flat = d.call("torch.reshape", {{"input", d.call("torch.clamp", {{"input", first}, {"max", d.i64(n - 1)}})},
                                          {"shape", d.ints({bags * dim})}});
    Value picked = d.call("torch.reshape", {{"input", d.call("torch.index_select",
                                                             {{"input", indices}, {"dim", d.i64(0)}, {"index", flat}})},
                                            {"shape", d.ints({bags, dim})}});
    maxIndices = d.cast(d.call("torch.where", {{"condition", d.binary("torch.eq", first, d.i64(n))},
                                               {"input", d.i64(0)}, {"other", picked}}),
                        index);
  }
  SmallVector<Value> parts = {out, offset2bag, size, maxIndices};
  if (llvm::is_contained(parts, Value()))
    return failure();
  return parts;
}
