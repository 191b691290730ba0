//===- KernelsReduce.cpp - mean and sum -----------------------------------===//

#include "Kernels.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"

using namespace mlir;
using namespace mlir::traced;

namespace {
FailureOr<RtValue> reduce(const KernelArgs &args, bool average) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(in) || failed(keepdim))
    return failure();
  DType dtype = in->dtype();
  if (!args.isNone("dtype")) {
    auto attr = std::get_if<Attribute>(&args.get("dtype").v);
    std::optional<DType> target;
    if (attr)
      if (auto d = dyn_cast<DTypeAttr>(*attr))
        target = dtypeFromType(d.getType());
    if (!target)
      return args.emitError() << "unsupported 'dtype' argument";
    dtype = *target;
  } else if (!average && !isFloatingPoint(dtype)) {
    dtype = DType::I64; // sum of ints and bools is int64
  }
  if (average && !isFloatingPoint(dtype))
    return args.emitError() << "mean needs a floating-point input or dtype";
  int64_t rank = in->rank();
  SmallVector<bool> reduced(rank, args.isNone("dim"));
  if (!args.isNone("dim")) {
    FailureOr<SmallVector<int64_t>> dims = args.getInts("dim", 1);
    if (failed(dims))
      return failure();
    for (int64_t d : *dims) {
      FailureOr<int64_t> n = normalizeDim(args, d, std::max<int64_t>(rank, 1));
      if (failed(n))
        return failure();
      if (rank)
        reduced[*n] = true;
    }
  }
  SmallVector<int64_t> outShape, keptShape;
  for (int64_t i = 0; i < rank; ++i) {
    keptShape.push_back(reduced[i] ? 1 : in->dim(i));
    if (!reduced[i])
      outShape.push_back(in->dim(i));
    else if (*keepdim)
      outShape.push_back(1);
  }
  Tensor x = in->to(dtype);
  Tensor out(dtype, keptShape);
  SmallVector<int64_t> outStrides = out.strides();
  std::vector<double> acc(out.numel(), 0.0);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        o += index[d] * outStrides[d];
    acc[o] += x.getDouble(i);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < x.dim(d))
        break;
      index[d] = 0;
    }
  }
  int64_t count = out.numel() ? x.numel() / out.numel() : 0;
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setDouble(i, average ? acc[i] / count : acc[i]);
  out.roundToDType();
  return RtValue(out.reshaped(outShape));
}
} // namespace

namespace mlir::traced::kernels {
FailureOr<RtValue> mean(const KernelArgs &args) { return reduce(args, true); }
FailureOr<RtValue> sum(const KernelArgs &args) { return reduce(args, false); }
} // namespace mlir::traced::kernels
