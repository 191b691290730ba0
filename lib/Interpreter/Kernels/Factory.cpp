//===- Factory.cpp - zeros, ones, full, arange, *_like, new_* -------------===//
//
// Tensors made from sizes and numbers. A trace records them when an
// argument is traced (`torch.zeros(x.size(0), 3)`, `torch.arange(n)` under
// torch.fx); otherwise the tracers keep their value as a constant. Dtypes
// follow torch 1.13's defaults: float32 unless `dtype=` says, `full` takes
// its fill value's kind, `arange` int64 when every bound is an int. The
// factories from a tensor: zeros_like, ones_like, full_like, empty_like
// (zeros), Tensor.new_zeros/new_ones/new_full/new_empty, and torch.fill.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;

namespace {
/// The sizes of a factory: `torch.zeros(2, 3)` and `torch.zeros((2, 3))`.
FailureOr<SmallVector<int64_t>> sizesOf(const KernelArgs &args) {
  FailureOr<SmallVector<int64_t>> size = args.getInts("size");
  if (failed(size))
    return failure();
  for (int64_t d : *size)
    if (d < 0)
      return args.emitError() << "negative dimension " << d;
  return size;
}

FailureOr<RtValue> filled(const KernelArgs &args, DType dtype,
                          ArrayRef<int64_t> shape, double value) {
  Tensor out(dtype, shape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setDouble(i, value);
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> factory(const KernelArgs &args, double value) {
  FailureOr<SmallVector<int64_t>> size = sizesOf(args);
  FailureOr<DType> dtype = args.getDType("dtype", DType::F32);
  if (failed(size) || failed(dtype))
    return failure();
  return filled(args, *dtype, *size, value);
}
} // namespace

namespace mlir::traced::kernels {

FailureOr<RtValue> zeros(const KernelArgs &args) { return factory(args, 0); }
FailureOr<RtValue> ones(const KernelArgs &args) { return factory(args, 1); }

FailureOr<RtValue> full(const KernelArgs &args) {
  FailureOr<SmallVector<int64_t>> size = sizesOf(args);
  if (failed(size))
    return failure();
  const RtValue &fill = args.get("fill_value");
  std::optional<double> value = fill.number();
  if (!value)
    return args.emitError() << "'fill_value' must be a number";
  // torch 1.13: the fill value's kind picks the default dtype.
  DType fallback = std::holds_alternative<bool>(fill.v)      ? DType::Bool
                   : std::holds_alternative<int64_t>(fill.v) ? DType::I64
                                                             : DType::F32;
  FailureOr<DType> dtype = args.getDType("dtype", fallback);
  if (failed(dtype))
    return failure();
  return filled(args, *dtype, *size, *value);
}

FailureOr<RtValue> arange(const KernelArgs &args) {
  // arange(end), arange(start, end), arange(start, end, step): bound by
  // position, as torch does.
  const RtValue &a = args.get("start"), &b = args.get("end"),
                &c = args.get("step");
  std::optional<double> start = a.number(), end = b.number(),
                        step = c.number();
  if (!start || (!b.isNone() && !end) || !step)
    return args.emitError() << "arange takes numbers";
  bool allInts = !std::holds_alternative<double>(a.v) &&
                 !std::holds_alternative<double>(b.v) &&
                 !std::holds_alternative<double>(c.v);
  if (b.isNone()) {
    end = start;
    start = 0.0;
  }
  if (*step == 0)
    return args.emitError() << "step must be nonzero";
  if ((*step > 0 && *end < *start) || (*step < 0 && *end > *start))
    return args.emitError() << "upper bound and larger bound inconsistent "
                               "with step sign";
  FailureOr<DType> dtype =
      args.getDType("dtype", allInts ? DType::I64 : DType::F32);
  if (failed(dtype))
    return failure();
  // out=: its dtype, and its shape when its size is the range's (the rule
  // checked a dtype argument against it).
  std::optional<Tensor> outArg;
  if (args.has("out") && args.get("out").isTensor()) {
    outArg = args.get("out").tensor();
    *dtype = outArg->dtype();
  }
  double span = std::ceil((*end - *start) / *step);
  if (!(span < 1e12))
    return args.emitError() << "arange of " << span << " elements";
  int64_t n = static_cast<int64_t>(span);
  Tensor out(*dtype, {n});
  for (int64_t i = 0; i < n; ++i) {
    if (isFloatingPoint(*dtype))
      out.setDouble(i, *start + static_cast<double>(i) * *step);
    else
      out.setDouble(i, static_cast<double>(static_cast<int64_t>(*start) +
                                           i * static_cast<int64_t>(*step)));
  }
  out.roundToDType();
  if (outArg && outArg->numel() == n)
    return RtValue(out.reshaped(outArg->shape()));
  return RtValue(out);
}

FailureOr<RtValue> linspace(const KernelArgs &args) {
  FailureOr<double> start = args.getFloat("start"), end = args.getFloat("end");
  FailureOr<int64_t> steps = args.getInt("steps");
  FailureOr<DType> dtype = args.getDType("dtype", DType::F32);
  if (failed(start) || failed(end) || failed(steps) || failed(dtype))
    return failure();
  if (*steps < 0)
    return args.emitError() << "number of steps must be non-negative";
  Tensor out(*dtype, {*steps});
  // torch fills the first half from start and the second from end.
  double step = *steps > 1 ? (*end - *start) / (*steps - 1) : 0;
  int64_t half = *steps / 2;
  for (int64_t i = 0; i < *steps; ++i) {
    double v = *steps == 1 ? *start
               : i < half  ? *start + step * i
                           : *end - step * (*steps - i - 1);
    if (!isFloatingPoint(*dtype))
      v = std::trunc(v);
    out.setDouble(i, v);
  }
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> eye(const KernelArgs &args) {
  FailureOr<int64_t> n = args.getInt("n");
  if (failed(n))
    return failure();
  int64_t m = *n;
  if (!args.isNone("m")) {
    FailureOr<int64_t> mm = args.getInt("m");
    if (failed(mm))
      return failure();
    m = *mm;
  }
  if (*n < 0 || m < 0)
    return args.emitError() << "n and m must be non-negative";
  FailureOr<DType> dtype = args.getDType("dtype", DType::F32);
  if (failed(dtype))
    return failure();
  Tensor out(*dtype, {*n, m});
  for (int64_t i = 0; i < *n; ++i)
    for (int64_t j = 0; j < m; ++j)
      out.setDouble(i * m + j, i == j ? 1.0 : 0.0);
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

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

void mlir::traced::kernels::populateFactoryKernels(KernelTable &table) {
  table["torch.zeros"] = zeros;
  table["torch.ones"] = ones;
  table["torch.empty"] = zeros;
  table["torch.full"] = full;
  table["torch.arange"] = arange;
  table["torch.linspace"] = linspace;
  table["torch.eye"] = eye;
  table["torch.fill"] = fillValue;
  table["torch.zeros_like"] = zerosLike;
  table["torch.ones_like"] = onesLike;
  table["torch.full_like"] = fullLikeKernel;
  table["torch.empty_like"] = zerosLike;
  table["Tensor.new_empty"] = newZeros;
  table["Tensor.new_zeros"] = newZeros;
  table["Tensor.new_ones"] = newOnes;
  table["Tensor.new_full"] = newFull;
}
