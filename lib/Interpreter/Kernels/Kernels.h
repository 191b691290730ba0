//===- Kernels.h - the interpreter kernels of the op library ----*- C++ -*-===//
//
// One kernel per op-library entry, in one file per family (Backward.cpp,
// Elementwise.cpp, Factory.cpp, Index.cpp, Linalg.cpp, Loss.cpp, Norm.cpp,
// Pool.cpp, Reduce.cpp, Shape.cpp, Sort.cpp: the families of the lowerings
// and decompositions too), each of which names its entries' kernels by
// canonical name in its populate function; KernelTable.cpp gathers them
// and remembers each entry's family.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_INTERPRETER_KERNELS_KERNELS_H
#define TRACEDIR_LIB_INTERPRETER_KERNELS_KERNELS_H

#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Interpreter/Value.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::traced::kernels {

using KernelTable = llvm::StringMap<Kernel>;

/// `fn` of an ArgReader over a kernel's arguments (for the op library's
/// decodeConv and decodePool, which the rules and the lowering call too).
template <typename Fn> auto withArgReader(const KernelArgs &args, Fn fn) {
  auto ints = [&](StringRef name) -> std::optional<SmallVector<int64_t>> {
    const RtValue &v = args.get(name);
    if (!std::holds_alternative<int64_t>(v.v) && !v.list())
      return std::nullopt;
    FailureOr<SmallVector<int64_t>> l = args.getInts(name);
    return succeeded(l) ? std::optional(*l) : std::nullopt;
  };
  auto integer = [&](StringRef name) -> std::optional<int64_t> {
    FailureOr<int64_t> i = args.getInt(name);
    return succeeded(i) ? std::optional(*i) : std::nullopt;
  };
  auto boolean = [&](StringRef name) -> std::optional<bool> {
    FailureOr<bool> b = args.getBool(name);
    return succeeded(b) ? std::optional(*b) : std::nullopt;
  };
  auto str = [&](StringRef name) -> std::optional<std::string> {
    if (auto *s = std::get_if<std::string>(&args.get(name).v))
      return *s;
    return std::nullopt;
  };
  auto isNone = [&](StringRef name) { return args.isNone(name); };
  auto known = [](StringRef) { return true; };
  ArgReader reader{ints, integer, boolean, str, isNone, known};
  return fn(reader);
}

/// Reads the arguments of a `what` ("convolution", "pooling", ...) through
/// an ArgReader with the op library's `decode(reader, error)` (decodeConv,
/// decodePool, decodeUnpool); failure (reported) unless it decodes them.
template <typename Decode>
LogicalResult decodeArgs(const KernelArgs &args, StringRef what,
                         Decode decode) {
  std::string error;
  switch (withArgReader(
      args, [&](const ArgReader &reader) { return decode(reader, error); })) {
  case ConvDecode::Ok:
    return success();
  case ConvDecode::Unknown:
    return args.emitError() << "could not read the " << what << "'s arguments";
  case ConvDecode::Invalid:
    return args.emitError() << error;
  }
  return failure();
}

/// The slice torch.select(input, dim, index) takes (Shape.cpp; also
/// select_scatter's): the normalized dim and index, or failure with torch's
/// messages (0-d input, index out of range).
FailureOr<std::pair<int64_t, int64_t>>
selectPosition(const KernelArgs &args, const Tensor &in, int64_t dim,
               int64_t index);

/// A new tensor of `x`'s dtype and shape whose elements `fill(p, o)`
/// writes, `p` and `o` pointing to `x`'s and the new tensor's elements in
/// their storage type T; `fill` is called only when `Admits<T>::value`
/// (std::is_integral, std::is_floating_point), the elements left zero
/// otherwise. Rounded (or wrapped) to the dtype after.
template <template <typename> class Admits, typename Fn>
Tensor mapStorage(const Tensor &x, Fn fill) {
  Tensor out(x.dtype(), x.shape());
  dispatchStorage(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (Admits<T>::value)
      fill(x.template data<T>(), out.template data<T>());
    return 0;
  });
  out.roundToDType();
  return out;
}

/// Steps the row-major position `pos` within `shape` on by one element (the
/// last dim fastest), back to all zeros after the last.
inline void nextPosition(MutableArrayRef<int64_t> pos,
                         ArrayRef<int64_t> shape) {
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (++pos[d] < shape[d])
      return;
    pos[d] = 0;
  }
}

/// `shape` seen as [outer, shape[dim], inner]: the products of its dims
/// before and after `dim`.
inline std::pair<int64_t, int64_t> outerInner(ArrayRef<int64_t> shape,
                                              int64_t dim) {
  int64_t outer = 1, inner = 1;
  for (int64_t i = dim + 1; i < static_cast<int64_t>(shape.size()); ++i)
    inner *= shape[i];
  for (int64_t i = 0; i < dim; ++i)
    outer *= shape[i];
  return {outer, inner};
}

/// Softmax's two passes over `size` elements of `row`, `stride` apart: the
/// largest element, and the sum of exp(x - largest), in T.
template <typename T>
std::pair<T, T> softmaxTerms(const T *row, int64_t size, int64_t stride) {
  T mx = -INFINITY;
  for (int64_t j = 0; j < size; ++j)
    mx = std::max(mx, row[j * stride]);
  T sum = 0;
  for (int64_t j = 0; j < size; ++j)
    sum += std::exp(row[j * stride] - mx);
  return {mx, sum};
}

/// A tensor seen as [outer, size, inner] around one dim (a 0-d tensor as
/// one dim of size 1); outer is 0 when size or inner is.
struct DimSplit {
  int64_t outer, size, inner;
};

/// `x` split around its dim `d` (normalized: failure, reported, when out of
/// range).
inline FailureOr<DimSplit> splitAtDim(const KernelArgs &args, const Tensor &x,
                                      int64_t d) {
  FailureOr<int64_t> dim =
      normalizeDim(args, d, std::max<int64_t>(x.rank(), 1));
  if (failed(dim))
    return failure();
  int64_t size = x.rank() ? x.dim(*dim) : 1, inner = 1;
  for (int64_t i = *dim + 1; i < x.rank(); ++i)
    inner *= x.dim(i);
  int64_t outer = size && inner ? x.numel() / (size * inner) : 0;
  return DimSplit{outer, size, inner};
}

/// A copy of `x` sharing nothing with it, for a kernel to write into (kernels
/// never write into their inputs).
inline Tensor copyOf(const Tensor &x) {
  Tensor out(x.dtype(), x.shape());
  dispatchStorage(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy(x.template data<T>(), x.template data<T>() + x.numel(),
              out.template data<T>());
    return 0;
  });
  return out;
}

/// Reads argument `name` as `read` (KernelArgs::tensor, getInt, ...) does
/// into `value`, left none when None; failure (reported) otherwise.
template <typename T>
LogicalResult optionalArg(const KernelArgs &args, StringRef name,
                          FailureOr<T> (KernelArgs::*read)(StringRef) const,
                          std::optional<T> &value) {
  if (args.isNone(name))
    return success();
  FailureOr<T> v = (args.*read)(name);
  if (failed(v))
    return failure();
  value = *v;
  return success();
}

/// Two tensors in float64, broadcast to their common shape.
struct BroadcastPair {
  SmallVector<int64_t> shape;
  Tensor a, b;
};

/// `a` and `b` (the arguments `lhs` and `rhs`) in float64 broadcast
/// together, or failure (reported).
inline FailureOr<BroadcastPair> broadcastInF64(const KernelArgs &args,
                                               const Tensor &a, const Tensor &b,
                                               StringRef lhs, StringRef rhs) {
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(a.shape(), b.shape());
  if (failed(shape))
    return args.emitError() << "the shapes of '" << lhs << "' and '" << rhs
                            << "' cannot be broadcast together";
  return BroadcastPair{*shape, broadcastTo(a.to(DType::F64), *shape),
                       broadcastTo(b.to(DType::F64), *shape)};
}

/// Reads the input and its dim `dim` (normalized) of an op that takes no
/// 0-d input into `in` and `dim`; failure (reported: `zeroDimError` for a
/// 0-d input) otherwise.
inline LogicalResult inputAndDim(const KernelArgs &args, StringRef zeroDimError,
                                 Tensor &in, int64_t &dim) {
  FailureOr<Tensor> t = args.tensor("input");
  FailureOr<int64_t> d = args.getInt("dim");
  if (failed(t) || failed(d))
    return failure();
  if (t->rank() == 0)
    return args.emitError() << zeroDimError;
  FailureOr<int64_t> n = normalizeDim(args, *d, t->rank());
  if (failed(n))
    return failure();
  in = *t;
  dim = *n;
  return success();
}

/// Binary arithmetic (Elementwise.cpp), which the activation gradients
/// (Backward.cpp) compute with too.
/// A binary operand: a tensor, or a Python number.
struct Operand {
  Tensor tensor;
  double number = 0;
  bool isTensor = false;
  bool isFloatNumber = false;
  bool isBool = false;
};

/// Argument `name` as an operand; failure (reported) for other values.
FailureOr<Operand> operand(const KernelArgs &args, StringRef name);

/// The operand's part in PyTorch's type promotion.
PromotionOperand promotionOf(const Operand &o);

/// A tensor's part in PyTorch's type promotion.
inline PromotionOperand tensorPromotion(const Tensor &t) {
  Operand o;
  o.tensor = t;
  o.isTensor = true;
  return promotionOf(o);
}

/// How a binary op's result dtype follows from the promoted dtype.
enum class ResultKind { Promoted, Float, Bool };

/// Elementwise `fn(a, b)` with broadcasting, computed in the promoted dtype
/// (torch.result_type; `Float` turns bool and integers into the default
/// float, as true division does). `fn` is called with the storage type of
/// that dtype (float for f32/f16/bf16, double, int64_t, uint8_t for bool);
/// results are rounded or wrapped to the dtype, or (`Bool`: comparisons and
/// logical ops) taken as truth values. Python numbers enter in the compute
/// dtype, as PyTorch wraps them. Two numbers give a Python number.
template <typename Fn>
FailureOr<RtValue> binary(const KernelArgs &args, StringRef lhs, StringRef rhs,
                          Fn fn, ResultKind kind = ResultKind::Promoted) {
  FailureOr<Operand> a = operand(args, lhs), b = operand(args, rhs);
  if (failed(a) || failed(b))
    return failure();
  if (!a->isTensor && !b->isTensor) {
    bool isFloat = kind == ResultKind::Float || a->isFloatNumber ||
                   b->isFloatNumber;
    if (kind == ResultKind::Bool)
      return RtValue::ofBool(isFloat ? bool(fn(a->number, b->number))
                                     : bool(fn(static_cast<int64_t>(a->number),
                                               static_cast<int64_t>(b->number))));
    if (isFloat)
      return RtValue::ofFloat(fn(a->number, b->number));
    return RtValue::ofInt(fn(static_cast<int64_t>(a->number),
                             static_cast<int64_t>(b->number)));
  }
  DType dtype = resultType({promotionOf(*a), promotionOf(*b)});
  if (kind == ResultKind::Float)
    dtype = toFloatingDType(dtype);
  SmallVector<int64_t> shape;
  if (a->isTensor && b->isTensor) {
    FailureOr<SmallVector<int64_t>> s =
        broadcastShape(a->tensor.shape(), b->tensor.shape());
    if (failed(s))
      return args.emitError()
             << "the shapes of '" << lhs << "' and '" << rhs
             << "' cannot be broadcast together";
    shape = *s;
  } else {
    shape.assign((a->isTensor ? a : b)->tensor.shape().begin(),
                 (a->isTensor ? a : b)->tensor.shape().end());
  }
  Tensor out(kind == ResultKind::Bool ? DType::Bool : dtype, shape);
  auto materialize = [&](const Operand &o) {
    return o.isTensor ? broadcastTo(o.tensor.to(dtype), shape) : Tensor();
  };
  Tensor ta = materialize(*a), tb = materialize(*b);
  int64_t n = out.numel();
  dispatchStorage(dtype, [&](auto tag) {
    using T = decltype(tag);
    // Integers compute in int64_t, bools in uint8_t (0/1).
    const T *pa = a->isTensor ? ta.template data<T>() : nullptr;
    const T *pb = b->isTensor ? tb.template data<T>() : nullptr;
    auto scalar = [&](const Operand &x) -> T {
      if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(x.number);
      else
        return static_cast<T>(
            wrapToDType(static_cast<int64_t>(x.number), dtype));
    };
    T sa = scalar(*a), sb = scalar(*b);
    using C = std::conditional_t<std::is_same_v<T, uint8_t>, int64_t, T>;
    if (kind == ResultKind::Bool) {
      uint8_t *o = out.template data<uint8_t>();
      for (int64_t i = 0; i < n; ++i)
        o[i] = bool(fn(static_cast<C>(pa ? pa[i] : sa),
                       static_cast<C>(pb ? pb[i] : sb)));
      return 0;
    }
    T *o = out.template data<T>();
    for (int64_t i = 0; i < n; ++i) {
      C r = static_cast<C>(fn(static_cast<C>(pa ? pa[i] : sa),
                              static_cast<C>(pb ? pb[i] : sb)));
      if constexpr (std::is_same_v<T, uint8_t>)
        o[i] = r != 0;
      else
        o[i] = r;
    }
    return 0;
  });
  out.roundToDType();
  return RtValue(out);
}

/// Indexing (Index.cpp), which getitem (Shape.cpp) does too, and the slice
/// views that aten::slice (Shape.cpp) and slice_scatter (Index.cpp) share.

/// A slice of a dim of `size`: its first index, step and length, or
/// failure (reported) for a non-positive step or non-int bounds.
struct SliceRange {
  int64_t begin, step, length;
};
FailureOr<SliceRange> sliceRange(const KernelArgs &args, SliceAttr slice,
                                 int64_t size);

/// Basic indexing (ints, slices, None, one Ellipsis) as a strided view:
/// its shape, strides and first offset.
struct StridedView {
  SmallVector<int64_t> shape, strides;
  int64_t offset = 0;
};

/// `x[index]`: basic or advanced indexing (Index.cpp).
FailureOr<RtValue> indexTensor(const KernelArgs &args, const Tensor &x,
                               const RtValue &index);

/// The view input[start:end:step] along `dim`, as aten::slice and
/// slice_scatter read their `dim`, `start`, `end` and `step` (a 0-d input
/// is its own view); Shape.cpp.
FailureOr<StridedView> sliceView(const KernelArgs &args, const Tensor &in);

/// Copies `x` viewed as [outer, size, inner] along its middle axis:
/// out[a, j, c] = x[a, pick(a, j, c), c] for j < `outSize` (a negative pick
/// is an error reported by `pick`).
template <typename Pick>
FailureOr<Tensor> takeAlong(const KernelArgs &args, const Tensor &x,
                            int64_t dim, int64_t outSize,
                            ArrayRef<int64_t> outShape, Pick pick) {
  int64_t size = x.rank() ? x.dim(dim) : 1;
  int64_t outer, inner;
  std::tie(outer, inner) = outerInner(x.shape(), dim);
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

/// Entry `entry`'s kernel (by canonical name or alias) called with the
/// arguments `named` by parameter name and its defaults for the others: a
/// kernel that is a formula of other entries (kron, tensordot, dist)
/// computes as they do, with their checks. Errors are reported at `args`'s
/// call.
FailureOr<RtValue>
callEntry(const KernelArgs &args, StringRef entry,
          ArrayRef<std::pair<StringRef, RtValue>> named);
/// A Python list of ints, as an argument of callEntry.
inline RtValue intsValue(ArrayRef<int64_t> ints) {
  std::vector<RtValue> items;
  for (int64_t i : ints)
    items.push_back(RtValue::ofInt(i));
  return RtValue::ofList(std::move(items), /*isTuple=*/false);
}
/// `callEntry`'s tensor result (an error, reported, for another value).
FailureOr<Tensor> callTensor(const KernelArgs &args, StringRef entry,
                             ArrayRef<std::pair<StringRef, RtValue>> named);

/// Kernels that other families' kernels call (a loss computes with exp and
/// log; a matrix product sums): declared here, defined in their family's
/// file. Entries are not declared otherwise: a family file names its
/// entries' kernels itself.
#define TRACED_KERNEL(name) FailureOr<RtValue> name(const KernelArgs &args);
TRACED_KERNEL(clamp)
TRACED_KERNEL(exp)
TRACED_KERNEL(expand)
TRACED_KERNEL(floor)
TRACED_KERNEL(log)
TRACED_KERNEL(max)
TRACED_KERNEL(mean)
TRACED_KERNEL(min)
TRACED_KERNEL(mul)
TRACED_KERNEL(round)
TRACED_KERNEL(sign)
TRACED_KERNEL(sum)
TRACED_KERNEL(t)
TRACED_KERNEL(xlogy)
#undef TRACED_KERNEL

/// Each family file names its entries' kernels.
void populateBackwardKernels(KernelTable &table);
void populateElementwiseKernels(KernelTable &table);
/// The special functions (SpecialMath.cpp), part of the Elementwise family.
void populateSpecialKernels(KernelTable &table);
void populateFactoryKernels(KernelTable &table);
void populateIndexKernels(KernelTable &table);
void populateLinalgKernels(KernelTable &table);
void populateLossKernels(KernelTable &table);
void populateNormKernels(KernelTable &table);
void populatePoolKernels(KernelTable &table);
void populateReduceKernels(KernelTable &table);
void populateShapeKernels(KernelTable &table);
void populateSortKernels(KernelTable &table);
void populateQuantizedKernels(KernelTable &table);
/// The quantized kernels of float entries (lookupQuantizedKernel).
void populateSameQParamsKernels(KernelTable &table);

} // namespace mlir::traced::kernels

namespace mlir::traced {
/// A loss's `reduction`, or the one its legacy size_average/reduce flags
/// name (Loss.cpp; nll_loss_backward reads it too).
FailureOr<std::string> lossReduction(const KernelArgs &args);
/// `v` rounded to `dtype` (as a tensor of it would hold it): a kernel
/// following torch's steps rounds each step's result (Loss.cpp).
double roundedTo(DType dtype, double v);
/// Whether a result of `elements` int64/double-sized elements whose count
/// the data decides fits in this machine's memory (Loss.cpp): kernels
/// refuse larger ones rather than be killed allocating them.
bool fitsInMemory(int64_t elements);
} // namespace mlir::traced

#endif // TRACEDIR_LIB_INTERPRETER_KERNELS_KERNELS_H
