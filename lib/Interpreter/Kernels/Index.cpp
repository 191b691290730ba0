//===- Index.cpp - indexing with tensors, gathers and scatters -----------===//
//
// Tensor indexing (x[index] with ints, slices, None, Ellipsis, and integer
// or bool tensors, as torch follows numpy's rules), which getitem (Shape.cpp)
// reads through and setitem, index_put and aten::index here use; the
// gathers (gather, take_along_dim, index_select, embedding, embedding_bag,
// one_hot) and the scatters (scatter, scatter_add, scatter_reduce,
// slice_scatter, index_add, index_copy, index_fill).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::kernels;

namespace {
std::optional<int64_t> intOf(Attribute a) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    if (!isa<BoolAttr>(a))
      return i.getInt();
  return std::nullopt;
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
    nextPosition(pos, shape);
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
        nextPosition(pos, mask.shape());
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
    nextPosition(pos, outShape);
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
} // namespace

namespace mlir::traced::kernels {

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
  Tensor out = copyOf(in);
  dispatchStorage(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
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

/// aten's index lists (index, index_put): tensors, and None for a whole
/// dim, which advancedPlan reads as a null attribute; failure (reported)
/// for anything else.
static FailureOr<std::vector<RtValue>> atenIndexItems(const KernelArgs &args) {
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
  return items;
}

FailureOr<RtValue> indexPut(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> accumulate = args.getBool("accumulate");
  if (failed(in) || failed(accumulate))
    return failure();
  // A None takes the whole dim (as aten::index's), so that
  // index_put(x, (None, i), v) is x[:, i] = v.
  FailureOr<std::vector<RtValue>> items = atenIndexItems(args);
  if (failed(items))
    return failure();
  if (llvm::none_of(*items, [](const RtValue &v) { return v.isTensor(); }))
    return args.emitError() << "indices must hold at least one tensor";
  if (items->size() > static_cast<size_t>(in->rank()))
    return args.emitError() << "too many indices for a tensor of rank "
                            << in->rank();
  FailureOr<IndexPlan> plan = advancedPlan(args, *in, *items);
  if (failed(plan))
    return failure();
  if (!args.get("values").isTensor())
    return args.emitError() << "values must be a tensor";
  return putThroughPlan(args, *in, *plan, args.get("values"), *accumulate);
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

/// gather's and scatter's input, index and dim (normalized).
struct AlongDim {
  Tensor in, index;
  int64_t dim;
};

/// The arguments of gather and scatter, or failure (reported; `dtypeError`
/// when the index is not int64): the index has as many dims as the input
/// (a 0-d one counting as 1-d).
static FailureOr<AlongDim> alongDim(const KernelArgs &args,
                                    StringRef dtypeError) {
  FailureOr<Tensor> in = args.tensor("input"), index = args.tensor("index");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(in) || failed(index) || failed(d))
    return failure();
  if (index->dtype() != DType::I64)
    return args.emitError() << dtypeError;
  int64_t rank = std::max<int64_t>(in->rank(), 1);
  FailureOr<int64_t> dim = normalizeDim(args, *d, rank);
  if (failed(dim))
    return failure();
  if (std::max<int64_t>(index->rank(), 1) != rank)
    return args.emitError() << "'index' must have as many dims as 'input'";
  return AlongDim{*in, *index, *dim};
}

/// Calls `fn(i, k, pos)` for each element i of the index, in row-major
/// order, `pos` its position and `k` its value; failure (reported) at the
/// first k out of the dim's range (gather and the scatter family take no
/// negative index, unlike indexing).
template <typename Fn>
static LogicalResult forEachIndex(const KernelArgs &args, const AlongDim &along,
                                  Fn fn) {
  const Tensor &index = along.index;
  SmallVector<int64_t> pos(index.rank(), 0);
  int64_t size = along.in.rank() ? along.in.dim(along.dim) : 1;
  for (int64_t i = 0; i < index.numel(); ++i) {
    int64_t k = index.getInt(i);
    if (k < 0 || k >= size)
      return args.emitError()
             << "index " << k << " is out of bounds for "
             << "dimension " << along.dim << " with size " << size;
    fn(i, k, ArrayRef<int64_t>(pos));
    nextPosition(pos, index.shape());
  }
  return success();
}

FailureOr<RtValue> gather(const KernelArgs &args) {
  FailureOr<AlongDim> along =
      alongDim(args, "gather(): 'index' must be an int64 tensor");
  if (failed(along))
    return failure();
  const Tensor &in = along->in, &index = along->index;
  int64_t dim = along->dim;
  for (int64_t i = 0; i < index.rank(); ++i)
    if (i != dim && index.dim(i) > (in.rank() ? in.dim(i) : 1))
      return args.emitError()
             << "size " << index.dim(i) << " of 'index' in dim " << i
             << " exceeds the input's";
  // out[i0..id..in] = x[i0..index[i]..in]: walk the index's positions.
  Tensor out(in.dtype(), index.shape());
  SmallVector<int64_t> xs = in.strides();
  if (failed(forEachIndex(
          args, *along, [&](int64_t i, int64_t k, ArrayRef<int64_t> pos) {
            int64_t off = 0;
            for (int64_t dd = 0; dd < index.rank(); ++dd)
              off += (dd == dim ? k : pos[dd]) * xs[dd];
            dispatchStorage(in.dtype(), [&](auto tag) {
              using T = decltype(tag);
              out.template data<T>()[i] = in.template data<T>()[off];
              return 0;
            });
          })))
    return failure();
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

namespace {
/// The bags' reduction: the output (in the weight's dtype), each bag's
/// count of indices that are not the padding index, and in max mode the
/// row each output element came from (0 for an empty bag).
struct BagReduction {
  Tensor out;
  SmallVector<int64_t> counts;
  std::vector<int64_t> argmax;
};
} // namespace

/// The bags' starts from 1-D `offsets` over `total` indices, and the end
/// of the last (`total` unless include_last_offset makes the last offset
/// the end), after torch's checks.
static LogicalResult bagStarts(const KernelArgs &args, const Tensor &offsets,
                               int64_t total, bool includeLast,
                               SmallVectorImpl<int64_t> &starts) {
  for (int64_t i = 0; i < offsets.numel(); ++i)
    starts.push_back(offsets.getInt(i));
  if (!includeLast)
    starts.push_back(total);
  if (starts.empty() || starts[0] != 0)
    return args.emitError() << "offsets[0] has to be 0";
  for (size_t i = 1; i < starts.size(); ++i)
    if (starts[i] < starts[i - 1] || starts[i] > total)
      return args.emitError() << "offsets must be non-decreasing and within "
                                 "the input";
  return success();
}

/// Bag b holds indices [starts[b], starts[b + 1]); rows equal to
/// `paddingIdx` are left out; empty bags are zeros. Max keeps the first
/// row of the largest value (torch's `v > max`).
static FailureOr<BagReduction>
reduceBags(const KernelArgs &args, const Tensor &idx, const Tensor &w,
           ArrayRef<int64_t> starts, StringRef mode,
           const std::optional<Tensor> &perSample,
           std::optional<int64_t> paddingIdx) {
  int64_t bags = std::max<int64_t>(starts.size(), 1) - 1, dim = w.dim(1);
  BagReduction r;
  Tensor out(DType::F64, {bags, dim});
  r.argmax.assign(mode == "max" ? bags * dim : 0, 0);
  double *o = out.data<double>();
  for (int64_t b = 0; b < bags; ++b) {
    int64_t count = 0;
    for (int64_t i = starts[b]; i < starts[b + 1]; ++i) {
      int64_t row = idx.getInt(i);
      if (row < 0 || row >= w.dim(0))
        return args.emitError() << "index " << row << " is out of range for "
                                << w.dim(0) << " embeddings";
      if (paddingIdx && row == *paddingIdx)
        continue;
      double scale = perSample ? perSample->getDouble(i) : 1.0;
      for (int64_t k = 0; k < dim; ++k) {
        double v = w.getDouble(row * dim + k) * scale;
        double &acc = o[b * dim + k];
        if (mode != "max") {
          acc += v;
        } else if (!count || v > acc) {
          acc = v;
          r.argmax[b * dim + k] = row;
        }
      }
      ++count;
    }
    if (mode == "mean" && count)
      for (int64_t k = 0; k < dim; ++k)
        o[b * dim + k] /= count;
    r.counts.push_back(count);
  }
  r.out = out.to(w.dtype());
  return r;
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
  if (failed(optionalArg(args, "per_sample_weights", &KernelArgs::tensor,
                         perSample)))
    return failure();
  if (perSample && *mode != "sum")
    return args.emitError() << "embedding_bag: per_sample_weights was not "
                               "None; per_sample_weights is only supported "
                               "for mode='sum'";
  if (perSample && perSample->shape() != idx->shape())
    return args.emitError() << "per_sample_weights must have the shape of "
                               "input";
  std::optional<int64_t> paddingIdx;
  if (failed(optionalArg(args, "padding_idx", &KernelArgs::getInt, paddingIdx)))
    return failure();
  if (paddingIdx && *paddingIdx < 0)
    *paddingIdx += w->dim(0);
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
    if (failed(bagStarts(args, *offsets, total, *includeLast, starts)))
      return failure();
  } else {
    return args.emitError() << "input has to be 1-D or 2-D";
  }
  FailureOr<BagReduction> bags =
      reduceBags(args, *idx, *w, starts, *mode, perSample, paddingIdx);
  if (failed(bags))
    return failure();
  return RtValue(bags->out);
}

/// aten::embedding_bag (its `padding_idx` and default overloads) and
/// aten::_embedding_bag: F.embedding_bag's output with the three tensors
/// torch 1.13's CPU kernel returns beside it, in the promoted dtype of the
/// indices and offsets (int64 unless both are int32):
/// - offset2bag: each index's bag number, from offsets counted at or
///   before it; empty on torch's fast path (sum of float32 or float16 rows
///   without a padding index), which does not build it;
/// - bag_size: the indices per bag, padding left out; zeros in sum mode,
///   one per offset for embedding_bag (torch's forward-only kernel, which
///   it runs for a weight that needs no gradient; a Parameter's gets
///   _embedding_bag's sizes) and one per bag for _embedding_bag;
/// - max_indices: max mode's row per bag and column; bag_size again in
///   mean mode; zeros of bag_size's size in sum mode.
/// `Raw`: _embedding_bag's padding_idx, where a negative one means none;
/// embedding_bag's wraps a negative one (None means none).
template <bool Raw>
static FailureOr<RtValue> atenEmbeddingBag(const KernelArgs &args) {
  FailureOr<Tensor> w = args.tensor("weight"), idx = args.tensor("indices"),
                    offsets = args.tensor("offsets");
  FailureOr<int64_t> mode = args.getInt("mode");
  FailureOr<bool> includeLast = args.getBool("include_last_offset");
  if (failed(w) || failed(idx) || failed(offsets) || failed(mode) ||
      failed(includeLast))
    return failure();
  if (*mode < 0 || *mode > 2)
    return args.emitError() << "mode has to be one of sum (0), mean (1) or "
                               "max (2)";
  if (idx->rank() != 1 || offsets->rank() != 1 || w->rank() != 2)
    return args.emitError() << "expects 1-D indices and offsets and a 2-D "
                               "weight";
  std::optional<Tensor> perSample;
  std::optional<int64_t> padding, paddingIdx;
  if (failed(optionalArg(args, "per_sample_weights", &KernelArgs::tensor,
                         perSample)) ||
      failed(optionalArg(args, "padding_idx", &KernelArgs::getInt, padding)))
    return failure();
  if (padding) {
    int64_t p = *padding;
    if (!Raw && (p < -w->dim(0) || p >= w->dim(0)))
      return args.emitError() << "padding_idx " << p << " is out of range "
                              << "for " << w->dim(0) << " embeddings";
    if (!Raw || p >= 0)
      paddingIdx = p < 0 ? p + w->dim(0) : p;
  }
  int64_t n = idx->numel(), count = offsets->numel();
  SmallVector<int64_t> starts;
  if (failed(bagStarts(args, *offsets, n, *includeLast, starts)))
    return failure();
  static const char *const kModes[] = {"sum", "mean", "max"};
  FailureOr<BagReduction> bags =
      reduceBags(args, *idx, *w, starts, kModes[*mode], perSample, paddingIdx);
  if (failed(bags))
    return failure();
  DType index = (idx->dtype() == DType::I32 && offsets->dtype() == DType::I32)
                    ? DType::I32
                    : DType::I64;
  int64_t numBags = bags->out.dim(0), dim = w->dim(1);
  bool fastPath = *mode == 0 && !paddingIdx &&
                  (w->dtype() == DType::F32 || w->dtype() == DType::F16);
  // offset2bag[k] = #{offsets[i] <= k} - 1, over every offset.
  Tensor offset2bag(index, {fastPath ? 0 : n});
  if (!fastPath)
    for (int64_t k = 0; k < n; ++k) {
      int64_t bag = -1;
      for (int64_t i = 0; i < count; ++i)
        bag += offsets->getInt(i) <= k;
      offset2bag.setDouble(k, static_cast<double>(bag));
    }
  Tensor bagSize(index, {*mode == 0 && !Raw ? count : numBags});
  if (*mode != 0)
    for (int64_t b = 0; b < numBags; ++b)
      bagSize.setDouble(b, static_cast<double>(bags->counts[b]));
  Tensor maxIndices = *mode == 0   ? Tensor(index, bagSize.shape())
                      : *mode == 1 ? bagSize
                                   : Tensor(index, {numBags, dim});
  if (*mode == 2)
    for (int64_t i = 0; i < numBags * dim; ++i)
      maxIndices.setDouble(i, static_cast<double>(bags->argmax[i]));
  return RtValue::ofList({RtValue(bags->out), RtValue(offset2bag),
                          RtValue(bagSize), RtValue(maxIndices)},
                         true);
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

/// select_scatter: the input with its `index`-th slice along `dim` replaced
/// by src.
FailureOr<RtValue> selectScatter(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), src = args.tensor("src");
  FailureOr<int64_t> dim = args.getInt("dim"), index = args.getInt("index");
  if (failed(in) || failed(src) || failed(dim) || failed(index))
    return failure();
  FailureOr<std::pair<int64_t, int64_t>> at =
      selectPosition(args, *in, *dim, *index);
  if (failed(at))
    return failure();
  int64_t d = at->first, i = at->second, size = in->dim(d);
  SmallVector<int64_t> slice(in->shape());
  slice.erase(slice.begin() + d);
  if (src->shape() != ArrayRef<int64_t>(slice))
    return args.emitError() << "expected src to have a size equal to the "
                               "slice of self";
  // Row-major: `outer` blocks of `size * inner` elements; the slice is
  // the i-th run of `inner` in each block.
  int64_t outer, inner;
  std::tie(outer, inner) = outerInner(in->shape(), d);
  Tensor out(in->dtype(), in->shape());
  Tensor values = src->to(in->dtype());
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *o = out.template data<T>();
    const T *v = values.template data<T>();
    std::copy_n(in->template data<T>(), in->numel(), o);
    for (int64_t b = 0; b < outer; ++b)
      std::copy_n(v + b * inner, inner, o + (b * size + i) * inner);
    return 0;
  });
  return RtValue(out);
}

/// aten::index: indices[k] (an int or bool tensor, or None for the whole
/// dim) indexes dim k, as x[i0, :, i2] does.
FailureOr<RtValue> atenIndex(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  FailureOr<std::vector<RtValue>> items = atenIndexItems(args);
  if (failed(items))
    return failure();
  if (llvm::none_of(*items, [](const RtValue &v) { return v.isTensor(); }))
    return RtValue(*in);
  FailureOr<IndexPlan> plan = advancedPlan(args, *in, *items);
  if (failed(plan))
    return failure();
  return RtValue(gatherPlan(*in, *plan));
}

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

/// scatter / scatter_add: a copy of `input` with `src` (or `value`) written
/// (or added) at `index` along `dim`.
/// How scatter combines a value with the element it lands on.
enum class ScatterMode { Assign, Sum, Prod, Mean, Max, Min };

/// `v` landing on an element holding `cur` (`first`: the first to land
/// there replaces it) by `mode`: integers wrap (an int64 beyond 2^53 does
/// not pass through double), a NaN wins a float max or min.
template <typename V>
static V scattered(ScatterMode mode, bool first, V cur, V v) {
  if (first || mode == ScatterMode::Assign)
    return v;
  constexpr bool integral = std::is_integral_v<V>;
  auto wrapped = [](uint64_t u) { return static_cast<V>(u); };
  switch (mode) {
  case ScatterMode::Assign:
  case ScatterMode::Sum:
  case ScatterMode::Mean:
    if constexpr (integral)
      return wrapped(static_cast<uint64_t>(cur) + static_cast<uint64_t>(v));
    else
      return cur + v;
  case ScatterMode::Prod:
    if constexpr (integral)
      return wrapped(static_cast<uint64_t>(cur) * static_cast<uint64_t>(v));
    else
      return cur * v;
  case ScatterMode::Max:
  case ScatterMode::Min:
    if constexpr (!integral) {
      if (std::isnan(v))
        return v;
      if (std::isnan(cur))
        return cur;
    }
    return mode == ScatterMode::Max ? std::max(cur, v) : std::min(cur, v);
  }
  return v;
}

/// A scatter mean's last step: each element that `counts` values landed on
/// (its own included) divided by their count, floor division for integers
/// (of the sum wrapped into their dtype).
static void divideByCounts(Tensor &out, const std::vector<int64_t> &counts) {
  bool floating = isFloatingPoint(out.dtype());
  // (Integer sums wrap in their dtype before the division, as torch's.)
  if (!floating)
    out.roundToDType();
  for (int64_t i = 0; i < out.numel(); ++i)
    if (counts[i] > 1) {
      if (!floating) { // (floor division, in int64)
        int64_t &x = out.data<int64_t>()[i], c = counts[i];
        x = x / c - ((x % c != 0) && (x < 0));
        continue;
      }
      out.setDouble(i, out.getDouble(i) / static_cast<double>(counts[i]));
    }
}

static FailureOr<RtValue> scatterImpl(const KernelArgs &args, ScatterMode mode,
                                      bool includeSelf = true) {
  FailureOr<AlongDim> along = alongDim(args, "'index' must be an int64 tensor");
  if (failed(along))
    return failure();
  const Tensor &in = along->in, &index = along->index;
  int64_t dim = along->dim, rank = std::max<int64_t>(in.rank(), 1);
  Tensor src;
  std::optional<double> value;
  const RtValue &s = args.get(args.has("src") ? "src" : "value");
  if (s.isTensor())
    src = s.tensor().to(in.dtype());
  else if (std::optional<double> v = s.number())
    value = v;
  else
    return args.emitError() << "'src' must be a tensor or a number";
  if (src.defined()) {
    if (std::max<int64_t>(src.rank(), 1) != rank)
      return args.emitError() << "'index' and 'src' must have as many dims as "
                                 "'input'";
    for (int64_t dd = 0; dd < index.rank(); ++dd)
      if (index.dim(dd) > src.dim(dd))
        return args.emitError() << "'index' is larger than 'src' in dim "
                                << dd;
  }
  for (int64_t dd = 0; dd < index.rank(); ++dd)
    if (dd != dim && in.rank() && index.dim(dd) > in.dim(dd))
      return args.emitError() << "'index' is larger than 'input' in dim "
                              << dd;
  Tensor out = copyOf(in);
  std::vector<int64_t> counts(out.numel(), includeSelf ? 1 : 0);
  SmallVector<int64_t> os = out.strides(), ss = src.defined() ? src.strides()
                                                             : SmallVector<int64_t>();
  LogicalResult walked = forEachIndex(
      args, *along, [&](int64_t, int64_t k, ArrayRef<int64_t> pos) {
        int64_t off = 0, soff = 0;
        for (int64_t dd = 0; dd < index.rank(); ++dd) {
          off += (dd == dim ? k : pos[dd]) * os[dd];
          if (src.defined())
            soff += pos[dd] * ss[dd];
        }
        bool first = counts[off] == 0;
        ++counts[off];
        if (storageOf(out.dtype()) == Storage::Int) {
          // Integers exactly, wrapping as torch's (an int64 beyond 2^53 does
          // not pass through double).
          int64_t v =
              value ? static_cast<int64_t>(*value) : src.data<int64_t>()[soff];
          int64_t &cur = out.data<int64_t>()[off];
          cur = scattered(mode, first, cur, v);
          return;
        }
        double v = value ? *value : src.getDouble(soff);
        out.setDouble(off, scattered(mode, first, out.getDouble(off), v));
      });
  if (failed(walked))
    return failure();
  if (mode == ScatterMode::Mean)
    divideByCounts(out, counts);
  out.roundToDType();
  return RtValue(out);
}

/// The mode `names` gives the `reduce` argument `r` (else `expected`, the
/// names, is reported).
static FailureOr<ScatterMode>
scatterModeOf(const KernelArgs &args, StringRef r,
              ArrayRef<std::pair<StringRef, ScatterMode>> names,
              StringRef expected) {
  for (auto [name, mode] : names)
    if (r == name)
      return mode;
  return args.emitError() << "reduce argument must be either " << expected
                          << ", got " << r;
}
FailureOr<RtValue> scatter(const KernelArgs &args) {
  // The legacy reduce= of scatter: "add" or "multiply".
  ScatterMode mode = ScatterMode::Assign;
  if (args.has("reduce") && !args.isNone("reduce")) {
    FailureOr<std::string> r = args.getStr("reduce");
    if (failed(r))
      return failure();
    FailureOr<ScatterMode> m = scatterModeOf(
        args, *r, {{"add", ScatterMode::Sum}, {"multiply", ScatterMode::Prod}},
        "add or multiply");
    if (failed(m))
      return failure();
    mode = *m;
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
  FailureOr<ScatterMode> mode = scatterModeOf(args, *r,
                                              {{"sum", ScatterMode::Sum},
                                               {"prod", ScatterMode::Prod},
                                               {"mean", ScatterMode::Mean},
                                               {"amax", ScatterMode::Max},
                                               {"amin", ScatterMode::Min}},
                                              "sum, prod, mean, amax or amin");
  if (failed(mode))
    return failure();
  if (args.tensor("src").value().dtype() != args.tensor("input").value().dtype())
    return args.emitError() << "scatter_reduce expects 'src' of the input's "
                               "dtype";
  return scatterImpl(args, *mode, *includeSelf);
}

/// index_reduce: each slice `i` of `source` along `dim` reduced into the
/// input's slice index[i] (prod, mean, amax, amin), in index order; the
/// input's own elements count unless include_self=False (as scatter_reduce's).
FailureOr<RtValue> indexReduce(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), index = args.tensor("index"),
                    source = args.tensor("source");
  FailureOr<int64_t> d = args.getInt("dim");
  FailureOr<std::string> r = args.getStr("reduce");
  FailureOr<bool> includeSelf = args.getBool("include_self");
  if (failed(in) || failed(index) || failed(source) || failed(d) || failed(r) ||
      failed(includeSelf))
    return failure();
  FailureOr<ScatterMode> mode = scatterModeOf(args, *r,
                                              {{"prod", ScatterMode::Prod},
                                               {"mean", ScatterMode::Mean},
                                               {"amax", ScatterMode::Max},
                                               {"amin", ScatterMode::Min}},
                                              "prod, mean, amax or amin");
  if (failed(mode))
    return failure();
  if (index->rank() > 1 || (index->dtype() != DType::I64 && index->dtype() != DType::I32))
    return args.emitError() << "index_reduce_(): expects a 0-D or 1-D int32/int64 index";
  if (source->dtype() != in->dtype())
    return args.emitError() << "index_reduce_(): expects a source of the input's dtype";
  if (in->dtype() == DType::Bool && (in->rank() <= 1 || *mode == ScatterMode::Mean))
    return args.emitError() << "index_reduce_(): no kernel for bool "
                            << (in->rank() <= 1 ? "over one dim" : "means");
  int64_t rank = std::max<int64_t>(in->rank(), 1);
  FailureOr<int64_t> dim = normalizeDim(args, *d, rank);
  if (failed(dim))
    return failure();
  Tensor x = in->rank() ? copyOf(*in) : copyOf(*in).reshaped({1});
  Tensor src = source->rank() ? *source : source->reshaped({1});
  if (src.rank() != rank || src.dim(*dim) != index->numel())
    return args.emitError() << "index_reduce_(): expects a source with one slice per index";
  int64_t outer = 1, inner = 1, size = x.dim(*dim), k = index->numel();
  for (int64_t i = 0; i < rank; ++i) {
    if (i == *dim)
      continue;
    if (src.dim(i) != x.dim(i))
      return args.emitError() << "index_reduce_(): source and self differ in dim " << i;
    (i < *dim ? outer : inner) *= x.dim(i);
  }
  std::vector<int64_t> counts(x.numel(), *includeSelf ? 1 : 0);
  for (int64_t j = 0; j < k; ++j) {
    int64_t slot = index->getInt(j);
    if (slot < 0 || slot >= size)
      return args.emitError() << "index out of range in self";
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t off = (o * size + slot) * inner + i, soff = (o * k + j) * inner + i;
        bool first = counts[off]++ == 0;
        if (storageOf(x.dtype()) == Storage::Int)
          x.data<int64_t>()[off] =
              scattered(*mode, first, x.data<int64_t>()[off], src.data<int64_t>()[soff]);
        else
          x.setDouble(off, scattered(*mode, first, x.getDouble(off), src.getDouble(soff)));
      }
  }
  if (*mode == ScatterMode::Mean)
    divideByCounts(x, counts);
  x.roundToDType();
  return RtValue(x.reshaped(in->shape()));
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
  Tensor out = copyOf(x);
  int64_t size = x.dim(*dim), outer = 1, inner = 1;
  for (int64_t i = 0; i < *dim; ++i)
    outer *= x.dim(i);
  for (int64_t i = *dim + 1; i < x.rank(); ++i)
    inner *= x.dim(i);
  int64_t n = index->numel();
  // Integers exactly (int64 beyond 2^53 does not pass through double; sums
  // wrap, alpha converted to the integer, as torch's).
  bool exact = storageOf(out.dtype()) == Storage::Int && kind != 2;
  for (int64_t j = 0; j < n; ++j) {
    int64_t k = index->getInt(j);
    // (index_add and index_copy refuse negative indices, index_fill counts
    // them from the end.)
    if (k < (kind == 2 ? -size : 0) || k >= size)
      return args.emitError() << "index " << k << " is out of bounds for "
                              << "dimension " << *dim << " with size " << size;
    if (k < 0)
      k += size;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t at = (o * size + k) * inner + i;
        int64_t from = (o * n + j) * inner + i;
        if (kind == 2) {
          out.setDouble(at, fill);
        } else if (exact) {
          int64_t v = src.data<int64_t>()[from];
          int64_t &o64 = out.data<int64_t>()[at];
          o64 = kind == 0 ? static_cast<int64_t>(
                                static_cast<uint64_t>(o64) +
                                static_cast<uint64_t>(static_cast<int64_t>(alpha)) *
                                    static_cast<uint64_t>(v))
                          : v;
        } else {
          double v = src.getDouble(from);
          out.setDouble(at, kind == 0 ? out.getDouble(at) + alpha * v : v);
        }
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

namespace mlir::traced::kernels {
/// torch.masked_scatter: the input broadcast with the mask, whose selected
/// elements (in order) take the source's elements in order; fewer source
/// elements than selected ones is torch's error.
static FailureOr<RtValue> maskedScatter(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), mask = args.tensor("mask"),
                    source = args.tensor("source");
  if (failed(in) || failed(mask) || failed(source))
    return failure();
  if (source->dtype() != in->dtype())
    return args.emitError() << "masked_scatter: expected self and source to "
                               "have same dtypes";
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(in->shape(), mask->shape());
  if (failed(shape))
    return args.emitError() << "the input and the mask cannot be broadcast together";
  Tensor out = broadcastTo(*in, *shape).to(in->dtype());
  Tensor m = broadcastTo(*mask, *shape);
  // (A copy: broadcastTo may share the input's storage.)
  Tensor result(out.dtype(), out.shape());
  int64_t next = 0;
  bool ok = true;
  dispatchStorage(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *x = out.template data<T>(), *src = source->template data<T>();
    T *o = result.template data<T>();
    for (int64_t i = 0; i < result.numel(); ++i) {
      if (m.getInt(i) == 0) {
        o[i] = x[i];
        continue;
      }
      if (next >= source->numel()) {
        ok = false;
        return;
      }
      o[i] = src[next++];
    }
  });
  if (!ok)
    return args.emitError() << "Number of elements of source < number of ones "
                               "in mask";
  return RtValue(result);
}
/// torch.nonzero and argwhere: the coordinates of the nonzero elements
/// (NaN is nonzero) in row-major order, [count, rank] int64; with as_tuple
/// one [count] tensor per dim, a 0-d input read as 1-D.
FailureOr<RtValue> nonzero(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  bool asTuple = false;
  if (args.has("as_tuple")) {
    FailureOr<bool> b = args.getBool("as_tuple");
    if (failed(b))
      return failure();
    asTuple = *b;
  }
  SmallVector<int64_t> shape(in->shape());
  if (asTuple && shape.empty())
    shape.push_back(1);
  SmallVector<int64_t> flat;
  for (int64_t i = 0; i < in->numel(); ++i)
    if (in->getDouble(i) != 0) // (NaN too)
      flat.push_back(i);
  int64_t count = flat.size(), rank = shape.size();
  Tensor coords(DType::I64, {count, rank});
  int64_t *out = coords.data<int64_t>();
  for (int64_t r = 0; r < count; ++r)
    for (int64_t d = rank - 1, rest = flat[r]; d >= 0; --d) {
      out[r * rank + d] = rest % shape[d];
      rest /= shape[d];
    }
  if (!asTuple)
    return RtValue(coords);
  std::vector<RtValue> parts;
  for (int64_t d = 0; d < rank; ++d) {
    Tensor column(DType::I64, {count});
    for (int64_t r = 0; r < count; ++r)
      column.data<int64_t>()[r] = out[r * rank + d];
    parts.push_back(RtValue(column));
  }
  return RtValue::ofList(std::move(parts), true);
}

/// torch.masked_select: the elements of the input broadcast with the mask
/// where the mask is set, in row-major order.
FailureOr<RtValue> maskedSelect(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), mask = args.tensor("mask");
  if (failed(in) || failed(mask))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(in->shape(), mask->shape());
  if (failed(shape))
    return args.emitError() << "the input and the mask cannot be broadcast together";
  Tensor x = broadcastTo(*in, *shape), m = broadcastTo(*mask, *shape);
  SmallVector<int64_t> picked;
  for (int64_t i = 0; i < m.numel(); ++i) {
    int64_t v = m.getInt(i);
    if (v != 0 && v != 1)
      return args.emitError() << "Mask tensor can take 0 and 1 values only";
    if (v)
      picked.push_back(i);
  }
  Tensor result(x.dtype(), {int64_t(picked.size())});
  dispatchStorage(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = x.template data<T>();
    T *out = result.template data<T>();
    for (auto [i, at] : llvm::enumerate(picked))
      out[i] = src[at];
  });
  return RtValue(result);
}

/// torch.unique_consecutive: the first element (slice along `dim`) of each
/// run of equal ones (NaN equals nothing), each element's (slice's) run
/// and each run's length.
FailureOr<RtValue> uniqueConsecutive(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> inverse = args.getBool("return_inverse"),
                  counts = args.getBool("return_counts");
  if (failed(in) || failed(inverse) || failed(counts))
    return failure();
  // The input as [outer, n, inner], runs along the middle.
  SmallVector<int64_t> shape(in->shape());
  int64_t outer = 1, n = in->numel(), inner = 1, dim = -1;
  if (!args.isNone("dim")) {
    FailureOr<int64_t> given = args.getInt("dim");
    if (failed(given))
      return failure();
    if (in->rank() == 0)
      return args.emitError() << "Dimension specified as " << *given
                              << " but tensor has no dimensions";
    FailureOr<int64_t> d = normalizeDim(args, *given, in->rank());
    if (failed(d))
      return failure();
    dim = *d;
    n = shape[dim];
    for (int64_t i = 0; i < dim; ++i)
      outer *= shape[i];
    for (int64_t i = dim + 1; i < in->rank(); ++i)
      inner *= shape[i];
  }
  SmallVector<int64_t> starts, run(n);
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *x = in->template data<T>();
    auto same = [&](int64_t a, int64_t b) {
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < inner; ++k)
          if (!(x[(o * n + a) * inner + k] == x[(o * n + b) * inner + k]))
            return false;
      return true;
    };
    for (int64_t i = 0; i < n; ++i) {
      if (i == 0 || !same(i, i - 1))
        starts.push_back(i);
      run[i] = int64_t(starts.size()) - 1;
    }
  });
  int64_t runs = starts.size();
  SmallVector<int64_t> valueShape = {runs};
  if (dim >= 0) {
    valueShape = shape;
    valueShape[dim] = runs;
  }
  Tensor values(in->dtype(), valueShape);
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *x = in->template data<T>();
    T *out = values.template data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t u = 0; u < runs; ++u)
        for (int64_t k = 0; k < inner; ++k)
          out[(o * runs + u) * inner + k] = x[(o * n + starts[u]) * inner + k];
  });
  std::vector<RtValue> parts = {RtValue(values)};
  if (*inverse) {
    Tensor t(DType::I64, dim >= 0 ? SmallVector<int64_t>{n} : shape);
    std::copy(run.begin(), run.end(), t.data<int64_t>());
    parts.push_back(RtValue(t));
  }
  if (*counts) {
    Tensor t(DType::I64, {runs});
    for (int64_t u = 0; u < runs; ++u)
      t.data<int64_t>()[u] = (u + 1 < runs ? starts[u + 1] : n) - starts[u];
    parts.push_back(RtValue(t));
  }
  if (parts.size() == 1)
    return parts[0];
  return RtValue::ofList(std::move(parts), true);
}

/// torch.bincount: max(input) + 1 bins (at least minlength) counting each
/// value of a 1-D non-negative integer input, or summing its weights (in
/// float32 for float32 weights, else float64).
FailureOr<RtValue> bincount(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<int64_t> minlength = args.getInt("minlength");
  if (failed(in) || failed(minlength))
    return failure();
  if (in->rank() != 1 || storageOf(in->dtype()) != Storage::Int)
    return args.emitError()
           << "bincount only supports 1-d non-negative integral inputs.";
  if (*minlength < 0)
    return args.emitError() << "minlength should be >= 0";
  std::optional<Tensor> weights;
  if (!args.isNone("weights")) {
    FailureOr<Tensor> w = args.tensor("weights");
    if (failed(w))
      return failure();
    if (w->rank() != 1 || w->numel() != in->numel())
      return args.emitError() << "weights should be 1-d and have the same "
                                 "length as input";
    weights = *w;
  }
  int64_t bins = *minlength;
  for (int64_t i = 0; i < in->numel(); ++i) {
    int64_t v = in->getInt(i);
    if (v < 0)
      return args.emitError()
             << "bincount only supports 1-d non-negative integral inputs.";
    bins = std::max(bins, v + 1);
  }
  DType dtype = !weights                        ? DType::I64
                : weights->dtype() == DType::F32 ? DType::F32
                                                 : DType::F64;
  // (A large value asks for that many bins: refused beyond the machine's
  // memory, as torch's allocator refuses it.)
  if (!fitsInMemory(bins))
    return args.emitError() << "bincount would need " << bins
                            << " bins (max(input) + 1), more than this "
                               "machine's memory holds";
  Tensor out(dtype, {bins});
  for (int64_t i = 0; i < in->numel(); ++i) {
    int64_t v = in->getInt(i);
    if (!weights)
      out.data<int64_t>()[v] += 1;
    else if (dtype == DType::F32)
      out.data<float>()[v] += static_cast<float>(weights->getDouble(i));
    else
      out.data<double>()[v] += weights->getDouble(i);
  }
  return RtValue(out);
}

} // namespace mlir::traced::kernels

/// `index`'s entries as offsets into `n` flattened elements, negative ones
/// counted from the end; an error (torch's) for one out of range (take and
/// put; the decompositions' wrappedFlatIndex).
static FailureOr<std::vector<int64_t>> wrappedFlatIndex(const KernelArgs &args,
                                                        const Tensor &index, int64_t n) {
  std::vector<int64_t> offsets(index.numel());
  for (int64_t i = 0; i < index.numel(); ++i) {
    int64_t k = index.getInt(i);
    if (k < -n || k >= n)
      return args.emitError() << "out of range: tried to access index " << k
                              << " on a tensor of " << n << " elements.";
    offsets[i] = k < 0 ? k + n : k;
  }
  return offsets;
}

/// torch.take: the flattened input's elements at the index (negative
/// ones from the end), in the index's shape.
static FailureOr<RtValue> take(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), index = args.tensor("index");
  if (failed(in) || failed(index))
    return failure();
  if (index->dtype() != DType::I64)
    return args.emitError() << "take(): Expected a long tensor for index";
  FailureOr<std::vector<int64_t>> offsets = wrappedFlatIndex(args, *index, in->numel());
  if (failed(offsets))
    return failure();
  Tensor out(in->dtype(), index->shape());
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = in->template data<T>();
    T *o = out.template data<T>();
    for (size_t i = 0; i < offsets->size(); ++i)
      o[i] = p[(*offsets)[i]];
    return 0;
  });
  return RtValue(out);
}

/// torch.put: the input with its flattened elements at the index (negative
/// ones from the end) set to the source's in order, or increased by them.
static FailureOr<RtValue> put(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), index = args.tensor("index"),
                    source = args.tensor("source");
  FailureOr<bool> accumulate = args.getBool("accumulate");
  if (failed(in) || failed(index) || failed(source) || failed(accumulate))
    return failure();
  if (index->dtype() != DType::I64 || source->dtype() != in->dtype() ||
      index->numel() != source->numel())
    return args.emitError() << "put_(): expects an int64 index and a source "
                               "of the input's dtype, as many elements as the "
                               "index";
  FailureOr<std::vector<int64_t>> offsets = wrappedFlatIndex(args, *index, in->numel());
  if (failed(offsets))
    return failure();
  Tensor out = copyOf(*in);
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *s = source->template data<T>();
    T *o = out.template data<T>();
    for (size_t i = 0; i < offsets->size(); ++i) {
      T &dst = o[(*offsets)[i]];
      if (!*accumulate)
        dst = s[i];
      else if (in->dtype() == DType::Bool)
        dst = dst || s[i];
      else
        dst = static_cast<T>(dst + s[i]);
    }
    return 0;
  });
  out.roundToDType();
  return RtValue(out);
}

/// Writes `src` (converted to `out`'s dtype) into `out` at the storage
/// offsets `offset + sum(index[k] * strides[k])`, src's elements in
/// row-major order over `shape` (diagonal_scatter, as_strided_scatter).
static void scatterStrided(Tensor &out, const Tensor &src,
                           ArrayRef<int64_t> shape, int64_t offset,
                           ArrayRef<int64_t> strides) {
  Tensor s = src.to(out.dtype());
  SmallVector<int64_t> pos(shape.size(), 0);
  dispatchStorage(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = s.template data<T>();
    T *o = out.template data<T>();
    for (int64_t i = 0; i < s.numel(); ++i) {
      int64_t at = offset;
      for (size_t k = 0; k < shape.size(); ++k)
        at += pos[k] * strides[k];
      o[at] = p[i];
      nextPosition(pos, shape);
    }
    return 0;
  });
}

/// diagonal_scatter: the input with its diagonal (offset, dim1, dim2)
/// replaced by src.
static FailureOr<RtValue> diagonalScatter(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), src = args.tensor("src");
  FailureOr<int64_t> off = args.getInt("offset"), a = args.getInt("dim1"),
                     b = args.getInt("dim2");
  if (failed(in) || failed(src) || failed(off) || failed(a) || failed(b))
    return failure();
  if (in->rank() < 2)
    return args.emitError() << "diagonal() expects a tensor of rank >= 2";
  FailureOr<int64_t> d1 = normalizeDim(args, *a, in->rank()),
                     d2 = normalizeDim(args, *b, in->rank());
  if (failed(d1) || failed(d2))
    return failure();
  if (*d1 == *d2)
    return args.emitError() << "diagonal dimensions cannot be identical "
                            << *a << ", " << *b;
  SmallVector<int64_t> strides = in->strides(), shape, viewStrides;
  for (int64_t i = 0; i < in->rank(); ++i)
    if (i != *d1 && i != *d2) {
      shape.push_back(in->dim(i));
      viewStrides.push_back(strides[i]);
    }
  int64_t rowsFrom = std::max<int64_t>(-*off, 0), colsFrom = std::max<int64_t>(*off, 0);
  int64_t len = std::max<int64_t>(
      std::min(in->dim(*d1) - rowsFrom, in->dim(*d2) - colsFrom), 0);
  shape.push_back(len);
  viewStrides.push_back(strides[*d1] + strides[*d2]);
  if (src->shape() != ArrayRef<int64_t>(shape))
    return args.emitError() << "expected src to have a size equal to the "
                               "slice of self";
  Tensor out = copyOf(*in);
  int64_t offset = len ? rowsFrom * strides[*d1] + colsFrom * strides[*d2] : 0;
  scatterStrided(out, *src, shape, offset, viewStrides);
  return RtValue(out);
}

/// as_strided_scatter: the input with its as_strided view replaced by src.
static FailureOr<RtValue> asStridedScatter(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), src = args.tensor("src");
  FailureOr<SmallVector<int64_t>> size = args.getInts("size"),
                                  stride = args.getInts("stride");
  if (failed(in) || failed(src) || failed(size) || failed(stride))
    return failure();
  int64_t offset = 0;
  if (!args.isNone("storage_offset")) {
    FailureOr<int64_t> o = args.getInt("storage_offset");
    if (failed(o))
      return failure();
    offset = *o;
  }
  if (size->size() != stride->size() ||
      src->shape() != ArrayRef<int64_t>(*size))
    return args.emitError() << "expected src of the view's size";
  int64_t last = offset;
  bool empty = false;
  for (auto [n, st] : llvm::zip(*size, *stride)) {
    if (n < 0 || st < 0)
      return args.emitError() << "sizes and strides must be non-negative";
    empty |= n == 0;
    last += (n - 1) * st;
  }
  if (!empty && (offset < 0 || last >= in->numel()))
    return args.emitError() << "the view reaches past the input's "
                            << in->numel() << " elements";
  Tensor out = copyOf(*in);
  if (!empty)
    scatterStrided(out, *src, *size, offset, *stride);
  return RtValue(out);
}

void mlir::traced::kernels::populateIndexKernels(KernelTable &table) {
  table["torch.put"] = put;
  table["torch.diagonal_scatter"] = diagonalScatter;
  table["torch.as_strided_scatter"] = asStridedScatter;
  table["torch.take"] = take;
  table["torch.masked_scatter"] = maskedScatter;
  table["operator.setitem"] = setitem;
  table["torch.index_put"] = indexPut;
  table["torch.ops.aten._index_put_impl.default"] = indexPut;
  table["torch.ops.aten.index.Tensor"] = atenIndex;
  table["torch.take_along_dim"] = takeAlongDim;
  table["torch.index_select"] = indexSelect;
  table["torch.gather"] = gather;
  table["torch.nonzero"] = nonzero;
  table["torch.argwhere"] = nonzero;
  table["torch.masked_select"] = maskedSelect;
  table["torch.functional.unique_consecutive"] = uniqueConsecutive;
  table["torch.bincount"] = bincount;
  table["torch.nn.functional.embedding"] = embedding;
  table["torch.nn.functional.embedding_bag"] = embeddingBag;
  table["torch.ops.aten.embedding_bag.padding_idx"] = atenEmbeddingBag<false>;
  table["torch.ops.aten._embedding_bag.default"] = atenEmbeddingBag<true>;
  table["torch.nn.functional.one_hot"] = oneHot;
  table["torch.scatter"] = scatter;
  table["torch.scatter_add"] = scatterAdd;
  table["torch.scatter_reduce"] = scatterReduce;
  table["torch.index_reduce"] = indexReduce;
  table["torch.slice_scatter"] = sliceScatter;
  table["torch.select_scatter"] = selectScatter;
  table["torch.index_add"] = indexAdd;
  table["torch.index_copy"] = indexCopy;
  table["torch.index_fill"] = indexFill;
}
