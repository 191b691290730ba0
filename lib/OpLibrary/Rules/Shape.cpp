//===- Shape.cpp - result rules of views and shape ops -------------------===//
//
// The op table (OpTable.cpp) names these rules; Common.h holds what
// several families share.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

using namespace mlir;
using namespace mlir::traced;

namespace mlir::traced::rules {

/// x.view_as(other), reshape_as, expand_as: other's shape, x's dtype (the
/// kernels check the element count, or that x broadcasts).
LogicalResult shapeAs(const BoundCall &call, RuleHelper &h) {
  return shapeAndDType(call, h.results, "other", "input");
}

/// x.resize_(*size), x.resize_as_(the_template): x's first elements
/// (row-major) in the new shape, as torch keeps a contiguous tensor's
/// storage. A size with more elements than x holds would be uninitialized
/// memory in torch: refused.
LogicalResult resize(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  SmallVector<int64_t> shape;
  if (call.getSignature().lookup("the_template")) {
    RankedTensorType t = h.tensor("the_template");
    if (!t || !t.hasStaticShape())
      return h.unknown();
    shape.assign(t.getShape().begin(), t.getShape().end());
  } else {
    std::optional<SmallVector<int64_t>> size = call.getInts("size");
    if (!size)
      return h.unknown();
    shape = *size;
  }
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return call.emitError() << "Trying to create tensor with negative "
                                 "dimension "
                              << d;
    n *= d;
  }
  if (!input || !input.hasStaticShape())
    return h.unknown();
  if (n > input.getNumElements())
    return call.emitError()
           << "resizing to " << n << " elements, more than the tensor's "
           << input.getNumElements()
           << ", leaves the new ones uninitialized in torch: not supported";
  return h.result(shape, input.getElementType());
}

LogicalResult numel(const BoundCall &call, RuleHelper &h) {
  h.results.push_back(IntegerType::get(call.getContext(), 64));
  return success();
}

LogicalResult unbind(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  std::optional<int64_t> d = call.getInt("dim");
  if (!in || !d)
    return h.unknown();
  std::optional<int64_t> n =
      h.dimArg(in, "dim", "unbind() cannot be applied to a 0-d tensor");
  if (!n)
    return h.stop();
  if (in.isDynamicDim(*n))
    return h.unknown();
  SmallVector<Type> pieces(in.getDimSize(*n), withoutDim(in, *n));
  return h.result(TupleType::get(call.getContext(), pieces));
}

/// The shape of a diagonal of dims d1, d2 at `offset`.
static FailureOr<SmallVector<int64_t>>
diagonalShape(const BoundCall &call, RankedTensorType in, int64_t offset,
              int64_t d1, int64_t d2) {
  int64_t rank = in.getRank();
  int64_t a = d1 < 0 ? d1 + rank : d1, b = d2 < 0 ? d2 + rank : d2;
  if (a < 0 || a >= rank || b < 0 || b >= rank) {
    call.emitError() << "diagonal dimensions out of range for a tensor of "
                        "rank "
                     << rank;
    return failure();
  }
  if (a == b) {
    call.emitError() << "diagonal dimensions cannot be identical " << d1
                     << ", " << d2;
    return failure();
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d)
    if (d != a && d != b)
      shape.push_back(in.getDimSize(d));
  int64_t sa = in.getDimSize(a), sb = in.getDimSize(b);
  int64_t len = ShapedType::kDynamic;
  if (!ShapedType::isDynamic(sa) && !ShapedType::isDynamic(sb))
    len = std::max<int64_t>(
        offset >= 0 ? std::min(sa, sb - offset) : std::min(sa + offset, sb), 0);
  shape.push_back(len);
  return shape;
}

LogicalResult diagonal(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  std::optional<int64_t> off = call.getInt("offset"), d1 = call.getInt("dim1"),
                         d2 = call.getInt("dim2");
  if (!in || !off || !d1 || !d2)
    return h.unknown();
  if (in.getRank() < 2)
    return call.emitError() << "diagonal() expects a tensor of rank >= 2";
  FailureOr<SmallVector<int64_t>> shape =
      diagonalShape(call, in, *off, *d1, *d2);
  if (failed(shape))
    return failure();
  return h.result(*shape, in.getElementType());
}

LogicalResult diag(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  std::optional<int64_t> k = call.getInt("diagonal");
  if (!in || !k)
    return h.unknown();
  if (in.getRank() == 2) {
    FailureOr<SmallVector<int64_t>> shape = diagonalShape(call, in, *k, 0, 1);
    if (failed(shape))
      return failure();
    return h.result(*shape, in.getElementType());
  }
  if (in.getRank() != 1)
    return call.emitError() << "diag() expects a 1-D or 2-D tensor";
  int64_t n = in.isDynamicDim(0) ? ShapedType::kDynamic
                                 : in.getDimSize(0) + std::abs(*k);
  return h.result({n, n}, in.getElementType());
}

LogicalResult trace(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  if (!in)
    return h.unknown();
  if (in.getRank() != 2)
    return call.emitError() << "trace() expects a matrix";
  Type elt = in.getElementType();
  if (!isa<FloatType>(elt))
    elt = IntegerType::get(call.getContext(), 64);
  return h.result({}, elt);
}

/// pixel_shuffle / pixel_unshuffle / channel_shuffle.
LogicalResult pixelShuffle(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  bool up = call.getSignature().lookup("upscale_factor").has_value();
  std::optional<int64_t> r =
      call.getInt(up ? "upscale_factor" : "downscale_factor");
  if (!in || !r || !in.hasStaticShape())
    return h.unknown();
  int64_t rank = in.getRank();
  if (rank < 3)
    return call.emitError() << "expects an input of rank >= 3, got " << in;
  if (*r <= 0)
    return call.emitError() << "the factor must be positive";
  SmallVector<int64_t> shape(in.getShape());
  int64_t &c = shape[rank - 3], &hh = shape[rank - 2], &w = shape[rank - 1];
  if (up) {
    if (c % (*r * *r) != 0)
      return call.emitError() << "the channels (" << c
                              << ") must be divisible by the square of the "
                                 "upscale factor";
    c /= *r * *r;
    hh *= *r;
    w *= *r;
  } else {
    if (hh % *r != 0 || w % *r != 0)
      return call.emitError() << "the height and width must be divisible by "
                                 "the downscale factor";
    c *= *r * *r;
    hh /= *r;
    w /= *r;
  }
  return h.result(shape, in.getElementType());
}

LogicalResult channelShuffle(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  std::optional<int64_t> g = call.getInt("groups");
  if (!in || !g)
    return h.unknown();
  if (in.getRank() < 3)
    return call.emitError() << "channel_shuffle expects an input of rank >= 3";
  if (*g <= 0 ||
      (!in.isDynamicDim(1) && in.getDimSize(1) % *g != 0))
    return call.emitError() << "the channels must be divisible by groups";
  return h.result(in);
}

LogicalResult repeatInterleave(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  if (!in)
    return h.unknown();
  std::optional<int64_t> count = call.getInt("repeats");
  SmallVector<int64_t> shape;
  int64_t dim = 0;
  if (call.isNone("dim")) {
    shape = {in.hasStaticShape() ? in.getNumElements() : ShapedType::kDynamic};
  } else {
    std::optional<int64_t> n = h.dimArg(in);
    if (!n)
      return h.stop();
    dim = *n;
    shape.assign(in.getShape().begin(), in.getShape().end());
    if (shape.empty())
      shape = {1};
  }
  if (count && !ShapedType::isDynamic(shape[dim]))
    shape[dim] *= *count;
  else
    shape[dim] = ShapedType::kDynamic; // counts in a tensor
  return h.result(shape, in.getElementType());
}

/// aten::repeat_interleave.Tensor: each index i of the 1-D int32/int64
/// `repeats` repeated repeats[i] times, in its dtype; output_size's
/// elements where given, else as many as the counts add up to (the
/// traced call's).
LogicalResult repeatInterleaveCounts(const BoundCall &call, RuleHelper &h) {
  RankedTensorType repeats = h.tensor("repeats");
  if (!repeats)
    return h.unknown();
  Type element = repeats.getElementType();
  if (!element.isSignlessInteger(32) && !element.isSignlessInteger(64)) {
    std::optional<DType> dtype = dtypeFromType(element);
    return call.emitError() << "\"repeat_interleave_cpu\" not implemented for '"
                            << (dtype ? torchTypeName(*dtype) : "?") << "'";
  }
  if (repeats.getRank() != 1)
    return call.emitError()
           << "repeat_interleave only accept 1D vector as repeat";
  int64_t size = repeats.getDimSize(0) == 0 ? 0 : ShapedType::kDynamic;
  if (!call.isNone("output_size")) {
    std::optional<int64_t> given = call.getInt("output_size");
    if (!given)
      return h.unknown();
    size = *given;
  }
  return h.result({size}, element);
}

LogicalResult meshgrid(const BoundCall &call, RuleHelper &h) {
  const BoundCall::Arg &arg = call.get("tensors");
  if (arg.elements.empty())
    return h.unknown();
  SmallVector<int64_t> shape;
  SmallVector<Type> elts;
  for (Type t : arg.elements) {
    auto r = dyn_cast_or_null<RankedTensorType>(t);
    if (!r)
      return h.unknown();
    if (r.getRank() > 1)
      return call.emitError() << "meshgrid expects 0-D or 1-D tensors";
    shape.push_back(r.getRank() == 0 ? 1 : r.getDimSize(0));
    elts.push_back(r.getElementType());
  }
  auto indexing = dyn_cast_or_null<StringAttr>(call.get("indexing").value);
  if (indexing && indexing.getValue() != "ij" && indexing.getValue() != "xy")
    return call.emitError() << "indexing must be 'ij' or 'xy'";
  if (indexing && indexing.getValue() == "xy" && shape.size() >= 2)
    std::swap(shape[0], shape[1]);
  SmallVector<Type> out;
  for (Type e : elts)
    out.push_back(RankedTensorType::get(shape, e));
  return h.result(TupleType::get(call.getContext(), out));
}

/// hstack, vstack (row_stack), dstack, column_stack: each tensor made at
/// least 1-, 2-, 3- or column-2-D, then concatenated.
LogicalResult stackLike(const BoundCall &call, RuleHelper &h) {
  StringRef t = call.getTarget();
  StackKind kind = t.ends_with("hstack")         ? StackKind::H
                   : t.ends_with("dstack")       ? StackKind::D
                   : t.ends_with("column_stack") ? StackKind::Column
                                                 : StackKind::V;
  const BoundCall::Arg &arg = call.get("tensors");
  if (arg.elements.empty())
    return arg.value ? call.emitError() << "expects a non-empty list of tensors"
                     : h.unknown();
  SmallVector<RankedTensorType> ts = tensorList(call, "tensors");
  if (ts.empty())
    return h.unknown();
  SmallVector<SmallVector<int64_t>> shapes;
  for (RankedTensorType r : ts)
    shapes.push_back(stackPieceShape(r.getShape(), kind));
  int64_t dim = stackDim(kind, shapes[0].size());
  SmallVector<int64_t> out = shapes[0];
  for (size_t i = 1; i < shapes.size(); ++i) {
    if (shapes[i].size() != out.size())
      return call.emitError() << "tensors must have the same number of "
                                 "dimensions";
    for (size_t d = 0; d < out.size(); ++d) {
      if (static_cast<int64_t>(d) == dim) {
        out[d] = ShapedType::isDynamic(out[d]) ||
                         ShapedType::isDynamic(shapes[i][d])
                     ? ShapedType::kDynamic
                     : out[d] + shapes[i][d];
      } else if (out[d] != shapes[i][d]) {
        return call.emitError() << "sizes of tensors must match except in "
                                   "dimension "
                                << dim;
      }
    }
  }
  SmallVector<Type> types(ts.begin(), ts.end());
  return h.result(out, resultElementType(types, call.getContext()));
}

/// The `dim` of narrow, split and select, which refuse a 0-d input.
static std::optional<int64_t> nonScalarDim(RuleHelper &h,
                                           RankedTensorType input) {
  return h.dimArg(input, "dim", "cannot be applied to a 0-d tensor");
}

LogicalResult narrow(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> length = call.getInt("length");
  Type start = call.getType("start");
  if (auto t = dyn_cast_or_null<RankedTensorType>(start)) {
    if (t.getRank() != 0 || !isa<IntegerType>(t.getElementType()) ||
        t.getElementType().isInteger(1))
      return call.emitError() << "start must be an 0-dim integral Tensor, got "
                              << t;
  } else if (start && !start.isInteger(64)) {
    return call.emitError() << "argument 'start' expects int, got " << start;
  }
  if (!input || !length)
    return h.unknown();
  std::optional<int64_t> dim = nonScalarDim(h, input);
  if (!dim)
    return h.stop();
  return h.result(withDimSize(input, *dim, *length));
}

LogicalResult repeat(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  bool tile = call.getSignature().lookup("dims").has_value();
  std::optional<SmallVector<int64_t>> reps =
      call.getSizes(tile ? "dims" : "repeats");
  if (!input || !reps)
    return h.unknown();
  SmallVector<int64_t> r = *reps;
  if (!tile && static_cast<int64_t>(r.size()) < input.getRank())
    return call.emitError() << "the number of repeat dims cannot be smaller "
                               "than the number of tensor dims";
  while (static_cast<int64_t>(r.size()) < input.getRank())
    r.insert(r.begin(), 1);
  SmallVector<int64_t> shape(r.size() - input.getRank(), 1);
  shape.append(input.getShape().begin(), input.getShape().end());
  for (auto [s, k] : llvm::zip(shape, r))
    s = mulDims(s, k);
  return h.result(shape, input.getElementType());
}

LogicalResult triangle(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getRank() < 2)
    return call.emitError() << "input tensor must have at least 2 dims, got "
                            << input;
  return h.result(input);
}

LogicalResult pad(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> amounts = call.getInts("pad");
  if (!input || !amounts)
    return h.unknown();
  if (amounts->size() % 2 ||
      static_cast<int64_t>(amounts->size()) / 2 > input.getRank())
    return call.emitError() << "padding length must be even and at most twice "
                               "the number of dims";
  SmallVector<int64_t> shape(input.getShape());
  for (size_t i = 0; i < amounts->size() / 2; ++i) {
    int64_t &d = shape[input.getRank() - 1 - i];
    int64_t low = (*amounts)[2 * i], high = (*amounts)[2 * i + 1];
    // Negative pads crop (torch narrows the input by them first, and
    // raises when they take more than the dim holds).
    if (!ShapedType::isDynamic(d) &&
        d + std::min<int64_t>(low, 0) + std::min<int64_t>(high, 0) < 0)
      return call.emitError()
             << "the negative pads (" << low << ", " << high
             << ") crop more than the " << d << " elements of dim "
             << input.getRank() - 1 - i;
    if (!ShapedType::isDynamic(d))
      d += low + high;
  }
  return h.result(shape, input.getElementType());
}

LogicalResult split(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> dim = nonScalarDim(h, input);
  if (!dim)
    return h.stop();
  if (input.isDynamicDim(*dim))
    return h.unknown();
  int64_t size = input.getDimSize(*dim);
  SmallVector<int64_t> sizes;
  if (std::optional<int64_t> n = call.getInt("split_size_or_sections")) {
    if (*n <= 0)
      return call.emitError() << "split size must be positive";
    for (int64_t s = 0; s < size || (size == 0 && sizes.empty()); s += *n)
      sizes.push_back(std::min(*n, size - s));
  } else if (auto list = call.getInts("split_size_or_sections")) {
    sizes = *list;
  } else {
    return h.unknown();
  }
  SmallVector<Type> pieces;
  for (int64_t s : sizes)
    pieces.push_back(withDimSize(input, *dim, s));
  return h.result(TupleType::get(call.getContext(), pieces));
}

LogicalResult t(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getRank() > 2)
    return call.emitError() << "expects a tensor with <= 2 dimensions, got "
                            << input;
  if (input.getRank() < 2)
    return h.result(input);
  return h.result({input.getDimSize(1), input.getDimSize(0)},
                  input.getElementType());
}

LogicalResult select(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> dim = nonScalarDim(h, input);
  if (!dim)
    return h.stop();
  return h.result(withoutDim(input, *dim));
}

LogicalResult movedim(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> src = call.getInts("source"),
                                      dst = call.getInts("destination");
  if (!input || !src || !dst)
    return h.unknown();
  std::string error;
  FailureOr<SmallVector<int64_t>> perm =
      movedimPermutation(*src, *dst, input.getRank(), error);
  if (failed(perm))
    return call.emitError() << error;
  SmallVector<int64_t> shape;
  for (int64_t p : *perm)
    shape.push_back(input.getDimSize(p));
  return h.result(shape, input.getElementType());
}

/// prims.squeeze and prims.split_dim: views of `a`.
LogicalResult primsView(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("a");
  if (!a || !a.hasStaticShape())
    return h.unknown();
  std::string error;
  std::optional<SmallVector<int64_t>> shape;
  if (call.getTarget().contains("squeeze")) {
    std::optional<SmallVector<int64_t>> dims =
        getPyInts(call.get("dimensions").value);
    if (!dims)
      return h.unknown();
    shape = primsSqueezeShape(a.getShape(), *dims, error);
  } else {
    std::optional<int64_t> dim = call.getInt("dim"),
                           outer = call.getInt("outer_length");
    if (!dim || !outer)
      return h.unknown();
    shape = primsSplitDimShape(a.getShape(), *dim, *outer, error);
  }
  if (!shape)
    return call.emitError() << error;
  return h.result(*shape, a.getElementType());
}

/// torch.atleast_{1,2,3}d: the input viewed with at least that many dims.
LogicalResult atleast(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  int64_t rank = call.getTarget().ends_with("1d")   ? 1
                 : call.getTarget().ends_with("2d") ? 2
                                                    : 3;
  return h.result(atleastShape(input.getShape(), rank),
                  input.getElementType());
}

LogicalResult flatten(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> start = call.getInt("start_dim"),
                         end = call.getInt("end_dim");
  if (!input || !start || !end)
    return h.unknown();
  int64_t rank = input.getRank();
  if (rank == 0)
    return h.result({1}, input.getElementType());
  FailureOr<int64_t> s = h.dim(*start, rank, "start_dim"),
                     e = h.dim(*end, rank, "end_dim");
  if (failed(s) || failed(e))
    return failure();
  if (*s > *e)
    return call.emitError()
           << "start_dim " << *start << " comes after end_dim " << *end;
  SmallVector<int64_t> out(input.getShape().take_front(*s));
  int64_t product = 1;
  for (int64_t i = *s; i <= *e; ++i)
    product = mulDims(product, input.getDimSize(i));
  out.push_back(product);
  llvm::append_range(out, input.getShape().drop_front(*e + 1));
  return h.result(out, input.getElementType());
}

/// Resolves a target shape with at most one -1 against `numel` elements.
static FailureOr<SmallVector<int64_t>> inferShape(const BoundCall &call,
                                                  RankedTensorType input,
                                                  ArrayRef<int64_t> shape) {
  int64_t numel = input.hasStaticShape() ? input.getNumElements() : kDynamic;
  SmallVector<int64_t> out(shape);
  int64_t known = 1;
  int inferred = -1;
  for (auto [i, d] : llvm::enumerate(out)) {
    if (d == -1) {
      if (inferred >= 0) {
        call.emitError() << "only one dimension can be inferred in "
                         << shapeStr(shape);
        return failure();
      }
      inferred = i;
    } else if (d < 0) {
      call.emitError() << "invalid dimension " << d << " in "
                       << shapeStr(shape);
      return failure();
    } else {
      known *= d;
    }
  }
  if (ShapedType::isDynamic(numel)) {
    if (inferred >= 0)
      out[inferred] = kDynamic;
    return out;
  }
  if (inferred >= 0 && known != 0 && numel % known == 0)
    out[inferred] = numel / known;
  else if (inferred >= 0 || known != numel) {
    call.emitError() << "shape " << shapeStr(shape)
                     << " is invalid for an input of " << numel << " elements";
    return failure();
  }
  return out;
}

/// The dtype of `x.view(dtype)`: the one argument of view's `*size`, when
/// it is a dtype.
static DTypeAttr viewDType(const BoundCall &call) {
  if (call.getTarget() != "Tensor.view")
    return {};
  const BoundCall::Arg &arg = call.get("size");
  if (auto list = dyn_cast_or_null<ArrayAttr>(arg.value))
    if (list.size() == 1)
      return dyn_cast<DTypeAttr>(list[0]);
  return dyn_cast_or_null<DTypeAttr>(arg.value);
}

LogicalResult reshape(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (DTypeAttr to = viewDType(call)) {
    // x.view(dtype): the same bytes read as another dtype; a different
    // element size scales the last dim.
    if (!input)
      return h.unknown();
    std::optional<DType> from = dtypeFromType(input.getElementType()),
                         want = dtypeFromType(to.getType());
    if (!from || !want)
      return h.unknown();
    SmallVector<int64_t> shape;
    if (std::optional<std::string> error =
            viewDTypeShape(*from, *want, input.getShape(), shape))
      return call.emitError() << *error;
    return h.result(shape, to.getType());
  }
  StringRef param = call.getSignature().lookup("shape") ? "shape" : "size";
  std::optional<SmallVector<int64_t>> shape = call.getInts(param);
  if (!input)
    return h.unknown();
  if (!shape) {
    // Traced sizes: `?` there (and at a -1 beside them), the constants as
    // they are.
    std::optional<SmallVector<int64_t>> sizes = call.getSizes(param);
    if (!sizes) {
      const BoundCall::Arg &arg = call.get(param);
      if (arg.elements.empty())
        return h.unknown();
      return h.result(SmallVector<int64_t>(arg.elements.size(), kDynamic),
                      input.getElementType());
    }
    // (A -1 beside traced sizes is left unknown: the trace's size stands,
    // checked at run time, as the rules cannot tell whether it varies.)
    if (llvm::is_contained(*sizes, -1))
      return h.unknown();
    return h.result(*sizes, input.getElementType());
  }
  FailureOr<SmallVector<int64_t>> out = inferShape(call, input, *shape);
  if (failed(out))
    return failure();
  // ATen's _reshape_alias(x, size, stride): a reshape when the strides are
  // the contiguous ones of `size` (a size-1 dim's stride does not matter);
  // other strides read the storage in another order.
  if (call.getSignature().lookup("stride")) {
    std::optional<SmallVector<int64_t>> stride = call.getInts("stride");
    if (!stride)
      return h.unknown();
    bool contiguous = stride->size() == out->size();
    for (int64_t d = static_cast<int64_t>(out->size()) - 1, want = 1;
         contiguous && d >= 0; --d) {
      if ((*out)[d] != 1 && (*stride)[d] != want)
        contiguous = false;
      want *= (*out)[d];
    }
    if (!contiguous)
      return call.emitError() << "strides " << shapeStr(*stride)
                              << " are not the contiguous ones of size "
                              << shapeStr(*out)
                              << ": such a view is not supported";
  }
  return h.result(*out, input.getElementType());
}

LogicalResult permute(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> dims = call.getInts("dims");
  if (!input || !dims)
    return h.unknown();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(dims->size()) != rank)
    return call.emitError() << "dims " << shapeStr(*dims)
                            << " do not match the rank of " << input;
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> out;
  for (int64_t d : *dims) {
    FailureOr<int64_t> n = h.dim(d, rank);
    if (failed(n))
      return failure();
    if (seen[*n])
      return call.emitError()
             << "dims " << shapeStr(*dims) << " repeat dimension " << *n;
    seen[*n] = true;
    out.push_back(input.getDimSize(*n));
  }
  return h.result(out, input.getElementType());
}

LogicalResult transpose(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> d0 = call.getInt("dim0"), d1 = call.getInt("dim1");
  if (!input || !d0 || !d1)
    return h.unknown();
  int64_t rank = std::max<int64_t>(input.getRank(), 1);
  FailureOr<int64_t> a = h.dim(*d0, rank), b = h.dim(*d1, rank);
  if (failed(a) || failed(b))
    return failure();
  SmallVector<int64_t> out(input.getShape());
  if (!out.empty())
    std::swap(out[*a], out[*b]);
  return h.result(out, input.getElementType());
}

LogicalResult unsqueeze(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> d = call.getInt("dim");
  if (!input || !d)
    return h.unknown();
  FailureOr<int64_t> n = h.dim(*d, input.getRank() + 1);
  if (failed(n))
    return failure();
  SmallVector<int64_t> out(input.getShape());
  out.insert(out.begin() + *n, 1);
  return h.result(out, input.getElementType());
}

LogicalResult squeeze(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  SmallVector<int64_t> out;
  if (call.isNone("dim")) {
    for (int64_t d : input.getShape()) {
      if (ShapedType::isDynamic(d))
        return h.unknown();
      if (d != 1)
        out.push_back(d);
    }
    return h.result(out, input.getElementType());
  }
  std::optional<int64_t> n = h.dimArg(input);
  if (!n)
    return h.stop();
  int64_t rank = input.getRank();
  for (int64_t i = 0; i < rank; ++i)
    if (i != *n || input.getDimSize(i) != 1)
      out.push_back(input.getDimSize(i));
  return h.result(out, input.getElementType());
}

LogicalResult unflatten(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> d = call.getInt("dim");
  std::optional<SmallVector<int64_t>> sizes = call.getInts("sizes");
  if (!input || !d || !sizes)
    return h.unknown();
  FailureOr<int64_t> n = h.dim(*d, input.getRank());
  if (failed(n))
    return failure();
  RankedTensorType piece =
      RankedTensorType::get({input.getDimSize(*n)}, input.getElementType());
  FailureOr<SmallVector<int64_t>> inner = inferShape(call, piece, *sizes);
  if (failed(inner))
    return failure();
  SmallVector<int64_t> out(input.getShape().take_front(*n));
  llvm::append_range(out, *inner);
  llvm::append_range(out, input.getShape().drop_front(*n + 1));
  return h.result(out, input.getElementType());
}

LogicalResult expand(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  // (A traced size is `?`: the input's static size where it is not 1,
  // which the size must then equal at run time.)
  std::optional<SmallVector<int64_t>> sizes = call.getSizes("size");
  if (!input || !sizes)
    return h.unknown();
  int64_t rank = input.getRank(), n = sizes->size();
  if (n < rank)
    return call.emitError() << "cannot expand " << input << " to "
                            << shapeStr(*sizes) << ": fewer dimensions";
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) {
    int64_t want = (*sizes)[i];
    int64_t j = i - (n - rank);
    int64_t have = j >= 0 ? input.getDimSize(j) : 1;
    if (want == -1) {
      if (j < 0)
        return call.emitError() << "-1 is not allowed for a new leading "
                                   "dimension in expand";
      out.push_back(have);
    } else if (ShapedType::isDynamic(want)) {
      out.push_back(have != 1 ? have : kDynamic);
    } else if (have == 1 || ShapedType::isDynamic(have) || have == want) {
      out.push_back(want);
    } else {
      return call.emitError()
             << "cannot expand " << input << " to " << shapeStr(*sizes);
    }
  }
  return h.result(out, input.getElementType());
}

/// The dtype cat and stack compute in: their tensors promote among
/// themselves as equals, whatever their ranks (a 0-d tensor is no lesser).
static Type listElementType(ArrayRef<RankedTensorType> ts, MLIRContext *ctx) {
  SmallVector<Type> types;
  for (RankedTensorType t : ts)
    types.push_back(RankedTensorType::get({1}, t.getElementType()));
  return resultElementType(types, ctx);
}

LogicalResult cat(const BoundCall &call, RuleHelper &h) {
  SmallVector<RankedTensorType> ts = tensorList(call, "tensors");
  std::optional<int64_t> d = call.getInt("dim");
  if (ts.empty() || !d)
    return h.unknown();
  int64_t rank = ts[0].getRank();
  FailureOr<int64_t> n = h.dim(*d, rank);
  if (failed(n))
    return failure();
  SmallVector<int64_t> out(ts[0].getShape());
  for (RankedTensorType t : llvm::drop_begin(ts)) {
    if (t.getRank() != rank)
      return call.emitError() << "tensors must have the same rank, got "
                              << ts[0] << " and " << t;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t a = out[i], b = t.getDimSize(i);
      if (i == *n)
        out[i] = ShapedType::isDynamic(a) || ShapedType::isDynamic(b) ? kDynamic
                                                                      : a + b;
      else if (dimsDiffer(a, b))
        return call.emitError() << "sizes of " << ts[0] << " and " << t
                                << " differ in dimension " << i;
    }
  }
  return h.result(out, listElementType(ts, call.getContext()));
}

LogicalResult diff(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> n = call.getInt("n"), d = call.getInt("dim");
  if (!input || !n || !d)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError()
           << "diff expects input to be at least one-dimensional";
  FailureOr<int64_t> dim = h.dim(*d, input.getRank());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  SmallVector<RankedTensorType> parts{input};
  for (StringRef name : {"prepend", "append"}) {
    if (call.isNone(name))
      continue;
    RankedTensorType t = h.tensor(name);
    if (!t)
      return h.unknown();
    if (t.getRank() != input.getRank())
      return call.emitError() << "diff expects prepend or append to be the "
                                 "same dimension as input, got "
                              << t << " beside " << input;
    for (int64_t i = 0; i < input.getRank(); ++i) {
      int64_t a = shape[i], b = t.getDimSize(i);
      if (i == *dim)
        shape[i] = ShapedType::isDynamic(a) || ShapedType::isDynamic(b)
                       ? kDynamic
                       : a + b;
      else if (dimsDiffer(a, b))
        return call.emitError() << "sizes of " << input << " and " << t
                                << " differ in dimension " << i;
    }
    parts.push_back(t);
  }
  if (*n > 0 && !ShapedType::isDynamic(shape[*dim]))
    shape[*dim] = std::max<int64_t>(shape[*dim] - *n, 0);
  else if (*n > 0)
    return h.unknown();
  return h.result(shape, listElementType(parts, call.getContext()));
}

LogicalResult stack(const BoundCall &call, RuleHelper &h) {
  SmallVector<RankedTensorType> ts = tensorList(call, "tensors");
  std::optional<int64_t> d = call.getInt("dim");
  if (ts.empty() || !d)
    return h.unknown();
  for (RankedTensorType t : ts)
    if (t.getShape() != ts[0].getShape())
      return call.emitError() << "stack expects tensors of one shape, got "
                              << ts[0] << " and " << t;
  FailureOr<int64_t> n = h.dim(*d, ts[0].getRank() + 1);
  if (failed(n))
    return failure();
  SmallVector<int64_t> out(ts[0].getShape());
  out.insert(out.begin() + *n, ts.size());
  return h.result(out, listElementType(ts, call.getContext()));
}

LogicalResult chunk(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> chunks = call.getInt("chunks"), d = call.getInt("dim");
  if (!input || !chunks || !d)
    return h.unknown();
  if (*chunks < 1)
    return call.emitError() << "chunks must be positive, got " << *chunks;
  FailureOr<int64_t> n = h.dim(*d, input.getRank());
  if (failed(n))
    return failure();
  int64_t size = input.getDimSize(*n);
  if (ShapedType::isDynamic(size))
    return h.unknown();
  int64_t step = (size + *chunks - 1) / *chunks;
  SmallVector<Type> pieces;
  for (int64_t begin = 0; begin < size || (size == 0 && pieces.empty());
       begin += std::max<int64_t>(step, 1))
    pieces.push_back(withDimSize(input, *n, std::min(step, size - begin)));
  return h.result(TupleType::get(call.getContext(), pieces));
}

/// torch.tensor_split: a tuple of the input's slices along `dim`
/// (tensorSplitPieces).
LogicalResult tensorSplit(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> d = call.getInt("dim");
  if (!input || !d)
    return h.unknown();
  std::optional<int64_t> n =
      h.dimArg(input, "dim",
               "tensor_split expected at least a 1-dimensional tensor, but got "
               "a tensor with 0 dims");
  if (!n)
    return h.stop();
  std::optional<int64_t> sections;
  std::optional<SmallVector<int64_t>> indices;
  bool given = false;
  for (StringRef name : {"indices_or_sections", "sections", "indices", "tensor_indices_or_sections"}) {
    if (call.isNone(name))
      continue;
    if (given)
      return call.emitError() << "expects one of indices_or_sections, sections, indices";
    given = true;
    if (isa_and_nonnull<TensorType>(call.getType(name)))
      return call.emitError()
             << "takes its sections or indices as ints (or a tensor made "
                "from constants), not a traced tensor: its values would "
                "decide the number and sizes of the results";
    if (name != "indices")
      sections = call.getInt(name);
    if (!sections)
      indices = call.getInts(name);
    if (!sections && !indices)
      return h.unknown();
  }
  if (!given)
    return call.emitError() << "expects sections or indices";
  int64_t size = input.getDimSize(*n);
  if (ShapedType::isDynamic(size))
    return h.unknown();
  std::string error;
  auto pieces = tensorSplitPieces(size, sections, indices ? ArrayRef<int64_t>(*indices)
                                                          : ArrayRef<int64_t>(), error);
  if (failed(pieces))
    return call.emitError() << error;
  SmallVector<Type> types;
  for (auto [begin, end] : *pieces)
    types.push_back(withDimSize(input, *n, end - begin));
  return h.result(TupleType::get(call.getContext(), types));
}

/// hsplit, vsplit, dsplit: tensor_split along dim 1 (0 for a vector), 0
/// or 2, whose size a number of sections must divide.
LogicalResult directionalSplit(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  StringRef target = call.getTarget();
  StringRef name = target.contains("hsplit")   ? "hsplit"
                   : target.contains("vsplit") ? "vsplit"
                                               : "dsplit";
  int64_t minRank = name == "hsplit" ? 1 : name == "vsplit" ? 2 : 3;
  if (input.getRank() < minRank)
    return call.emitError()
           << "torch." << name << " requires a tensor with at least "
           << minRank << " dimension" << (minRank > 1 ? "" : "")
           << ", but got a tensor with " << input.getRank() << " dimensions!";
  int64_t dim = name == "hsplit" ? (input.getRank() > 1 ? 1 : 0)
                : name == "vsplit" ? 0
                                   : 2;
  if (isa_and_nonnull<TensorType>(call.getType("indices_or_sections")))
    return call.emitError() << "takes its sections or indices as ints here, "
                               "not a tensor";
  std::optional<int64_t> sections = call.getInt("indices_or_sections");
  std::optional<SmallVector<int64_t>> indices;
  if (!sections && !(indices = call.getInts("indices_or_sections")))
    return h.unknown();
  int64_t size = input.getDimSize(dim);
  if (ShapedType::isDynamic(size))
    return h.unknown();
  if (sections && (*sections == 0 || size % *sections))
    return call.emitError()
           << "torch." << name << " attempted to split along dimension "
           << dim << ", but the size of the dimension " << size
           << " is not divisible by the split_size " << *sections << "!";
  std::string error;
  auto pieces = tensorSplitPieces(
      size, sections, indices ? ArrayRef<int64_t>(*indices) : ArrayRef<int64_t>(),
      error);
  if (failed(pieces))
    return call.emitError() << error;
  SmallVector<Type> types;
  for (auto [begin, end] : *pieces)
    types.push_back(withDimSize(input, dim, end - begin));
  return h.result(TupleType::get(call.getContext(), types));
}

/// fftshift and ifftshift: the input's type, when it has dims to roll.
LogicalResult fftShift(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  if (!in)
    return h.unknown();
  std::optional<SmallVector<int64_t>> dims;
  if (!call.isNone("dim")) {
    if (!(dims = call.getInts("dim")))
      return h.unknown();
    for (int64_t d : *dims)
      if (failed(h.dim(d, in.getRank())))
        return failure();
  }
  if (dims ? dims->empty() : in.getRank() == 0)
    return call.emitError() << "`shifts` required";
  return h.result(in);
}

/// diagflat: diag of the flattened input.
LogicalResult diagflat(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  std::optional<int64_t> k = call.getInt("offset");
  if (!in || !k)
    return h.unknown();
  int64_t n = in.hasStaticShape() ? in.getNumElements() + std::abs(*k)
                                  : ShapedType::kDynamic;
  return h.result({n, n}, in.getElementType());
}

/// Tensor.sum_to_size: the input summed (keepdim) over its leading dims
/// and the dims `size` has as 1, viewed as `size`; a sum's dtype (integers
/// and bool as int64) unless nothing is summed.
LogicalResult sumToSize(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  std::optional<SmallVector<int64_t>> size = call.getInts("size");
  if (!in || !size || !in.hasStaticShape())
    return h.unknown();
  ArrayRef<int64_t> shape = in.getShape();
  int64_t lead = in.getRank() - static_cast<int64_t>(size->size());
  bool expandable = lead >= 0;
  // (An empty size is torch's sum() of everything, even of a 0-d input.)
  bool reduces = lead > 0 || size->empty();
  for (int64_t i = 0; expandable && i < static_cast<int64_t>(size->size()); ++i) {
    int64_t s = (*size)[i], d = shape[lead + i];
    if (s != d && s != 1)
      expandable = false;
    if (s == 1 && d != 1)
      reduces = true;
  }
  if (!expandable)
    return call.emitError() << "size {" << shapeStr(*size).substr(0)
                            << "} is not expandable to size {"
                            << shapeStr(shape) << "}.";
  Type e = in.getElementType();
  if (reduces && isa<IntegerType>(e))
    e = IntegerType::get(call.getContext(), 64);
  return h.result(*size, e);
}

/// The size of `x[start:stop:step]` along a dimension of size `size`.
static int64_t sliceSize(int64_t size, std::optional<int64_t> start,
                         std::optional<int64_t> stop, int64_t step) {
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  int64_t b = start ? clamp(*start) : 0, e = stop ? clamp(*stop) : size;
  return e <= b ? 0 : (e - b + step - 1) / step;
}

LogicalResult getitem(const BoundCall &call, RuleHelper &h) {
  Type container = call.getType("input");
  const BoundCall::Arg &index = call.get("index");
  if (auto tuple = dyn_cast<TupleType>(container)) {
    auto i = dyn_cast_or_null<IntegerAttr>(index.value);
    if (!i)
      return h.unknown();
    int64_t n = i.getInt() < 0 ? i.getInt() + tuple.size() : i.getInt();
    if (n < 0 || n >= static_cast<int64_t>(tuple.size()))
      return call.emitError()
             << "index " << i.getInt() << " is out of range for " << tuple;
    return h.result(tuple.getType(n));
  }
  if (auto list = dyn_cast<ListType>(container)) {
    if (index.type.isInteger(64))
      return h.result(list.getElementType());
    return h.unknown();
  }
  auto input = dyn_cast<RankedTensorType>(container);
  if (!input || !index.slot)
    return h.unknown();
  // Basic indexing: ints, slices, None and one Ellipsis; traced ints as
  // indices and slice bounds (sizes as values) give `?` where they reach.
  SmallVector<Attribute> items;
  SmallVector<Type> itemTypes;
  if (auto t = dyn_cast<TupleAttr>(index.slot)) {
    llvm::append_range(items, t.getElements().getValue());
    itemTypes = index.elements;
  } else if (isa<ArrayAttr>(index.slot)) {
    return h.unknown(); // advanced indexing
  } else {
    items.push_back(index.slot);
    itemTypes.push_back(index.type);
  }
  if (itemTypes.size() != items.size())
    return h.unknown();
  auto tracedInt = [&](size_t k) {
    return isa<OperandAttr>(items[k]) && itemTypes[k] &&
           itemTypes[k].isInteger(64);
  };
  int64_t consumed = 0;
  for (auto [k, a] : llvm::enumerate(items)) {
    if ((isa<IntegerAttr, SliceAttr>(a) && !isa<BoolAttr>(a)) || tracedInt(k))
      ++consumed;
    else if (isa<OperandAttr>(a))
      return h.unknown(); // a tensor index: advanced indexing
  }
  int64_t rank = input.getRank();
  if (consumed > rank)
    return call.emitError() << "too many indices for " << input;
  SmallVector<int64_t> out;
  int64_t dim = 0;
  for (auto [k, item] : llvm::enumerate(items)) {
    if (tracedInt(k)) {
      ++dim; // checked against the dim's size at run time
    } else if (isa<NoneAttr>(item)) {
      out.push_back(1);
    } else if (isa<EllipsisAttr>(item)) {
      for (int64_t k = 0; k < rank - consumed; ++k)
        out.push_back(input.getDimSize(dim++));
    } else if (auto i = dyn_cast<IntegerAttr>(item);
               i && !isa<BoolAttr>(item)) {
      int64_t size = input.getDimSize(dim);
      if (!ShapedType::isDynamic(size) &&
          (i.getInt() >= size || i.getInt() < -size))
        return call.emitError()
               << "index " << i.getInt() << " is out of range for dimension "
               << dim << " of size " << size;
      ++dim;
    } else if (auto s = dyn_cast<SliceAttr>(item)) {
      auto asInt = [](Attribute a) -> std::optional<int64_t> {
        if (auto i = dyn_cast<IntegerAttr>(a))
          return i.getInt();
        return std::nullopt;
      };
      int64_t size = input.getDimSize(dim++);
      std::optional<int64_t> step = asInt(s.getStep());
      bool traced = isa<OperandAttr>(s.getStart()) ||
                    isa<OperandAttr>(s.getStop()) ||
                    isa<OperandAttr>(s.getStep());
      if (!isa<NoneAttr, OperandAttr>(s.getStep()) && (!step || *step < 1))
        return call.emitError() << "slice step must be a positive int";
      if (ShapedType::isDynamic(size) || traced) {
        out.push_back(kDynamic);
        continue;
      }
      out.push_back(sliceSize(size, asInt(s.getStart()), asInt(s.getStop()),
                              step.value_or(1)));
    } else {
      return h.unknown();
    }
  }
  for (; dim < rank; ++dim)
    out.push_back(input.getDimSize(dim));
  return h.result(out, input.getElementType());
}

LogicalResult size(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  Builder b(call.getContext());
  if (!call.isNone("dim")) {
    if (std::optional<int64_t> d = call.getInt("dim"); d && input)
      if (failed(h.dim(*d, input.getRank())))
        return failure();
    return h.result(b.getI64Type());
  }
  if (!input)
    return h.unknown();
  return h.result(TupleType::get(
      call.getContext(), SmallVector<Type>(input.getRank(), b.getI64Type())));
}

/// The ATen conversions to Python numbers: Float is a float (f64), Int an
/// int (i64), Bool a bool (i1); ScalarImplicit the number of a 0-d tensor's
/// own kind. A tensor argument must hold one element (ScalarImplicit: be
/// 0-d), as torch checks.
LogicalResult pythonNumber(const BoundCall &call, RuleHelper &h) {
  MLIRContext *ctx = call.getContext();
  StringRef target = call.getTarget();
  Type type = call.getType("a");
  RankedTensorType tensor = call.getTensor("a");
  if (target.starts_with("torch.ops.aten.ScalarImplicit")) {
    if (!tensor)
      return success();
    if (tensor.getRank() != 0)
      return call.emitError() << "Cannot input a tensor of dimension other "
                                 "than 0 as a scalar argument";
    Type e = tensor.getElementType();
    h.results.push_back(isa<FloatType>(e)     ? Type(Float64Type::get(ctx))
                      : e.isInteger(1)      ? Type(IntegerType::get(ctx, 1))
                                            : Type(IntegerType::get(ctx, 64)));
    return success();
  }
  if (tensor && tensor.hasStaticShape() && tensor.getNumElements() != 1) {
    if (target == "torch.ops.aten.Bool")
      return call.emitError() << "Boolean value of Tensor with "
                              << (tensor.getNumElements() ? "more than one "
                                                            "value"
                                                          : "no values")
                              << " is ambiguous";
    return call.emitError() << "a Tensor with " << tensor.getNumElements()
                            << " elements cannot be converted to Scalar";
  }
  if (!tensor && type && !type.isInteger(64) && !type.isInteger(1) &&
      !type.isF64())
    return call.emitError() << "expects a tensor or a Python number, got "
                            << type;
  h.results.push_back(target == "torch.ops.aten.Float"
                        ? Type(Float64Type::get(ctx))
                    : target == "torch.ops.aten.Bool"
                        ? Type(IntegerType::get(ctx, 1))
                        : Type(IntegerType::get(ctx, 64)));
  return success();
}

/// prim::min and prim::max of two Python numbers: a float when either is
/// one, else an int (bools count as ints, as TorchScript's overloads do).
LogicalResult primExtreme(const BoundCall &call, RuleHelper &h) {
  MLIRContext *ctx = call.getContext();
  Type a = call.getType("a"), b = call.getType("b");
  bool isFloat = (a && a.isF64()) || (b && b.isF64());
  h.results.push_back(isFloat ? Type(Float64Type::get(ctx))
                            : Type(IntegerType::get(ctx, 64)));
  return success();
}

/// math.ceil, math.floor and math.trunc of a Python number: an int.
LogicalResult pythonRounding(const BoundCall &call, RuleHelper &h) {
  Type x = call.getType("x");
  if (x && !x.isF64() && !x.isInteger(64) && !x.isInteger(1))
    return call.emitError() << call.getTarget()
                            << " takes a Python number, got " << x;
  h.results.push_back(IntegerType::get(call.getContext(), 64));
  return success();
}

LogicalResult dim(const BoundCall &call, RuleHelper &h) {
  h.results.push_back(IntegerType::get(call.getContext(), 64));
  return success();
}

LogicalResult getattr(const BoundCall &call, RuleHelper &h) {
  auto name = dyn_cast_or_null<StringAttr>(call.get("name").value);
  RankedTensorType input = h.tensor("input");
  if (!name || !input)
    return h.unknown();
  Builder b(call.getContext());
  if (name.getValue() == "shape")
    return h.result(TupleType::get(
        call.getContext(), SmallVector<Type>(input.getRank(), b.getI64Type())));
  if (name.getValue() == "ndim")
    return h.result(b.getI64Type());
  // Tensor-valued properties: transposes (real dtypes: H is T) and views.
  StringRef n = name.getValue();
  if (n == "data" || n == "real")
    return h.result(input);
  if (n == "T" || n == "H") {
    SmallVector<int64_t> shape(llvm::reverse(input.getShape()));
    return h.result(shape, input.getElementType());
  }
  if (n == "mT" || n == "mH") {
    // (torch 1.13 takes a 0-d tensor as it is, and refuses a vector.)
    if (input.getRank() == 0)
      return h.result(input);
    if (input.getRank() < 2)
      return call.emitError() << "tensor." << n
                              << " is only supported on matrices or batches "
                                 "of matrices, got a tensor of rank "
                              << input.getRank();
    SmallVector<int64_t> shape(input.getShape());
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    return h.result(shape, input.getElementType());
  }
  return h.unknown();
}

LogicalResult none(const BoundCall &call, RuleHelper &h) {
  h.results.push_back(NoneType::get(call.getContext()));
  return success();
}

/// The dims of a rank-`rank` result that dim1 and dim2 name (diag_embed),
/// or the error.
static FailureOr<std::pair<int64_t, int64_t>>
distinctDims(const BoundCall &call, RuleHelper &h, int64_t d1, int64_t d2,
             int64_t rank) {
  FailureOr<int64_t> a = h.dim(d1, rank, "dim1"), b = h.dim(d2, rank, "dim2");
  if (failed(a) || failed(b))
    return failure();
  if (*a == *b)
    return call.emitError() << "diagonal dimensions cannot be identical "
                            << d1 << ", " << d2;
  return std::make_pair(*a, *b);
}

/// diag_embed: the last dim becomes a diagonal of the plane (dim1, dim2).
LogicalResult diagEmbed(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> offset = call.getInt("offset"),
                         d1 = call.getInt("dim1"), d2 = call.getInt("dim2");
  if (!input || !offset || !d1 || !d2)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "expects a tensor of at least one dimension";
  int64_t rank = input.getRank() + 1;
  auto dims = distinctDims(call, h, *d1, *d2, rank);
  if (failed(dims))
    return failure();
  int64_t last = input.getShape().back();
  int64_t n = ShapedType::isDynamic(last) ? last : last + std::abs(*offset);
  SmallVector<int64_t> shape(input.getShape().drop_back());
  auto [lo, hi] = std::minmax(dims->first, dims->second);
  shape.insert(shape.begin() + lo, n);
  shape.insert(shape.begin() + hi, n);
  return h.result(shape, input.getElementType());
}

/// rot90: dims swap sizes for odd turns.
LogicalResult rot90(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> k = call.getInt("k");
  std::optional<SmallVector<int64_t>> dims = call.getInts("dims");
  if (!input || !k || !dims)
    return h.unknown();
  if (dims->size() != 2)
    return call.emitError() << "expected total rotation dims == 2, but got "
                            << dims->size();
  if (input.getRank() < 2)
    return call.emitError() << "expected total dims >= 2, but got "
                            << input.getRank();
  FailureOr<int64_t> a = h.dim((*dims)[0], input.getRank()),
                     b = h.dim((*dims)[1], input.getRank());
  if (failed(a) || failed(b))
    return failure();
  if (*a == *b)
    return call.emitError() << "expected rotation dims to be different";
  SmallVector<int64_t> shape(input.getShape());
  if (((*k % 4) + 4) % 2 == 1)
    std::swap(shape[*a], shape[*b]);
  return h.result(shape, input.getElementType());
}

/// Tensor.unfold: windows along `dimension` as a new last dim.
LogicalResult unfoldWindows(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> d = call.getInt("dimension"), size = call.getInt("size"),
                         step = call.getInt("step");
  if (!input || !d || !size || !step)
    return h.unknown();
  if (*step <= 0)
    return call.emitError() << "step is " << *step << " but must be > 0";
  SmallVector<int64_t> shape(input.getShape());
  if (shape.empty())
    shape.push_back(1);
  FailureOr<int64_t> n = h.dim(*d, shape.size(), "dimension");
  if (failed(n))
    return failure();
  if (!ShapedType::isDynamic(shape[*n])) {
    if (*size < 0 || *size > shape[*n])
      return call.emitError() << "maximum size for tensor at dimension " << *n
                              << " is " << shape[*n] << " but size is "
                              << *size;
    shape[*n] = (shape[*n] - *size) / *step + 1;
  }
  shape.push_back(*size);
  if (input.getRank() == 0)
    shape.erase(shape.begin());
  return h.result(shape, input.getElementType());
}

/// is_floating_point: a Python bool.
LogicalResult isFloatingPoint(const BoundCall &call, RuleHelper &h) {
  return h.result(Builder(call.getContext()).getI1Type());
}

/// broadcast_tensors: each tensor at the common broadcast shape.
LogicalResult broadcastTensors(const BoundCall &call, RuleHelper &h) {
  SmallVector<RankedTensorType> ts = tensorList(call, "tensors");
  if (ts.empty())
    return h.unknown();
  SmallVector<int64_t> shape;
  for (RankedTensorType t : ts) {
    FailureOr<SmallVector<int64_t>> s = broadcastShapes(call, shape, t.getShape());
    if (failed(s))
      return failure();
    shape = *s;
  }
  SmallVector<Type> out;
  for (RankedTensorType t : ts)
    out.push_back(RankedTensorType::get(shape, t.getElementType()));
  return h.result(TupleType::get(call.getContext(), out));
}

/// aten::copy (x.copy_(src)): src broadcast to the input's shape, in its
/// dtype.
LogicalResult copyInto(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), src = h.tensor("src");
  if (!input || !src)
    return h.unknown();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, input.getShape(), src.getShape());
  if (failed(shape))
    return failure();
  if (input.hasStaticShape() && ArrayRef<int64_t>(*shape) != input.getShape())
    return call.emitError() << "cannot broadcast " << src << " to " << input;
  return h.result(input);
}

/// aten::slice: one dim sliced as Python does.
LogicalResult atenSlice(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "slice() cannot be applied to a 0-dim tensor";
  std::optional<SmallVector<int64_t>> shape = h.slicedShape(input);
  if (!shape)
    return h.stop();
  return h.result(*shape, input.getElementType());
}

/// as_strided: `size` elements of the input's (contiguous) storage.
LogicalResult asStrided(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> size = call.getInts("size"),
                                      stride = call.getInts("stride");
  if (!input || !size || !stride)
    return h.unknown();
  if (size->size() != stride->size())
    return call.emitError() << "mismatch in length of strides and shape";
  for (auto [n, st] : llvm::zip(*size, *stride))
    if (n < 0 || st < 0)
      return call.emitError() << "sizes and strides must be non-negative";
  return h.result(*size, input.getElementType());
}

/// The floats of a Python number or list of numbers (none: `value` null).
static std::optional<SmallVector<double>> pyFloats(Attribute value) {
  if (std::optional<double> one = getPyFloat(value))
    return SmallVector<double>{*one};
  ArrayRef<Attribute> items;
  if (auto list = dyn_cast_or_null<ArrayAttr>(value))
    items = list.getValue();
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(value))
    items = tuple.getElements().getValue();
  else
    return std::nullopt;
  SmallVector<double> out;
  for (Attribute a : items) {
    std::optional<double> v = getPyFloat(a);
    if (!v)
      return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

/// torch.gradient: one tensor of the input's shape per dim (floating:
/// integers as float32), for a spacing of numbers (coordinates are not
/// supported here).
LogicalResult gradient(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  std::optional<int64_t> edge = call.getInt("edge_order");
  if (!in || !edge)
    return h.unknown();
  Type e = in.getElementType();
  if (e.isInteger(1))
    return call.emitError() << "Subtraction, the `-` operator, with two bool "
                               "tensors is not supported. Use the `^` or "
                               "`logical_xor()` operator instead.";
  if (e.isUnsignedInteger(8))
    return call.emitError() << "torch.gradient does not support uint8 input.";
  SmallVector<double> spacing;
  if (!call.isNone("spacing")) {
    if (!call.get("spacing").elements.empty() &&
        llvm::any_of(call.get("spacing").elements,
                     [](Type t) { return isa_and_nonnull<TensorType>(t); }))
      return call.emitError() << "torch.gradient: a spacing of coordinate "
                                 "tensors is not supported here";
    std::optional<SmallVector<double>> given = pyFloats(call.get("spacing").value);
    if (!given)
      return h.unknown();
    spacing = *given;
  }
  std::optional<SmallVector<int64_t>> dims;
  if (!call.isNone("dim") && !(dims = call.getInts("dim")))
    return h.unknown();
  std::string error;
  auto plan = gradientDims(in.getShape(),
                           dims ? std::optional<ArrayRef<int64_t>>(*dims) : std::nullopt,
                           spacing, *edge, error);
  if (failed(plan))
    return call.emitError() << error;
  if (!isa<FloatType>(e))
    e = Float32Type::get(call.getContext());
  SmallVector<Type> types(plan->first.size(), RankedTensorType::get(in.getShape(), e));
  return h.result(TupleType::get(call.getContext(), types));
}

/// block_diag: the tensors (0-d as [1, 1], 1-D as a row) along the
/// diagonal of one matrix in their promoted dtype; none gives [1, 0].
LogicalResult blockDiag(const BoundCall &call, RuleHelper &h) {
  SmallVector<RankedTensorType> ts = tensorList(call, "tensors");
  if (ts.empty() && !call.get("tensors").elements.empty())
    return h.unknown();
  int64_t rows = 0, cols = 0;
  SmallVector<Type> types;
  for (auto [i, t] : llvm::enumerate(ts)) {
    if (t.getRank() > 2)
      return call.emitError() << "torch.block_diag: Input tensors must have 2 "
                                 "or fewer dimensions. Input "
                              << i << " has " << t.getRank() << " dimensions";
    rows += t.getRank() == 2 ? t.getDimSize(0) : 1;
    cols += t.getRank() == 0 ? 1 : t.getShape().back();
    types.push_back(t);
  }
  if (ts.empty())
    return h.result({1, 0}, Float32Type::get(call.getContext()));
  if (!llvm::all_of(ts, [](RankedTensorType t) { return t.hasStaticShape(); }))
    return h.unknown();
  return h.result({rows, cols}, resultElementType(types, call.getContext()));
}

/// cartesian_prod: one vector as it is; else [prod(lengths), count] of
/// vectors of one dtype.
LogicalResult cartesianProd(const BoundCall &call, RuleHelper &h) {
  SmallVector<RankedTensorType> ts = tensorList(call, "tensors");
  if (ts.empty())
    return call.get("tensors").elements.empty()
               ? LogicalResult(call.emitError()
                               << "cartesian_prod expects at least one tensor")
               : h.unknown();
  int64_t rows = 1;
  for (RankedTensorType t : ts) {
    if (t.getRank() != 1)
      return call.emitError() << "Expect a 1D vector, but got shape "
                              << shapeStr(t.getShape());
    if (t.getElementType() != ts[0].getElementType())
      return call.emitError()
             << "meshgrid expects all tensors to have the same dtype";
    rows = mulDims(rows, t.getDimSize(0));
  }
  if (ts.size() == 1)
    return h.result(ts[0]);
  return h.result({rows, static_cast<int64_t>(ts.size())},
                  ts[0].getElementType());
}

/// The number of r-combinations of n elements (with replacement: of the
/// multiset).
static int64_t combinationCount(int64_t n, int64_t r, bool replacement) {
  if (replacement)
    n = n + r - 1;
  if (r > n)
    return 0;
  int64_t c = 1;
  for (int64_t i = 1; i <= r; ++i)
    c = c * (n - r + i) / i;
  return c;
}

/// combinations: [count, r] of a vector's elements (r = 0: an empty
/// vector).
LogicalResult combinations(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input");
  std::optional<int64_t> r = call.getInt("r");
  std::optional<bool> replacement = call.getBool("with_replacement");
  if (!in || !r || !replacement)
    return h.unknown();
  if (in.getRank() != 1)
    return call.emitError() << "Expect a 1D vector, but got shape "
                            << shapeStr(in.getShape());
  if (*r < 0)
    return call.emitError() << "Expect a non-negative number, but got " << *r;
  if (*r == 0)
    return h.result({0}, in.getElementType());
  if (in.isDynamicDim(0))
    return h.unknown();
  return h.result({combinationCount(in.getDimSize(0), *r, *replacement), *r},
                  in.getElementType());
}

/// diagonal_scatter: the input, whose diagonal src (of the diagonal's
/// shape) replaces.
LogicalResult diagonalScatter(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input"), src = h.tensor("src");
  std::optional<int64_t> off = call.getInt("offset"), d1 = call.getInt("dim1"),
                         d2 = call.getInt("dim2");
  if (!in || !src || !off || !d1 || !d2)
    return h.unknown();
  if (in.getRank() < 2)
    return call.emitError() << "diagonal() expects a tensor of rank >= 2";
  FailureOr<SmallVector<int64_t>> shape = diagonalShape(call, in, *off, *d1, *d2);
  if (failed(shape))
    return failure();
  if (in.hasStaticShape() && src.hasStaticShape() &&
      ArrayRef<int64_t>(*shape) != src.getShape())
    return call.emitError()
           << "expected src to have a size equal to the slice of self. src "
              "size = "
           << shapeStr(src.getShape()) << ", slice size = " << shapeStr(*shape);
  return h.result(in);
}

/// as_strided_scatter: the input, whose as_strided(size, stride,
/// storage_offset) view src (of that size) replaces.
LogicalResult asStridedScatter(const BoundCall &call, RuleHelper &h) {
  RankedTensorType in = h.tensor("input"), src = h.tensor("src");
  std::optional<SmallVector<int64_t>> size = call.getInts("size"),
                                      stride = call.getInts("stride");
  if (!in || !src || !size || !stride || !in.hasStaticShape())
    return h.unknown();
  if (size->size() != stride->size())
    return call.emitError() << "mismatch in length of strides and shape";
  int64_t offset = call.isNone("storage_offset")
                       ? 0
                       : call.getInt("storage_offset").value_or(0);
  int64_t last = offset;
  for (auto [n, st] : llvm::zip(*size, *stride)) {
    if (n < 0 || st < 0)
      return call.emitError() << "sizes and strides must be non-negative";
    if (n == 0)
      last = -1;
    if (last >= 0)
      last += (n - 1) * st;
  }
  if (last >= in.getNumElements())
    return call.emitError() << "setStorage: sizes " << shapeStr(*size)
                            << ", strides " << shapeStr(*stride)
                            << " and storage offset " << offset
                            << " reach past the input's "
                            << in.getNumElements() << " elements";
  if (src.hasStaticShape() && src.getShape() != ArrayRef<int64_t>(*size))
    return call.emitError() << "expected src to have a size equal to the "
                               "slice of self. src size = "
                            << shapeStr(src.getShape())
                            << ", slice size = " << shapeStr(*size);
  return h.result(in);
}

} // namespace mlir::traced::rules

using namespace mlir::traced::rules;

FailureOr<SmallVector<int64_t>>
traced::movedimPermutation(ArrayRef<int64_t> source,
                           ArrayRef<int64_t> destination, int64_t rank,
                           std::string &error) {
  if (source.size() != destination.size()) {
    error = "source and destination must have the same number of dims";
    return failure();
  }
  int64_t dims = std::max<int64_t>(rank, 1);
  SmallVector<int64_t> perm(rank, -1);
  SmallVector<bool> used(rank, false);
  for (auto [s, t] : llvm::zip(source, destination)) {
    int64_t a = s < 0 ? s + dims : s, b = t < 0 ? t + dims : t;
    if (a < 0 || a >= dims || b < 0 || b >= dims) {
      error = "dim " + std::to_string(a < 0 || a >= dims ? s : t) +
              " is out of range for a tensor of rank " + std::to_string(dims);
      return failure();
    }
    if (rank == 0)
      continue;
    if (perm[b] != -1 || used[a]) {
      error = "repeated dim";
      return failure();
    }
    perm[b] = a;
    used[a] = true;
  }
  int64_t next = 0;
  for (int64_t &p : perm) {
    if (p != -1)
      continue;
    while (used[next])
      ++next;
    p = next;
    used[next] = true;
  }
  return perm;
}
