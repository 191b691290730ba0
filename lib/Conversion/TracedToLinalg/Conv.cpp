//===- Conv.cpp - conv1d and conv2d ---------------------------------------===//
//
// Padding is an explicit `tensor.pad`; the convolution is the NCHW named op
// matching its grouping: `linalg.conv_2d_nchw_fchw` (groups = 1),
// `linalg.depthwise_conv_2d_nchw_chw` (one filter per channel) or
// `linalg.conv_2d_ngchw_gfchw` (other groups). conv1d is conv2d over a
// height of one. The bias is a broadcast add that fuses with what follows.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

static FailureOr<SmallVector<Value>> lowerConv(LoweringCall &c) {
  bool is1d = c.target() == "torch.nn.functional.conv1d";
  unsigned n = is1d ? 1 : 2;
  RankedTensorType resultType = c.resultType();
  Value x = c.tensor("input"), w = c.tensor("weight"), bias = c.tensor("bias");
  auto stride = c.getInts("stride", n), padding = c.getInts("padding", n),
       dilation = c.getInts("dilation", n);
  std::optional<int64_t> groups = c.getInt("groups");
  if (!resultType || !x || !w || !staticTensorType(x) || !staticTensorType(w))
    return c.fail("expected statically shaped input and weight");
  if (!stride || !padding || !dilation || !groups)
    return c.fail("stride, padding, dilation and groups must be constants");
  if (!bias && !c.isNone("bias"))
    return c.fail("the bias is not a tensor");
  if (stride->size() != n || padding->size() != n || dilation->size() != n)
    return c.fail("string padding modes are not supported");
  OpBuilder &b = c.rewriter;
  Location loc = c.loc;
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  if (xType.getRank() != n + 2 || wType.getRank() != n + 2)
    return c.fail("expected a batched input");
  Type et = resultType.getElementType();
  SmallVector<int64_t> s(*stride), p(*padding), d(*dilation);
  RankedTensorType outType = resultType;
  if (is1d) {
    // (N, C, W) -> (N, C, 1, W)
    x = buildReshape(b, loc, x,
                     {xType.getDimSize(0), xType.getDimSize(1), 1,
                      xType.getDimSize(2)});
    w = buildReshape(b, loc, w,
                     {wType.getDimSize(0), wType.getDimSize(1), 1,
                      wType.getDimSize(2)});
    s.insert(s.begin(), 1);
    p.insert(p.begin(), 0);
    d.insert(d.begin(), 1);
    outType = RankedTensorType::get({resultType.getDimSize(0),
                                     resultType.getDimSize(1), 1,
                                     resultType.getDimSize(2)},
                                    et);
    xType = cast<RankedTensorType>(x.getType());
    wType = cast<RankedTensorType>(w.getType());
  }
  x = buildPad(b, loc, x, {0, 0, p[0], p[1]}, {0, 0, p[0], p[1]}, 0.0);
  int64_t batch = xType.getDimSize(0), cin = xType.getDimSize(1);
  int64_t cout = wType.getDimSize(0), g = *groups;
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3);
  if (g < 1 || cin % g || cout % g || wType.getDimSize(1) * g != cin)
    return c.fail("the weight does not match the groups");
  auto strides = b.getI64VectorAttr(s), dilations = b.getI64VectorAttr(d);
  Value out;
  if (g == 1) {
    Value init = buildFilled(b, loc, outType, 0.0);
    out = linalg::Conv2DNchwFchwOp::create(b, loc, TypeRange{outType},
                                           ValueRange{x, w}, ValueRange{init},
                                           strides, dilations)
              .getResult(0);
  } else if (g == cin && cout == cin) {
    Value filter = buildReshape(b, loc, w, {cin, kh, kw});
    Value init = buildFilled(b, loc, outType, 0.0);
    out = linalg::DepthwiseConv2DNchwChwOp::create(
              b, loc, TypeRange{outType}, ValueRange{x, filter},
              ValueRange{init}, strides, dilations)
              .getResult(0);
  } else {
    auto xt = cast<RankedTensorType>(x.getType());
    Value xg = buildReshape(b, loc, x,
                            {batch, g, cin / g, xt.getDimSize(2),
                             xt.getDimSize(3)});
    Value wg = buildReshape(b, loc, w, {g, cout / g, cin / g, kh, kw});
    auto gType = RankedTensorType::get({batch, g, cout / g, oh, ow}, et);
    Value init = buildFilled(b, loc, gType, 0.0);
    Value og = linalg::Conv2DNgchwGfchwOp::create(
                   b, loc, TypeRange{gType}, ValueRange{xg, wg},
                   ValueRange{init}, strides, dilations)
                   .getResult(0);
    out = buildReshape(b, loc, og, outType.getShape());
  }
  if (bias) {
    // bias (C) broadcast along dimension 1.
    AffineMap id = b.getMultiDimIdentityMap(4);
    AffineMap channel =
        AffineMap::get(4, 0, b.getAffineDimExpr(1), b.getContext());
    out = buildElementwise(b, loc, outType, {out, bias}, {id, channel},
                           [](OpBuilder &nb, Location l, ValueRange a) {
                             return arith::AddFOp::create(nb, l, a[0], a[1])
                                 .getResult();
                           });
  }
  if (is1d)
    out = buildReshape(b, loc, out, resultType.getShape());
  return SmallVector<Value>{out};
}

void lowering::populateConvLowerings(LoweringTable &t) {
  t["torch.nn.functional.conv1d"] = lowerConv;
  t["torch.nn.functional.conv2d"] = lowerConv;
}
