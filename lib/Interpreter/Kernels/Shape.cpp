//===- Shape.cpp - reshapes, permutations, concatenation, slices ----------===//
//
// Views and copies that rearrange elements: reshapes, permutations,
// squeezes, expansion, concatenation and splitting, slices, diagonals,
// flips, rolls, padding, and getitem (whose tensor indexing is Index.cpp's).
// Also the graph's plumbing: sizes, getattr, _assert.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"

#include <cstring>

using namespace mlir;
using namespace mlir::traced;

namespace {
Tensor permuteTensor(const Tensor &x, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> in = x.strides(), shape, strides;
  for (int64_t p : perm) {
    shape.push_back(x.dim(p));
    strides.push_back(in[p]);
  }
  return gatherStrided(x, shape, 0, strides);
}

/// Resolves one -1 in a target shape.
FailureOr<SmallVector<int64_t>>
resolveShape(const KernelArgs &args, ArrayRef<int64_t> shape, int64_t numel) {
  SmallVector<int64_t> out(shape);
  int64_t known = 1, inferred = -1;
  for (auto [i, d] : llvm::enumerate(out)) {
    if (d == -1) {
      if (inferred >= 0)
        return args.emitError() << "only one dimension can be inferred";
      inferred = i;
    } else {
      known *= d;
    }
  }
  if (inferred >= 0 && known != 0 && numel % known == 0)
    out[inferred] = numel / known;
  else if (inferred >= 0 || known != numel)
    return args.emitError()
           << "shape is invalid for an input of " << numel << " elements";
  return out;
}

RtValue tupleOfInts(ArrayRef<int64_t> values) {
  std::vector<RtValue> items;
  for (int64_t v : values)
    items.push_back(RtValue::ofInt(v));
  return RtValue::ofList(std::move(items), /*isTuple=*/true);
}

FailureOr<std::vector<Tensor>> tensorList(const KernelArgs &args,
                                          StringRef name) {
  const RtValue::List *l = args.get(name).list();
  if (!l || l->items.empty())
    return args.emitError() << "'" << name
                            << "' must be a non-empty list of "
                               "tensors";
  std::vector<Tensor> out;
  for (const RtValue &item : l->items) {
    if (!item.isTensor())
      return args.emitError() << "'" << name << "' holds " << item.describe();
    out.push_back(item.tensor());
  }
  return out;
}

FailureOr<Tensor> concatenate(const KernelArgs &args, std::vector<Tensor> ts,
                              int64_t dim) {
  DType dtype = ts[0].dtype();
  for (const Tensor &t : ts)
    dtype = promoteDTypes(dtype, t.dtype());
  int64_t rank = ts[0].rank();
  FailureOr<int64_t> d = normalizeDim(args, dim, rank);
  if (failed(d))
    return failure();
  SmallVector<int64_t> shape(ts[0].shape());
  shape[*d] = 0;
  for (const Tensor &t : ts) {
    if (t.rank() != rank)
      return args.emitError() << "tensors must have the same rank";
    for (int64_t i = 0; i < rank; ++i)
      if (i != *d && t.dim(i) != ts[0].dim(i))
        return args.emitError() << "tensor sizes differ in dimension " << i;
    shape[*d] += t.dim(*d);
  }
  Tensor out(dtype, shape);
  int64_t outer = 1;
  for (int64_t i = 0; i < *d; ++i)
    outer *= shape[i];
  int64_t inner = 1;
  for (int64_t i = *d + 1; i < rank; ++i)
    inner *= shape[i];
  dispatchStorage(dtype, [&](auto tag) {
    using T = decltype(tag);
    T *o = out.template data<T>();
    int64_t at = 0;
    for (const Tensor &t0 : ts) {
      Tensor t = t0.to(dtype);
      int64_t chunk = t.dim(*d) * inner;
      for (int64_t a = 0; a < outer; ++a)
        std::memcpy(o + a * shape[*d] * inner + at,
                    t.template data<T>() + a * chunk, chunk * sizeof(T));
      at += chunk;
    }
    return 0;
  });
  return out;
}
} // namespace

namespace mlir::traced::kernels {

FailureOr<RtValue> identity(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  return RtValue(*in);
}

FailureOr<RtValue> flatten(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> s = args.getInt("start_dim"), e = args.getInt("end_dim");
  if (failed(in) || failed(s) || failed(e))
    return failure();
  if (in->rank() == 0)
    return RtValue(in->reshaped({1}));
  FailureOr<int64_t> a = normalizeDim(args, *s, in->rank()),
                     b = normalizeDim(args, *e, in->rank());
  if (failed(a) || failed(b))
    return failure();
  if (*a > *b)
    return args.emitError() << "start_dim comes after end_dim";
  SmallVector<int64_t> shape(in->shape().take_front(*a));
  int64_t product = 1;
  for (int64_t i = *a; i <= *b; ++i)
    product *= in->dim(i);
  shape.push_back(product);
  shape.append(in->shape().begin() + *b + 1, in->shape().end());
  return RtValue(in->reshaped(shape));
}

/// prims.squeeze and prims.split_dim: the input reshaped.
FailureOr<RtValue> primsSqueeze(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("a");
  FailureOr<SmallVector<int64_t>> dims = args.getInts("dimensions");
  if (failed(in) || failed(dims))
    return failure();
  std::string error;
  std::optional<SmallVector<int64_t>> shape =
      primsSqueezeShape(in->shape(), *dims, error);
  if (!shape)
    return args.emitError() << error;
  return RtValue(in->reshaped(*shape));
}
FailureOr<RtValue> primsSplitDim(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("a");
  FailureOr<int64_t> dim = args.getInt("dim"), outer = args.getInt("outer_length");
  if (failed(in) || failed(dim) || failed(outer))
    return failure();
  std::string error;
  std::optional<SmallVector<int64_t>> shape =
      primsSplitDimShape(in->shape(), *dim, *outer, error);
  if (!shape)
    return args.emitError() << error;
  return RtValue(in->reshaped(*shape));
}

template <int64_t Rank> FailureOr<RtValue> atleast(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  return RtValue(in->reshaped(atleastShape(in->shape(), Rank)));
}

/// x.view(dtype): the same little-endian bytes read as `to`.
static FailureOr<RtValue> viewAsDType(const KernelArgs &args, const Tensor &in,
                                      DType to) {
  SmallVector<int64_t> shape;
  if (std::optional<std::string> error =
          viewDTypeShape(in.dtype(), to, in.shape(), shape))
    return args.emitError() << *error;
  std::vector<char> bytes = encodeRaw(in);
  Tensor out(to, shape);
  decodeRaw(out, bytes.data());
  return RtValue(out);
}

FailureOr<RtValue> reshape(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  if (args.has("size")) {
    // x.view(torch.int8): view's `*size` holds one dtype.
    const RtValue &size = args.get("size");
    const RtValue *one = &size;
    if (const RtValue::List *list = size.list(); list && list->items.size() == 1)
      one = &list->items[0];
    if (auto *attr = std::get_if<Attribute>(&one->v))
      if (auto d = dyn_cast_or_null<DTypeAttr>(*attr))
        if (std::optional<DType> to = dtypeFromType(d.getType()))
          return viewAsDType(args, *in, *to);
  }
  FailureOr<SmallVector<int64_t>> shape =
      args.getInts(args.has("shape") ? "shape" : "size");
  if (failed(shape))
    return failure();
  FailureOr<SmallVector<int64_t>> resolved =
      resolveShape(args, *shape, in->numel());
  if (failed(resolved))
    return failure();
  return RtValue(in->reshaped(*resolved));
}

FailureOr<RtValue> permute(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> dims = args.getInts("dims");
  if (failed(in) || failed(dims))
    return failure();
  if (static_cast<int64_t>(dims->size()) != in->rank())
    return args.emitError() << "dims do not match the input's rank";
  SmallVector<int64_t> perm;
  for (int64_t d : *dims) {
    FailureOr<int64_t> n = normalizeDim(args, d, in->rank());
    if (failed(n))
      return failure();
    perm.push_back(*n);
  }
  return RtValue(permuteTensor(*in, perm));
}

FailureOr<RtValue> transpose(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d0 = args.getInt("dim0"), d1 = args.getInt("dim1");
  if (failed(in) || failed(d0) || failed(d1))
    return failure();
  if (in->rank() == 0)
    return RtValue(*in);
  FailureOr<int64_t> a = normalizeDim(args, *d0, in->rank()),
                     b = normalizeDim(args, *d1, in->rank());
  if (failed(a) || failed(b))
    return failure();
  SmallVector<int64_t> perm =
      llvm::to_vector(llvm::seq<int64_t>(0, in->rank()));
  std::swap(perm[*a], perm[*b]);
  return RtValue(permuteTensor(*in, perm));
}

FailureOr<RtValue> unsqueeze(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(d))
    return failure();
  FailureOr<int64_t> n = normalizeDim(args, *d, in->rank() + 1);
  if (failed(n))
    return failure();
  SmallVector<int64_t> shape(in->shape());
  shape.insert(shape.begin() + *n, 1);
  return RtValue(in->reshaped(shape));
}

FailureOr<RtValue> squeeze(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape;
  if (args.isNone("dim")) {
    for (int64_t d : in->shape())
      if (d != 1)
        shape.push_back(d);
    return RtValue(in->reshaped(shape));
  }
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(d))
    return failure();
  FailureOr<int64_t> n =
      normalizeDim(args, *d, std::max<int64_t>(in->rank(), 1));
  if (failed(n))
    return failure();
  for (int64_t i = 0; i < in->rank(); ++i)
    if (i != *n || in->dim(i) != 1)
      shape.push_back(in->dim(i));
  return RtValue(in->reshaped(shape));
}

FailureOr<RtValue> unflatten(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  FailureOr<SmallVector<int64_t>> sizes = args.getInts("sizes");
  if (failed(in) || failed(d) || failed(sizes))
    return failure();
  FailureOr<int64_t> n = normalizeDim(args, *d, in->rank());
  if (failed(n))
    return failure();
  FailureOr<SmallVector<int64_t>> inner =
      resolveShape(args, *sizes, in->dim(*n));
  if (failed(inner))
    return failure();
  SmallVector<int64_t> shape(in->shape().take_front(*n));
  shape.append(inner->begin(), inner->end());
  shape.append(in->shape().begin() + *n + 1, in->shape().end());
  return RtValue(in->reshaped(shape));
}

FailureOr<RtValue> expand(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> sizes = args.getInts("size");
  if (failed(in) || failed(sizes))
    return failure();
  int64_t n = sizes->size(), rank = in->rank();
  if (n < rank)
    return args.emitError() << "cannot expand to fewer dimensions";
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < n; ++i) {
    int64_t j = i - (n - rank);
    int64_t have = j >= 0 ? in->dim(j) : 1, want = (*sizes)[i];
    if (want == -1 && j >= 0)
      want = have;
    if (want < 0 || (have != 1 && have != want))
      return args.emitError() << "cannot expand dimension " << i << " of size "
                              << have << " to " << want;
    shape.push_back(want);
  }
  return RtValue(broadcastTo(*in, shape));
}

FailureOr<RtValue> cat(const KernelArgs &args) {
  FailureOr<std::vector<Tensor>> ts = tensorList(args, "tensors");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(ts) || failed(d))
    return failure();
  FailureOr<Tensor> out = concatenate(args, *ts, *d);
  if (failed(out))
    return failure();
  return RtValue(*out);
}

/// The n-th forward difference along dim, of prepend, input and append
/// concatenated (promoted); integers wrap, floats round to their dtype,
/// bools are xor'ed.
FailureOr<RtValue> diff(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> n = args.getInt("n"), d = args.getInt("dim");
  if (failed(in) || failed(n) || failed(d))
    return failure();
  if (in->rank() == 0)
    return args.emitError()
           << "diff expects input to be at least one-dimensional";
  std::vector<Tensor> parts;
  auto add = [&](StringRef name) -> LogicalResult {
    if (args.isNone(name))
      return success();
    FailureOr<Tensor> t = args.tensor(name);
    if (failed(t))
      return failure();
    if (t->rank() != in->rank())
      return args.emitError() << "diff expects prepend or append to be the "
                                 "same dimension as input";
    parts.push_back(*t);
    return success();
  };
  if (failed(add("prepend")))
    return failure();
  parts.push_back(*in);
  if (failed(add("append")))
    return failure();
  FailureOr<Tensor> x = parts.size() == 1 ? FailureOr<Tensor>(*in)
                                          : concatenate(args, parts, *d);
  if (failed(x))
    return failure();
  FailureOr<int64_t> dim = normalizeDim(args, *d, x->rank());
  if (failed(dim))
    return failure();
  Tensor cur = *x;
  for (int64_t k = 0; k < *n && cur.dim(*dim) > 0; ++k) {
    SmallVector<int64_t> shape(cur.shape());
    shape[*dim] -= 1;
    Tensor next(cur.dtype(), shape);
    FailureOr<DimSplit> split = splitAtDim(args, cur, *dim);
    if (failed(split))
      return failure();
    int64_t outer = split->outer, size = split->size, inner = split->inner;
    bool isBool = cur.dtype() == DType::Bool;
    dispatchStorage(cur.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *c = cur.template data<T>();
      T *out = next.template data<T>();
      for (int64_t a = 0; a < outer; ++a)
        for (int64_t i = 0; i + 1 < size; ++i)
          for (int64_t b = 0; b < inner; ++b) {
            int64_t lo = (a * size + i) * inner + b, hi = lo + inner;
            T &o = out[(a * (size - 1) + i) * inner + b];
            if constexpr (std::is_floating_point_v<T>)
              o = c[hi] - c[lo];
            else if (isBool)
              o = static_cast<T>((c[hi] != 0) != (c[lo] != 0));
            else
              o = static_cast<T>(static_cast<uint64_t>(c[hi]) -
                                 static_cast<uint64_t>(c[lo]));
          }
      return 0;
    });
    next.roundToDType();
    cur = next;
  }
  return RtValue(cur);
}

FailureOr<RtValue> stack(const KernelArgs &args) {
  FailureOr<std::vector<Tensor>> ts = tensorList(args, "tensors");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(ts) || failed(d))
    return failure();
  FailureOr<int64_t> n = normalizeDim(args, *d, (*ts)[0].rank() + 1);
  if (failed(n))
    return failure();
  SmallVector<int64_t> first((*ts)[0].shape());
  for (Tensor &t : *ts) {
    if (t.shape() != ArrayRef<int64_t>(first))
      return args.emitError() << "stack expects tensors of one shape";
    SmallVector<int64_t> shape(t.shape());
    shape.insert(shape.begin() + *n, 1);
    t = t.reshaped(shape);
  }
  FailureOr<Tensor> out = concatenate(args, *ts, *n);
  if (failed(out))
    return failure();
  return RtValue(*out);
}

FailureOr<RtValue> chunk(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> chunks = args.getInt("chunks"), d = args.getInt("dim");
  if (failed(in) || failed(chunks) || failed(d))
    return failure();
  if (*chunks < 1)
    return args.emitError() << "chunks must be positive";
  FailureOr<int64_t> n = normalizeDim(args, *d, in->rank());
  if (failed(n))
    return failure();
  int64_t size = in->dim(*n), step = (size + *chunks - 1) / *chunks;
  SmallVector<int64_t> strides = in->strides();
  std::vector<RtValue> pieces;
  for (int64_t begin = 0; begin < size || (size == 0 && pieces.empty());
       begin += std::max<int64_t>(step, 1)) {
    SmallVector<int64_t> shape(in->shape());
    shape[*n] = std::min(step, size - begin);
    pieces.push_back(
        RtValue(gatherStrided(*in, shape, begin * strides[*n], strides)));
  }
  return RtValue::ofList(std::move(pieces), /*isTuple=*/true);
}

/// torch.tensor_split: the input's slices along `dim` (tensorSplitPieces),
/// copied.
FailureOr<RtValue> tensorSplit(const KernelArgs &args) {
  Tensor in;
  int64_t n;
  if (failed(inputAndDim(
          args, "tensor_split expected at least a 1-dimensional tensor", in,
          n)))
    return failure();
  std::optional<int64_t> sections;
  SmallVector<int64_t> indices;
  bool given = false;
  for (StringRef name : {"indices_or_sections", "sections", "indices", "tensor_indices_or_sections"}) {
    if (args.isNone(name))
      continue;
    given = true;
    const RtValue &v = args.get(name);
    if (auto *i = std::get_if<int64_t>(&v.v); i && name != "indices") {
      sections = *i;
      continue;
    }
    FailureOr<SmallVector<int64_t>> list = args.getInts(name);
    if (failed(list))
      return failure();
    indices = *list;
  }
  if (!given)
    return args.emitError() << "expects sections or indices";
  std::string error;
  auto pieces = tensorSplitPieces(in.dim(n), sections, indices, error);
  if (failed(pieces))
    return args.emitError() << error;
  SmallVector<int64_t> strides = in.strides();
  std::vector<RtValue> out;
  for (auto [begin, end] : *pieces) {
    SmallVector<int64_t> shape(in.shape());
    shape[n] = end - begin;
    out.push_back(
        RtValue(gatherStrided(in, shape, begin * strides[n], strides)));
  }
  return RtValue::ofList(std::move(out), /*isTuple=*/true);
}

FailureOr<RtValue> getitem(const KernelArgs &args) {
  const RtValue &container = args.get("input");
  const RtValue &index = args.get("index");
  if (container.isTensor())
    return indexTensor(args, container.tensor(), index);
  if (const RtValue::List *l = container.list()) {
    auto *i = std::get_if<int64_t>(&index.v);
    auto *a = std::get_if<Attribute>(&index.v);
    if (a && isa<SliceAttr>(*a)) {
      // x.shape[-2:]: a slice of a list or tuple is one of its kind.
      FailureOr<SliceRange> r = sliceRange(args, cast<SliceAttr>(*a),
                                           static_cast<int64_t>(l->items.size()));
      if (failed(r))
        return failure();
      std::vector<RtValue> items;
      for (int64_t k = 0; k < r->length; ++k)
        items.push_back(l->items[r->begin + k * r->step]);
      return RtValue::ofList(std::move(items), l->isTuple);
    }
    if (!i)
      return args.emitError()
             << "only int and slice indices into a "
             << (l->isTuple ? "tuple" : "list") << " are supported";
    int64_t n = *i < 0 ? *i + static_cast<int64_t>(l->items.size()) : *i;
    if (n < 0 || n >= static_cast<int64_t>(l->items.size()))
      return args.emitError()
             << "index " << *i << " is out of range for a "
             << (l->isTuple ? "tuple" : "list") << " of " << l->items.size();
    return l->items[n];
  }
  return args.emitError() << "cannot index " << container.describe();
}

/// torch.unbind: the slices along `dim`, as a tuple.
FailureOr<RtValue> unbind(const KernelArgs &args) {
  Tensor in;
  int64_t n;
  if (failed(inputAndDim(args, "unbind() cannot be applied to a 0-d tensor", in,
                         n)))
    return failure();
  SmallVector<int64_t> strides = in.strides(), shape(in.shape());
  shape.erase(shape.begin() + n);
  SmallVector<int64_t> inner(strides);
  inner.erase(inner.begin() + n);
  std::vector<RtValue> pieces;
  for (int64_t i = 0; i < in.dim(n); ++i)
    pieces.push_back(RtValue(gatherStrided(in, shape, i * strides[n], inner)));
  return RtValue::ofList(std::move(pieces), /*isTuple=*/true);
}

/// The strided view of a diagonal: dims d1 and d2 replaced by one last dim.
static FailureOr<StridedView> diagonalView(const KernelArgs &args,
                                           const Tensor &x, int64_t offset,
                                           int64_t d1, int64_t d2) {
  FailureOr<int64_t> a = normalizeDim(args, d1, x.rank()),
                     b = normalizeDim(args, d2, x.rank());
  if (failed(a) || failed(b))
    return failure();
  if (*a == *b)
    return args.emitError() << "diagonal dimensions cannot be identical "
                            << d1 << ", " << d2;
  SmallVector<int64_t> strides = x.strides();
  StridedView v;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != *a && d != *b) {
      v.shape.push_back(x.dim(d));
      v.strides.push_back(strides[d]);
    }
  int64_t len = offset >= 0 ? std::min(x.dim(*a), x.dim(*b) - offset)
                            : std::min(x.dim(*a) + offset, x.dim(*b));
  len = std::max<int64_t>(len, 0);
  if (len > 0)
    v.offset = offset >= 0 ? offset * strides[*b] : -offset * strides[*a];
  v.shape.push_back(len);
  v.strides.push_back(strides[*a] + strides[*b]);
  return v;
}

FailureOr<RtValue> diagonal(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> off = args.getInt("offset"), d1 = args.getInt("dim1"),
                     d2 = args.getInt("dim2");
  if (failed(in) || failed(off) || failed(d1) || failed(d2))
    return failure();
  if (in->rank() < 2)
    return args.emitError() << "diagonal() expects a tensor of rank >= 2";
  FailureOr<StridedView> v = diagonalView(args, *in, *off, *d1, *d2);
  if (failed(v))
    return failure();
  return RtValue(gatherStrided(*in, v->shape, v->offset, v->strides));
}

/// torch.diag: a 1-D input's square matrix, a 2-D input's diagonal.
FailureOr<RtValue> diag(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> k = args.getInt("diagonal");
  if (failed(in) || failed(k))
    return failure();
  if (in->rank() == 2) {
    FailureOr<StridedView> v = diagonalView(args, *in, *k, 0, 1);
    if (failed(v))
      return failure();
    return RtValue(gatherStrided(*in, v->shape, v->offset, v->strides));
  }
  if (in->rank() != 1)
    return args.emitError() << "diag() expects a 1-D or 2-D tensor";
  int64_t n = in->dim(0) + std::abs(*k);
  Tensor out(in->dtype(), {n, n});
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *o = out.template data<T>();
    std::fill(o, o + n * n, T(0));
    for (int64_t i = 0; i < in->dim(0); ++i) {
      int64_t r = *k >= 0 ? i : i - *k, c = *k >= 0 ? i + *k : i;
      o[r * n + c] = in->template data<T>()[i];
    }
    return 0;
  });
  return RtValue(out);
}

/// torch.trace: the sum of a matrix's diagonal (integers sum in int64).
FailureOr<RtValue> trace(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  if (in->rank() != 2)
    return args.emitError() << "trace() expects a matrix";
  DType dtype = isFloatingPoint(in->dtype()) ? in->dtype() : DType::I64;
  Tensor out(dtype, {});
  int64_t n = std::min(in->dim(0), in->dim(1));
  if (isFloatingPoint(dtype)) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i)
      sum += in->getDouble(i * in->dim(1) + i);
    out.setDouble(0, sum);
    out.roundToDType();
  } else {
    int64_t sum = 0;
    for (int64_t i = 0; i < n; ++i)
      sum += in->getInt(i * in->dim(1) + i);
    out.data<int64_t>()[0] = sum;
  }
  return RtValue(out);
}

/// pixel_shuffle (upscale) and pixel_unshuffle (downscale): (*, C, H, W)
/// to (*, C / r^2, H r, W r) and back, as reshape and permute.
static FailureOr<RtValue> shuffle(const KernelArgs &args, int64_t r,
                                  bool up) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  if (in->rank() < 3)
    return args.emitError() << "expects an input of rank >= 3";
  if (r <= 0)
    return args.emitError() << "the factor must be positive";
  int64_t rank = in->rank();
  SmallVector<int64_t> lead(in->shape().drop_back(3));
  int64_t c = in->dim(rank - 3), h = in->dim(rank - 2), w = in->dim(rank - 1);
  int64_t b = lead.size();
  SmallVector<int64_t> shape(lead), perm, out(lead);
  for (int64_t i = 0; i < b; ++i)
    perm.push_back(i);
  if (up) {
    if (c % (r * r) != 0)
      return args.emitError() << "the channels (" << c
                              << ") must be divisible by the square of the "
                                 "upscale factor";
    shape.append({c / (r * r), r, r, h, w});
    perm.append({b, b + 3, b + 1, b + 4, b + 2});
    out.append({c / (r * r), h * r, w * r});
  } else {
    if (h % r != 0 || w % r != 0)
      return args.emitError() << "the height and width must be divisible by "
                                 "the downscale factor";
    shape.append({c, h / r, r, w / r, r});
    perm.append({b, b + 2, b + 4, b + 1, b + 3});
    out.append({c * r * r, h / r, w / r});
  }
  return RtValue(permuteTensor(in->reshaped(shape), perm).reshaped(out));
}

FailureOr<RtValue> pixelShuffle(const KernelArgs &args) {
  FailureOr<int64_t> r = args.getInt("upscale_factor");
  if (failed(r))
    return failure();
  return shuffle(args, *r, /*up=*/true);
}

FailureOr<RtValue> pixelUnshuffle(const KernelArgs &args) {
  FailureOr<int64_t> r = args.getInt("downscale_factor");
  if (failed(r))
    return failure();
  return shuffle(args, *r, /*up=*/false);
}

/// channel_shuffle: (N, g * k, ...) as (N, k * g, ...) by transposing g, k.
FailureOr<RtValue> channelShuffle(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> g = args.getInt("groups");
  if (failed(in) || failed(g))
    return failure();
  if (in->rank() < 3)
    return args.emitError() << "channel_shuffle expects an input of rank >= 3";
  if (*g <= 0 || in->dim(1) % *g != 0)
    return args.emitError() << "the channels must be divisible by groups";
  SmallVector<int64_t> shape{in->dim(0), *g, in->dim(1) / *g};
  shape.append(in->shape().begin() + 2, in->shape().end());
  SmallVector<int64_t> perm{0, 2, 1};
  for (int64_t d = 3; d < static_cast<int64_t>(shape.size()); ++d)
    perm.push_back(d);
  return RtValue(permuteTensor(in->reshaped(shape), perm).reshaped(in->shape()));
}

/// aten::repeat_interleave.Tensor: index i repeated repeats[i] times, in
/// repeats' dtype.
FailureOr<RtValue> repeatInterleaveCounts(const KernelArgs &args) {
  FailureOr<Tensor> repeats = args.tensor("repeats");
  if (failed(repeats))
    return failure();
  if (repeats->rank() != 1)
    return args.emitError()
           << "repeat_interleave only accept 1D vector as repeat";
  int64_t total = 0;
  for (int64_t i = 0; i < repeats->numel(); ++i) {
    if (repeats->getInt(i) < 0)
      return args.emitError() << "repeats can not be negative";
    if (__builtin_add_overflow(total, repeats->getInt(i), &total))
      return args.emitError() << "the repeats' sum overflows int64";
  }
  if (!args.isNone("output_size")) {
    FailureOr<int64_t> size = args.getInt("output_size");
    if (failed(size))
      return failure();
    if (*size != total)
      return args.emitError() << "allocated size does not match required size";
  }
  if (!fitsInMemory(total))
    return args.emitError() << "the repeats add up to " << total
                            << " elements, more than this machine's memory "
                               "holds";
  Tensor out(repeats->dtype(), {total});
  int64_t *o = out.data<int64_t>();
  for (int64_t i = 0; i < repeats->numel(); ++i)
    for (int64_t k = 0; k < repeats->getInt(i); ++k)
      *o++ = i;
  return RtValue(out);
}

/// repeat_interleave with an int (or one-element tensor) count, or a
/// tensor of counts along `dim` (a flattened input when dim is None).
FailureOr<RtValue> repeatInterleave(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  Tensor x = *in;
  int64_t dim = 0;
  if (args.isNone("dim")) {
    x = x.reshaped({x.numel()});
  } else {
    FailureOr<int64_t> d = args.getInt("dim");
    if (failed(d))
      return failure();
    FailureOr<int64_t> n = normalizeDim(args, *d, std::max<int64_t>(x.rank(), 1));
    if (failed(n))
      return failure();
    dim = *n;
    if (x.rank() == 0)
      x = x.reshaped({1});
  }
  int64_t size = x.dim(dim);
  SmallVector<int64_t> counts;
  const RtValue &r = args.get("repeats");
  if (auto *i = std::get_if<int64_t>(&r.v)) {
    counts.assign(size, *i);
  } else if (r.isTensor()) {
    Tensor t = r.tensor();
    if (isFloatingPoint(t.dtype()) || t.rank() > 1)
      return args.emitError() << "repeats must be an int or a 1-D integer "
                                 "tensor";
    for (int64_t k = 0; k < t.numel(); ++k)
      counts.push_back(t.getInt(k));
    if (counts.size() == 1)
      counts.assign(size, counts[0]);
  } else {
    return args.emitError() << "repeats must be an int or a tensor";
  }
  if (static_cast<int64_t>(counts.size()) != size)
    return args.emitError() << "repeats must have the same size as input "
                               "along dim";
  SmallVector<int64_t> index;
  for (int64_t k = 0; k < size; ++k) {
    if (counts[k] < 0)
      return args.emitError() << "repeats can not be negative";
    for (int64_t j = 0; j < counts[k]; ++j)
      index.push_back(k);
  }
  Tensor idx(DType::I64, {static_cast<int64_t>(index.size())});
  llvm::copy(index, idx.data<int64_t>());
  // x.index_select(dim, idx), contiguous blocks of the inner dims.
  SmallVector<int64_t> strides = x.strides(), shape(x.shape());
  shape[dim] = idx.numel();
  Tensor out(x.dtype(), shape);
  int64_t outer = 1, inner = strides[dim];
  for (int64_t d = 0; d < dim; ++d)
    outer *= x.dim(d);
  dispatchStorage(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = x.template data<T>();
    T *dst = out.template data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < idx.numel(); ++k)
        std::copy(src + (o * size + index[k]) * inner,
                  src + (o * size + index[k] + 1) * inner,
                  dst + (o * idx.numel() + k) * inner);
    return 0;
  });
  return RtValue(out);
}

/// hstack / vstack / dstack / column_stack: each tensor reshaped to its
/// stackPieceShape, then cat along stackDim.
static FailureOr<RtValue> stackLike(const KernelArgs &args, StackKind kind) {
  FailureOr<std::vector<Tensor>> ts = tensorList(args, "tensors");
  if (failed(ts))
    return failure();
  if (ts->empty())
    return args.emitError() << "expects a non-empty list of tensors";
  for (Tensor &t : *ts)
    t = t.reshaped(stackPieceShape(t.shape(), kind));
  FailureOr<Tensor> out =
      concatenate(args, *ts, stackDim(kind, (*ts)[0].rank()));
  if (failed(out))
    return failure();
  return RtValue(*out);
}
FailureOr<RtValue> hstack(const KernelArgs &args) {
  return stackLike(args, StackKind::H);
}
FailureOr<RtValue> vstack(const KernelArgs &args) {
  return stackLike(args, StackKind::V);
}
FailureOr<RtValue> dstack(const KernelArgs &args) {
  return stackLike(args, StackKind::D);
}
FailureOr<RtValue> columnStack(const KernelArgs &args) {
  return stackLike(args, StackKind::Column);
}

/// torch.meshgrid(*tensors, indexing="ij"|"xy").
FailureOr<RtValue> meshgrid(const KernelArgs &args) {
  FailureOr<std::vector<Tensor>> ts = tensorList(args, "tensors");
  if (failed(ts))
    return failure();
  std::string indexing = "ij";
  if (!args.isNone("indexing")) {
    FailureOr<std::string> s = args.getStr("indexing");
    if (failed(s))
      return failure();
    indexing = *s;
  }
  if (indexing != "ij" && indexing != "xy")
    return args.emitError() << "indexing must be 'ij' or 'xy', got '"
                            << indexing << "'";
  SmallVector<int64_t> shape;
  for (const Tensor &t : *ts) {
    if (t.rank() > 1)
      return args.emitError() << "meshgrid expects 0-D or 1-D tensors";
    shape.push_back(t.numel());
  }
  bool xy = indexing == "xy" && shape.size() >= 2;
  if (xy)
    std::swap(shape[0], shape[1]);
  std::vector<RtValue> out;
  for (auto [k, t] : llvm::enumerate(*ts)) {
    if (t.dtype() != (*ts)[0].dtype())
      return args.emitError() << "meshgrid expects all tensors to have the "
                                 "same dtype";
    SmallVector<int64_t> view(shape.size(), 1);
    int64_t at = xy && k < 2 ? 1 - k : k;
    view[at] = t.numel();
    out.push_back(RtValue(broadcastTo(t.reshaped(view), shape)));
  }
  return RtValue::ofList(std::move(out), /*isTuple=*/true);
}

FailureOr<RtValue> size(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  if (args.isNone("dim"))
    return tupleOfInts(in->shape());
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(d))
    return failure();
  FailureOr<int64_t> n = normalizeDim(args, *d, in->rank());
  if (failed(n))
    return failure();
  return RtValue::ofInt(in->dim(*n));
}

FailureOr<RtValue> dim(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  return RtValue::ofInt(in->rank());
}

//===----------------------------------------------------------------------===//
// Python numbers: ATen's conversions and prim's min and max
//===----------------------------------------------------------------------===//

namespace {
/// A Python number argument, kept exact: an int (bool as 0 or 1) or a
/// float.
struct Number {
  bool isFloat;
  int64_t i;
  double f;
};
} // namespace

/// The number `a` holds: a Python number, or a tensor's one element (the
/// rules checked the count).
static FailureOr<Number> numberArg(const KernelArgs &args, StringRef name) {
  const RtValue &v = args.get(name);
  if (v.isTensor()) {
    const Tensor &t = v.tensor();
    if (t.numel() != 1)
      return args.emitError() << "a Tensor with " << t.numel()
                              << " elements cannot be converted to Scalar";
    if (isFloatingPoint(t.dtype()))
      return Number{true, 0, t.getDouble(0)};
    return Number{false, t.getInt(0), 0};
  }
  if (auto *i = std::get_if<int64_t>(&v.v))
    return Number{false, *i, 0};
  if (auto *b = std::get_if<bool>(&v.v))
    return Number{false, *b ? 1 : 0, 0};
  if (auto *f = std::get_if<double>(&v.v))
    return Number{true, 0, *f};
  return args.emitError() << "'" << name << "' must be a tensor or a Python "
                          << "number, got " << v.describe();
}

/// aten::ScalarImplicit: a 0-d tensor's element as the Python number of
/// its kind (int, float or bool).
static FailureOr<RtValue> scalarImplicit(const KernelArgs &args) {
  FailureOr<Tensor> t = args.tensor("a");
  if (failed(t))
    return failure();
  if (t->rank() != 0)
    return args.emitError() << "Cannot input a tensor of dimension other "
                               "than 0 as a scalar argument";
  if (t->dtype() == DType::Bool)
    return RtValue::ofBool(t->getInt(0) != 0);
  if (isFloatingPoint(t->dtype()))
    return RtValue::ofFloat(t->getDouble(0));
  return RtValue::ofInt(t->getInt(0));
}

static FailureOr<RtValue> atenFloat(const KernelArgs &args) {
  FailureOr<Number> n = numberArg(args, "a");
  if (failed(n))
    return failure();
  return RtValue::ofFloat(n->isFloat ? n->f : static_cast<double>(n->i));
}

/// aten::Int (its Tensor, Scalar, float and bool overloads) truncates
/// toward zero, refusing NaN and values out of int64's range. (Called as
/// the packet `torch.ops.aten.Int(5)`, torch 1.13 binds `Int.bool` to a
/// Python int and answers 1; the tracers record that overload, which a
/// traced int does not bind to.)
static FailureOr<RtValue> atenInt(const KernelArgs &args) {
  FailureOr<Number> n = numberArg(args, "a");
  if (failed(n))
    return failure();
  if (!n->isFloat)
    return RtValue::ofInt(n->i);
  // torch's range check is [-2^63, 2^63], both ends in, and x86's
  // conversion makes 2^63 INT64_MIN.
  if (!(n->f >= -9223372036854775808.0 && n->f <= 9223372036854775808.0))
    return args.emitError()
           << "value cannot be converted to type int64_t without overflow";
  if (n->f == 9223372036854775808.0)
    return RtValue::ofInt(std::numeric_limits<int64_t>::min());
  return RtValue::ofInt(static_cast<int64_t>(n->f));
}

/// aten::Bool: whether the number is nonzero (NaN is).
static FailureOr<RtValue> atenBool(const KernelArgs &args) {
  FailureOr<Number> n = numberArg(args, "a");
  if (failed(n))
    return failure();
  return RtValue::ofBool(n->isFloat ? n->f != 0 : n->i != 0);
}

/// math.ceil, math.floor and math.trunc: an int as it is; a float rounded
/// by `Round`, refusing NaN and infinities as Python does, and ints past
/// int64's range, which Python's unbounded ints would hold.
template <double (*Round)(double)>
static FailureOr<RtValue> pythonRounding(const KernelArgs &args) {
  FailureOr<Number> n = numberArg(args, "x");
  if (failed(n))
    return failure();
  if (!n->isFloat)
    return RtValue::ofInt(n->i);
  if (std::isnan(n->f))
    return args.emitError() << "cannot convert float NaN to integer";
  if (std::isinf(n->f))
    return args.emitError() << "cannot convert float infinity to integer";
  double r = Round(n->f);
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
    return args.emitError() << "the int " << r << " is past int64's range";
  return RtValue::ofInt(static_cast<int64_t>(r));
}

/// prim::min and prim::max: `a < b ? a : b` (and `a > b ? a : b`), in
/// double when either is a float, so a NaN `b` wins and a NaN `a` loses, as
/// TorchScript's overloads compare.
template <bool Max>
static FailureOr<RtValue> primExtreme(const KernelArgs &args) {
  FailureOr<Number> a = numberArg(args, "a"), b = numberArg(args, "b");
  if (failed(a) || failed(b))
    return failure();
  if (a->isFloat || b->isFloat) {
    double x = a->isFloat ? a->f : static_cast<double>(a->i);
    double y = b->isFloat ? b->f : static_cast<double>(b->i);
    return RtValue::ofFloat((Max ? x > y : x < y) ? x : y);
  }
  return RtValue::ofInt((Max ? a->i > b->i : a->i < b->i) ? a->i : b->i);
}

FailureOr<RtValue> getattr(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<std::string> name = args.getStr("name");
  if (failed(in) || failed(name))
    return failure();
  if (*name == "shape")
    return tupleOfInts(in->shape());
  if (*name == "ndim")
    return RtValue::ofInt(in->rank());
  if (*name == "data" || *name == "real")
    return RtValue(*in);
  if (*name == "T" || *name == "H") {
    SmallVector<int64_t> perm(llvm::reverse(llvm::seq<int64_t>(0, in->rank())));
    return RtValue(permuteTensor(*in, perm));
  }
  if ((*name == "mT" || *name == "mH") && in->rank() == 0)
    return RtValue(*in);
  if ((*name == "mT" || *name == "mH") && in->rank() >= 2) {
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, in->rank()));
    std::swap(perm[in->rank() - 1], perm[in->rank() - 2]);
    return RtValue(permuteTensor(*in, perm));
  }
  return args.emitError() << "the interpreter cannot read attribute '" << *name
                          << "' of a tensor";
}

FailureOr<RtValue> assertTrue(const KernelArgs &args) {
  const RtValue &condition = args.get("condition");
  bool holds;
  if (condition.isTensor()) {
    if (condition.tensor().numel() != 1)
      return args.emitError() << "the condition must be a single value";
    holds = condition.tensor().getDouble(0) != 0;
  } else if (std::optional<double> d = condition.number()) {
    holds = *d != 0;
  } else {
    return args.emitError() << "the condition must be a bool";
  }
  if (!holds) {
    FailureOr<std::string> message = args.getStr("message");
    return args.emitError()
           << "assertion failed: " << (succeeded(message) ? *message : "");
  }
  return RtValue();
}

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// Shape ops that copy
//===----------------------------------------------------------------------===//

namespace mlir::traced::kernels {

/// diag_embed: out[..., i + max(-offset, 0) at dim1, i + max(offset, 0) at
/// dim2] = in[..., i]; zero elsewhere.
FailureOr<RtValue> diagEmbed(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> offset = args.getInt("offset"), d1 = args.getInt("dim1"),
                     d2 = args.getInt("dim2");
  if (failed(in) || failed(offset) || failed(d1) || failed(d2))
    return failure();
  if (in->rank() == 0)
    return args.emitError() << "expects a tensor of at least one dimension";
  int64_t rank = in->rank() + 1;
  FailureOr<int64_t> a = normalizeDim(args, *d1, rank),
                     b = normalizeDim(args, *d2, rank);
  if (failed(a) || failed(b))
    return failure();
  if (*a == *b)
    return args.emitError() << "diagonal dimensions cannot be identical";
  int64_t last = in->shape().back(), n = last + std::abs(*offset);
  SmallVector<int64_t> shape(in->shape().drop_back());
  auto [lo, hi] = std::minmax(*a, *b);
  shape.insert(shape.begin() + lo, n);
  shape.insert(shape.begin() + hi, n);
  Tensor out(in->dtype(), shape);
  SmallVector<int64_t> os = out.strides(), batchStrides;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *a && d != *b)
      batchStrides.push_back(os[d]);
  int64_t r1 = std::max<int64_t>(-*offset, 0), r2 = std::max<int64_t>(*offset, 0);
  int64_t batch = last ? in->numel() / last : 0;
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = in->template data<T>();
    T *dst = out.template data<T>();
    for (int64_t p = 0; p < batch; ++p) {
      // The batch position's offset in the output, from its digits.
      int64_t base = 0, rest = p;
      for (int64_t k = static_cast<int64_t>(batchStrides.size()) - 1; k >= 0;
           --k) {
        base += (rest % in->dim(k)) * batchStrides[k];
        rest /= in->dim(k);
      }
      for (int64_t i = 0; i < last; ++i)
        dst[base + (i + r1) * os[*a] + (i + r2) * os[*b]] = src[p * last + i];
    }
    return 0;
  });
  return RtValue(out);
}

/// rot90: k quarter turns from dims[0] towards dims[1], as flips and a
/// transpose of the input's strides.
FailureOr<RtValue> rot90(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> k = args.getInt("k");
  FailureOr<SmallVector<int64_t>> dims = args.getInts("dims");
  if (failed(in) || failed(k) || failed(dims))
    return failure();
  if (dims->size() != 2 || in->rank() < 2)
    return args.emitError() << "expects two rotation dims of a tensor of at "
                               "least 2 dims";
  FailureOr<int64_t> a = normalizeDim(args, (*dims)[0], in->rank()),
                     b = normalizeDim(args, (*dims)[1], in->rank());
  if (failed(a) || failed(b))
    return failure();
  if (*a == *b)
    return args.emitError() << "expected rotation dims to be different";
  int64_t turns = ((*k % 4) + 4) % 4;
  SmallVector<int64_t> shape(in->shape()), strides = in->strides();
  int64_t offset = 0;
  auto flip = [&](int64_t d) {
    offset += (shape[d] - 1) * strides[d];
    strides[d] = -strides[d];
  };
  // torch: k=1 flips dims[1] then transposes, k=2 flips both, k=3 flips
  // dims[0] then transposes.
  if (turns == 1 || turns == 2)
    flip(*b);
  if (turns == 2 || turns == 3)
    flip(*a);
  if (turns % 2) {
    std::swap(shape[*a], shape[*b]);
    std::swap(strides[*a], strides[*b]);
  }
  if (in->numel() == 0)
    return RtValue(Tensor(in->dtype(), shape));
  return RtValue(gatherStrided(*in, shape, offset, strides));
}

/// The view input[start:end:step] along `dim`, as aten::slice and
/// slice_scatter read their `dim`, `start`, `end` and `step` (a 0-d input
/// is its own view).
FailureOr<StridedView> sliceView(const KernelArgs &args, const Tensor &in) {
  FailureOr<int64_t> d = args.getInt("dim"), step = args.getInt("step");
  if (failed(d) || failed(step))
    return failure();
  if (*step <= 0)
    return args.emitError() << "slice step must be positive";
  FailureOr<int64_t> dim = normalizeDim(args, *d, std::max<int64_t>(in.rank(), 1));
  if (failed(dim))
    return failure();
  std::optional<int64_t> bound[2];
  const char *names[] = {"start", "end"};
  for (int k = 0; k < 2; ++k) {
    if (args.isNone(names[k]))
      continue;
    FailureOr<int64_t> v = args.getInt(names[k]);
    if (failed(v))
      return failure();
    bound[k] = *v;
  }
  StridedView view{SmallVector<int64_t>(in.shape()), in.strides(), 0};
  if (in.rank()) {
    SliceBounds r = clampSlice(in.dim(*dim), bound[0], bound[1], *step);
    view.shape[*dim] = r.length;
    view.offset = r.begin * view.strides[*dim];
    view.strides[*dim] *= *step;
  }
  return view;
}

FailureOr<RtValue> isFloatingPointKernel(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  return RtValue::ofBool(isFloatingPoint(in->dtype()));
}

/// broadcast_tensors: each tensor expanded to the common shape.
FailureOr<RtValue> broadcastTensors(const KernelArgs &args) {
  FailureOr<std::vector<Tensor>> ts = tensorList(args, "tensors");
  if (failed(ts))
    return failure();
  SmallVector<int64_t> shape;
  for (const Tensor &t : *ts) {
    FailureOr<SmallVector<int64_t>> s = broadcastShape(shape, t.shape());
    if (failed(s))
      return args.emitError() << "the tensors cannot be broadcast together";
    shape = *s;
  }
  std::vector<RtValue> out;
  for (const Tensor &t : *ts)
    out.push_back(RtValue(broadcastTo(t, shape)));
  return RtValue::ofList(std::move(out), true);
}

/// aten::copy: src broadcast to the input's shape and converted to its
/// dtype.
FailureOr<RtValue> copyInto(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), src = args.tensor("src");
  if (failed(in) || failed(src))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(in->shape(), src->shape());
  if (failed(shape) || ArrayRef<int64_t>(*shape) != in->shape())
    return args.emitError() << "src cannot be broadcast to the input's shape";
  return RtValue(broadcastTo(*src, in->shape()).to(in->dtype()));
}

/// aten::slice: Python's x[start:end:step] along `dim`.
FailureOr<RtValue> atenSlice(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  if (in->rank() == 0)
    return args.emitError() << "slice() cannot be applied to a 0-dim tensor";
  FailureOr<StridedView> view = sliceView(args, *in);
  if (failed(view))
    return failure();
  return RtValue(gatherStrided(*in, view->shape, view->offset, view->strides));
}

/// as_strided over the input's elements in row-major order (its storage
/// when it is contiguous, as the tensors torch hands to as_strided are).
FailureOr<RtValue> asStrided(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> size = args.getInts("size"),
                                  stride = args.getInts("stride");
  if (failed(in) || failed(size) || failed(stride))
    return failure();
  int64_t offset = 0;
  if (!args.isNone("storage_offset")) {
    FailureOr<int64_t> o = args.getInt("storage_offset");
    if (failed(o))
      return failure();
    offset = *o;
  }
  if (size->size() != stride->size())
    return args.emitError() << "mismatch in length of strides and shape";
  int64_t last = offset, numel = 1;
  for (auto [n, st] : llvm::zip(*size, *stride)) {
    if (n < 0 || st < 0)
      return args.emitError() << "sizes and strides must be non-negative";
    numel *= n;
    last += (n - 1) * st;
  }
  if (offset < 0 || (numel > 0 && last >= in->numel()))
    return args.emitError() << "as_strided: the view reaches element " << last
                            << " of a storage of " << in->numel()
                            << " elements";
  return RtValue(gatherStrided(*in, *size, offset, *stride));
}

FailureOr<RtValue> narrow(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  const RtValue &startArg = args.get("start");
  FailureOr<int64_t> d = args.getInt("dim"),
                     start = startArg.isTensor()
                                 ? FailureOr<int64_t>(startArg.tensor().getInt(0))
                                 : args.getInt("start"),
                     length = args.getInt("length");
  if (failed(in) || failed(d) || failed(start) || failed(length))
    return failure();
  if (in->rank() == 0)
    return args.emitError() << "narrow() cannot be applied to a 0-d tensor";
  FailureOr<int64_t> dim = normalizeDim(args, *d, in->rank());
  if (failed(dim))
    return failure();
  int64_t size = in->dim(*dim), s = *start < 0 ? *start + size : *start;
  if (s < 0 || *length < 0 || s + *length > size)
    return args.emitError() << "start (" << *start << ") + length ("
                            << *length << ") exceeds dimension size ("
                            << size << ")";
  SmallVector<int64_t> shape(in->shape());
  shape[*dim] = *length;
  FailureOr<Tensor> out =
      takeAlong(args, *in, *dim, *length, shape,
                [&](int64_t, int64_t j, int64_t) { return s + j; });
  if (failed(out))
    return failure();
  return RtValue(*out);
}

FailureOr<RtValue> flip(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> dims = args.getInts("dims");
  if (failed(in) || failed(dims))
    return failure();
  Tensor x = *in;
  SmallVector<bool> seen(std::max<int64_t>(x.rank(), 1), false);
  for (int64_t d : *dims) {
    FailureOr<int64_t> dim = normalizeDim(args, d, std::max<int64_t>(x.rank(), 1));
    if (failed(dim))
      return failure();
    if (seen[*dim])
      return args.emitError() << "dim " << d << " appears multiple times";
    seen[*dim] = true;
    if (x.rank() == 0)
      continue;
    int64_t size = x.dim(*dim);
    FailureOr<Tensor> out =
        takeAlong(args, x, *dim, size, x.shape(),
                  [&](int64_t, int64_t j, int64_t) { return size - 1 - j; });
    if (failed(out))
      return failure();
    x = *out;
  }
  return RtValue(x);
}

FailureOr<RtValue> roll(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> shifts = args.getInts("shifts");
  if (failed(in) || failed(shifts))
    return failure();
  SmallVector<int64_t> dims;
  if (!args.isNone("dims")) {
    FailureOr<SmallVector<int64_t>> d = args.getInts("dims");
    if (failed(d))
      return failure();
    dims = *d;
  }
  Tensor x = *in;
  if (dims.empty()) {
    // Rolls the flattened tensor.
    if (shifts->size() != 1)
      return args.emitError() << "shifts must be one int when dims is empty";
    Tensor flat = x.reshaped({x.numel()});
    int64_t n = x.numel(), s = (*shifts)[0];
    FailureOr<Tensor> out = takeAlong(
        args, flat, 0, n, {n}, [&](int64_t, int64_t j, int64_t) {
          return n ? (((j - s) % n) + n) % n : 0;
        });
    if (failed(out))
      return failure();
    return RtValue(out->reshaped(x.shape()));
  }
  if (dims.size() != shifts->size())
    return args.emitError() << "shifts and dims must have the same length";
  for (auto [d, s] : llvm::zip(dims, *shifts)) {
    FailureOr<int64_t> dim = normalizeDim(args, d, std::max<int64_t>(x.rank(), 1));
    if (failed(dim))
      return failure();
    int64_t n = x.rank() ? x.dim(*dim) : 1, shift = s;
    FailureOr<Tensor> out = takeAlong(
        args, x, *dim, n, x.shape(), [&](int64_t, int64_t j, int64_t) {
          return n ? (((j - shift) % n) + n) % n : 0;
        });
    if (failed(out))
      return failure();
    x = *out;
  }
  return RtValue(x);
}

/// x.repeat(*sizes) and torch.tile(x, dims): leading dims are added as 1s.
static FailureOr<RtValue> repeatImpl(const KernelArgs &args, StringRef name,
                                     bool tile) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> reps = args.getInts(name);
  if (failed(in) || failed(reps))
    return failure();
  SmallVector<int64_t> r = *reps;
  if (!tile && static_cast<int64_t>(r.size()) < in->rank())
    return args.emitError() << "the number of repeat dims cannot be smaller "
                               "than the number of tensor dims";
  while (static_cast<int64_t>(r.size()) < in->rank())
    r.insert(r.begin(), 1);
  SmallVector<int64_t> xshape(r.size() - in->rank(), 1);
  xshape.append(in->shape().begin(), in->shape().end());
  Tensor x = in->reshaped(xshape);
  for (int64_t d = 0; d < static_cast<int64_t>(r.size()); ++d) {
    if (r[d] < 0)
      return args.emitError() << "repeat counts must be non-negative";
    int64_t n = x.dim(d);
    SmallVector<int64_t> shape(x.shape());
    shape[d] = n * r[d];
    FailureOr<Tensor> out =
        takeAlong(args, x, d, n * r[d], shape,
                  [&](int64_t, int64_t j, int64_t) { return n ? j % n : 0; });
    if (failed(out))
      return failure();
    x = *out;
  }
  return RtValue(x);
}
FailureOr<RtValue> repeat(const KernelArgs &args) {
  return repeatImpl(args, "repeats", false);
}
FailureOr<RtValue> tile(const KernelArgs &args) {
  return repeatImpl(args, "dims", true);
}

/// tril/triu over the last two dims, keeping elements on and below (above)
/// the `diagonal`.
static FailureOr<RtValue> triangle(const KernelArgs &args, bool lower) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> diag = args.getInt("diagonal");
  if (failed(in) || failed(diag))
    return failure();
  if (in->rank() < 2)
    return args.emitError() << "tril/triu: input tensor must have at least 2 "
                               "dimensions";
  Tensor out(in->dtype(), in->shape());
  int64_t rows = in->dim(in->rank() - 2), cols = in->dim(in->rank() - 1);
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = in->template data<T>();
    T *o = out.template data<T>();
    for (int64_t i = 0, n = in->numel(); i < n; ++i) {
      int64_t c = i % cols, r = (i / std::max<int64_t>(cols, 1)) % std::max<int64_t>(rows, 1);
      bool keep = lower ? c - r <= *diag : c - r >= *diag;
      o[i] = keep ? p[i] : T(0);
    }
    return 0;
  });
  return RtValue(out);
}
FailureOr<RtValue> tril(const KernelArgs &args) { return triangle(args, true); }
FailureOr<RtValue> triu(const KernelArgs &args) { return triangle(args, false); }

/// F.pad in "constant" mode: `pad` lists (before, after) from the last dim
/// backwards; negative amounts crop.
/// F.pad's reflect, replicate and circular modes: each output element
/// reads the input element its padded position maps to.
static FailureOr<RtValue> padBorder(const KernelArgs &args, const Tensor &in,
                                    ArrayRef<int64_t> amounts,
                                    StringRef mode) {
  int64_t k = amounts.size() / 2, rank = in.rank();
  if (k < 1 || k > 3 || (rank != k + 1 && rank != k + 2))
    return args.emitError() << "\"" << mode << "\" padding of " << k
                            << " dims takes a " << k + 1 << "-D or "
                            << k + 2 << "-D input, got " << rank << "-D";
  SmallVector<int64_t> lo(rank, 0), shape(in.shape());
  for (int64_t i = 0; i < k; ++i) {
    int64_t d = rank - 1 - i, a = amounts[2 * i], b = amounts[2 * i + 1],
            n = in.dim(d);
    if (mode == "reflect" && (a >= n || b >= n))
      return args.emitError() << "padding size should be less than the "
                                 "corresponding input dimension, but got: "
                                 "padding ("
                              << a << ", " << b << ") at dimension " << d
                              << " of input of size " << n;
    if (mode == "circular" && (a > n || b > n))
      return args.emitError() << "padding value causes wrapping around more "
                                 "than once";
    if (mode == "replicate" && n == 0 && (a > 0 || b > 0))
      return args.emitError() << "cannot replicate-pad an empty dimension";
    lo[d] = a;
    shape[d] += a + b;
    if (shape[d] < 0)
      return args.emitError() << "padding makes dim " << d << " negative";
  }
  Tensor out(in.dtype(), shape);
  SmallVector<int64_t> is = in.strides(), pos(rank, 0);
  auto source = [&](int64_t o, int64_t d) {
    int64_t n = in.dim(d), i = o - lo[d];
    if (mode == "reflect") {
      if (i < 0)
        i = -i;
      if (i >= n)
        i = 2 * (n - 1) - i;
    } else if (mode == "replicate") {
      i = std::min(std::max<int64_t>(i, 0), n - 1);
    } else {
      i = ((i % n) + n) % n;
    }
    return i;
  };
  dispatchStorage(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = in.template data<T>();
    T *dst = out.template data<T>();
    for (int64_t o = 0; o < out.numel(); ++o) {
      int64_t off = 0;
      for (int64_t d = 0; d < rank; ++d)
        off += source(pos[d], d) * is[d];
      dst[o] = src[off];
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++pos[d] < shape[d])
          break;
        pos[d] = 0;
      }
    }
    return 0;
  });
  return RtValue(out);
}

FailureOr<RtValue> pad(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> amounts = args.getInts("pad");
  FailureOr<std::string> mode = args.getStr("mode");
  if (failed(in) || failed(amounts) || failed(mode))
    return failure();
  if (*mode != "constant" && *mode != "reflect" && *mode != "replicate" &&
      *mode != "circular")
    return args.emitError() << "padding mode \"" << *mode
                            << "\" is not supported (constant, reflect, "
                               "replicate, circular)";
  if (amounts->size() % 2 || static_cast<int64_t>(amounts->size()) / 2 > in->rank())
    return args.emitError() << "padding length must be even and at most "
                               "twice the number of dims";
  if (*mode != "constant")
    return padBorder(args, *in, *amounts, *mode);
  double value = 0;
  if (!args.isNone("value")) {
    std::optional<double> v = args.get("value").number();
    if (!v)
      return args.emitError() << "'value' must be a number";
    value = *v;
  }
  int64_t rank = in->rank();
  SmallVector<int64_t> lo(rank, 0), shape(in->shape());
  for (size_t i = 0; i < amounts->size() / 2; ++i) {
    int64_t d = rank - 1 - i;
    lo[d] = (*amounts)[2 * i];
    shape[d] += (*amounts)[2 * i] + (*amounts)[2 * i + 1];
    if (shape[d] < 0)
      return args.emitError() << "padding makes dim " << d << " negative";
  }
  Tensor out(in->dtype(), shape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setDouble(i, value);
  out.roundToDType();
  SmallVector<int64_t> pos(rank, 0), os = out.strides();
  for (int64_t i = 0; i < in->numel(); ++i) {
    int64_t off = 0;
    bool inside = true;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t p = pos[d] + lo[d];
      inside &= p >= 0 && p < shape[d];
      off += p * os[d];
    }
    if (inside)
      dispatchStorage(in->dtype(), [&](auto tag) {
        using T = decltype(tag);
        out.template data<T>()[off] = in->template data<T>()[i];
        return 0;
      });
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++pos[d] < in->dim(d))
        break;
      pos[d] = 0;
    }
  }
  return RtValue(out);
}

/// torch.split by a size or a list of sizes: a tuple of pieces.
FailureOr<RtValue> split(const KernelArgs &args) {
  Tensor in;
  int64_t dim;
  if (failed(inputAndDim(args, "split() cannot be applied to a 0-d tensor", in,
                         dim)))
    return failure();
  int64_t size = in.dim(dim);
  SmallVector<int64_t> sizes;
  const RtValue &spec = args.get("split_size_or_sections");
  if (auto *n = std::get_if<int64_t>(&spec.v)) {
    if (*n <= 0)
      return args.emitError() << "split size must be positive";
    for (int64_t s = 0; s < size || (size == 0 && sizes.empty()); s += *n)
      sizes.push_back(std::min(*n, size - s));
  } else {
    FailureOr<SmallVector<int64_t>> list = args.getInts("split_size_or_sections");
    if (failed(list))
      return failure();
    sizes = *list;
    int64_t total = 0;
    for (int64_t s : sizes)
      total += s;
    if (total != size)
      return args.emitError() << "split sizes sum to " << total << ", but dim "
                              << dim << " has size " << size;
  }
  std::vector<RtValue> pieces;
  int64_t start = 0;
  for (int64_t s : sizes) {
    SmallVector<int64_t> shape(in.shape());
    shape[dim] = s;
    FailureOr<Tensor> piece =
        takeAlong(args, in, dim, s, shape,
                  [&](int64_t, int64_t j, int64_t) { return start + j; });
    if (failed(piece))
      return failure();
    pieces.push_back(RtValue(*piece));
    start += s;
  }
  return RtValue::ofList(std::move(pieces), /*isTuple=*/true);
}

} // namespace mlir::traced::kernels

namespace mlir::traced::kernels {
/// Tensor.t: a 2-D transpose; 0-d and 1-d tensors stay as they are.
FailureOr<RtValue> t(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  if (in->rank() > 2)
    return args.emitError() << "t() expects a tensor with <= 2 dimensions, "
                               "but it has "
                            << in->rank();
  if (in->rank() < 2)
    return RtValue(*in);
  SmallVector<int64_t> s = in->strides();
  return RtValue(
      gatherStrided(*in, {in->dim(1), in->dim(0)}, 0, {s[1], s[0]}));
}
} // namespace mlir::traced::kernels

namespace mlir::traced::kernels {

FailureOr<std::pair<int64_t, int64_t>>
selectPosition(const KernelArgs &args, const Tensor &in, int64_t dim,
               int64_t index) {
  if (in.rank() == 0)
    return args.emitError() << "select() cannot be applied to a 0-d tensor";
  FailureOr<int64_t> d = normalizeDim(args, dim, in.rank());
  if (failed(d))
    return failure();
  int64_t size = in.dim(*d), n = index < 0 ? index + size : index;
  if (n < 0 || n >= size)
    return args.emitError() << "select(): index " << index
                            << " out of range for tensor of size " << size
                            << " at dimension " << *d;
  return std::make_pair(*d, n);
}

FailureOr<RtValue> select(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim"), i = args.getInt("index");
  if (failed(in) || failed(d) || failed(i))
    return failure();
  FailureOr<std::pair<int64_t, int64_t>> at = selectPosition(args, *in, *d, *i);
  if (failed(at))
    return failure();
  int64_t dim = at->first, n = at->second;
  SmallVector<int64_t> strides = in->strides(), shape(in->shape());
  int64_t offset = n * strides[dim];
  shape.erase(shape.begin() + dim);
  strides.erase(strides.begin() + dim);
  return RtValue(gatherStrided(*in, shape, offset, strides));
}

FailureOr<RtValue> movedim(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> src = args.getInts("source"),
                                  dst = args.getInts("destination");
  if (failed(in) || failed(src) || failed(dst))
    return failure();
  std::string error;
  FailureOr<SmallVector<int64_t>> perm =
      movedimPermutation(*src, *dst, in->rank(), error);
  if (failed(perm))
    return args.emitError() << "movedim: " << error;
  SmallVector<int64_t> xs = in->strides(), shape, strides;
  for (int64_t p : *perm) {
    shape.push_back(in->dim(p));
    strides.push_back(xs[p]);
  }
  return RtValue(gatherStrided(*in, shape, 0, strides));
}

/// Tensor.unfold: windows of `size` every `step` along `dimension`, as a
/// new last dim.
FailureOr<RtValue> unfoldWindows(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dimension"), size = args.getInt("size"),
                     step = args.getInt("step");
  if (failed(in) || failed(d) || failed(size) || failed(step))
    return failure();
  Tensor x = in->rank() ? *in : in->reshaped({1});
  FailureOr<int64_t> dim = normalizeDim(args, *d, x.rank());
  if (failed(dim))
    return failure();
  if (*step <= 0)
    return args.emitError() << "step is " << *step << " but must be > 0";
  if (*size < 0 || *size > x.dim(*dim))
    return args.emitError() << "maximum size for tensor at dimension " << *dim
                            << " is " << x.dim(*dim) << " but size is "
                            << *size;
  SmallVector<int64_t> shape(x.shape()), strides = x.strides();
  shape[*dim] = (x.dim(*dim) - *size) / *step + 1;
  shape.push_back(*size);
  strides.push_back(strides[*dim]);
  strides[*dim] *= *step;
  if (!in->rank()) { // a 0-d input gives [size]
    shape.erase(shape.begin());
    strides.erase(strides.begin());
  }
  return RtValue(gatherStrided(x, shape, 0, strides));
}

FailureOr<RtValue> numel(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  return RtValue::ofInt(in->numel());
}

/// x.view_as(other), x.reshape_as(other): x's elements in other's shape;
/// x.expand_as(other): x broadcast to it.
FailureOr<RtValue> reshapeAs(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), other = args.tensor("other");
  if (failed(in) || failed(other))
    return failure();
  if (in->numel() != other->numel())
    return args.emitError() << "shape is invalid for an input of "
                            << in->numel() << " elements";
  return RtValue(in->reshaped(other->shape()));
}

/// x.resize_(*size), x.resize_as_(t): x's first elements in the new shape
/// (the rule refuses growing).
FailureOr<RtValue> resize(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape;
  if (args.has("the_template")) {
    FailureOr<Tensor> t = args.tensor("the_template");
    if (failed(t))
      return failure();
    shape.assign(t->shape().begin(), t->shape().end());
  } else {
    FailureOr<SmallVector<int64_t>> size = args.getInts("size");
    if (failed(size))
      return failure();
    shape = *size;
  }
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  if (n > in->numel())
    return args.emitError() << "resizing to " << n
                            << " elements, more than the tensor's "
                            << in->numel() << ", is not supported";
  Tensor out(in->dtype(), shape);
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy_n(in->template data<T>(), n, out.template data<T>());
    return 0;
  });
  return RtValue(out);
}

FailureOr<RtValue> expandAs(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), other = args.tensor("other");
  if (failed(in) || failed(other))
    return failure();
  FailureOr<SmallVector<int64_t>> b = broadcastShape(in->shape(), other->shape());
  if (failed(b) || ArrayRef<int64_t>(*b) != other->shape())
    return args.emitError() << "the input cannot be expanded to the shape of "
                               "'other'";
  return RtValue(broadcastTo(*in, other->shape()));
}

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Entries that are formulas of other shape entries (callEntry)
//===----------------------------------------------------------------------===//

namespace mlir::traced::kernels {

/// torch.constant_pad_nd: F.pad's constant mode.
static FailureOr<RtValue> constantPadNd(const KernelArgs &args) {
  std::optional<double> value = args.get("value").number();
  if (!value)
    return args.emitError() << "'value' must be a number";
  return callEntry(args, "torch.nn.functional.pad",
                   {{"input", args.get("input")},
                    {"pad", args.get("pad")},
                    {"value", RtValue::ofFloat(*value)}});
}

/// hsplit, vsplit, dsplit: tensor_split along their dim, after torch's
/// checks (the rule's).
static FailureOr<RtValue> directionalSplit(const KernelArgs &args, StringRef name,
                                           int64_t minRank) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  if (in->rank() < minRank)
    return args.emitError() << "torch." << name
                            << " requires a tensor with at least " << minRank
                            << " dimension, but got a tensor with "
                            << in->rank() << " dimensions!";
  int64_t dim = name == "hsplit" ? (in->rank() > 1 ? 1 : 0)
                : name == "vsplit" ? 0
                                   : 2;
  const RtValue &sections = args.get("indices_or_sections");
  if (auto *n = std::get_if<int64_t>(&sections.v))
    if (*n == 0 || in->dim(dim) % *n)
      return args.emitError()
             << "torch." << name << " attempted to split along dimension "
             << dim << ", but the size of the dimension " << in->dim(dim)
             << " is not divisible by the split_size " << *n << "!";
  return callEntry(args, "torch.tensor_split",
                   {{"input", RtValue(*in)},
                    {"indices_or_sections", sections},
                    {"dim", RtValue::ofInt(dim)}});
}

/// diagflat: diag of the flattened input.
static FailureOr<RtValue> diagflat(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  return callEntry(args, "torch.diag",
                   {{"input", RtValue(in->reshaped({in->numel()}))},
                    {"diagonal", args.get("offset")}});
}

/// Tensor.sum_to_size: sum (keepdim) over the leading dims and those
/// `size` has as 1, then viewed as `size`; the input when nothing is summed.
static FailureOr<RtValue> sumToSize(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> size = args.getInts("size");
  if (failed(in) || failed(size))
    return failure();
  int64_t lead = in->rank() - static_cast<int64_t>(size->size());
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < lead; ++i)
    dims.push_back(i);
  for (int64_t i = 0; lead >= 0 && i < static_cast<int64_t>(size->size()); ++i) {
    int64_t s = (*size)[i], d = in->dim(lead + i);
    if (s != d && s != 1)
      lead = -1;
    else if (s == 1 && d != 1)
      dims.push_back(lead + i);
  }
  if (lead < 0)
    return args.emitError() << "size is not expandable to the input's size";
  // (An empty size is torch's sum() of everything, even of a 0-d input.)
  if (size->empty())
    return callEntry(args, "torch.sum", {{"input", RtValue(*in)}});
  if (dims.empty())
    return RtValue(copyOf(*in));
  FailureOr<Tensor> sum = callTensor(args, "torch.sum",
                                     {{"input", RtValue(*in)},
                                      {"dim", intsValue(dims)},
                                      {"keepdim", RtValue::ofBool(true)}});
  if (failed(sum))
    return failure();
  return RtValue(sum->reshaped(*size));
}

/// fftshift and ifftshift: rolls by half of each dim (all by default),
/// rounded down and up.
static FailureOr<RtValue> fftShift(const KernelArgs &args, bool inverse) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  SmallVector<int64_t> dims;
  if (args.isNone("dim")) {
    for (int64_t i = 0; i < in->rank(); ++i)
      dims.push_back(i);
  } else {
    FailureOr<SmallVector<int64_t>> given = args.getInts("dim");
    if (failed(given))
      return failure();
    for (int64_t d : *given) {
      FailureOr<int64_t> n = normalizeDim(args, d, in->rank());
      if (failed(n))
        return failure();
      dims.push_back(*n);
    }
  }
  if (dims.empty())
    return args.emitError() << "`shifts` required";
  SmallVector<int64_t> shifts;
  for (int64_t d : dims)
    shifts.push_back((in->dim(d) + (inverse ? 1 : 0)) / 2);
  return callEntry(args, "torch.roll",
                   {{"input", RtValue(*in)},
                    {"shifts", intsValue(shifts)},
                    {"dims", intsValue(dims)}});
}


/// torch.gradient as torch composes it, per dim of size n and spacing h:
/// [edge, (x[2:] - x[:-2]) / h / 2, edge], the edges (x[1] - x[0]) / h
/// and (x[n-1] - x[n-2]) / h, or with edge_order 2 the second-order
/// one-sided differences.
static FailureOr<RtValue> gradient(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> edge = args.getInt("edge_order");
  if (failed(in) || failed(edge))
    return failure();
  if (in->dtype() == DType::Bool || in->dtype() == DType::U8)
    return args.emitError() << "torch.gradient does not support bool or uint8 input";
  SmallVector<double> spacing;
  const RtValue &given = args.get("spacing");
  if (std::optional<double> one = given.number()) {
    spacing.push_back(*one);
  } else if (given.list()) {
    for (const RtValue &item : given.list()->items) {
      std::optional<double> v = item.number();
      if (!v)
        return args.emitError() << "torch.gradient: a spacing of coordinate "
                                   "tensors is not supported here";
      spacing.push_back(*v);
    }
  } else if (!given.isNone()) {
    return args.emitError() << "torch.gradient: spacing must be numbers";
  }
  std::optional<SmallVector<int64_t>> dims;
  if (!args.isNone("dim")) {
    FailureOr<SmallVector<int64_t>> d = args.getInts("dim");
    if (failed(d))
      return failure();
    dims = *d;
  }
  std::string error;
  auto plan = gradientDims(in->shape(),
                           dims ? std::optional<ArrayRef<int64_t>>(*dims) : std::nullopt,
                           spacing, *edge, error);
  if (failed(plan))
    return args.emitError() << error;
  std::vector<RtValue> outs;
  for (size_t k = 0; k < plan->first.size(); ++k) {
    int64_t d = plan->first[k];
    double h = plan->second[k];
    int64_t n = in->dim(d);
    bool ok = true;
    auto call = [&](StringRef entry, RtValue a, RtValue b) -> RtValue {
      if (!ok)
        return RtValue();
      FailureOr<Tensor> t = callTensor(args, entry, {{"input", a}, {"other", b}});
      ok = succeeded(t);
      return ok ? RtValue(*t) : RtValue();
    };
    auto at = [&](int64_t start, int64_t length) -> RtValue {
      if (!ok)
        return RtValue();
      FailureOr<Tensor> t = callTensor(args, "torch.narrow",
                                       {{"input", RtValue(*in)}, {"dim", RtValue::ofInt(d)},
                                        {"start", RtValue::ofInt(start)},
                                        {"length", RtValue::ofInt(length)}});
      ok = succeeded(t);
      return ok ? RtValue(*t) : RtValue();
    };
    RtValue dx = RtValue::ofFloat(h);
    RtValue center = call("torch.div", call("torch.div", call("torch.sub", at(2, n - 2), at(0, n - 2)), dx),
                          RtValue::ofInt(2));
    RtValue first, last;
    if (*edge == 1) {
      first = call("torch.div", call("torch.sub", at(1, 1), at(0, 1)), dx);
      last = call("torch.div", call("torch.sub", at(n - 1, 1), at(n - 2, 1)), dx);
    } else {
      first = call("torch.div",
                   call("torch.sub",
                        call("torch.add", call("torch.mul", at(0, 1), RtValue::ofFloat(-1.5)),
                             call("torch.mul", at(1, 1), RtValue::ofInt(2))),
                        call("torch.mul", at(2, 1), RtValue::ofFloat(0.5))),
                   dx);
      last = call("torch.div",
                  call("torch.add",
                       call("torch.sub", call("torch.mul", at(n - 3, 1), RtValue::ofFloat(0.5)),
                            call("torch.mul", at(n - 2, 1), RtValue::ofInt(2))),
                       call("torch.mul", at(n - 1, 1), RtValue::ofFloat(1.5))),
                  dx);
    }
    if (!ok)
      return failure();
    FailureOr<RtValue> joined = callEntry(
        args, "torch.cat",
        {{"tensors", RtValue::ofList({first, center, last}, false)}, {"dim", RtValue::ofInt(d)}});
    if (failed(joined))
      return failure();
    outs.push_back(*joined);
  }
  return RtValue::ofList(std::move(outs), /*isTuple=*/true);
}

/// The tensors of a `Tensor[]` argument (failure, reported, otherwise).
static FailureOr<SmallVector<Tensor>> tensorsOf(const KernelArgs &args,
                                                StringRef name) {
  const RtValue &list = args.get(name);
  if (!list.list())
    return args.emitError() << "'" << name << "' must be a list of tensors";
  SmallVector<Tensor> ts;
  for (const RtValue &item : list.list()->items) {
    if (!item.isTensor())
      return args.emitError() << "'" << name << "' must be a list of tensors";
    ts.push_back(item.tensor());
  }
  return ts;
}

/// block_diag: the tensors (0-d as [1, 1], vectors as rows) along the
/// diagonal of one matrix of their promoted dtype, zeros elsewhere.
static FailureOr<RtValue> blockDiag(const KernelArgs &args) {
  FailureOr<SmallVector<Tensor>> ts = tensorsOf(args, "tensors");
  if (failed(ts))
    return failure();
  if (ts->empty())
    return RtValue(Tensor(DType::F32, {1, 0}));
  SmallVector<PromotionOperand> operands;
  int64_t rows = 0, cols = 0;
  // (Promoted as torch.result_type promotes them: a 0-d one is a 0-d one.)
  for (auto [i, t] : llvm::enumerate(*ts)) {
    if (t.rank() > 2)
      return args.emitError() << "torch.block_diag: Input tensors must have 2 "
                                 "or fewer dimensions. Input "
                              << i << " has " << t.rank() << " dimensions";
    operands.push_back(tensorPromotion(t));
    t = t.reshaped({t.rank() == 2 ? t.dim(0) : 1, t.rank() ? t.shape().back() : 1});
    rows += t.dim(0);
    cols += t.dim(1);
  }
  DType e = resultType(operands);
  Tensor out(e, {rows, cols});
  int64_t r0 = 0, c0 = 0;
  for (const Tensor &raw : *ts) {
    Tensor t = raw.to(e);
    dispatchStorage(e, [&](auto tag) {
      using T = decltype(tag);
      const T *p = t.template data<T>();
      T *o = out.template data<T>();
      for (int64_t i = 0; i < t.dim(0); ++i)
        for (int64_t j = 0; j < t.dim(1); ++j)
          o[(r0 + i) * cols + c0 + j] = p[i * t.dim(1) + j];
      return 0;
    });
    r0 += t.dim(0);
    c0 += t.dim(1);
  }
  return RtValue(out);
}

/// cartesian_prod: one vector as it is; else row i holds the i-th tuple of
/// the product in row-major order (the last vector fastest).
static FailureOr<RtValue> cartesianProd(const KernelArgs &args) {
  FailureOr<SmallVector<Tensor>> ts = tensorsOf(args, "tensors");
  if (failed(ts))
    return failure();
  if (ts->empty())
    return args.emitError() << "cartesian_prod expects at least one tensor";
  for (const Tensor &t : *ts) {
    if (t.rank() != 1)
      return args.emitError() << "Expect a 1D vector";
    if (t.dtype() != ts->front().dtype())
      return args.emitError()
             << "meshgrid expects all tensors to have the same dtype";
  }
  if (ts->size() == 1)
    return RtValue(copyOf(ts->front()));
  int64_t k = ts->size(), rows = 1;
  for (const Tensor &t : *ts)
    rows *= t.dim(0);
  Tensor out(ts->front().dtype(), {rows, k});
  dispatchStorage(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *o = out.template data<T>();
    for (int64_t i = 0; i < rows; ++i) {
      int64_t rest = i;
      for (int64_t j = k - 1; j >= 0; --j) {
        const Tensor &t = (*ts)[j];
        o[i * k + j] = t.template data<T>()[rest % t.dim(0)];
        rest /= t.dim(0);
      }
    }
    return 0;
  });
  return RtValue(out);
}

/// combinations: the r-combinations of a vector's elements (with
/// replacement: of the multiset) in lexicographic order of their indices.
static FailureOr<RtValue> combinations(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> r = args.getInt("r");
  FailureOr<bool> replacement = args.getBool("with_replacement");
  if (failed(in) || failed(r) || failed(replacement))
    return failure();
  if (in->rank() != 1)
    return args.emitError() << "Expect a 1D vector";
  if (*r < 0)
    return args.emitError() << "Expect a non-negative number, but got " << *r;
  if (*r == 0)
    return RtValue(Tensor(in->dtype(), {0}));
  int64_t n = in->dim(0);
  SmallVector<int64_t> picks;
  SmallVector<int64_t> idx(*r, 0);
  if (!*replacement)
    for (int64_t j = 0; j < *r; ++j)
      idx[j] = j;
  // Each valid tuple in order; the next by incrementing the last index
  // that can grow and resetting the ones after it.
  bool valid = *replacement ? n > 0 : *r <= n;
  while (valid) {
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
  int64_t count = picks.size() / *r;
  Tensor out(in->dtype(), {count, *r});
  dispatchStorage(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = in->template data<T>();
    T *o = out.template data<T>();
    for (size_t i = 0; i < picks.size(); ++i)
      o[i] = p[picks[i]];
    return 0;
  });
  return RtValue(out);
}

} // namespace mlir::traced::kernels

void mlir::traced::kernels::populateShapeKernels(KernelTable &table) {
  table["torch.gradient"] = gradient;
  table["torch.block_diag"] = blockDiag;
  table["torch.cartesian_prod"] = cartesianProd;
  table["torch.combinations"] = combinations;
  table["torch.constant_pad_nd"] = constantPadNd;
  table["torch.hsplit"] = [](const KernelArgs &args) {
    return directionalSplit(args, "hsplit", 1);
  };
  table["torch.vsplit"] = [](const KernelArgs &args) {
    return directionalSplit(args, "vsplit", 2);
  };
  table["torch.dsplit"] = [](const KernelArgs &args) {
    return directionalSplit(args, "dsplit", 3);
  };
  table["torch.diagflat"] = diagflat;
  table["Tensor.sum_to_size"] = sumToSize;
  table["torch.fft.fftshift"] = [](const KernelArgs &args) {
    return fftShift(args, false);
  };
  table["torch.fft.ifftshift"] = [](const KernelArgs &args) {
    return fftShift(args, true);
  };
  table["torch.select"] = select;
  table["torch.unbind"] = unbind;
  table["torch.diagonal"] = diagonal;
  table["torch.diag"] = diag;
  table["torch.trace"] = trace;
  table["torch.nn.functional.pixel_shuffle"] = pixelShuffle;
  table["torch.nn.functional.pixel_unshuffle"] = pixelUnshuffle;
  table["torch.nn.functional.channel_shuffle"] = channelShuffle;
  table["torch.repeat_interleave"] = repeatInterleave;
  table["torch.ops.aten.repeat_interleave.Tensor"] = repeatInterleaveCounts;
  table["torch.hstack"] = hstack;
  table["torch.vstack"] = vstack;
  table["torch.dstack"] = dstack;
  table["torch.column_stack"] = columnStack;
  table["torch.meshgrid"] = meshgrid;
  table["torch.ops.aten.slice.Tensor"] = atenSlice;
  table["torch.is_floating_point"] = isFloatingPointKernel;
  table["torch.broadcast_tensors"] = broadcastTensors;
  table["torch.ops.aten.copy.default"] = copyInto;
  table["Tensor.unfold"] = unfoldWindows;
  table["torch.diag_embed"] = diagEmbed;
  table["torch.rot90"] = rot90;
  table["torch.as_strided"] = asStrided;
  table["torch.narrow"] = narrow;
  table["torch.flip"] = flip;
  table["torch.roll"] = roll;
  table["Tensor.repeat"] = repeat;
  table["torch.tile"] = tile;
  table["torch.tril"] = tril;
  table["torch.triu"] = triu;
  table["torch.nn.functional.pad"] = pad;
  table["torch.split"] = split;
  table["torch.movedim"] = movedim;
  table["torch.flatten"] = flatten;
  table["torch.atleast_1d"] = atleast<1>;
  table["torch.ops.prims.squeeze.default"] = primsSqueeze;
  table["torch.ops.prims.split_dim.default"] = primsSplitDim;
  table["torch.atleast_2d"] = atleast<2>;
  table["torch.atleast_3d"] = atleast<3>;
  table["torch.reshape"] = reshape;
  table["Tensor.view"] = reshape;
  table["torch.permute"] = permute;
  table["torch.transpose"] = transpose;
  table["Tensor.contiguous"] = identity;
  table["torch.clone"] = identity;
  table["Tensor.detach"] = identity;
  table["torch.t"] = t;
  table["torch.unsqueeze"] = unsqueeze;
  table["torch.squeeze"] = squeeze;
  table["Tensor.unflatten"] = unflatten;
  table["Tensor.expand"] = expand;
  table["torch.cat"] = cat;
  table["torch.diff"] = diff;
  table["torch.stack"] = stack;
  table["torch.chunk"] = chunk;
  table["torch.tensor_split"] = tensorSplit;
  table["operator.getitem"] = getitem;
  table["Tensor.size"] = size;
  table["Tensor.dim"] = dim;
  table["torch.ops.aten.ScalarImplicit.default"] = scalarImplicit;
  table["torch.ops.aten.Float"] = atenFloat;
  table["torch.ops.aten.Int"] = atenInt;
  table["torch.ops.aten.Bool"] = atenBool;
  table["torch.ops.prim.min"] = primExtreme<false>;
  table["torch.ops.prim.max"] = primExtreme<true>;
  table["math.ceil"] = pythonRounding<static_cast<double (*)(double)>(std::ceil)>;
  table["math.floor"] = pythonRounding<static_cast<double (*)(double)>(std::floor)>;
  table["math.trunc"] = pythonRounding<static_cast<double (*)(double)>(std::trunc)>;
  table["builtins.getattr"] = getattr;
  table["torch._assert"] = assertTrue;
  table["torch.numel"] = numel;
  table["Tensor.view_as"] = reshapeAs;
  table["Tensor.reshape_as"] = reshapeAs;
  table["Tensor.resize_"] = resize;
  table["torch.resize_as_"] = resize;
  table["Tensor.expand_as"] = expandAs;
}
