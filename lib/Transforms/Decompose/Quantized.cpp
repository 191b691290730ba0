//===- Quantized.cpp - decompositions of the Quantized family -------------===//
//
// Quantization-aware training's fake quantization as an exported model runs
// it (observer off): calls of the elementwise entries on its scale and
// zero-point tensors. The quantized ops proper are rewritten by
// traced-lower-quantized (LowerQuantized.cpp), which changes the types of
// the whole graph.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"


using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

/// torch.fused_moving_avg_obs_fake_quant with its observer off (the
/// interpreter's fusedFakeQuant), on the flag, scale and zero-point tensors
/// as they come (buffers, constants of an exported model, or inputs): a
/// run-time check that the observer is off, then q = round(x * (1 /
/// scale)) + zero_point, clamped (a non-finite q to quant_min), (q -
/// zero_point) * scale, per tensor (their first elements) or per index
/// along ch_axis; the input itself where fake_quant_on is not 1.
static Results decomposeFusedFakeQuant(Decomposer &d) {
  std::optional<int64_t> lo = d.getInt("quant_min"), hi = d.getInt("quant_max"),
                         axis = d.getInt("ch_axis");
  std::optional<bool> perRow = d.getBool("per_row_fake_quant");
  Value x = d.tensor("input");
  RankedTensorType xt = typeOf(x);
  if (!lo || !hi || !axis || !perRow)
    return d.decline("its range, axis and per_row_fake_quant must be constants");
  if (!xt || !xt.getElementType().isF32())
    return d.decline("it fake-quantizes float32 tensors only");
  Type i64 = d.b.getI64Type(), f32 = d.b.getF32Type();
  auto first = [&](Value v) { // v[:1] as a 0-d tensor (v itself when 0-d)
    RankedTensorType t = typeOf(v);
    if (t && t.getRank() == 0)
      return v;
    return reshape(d, window(d, v, 0, sliceOf(d, 0, 1, 1)), {});
  };
  // (torch reads each flag with item() and compares it with 1.)
  Value observing = d.binary("torch.eq", d.cast(d.tensor("observer_on"), i64), d.i64(1));
  assertInRange(d, d.cast(observing, i64), 0, 0,
                "fused_moving_avg_obs_fake_quant runs its observer, which "
                "updates the module's statistics in place; disable observers "
                "before tracing");
  Value scale = d.cast(d.tensor("scale"), f32);
  Value zp = d.cast(d.cast(d.tensor("zero_point"), i64), f32);
  if (*perRow) {
    int64_t dim = normDim(*axis, xt.getRank());
    if (dim < 0 || dim >= xt.getRank() || ShapedType::isDynamic(xt.getDimSize(dim)))
      return d.decline("its channel axis is not a static dim of the input");
    SmallVector<int64_t> shape(xt.getRank(), 1);
    shape[dim] = xt.getDimSize(dim);
    scale = reshape(d, scale, shape);
    zp = reshape(d, zp, shape);
  } else {
    scale = first(scale);
    zp = first(zp);
  }
  Value q = d.binary("torch.add",
                     d.unary("torch.round",
                             d.binary("torch.mul", x, d.unary("torch.reciprocal", scale))),
                     zp);
  Value finite = d.unary("torch.isfinite", q);
  Value clamped = d.call("torch.clamp", {{"input", q}, {"min", d.f64(*lo)},
                                         {"max", d.f64(*hi)}});
  clamped = d.call("torch.where", {{"condition", finite}, {"input", clamped},
                                   {"other", d.f64(*lo)}});
  Value out = d.binary("torch.mul", d.binary("torch.sub", clamped, zp), scale);
  Value on = d.binary("torch.eq", first(d.cast(d.tensor("fake_quant_on"), i64)),
                      d.i64(1));
  return one(d.call("torch.where", {{"condition", on}, {"input", out},
                                    {"other", x}}));
}

void decompose::populateQuantizedDecompositions(DecompositionTable &t) {
  t["torch.fused_moving_avg_obs_fake_quant"] = decomposeFusedFakeQuant;
}
