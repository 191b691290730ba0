//===- Norm.cpp - batch_norm (eval) and layer_norm ------------------------===//
//
// Eval batch_norm is one elementwise generic reading the per-channel
// statistics along dimension 1. layer_norm is two reductions (mean, then
// the biased variance) over the trailing dimensions and one elementwise
// generic.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

/// `normalize(inputs)` times `weight` plus `bias` (either may be null),
/// elementwise over `type`; `inputs` are read through `maps`, the
/// parameters through `paramMap`.
static Value scaleAndShift(OpBuilder &b, Location loc, RankedTensorType type,
                           SmallVector<Value> inputs,
                           SmallVector<AffineMap> maps, Value weight,
                           Value bias, AffineMap paramMap,
                           function_ref<Value(OpBuilder &, Location,
                                              ValueRange)>
                               normalize) {
  unsigned numInputs = inputs.size();
  for (Value param : {weight, bias})
    if (param) {
      inputs.push_back(param);
      maps.push_back(paramMap);
    }
  return buildElementwise(
      b, loc, type, inputs, maps, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value y = normalize(nb, l, a.take_front(numInputs));
        unsigned next = numInputs;
        if (weight)
          y = arith::MulFOp::create(nb, l, y, a[next++]);
        if (bias)
          y = arith::AddFOp::create(nb, l, y, a[next++]);
        return y;
      });
}

static FailureOr<SmallVector<Value>> lowerBatchNorm(LoweringCall &c) {
  // (Dynamic dims: the generic takes their sizes from its operands.)
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  Value x = c.tensor("input"), mean = c.tensor("running_mean"),
        var = c.tensor("running_var"), w = c.tensor("weight"),
        bias = c.tensor("bias");
  std::optional<double> eps = c.getFloat("eps");
  if (c.getBool("training") != false)
    return c.fail("only eval mode (training=False) can be compiled");
  if (!type || !x || !mean || !var || !eps || type.getRank() < 2)
    return c.fail("expected an input of rank >= 2, running statistics and a "
                  "constant eps");
  if ((!w && !c.isNone("weight")) || (!bias && !c.isNone("bias")))
    return c.fail("weight and bias must be tensors or None");
  if (!isa<FloatType>(type.getElementType()))
    return c.fail("only floating-point inputs are supported");
  OpBuilder &b = c.rewriter;
  int64_t rank = type.getRank();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap channel =
      AffineMap::get(rank, 0, b.getAffineDimExpr(1), b.getContext());
  double e = *eps;
  // torch's eval kernel: x * alpha + beta with alpha = w / sqrt(var + eps)
  // and beta = b - mean * alpha per channel (so an infinite weight gives
  // NaN through mean * alpha, as in torch, and the rounding is torch's).
  SmallVector<Value> inputs = {x, mean, var};
  SmallVector<AffineMap> maps = {id, channel, channel};
  for (Value param : {w, bias})
    if (param) {
      inputs.push_back(param);
      maps.push_back(channel);
    }
  Value out = buildElementwise(
      b, c.loc, type, inputs, maps, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Type et = a[0].getType();
        Value v = arith::AddFOp::create(nb, l, a[2], scalarConstant(nb, l, et, e));
        Value alpha = arith::DivFOp::create(nb, l, scalarConstant(nb, l, et, 1),
                                            math::SqrtOp::create(nb, l, v));
        unsigned next = 3;
        if (w)
          alpha = arith::MulFOp::create(nb, l, alpha, a[next++]);
        Value shift = bias ? a[next++] : scalarConstant(nb, l, et, 0);
        Value beta = arith::SubFOp::create(nb, l, shift, arith::MulFOp::create(nb, l, a[1], alpha));
        return arith::AddFOp::create(nb, l, arith::MulFOp::create(nb, l, a[0], alpha), beta);
      });
  return SmallVector<Value>{out};
}

static FailureOr<SmallVector<Value>> lowerLayerNorm(LoweringCall &c) {
  // Leading dims may be dynamic; the normalized ones equal normalized_shape.
  RankedTensorType type = c.resultType(0, /*dynamic=*/true);
  Value x = c.tensor("input"), w = c.tensor("weight"), bias = c.tensor("bias");
  auto normalized = c.getInts("normalized_shape");
  std::optional<double> eps = c.getFloat("eps");
  if (!type || !x || !normalized || !eps)
    return c.fail("expected a ranked input, a constant normalized_shape and "
                  "eps");
  if ((!w && !c.isNone("weight")) || (!bias && !c.isNone("bias")))
    return c.fail("weight and bias must be tensors or None");
  if (!isa<FloatType>(type.getElementType()))
    return c.fail("only floating-point inputs are supported");
  int64_t rank = type.getRank(), k = normalized->size();
  if (k > rank ||
      type.getShape().take_back(k) != ArrayRef<int64_t>(*normalized))
    return c.fail("normalized_shape does not match the input's trailing "
                  "dimensions");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  SmallVector<int64_t> dims;
  int64_t count = 1;
  for (int64_t d = rank - k; d < rank; ++d) {
    dims.push_back(d);
    count *= type.getDimSize(d);
  }
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> lead, trail;
  for (int64_t d = 0; d < rank; ++d)
    (d < rank - k ? lead : trail).push_back(b.getAffineDimExpr(d));
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap leadMap = AffineMap::get(rank, 0, lead, ctx);
  AffineMap trailMap = AffineMap::get(rank, 0, trail, ctx);
  auto addf = [](OpBuilder &nb, Location l, ValueRange a) {
    return arith::AddFOp::create(nb, l, a[0], a[1]).getResult();
  };
  double inv = 1.0 / static_cast<double>(count);
  Value sum = buildReduce(b, loc, x, dims, 0.0, addf);
  auto leadType = cast<RankedTensorType>(sum.getType());
  auto scale = [&](OpBuilder &nb, Location l, ValueRange a) {
    return arith::MulFOp::create(nb, l, a[0],
                                 scalarConstant(nb, l, a[0].getType(), inv))
        .getResult();
  };
  Value mean = buildElementwise(b, loc, leadType, sum, scale);
  Value centered = buildElementwise(
      b, loc, type, {x, mean}, {id, leadMap},
      [](OpBuilder &nb, Location l, ValueRange a) {
        return arith::SubFOp::create(nb, l, a[0], a[1]).getResult();
      });
  Value squares = buildElementwise(
      b, loc, type, centered, [](OpBuilder &nb, Location l, ValueRange a) {
        return arith::MulFOp::create(nb, l, a[0], a[0]).getResult();
      });
  Value var = buildElementwise(b, loc, leadType,
                               buildReduce(b, loc, squares, dims, 0.0, addf),
                               scale);
  double e = *eps;
  Value out = scaleAndShift(
      b, loc, type, {centered, var}, {id, leadMap}, w, bias, trailMap,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Type et = a[0].getType();
        Value v = arith::AddFOp::create(nb, l, a[1],
                                        scalarConstant(nb, l, et, e));
        return arith::MulFOp::create(nb, l, a[0], buildRsqrt(nb, l, v));
      });
  return SmallVector<Value>{out};
}

void lowering::populateNormLowerings(LoweringTable &t) {
  t["torch.nn.functional.batch_norm"] = lowerBatchNorm;
  t["torch.nn.functional.layer_norm"] = lowerLayerNorm;
}
