//===- Quantized.cpp - decompositions of the Quantized family -------------===//
//
// Quantization-aware training's fake quantization as an exported model runs
// it (observer off): calls of the elementwise entries, its scale and zero
// point read from the module's buffers, which are constants of the
// compiled code. The quantized ops proper are rewritten by
// traced-lower-quantized (LowerQuantized.cpp), which changes the types of
// the whole graph.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

#include "TracedIR/Interpreter/Value.h"
#include "TracedIR/Transforms/GraphRewrites.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

/// torch.fused_moving_avg_obs_fake_quant with its observer off (the
/// interpreter's fusedFakeQuant): per tensor, torch's
/// fake_quantize_per_tensor_affine; per channel, the same steps with a
/// scale and zero point per index along ch_axis.
static Results decomposeFusedFakeQuant(Decomposer &d) {
  SymbolTableCollection symbols;
  FailureOr<Tensor> on = constantTensor(d.tensor("observer_on"), symbols),
                    fq = constantTensor(d.tensor("fake_quant_on"), symbols),
                    scale = constantTensor(d.tensor("scale"), symbols),
                    zp = constantTensor(d.tensor("zero_point"), symbols);
  std::optional<int64_t> lo = d.getInt("quant_min"), hi = d.getInt("quant_max"),
                         axis = d.getInt("ch_axis");
  std::optional<bool> perRow = d.getBool("per_row_fake_quant");
  if (failed(on) || failed(fq) || failed(scale) || failed(zp) || !lo || !hi ||
      !axis || !perRow || on->numel() < 1 || fq->numel() < 1)
    return d.decline("its flags, scale and zero point must be constants");
  if (on->getInt(0) != 0)
    return d.decline("its observer is on (it updates the module's "
                     "statistics in place); disable observers first");
  Value x = d.tensor("input");
  RankedTensorType xt = typeOf(x);
  if (!xt || !xt.getElementType().isF32())
    return d.decline("it fake-quantizes float32 tensors only");
  if (fq->getInt(0) == 0)
    return one(x);
  if (!*perRow)
    return one(d.call("torch.fake_quantize_per_tensor_affine",
                      {{"input", x},
                       {"scale", d.f64(static_cast<float>(scale->getDouble(0)))},
                       {"zero_point", d.i64(zp->getInt(0))},
                       {"quant_min", d.i64(*lo)},
                       {"quant_max", d.i64(*hi)}}));
  int64_t dim = normDim(*axis, xt.getRank());
  if (!xt.hasStaticShape() || dim < 0 || dim >= xt.getRank() ||
      scale->numel() < xt.getDimSize(dim) || zp->numel() < xt.getDimSize(dim))
    return d.decline("its per-channel parameters do not match the input");
  SmallVector<int64_t> shape(xt.getRank(), 1);
  shape[dim] = xt.getDimSize(dim);
  auto perAxis = [&](auto fn) {
    return d.tensorConstant(RankedTensorType::get(shape, d.b.getF32Type()),
                            [&](ArrayRef<int64_t> i) { return fn(i[dim]); });
  };
  Value inverse = perAxis([&](int64_t c) {
    return double(1.0f / static_cast<float>(scale->getDouble(c)));
  });
  Value zps = perAxis([&](int64_t c) { return double(zp->getInt(c)); });
  Value scales = perAxis(
      [&](int64_t c) { return double(static_cast<float>(scale->getDouble(c))); });
  Value q = d.binary("torch.add",
                     d.unary("torch.round", d.binary("torch.mul", x, inverse)),
                     zps);
  Value finite = d.unary("torch.isfinite", q);
  Value clamped = d.call("torch.clamp", {{"input", q}, {"min", d.f64(*lo)},
                                         {"max", d.f64(*hi)}});
  clamped = d.call("torch.where", {{"condition", finite}, {"input", clamped},
                                   {"other", d.f64(*lo)}});
  return one(d.binary("torch.mul", d.binary("torch.sub", clamped, zps), scales));
}

void decompose::populateQuantizedDecompositions(DecompositionTable &t) {
  t["torch.fused_moving_avg_obs_fake_quant"] = decomposeFusedFakeQuant;
}
