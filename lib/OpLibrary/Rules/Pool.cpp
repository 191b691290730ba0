//===- Pool.cpp - result rules of pooling and windows --------------------===//
//
// The op table (OpTable.cpp) names these rules; Common.h holds what
// several families share.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

namespace mlir::traced::rules {

/// aten::upsample_nearest{1,2,3}d: (N, C, output_size...), sizes positive.
LogicalResult upsampleNearest(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> size = getPyInts(call.get("output_size").value);
  if (!input || !size)
    return h.unknown();
  int64_t spatial = call.getTarget().contains("1d")   ? 1
                    : call.getTarget().contains("2d") ? 2
                                                      : 3;
  if (input.getRank() != spatial + 2)
    return call.emitError() << "expects a " << spatial + 2 << "-D input, got "
                            << input;
  if (static_cast<int64_t>(size->size()) != spatial)
    return call.emitError() << "expects output_size of " << spatial
                            << " elements";
  for (int64_t d = 0; d < spatial; ++d)
    if ((*size)[d] <= 0 || input.getDimSize(d + 2) == 0)
      return call.emitError()
             << "input and output sizes should be greater than 0, got input "
             << input << " and output_size " << shapeStr(*size);
  SmallVector<int64_t> shape(input.getShape().take_front(2));
  llvm::append_range(shape, *size);
  return h.result(shape, input.getElementType());
}

/// aten::upsample_nearest{1,2,3}d_backward: a tensor of input_size in
/// grad_output's dtype (float32, float64, bfloat16), after torch's checks:
/// input_size of rank + 2 sizes, grad_output of the forward's output shape.
LogicalResult upsampleNearestBackward(const BoundCall &call, RuleHelper &h) {
  RankedTensorType grad = h.tensor("grad_output");
  std::optional<SmallVector<int64_t>> out = getPyInts(call.get("output_size").value),
                                      in = getPyInts(call.get("input_size").value);
  if (!grad || !out || !in)
    return h.unknown();
  int64_t spatial = call.getTarget().contains("1d")   ? 1
                    : call.getTarget().contains("2d") ? 2
                                                      : 3;
  if (static_cast<int64_t>(in->size()) != spatial + 2)
    return call.emitError() << "It is expected input_size equals to "
                            << spatial + 2 << ", but got size " << in->size();
  if (static_cast<int64_t>(out->size()) != spatial)
    return call.emitError() << "It is expected output_size equals to "
                            << spatial << ", but got size " << out->size();
  for (int64_t d = 0; d < spatial; ++d)
    if ((*in)[d + 2] <= 0 || (*out)[d] <= 0)
      return call.emitError() << "Input and output sizes should be greater "
                                 "than 0, but got input "
                              << shapeStr(*in) << " and output_size "
                              << shapeStr(*out);
  SmallVector<int64_t> expected(ArrayRef<int64_t>(*in).take_front(2));
  llvm::append_range(expected, *out);
  if (grad.getRank() != spatial + 2)
    return call.emitError() << "expects a " << spatial + 2
                            << "-D grad_output, got " << grad;
  for (int64_t d = 0; d < spatial + 2; ++d)
    if (dimsDiffer(grad.getDimSize(d), expected[d]))
      return call.emitError()
             << "Expected grad_output to have the same shape as output; "
                "output.size("
             << d << ") = " << expected[d] << " but got grad_output.size(" << d
             << ") = " << grad.getDimSize(d);
  Type et = grad.getElementType();
  if (!et.isF32() && !et.isF64() && !et.isBF16())
    return call.emitError() << "has no CPU kernel in " << et;
  return h.result(*in, et);
}

LogicalResult interpolate(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1 || spatial > 3)
    return call.emitError() << "expects a 3-D, 4-D or 5-D input, got "
                            << input;
  // torch 1.13's CPU kernels: nearest also takes uint8, nearest-exact no
  // bfloat16, the linear modes floats but float16.
  Attribute modeAttr = call.get("mode").value;
  StringRef mode = isa_and_nonnull<StringAttr>(modeAttr)
                       ? cast<StringAttr>(modeAttr).getValue()
                       : StringRef();
  if (std::optional<DType> d = dtypeFromType(input.getElementType())) {
    bool ok = *d == DType::F32 || *d == DType::F64 ||
              (*d == DType::BF16 && mode != "nearest-exact") ||
              (*d == DType::U8 && mode.starts_with("nearest"));
    if (!ok)
      return call.emitError() << "mode \"" << mode << "\" on "
                              << dtypeName(*d)
                              << " is not supported: torch 1.13 has no CPU "
                                 "kernel for it";
  }
  SmallVector<int64_t> shape(input.getShape());
  if (!call.isNone("size")) {
    std::optional<SmallVector<int64_t>> size = call.getInts("size", spatial);
    if (!size)
      return h.unknown();
    if (static_cast<int64_t>(size->size()) != spatial)
      return call.emitError() << "'size' must have " << spatial
                              << " elements";
    for (int64_t d = 0; d < spatial; ++d)
      shape[d + 2] = (*size)[d];
    return h.result(shape, input.getElementType());
  }
  SmallVector<double> factors;
  Attribute sf = call.get("scale_factor").value;
  if (std::optional<double> f = call.getFloat("scale_factor"))
    factors.assign(spatial, *f);
  else if (auto list = dyn_cast_or_null<ArrayAttr>(sf))
    for (Attribute a : list) {
      if (auto f = dyn_cast<FloatAttr>(a))
        factors.push_back(f.getValueAsDouble());
      else if (auto i = dyn_cast<IntegerAttr>(a))
        factors.push_back(static_cast<double>(i.getInt()));
    }
  if (static_cast<int64_t>(factors.size()) != spatial)
    return h.unknown();
  for (int64_t d = 0; d < spatial; ++d)
    if (!ShapedType::isDynamic(shape[d + 2]))
      shape[d + 2] =
          static_cast<int64_t>(std::floor(shape[d + 2] * factors[d]));
  return h.result(shape, input.getElementType());
}

/// Max unpooling (aten::max_unpool2d/3d, F.max_unpool1d/2d/3d): the
/// input's leading dims, then decodeUnpool's output size; int64 indices of
/// the input's shape; float32 and float64 (torch 1.13's CPU kernel).
LogicalResult maxUnpool(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), indices = h.tensor("indices");
  if (!input || !indices)
    return h.unknown();
  unsigned k = 0;
  SmallVector<int64_t> size;
  std::string error;
  ConvDecode status = withArgReader(call, [&](const ArgReader &reader) {
    return decodeUnpool(call.getSignature(), reader, input.getShape(), k, size,
                        error);
  });
  if (!h.decoded(status, error))
    return h.stop();
  if (!indices.getElementType().isSignlessInteger(64))
    return call.emitError() << "elements in indices should be type int64 but "
                               "got: "
                            << indices.getElementType();
  if (indices.getShape() != input.getShape())
    return call.emitError() << "Expected shape of indices to be same as that "
                               "of the input tensor ("
                            << input << ") but got indices tensor with shape: "
                            << indices;
  Type et = input.getElementType();
  if (!et.isF32() && !et.isF64())
    return call.emitError() << "has no CPU kernel for max unpooling in " << et;
  SmallVector<int64_t> shape(input.getShape().drop_back(k));
  shape.append(size.begin(), size.end());
  return h.result(shape, et);
}

namespace {
enum class PoolKind { Max, MaxWithIndices, Avg, Lp };
} // namespace

static LogicalResult poolNd(const BoundCall &call, RuleHelper &h,
                            unsigned spatial, PoolKind kind) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  std::optional<PoolParams> w = h.poolWindow(input, spatial);
  if (!w)
    return h.stop();
  bool withIndices =
      kind == PoolKind::MaxWithIndices ||
      (kind == PoolKind::Max && call.getBool("return_indices").value_or(false));
  if (kind == PoolKind::Avg && call.getSignature().lookup("divisor_override") &&
      !call.isNone("divisor_override") &&
      call.getInt("divisor_override") == 0)
    return call.emitError() << "divisor must be not zero";
  // max_pool1d without indices has its own kernel, which allows an empty
  // output.
  std::optional<SmallVector<int64_t>> out = h.pooledShape(
      input, *w,
      /*checkOutput=*/spatial != 1 || withIndices || kind != PoolKind::Max);
  if (!out)
    return h.stop();
  Type et = input.getElementType();
  if (kind == PoolKind::Lp && !isa<FloatType>(et)) {
    // x ** p stays integral for an int p (bool becomes int64), and
    // avg_pool's only integer kernel is int64's; the root makes it float.
    bool intExponent = isa_and_nonnull<IntegerAttr>(call.get("norm_type").value);
    if (intExponent && !et.isSignlessInteger(64) && !et.isInteger(1))
      return call.emitError() << "x ** norm_type is " << et
                              << ", which avg_pool has no kernel for";
    et = Float32Type::get(call.getContext());
  }
  Type output = RankedTensorType::get(*out, et);
  // With indices, Python gets one value: a tuple (output, indices).
  if (withIndices)
    return h.result(TupleType::get(
        call.getContext(),
        {output, RankedTensorType::get(
                     *out, IntegerType::get(call.getContext(), 64))}));
  return h.result(output);
}

static LogicalResult adaptivePoolNd(const BoundCall &call, RuleHelper &h,
                                    unsigned spatial, PoolKind kind) {
  RankedTensorType input = h.tensor("input");
  Attribute size = call.get("output_size").value;
  if (!input || !size)
    return h.unknown();
  if (failed(checkPoolInput(call, input, spatial)))
    return failure();
  SmallVector<Attribute> parts;
  if (auto list = dyn_cast<ArrayAttr>(size))
    llvm::append_range(parts, list.getValue());
  else if (auto tuple = dyn_cast<TupleAttr>(size))
    llvm::append_range(parts, tuple.getElements().getValue());
  else if (isa<IntegerAttr>(size))
    parts.assign(spatial, size);
  else
    return call.emitError() << "output_size must be an int or a tuple of "
                            << spatial << " ints or None";
  if (parts.size() != spatial)
    return call.emitError() << "output_size must have " << spatial
                            << " elements, got " << parts.size();
  SmallVector<int64_t> out(input.getShape());
  for (unsigned i = 0; i < spatial; ++i) {
    // None keeps the input's size.
    if (auto v = dyn_cast<IntegerAttr>(parts[i])) {
      if (v.getInt() < 0)
        return call.emitError() << "output_size must be non-negative, got "
                                << v.getInt();
      out[input.getRank() - spatial + i] = v.getInt();
    } else if (!isa<NoneAttr>(parts[i])) {
      return h.unknown();
    }
  }
  Type output = RankedTensorType::get(out, input.getElementType());
  if (kind == PoolKind::MaxWithIndices ||
      (kind == PoolKind::Max && call.getBool("return_indices").value_or(false)))
    return h.result(TupleType::get(
        call.getContext(),
        {output,
         RankedTensorType::get(out, IntegerType::get(call.getContext(), 64))}));
  return h.result(output);
}

// The pooling rules of Rules.def's TRACED_POOL_RULE.
#define TRACED_RULE(name)
#define TRACED_POOL_RULE(name, fn, N, kind)                                    \
  LogicalResult name(const BoundCall &call, RuleHelper &h) {                   \
    return fn(call, h, N, PoolKind::kind);                                     \
  }
#include "Rules.def"

/// grid_sample: (N, C, H, W) sampled at a grid (N, H_out, W_out, 2).
LogicalResult gridSample(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), grid = h.tensor("grid");
  if (!input || !grid)
    return h.unknown();
  if (input.getRank() != 4 || grid.getRank() != 4 || grid.getDimSize(3) != 2)
    return call.emitError() << "expects a 4-D input (N, C, H, W) and a grid "
                               "(N, H_out, W_out, 2), got "
                            << input << " and " << grid;
  if (input.getElementType() != grid.getElementType())
    return call.emitError() << "expects input and grid of one dtype, got "
                            << input << " and " << grid;
  return h.result({input.getDimSize(0), input.getDimSize(1),
                   grid.getDimSize(1), grid.getDimSize(2)},
                  input.getElementType());
}

/// affine_grid: (N, H, W, 2) or (N, D, H, W, 3) from `size`.
LogicalResult affineGrid(const BoundCall &call, RuleHelper &h) {
  RankedTensorType theta = h.tensor("theta");
  std::optional<SmallVector<int64_t>> size = call.getInts("size");
  if (!theta || !size)
    return h.unknown();
  int64_t spatial = static_cast<int64_t>(size->size()) - 2;
  if (spatial != 2 && spatial != 3)
    return call.emitError() << "affine_grid only supports 4D and 5D sizes";
  SmallVector<int64_t> shape = {(*size)[0]};
  shape.append(size->begin() + 2, size->end());
  shape.push_back(spatial);
  return h.result(shape, theta.getElementType());
}

/// The 2-D window of F.unfold / F.fold; nullopt when not constant.
static std::optional<std::array<SmallVector<int64_t>, 4>>
blockParams(const BoundCall &call) {
  std::array<SmallVector<int64_t>, 4> out;
  const char *names[] = {"kernel_size", "dilation", "padding", "stride"};
  for (int i = 0; i < 4; ++i) {
    std::optional<SmallVector<int64_t>> v = call.getInts(names[i], 2);
    if (!v || v->size() != 2)
      return std::nullopt;
    out[i] = *v;
  }
  return out;
}

/// torch's checks of F.unfold/F.fold's block parameters (im2col_shape_check):
/// positive kernel, dilation and stride, non-negative padding.
static LogicalResult
checkBlockParams(const BoundCall &call,
                 const std::array<SmallVector<int64_t>, 4> &p) {
  const char *names[] = {"kernel size", "dilation", "padding", "stride"};
  for (int i = 0; i < 4; ++i)
    for (int64_t v : p[i])
      if (i == 2 ? v < 0 : v <= 0)
        return call.emitError()
               << names[i] << " should be "
               << (i == 2 ? "non-negative" : "greater than zero") << ", got "
               << v;
  return success();
}

/// The input of F.unfold (im2col) or F.fold (col2im): of rank `rank` or
/// `rank` + 1 (batched), floating-point.
static LogicalResult checkBlockInput(const BoundCall &call,
                                     RankedTensorType input, int64_t rank,
                                     StringRef op) {
  if (input.getRank() != rank && input.getRank() != rank + 1)
    return call.emitError() << "expects a " << rank << "-D or " << rank + 1
                            << "-D input, got " << input;
  if (!isa<FloatType>(input.getElementType()))
    return call.emitError()
           << "argument 'input' of type " << input
           << " is not supported: " << op << " takes floating point tensors";
  return success();
}

/// F.unfold: (N, C, H, W) -> (N, C * kh * kw, L).
LogicalResult im2col(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  auto p = blockParams(call);
  if (!input || !p)
    return h.unknown();
  if (failed(checkBlockInput(call, input, 3, "im2col")))
    return failure();
  int64_t rank = input.getRank();
  ArrayRef<int64_t> s = input.getShape();
  if (!input.hasStaticShape())
    return h.unknown();
  if (failed(checkBlockParams(call, *p)))
    return failure();
  auto [k, d, pad, st] = *p;
  int64_t oh = slidingBlocks(s[rank - 2], k[0], d[0], pad[0], st[0]),
          ow = slidingBlocks(s[rank - 1], k[1], d[1], pad[1], st[1]);
  if (oh < 1 || ow < 1)
    return call.emitError() << "the sliding blocks do not fit " << input;
  SmallVector<int64_t> shape = {s[rank - 3] * k[0] * k[1], oh * ow};
  if (rank == 4)
    shape.insert(shape.begin(), s[0]);
  return h.result(shape, input.getElementType());
}

/// F.fold: (N, C * kh * kw, L) -> (N, C, H, W).
LogicalResult col2im(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  auto p = blockParams(call);
  std::optional<SmallVector<int64_t>> size = call.getInts("output_size", 2);
  if (!input || !p || !size)
    return h.unknown();
  if (failed(checkBlockInput(call, input, 2, "col2im")))
    return failure();
  int64_t rank = input.getRank();
  if (size->size() != 2 || !input.hasStaticShape())
    return h.unknown();
  if (failed(checkBlockParams(call, *p)))
    return failure();
  auto [k, d, pad, st] = *p;
  ArrayRef<int64_t> s = input.getShape();
  int64_t rows = s[rank - 2], block = k[0] * k[1];
  if (rows % block)
    return call.emitError() << "expected size of input's dimension 1 to be "
                               "divisible by the product of kernel_size, got "
                            << rows;
  int64_t blocks = slidingBlocks((*size)[0], k[0], d[0], pad[0], st[0]) *
                   slidingBlocks((*size)[1], k[1], d[1], pad[1], st[1]);
  if (blocks != s[rank - 1])
    return call.emitError() << "expected " << blocks << " blocks in the "
                            << "input's last dimension, got " << s[rank - 1];
  SmallVector<int64_t> shape = {rows / block, (*size)[0], (*size)[1]};
  if (rank == 3)
    shape.insert(shape.begin(), s[0]);
  return h.result(shape, input.getElementType());
}

} // namespace mlir::traced::rules
