//===- Quantized.cpp - traced.int8 contractions as int8 runtime calls -----===//
//
// traced.int8.conv2d and traced.int8.linear, which traced-lower-quantized
// emits for quantized convolutions and linears (docs/quantization.md, "int8
// code"), lower to one call each of the int8 runtime
// (include/TracedIR/Runtime/Int8Runtime.h): its VNNI tiles, packing and
// requantizing epilogue are hand-written C++ rather than linalg, because
// the upstream vector dialect has no uint8 x int8 -> int32 contraction
// that reaches vpdpbusd (x86vector's dot.i8 is AVX-VNNI-INT8's signed
// vpdpbssd). The inputs pass as their own buffers (a constant weight is
// not copied per call); the output is a fresh buffer.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "TracedIR/Runtime/Int8Runtime.h"

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

namespace {

/// The runtime call, its status checked, as the call's one result: the
/// plain form, or with a residual the `_add` form, whose scales pass as a
/// constant float32 tensor and whose zero points and ReLU follow the
/// geometry.
FailureOr<SmallVector<Value>> callInt8(LoweringCall &c, StringRef symbol,
                                       RankedTensorType result,
                                       ArrayRef<int64_t> geometry) {
  SmallVector<Value> inputs;
  SmallVector<StringRef> names{"input", "weight", "multiplier", "offset", "compensation"};
  bool add = !c.isNone("residual");
  if (add)
    names.push_back("residual");
  for (StringRef name : names) {
    Value v = c.tensor(name);
    if (!v || !staticTensorType(v))
      return c.fail("expected statically shaped tensors");
    inputs.push_back(v);
  }
  OpBuilder &b = c.rewriter;
  SmallVector<int64_t> values(geometry);
  std::string name = symbol.str();
  if (add) {
    std::optional<double> so = c.getFloat("output_scale"), sr = c.getFloat("residual_scale"),
                          ss = c.getFloat("sum_scale");
    std::optional<int64_t> zr = c.getInt("residual_zero_point"),
                           zs = c.getInt("sum_zero_point");
    std::optional<bool> relu = c.getBool("sum_relu");
    if (!so || !sr || !ss || !zr || !zs || !relu)
      return c.fail("expected constant add parameters");
    auto type = RankedTensorType::get({3}, b.getF32Type());
    inputs.push_back(arith::ConstantOp::create(
        b, c.loc,
        DenseElementsAttr::get(type, ArrayRef<float>{static_cast<float>(*so),
                                                     static_cast<float>(*sr),
                                                     static_cast<float>(*ss)})));
    values.append({*zr, *zs, *relu ? 1 : 0});
    name = (symbol.drop_back(strlen("_memref")) + "_add_memref").str();
  }
  RuntimeCall call = buildRuntimeCall(b, c.loc, c.op, name, inputs, {result}, values,
                                      /*copyInputs=*/false);
  Value zero = arith::ConstantOp::create(b, c.loc, b.getI32IntegerAttr(0));
  c.check(arith::CmpIOp::create(b, c.loc, arith::CmpIPredicate::eq, call.status, zero),
          "the int8 runtime failed (no scratch memory)");
  return SmallVector<Value>{call.results[0]};
}

FailureOr<SmallVector<Value>> lowerConv(LoweringCall &c) {
  RankedTensorType out = c.resultType();
  RankedTensorType x = staticTensorType(c.tensor("input")),
                   w = staticTensorType(c.tensor("weight"));
  auto kernel = c.getInts("kernel_size", 2), stride = c.getInts("stride", 2),
       padding = c.getInts("padding", 2), dilation = c.getInts("dilation", 2);
  std::optional<int64_t> zx = c.getInt("input_zero_point"),
                         zo = c.getInt("output_zero_point");
  std::optional<bool> relu = c.getBool("relu");
  std::optional<int64_t> groups = c.getInt("groups");
  if (!groups)
    return c.fail("expected a constant groups");
  if (!out || !x || !w || !kernel || !stride || !padding || !dilation || !zx || !zo ||
      !relu)
    return c.fail("expected static shapes and constant arguments");
  return callInt8(c, "traced_int8_conv2d_memref", out,
                  {x.getDimSize(0), x.getDimSize(1), x.getDimSize(2), x.getDimSize(3),
                   w.getDimSize(0), (*kernel)[0], (*kernel)[1], (*stride)[0],
                   (*stride)[1], (*padding)[0], (*padding)[1], (*dilation)[0],
                   (*dilation)[1], out.getDimSize(2), out.getDimSize(3), *zx, *zo,
                   *relu ? 1 : 0, *groups});
}

FailureOr<SmallVector<Value>> lowerLinear(LoweringCall &c) {
  RankedTensorType out = c.resultType();
  RankedTensorType x = staticTensorType(c.tensor("input")),
                   w = staticTensorType(c.tensor("weight"));
  std::optional<int64_t> zx = c.getInt("input_zero_point"),
                         zo = c.getInt("output_zero_point");
  std::optional<bool> relu = c.getBool("relu");
  if (!out || !x || !w || !zx || !zo || !relu)
    return c.fail("expected static shapes and constant arguments");
  int64_t k = x.getShape().back(), rows = k ? x.getNumElements() / k : 0;
  return callInt8(c, "traced_int8_linear_memref", out,
                  {rows, k, w.getDimSize(0), *zx, *zo, *relu ? 1 : 0});
}

} // namespace

void lowering::populateQuantizedLowerings(LoweringTable &t) {
  t["traced.int8.conv2d"] = lowerConv;
  t["traced.int8.linear"] = lowerLinear;
}
