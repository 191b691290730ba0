//===- Shape.cpp - reshapes, permutations, indexing, concatenation --------===//

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

std::optional<int64_t> intOf(Attribute a) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    if (!isa<BoolAttr>(a))
      return i.getInt();
  return std::nullopt;
}

/// Tensor basic indexing: ints, slices, None and one Ellipsis.
/// A slice of a dim of `size`: its first index, step and length, or
/// failure (reported) for a non-positive step or non-int bounds.
struct SliceRange {
  int64_t begin, step, length;
};
FailureOr<SliceRange> sliceRange(const KernelArgs &args, SliceAttr slice,
                                 int64_t size) {
  std::optional<int64_t> start = intOf(slice.getStart()),
                         stop = intOf(slice.getStop()),
                         step = intOf(slice.getStep());
  if (!isa<NoneAttr>(slice.getStep()) && (!step || *step < 1))
    return args.emitError() << "slice step must be a positive int";
  if ((!start && !isa<NoneAttr>(slice.getStart())) ||
      (!stop && !isa<NoneAttr>(slice.getStop())))
    return args.emitError() << "slice bounds must be ints or None";
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  int64_t b = start ? clamp(*start) : 0, e = stop ? clamp(*stop) : size;
  int64_t st = step.value_or(1);
  return SliceRange{b, st, e <= b ? 0 : (e - b + st - 1) / st};
}

bool isEllipsisValue(const RtValue &v) {
  auto *a = std::get_if<Attribute>(&v.v);
  return a && isa<EllipsisAttr>(*a);
}

/// Advanced indexing (numpy's rules, as torch follows them): integer and
/// bool tensors (and, beside them, ints) index their dims together; their
/// broadcast shape replaces those dims in place when they are adjacent,
/// else it goes first. Slices, None and Ellipsis index as usual.
/// Which input elements an index reads, in the result's order: the
/// result's shape and one storage offset into the input per element.
/// getitem gathers through it, setitem (index_put) scatters through it.
struct IndexPlan {
  SmallVector<int64_t> shape;
  std::vector<int64_t> offsets;
};

/// Every offset of a strided view, in row-major order.
IndexPlan stridedPlan(ArrayRef<int64_t> shape, int64_t offset,
                      ArrayRef<int64_t> strides) {
  IndexPlan plan{SmallVector<int64_t>(shape), {}};
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  plan.offsets.reserve(n);
  SmallVector<int64_t> pos(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = offset;
    for (size_t d = 0; d < shape.size(); ++d)
      off += pos[d] * strides[d];
    plan.offsets.push_back(off);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++pos[d] < shape[d])
        break;
      pos[d] = 0;
    }
  }
  return plan;
}

FailureOr<IndexPlan> advancedPlan(const KernelArgs &args, const Tensor &x,
                                  std::vector<RtValue> items) {
  // A bool tensor stands for the index tensors of its nonzero positions,
  // one per dim it covers; ints become 0-d index tensors.
  struct Item {
    enum Kind { Slice, NewAxis, Index, Select } kind;
    Attribute slice;
    Tensor index; // Kind::Index: int64 indices into one input dim
  };
  SmallVector<Item> expanded;
  for (const RtValue &v : items) {
    if (auto *a = std::get_if<Attribute>(&v.v); a && !*a) {
      // A null attribute: the whole dim, `:` (aten::index's None).
      expanded.push_back({Item::Slice, Attribute(), {}});
    } else if (v.isNone()) {
      expanded.push_back({Item::NewAxis, {}, {}});
    } else if (isEllipsisValue(v)) {
      expanded.push_back({Item::Slice, Attribute(), {}}); // marker, below
      expanded.back().kind = Item::Slice;
      expanded.back().slice = std::get<Attribute>(v.v);
    } else if (auto *i = std::get_if<int64_t>(&v.v)) {
      // torch selects with ints first (unlike numpy, they do not join the
      // advanced indices).
      Tensor t(DType::I64, {});
      t.data<int64_t>()[0] = *i;
      expanded.push_back({Item::Select, {}, t});
    } else if (auto *a = std::get_if<Attribute>(&v.v); a && isa<SliceAttr>(*a)) {
      expanded.push_back({Item::Slice, *a, {}});

    } else if (v.isTensor() && v.tensor().dtype() == DType::Bool) {
      const Tensor &mask = v.tensor();
      SmallVector<SmallVector<int64_t>> coords(mask.rank());
      SmallVector<int64_t> pos(mask.rank(), 0);
      for (int64_t i = 0; i < mask.numel(); ++i) {
        if (mask.data<uint8_t>()[i])
          for (int64_t d = 0; d < mask.rank(); ++d)
            coords[d].push_back(pos[d]);
        for (int64_t d = mask.rank() - 1; d >= 0; --d) {
          if (++pos[d] < mask.dim(d))
            break;
          pos[d] = 0;
        }
      }
      if (mask.rank() == 0)
        return args.emitError() << "indexing with a 0-d bool mask is not "
                                   "supported";
      for (int64_t d = 0; d < mask.rank(); ++d) {
        Tensor t(DType::I64, {static_cast<int64_t>(coords[d].size())});
        llvm::copy(coords[d], t.data<int64_t>());
        expanded.push_back({Item::Index, {}, t});
      }
    } else if (v.isTensor() && isIntegral(v.tensor().dtype(), false)) {
      expanded.push_back({Item::Index, {}, v.tensor().to(DType::I64)});
    } else {
      return args.emitError() << "unsupported index " << v.describe();
    }
  }
  int64_t consumed = llvm::count_if(expanded, [](const Item &i) {
    return i.kind == Item::Index || i.kind == Item::Select ||
           (i.kind == Item::Slice && (!i.slice || isa<SliceAttr>(i.slice)));
  });
  if (consumed > x.rank())
    return args.emitError() << "too many indices for a tensor of rank "
                            << x.rank();
  // The basic pass: slices and new axes as a strided view, index dims kept
  // whole; `indexDims[k]` is the view dim the k-th index tensor indexes.
  SmallVector<int64_t> inStrides = x.strides(), shape, strides;
  SmallVector<int64_t> indexDims;
  SmallVector<Tensor> indexTensors;
  int64_t offset = 0, dim = 0;
  auto keepDim = [&]() {
    shape.push_back(x.dim(dim));
    strides.push_back(inStrides[dim++]);
  };
  for (const Item &item : expanded) {
    if (item.kind == Item::NewAxis) {
      shape.push_back(1);
      strides.push_back(0);
    } else if (item.kind == Item::Index) {
      indexDims.push_back(shape.size());
      indexTensors.push_back(item.index);
      keepDim();
    } else if (item.kind == Item::Select) {
      int64_t size = x.dim(dim), i = item.index.data<int64_t>()[0];
      int64_t n = i < 0 ? i + size : i;
      if (n < 0 || n >= size)
        return args.emitError() << "index " << i << " is out of range for "
                                << "dimension " << dim << " of size " << size;
      offset += n * inStrides[dim++];
    } else if (item.slice && isa<EllipsisAttr>(item.slice)) {
      for (int64_t k = 0, n = x.rank() - consumed; k < n; ++k)
        keepDim();
    } else if (!item.slice) {
      keepDim();
    } else {
      FailureOr<SliceRange> r =
          sliceRange(args, cast<SliceAttr>(item.slice), x.dim(dim));
      if (failed(r))
        return failure();
      shape.push_back(r->length);
      strides.push_back(inStrides[dim] * r->step);
      offset += r->begin * inStrides[dim++];
    }
  }
  while (dim < x.rank())
    keepDim();
  // Broadcast the index tensors together.
  SmallVector<int64_t> bshape;
  for (const Tensor &t : indexTensors) {
    FailureOr<SmallVector<int64_t>> b = broadcastShape(bshape, t.shape());
    if (failed(b))
      return args.emitError() << "shape mismatch: indexing tensors could not "
                                 "be broadcast together";
    bshape = *b;
  }
  SmallVector<Tensor> idx;
  for (auto [k, t] : llvm::enumerate(indexTensors)) {
    Tensor b = broadcastTo(t, bshape);
    int64_t size = shape[indexDims[k]];
    for (int64_t i = 0; i < b.numel(); ++i) {
      int64_t v = b.data<int64_t>()[i];
      if (v < -size || v >= size)
        return args.emitError() << "index " << v << " is out of bounds for "
                                << "dimension with size " << size;
      if (v < 0)
        b.data<int64_t>()[i] = v + size;
    }
    idx.push_back(b);
  }
  bool adjacent = true;
  for (size_t k = 1; k < indexDims.size(); ++k)
    adjacent &= indexDims[k] == indexDims[k - 1] + 1;
  int64_t insertAt = adjacent ? indexDims.front() : 0;
  // The result: the view's other dims around bshape.
  SmallVector<int64_t> otherDims, outShape;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    if (!llvm::is_contained(indexDims, d))
      otherDims.push_back(d);
  for (int64_t k = 0; k < insertAt; ++k)
    outShape.push_back(shape[otherDims[k]]);
  outShape.append(bshape.begin(), bshape.end());
  for (size_t k = insertAt; k < otherDims.size(); ++k)
    outShape.push_back(shape[otherDims[k]]);
  IndexPlan plan{outShape, {}};
  int64_t outNumel = 1;
  for (int64_t d : outShape)
    outNumel *= d;
  plan.offsets.reserve(outNumel);
  SmallVector<int64_t> pos(outShape.size(), 0);
  int64_t brank = bshape.size();
  for (int64_t o = 0; o < outNumel; ++o) {
    // Split the output position into other dims and the broadcast index.
    int64_t bpos = 0, off = offset;
    for (int64_t k = 0; k < brank; ++k)
      bpos = bpos * bshape[k] + pos[insertAt + k];
    for (size_t k = 0; k < otherDims.size(); ++k) {
      int64_t p = k < static_cast<size_t>(insertAt) ? pos[k] : pos[k + brank];
      off += p * strides[otherDims[k]];
    }
    for (auto [k, d] : llvm::enumerate(indexDims))
      off += idx[k].data<int64_t>()[bpos] * strides[d];
    plan.offsets.push_back(off);
    for (int64_t d = static_cast<int64_t>(outShape.size()) - 1; d >= 0; --d) {
      if (++pos[d] < outShape[d])
        break;
      pos[d] = 0;
    }
  }
  return plan;
}

/// The elements of `x` at `plan`'s offsets, in a tensor of its shape.
Tensor gatherPlan(const Tensor &x, const IndexPlan &plan) {
  Tensor out(x.dtype(), plan.shape);
  dispatchStorage(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (size_t o = 0; o < plan.offsets.size(); ++o)
      out.template data<T>()[o] = x.template data<T>()[plan.offsets[o]];
    return 0;
  });
  return out;
}

/// An index as torch reads it: the items of a tuple (lists of ints in it
/// index like int64 tensors), or one item; a bare list of ints is one
/// int64 tensor.
FailureOr<std::vector<RtValue>> indexItems(const KernelArgs &args,
                                           const RtValue &index) {
  auto listAsTensor = [&](const RtValue::List &l) -> FailureOr<RtValue> {
    Tensor t(DType::I64, {static_cast<int64_t>(l.items.size())});
    for (auto [i, v] : llvm::enumerate(l.items)) {
      auto *n = std::get_if<int64_t>(&v.v);
      if (!n)
        return args.emitError() << "a list index must hold ints";
      t.data<int64_t>()[i] = *n;
    }
    return RtValue(t);
  };
  std::vector<RtValue> items;
  if (const RtValue::List *l = index.list()) {
    if (!l->isTuple) {
      FailureOr<RtValue> t = listAsTensor(*l);
      if (failed(t))
        return failure();
      return std::vector<RtValue>{*t};
    }
    items = l->items;
  } else {
    items.push_back(index);
  }
  for (RtValue &v : items)
    if (const RtValue::List *l = v.list(); l && !l->isTuple) {
      FailureOr<RtValue> t = listAsTensor(*l);
      if (failed(t))
        return failure();
      v = *t;
    }
  return items;
}

/// Basic indexing (ints, slices, None, one Ellipsis) as a strided view:
/// its shape, strides and first offset.
struct StridedView {
  SmallVector<int64_t> shape, strides;
  int64_t offset = 0;
};
FailureOr<StridedView> basicView(const KernelArgs &args, const Tensor &x,
                                 ArrayRef<RtValue> items);

/// The plan of any index: basic or advanced.
FailureOr<IndexPlan> indexPlan(const KernelArgs &args, const Tensor &x,
                               const RtValue &index) {
  FailureOr<std::vector<RtValue>> items = indexItems(args, index);
  if (failed(items))
    return failure();
  if (llvm::any_of(*items, [](const RtValue &v) { return v.isTensor(); }))
    return advancedPlan(args, x, *items);
  FailureOr<StridedView> view = basicView(args, x, *items);
  if (failed(view))
    return failure();
  return stridedPlan(view->shape, view->offset, view->strides);
}

FailureOr<RtValue> indexTensor(const KernelArgs &args, const Tensor &x,
                               const RtValue &index) {
  FailureOr<std::vector<RtValue>> items = indexItems(args, index);
  if (failed(items))
    return failure();
  if (llvm::any_of(*items, [](const RtValue &v) { return v.isTensor(); })) {
    FailureOr<IndexPlan> plan = advancedPlan(args, x, *items);
    if (failed(plan))
      return failure();
    return RtValue(gatherPlan(x, *plan));
  }
  FailureOr<StridedView> view = basicView(args, x, *items);
  if (failed(view))
    return failure();
  return RtValue(gatherStrided(x, view->shape, view->offset, view->strides));
}

FailureOr<StridedView> basicView(const KernelArgs &args, const Tensor &x,
                                 ArrayRef<RtValue> items) {
  auto isEllipsis = isEllipsisValue;
  int64_t consumed = 0;
  for (const RtValue &item : items)
    if (std::holds_alternative<int64_t>(item.v) ||
        (std::holds_alternative<Attribute>(item.v) && !isEllipsis(item)))
      ++consumed;
  if (consumed > x.rank())
    return args.emitError()
           << "too many indices for a tensor of rank " << x.rank();
  SmallVector<int64_t> inStrides = x.strides(), shape, strides;
  int64_t offset = 0, dim = 0;
  for (const RtValue &item : items) {
    if (item.isNone()) {
      shape.push_back(1);
      strides.push_back(0);
    } else if (isEllipsis(item)) {
      for (int64_t k = 0; k < x.rank() - consumed; ++k, ++dim) {
        shape.push_back(x.dim(dim));
        strides.push_back(inStrides[dim]);
      }
    } else if (auto *i = std::get_if<int64_t>(&item.v)) {
      int64_t size = x.dim(dim);
      int64_t n = *i < 0 ? *i + size : *i;
      if (n < 0 || n >= size)
        return args.emitError()
               << "index " << *i << " is out of range for dimension " << dim
               << " of size " << size;
      offset += n * inStrides[dim++];
    } else if (auto *a = std::get_if<Attribute>(&item.v);
               a && isa<SliceAttr>(*a)) {
      FailureOr<SliceRange> r =
          sliceRange(args, cast<SliceAttr>(*a), x.dim(dim));
      if (failed(r))
        return failure();
      shape.push_back(r->length);
      strides.push_back(inStrides[dim] * r->step);
      offset += r->begin * inStrides[dim++];
    } else {
      return args.emitError() << "unsupported index " << item.describe();
    }
  }
  for (; dim < x.rank(); ++dim) {
    shape.push_back(x.dim(dim));
    strides.push_back(inStrides[dim]);
  }
  return StridedView{shape, strides, offset};
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

FailureOr<RtValue> reshape(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
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

/// `x[index] = value` as a value: a copy of `input` with the indexed
/// elements replaced by `value` (broadcast to the indexed shape and
/// converted to input's dtype), or with `value` added where `accumulate`.
static FailureOr<RtValue> putThroughPlan(const KernelArgs &args,
                                         const Tensor &in,
                                         const IndexPlan &plan,
                                         const RtValue &value,
                                         bool accumulate) {
  Tensor v;
  if (value.isTensor()) {
    v = value.tensor();
  } else if (auto *b = std::get_if<bool>(&value.v)) {
    v = Tensor(DType::Bool, {});
    v.data<uint8_t>()[0] = *b;
  } else if (auto *i = std::get_if<int64_t>(&value.v)) {
    v = Tensor(DType::I64, {});
    v.data<int64_t>()[0] = *i;
  } else if (auto *d = std::get_if<double>(&value.v)) {
    v = Tensor(DType::F64, {});
    v.data<double>()[0] = *d;
  } else {
    return args.emitError() << "cannot assign " << value.describe()
                            << " to tensor elements";
  }
  FailureOr<SmallVector<int64_t>> b = broadcastShape(v.shape(), plan.shape);
  if (failed(b) || ArrayRef<int64_t>(*b) != ArrayRef<int64_t>(plan.shape)) {
    auto diag = args.emitError() << "shape mismatch: value of shape [";
    llvm::interleaveComma(v.shape(), diag);
    diag << "] cannot be broadcast to indexing result of shape [";
    llvm::interleaveComma(plan.shape, diag);
    return diag << "]";
  }
  Tensor src = broadcastTo(v.to(in.dtype()), plan.shape).to(in.dtype());
  Tensor out(in.dtype(), in.shape());
  dispatchStorage(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy(in.template data<T>(), in.template data<T>() + in.numel(),
              out.template data<T>());
    // Elements in order: a repeated index keeps the last value written.
    SmallVector<int64_t> strides = src.strides();
    (void)strides;
    for (size_t o = 0; o < plan.offsets.size(); ++o) {
      T x = src.template data<T>()[o];
      T &dst = out.template data<T>()[plan.offsets[o]];
      if (accumulate)
        dst = static_cast<T>(dst + x);
      else
        dst = x;
    }
    return 0;
  });
  if (accumulate)
    out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> setitem(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  FailureOr<IndexPlan> plan = indexPlan(args, *in, args.get("index"));
  if (failed(plan))
    return failure();
  return putThroughPlan(args, *in, *plan, args.get("value"),
                        /*accumulate=*/false);
}

FailureOr<RtValue> indexPut(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> accumulate = args.getBool("accumulate");
  if (failed(in) || failed(accumulate))
    return failure();
  const RtValue::List *l = args.get("indices").list();
  if (!l)
    return args.emitError() << "indices must be a list or tuple of tensors";
  for (const RtValue &v : l->items)
    if (!v.isTensor())
      return args.emitError() << "indices must hold tensors, not "
                              << v.describe();
  if (l->items.size() > static_cast<size_t>(in->rank()))
    return args.emitError() << "too many indices for a tensor of rank "
                            << in->rank();
  FailureOr<IndexPlan> plan = advancedPlan(args, *in, l->items);
  if (failed(plan))
    return failure();
  if (!args.get("values").isTensor())
    return args.emitError() << "values must be a tensor";
  return putThroughPlan(args, *in, *plan, args.get("values"), *accumulate);
}

/// torch.unbind: the slices along `dim`, as a tuple.
FailureOr<RtValue> unbind(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(d))
    return failure();
  if (in->rank() == 0)
    return args.emitError() << "unbind() cannot be applied to a 0-d tensor";
  FailureOr<int64_t> n = normalizeDim(args, *d, in->rank());
  if (failed(n))
    return failure();
  SmallVector<int64_t> strides = in->strides(), shape(in->shape());
  shape.erase(shape.begin() + *n);
  SmallVector<int64_t> inner(strides);
  inner.erase(inner.begin() + *n);
  std::vector<RtValue> pieces;
  for (int64_t i = 0; i < in->dim(*n); ++i)
    pieces.push_back(RtValue(gatherStrided(*in, shape, i * strides[*n], inner)));
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

/// take_along_dim: gather with the indices broadcast against the input
/// (all but `dim`); a flattened input when dim is None.
FailureOr<RtValue> takeAlongDim(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), ind = args.tensor("indices");
  if (failed(in) || failed(ind))
    return failure();
  if (isFloatingPoint(ind->dtype()) || ind->dtype() == DType::Bool)
    return args.emitError() << "take_along_dim expects integer indices";
  Tensor x = *in, idx = ind->to(DType::I64);
  int64_t dim;
  if (args.isNone("dim")) {
    x = x.reshaped({x.numel()});
    idx = idx.reshaped({idx.numel()});
    dim = 0;
  } else {
    FailureOr<int64_t> d = args.getInt("dim");
    if (failed(d))
      return failure();
    if (x.rank() != idx.rank())
      return args.emitError() << "input and indices should have the same "
                                 "number of dimensions";
    FailureOr<int64_t> n = normalizeDim(args, *d, x.rank());
    if (failed(n))
      return failure();
    dim = *n;
    // Broadcast every other dim.
    SmallVector<int64_t> xs(x.shape()), is(idx.shape());
    xs[dim] = 1;
    is[dim] = 1;
    FailureOr<SmallVector<int64_t>> b = broadcastShape(xs, is);
    if (failed(b))
      return args.emitError() << "the shapes of 'input' and 'indices' cannot "
                                 "be broadcast together";
    SmallVector<int64_t> xt(*b), it(*b);
    xt[dim] = x.dim(dim);
    it[dim] = idx.dim(dim);
    x = broadcastTo(x, xt);
    idx = broadcastTo(idx, it);
  }
  SmallVector<int64_t> shape(idx.shape());
  Tensor out(x.dtype(), shape);
  SmallVector<int64_t> xs = x.strides(), os = out.strides();
  int64_t size = x.dim(dim);
  for (int64_t o = 0; o < out.numel(); ++o) {
    int64_t rem = o, off = 0;
    for (int64_t d = 0; d < out.rank(); ++d) {
      int64_t p = rem / os[d];
      rem %= os[d];
      if (d == dim) {
        // (A gather: torch takes no negative index here.)
        int64_t k = idx.data<int64_t>()[o];
        if (k < 0 || k >= size)
          return args.emitError() << "index " << k << " is out of bounds for "
                                  << "dimension " << dim << " with size "
                                  << size;
        p = k;
      }
      off += p * xs[d];
    }
    dispatchStorage(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      out.template data<T>()[o] = x.template data<T>()[off];
      return 0;
    });
  }
  return RtValue(out);
}

/// hstack / vstack / dstack / column_stack: atleast_Nd, then cat.
static FailureOr<RtValue> stackLike(const KernelArgs &args, int kind) {
  FailureOr<std::vector<Tensor>> ts = tensorList(args, "tensors");
  if (failed(ts))
    return failure();
  if (ts->empty())
    return args.emitError() << "expects a non-empty list of tensors";
  int64_t dim = 0;
  for (Tensor &t : *ts) {
    SmallVector<int64_t> s(t.shape());
    if (kind == 0) { // hstack: 1-D pieces join along 0, others along 1
      if (s.empty())
        s = {1};
    } else if (kind == 1) { // vstack: atleast_2d
      if (s.empty())
        s = {1, 1};
      else if (s.size() == 1)
        s.insert(s.begin(), 1);
    } else if (kind == 2) { // dstack: atleast_3d
      if (s.empty())
        s = {1, 1, 1};
      else if (s.size() == 1)
        s = {1, s[0], 1};
      else if (s.size() == 2)
        s.push_back(1);
    } else { // column_stack: 0-d and 1-D as columns
      if (s.empty())
        s = {1, 1};
      else if (s.size() == 1)
        s = {s[0], 1};
    }
    t = t.reshaped(s);
  }
  if (kind == 0)
    dim = (*ts)[0].rank() == 1 ? 0 : 1;
  else if (kind == 2)
    dim = 2;
  else if (kind == 3)
    dim = 1;
  FailureOr<Tensor> out = concatenate(args, *ts, dim);
  if (failed(out))
    return failure();
  return RtValue(*out);
}
FailureOr<RtValue> hstack(const KernelArgs &args) { return stackLike(args, 0); }
FailureOr<RtValue> vstack(const KernelArgs &args) { return stackLike(args, 1); }
FailureOr<RtValue> dstack(const KernelArgs &args) { return stackLike(args, 2); }
FailureOr<RtValue> columnStack(const KernelArgs &args) {
  return stackLike(args, 3);
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
// Casts
//===----------------------------------------------------------------------===//

namespace {
/// The dtype `x.to(...)` converts to: a dtype among its arguments, or that
/// of a tensor argument (`x.to(y)`); devices are the CPU's and change
/// nothing. Nullopt: the input's own dtype.
FailureOr<std::optional<DType>> castTarget(const KernelArgs &args) {
  std::optional<DType> target;
  for (StringRef name : {"a", "b", "dtype"}) {
    if (!args.has(name))
      continue;
    const RtValue &v = args.get(name);
    if (v.isTensor()) {
      target = v.tensor().dtype();
    } else if (auto *attr = std::get_if<Attribute>(&v.v)) {
      if (auto d = dyn_cast<DTypeAttr>(*attr)) {
        target = dtypeFromType(d.getType());
        if (!target)
          return args.emitError() << "unsupported dtype " << d.getType();
      }
    }
  }
  return target;
}
} // namespace

namespace mlir::traced::kernels {

FailureOr<RtValue> to(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<std::optional<DType>> target = castTarget(args);
  if (failed(in) || failed(target))
    return failure();
  return RtValue(*target ? in->to(**target) : *in);
}

FailureOr<RtValue> typeAs(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), other = args.tensor("other");
  if (failed(in) || failed(other))
    return failure();
  return RtValue(in->to(other->dtype()));
}

template <DType D> FailureOr<RtValue> castTo(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  return RtValue(in->to(D));
}
template FailureOr<RtValue> castTo<DType::F32>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::F64>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::F16>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::BF16>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::I64>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::I32>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::I16>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::I8>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::U8>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::Bool>(const KernelArgs &);

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// Indexing with tensors, and shape ops that copy
//===----------------------------------------------------------------------===//

namespace {
/// Copies `x` viewed as [outer, size, inner] along its middle axis:
/// out[a, j, c] = x[a, pick(a, j, c), c] for j < `outSize` (a negative pick
/// is an error reported by `pick`).
template <typename Pick>
FailureOr<Tensor> takeAlong(const KernelArgs &args, const Tensor &x,
                            int64_t dim, int64_t outSize,
                            ArrayRef<int64_t> outShape, Pick pick) {
  int64_t size = x.rank() ? x.dim(dim) : 1, inner = 1, outer = 1;
  for (int64_t i = dim + 1; i < x.rank(); ++i)
    inner *= x.dim(i);
  for (int64_t i = 0; i < dim; ++i)
    outer *= x.dim(i);
  Tensor out(x.dtype(), outShape);
  LogicalResult status = success();
  dispatchStorage(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = x.template data<T>();
    T *o = out.template data<T>();
    for (int64_t a = 0; a < outer && succeeded(status); ++a)
      for (int64_t j = 0; j < outSize && succeeded(status); ++j)
        for (int64_t c = 0; c < inner; ++c) {
          int64_t k = pick(a, j, c);
          if (k < 0 || k >= size) {
            status = args.emitError() << "index " << k
                                      << " is out of bounds for dimension "
                                      << dim << " with size " << size;
            break;
          }
          o[(a * outSize + j) * inner + c] = p[(a * size + k) * inner + c];
        }
    return 0;
  });
  if (failed(status))
    return failure();
  return out;
}

} // namespace

namespace mlir::traced::kernels {

FailureOr<RtValue> indexSelect(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), index = args.tensor("index");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(index) || failed(d))
    return failure();
  if (!isIntegral(index->dtype(), /*includeBool=*/false) || index->rank() > 1)
    return args.emitError() << "'index' must be a 0-d or 1-d integer tensor";
  FailureOr<int64_t> dim = normalizeDim(args, *d, std::max<int64_t>(in->rank(), 1));
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape(in->shape());
  int64_t size = in->rank() ? in->dim(*dim) : 1;
  if (in->rank())
    shape[*dim] = index->numel();
  FailureOr<Tensor> out =
      takeAlong(args, *in, *dim, index->numel(), shape,
                [&](int64_t, int64_t j, int64_t) { return index->getInt(j); });
  (void)size;
  if (failed(out))
    return failure();
  return RtValue(*out);
}

FailureOr<RtValue> gather(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), index = args.tensor("index");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(index) || failed(d))
    return failure();
  if (index->dtype() != DType::I64)
    return args.emitError() << "gather(): 'index' must be an int64 tensor";
  int64_t rank = std::max<int64_t>(in->rank(), 1);
  FailureOr<int64_t> dim = normalizeDim(args, *d, rank);
  if (failed(dim))
    return failure();
  if (std::max<int64_t>(index->rank(), 1) != rank)
    return args.emitError() << "'index' must have as many dims as 'input'";
  for (int64_t i = 0; i < index->rank(); ++i)
    if (i != *dim && index->dim(i) > (in->rank() ? in->dim(i) : 1))
      return args.emitError() << "size " << index->dim(i) << " of 'index' in dim "
                              << i << " exceeds the input's";
  // out[i0..id..in] = x[i0..index[i]..in]: walk the index's positions.
  Tensor out(in->dtype(), index->shape());
  SmallVector<int64_t> xs = in->strides();
  SmallVector<int64_t> pos(index->rank(), 0);
  int64_t size = in->rank() ? in->dim(*dim) : 1;
  for (int64_t i = 0; i < index->numel(); ++i) {
    int64_t k = index->getInt(i);
    if (k < 0 || k >= size)
      return args.emitError() << "index " << k << " is out of bounds for "
                              << "dimension " << *dim << " with size " << size;
    int64_t off = 0;
    for (int64_t dd = 0; dd < index->rank(); ++dd)
      off += (dd == *dim ? k : pos[dd]) * xs[dd];
    dispatchStorage(in->dtype(), [&](auto tag) {
      using T = decltype(tag);
      out.template data<T>()[i] = in->template data<T>()[off];
      return 0;
    });
    for (int64_t dd = index->rank() - 1; dd >= 0; --dd) {
      if (++pos[dd] < index->dim(dd))
        break;
      pos[dd] = 0;
    }
  }
  return RtValue(out);
}

FailureOr<RtValue> embedding(const KernelArgs &args) {
  FailureOr<Tensor> idx = args.tensor("input"), w = args.tensor("weight");
  if (failed(idx) || failed(w))
    return failure();
  if (!isIntegral(idx->dtype(), /*includeBool=*/false))
    return args.emitError() << "embedding indices must be an integer tensor";
  if (w->rank() != 2)
    return args.emitError() << "'weight' must be 2-D";
  SmallVector<int64_t> shape(idx->shape());
  shape.push_back(w->dim(1));
  Tensor flat = idx->reshaped({idx->numel()});
  FailureOr<Tensor> out = takeAlong(
      args, *w, 0, idx->numel(), {idx->numel(), w->dim(1)},
      [&](int64_t, int64_t j, int64_t) { return flat.getInt(j); });
  if (failed(out))
    return failure();
  return RtValue(out->reshaped(shape));
}

/// F.embedding_bag: the rows of `weight` that each bag's indices name,
/// summed, averaged or maxed (rows equal to padding_idx left out; empty
/// bags give zeros). Bags are the rows of a 2-D input, or the runs of a
/// 1-D input that `offsets` start.
FailureOr<RtValue> embeddingBag(const KernelArgs &args) {
  FailureOr<Tensor> idx = args.tensor("input"), w = args.tensor("weight");
  FailureOr<std::string> mode = args.getStr("mode");
  FailureOr<bool> includeLast = args.getBool("include_last_offset");
  if (failed(idx) || failed(w) || failed(mode) || failed(includeLast))
    return failure();
  if (!isIntegral(idx->dtype(), /*includeBool=*/false))
    return args.emitError() << "embedding_bag indices must be an integer "
                               "tensor";
  if (w->rank() != 2)
    return args.emitError() << "'weight' must be 2-D";
  if (*mode != "sum" && *mode != "mean" && *mode != "max")
    return args.emitError() << "mode has to be one of sum, mean or max";
  if (!args.isNone("max_norm"))
    return args.emitError() << "max_norm renormalizes the weight in place; "
                               "only max_norm=None is supported";
  std::optional<Tensor> perSample;
  if (!args.isNone("per_sample_weights")) {
    FailureOr<Tensor> p = args.tensor("per_sample_weights");
    if (failed(p))
      return failure();
    if (*mode != "sum")
      return args.emitError() << "embedding_bag: per_sample_weights was not "
                                 "None; per_sample_weights is only supported "
                                 "for mode='sum'";
    if (p->shape() != idx->shape())
      return args.emitError() << "per_sample_weights must have the shape of "
                                 "input";
    perSample = *p;
  }
  std::optional<int64_t> paddingIdx;
  if (!args.isNone("padding_idx")) {
    FailureOr<int64_t> p = args.getInt("padding_idx");
    if (failed(p))
      return failure();
    paddingIdx = *p < 0 ? *p + w->dim(0) : *p;
  }
  // Bag b holds indices [starts[b], starts[b + 1]).
  SmallVector<int64_t> starts;
  int64_t total = idx->numel();
  if (idx->rank() == 2) {
    if (!args.isNone("offsets"))
      return args.emitError() << "if input is 2-D, then offsets has to be "
                                 "None";
    for (int64_t b = 0; b <= idx->dim(0); ++b)
      starts.push_back(b * idx->dim(1));
  } else if (idx->rank() == 1) {
    FailureOr<Tensor> offsets = args.tensor("offsets");
    if (failed(offsets))
      return failure();
    if (offsets->rank() != 1)
      return args.emitError() << "offsets has to be a 1-D tensor";
    for (int64_t i = 0; i < offsets->numel(); ++i)
      starts.push_back(offsets->getInt(i));
    if (!*includeLast)
      starts.push_back(total);
    if (starts.empty() || starts[0] != 0)
      return args.emitError() << "offsets[0] has to be 0";
    for (size_t i = 1; i < starts.size(); ++i)
      if (starts[i] < starts[i - 1] || starts[i] > total)
        return args.emitError() << "offsets must be non-decreasing and within "
                                   "the input";
  } else {
    return args.emitError() << "input has to be 1-D or 2-D";
  }
  int64_t bags = std::max<int64_t>(starts.size(), 1) - 1, dim = w->dim(1);
  Tensor out(DType::F64, {bags, dim});
  double *o = out.data<double>();
  for (int64_t b = 0; b < bags; ++b) {
    int64_t count = 0;
    for (int64_t i = starts[b]; i < starts[b + 1]; ++i) {
      int64_t row = idx->getInt(i);
      if (row < 0 || row >= w->dim(0))
        return args.emitError() << "index " << row << " is out of range for "
                                << w->dim(0) << " embeddings";
      if (paddingIdx && row == *paddingIdx)
        continue;
      double scale = perSample ? perSample->getDouble(i) : 1.0;
      for (int64_t k = 0; k < dim; ++k) {
        double v = w->getDouble(row * dim + k) * scale;
        double &acc = o[b * dim + k];
        acc = *mode == "max" ? (count ? std::max(acc, v) : v) : acc + v;
      }
      ++count;
    }
    if (*mode == "mean" && count)
      for (int64_t k = 0; k < dim; ++k)
        o[b * dim + k] /= count;
  }
  return RtValue(out.to(w->dtype()));
}

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
static FailureOr<StridedView> sliceView(const KernelArgs &args,
                                        const Tensor &in) {
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

/// slice_scatter: a copy of the input with `src` (converted to its dtype)
/// written over input[start:end:step] along `dim`.
FailureOr<RtValue> sliceScatter(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), src = args.tensor("src");
  if (failed(in) || failed(src))
    return failure();
  FailureOr<StridedView> view = sliceView(args, *in);
  if (failed(view))
    return failure();
  if (src->shape() != ArrayRef<int64_t>(view->shape))
    return args.emitError() << "expected src to have a size equal to the "
                               "slice of self";
  Tensor out(in->dtype(), in->shape());
  Tensor values = src->to(in->dtype());
  IndexPlan plan = stridedPlan(view->shape, view->offset, view->strides);
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *o = out.template data<T>();
    std::copy_n(in->template data<T>(), in->numel(), o);
    for (size_t i = 0; i < plan.offsets.size(); ++i)
      o[plan.offsets[i]] = values.template data<T>()[i];
    return 0;
  });
  return RtValue(out);
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

/// isclose: |a - b| <= atol + rtol * |b|, equal values (infinities too)
/// close, NaN close to NaN only with equal_nan.
FailureOr<RtValue> isclose(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("input"), b = args.tensor("other");
  FailureOr<double> rtol = args.getFloat("rtol"), atol = args.getFloat("atol");
  FailureOr<bool> equalNan = args.getBool("equal_nan");
  if (failed(a) || failed(b) || failed(rtol) || failed(atol) ||
      failed(equalNan))
    return failure();
  if (a->dtype() != b->dtype())
    return args.emitError() << "expects operands of one dtype, got "
                            << dtypeName(a->dtype()) << " and "
                            << dtypeName(b->dtype());
  if (*rtol < 0 || *atol < 0)
    return args.emitError() << "rtol and atol must be non-negative";
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(a->shape(), b->shape());
  if (failed(shape))
    return args.emitError() << "the operands cannot be broadcast together";
  Tensor x = broadcastTo(*a, *shape), y = broadcastTo(*b, *shape);
  Tensor out(DType::Bool, *shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    double p = x.getDouble(i), q = y.getDouble(i);
    bool close = p == q || (*equalNan && std::isnan(p) && std::isnan(q));
    if (!close && std::isfinite(p) && std::isfinite(q))
      close = std::abs(p - q) <= *atol + *rtol * std::abs(q);
    out.data<uint8_t>()[i] = close;
  }
  return RtValue(out);
}

/// torch.fill: the input's shape and dtype, every element `value` (a
/// number or a 0-d tensor), converted as torch converts it.
FailureOr<RtValue> fillValue(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  const RtValue &v = args.get("value");
  Tensor value(DType::F64, {});
  if (v.isTensor()) {
    if (v.tensor().rank() != 0)
      return args.emitError() << "fill_ only supports 0-dimension value "
                                 "tensors";
    value = v.tensor();
  } else if (std::optional<double> d = v.number()) {
    if (auto *i = std::get_if<int64_t>(&v.v)) {
      value = Tensor(DType::I64, {});
      value.data<int64_t>()[0] = *i;
    } else {
      value.data<double>()[0] = *d;
    }
  } else {
    return args.emitError() << "'value' must be a number or a 0-d tensor";
  }
  return RtValue(broadcastTo(value.to(in->dtype()), in->shape()));
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

/// aten::index: indices[k] (an int or bool tensor, or None for the whole
/// dim) indexes dim k, as x[i0, :, i2] does.
FailureOr<RtValue> atenIndex(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  const RtValue::List *list = args.get("indices").list();
  if (!list)
    return args.emitError() << "expects a list of index tensors";
  std::vector<RtValue> items;
  for (const RtValue &v : list->items) {
    if (v.isNone()) {
      RtValue whole;
      whole.v = Attribute();
      items.push_back(whole);
    } else if (v.isTensor()) {
      items.push_back(v);
    } else {
      return args.emitError() << "indices must be tensors or None, got "
                              << v.describe();
    }
  }
  if (llvm::none_of(items, [](const RtValue &v) { return v.isTensor(); }))
    return RtValue(*in);
  FailureOr<IndexPlan> plan = advancedPlan(args, *in, items);
  if (failed(plan))
    return failure();
  return RtValue(gatherPlan(*in, *plan));
}

FailureOr<RtValue> narrow(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim"), start = args.getInt("start"),
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

/// zeros_like, ones_like and full_like (dtype= honoured).
static FailureOr<RtValue> fullLike(const KernelArgs &args, double value,
                                   bool fromArg) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  FailureOr<DType> d = args.getDType("dtype", in->dtype());
  if (failed(d))
    return failure();
  DType dtype = *d;
  if (fromArg) {
    std::optional<double> v = args.get("fill_value").number();
    if (!v)
      return args.emitError() << "'fill_value' must be a number";
    value = *v;
  }
  Tensor out(dtype, in->shape());
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setDouble(i, value);
  out.roundToDType();
  return RtValue(out);
}
FailureOr<RtValue> zerosLike(const KernelArgs &args) {
  return fullLike(args, 0, false);
}
FailureOr<RtValue> onesLike(const KernelArgs &args) {
  return fullLike(args, 1, false);
}
FailureOr<RtValue> fullLikeKernel(const KernelArgs &args) {
  return fullLike(args, 0, true);
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

FailureOr<RtValue> oneHot(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> classes = args.getInt("num_classes");
  if (failed(in) || failed(classes))
    return failure();
  if (in->dtype() != DType::I64)
    return args.emitError() << "one_hot is only applicable to index tensors "
                               "(int64)";
  if (*classes < 0)
    return args.emitError() << "one_hot needs a static num_classes here "
                               "(-1 depends on the values)";
  SmallVector<int64_t> shape(in->shape());
  shape.push_back(*classes);
  Tensor out(DType::I64, shape);
  for (int64_t i = 0; i < in->numel(); ++i) {
    int64_t k = in->getInt(i);
    if (k < 0 || k >= *classes)
      return args.emitError() << "class values must be in [0, " << *classes
                              << "), got " << k;
    out.data<int64_t>()[i * *classes + k] = 1;
  }
  return RtValue(out);
}

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
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(d))
    return failure();
  if (in->rank() == 0)
    return args.emitError() << "split() cannot be applied to a 0-d tensor";
  FailureOr<int64_t> dim = normalizeDim(args, *d, in->rank());
  if (failed(dim))
    return failure();
  int64_t size = in->dim(*dim);
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
      return args.emitError() << "split sizes sum to " << total
                              << ", but dim " << *dim << " has size " << size;
  }
  std::vector<RtValue> pieces;
  int64_t start = 0;
  for (int64_t s : sizes) {
    SmallVector<int64_t> shape(in->shape());
    shape[*dim] = s;
    FailureOr<Tensor> piece =
        takeAlong(args, *in, *dim, s, shape,
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
/// x.new_zeros/new_ones/new_full(size): x's dtype unless `dtype=` says.
static FailureOr<RtValue> newFilled(const KernelArgs &args,
                                    std::optional<double> value) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<SmallVector<int64_t>> size = args.getInts("size");
  if (failed(in) || failed(size))
    return failure();
  FailureOr<DType> d = args.getDType("dtype", in->dtype());
  if (failed(d))
    return failure();
  DType dtype = *d;
  if (!value) {
    value = args.get("fill_value").number();
    if (!value)
      return args.emitError() << "'fill_value' must be a number";
  }
  for (int64_t d : *size)
    if (d < 0)
      return args.emitError() << "negative dimension " << d;
  Tensor out(dtype, *size);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setDouble(i, *value);
  out.roundToDType();
  return RtValue(out);
}
FailureOr<RtValue> newZeros(const KernelArgs &args) {
  return newFilled(args, 0.0);
}
FailureOr<RtValue> newOnes(const KernelArgs &args) {
  return newFilled(args, 1.0);
}
FailureOr<RtValue> newFull(const KernelArgs &args) {
  return newFilled(args, std::nullopt);
}
} // namespace mlir::traced::kernels

namespace mlir::traced::kernels {

FailureOr<RtValue> select(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim"), i = args.getInt("index");
  if (failed(in) || failed(d) || failed(i))
    return failure();
  if (in->rank() == 0)
    return args.emitError() << "select() cannot be applied to a 0-d tensor";
  FailureOr<int64_t> dim = normalizeDim(args, *d, in->rank());
  if (failed(dim))
    return failure();
  int64_t size = in->dim(*dim), n = *i < 0 ? *i + size : *i;
  if (n < 0 || n >= size)
    return args.emitError() << "select(): index " << *i
                            << " out of range for tensor of size " << size
                            << " at dimension " << *dim;
  SmallVector<int64_t> strides = in->strides(), shape(in->shape());
  int64_t offset = n * strides[*dim];
  shape.erase(shape.begin() + *dim);
  strides.erase(strides.begin() + *dim);
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

/// sort/argsort/topk along `dim`: NaN counts as the largest value, ties
/// keep their order (a stable sort).
static FailureOr<std::pair<Tensor, Tensor>>
sortAlong(const KernelArgs &args, const Tensor &x, int64_t d, bool descending,
          int64_t k) {
  FailureOr<int64_t> dim = normalizeDim(args, d, std::max<int64_t>(x.rank(), 1));
  if (failed(dim))
    return failure();
  int64_t size = x.rank() ? x.dim(*dim) : 1, inner = 1;
  for (int64_t i = *dim + 1; i < x.rank(); ++i)
    inner *= x.dim(i);
  int64_t outer = size * inner ? x.numel() / (size * inner) : 0;
  if (k < 0 || k > size)
    return args.emitError() << "k (" << k << ") is out of range for "
                               "dimension of size "
                            << size;
  SmallVector<int64_t> shape(x.shape());
  if (x.rank())
    shape[*dim] = k;
  Tensor values(x.dtype(), shape), indices(DType::I64, shape);
  SmallVector<int64_t> order(size);
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t c = 0; c < inner; ++c) {
      auto at = [&](int64_t j) { return (a * size + j) * inner + c; };
      for (int64_t j = 0; j < size; ++j)
        order[j] = j;
      if (x.storage() == Storage::Int) {
        // Compared as int64: doubles would tie distinct values above 2^53.
        const int64_t *p = x.data<int64_t>();
        std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
          return descending ? p[at(i)] > p[at(j)] : p[at(i)] < p[at(j)];
        });
      } else {
        std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
          double u = x.getDouble(at(p)), v = x.getDouble(at(q));
          bool un = u != u, vn = v != v;
          if (descending)
            return (un && !vn) || (!un && !vn && u > v);
          return (!un && vn) || (!un && !vn && u < v);
        });
      }
      for (int64_t j = 0; j < k; ++j) {
        int64_t o = (a * k + j) * inner + c, src = (a * size + order[j]) * inner + c;
        dispatchStorage(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          values.template data<T>()[o] = x.template data<T>()[src];
          return 0;
        });
        indices.data<int64_t>()[o] = order[j];
      }
    }
  return std::make_pair(values, indices);
}

FailureOr<RtValue> sort(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  FailureOr<bool> desc = args.getBool("descending");
  if (failed(in) || failed(d) || failed(desc))
    return failure();
  int64_t size = in->rank() ? in->dim(*d < 0 ? *d + in->rank() : *d) : 1;
  auto r = sortAlong(args, *in, *d, *desc, size);
  if (failed(r))
    return failure();
  return RtValue::ofList({RtValue(r->first), RtValue(r->second)}, true);
}

FailureOr<RtValue> argsort(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  FailureOr<bool> desc = args.getBool("descending");
  if (failed(in) || failed(d) || failed(desc))
    return failure();
  int64_t rank = std::max<int64_t>(in->rank(), 1);
  int64_t nd = *d < 0 ? *d + rank : *d;
  int64_t size = in->rank() && nd >= 0 && nd < rank ? in->dim(nd) : 1;
  auto r = sortAlong(args, *in, *d, *desc, size);
  if (failed(r))
    return failure();
  return RtValue(r->second);
}

FailureOr<RtValue> topk(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> k = args.getInt("k"), d = args.getInt("dim");
  FailureOr<bool> largest = args.getBool("largest");
  if (failed(in) || failed(k) || failed(d) || failed(largest))
    return failure();
  auto r = sortAlong(args, *in, *d, *largest, *k);
  if (failed(r))
    return failure();
  return RtValue::ofList({RtValue(r->first), RtValue(r->second)}, true);
}

/// kthvalue: the k-th smallest element along `dim` and its index.
FailureOr<RtValue> kthvalue(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> k = args.getInt("k"), d = args.getInt("dim");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(k) || failed(d) || failed(keepdim))
    return failure();
  FailureOr<int64_t> dim = normalizeDim(args, *d, std::max<int64_t>(in->rank(), 1));
  if (failed(dim))
    return failure();
  int64_t size = in->rank() ? in->dim(*dim) : 1;
  if (*k < 1 || *k > size)
    return args.emitError() << "selected number k out of range for dimension "
                            << *d;
  auto r = sortAlong(args, *in, *dim, /*descending=*/false, *k);
  if (failed(r))
    return failure();
  // The last of the k smallest, with the dim dropped unless keepdim.
  auto pick = [&](const Tensor &t) {
    if (!t.rank())
      return t;
    SmallVector<int64_t> shape(t.shape()), strides = t.strides();
    int64_t offset = (*k - 1) * strides[*dim];
    shape[*dim] = 1;
    Tensor one = gatherStrided(t, shape, offset, strides);
    if (!*keepdim)
      shape.erase(shape.begin() + *dim);
    return one.reshaped(shape);
  };
  return RtValue::ofList({RtValue(pick(r->first)), RtValue(pick(r->second))},
                         true);
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

/// scatter / scatter_add: a copy of `input` with `src` (or `value`) written
/// (or added) at `index` along `dim`.
/// How scatter combines a value with the element it lands on.
enum class ScatterMode { Assign, Sum, Prod, Mean, Max, Min };

static FailureOr<RtValue> scatterImpl(const KernelArgs &args, ScatterMode mode,
                                      bool includeSelf = true) {
  FailureOr<Tensor> in = args.tensor("input"), index = args.tensor("index");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(index) || failed(d))
    return failure();
  if (index->dtype() != DType::I64)
    return args.emitError() << "'index' must be an int64 tensor";
  int64_t rank = std::max<int64_t>(in->rank(), 1);
  FailureOr<int64_t> dim = normalizeDim(args, *d, rank);
  if (failed(dim))
    return failure();
  if (std::max<int64_t>(index->rank(), 1) != rank)
    return args.emitError() << "'index' must have as many dims as 'input'";
  Tensor src;
  std::optional<double> value;
  const RtValue &s = args.get(args.has("src") ? "src" : "value");
  if (s.isTensor())
    src = s.tensor().to(in->dtype());
  else if (std::optional<double> v = s.number())
    value = v;
  else
    return args.emitError() << "'src' must be a tensor or a number";
  if (src.defined()) {
    if (std::max<int64_t>(src.rank(), 1) != rank)
      return args.emitError() << "'index' and 'src' must have as many dims as "
                                 "'input'";
    for (int64_t dd = 0; dd < index->rank(); ++dd)
      if (index->dim(dd) > src.dim(dd))
        return args.emitError() << "'index' is larger than 'src' in dim "
                                << dd;
  }
  for (int64_t dd = 0; dd < index->rank(); ++dd)
    if (dd != *dim && in->rank() && index->dim(dd) > in->dim(dd))
      return args.emitError() << "'index' is larger than 'input' in dim "
                              << dd;
  // A copy (kernels never write into their inputs).
  Tensor out(in->dtype(), in->shape());
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy(in->template data<T>(), in->template data<T>() + in->numel(),
              out.template data<T>());
    return 0;
  });
  bool floating = isFloatingPoint(in->dtype());
  std::vector<int64_t> counts(out.numel(), includeSelf ? 1 : 0);
  SmallVector<int64_t> os = out.strides(), ss = src.defined() ? src.strides()
                                                             : SmallVector<int64_t>();
  SmallVector<int64_t> pos(index->rank(), 0);
  int64_t size = in->rank() ? in->dim(*dim) : 1;
  for (int64_t i = 0; i < index->numel(); ++i) {
    // (torch's scatter family takes no negative index, unlike indexing.)
    int64_t k = index->getInt(i);
    if (k < 0 || k >= size)
      return args.emitError() << "index " << k << " is out of bounds for "
                              << "dimension " << *dim << " with size " << size;
    int64_t off = 0, soff = 0;
    for (int64_t dd = 0; dd < index->rank(); ++dd) {
      off += (dd == *dim ? k : pos[dd]) * os[dd];
      if (src.defined())
        soff += pos[dd] * ss[dd];
    }
    double v = value ? *value : src.getDouble(soff);
    double cur = out.getDouble(off);
    bool first = counts[off] == 0;
    double r;
    switch (mode) {
    case ScatterMode::Assign:
      r = v;
      break;
    case ScatterMode::Sum:
    case ScatterMode::Mean:
      r = first ? v : cur + v;
      break;
    case ScatterMode::Prod:
      r = first ? v : cur * v;
      break;
    case ScatterMode::Max:
      r = first || std::isnan(v) ? v : (std::isnan(cur) ? cur : std::max(cur, v));
      break;
    case ScatterMode::Min:
      r = first || std::isnan(v) ? v : (std::isnan(cur) ? cur : std::min(cur, v));
      break;
    }
    ++counts[off];
    out.setDouble(off, r);
    for (int64_t dd = index->rank() - 1; dd >= 0; --dd) {
      if (++pos[dd] < index->dim(dd))
        break;
      pos[dd] = 0;
    }
  }
  if (mode == ScatterMode::Mean)
    for (int64_t i = 0; i < out.numel(); ++i)
      if (counts[i] > 1) {
        double q = out.getDouble(i) / static_cast<double>(counts[i]);
        out.setDouble(i, floating ? q : std::floor(q));
      }
  out.roundToDType();
  return RtValue(out);
}
FailureOr<RtValue> scatter(const KernelArgs &args) {
  // The legacy reduce= of scatter: "add" or "multiply".
  ScatterMode mode = ScatterMode::Assign;
  if (args.has("reduce") && !args.isNone("reduce")) {
    FailureOr<std::string> r = args.getStr("reduce");
    if (failed(r))
      return failure();
    if (*r == "add")
      mode = ScatterMode::Sum;
    else if (*r == "multiply")
      mode = ScatterMode::Prod;
    else
      return args.emitError() << "reduce argument must be either add or "
                                 "multiply, got "
                              << *r;
  }
  return scatterImpl(args, mode);
}
FailureOr<RtValue> scatterAdd(const KernelArgs &args) {
  return scatterImpl(args, ScatterMode::Sum);
}
FailureOr<RtValue> scatterReduce(const KernelArgs &args) {
  FailureOr<std::string> r = args.getStr("reduce");
  FailureOr<bool> includeSelf = args.getBool("include_self");
  if (failed(r) || failed(includeSelf))
    return failure();
  ScatterMode mode;
  if (*r == "sum")
    mode = ScatterMode::Sum;
  else if (*r == "prod")
    mode = ScatterMode::Prod;
  else if (*r == "mean")
    mode = ScatterMode::Mean;
  else if (*r == "amax")
    mode = ScatterMode::Max;
  else if (*r == "amin")
    mode = ScatterMode::Min;
  else
    return args.emitError() << "reduce argument must be either sum, prod, "
                               "mean, amax or amin, got "
                            << *r;
  if (args.tensor("src").value().dtype() != args.tensor("input").value().dtype())
    return args.emitError() << "scatter_reduce expects 'src' of the input's "
                               "dtype";
  return scatterImpl(args, mode, *includeSelf);
}

/// index_add / index_copy / index_fill: the slices of `dim` named by a 1-D
/// index, added to, replaced by `source`, or filled with `value`.
static FailureOr<RtValue> indexUpdate(const KernelArgs &args, int kind) {
  FailureOr<Tensor> in = args.tensor("input"), index = args.tensor("index");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(index) || failed(d))
    return failure();
  if (index->rank() > 1 || isFloatingPoint(index->dtype()) ||
      index->dtype() == DType::Bool)
    return args.emitError() << "'index' must be a 0-D or 1-D integer tensor";
  int64_t rank = std::max<int64_t>(in->rank(), 1);
  FailureOr<int64_t> dim = normalizeDim(args, *d, rank);
  if (failed(dim))
    return failure();
  Tensor x = in->rank() ? *in : in->reshaped({1});
  Tensor src;
  double alpha = 1, fill = 0;
  if (kind == 2) {
    const RtValue &v = args.get("value");
    std::optional<double> n = v.isTensor() && v.tensor().rank() == 0
                                  ? std::optional<double>(v.tensor().getDouble(0))
                                  : v.number();
    if (!n)
      return args.emitError() << "'value' must be a number or a 0-d tensor";
    fill = *n;
  } else {
    FailureOr<Tensor> s = args.tensor("source");
    if (failed(s))
      return failure();
    if (s->dtype() != in->dtype())
      return args.emitError() << "'source' must have the input's dtype";
    src = s->rank() ? *s : s->reshaped({1});
    if (kind == 0) {
      std::optional<double> a = args.get("alpha").number();
      if (!a)
        return args.emitError() << "'alpha' must be a number";
      alpha = *a;
    }
    SmallVector<int64_t> want(x.shape());
    want[*dim] = index->numel();
    if (src.shape() != ArrayRef<int64_t>(want))
      return args.emitError() << "'source' must have the input's shape with "
                                 "the index's length in dim "
                              << *dim;
  }
  Tensor out(x.dtype(), x.shape());
  dispatchStorage(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy(x.template data<T>(), x.template data<T>() + x.numel(),
              out.template data<T>());
    return 0;
  });
  int64_t size = x.dim(*dim), outer = 1, inner = 1;
  for (int64_t i = 0; i < *dim; ++i)
    outer *= x.dim(i);
  for (int64_t i = *dim + 1; i < x.rank(); ++i)
    inner *= x.dim(i);
  int64_t n = index->numel();
  for (int64_t j = 0; j < n; ++j) {
    int64_t k = index->getInt(j);
    if (k < -size || k >= size)
      return args.emitError() << "index " << k << " is out of bounds for "
                              << "dimension " << *dim << " with size " << size;
    if (k < 0)
      k += size;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t at = (o * size + k) * inner + i;
        if (kind == 2) {
          out.setDouble(at, fill);
          continue;
        }
        double v = src.getDouble((o * n + j) * inner + i);
        out.setDouble(at, kind == 0 ? out.getDouble(at) + alpha * v : v);
      }
  }
  out.roundToDType();
  return RtValue(out.reshaped(in->shape()));
}
FailureOr<RtValue> indexAdd(const KernelArgs &args) {
  return indexUpdate(args, 0);
}
FailureOr<RtValue> indexCopy(const KernelArgs &args) {
  return indexUpdate(args, 1);
}
FailureOr<RtValue> indexFill(const KernelArgs &args) {
  return indexUpdate(args, 2);
}

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

void mlir::traced::kernels::populateShapeKernels(KernelTable &table) {
  table["torch.select"] = select;
  table["torch.unbind"] = unbind;
  table["torch.diagonal"] = diagonal;
  table["torch.diag"] = diag;
  table["torch.trace"] = trace;
  table["torch.nn.functional.pixel_shuffle"] = pixelShuffle;
  table["torch.nn.functional.pixel_unshuffle"] = pixelUnshuffle;
  table["torch.nn.functional.channel_shuffle"] = channelShuffle;
  table["torch.repeat_interleave"] = repeatInterleave;
  table["torch.take_along_dim"] = takeAlongDim;
  table["torch.hstack"] = hstack;
  table["torch.vstack"] = vstack;
  table["torch.dstack"] = dstack;
  table["torch.column_stack"] = columnStack;
  table["torch.meshgrid"] = meshgrid;
  table["Tensor.to"] = to;
  table["Tensor.type_as"] = typeAs;
  table["Tensor.float"] = castTo<DType::F32>;
  table["Tensor.double"] = castTo<DType::F64>;
  table["Tensor.half"] = castTo<DType::F16>;
  table["Tensor.bfloat16"] = castTo<DType::BF16>;
  table["Tensor.long"] = castTo<DType::I64>;
  table["Tensor.int"] = castTo<DType::I32>;
  table["Tensor.short"] = castTo<DType::I16>;
  table["Tensor.char"] = castTo<DType::I8>;
  table["Tensor.byte"] = castTo<DType::U8>;
  table["Tensor.bool"] = castTo<DType::Bool>;
  table["torch.index_select"] = indexSelect;
  table["torch.gather"] = gather;
  table["torch.nn.functional.embedding"] = embedding;
  table["torch.ops.aten.slice.Tensor"] = atenSlice;
  table["torch.ops.aten.index.Tensor"] = atenIndex;
  table["torch.is_floating_point"] = isFloatingPointKernel;
  table["torch.broadcast_tensors"] = broadcastTensors;
  table["torch.isclose"] = isclose;
  table["torch.fill"] = fillValue;
  table["torch.ops.aten.copy.default"] = copyInto;
  table["torch.ops.aten._index_put_impl.default"] = indexPut;
  table["torch.nn.functional.embedding_bag"] = embeddingBag;
  table["torch.kthvalue"] = kthvalue;
  table["Tensor.unfold"] = unfoldWindows;
  table["torch.slice_scatter"] = sliceScatter;
  table["torch.diag_embed"] = diagEmbed;
  table["torch.rot90"] = rot90;
  table["torch.as_strided"] = asStrided;
  table["torch.empty_like"] = zerosLike;
  table["torch.narrow"] = narrow;
  table["torch.flip"] = flip;
  table["torch.roll"] = roll;
  table["Tensor.repeat"] = repeat;
  table["torch.tile"] = tile;
  table["torch.zeros_like"] = zerosLike;
  table["torch.ones_like"] = onesLike;
  table["torch.full_like"] = fullLikeKernel;
  table["torch.tril"] = tril;
  table["torch.triu"] = triu;
  table["torch.nn.functional.one_hot"] = oneHot;
  table["torch.nn.functional.pad"] = pad;
  table["torch.split"] = split;
  table["torch.movedim"] = movedim;
  table["torch.sort"] = sort;
  table["torch.argsort"] = argsort;
  table["torch.topk"] = topk;
  table["torch.scatter"] = scatter;
  table["torch.scatter_add"] = scatterAdd;
  table["torch.scatter_reduce"] = scatterReduce;
  table["torch.index_add"] = indexAdd;
  table["torch.index_copy"] = indexCopy;
  table["torch.index_fill"] = indexFill;
  table["torch.flatten"] = flatten;
  table["torch.reshape"] = reshape;
  table["Tensor.view"] = reshape;
  table["torch.permute"] = permute;
  table["torch.transpose"] = transpose;
  table["Tensor.contiguous"] = identity;
  table["torch.clone"] = identity;
  table["Tensor.detach"] = identity;
  table["torch.t"] = t;
  table["Tensor.new_empty"] = newZeros;
  table["Tensor.new_zeros"] = newZeros;
  table["Tensor.new_ones"] = newOnes;
  table["Tensor.new_full"] = newFull;
  table["torch.unsqueeze"] = unsqueeze;
  table["torch.squeeze"] = squeeze;
  table["Tensor.unflatten"] = unflatten;
  table["Tensor.expand"] = expand;
  table["torch.cat"] = cat;
  table["torch.stack"] = stack;
  table["torch.chunk"] = chunk;
  table["operator.getitem"] = getitem;
  table["operator.setitem"] = setitem;
  table["torch.index_put"] = indexPut;
  table["Tensor.size"] = size;
  table["Tensor.dim"] = dim;
  table["builtins.getattr"] = getattr;
  table["torch._assert"] = assertTrue;
}
