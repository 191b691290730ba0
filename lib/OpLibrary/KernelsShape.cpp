//===- KernelsShape.cpp - reshapes, permutations, indexing, concatenation -===//

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
FailureOr<RtValue> indexTensor(const KernelArgs &args, const Tensor &x,
                               const RtValue &index) {
  std::vector<RtValue> items;
  if (const RtValue::List *l = index.list()) {
    if (!l->isTuple)
      return args.emitError() << "indexing with a list (advanced indexing) "
                                 "is not supported";
    items = l->items;
  } else {
    items.push_back(index);
  }
  auto isEllipsis = [](const RtValue &v) {
    auto *a = std::get_if<Attribute>(&v.v);
    return a && isa<EllipsisAttr>(*a);
  };
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
      auto slice = cast<SliceAttr>(*a);
      int64_t size = x.dim(dim);
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
      int64_t s = step.value_or(1);
      shape.push_back(e <= b ? 0 : (e - b + s - 1) / s);
      strides.push_back(inStrides[dim] * s);
      offset += b * inStrides[dim++];
    } else {
      return args.emitError() << "unsupported index " << item.describe();
    }
  }
  for (; dim < x.rank(); ++dim) {
    shape.push_back(x.dim(dim));
    strides.push_back(inStrides[dim]);
  }
  return RtValue(gatherStrided(x, shape, offset, strides));
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
    if (!i)
      return args.emitError()
             << "only int indices into a " << (l->isTuple ? "tuple" : "list")
             << " are supported";
    int64_t n = *i < 0 ? *i + static_cast<int64_t>(l->items.size()) : *i;
    if (n < 0 || n >= static_cast<int64_t>(l->items.size()))
      return args.emitError()
             << "index " << *i << " is out of range for a "
             << (l->isTuple ? "tuple" : "list") << " of " << l->items.size();
    return l->items[n];
  }
  return args.emitError() << "cannot index " << container.describe();
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
