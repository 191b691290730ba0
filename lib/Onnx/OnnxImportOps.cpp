//===- OnnxImportOps.cpp - ONNX nodes as op-library calls -----------------===//
//
// One handler per ONNX op type (ONNX 1.12's default domain, opsets 7-17;
// where an op changed between opsets, both forms are read: attributes that
// became inputs, Softmax's axis). A handler maps the node onto the entries
// whose semantics are torch's, converting what differs (ONNX's integer
// division truncates, Gather takes negative indices, Pow keeps the base's
// type, asymmetric pads), and refuses what it cannot express exactly.
//
//===----------------------------------------------------------------------===//

#include "Import.h"

#include "TracedIR/Dialect/Traced/PyValue.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::onnx_import;

namespace {

bool isFloat(Type t) { return isa<FloatType>(t); }
Type elemOf(Value v) {
  return v ? cast<RankedTensorType>(v.getType()).getElementType() : Type();
}
int64_t rankOf(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }
/// A possibly negative axis of a rank-`rank` tensor, normalized. One out of
/// [-rank, rank) is an error of the model (axisError, which the driver
/// reports after the handler) and is clamped meanwhile, so that no handler
/// indexes out of bounds.
int64_t norm(int64_t d, int64_t rank) {
  if (rank == 0 && (d == 0 || d == -1))
    return 0;
  if (d < -rank || d >= rank) {
    if (axisError().empty())
      axisError() = "axis " + std::to_string(d) +
                    " is out of range for a tensor of rank " +
                    std::to_string(rank);
    return d < 0 || rank == 0 ? 0 : rank - 1;
  }
  return d < 0 ? d + rank : d;
}

LogicalResult done(ImportNode &n, Value v, unsigned i = 0) {
  if (!v)
    return failure();
  n.set(i, v);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

const llvm::StringMap<StringRef> &unaryTargets() {
  static const llvm::StringMap<StringRef> m = {
      {"Abs", "torch.abs"},        {"Acos", "torch.acos"},
      {"Acosh", "torch.acosh"},    {"Asin", "torch.asin"},
      {"Asinh", "torch.asinh"},    {"Atan", "torch.atan"},
      {"Atanh", "torch.atanh"},    {"Ceil", "torch.ceil"},
      {"Cos", "torch.cos"},        {"Cosh", "torch.cosh"},
      {"Erf", "torch.erf"},        {"Exp", "torch.exp"},
      {"Floor", "torch.floor"},    {"Log", "torch.log"},
      {"Neg", "torch.neg"},        {"Reciprocal", "torch.reciprocal"},
      {"Relu", "torch.nn.functional.relu"},
      {"Round", "torch.round"},    {"Sigmoid", "torch.sigmoid"},
      {"Sign", "torch.sign"},      {"Sin", "torch.sin"},
      {"Sinh", "torch.sinh"},      {"Softsign", "torch.nn.functional.softsign"},
      {"Sqrt", "torch.sqrt"},      {"Tan", "torch.tan"},
      {"Tanh", "torch.tanh"},      {"Not", "torch.logical_not"},
      {"IsNaN", "torch.isnan"},    {"HardSwish", "torch.nn.functional.hardswish"},
      {"Softplus", "torch.nn.functional.softplus"},
      {"Mish", "torch.nn.functional.mish"},
  };
  return m;
}

LogicalResult importUnary(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  StringRef target = unaryTargets().lookup(n.opType());
  Value r = n.call(target, {{"input", x}});
  if (n.opType() == "IsNaN")
    return done(n, r);
  // ONNX keeps the input's type (Round, Ceil and Floor of integers are not
  // ONNX; Abs, Neg, Sign of ints stay ints in both).
  return done(n, n.cast(r, elemOf(x)));
}

LogicalResult importIdentity(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  if (n.opType() == "Dropout") {
    // Inference: the input (ratio and training_mode are ignored unless
    // training_mode is a constant true).
    std::optional<SmallVector<double>> ratio = n.constFloats(1);
    double p = ratio && !ratio->empty() ? (*ratio)[0]
                                        : (n.has(1) ? -1 : n.attrFloat("ratio", 0.5));
    if (std::optional<SmallVector<int64_t>> t = n.constInts(2))
      if (!t->empty() && (*t)[0] && p != 0)
        return n.fail("training-mode dropout is random; TracedIR imports "
                      "inference graphs");
    if (n.n.outputs.size() > 1 && !n.n.outputs[1].empty()) {
      Value mask = n.call("torch.ones_like",
                          {{"input", x}, {"dtype", n.dtype(IntegerType::get(
                                                       n.ctx(), 1))}});
      n.set(1, mask);
    }
  }
  n.set(0, x);
  return success();
}

/// Activations with attributes.
LogicalResult importActivation(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  StringRef op = n.opType();
  Type t = elemOf(x);
  if (op == "LeakyRelu")
    return done(n, n.call("torch.nn.functional.leaky_relu",
                          {{"input", x},
                           {"negative_slope", n.f64(n.attrFloat("alpha", 0.01))}}));
  if (op == "Elu")
    return done(n, n.call("torch.nn.functional.elu",
                          {{"input", x}, {"alpha", n.f64(n.attrFloat("alpha", 1))}}));
  if (op == "Celu")
    return done(n, n.call("torch.nn.functional.celu",
                          {{"input", x}, {"alpha", n.f64(n.attrFloat("alpha", 1))}}));
  if (op == "Selu") {
    double alpha = n.attrFloat("alpha", 1.67326319217681884765625);
    double gamma = n.attrFloat("gamma", 1.05070102214813232421875);
    // gamma * (x > 0 ? x : alpha * (exp(x) - 1))
    Value elu = n.call("torch.nn.functional.elu",
                       {{"input", x}, {"alpha", n.f64(alpha)}});
    return done(n, n.call("torch.mul", {{"input", elu}, {"other", n.f64(gamma)}}));
  }
  if (op == "HardSigmoid") {
    double alpha = n.attrFloat("alpha", 0.2), beta = n.attrFloat("beta", 0.5);
    Value ax = n.call("torch.mul", {{"input", x}, {"other", n.f64(alpha)}});
    Value s = n.call("torch.add", {{"input", ax}, {"other", n.f64(beta)}});
    return done(n, n.call("torch.clamp",
                          {{"input", s}, {"min", n.f64(0)}, {"max", n.f64(1)}}));
  }
  if (op == "ThresholdedRelu") {
    double alpha = n.attrFloat("alpha", 1);
    Value gt = n.call("torch.gt", {{"input", x}, {"other", n.f64(alpha)}});
    return done(n, n.call("torch.where", {{"condition", gt},
                                          {"input", x},
                                          {"other", n.scalar(0, t)}}));
  }
  if (op == "Shrink") {
    double lambd = n.attrFloat("lambd", 0.5), bias = n.attrFloat("bias", 0);
    if (!isFloat(t))
      return n.fail("integer Shrink is not imported");
    Value lo = n.call("torch.lt", {{"input", x}, {"other", n.f64(-lambd)}});
    Value hi = n.call("torch.gt", {{"input", x}, {"other", n.f64(lambd)}});
    Value plus = n.call("torch.add", {{"input", x}, {"other", n.f64(bias)}});
    Value minus = n.call("torch.sub", {{"input", x}, {"other", n.f64(bias)}});
    Value r = n.call("torch.where",
                     {{"condition", hi}, {"input", minus}, {"other", n.scalar(0, t)}});
    return done(n, n.call("torch.where",
                          {{"condition", lo}, {"input", plus}, {"other", r}}));
  }
  if (op == "PRelu") {
    Value slope = n.in(1);
    if (!slope)
      return failure();
    Value neg = n.call("torch.lt", {{"input", x}, {"other", n.scalar(0, t)}});
    Value scaled = n.call("torch.mul", {{"input", x}, {"other", slope}});
    return done(n, n.call("torch.where",
                          {{"condition", neg}, {"input", scaled}, {"other", x}}));
  }
  if (op == "IsInf") {
    bool pos = n.attrInt("detect_positive", 1), neg = n.attrInt("detect_negative", 1);
    StringRef target = pos && neg ? "torch.isinf"
                       : pos      ? "torch.isposinf"
                                  : "torch.isneginf";
    if (!pos && !neg)
      return done(n, n.call("torch.zeros_like",
                            {{"input", x}, {"dtype", n.dtype(IntegerType::get(
                                                         n.ctx(), 1))}}));
    return done(n, n.call(target, {{"input", x}}));
  }
  return n.fail("unhandled activation");
}

/// ONNX's binary ops: multidirectional broadcasting as torch's, both
/// operands of one type (checked by the verifier on the result).
LogicalResult importBinary(ImportNode &n) {
  Value a = n.in(0), b = n.in(1);
  if (!a || !b)
    return failure();
  StringRef op = n.opType();
  Type t = elemOf(a);
  if (n.hasAttr("broadcast") && n.hasAttr("axis"))
    return n.fail("opset < 7 broadcasting along an axis is not imported");
  if (op == "Pow") {
    // The result has the base's type.
    Value r = n.call("torch.pow", {{"input", a}, {"exponent", b}});
    return done(n, n.cast(r, t));
  }
  if (elemOf(b) != t)
    return n.fail("its operands have different element types");
  if (op == "Div" && !isFloat(t)) {
    // ONNX's integer Div truncates toward zero (C semantics).
    return done(n, n.call("torch.div", {{"input", a},
                                        {"other", b},
                                        {"rounding_mode", n.str("trunc")}}));
  }
  if (op == "Mod") {
    bool fmod = n.attrInt("fmod", 0);
    if (!fmod && isFloat(t))
      return n.fail("Mod of floats needs fmod=1");
    return done(n, n.call(fmod ? "torch.fmod" : "torch.remainder",
                          {{"input", a}, {"other", b}}));
  }
  static const llvm::StringMap<StringRef> targets = {
      {"Add", "torch.add"},         {"Sub", "torch.sub"},
      {"Mul", "torch.mul"},         {"Div", "torch.div"},
      {"Equal", "torch.eq"},        {"Less", "torch.lt"},
      {"LessOrEqual", "torch.le"},  {"Greater", "torch.gt"},
      {"GreaterOrEqual", "torch.ge"}, {"And", "torch.logical_and"},
      {"Or", "torch.logical_or"},   {"Xor", "torch.logical_xor"},
      {"BitShift", ""},
  };
  if (op == "BitShift") {
    bool left = n.attrString("direction", "") == "LEFT";
    return done(n, n.call(left ? "torch.bitwise_left_shift"
                               : "torch.bitwise_right_shift",
                          {{"input", a}, {"other", b}}));
  }
  return done(n, n.call(targets.lookup(op), {{"input", a}, {"other", b}}));
}

/// Sum, Mean, Max, Min of any number of inputs.
LogicalResult importVariadic(ImportNode &n) {
  StringRef op = n.opType();
  StringRef target = op == "Max"   ? "torch.maximum"
                     : op == "Min" ? "torch.minimum"
                                   : "torch.add";
  Value acc = n.in(0);
  for (unsigned i = 1; acc && i < n.numInputs(); ++i) {
    Value v = n.in(i);
    if (!v)
      return failure();
    acc = n.call(target, {{"input", acc}, {"other", v}});
  }
  if (acc && op == "Mean" && n.numInputs() > 1)
    acc = n.call("torch.div", {{"input", acc},
                               {"other", n.f64(double(n.numInputs()))}});
  return done(n, acc);
}

LogicalResult importWhere(ImportNode &n) {
  Value c = n.in(0), a = n.in(1), b = n.in(2);
  if (!c || !a || !b)
    return failure();
  return done(n, n.call("torch.where",
                        {{"condition", c}, {"input", a}, {"other", b}}));
}

LogicalResult importClip(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  Type t = elemOf(x);
  Arg lo = n.none(), hi = n.none();
  if (n.hasAttr("min") || n.hasAttr("max")) { // opset < 11
    if (n.hasAttr("min"))
      lo = n.f64(n.attrFloat("min", 0));
    if (n.hasAttr("max"))
      hi = n.f64(n.attrFloat("max", 0));
  }
  if (n.has(1)) {
    Value v = n.in(1);
    if (!v)
      return failure();
    lo = v;
  }
  if (n.has(2)) {
    Value v = n.in(2);
    if (!v)
      return failure();
    hi = v;
  }
  if (isa<NoneAttr>(lo.attr) && isa<NoneAttr>(hi.attr))
    return done(n, x);
  Value r = n.call("torch.clamp", {{"input", x}, {"min", lo}, {"max", hi}});
  return done(n, n.cast(r, t));
}

LogicalResult importCast(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  Type to;
  if (n.opType() == "CastLike") {
    Value like = n.in(1);
    if (!like)
      return failure();
    to = elemOf(like);
  } else {
    to = elementTypeOf(n.ctx(), n.attrInt("to", 0));
  }
  if (!to)
    return n.fail("it casts to a type traced tensors cannot hold");
  if (elemOf(x) == to)
    return done(n, x);
  return done(n, n.call("Tensor.to", {{"input", x}, {"dtype", n.dtype(to)}}));
}

//===----------------------------------------------------------------------===//
// Contractions, convolutions, normalization
//===----------------------------------------------------------------------===//

LogicalResult importMatMul(ImportNode &n) {
  Value a = n.in(0), b = n.in(1);
  if (!a || !b)
    return failure();
  return done(n, n.call("torch.matmul", {{"input", a}, {"other", b}}));
}

LogicalResult importGemm(ImportNode &n) {
  Value a = n.in(0), b = n.in(1);
  if (!a || !b)
    return failure();
  if (n.attrInt("transA", 0))
    a = n.call("torch.t", {{"input", a}});
  double alpha = n.attrFloat("alpha", 1), beta = n.attrFloat("beta", 1);
  Value mm;
  if (n.attrInt("transB", 0) && n.has(2) && alpha == 1 && beta == 1) {
    // The common case: a linear layer.
    Value c = n.in(2);
    if (c && rankOf(c) == 1)
      return done(n, n.call("torch.nn.functional.linear",
                            {{"input", a}, {"weight", b}, {"bias", c}}));
  }
  if (n.attrInt("transB", 0))
    b = n.call("torch.t", {{"input", b}});
  mm = n.call("torch.mm", {{"input", a}, {"mat2", b}});
  if (alpha != 1)
    mm = n.call("torch.mul", {{"input", mm}, {"other", n.f64(alpha)}});
  if (n.has(2) && beta != 0) {
    Value c = n.in(2);
    if (!c)
      return failure();
    if (beta != 1)
      c = n.call("torch.mul", {{"input", c}, {"other", n.f64(beta)}});
    mm = n.call("torch.add", {{"input", mm}, {"other", c}});
  }
  return done(n, mm);
}

/// The explicit begin/end pads of a Conv or pool over `spatial` dims:
/// `pads`, or auto_pad's SAME_UPPER / SAME_LOWER / VALID.
LogicalResult convPads(ImportNode &n, ArrayRef<int64_t> in,
                       ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> dilations,
                       SmallVectorImpl<int64_t> &pads) {
  unsigned k = in.size();
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  pads.assign(2 * k, 0);
  if (autoPad == "NOTSET") {
    if (std::optional<SmallVector<int64_t>> p = n.attrInts("pads")) {
      if (p->size() != 2 * k)
        return n.fail("its pads do not have two entries per spatial dim");
      pads.assign(p->begin(), p->end());
    }
    return success();
  }
  if (autoPad == "VALID")
    return success();
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return n.fail("auto_pad '" + autoPad + "' is not an ONNX auto_pad");
  for (unsigned i = 0; i < k; ++i) {
    if (ShapedType::isDynamic(in[i]))
      return n.fail("auto_pad SAME needs static spatial sizes");
    int64_t out = (in[i] + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>(
        0, (out - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1 - in[i]);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[i + k] = autoPad == "SAME_UPPER" ? large : small;
  }
  return success();
}

/// Symmetric pads as torch's `padding`, or an explicit F.pad of `x` first
/// (with `value`) when begin and end differ.
Value padFirst(ImportNode &n, Value x, ArrayRef<int64_t> pads, double value,
               SmallVectorImpl<int64_t> &padding) {
  unsigned k = pads.size() / 2;
  bool symmetric = true;
  for (unsigned i = 0; i < k; ++i)
    symmetric &= pads[i] == pads[i + k];
  padding.clear();
  if (symmetric) {
    padding.assign(pads.begin(), pads.begin() + k);
    return x;
  }
  SmallVector<int64_t> torchPad;
  for (int i = k - 1; i >= 0; --i) {
    torchPad.push_back(pads[i]);
    torchPad.push_back(pads[i + k]);
  }
  padding.assign(k, 0);
  return n.call("torch.nn.functional.pad", {{"input", x},
                                            {"pad", n.ints(torchPad)},
                                            {"mode", n.str("constant")},
                                            {"value", n.f64(value)}});
}

/// A Conv or ConvTranspose node's convolution of `x` by `w` (its
/// attributes read from the node); null after an error.
Value buildConv(ImportNode &n, Value x, Value w, Arg bias, bool transposed);

LogicalResult importConv(ImportNode &n) {
  Value x = n.in(0), w = n.in(1);
  if (!x || !w)
    return failure();
  Arg bias = n.none();
  if (n.has(2)) {
    Value b = n.in(2);
    if (!b)
      return failure();
    bias = b;
  }
  return done(n, buildConv(n, x, w, bias, n.opType() == "ConvTranspose"));
}

/// ConvTranspose: pads (or output_shape and auto_pad, as ONNX computes
/// them) on the full transposed convolution, which is cut (or extended
/// with zeros) to the output and then biased: torch's own padding is
/// symmetric only.
Value buildConvTranspose(ImportNode &n, Value x, Value w, Arg bias,
                         ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                         int64_t group) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(w.getType());
  int64_t k = wt.getRank() - 2;
  if (!xt.hasStaticShape() || !wt.hasStaticShape()) {
    (void)n.fail("ConvTranspose needs static shapes");
    return {};
  }
  SmallVector<int64_t> outPad =
      n.attrInts("output_padding").value_or(SmallVector<int64_t>(k, 0));
  SmallVector<int64_t> pads =
      n.attrInts("pads").value_or(SmallVector<int64_t>(2 * k, 0));
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  std::optional<SmallVector<int64_t>> outShape = n.attrInts("output_shape");
  SmallVector<int64_t> full(k);
  for (int64_t i = 0; i < k; ++i)
    full[i] = strides[i] * (xt.getDimSize(i + 2) - 1) +
              (wt.getDimSize(i + 2) - 1) * dilations[i] + 1;
  if (outShape || (autoPad != "NOTSET" && autoPad != "VALID")) {
    SmallVector<int64_t> out(k);
    for (int64_t i = 0; i < k; ++i)
      out[i] = outShape ? (*outShape)[outShape->size() - k + i]
                        : xt.getDimSize(i + 2) * strides[i];
    for (int64_t i = 0; i < k; ++i) {
      int64_t total = full[i] + outPad[i] - out[i];
      // The odd one at the end, except for SAME_LOWER (as ONNX 1.12's
      // reference computes them).
      pads[i] = autoPad == "SAME_LOWER" ? total - total / 2 : total / 2;
      pads[i + k] = total - pads[i];
    }
  } else if (autoPad == "VALID") {
    pads.assign(2 * k, 0);
  }
  StringRef target = k == 1   ? "torch.nn.functional.conv_transpose1d"
                     : k == 2 ? "torch.nn.functional.conv_transpose2d"
                              : "torch.nn.functional.conv_transpose3d";
  Value y = n.call(target, {{"input", x},
                            {"weight", w},
                            {"bias", n.none()},
                            {"stride", n.ints(strides)},
                            {"padding", n.ints(SmallVector<int64_t>(k, 0))},
                            {"output_padding", n.ints(SmallVector<int64_t>(k, 0))},
                            {"groups", n.i64(group)},
                            {"dilation", n.ints(dilations)}});
  // The output along each dim is full[pads_begin, full + outPad - pads_end).
  SmallVector<int64_t> torchPad;
  bool padded = false;
  for (int64_t i = k - 1; i >= 0; --i) {
    int64_t before = std::max<int64_t>(0, -pads[i]);
    int64_t after = std::max<int64_t>(0, outPad[i] - pads[i + k]);
    torchPad.push_back(before);
    torchPad.push_back(after);
    padded |= before || after;
  }
  if (padded)
    y = n.call("torch.nn.functional.pad", {{"input", y},
                                           {"pad", n.ints(torchPad)},
                                           {"mode", n.str("constant")},
                                           {"value", n.f64(0)}});
  for (int64_t i = 0; i < k && y; ++i) {
    int64_t start = std::max<int64_t>(0, pads[i]);
    int64_t length = full[i] + outPad[i] - pads[i] - pads[i + k];
    if (length <= 0) {
      (void)n.fail("its pads leave no output");
      return {};
    }
    y = n.call("torch.narrow", {{"input", y},
                                {"dim", n.i64(i + 2)},
                                {"start", n.i64(start)},
                                {"length", n.i64(length)}});
  }
  if (y && !isa<NoneAttr>(bias.attr)) {
    SmallVector<int64_t> shape(k + 2, 1);
    shape[1] = cast<RankedTensorType>(y.getType()).getDimSize(1);
    Value b = n.reshape(bias.values[0], shape);
    y = n.call("torch.add", {{"input", y}, {"other", b}});
  }
  return y;
}

Value buildConv(ImportNode &n, Value x, Value w, Arg bias, bool transposed) {
  auto fail = [&](const Twine &why) {
    (void)n.fail(why);
    return Value();
  };
  auto wt = cast<RankedTensorType>(w.getType());
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t k = wt.getRank() - 2;
  if (k < 1 || k > 3 || xt.getRank() != k + 2)
    return fail("only 1-D, 2-D and 3-D convolutions of batched inputs are "
                  "imported");
  SmallVector<int64_t> kernel(wt.getShape().drop_front(2));
  if (std::optional<SmallVector<int64_t>> ks = n.attrInts("kernel_shape"))
    if (*ks != ArrayRef<int64_t>(kernel))
      return fail("its kernel_shape does not match its weight");
  SmallVector<int64_t> strides =
      n.attrInts("strides").value_or(SmallVector<int64_t>(k, 1));
  SmallVector<int64_t> dilations =
      n.attrInts("dilations").value_or(SmallVector<int64_t>(k, 1));
  int64_t group = n.attrInt("group", 1);
  if (int64_t(strides.size()) != k || int64_t(dilations.size()) != k)
    return fail("its strides or dilations do not match its rank");
  SmallVector<int64_t> pads;
  if (transposed)
    return buildConvTranspose(n, x, w, bias, strides, dilations, group);
  if (failed(convPads(n, xt.getShape().drop_front(2), kernel, strides,
                      dilations, pads)))
    return Value();
  SmallVector<int64_t> padding;
  x = padFirst(n, x, pads, 0, padding);
  StringRef target = k == 1   ? "torch.nn.functional.conv1d"
                     : k == 2 ? "torch.nn.functional.conv2d"
                              : "torch.nn.functional.conv3d";
  return n.call(target, {{"input", x},
                                 {"weight", w},
                                 {"bias", bias},
                                 {"stride", n.ints(strides)},
                                 {"padding", n.ints(padding)},
                                 {"dilation", n.ints(dilations)},
                                 {"groups", n.i64(group)}});
}

//===----------------------------------------------------------------------===//
// Quantization: computed in float on the integer tensors (the traced
// quantized types are for torch's quantized tensors; ONNX's are integers
// with separate scales)
//===----------------------------------------------------------------------===//

/// A scale or zero point of a per-axis (de)quantization reshaped to
/// broadcast along `axis` of a rank-`rank` tensor.
Value alongAxis(ImportNode &n, Value v, int64_t axis, int64_t rank) {
  auto vt = cast<RankedTensorType>(v.getType());
  if (vt.getRank() != 1 || rank <= 1)
    return v;
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = vt.getDimSize(0);
  return n.reshape(v, shape);
}

/// round(v / scale) + zp, saturated to the zero point's type `t`.
Value quantize(ImportNode &n, Value v, Value scale, Value zp, Type t) {
  Value q = n.call("torch.round",
                   {{"input", n.call("torch.div", {{"input", v}, {"other", scale}})}});
  if (zp)
    q = n.call("torch.add",
               {{"input", q}, {"other", n.cast(zp, elemOf(q))}});
  bool isSigned = !t.isUnsignedInteger() && !t.isInteger(1);
  unsigned bits = t.getIntOrFloatBitWidth();
  double lo = isSigned ? -std::ldexp(1.0, bits - 1) : 0;
  double hi = isSigned ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  q = n.call("torch.clamp", {{"input", q}, {"min", n.f64(lo)}, {"max", n.f64(hi)}});
  return n.cast(q, t);
}

/// (v - zp) as float32 (float64 with `wide`).
Value centered(ImportNode &n, Value v, Value zp, bool wide = false) {
  Type f = wide ? Type(Float64Type::get(n.ctx())) : Type(Float32Type::get(n.ctx()));
  Value c = n.cast(v, f);
  if (zp)
    c = n.call("torch.sub", {{"input", c}, {"other", n.cast(zp, f)}});
  return c;
}

LogicalResult importQuantizeLinear(ImportNode &n) {
  Value x = n.in(0), scale = n.in(1);
  if (!x || !scale)
    return failure();
  Value zp = n.has(2) ? n.in(2) : Value();
  Type t = zp ? elemOf(zp) : Type(IntegerType::get(n.ctx(), 8, IntegerType::Unsigned));
  int64_t rank = rankOf(x);
  // (The axis is read for per-axis parameters only: per tensor, ONNX
  // ignores it, default 1 included on a 1-D input.)
  if (rankOf(scale) == 1 && rank > 1) {
    int64_t axis = norm(n.attrInt("axis", 1), rank);
    scale = alongAxis(n, scale, axis, rank);
    if (zp)
      zp = alongAxis(n, zp, axis, rank);
  }
  Value xf = n.cast(x, Float32Type::get(n.ctx()));
  return done(n, quantize(n, xf, scale, zp, t));
}

LogicalResult importDequantizeLinear(ImportNode &n) {
  Value x = n.in(0), scale = n.in(1);
  if (!x || !scale)
    return failure();
  Value zp = n.has(2) ? n.in(2) : Value();
  int64_t rank = rankOf(x);
  if (rankOf(scale) == 1 && rank > 1) {
    int64_t axis = norm(n.attrInt("axis", 1), rank);
    scale = alongAxis(n, scale, axis, rank);
    if (zp)
      zp = alongAxis(n, zp, axis, rank);
  }
  return done(n, n.call("torch.mul", {{"input", centered(n, x, zp)},
                                      {"other", scale}}));
}

LogicalResult importDynamicQuantizeLinear(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  SmallVector<int64_t> all(rank);
  std::iota(all.begin(), all.end(), 0);
  Type f32 = Float32Type::get(n.ctx());
  Type u8 = IntegerType::get(n.ctx(), 8, IntegerType::Unsigned);
  Value zero = n.scalar(0, f32);
  auto reduce = [&](StringRef target) {
    return rank ? n.call(target, {{"input", x}, {"dim", n.ints(all)}}) : x;
  };
  Value lo = n.call("torch.minimum", {{"input", reduce("torch.amin")}, {"other", zero}});
  Value hi = n.call("torch.maximum", {{"input", reduce("torch.amax")}, {"other", zero}});
  Value scale = n.call("torch.div", {{"input", n.call("torch.sub", {{"input", hi}, {"other", lo}})},
                                     {"other", n.f64(255)}});
  Value zpf = n.call("torch.sub", {{"input", zero},
                                   {"other", n.call("torch.div", {{"input", lo}, {"other", scale}})}});
  Value zp = quantize(n, zpf, n.scalar(1, f32), Value(), u8);
  n.set(1, scale);
  n.set(2, zp);
  return done(n, quantize(n, x, scale, zp, u8));
}

/// QLinearMatMul, MatMulInteger, QLinearConv, ConvInteger: the integer
/// products summed exactly in float64, then requantized (QLinear*) or
/// returned as int32 (*Integer).
LogicalResult importIntegerContraction(ImportNode &n) {
  StringRef op = n.opType();
  bool qlinear = op.starts_with("QLinear");
  bool conv = op.contains("Conv");
  // Operand positions: QLinear*: a, as, az, b, bs, bz, ys, yz (, bias);
  // *Integer: a, b, az, bz.
  unsigned ia = 0, iaz = qlinear ? 2 : 2, ib = qlinear ? 3 : 1,
           ibz = qlinear ? 5 : 3;
  Value a = n.in(ia), b = n.in(ib);
  if (!a || !b)
    return failure();
  Value az = n.has(iaz) ? n.in(iaz) : Value();
  Value bz = n.has(ibz) ? n.in(ibz) : Value();
  Value ac = centered(n, a, az, /*wide=*/true);
  if (conv && bz && rankOf(bz) == 1)
    bz = alongAxis(n, bz, 0, rankOf(b));
  Value bc = centered(n, b, bz, /*wide=*/true);
  if (!conv && bz && rankOf(bz) == 1 && rankOf(b) >= 2)
    bc = centered(n, b, alongAxis(n, bz, rankOf(b) - 1, rankOf(b)), true);
  Value acc;
  if (conv) {
    Arg bias = n.none();
    if (qlinear && n.has(8)) {
      Value bv = n.in(8);
      if (!bv)
        return failure();
      bias = n.cast(bv, Float64Type::get(n.ctx()));
    }
    acc = buildConv(n, ac, bc, bias, /*transposed=*/false);
  } else {
    acc = n.call("torch.matmul", {{"input", ac}, {"other", bc}});
  }
  if (!acc)
    return failure();
  if (!qlinear)
    return done(n, n.cast(n.call("torch.round", {{"input", acc}}),
                          IntegerType::get(n.ctx(), 32)));
  Value as = n.in(1), bs = n.in(4), ys = n.in(6), yz = n.has(7) ? n.in(7) : Value();
  if (!as || !bs || !ys)
    return failure();
  Type f64 = Float64Type::get(n.ctx());
  Value bsc = n.cast(bs, f64);
  if (conv && rankOf(bs) == 1)
    bsc = alongAxis(n, bsc, 1, rankOf(acc));
  Value factor = n.call("torch.div", {{"input", n.call("torch.mul", {{"input", n.cast(as, f64)},
                                                                    {"other", bsc}})},
                                      {"other", n.cast(ys, f64)}});
  Value scaled = n.call("torch.mul", {{"input", acc}, {"other", factor}});
  Type t = yz ? elemOf(yz) : elemOf(a);
  return done(n, quantize(n, scaled, n.scalar(1, f64), yz, t));
}

LogicalResult importBatchNorm(ImportNode &n) {
  if (n.attrInt("training_mode", 0))
    return n.fail("training-mode BatchNormalization is not imported");
  Value x = n.in(0), s = n.in(1), b = n.in(2), m = n.in(3), v = n.in(4);
  if (!x || !s || !b || !m || !v)
    return failure();
  return done(n, n.call("torch.nn.functional.batch_norm",
                        {{"input", x},
                         {"running_mean", m},
                         {"running_var", v},
                         {"weight", s},
                         {"bias", b},
                         {"training", n.boolean(false)},
                         {"momentum", n.f64(0.1)},
                         {"eps", n.f64(n.attrFloat("epsilon", 1e-5))}}));
}

LogicalResult importInstanceNorm(ImportNode &n) {
  Value x = n.in(0), s = n.in(1), b = n.in(2);
  if (!x || !s || !b)
    return failure();
  return done(n, n.call("torch.nn.functional.instance_norm",
                        {{"input", x},
                         {"weight", s},
                         {"bias", b},
                         {"eps", n.f64(n.attrFloat("epsilon", 1e-5))}}));
}

LogicalResult importLayerNorm(ImportNode &n) {
  Value x = n.in(0), s = n.in(1);
  if (!x || !s)
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t axis = norm(n.attrInt("axis", -1), xt.getRank());
  if (n.attrInt("stash_type", 1) != 1 && isFloat(xt.getElementType()))
    return n.fail("stash_type other than float is not imported");
  SmallVector<int64_t> shape(xt.getShape().drop_front(axis));
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return n.fail("normalized dims must be static");
  Arg bias = n.none();
  if (n.has(2))
    bias = n.in(2);
  double eps = n.attrFloat("epsilon", 1e-5);
  Value y = n.call("torch.nn.functional.layer_norm",
                   {{"input", x},
                    {"normalized_shape", n.ints(shape)},
                    {"weight", s},
                    {"bias", bias},
                    {"eps", n.f64(eps)}});
  if (!y)
    return failure();
  n.set(0, y);
  // Mean and InvStdDev (float32 statistics over the normalized dims,
  // kept as 1s).
  auto wanted = [&](unsigned i) {
    return i < n.n.outputs.size() && !n.n.outputs[i].empty();
  };
  if (wanted(1) || wanted(2)) {
    SmallVector<int64_t> dims;
    for (int64_t i = axis; i < xt.getRank(); ++i)
      dims.push_back(i);
    Value xf = n.cast(x, Float32Type::get(n.ctx()));
    if (wanted(1))
      n.set(1, n.call("torch.mean", {{"input", xf},
                                     {"dim", n.ints(dims)},
                                     {"keepdim", n.boolean(true)}}));
    if (wanted(2)) {
      Value var = n.call("torch.var", {{"input", xf},
                                       {"dim", n.ints(dims)},
                                       {"unbiased", n.boolean(false)},
                                       {"keepdim", n.boolean(true)}});
      Value ve = n.call("torch.add", {{"input", var}, {"other", n.f64(eps)}});
      n.set(2, n.call("torch.rsqrt", {{"input", ve}}));
    }
  }
  return success();
}

LogicalResult importLpNorm(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  int64_t p = n.attrInt("p", 2);
  if (p != 1 && p != 2)
    return n.fail("LpNormalization takes p = 1 or 2");
  // ONNX divides by the norm itself (0 / 0 is NaN); F.normalize clamps it
  // by eps: use eps 0 to keep ONNX's answer.
  return done(n, n.call("torch.nn.functional.normalize",
                        {{"input", x},
                         {"p", n.f64(p)},
                         {"dim", n.i64(n.attrInt("axis", -1))},
                         {"eps", n.f64(0)}}));
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// AveragePool whose (asymmetric or large) pads are not counted: the
/// average of the zero-padded input over the average of a padded mask of
/// ones, each counting every position, is the sum over the count of input
/// positions.
LogicalResult importUncountedAveragePool(ImportNode &n, Value x,
                                         ArrayRef<int64_t> kernel,
                                         ArrayRef<int64_t> strides,
                                         ArrayRef<int64_t> pads, bool ceil) {
  int64_t k = kernel.size();
  SmallVector<int64_t> torchPad;
  for (int64_t i = k - 1; i >= 0; --i) {
    torchPad.push_back(pads[i]);
    torchPad.push_back(pads[i + k]);
  }
  auto pool = [&](Value v) {
    Value p = n.call("torch.nn.functional.pad", {{"input", v},
                                                 {"pad", n.ints(torchPad)},
                                                 {"mode", n.str("constant")},
                                                 {"value", n.f64(0)}});
    return n.call("torch.nn.functional.avg_pool" + std::to_string(k) + "d",
                  {{"input", p},
                   {"kernel_size", n.ints(kernel)},
                   {"stride", n.ints(strides)},
                   {"padding", n.ints(SmallVector<int64_t>(k, 0))},
                   {"ceil_mode", n.boolean(ceil)},
                   {"count_include_pad", n.boolean(true)}});
  };
  Value ones = n.call("torch.ones_like", {{"input", x}});
  return done(n, n.call("torch.div", {{"input", pool(x)}, {"other", pool(ones)}}));
}

LogicalResult importPool(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  bool isMax = n.opType() == "MaxPool";
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t k = xt.getRank() - 2;
  if (k < 1 || k > 3)
    return n.fail("only 1-D, 2-D and 3-D pooling is imported");
  if (n.n.outputs.size() > 1 && !n.n.outputs[1].empty())
    return n.fail("MaxPool's Indices output is not imported (ONNX's flat "
                  "indices differ from torch's)");
  if (n.attrInt("storage_order", 0))
    return n.fail("storage_order 1 is not imported");
  std::optional<SmallVector<int64_t>> kernel = n.attrInts("kernel_shape");
  if (!kernel || int64_t(kernel->size()) != k)
    return n.fail("its kernel_shape does not match its rank");
  SmallVector<int64_t> strides =
      n.attrInts("strides").value_or(SmallVector<int64_t>(k, 1));
  SmallVector<int64_t> dilations =
      n.attrInts("dilations").value_or(SmallVector<int64_t>(k, 1));
  SmallVector<int64_t> pads;
  if (failed(convPads(n, xt.getShape().drop_front(2), *kernel, strides,
                      dilations, pads)))
    return failure();
  bool ceil = n.attrInt("ceil_mode", 0);
  bool countPad = n.attrInt("count_include_pad", 0);
  bool autoPad = n.attrString("auto_pad", "NOTSET") != "NOTSET";
  SmallVector<int64_t> padding;
  // torch limits pads to half the kernel; larger or asymmetric pads (and
  // auto_pad's, which ONNX never counts) are applied first.
  bool explicitPad = autoPad;
  for (int64_t i = 0; i < k; ++i)
    explicitPad |= pads[i] != pads[i + k] || pads[i] * 2 > (*kernel)[i];
  if (!isMax && explicitPad && !countPad &&
      llvm::any_of(pads, [](int64_t p) { return p != 0; }))
    return importUncountedAveragePool(n, x, *kernel, strides, pads, ceil);
  if (explicitPad) {
    double fill = isMax ? -INFINITY : 0;
    if (!isFloat(xt.getElementType()))
      return n.fail("integer pooling with explicit pads is not imported");
    x = padFirst(n, x, pads, fill, padding);
    if (padding.empty() || llvm::any_of(padding, [](int64_t p) { return p; })) {
      // padFirst saw symmetric pads: apply them anyway.
      SmallVector<int64_t> torchPad;
      for (int64_t i = k - 1; i >= 0; --i) {
        torchPad.push_back(pads[i]);
        torchPad.push_back(pads[i + k]);
      }
      x = n.call("torch.nn.functional.pad", {{"input", x},
                                             {"pad", n.ints(torchPad)},
                                             {"mode", n.str("constant")},
                                             {"value", n.f64(fill)}});
      padding.assign(k, 0);
    }
  } else {
    padding.assign(pads.begin(), pads.begin() + k);
  }
  std::string dims = std::to_string(k) + "d";
  if (isMax)
    return done(n, n.call("torch.nn.functional.max_pool" + dims,
                          {{"input", x},
                           {"kernel_size", n.ints(*kernel)},
                           {"stride", n.ints(strides)},
                           {"padding", n.ints(padding)},
                           {"dilation", n.ints(dilations)},
                           {"ceil_mode", n.boolean(ceil)}}));
  if (llvm::any_of(dilations, [](int64_t d) { return d != 1; }))
    return n.fail("dilated AveragePool is not imported");
  return done(n, n.call("torch.nn.functional.avg_pool" + dims,
                        {{"input", x},
                         {"kernel_size", n.ints(*kernel)},
                         {"stride", n.ints(strides)},
                         {"padding", n.ints(padding)},
                         {"ceil_mode", n.boolean(ceil)},
                         {"count_include_pad", n.boolean(countPad)}}));
}

LogicalResult importGlobalPool(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  SmallVector<int64_t> dims;
  for (int64_t i = 2; i < rankOf(x); ++i)
    dims.push_back(i);
  StringRef op = n.opType();
  if (op == "GlobalAveragePool")
    return done(n, n.call("torch.mean", {{"input", x},
                                         {"dim", n.ints(dims)},
                                         {"keepdim", n.boolean(true)}}));
  return done(n, n.call("torch.amax", {{"input", x},
                                       {"dim", n.ints(dims)},
                                       {"keepdim", n.boolean(true)}}));
}

//===----------------------------------------------------------------------===//
// Reductions, softmax
//===----------------------------------------------------------------------===//

LogicalResult importReduce(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  bool keep = n.attrInt("keepdims", 1);
  std::optional<SmallVector<int64_t>> axes = n.attrInts("axes");
  if (!axes && n.has(1)) {
    axes = n.constInts(1);
    if (!axes)
      return n.fail("its axes must be a constant");
  }
  if (!axes || axes->empty()) {
    if (n.attrInt("noop_with_empty_axes", 0))
      return done(n, x);
    axes = SmallVector<int64_t>(rank);
    std::iota(axes->begin(), axes->end(), 0);
  }
  for (int64_t &a : *axes)
    a = norm(a, rank);
  StringRef op = n.opType();
  Attribute dims = n.ints(*axes);
  auto reduce = [&](StringRef target, Value v) {
    return n.call(target,
                  {{"input", v}, {"dim", dims}, {"keepdim", n.boolean(keep)}});
  };
  if (rank == 0)
    return done(n, x);
  if (op == "ReduceMean")
    return done(n, reduce("torch.mean", x));
  if (op == "ReduceSum")
    return done(n, n.cast(reduce("torch.sum", x), elemOf(x)));
  if (op == "ReduceMax")
    return done(n, reduce("torch.amax", x));
  if (op == "ReduceMin")
    return done(n, reduce("torch.amin", x));
  if (op == "ReduceLogSumExp")
    return done(n, reduce("torch.logsumexp", x));
  if (op == "ReduceSumSquare") {
    Value sq = n.call("torch.mul", {{"input", x}, {"other", x}});
    return done(n, n.cast(reduce("torch.sum", sq), elemOf(x)));
  }
  if (op == "ReduceLogSum")
    return done(n, n.call("torch.log", {{"input", reduce("torch.sum", x)}}));
  if (op == "ReduceL1" || op == "ReduceL2") {
    if (!isFloat(elemOf(x))) {
      Value a = op == "ReduceL1" ? n.call("torch.abs", {{"input", x}})
                                 : n.call("torch.mul", {{"input", x}, {"other", x}});
      Value s = n.cast(reduce("torch.sum", a), elemOf(x));
      if (op == "ReduceL1")
        return done(n, s);
      Value f = n.cast(s, Float64Type::get(n.ctx()));
      return done(n, n.cast(n.call("torch.sqrt", {{"input", f}}), elemOf(x)));
    }
    return done(n, n.call("torch.linalg.vector_norm",
                          {{"input", x},
                           {"ord", n.f64(op == "ReduceL1" ? 1 : 2)},
                           {"dim", dims},
                           {"keepdim", n.boolean(keep)}}));
  }
  if (op == "ReduceProd") {
    // torch.prod takes one dim: reduce the axes one at a time, last first.
    SmallVector<int64_t> sorted(*axes);
    llvm::sort(sorted);
    Value v = x;
    for (int64_t a : llvm::reverse(sorted))
      v = n.call("torch.prod", {{"input", v},
                                {"dim", n.i64(a)},
                                {"keepdim", n.boolean(keep)}});
    return done(n, n.cast(v, elemOf(x)));
  }
  return n.fail("unhandled reduction");
}

LogicalResult importArgReduce(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  if (rankOf(x) < 1)
    return n.fail("its input must have rank 1 or more");
  int64_t axis = norm(n.attrInt("axis", 0), rankOf(x));
  bool keep = n.attrInt("keepdims", 1);
  bool isMax = n.opType() == "ArgMax";
  if (n.attrInt("select_last_index", 0)) {
    // The last extreme: the first one of the flipped input, mirrored.
    int64_t size = cast<RankedTensorType>(x.getType()).getDimSize(axis);
    if (ShapedType::isDynamic(size))
      return n.fail("select_last_index needs a static size along axis");
    Value f = n.call("torch.flip", {{"input", x}, {"dims", n.ints({axis})}});
    Value i = n.call(isMax ? "torch.argmax" : "torch.argmin",
                     {{"input", f}, {"dim", n.i64(axis)},
                      {"keepdim", n.boolean(keep)}});
    Value r = n.call("torch.sub", {{"input", n.i64(size - 1)}, {"other", i}});
    return done(n, r);
  }
  return done(n, n.call(isMax ? "torch.argmax" : "torch.argmin",
                        {{"input", x},
                         {"dim", n.i64(axis)},
                         {"keepdim", n.boolean(keep)}}));
}

/// One at the first maximum along axis (the input as 2-D before opset 13).
LogicalResult importHardmax(ImportNode &n, Value x, int64_t opset) {
  auto xt = cast<RankedTensorType>(x.getType());
  if (rankOf(x) < 1)
    return n.fail("its input must have rank 1 or more");

  if (!xt.hasStaticShape())
    return n.fail("Hardmax needs a static shape");
  int64_t rank = xt.getRank();
  Value v = x;
  int64_t axis = norm(n.attrInt("axis", opset >= 13 ? -1 : 1), rank);
  if (opset < 13 && rank > 1) {
    int64_t outer = 1;
    for (int64_t i = 0; i < axis; ++i)
      outer *= xt.getDimSize(i);
    v = n.reshape(x, {outer, xt.getNumElements() / std::max<int64_t>(outer, 1)});
    axis = 1;
  }
  auto vt = cast<RankedTensorType>(v.getType());
  int64_t size = vt.getDimSize(axis);
  Value idx = n.call("torch.argmax", {{"input", v},
                                      {"dim", n.i64(axis)},
                                      {"keepdim", n.boolean(true)}});
  Value classes = n.call("torch.arange", {{"start", n.i64(size)}});
  SmallVector<int64_t> shape(vt.getRank(), 1);
  shape[axis] = size;
  classes = n.reshape(classes, shape);
  Value eq = n.call("torch.eq", {{"input", classes}, {"other", idx}});
  Value r = n.cast(eq, xt.getElementType());
  return done(n, n.reshape(r, xt.getShape()));
}

LogicalResult importSoftmax(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  StringRef op = n.opType();
  StringRef target = op == "LogSoftmax" ? "torch.nn.functional.log_softmax"
                                        : "torch.nn.functional.softmax";
  int64_t opset = n.im.model.defaultOpset();
  if (op == "Hardmax")
    return importHardmax(n, x, opset);
  if (opset >= 13 || rank <= 1) {
    int64_t axis = n.attrInt("axis", -1);
    return done(n, n.call(target, {{"input", x}, {"dim", n.i64(axis)}}));
  }
  // Opsets before 13: the input as a 2-D [prod(:axis), prod(axis:)].
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t axis = norm(n.attrInt("axis", 1), rank);
  if (!xt.hasStaticShape())
    return n.fail("opset < 13 Softmax needs a static shape");
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= xt.getDimSize(i);
  Value flat = n.reshape(x, {outer, xt.getNumElements() / std::max<int64_t>(outer, 1)});
  Value s = n.call(target, {{"input", flat}, {"dim", n.i64(1)}});
  return done(n, n.reshape(s, xt.getShape()));
}

LogicalResult importCumSum(ImportNode &n) {
  Value x = n.in(0);
  std::optional<SmallVector<int64_t>> axis = n.constInts(1);
  if (!x || !axis || axis->size() != 1)
    return n.fail("its axis must be a constant");
  int64_t a = norm((*axis)[0], rankOf(x));
  bool reverse = n.attrInt("reverse", 0), exclusive = n.attrInt("exclusive", 0);
  Value v = x;
  if (reverse)
    v = n.call("torch.flip", {{"input", v}, {"dims", n.ints({a})}});
  Value s = n.call("torch.cumsum", {{"input", v}, {"dim", n.i64(a)}});
  s = n.cast(s, elemOf(x));
  if (exclusive)
    s = n.call("torch.sub", {{"input", s}, {"other", v}});
  if (reverse)
    s = n.call("torch.flip", {{"input", s}, {"dims", n.ints({a})}});
  return done(n, s);
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

LogicalResult importReshape(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  std::optional<SmallVector<int64_t>> shape =
      n.hasAttr("shape") ? n.attrInts("shape") : n.constInts(1);
  if (!shape)
    return n.fail("its shape must be a constant (give the graph input that "
                  "holds it as a constant input)");
  auto xt = cast<RankedTensorType>(x.getType());
  bool allowZero = n.attrInt("allowzero", 0);
  for (auto [i, d] : llvm::enumerate(*shape))
    if (d == 0 && !allowZero) {
      if (int64_t(i) >= xt.getRank())
        return n.fail("its shape copies a dim the input does not have");
      d = xt.getDimSize(i);
      if (ShapedType::isDynamic(d))
        return n.fail("its shape copies a dynamic dim");
    }
  return done(n, n.call("torch.reshape", {{"input", x}, {"shape", n.ints(*shape)}}));
}

LogicalResult importFlatten(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t axis = norm(n.attrInt("axis", 1), xt.getRank());
  if (!xt.hasStaticShape())
    return n.fail("Flatten needs a static shape");
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= xt.getDimSize(i);
  int64_t inner = 1;
  for (int64_t i = axis; i < xt.getRank(); ++i)
    inner *= xt.getDimSize(i);
  return done(n, n.call("torch.reshape",
                        {{"input", x}, {"shape", n.ints({outer, inner})}}));
}

/// Squeeze / Unsqueeze: the axes as an attribute (opset < 13) or a
/// constant input; the result shape computed here.
LogicalResult importSqueeze(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  bool un = n.opType() == "Unsqueeze";
  std::optional<SmallVector<int64_t>> axes =
      n.hasAttr("axes") ? n.attrInts("axes") : n.constInts(1);
  if (n.has(1) && !axes)
    return n.fail("its axes must be a constant");
  SmallVector<int64_t> shape(xt.getShape());
  if (un) {
    if (!axes)
      return n.fail("Unsqueeze needs axes");
    int64_t rank = xt.getRank() + axes->size();
    SmallVector<int64_t> sorted;
    for (int64_t a : *axes)
      sorted.push_back(norm(a, rank));
    llvm::sort(sorted);
    for (int64_t a : sorted) {
      if (a < 0 || a > int64_t(shape.size()))
        return n.fail("an axis is out of range");
      shape.insert(shape.begin() + a, 1);
    }
  } else {
    SmallVector<int64_t> kept;
    for (int64_t i = 0; i < xt.getRank(); ++i) {
      bool drop = axes ? llvm::any_of(*axes, [&](int64_t a) {
        return norm(a, xt.getRank()) == i;
      })
                       : shape[i] == 1;
      if (drop && shape[i] != 1)
        return n.fail("it squeezes a dim whose size is not 1");
      if (!drop)
        kept.push_back(shape[i]);
    }
    shape = kept;
  }
  if (llvm::count_if(shape, ShapedType::isDynamic) > 1)
    return n.fail("more than one dynamic dim");
  for (int64_t &d : shape)
    if (ShapedType::isDynamic(d))
      d = -1;
  return done(n, n.call("torch.reshape", {{"input", x}, {"shape", n.ints(shape)}}));
}

LogicalResult importTranspose(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  SmallVector<int64_t> perm(rank);
  std::iota(perm.rbegin(), perm.rend(), 0);
  if (std::optional<SmallVector<int64_t>> p = n.attrInts("perm"))
    perm = *p;
  return done(n, n.call("torch.permute", {{"input", x}, {"dims", n.ints(perm)}}));
}

LogicalResult importConcat(ImportNode &n) {
  SmallVector<Value> parts;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    Value v = n.in(i);
    if (!v)
      return failure();
    parts.push_back(v);
  }
  return done(n, n.call("torch.cat", {{"tensors", Arg::list(n.ctx(), parts)},
                                      {"dim", n.i64(n.attrInt("axis", 0))}}));
}

LogicalResult importSplit(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  if (rankOf(x) < 1)
    return n.fail("its input must have rank 1 or more");
  int64_t axis = norm(n.attrInt("axis", 0), xt.getRank());
  int64_t size = xt.getDimSize(axis);
  std::optional<SmallVector<int64_t>> split =
      n.hasAttr("split") ? n.attrInts("split") : n.constInts(1);
  if (n.has(1) && !split)
    return n.fail("its split sizes must be a constant");
  size_t outs = n.n.outputs.size();
  if (!split) {
    if (ShapedType::isDynamic(size))
      return n.fail("an even split of a dynamic dim is not imported");
    if (size % outs)
      return n.fail("the dim does not split evenly into the outputs");
    split = SmallVector<int64_t>(outs, size / outs);
  }
  Value pieces = n.call("torch.split", {{"input", x},
                                        {"split_size_or_sections", n.ints(*split)},
                                        {"dim", n.i64(axis)}});
  if (!pieces)
    return failure();
  for (size_t i = 0; i < outs; ++i)
    n.set(i, n.call("operator.getitem",
                    {{"input", pieces}, {"index", n.i64(i)}}));
  return success();
}

LogicalResult importSlice(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  std::optional<SmallVector<int64_t>> starts, ends, axes, steps;
  if (n.hasAttr("starts")) { // opset < 10
    starts = n.attrInts("starts");
    ends = n.attrInts("ends");
    axes = n.attrInts("axes");
  } else {
    starts = n.constInts(1);
    ends = n.constInts(2);
    axes = n.has(3) ? n.constInts(3) : std::nullopt;
    steps = n.has(4) ? n.constInts(4) : std::nullopt;
    if (!starts || !ends || (n.has(3) && !axes) || (n.has(4) && !steps))
      return n.fail("its starts, ends, axes and steps must be constants");
  }
  if (!axes) {
    axes = SmallVector<int64_t>(starts->size());
    std::iota(axes->begin(), axes->end(), 0);
  }
  if (!steps)
    steps = SmallVector<int64_t>(starts->size(), 1);
  auto xt = cast<RankedTensorType>(x.getType());
  SmallVector<Attribute> index(rank, SliceAttr::get(n.ctx(), n.none(),
                                                    n.none(), n.none()));
  SmallVector<int64_t> flips;
  for (size_t i = 0; i < starts->size(); ++i) {
    int64_t a = norm((*axes)[i], rank);
    int64_t size = xt.getDimSize(a);
    int64_t s = (*starts)[i], e = (*ends)[i], st = (*steps)[i];
    if (st == 0)
      return n.fail("a slice step is 0");
    if (ShapedType::isDynamic(size))
      return n.fail("slicing a dynamic dim is not imported");
    // Clamp as ONNX does (to [0, size] for positive steps, [-1, size-1]
    // for negative ones).
    auto clampIdx = [&](int64_t v, bool neg) {
      if (v < 0)
        v += size;
      return neg ? std::clamp<int64_t>(v, -1, size - 1)
                 : std::clamp<int64_t>(v, 0, size);
    };
    if (st > 0) {
      s = clampIdx(s, false);
      e = clampIdx(e, false);
    } else {
      // x[s:e:-k] is flip(x)[size-1-s : size-1-e : k].
      s = clampIdx(s, true);
      e = clampIdx(e, true);
      s = size - 1 - s;
      e = size - 1 - e;
      st = -st;
      flips.push_back(a);
    }
    index[a] = SliceAttr::get(n.ctx(), n.i64(s), n.i64(std::max(e, s)),
                              n.i64(st));
  }
  if (!flips.empty())
    x = n.call("torch.flip", {{"input", x}, {"dims", n.ints(flips)}});
  return done(n, n.call("operator.getitem",
                        {{"input", x},
                         {"index", TupleAttr::get(n.ctx(), ArrayAttr::get(
                                                             n.ctx(), index))}}));
}

/// Indices made non-negative: ONNX counts negative indices from the end;
/// index_select and gather do not take them.
Value wrapIndices(ImportNode &n, Value idx, int64_t size) {
  Value neg = n.call("torch.lt", {{"input", idx}, {"other", n.i64(0)}});
  Value plus = n.call("torch.add", {{"input", idx}, {"other", n.i64(size)}});
  return n.call("torch.where",
                {{"condition", neg}, {"input", plus}, {"other", idx}});
}

LogicalResult importGather(ImportNode &n) {
  Value x = n.in(0), idx = n.in(1);
  if (!x || !idx)
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  auto it = cast<RankedTensorType>(idx.getType());
  if (rankOf(x) < 1)
    return n.fail("its input must have rank 1 or more");
  int64_t axis = norm(n.attrInt("axis", 0), xt.getRank());
  int64_t size = xt.getDimSize(axis);
  if (ShapedType::isDynamic(size))
    return n.fail("gathering along a dynamic dim is not imported");
  idx = n.cast(idx, IntegerType::get(n.ctx(), 64));
  idx = wrapIndices(n, idx, size);
  if (n.opType() == "GatherElements")
    return done(n, n.call("torch.gather",
                          {{"input", x}, {"dim", n.i64(axis)}, {"index", idx}}));
  // Gather: x's dims before axis, the indices' dims, x's dims after.
  if (!it.hasStaticShape() || !xt.hasStaticShape())
    return n.fail("Gather needs static shapes");
  Value flat = n.reshape(idx, {it.getNumElements()});
  Value sel = n.call("torch.index_select",
                     {{"input", x}, {"dim", n.i64(axis)}, {"index", flat}});
  SmallVector<int64_t> shape(xt.getShape().take_front(axis));
  shape.append(it.getShape().begin(), it.getShape().end());
  shape.append(xt.getShape().begin() + axis + 1, xt.getShape().end());
  return done(n, n.reshape(sel, shape));
}

/// ScatterND without reduction: index_put with one index tensor per
/// indexed dim (the last dim of `indices` split).
LogicalResult importScatterND(ImportNode &n) {
  Value x = n.in(0), idx = n.in(1), upd = n.in(2);
  if (!x || !idx || !upd)
    return failure();
  std::string reduction = n.attrString("reduction", "none");
  if (reduction != "none" && reduction != "add")
    return n.fail("ScatterND's '" + reduction + "' reduction is not imported");
  auto it = cast<RankedTensorType>(idx.getType());
  int64_t k = it.getDimSize(it.getRank() - 1);
  if (ShapedType::isDynamic(k) || !it.hasStaticShape())
    return n.fail("its indices must have a static shape");
  SmallVector<Value> parts;
  SmallVector<Attribute> markers;
  for (int64_t j = 0; j < k; ++j) {
    Value part = n.call("torch.select", {{"input", idx},
                                         {"dim", n.i64(it.getRank() - 1)},
                                         {"index", n.i64(j)}});
    markers.push_back(OperandAttr::get(n.ctx(), j));
    parts.push_back(part);
  }
  Arg indices(TupleAttr::get(n.ctx(), ArrayAttr::get(n.ctx(), markers)));
  indices.values = parts;
  return done(n, n.call("torch.index_put", {{"input", x},
                                            {"indices", indices},
                                            {"values", upd},
                                            {"accumulate", n.boolean(reduction == "add")}}));
}

/// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: torch's
/// nll_loss and cross_entropy, whose semantics ONNX took (ignore_index,
/// weights, the mean over the weights of the targets counted).
LogicalResult importLoss(ImportNode &n) {
  Value x = n.in(0), target = n.in(1);
  if (!x || !target)
    return failure();
  bool nll = n.opType() == "NegativeLogLikelihoodLoss";
  target = n.cast(target, IntegerType::get(n.ctx(), 64));
  Arg weight = n.none();
  if (n.has(2)) {
    Value w = n.in(2);
    if (!w)
      return failure();
    weight = w;
  }
  std::string reduction = n.attrString("reduction", "mean");
  // Without ignore_index nothing is ignored: torch's default -100 is a
  // class index no target can hold then (targets are in [0, C)).
  int64_t ignore = n.attrInt("ignore_index", -100);
  SmallVector<KwArg> args = {{"input", x},
                             {"target", target},
                             {"weight", weight},
                             {"ignore_index", n.i64(ignore)},
                             {"reduction", n.str(reduction)}};
  Value loss = n.call(nll ? "torch.nn.functional.nll_loss"
                          : "torch.nn.functional.cross_entropy",
                      args);
  if (!loss)
    return failure();
  n.set(0, loss);
  if (!nll && n.n.outputs.size() > 1 && !n.n.outputs[1].empty())
    n.set(1, n.call("torch.nn.functional.log_softmax",
                    {{"input", x}, {"dim", n.i64(1)}}));
  return success();
}

/// ScatterElements (and the deprecated Scatter): torch.scatter, or
/// scatter_reduce for the add/mul reductions.
LogicalResult importScatterElements(ImportNode &n) {
  Value x = n.in(0), idx = n.in(1), upd = n.in(2);
  if (!x || !idx || !upd)
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  if (rankOf(x) < 1)
    return n.fail("its input must have rank 1 or more");
  int64_t axis = norm(n.attrInt("axis", 0), xt.getRank());
  int64_t size = xt.getDimSize(axis);
  if (ShapedType::isDynamic(size))
    return n.fail("scattering along a dynamic dim is not imported");
  idx = wrapIndices(n, n.cast(idx, IntegerType::get(n.ctx(), 64)), size);
  std::string reduction = n.attrString("reduction", "none");
  if (reduction == "none")
    return done(n, n.call("torch.scatter", {{"input", x},
                                            {"dim", n.i64(axis)},
                                            {"index", idx},
                                            {"src", upd}}));
  if (reduction != "add" && reduction != "mul")
    return n.fail("reduction '" + reduction + "' is not imported");
  return done(n, n.call("torch.scatter_reduce",
                        {{"input", x},
                         {"dim", n.i64(axis)},
                         {"index", idx},
                         {"src", upd},
                         {"reduce", n.str(reduction == "add" ? "sum" : "prod")},
                         {"include_self", n.boolean(true)}}));
}

/// GatherND (batch_dims 0): advanced indexing with the last dim of the
/// indices split into one index tensor per indexed dim.
LogicalResult importGatherND(ImportNode &n) {
  Value x = n.in(0), idx = n.in(1);
  if (!x || !idx)
    return failure();
  if (n.attrInt("batch_dims", 0) != 0)
    return n.fail("GatherND with batch_dims is not imported");
  auto it = cast<RankedTensorType>(idx.getType());
  int64_t k = it.getDimSize(it.getRank() - 1);
  if (!it.hasStaticShape())
    return n.fail("its indices must have a static shape");
  SmallVector<Value> parts;
  SmallVector<Attribute> markers;
  for (int64_t j = 0; j < k; ++j) {
    parts.push_back(n.call("torch.select", {{"input", idx},
                                            {"dim", n.i64(it.getRank() - 1)},
                                            {"index", n.i64(j)}}));
    markers.push_back(OperandAttr::get(n.ctx(), j));
  }
  Arg indices(ArrayAttr::get(n.ctx(), markers));
  indices.values = parts;
  return done(n, n.call("torch.ops.aten.index.Tensor",
                        {{"input", x}, {"indices", indices}}));
}

LogicalResult importOneHot(ImportNode &n) {
  Value idx = n.in(0), values = n.in(2);
  std::optional<SmallVector<double>> depth = n.constFloats(1);
  if (!idx || !values || !depth || depth->size() != 1)
    return n.fail("its depth must be a constant");
  int64_t d = int64_t((*depth)[0]);
  Value i64 = n.cast(idx, IntegerType::get(n.ctx(), 64));
  // Negative indices count from the end; out-of-range ones give all-off
  // rows (ONNX); torch's one_hot refuses them, so they are mapped to a
  // spare class that is cut off.
  i64 = wrapIndices(n, i64, d);
  Value inRange = n.call("torch.logical_and",
                         {{"input", n.call("torch.ge", {{"input", i64}, {"other", n.i64(0)}})},
                          {"other", n.call("torch.lt", {{"input", i64}, {"other", n.i64(d)}})}});
  Value safe = n.call("torch.where", {{"condition", inRange},
                                      {"input", i64},
                                      {"other", n.scalar(d, IntegerType::get(n.ctx(), 64))}});
  Value oh = n.call("torch.nn.functional.one_hot",
                    {{"input", safe}, {"num_classes", n.i64(d + 1)}});
  if (!oh)
    return failure();
  int64_t rank = rankOf(oh);
  oh = n.call("torch.narrow", {{"input", oh},
                               {"dim", n.i64(rank - 1)},
                               {"start", n.i64(0)},
                               {"length", n.i64(d)}});
  int64_t axis = norm(n.attrInt("axis", -1), rank);
  if (axis != rank - 1)
    oh = n.call("torch.movedim", {{"input", oh},
                                  {"source", n.i64(rank - 1)},
                                  {"destination", n.i64(axis)}});
  Value off = n.call("torch.select", {{"input", values}, {"dim", n.i64(0)}, {"index", n.i64(0)}});
  Value on = n.call("torch.select", {{"input", values}, {"dim", n.i64(0)}, {"index", n.i64(1)}});
  Value mask = n.call("torch.eq", {{"input", oh}, {"other", n.i64(1)}});
  return done(n, n.call("torch.where",
                        {{"condition", mask}, {"input", on}, {"other", off}}));
}

LogicalResult importEyeLike(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  if (xt.getRank() != 2 || !xt.hasStaticShape())
    return n.fail("EyeLike takes a static 2-D input");
  Type element = n.hasAttr("dtype")
                     ? elementTypeOf(n.ctx(), n.attrInt("dtype", 1))
                     : xt.getElementType();
  if (!element)
    return n.fail("its dtype is not one traced tensors hold");
  int64_t k = n.attrInt("k", 0);
  Value ones = n.call("torch.ones", {{"size", n.ints(xt.getShape())},
                                     {"dtype", n.dtype(element)}});
  Value lower = n.call("torch.tril", {{"input", ones}, {"diagonal", n.i64(k)}});
  return done(n, n.call("torch.triu", {{"input", lower}, {"diagonal", n.i64(k)}}));
}

LogicalResult importExpand(ImportNode &n) {
  Value x = n.in(0);
  std::optional<SmallVector<int64_t>> shape = n.constInts(1);
  if (!x || !shape)
    return n.fail("its shape must be a constant");
  auto xt = cast<RankedTensorType>(x.getType());
  // Bidirectional broadcasting of the input's shape and `shape`.
  int64_t rank = std::max<int64_t>(xt.getRank(), shape->size());
  SmallVector<int64_t> out(rank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t a = i - (rank - xt.getRank()) >= 0
                    ? xt.getDimSize(i - (rank - xt.getRank()))
                    : 1;
    int64_t b = i - (rank - int64_t(shape->size())) >= 0
                    ? (*shape)[i - (rank - shape->size())]
                    : 1;
    if (a != b && a != 1 && b != 1)
      return n.fail("its shape does not broadcast with the input's");
    out[i] = a == 1 ? b : a;
  }
  return done(n, n.call("Tensor.expand", {{"input", x}, {"size", n.ints(out)}}));
}

LogicalResult importTile(ImportNode &n) {
  Value x = n.in(0);
  std::optional<SmallVector<int64_t>> reps = n.constInts(1);
  if (!x || !reps)
    return n.fail("its repeats must be a constant");
  return done(n, n.call("torch.tile", {{"input", x}, {"dims", n.ints(*reps)}}));
}

LogicalResult importPad(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  std::optional<SmallVector<int64_t>> pads =
      n.hasAttr("pads") ? n.attrInts("pads") : n.constInts(1);
  if (!pads || int64_t(pads->size()) != 2 * rank)
    return n.fail("its pads must be a constant of two entries per dim");
  double value = n.attrFloat("value", 0);
  if (n.has(2)) {
    std::optional<SmallVector<double>> v = n.constFloats(2);
    if (!v || v->size() != 1)
      return n.fail("its constant_value must be a constant");
    value = (*v)[0];
  }
  if (n.has(3))
    return n.fail("Pad's axes input is not imported");
  std::string mode = n.attrString("mode", "constant");
  SmallVector<int64_t> torchPad;
  for (int64_t i = rank - 1; i >= 0; --i) {
    torchPad.push_back((*pads)[i]);
    torchPad.push_back((*pads)[i + rank]);
  }
  // torch pads the trailing dims: drop the leading unpadded pairs, which
  // reflect/replicate modes refuse.
  while (torchPad.size() > 2 && torchPad[torchPad.size() - 1] == 0 &&
         torchPad[torchPad.size() - 2] == 0)
    torchPad.resize(torchPad.size() - 2);
  StringRef torchMode = mode == "constant"  ? "constant"
                        : mode == "reflect" ? "reflect"
                        : mode == "edge"    ? "replicate"
                                            : "";
  if (torchMode.empty())
    return n.fail("pad mode '" + mode + "' is not imported");
  SmallVector<KwArg> args = {{"input", x},
                             {"pad", n.ints(torchPad)},
                             {"mode", n.str(torchMode)}};
  if (torchMode == "constant")
    args.push_back({"value", n.f64(value)});
  return done(n, n.call("torch.nn.functional.pad", args));
}

/// Shape and Size of static tensors: constants.
LogicalResult importShape(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  if (!xt.hasStaticShape())
    return n.fail("the shape of a tensor with dynamic dims is not imported "
                  "as a value yet");
  SmallVector<int64_t> dims(xt.getShape());
  if (n.opType() == "Size")
    dims = {xt.getNumElements()};
  else {
    int64_t rank = xt.getRank();
    // (start and end are clamped, not checked: ONNX's Shape takes any.)
    auto wrap = [&](int64_t d) { return d < 0 ? d + rank : d; };
    int64_t start = std::clamp<int64_t>(wrap(n.attrInt("start", 0)), 0, rank);
    int64_t end = std::clamp<int64_t>(
        n.hasAttr("end") ? wrap(n.attrInt("end", rank)) : rank, 0, rank);
    dims = SmallVector<int64_t>(dims.begin() + start,
                                dims.begin() + std::max(start, end));
  }
  auto t = std::make_unique<onnx::Tensor>();
  t->name = n.n.outputs[0];
  t->dataType = onnx::kInt64;
  if (n.opType() == "Shape")
    t->dims = {int64_t(dims.size())};
  t->raw.assign(reinterpret_cast<const char *>(dims.data()),
                dims.size() * sizeof(int64_t));
  n.im.constants[t->name] = t.get();
  n.im.owned.push_back(std::move(t));
  return success();
}

LogicalResult importConstant(ImportNode &n) {
  auto t = std::make_unique<onnx::Tensor>();
  t->name = n.n.outputs[0];
  if (const onnx::Attribute *a = n.n.attr("value")) {
    if (a->tensors.empty())
      return n.fail("its value is not a tensor");
    *t = a->tensors.front();
    t->name = n.n.outputs[0];
  } else if (const onnx::Attribute *f = n.n.attr("value_float")) {
    t->dataType = onnx::kFloat;
    t->raw.assign(reinterpret_cast<const char *>(&f->f), 4);
  } else if (const onnx::Attribute *fs = n.n.attr("value_floats")) {
    t->dataType = onnx::kFloat;
    t->dims = {int64_t(fs->floats.size())};
    t->raw.assign(reinterpret_cast<const char *>(fs->floats.data()),
                  fs->floats.size() * 4);
  } else if (const onnx::Attribute *i = n.n.attr("value_int")) {
    t->dataType = onnx::kInt64;
    t->raw.assign(reinterpret_cast<const char *>(&i->i), 8);
  } else if (const onnx::Attribute *is = n.n.attr("value_ints")) {
    t->dataType = onnx::kInt64;
    t->dims = {int64_t(is->ints.size())};
    t->raw.assign(reinterpret_cast<const char *>(is->ints.data()),
                  is->ints.size() * 8);
  } else {
    return n.fail("only tensor, float(s) and int(s) constants are imported");
  }
  n.im.constants[t->name] = t.get();
  n.im.owned.push_back(std::move(t));
  return success();
}

LogicalResult importConstantOfShape(ImportNode &n) {
  std::optional<SmallVector<int64_t>> shape = n.constInts(0);
  if (!shape)
    return n.fail("its shape must be a constant");
  Type element = Float32Type::get(n.ctx());
  double v = 0;
  if (const onnx::Attribute *a = n.n.attr("value")) {
    if (a->tensors.empty())
      return n.fail("its value is not a tensor");
    element = elementTypeOf(n.ctx(), a->tensors[0].dataType);
    std::optional<SmallVector<double>> d = tensorDoubles(a->tensors[0]);
    if (!element || !d || d->size() != 1)
      return n.fail("its value must be one element of a real type");
    v = (*d)[0];
  }
  Attribute fill = isFloat(element) ? n.f64(v) : n.i64(int64_t(v));
  if (element.isInteger(1))
    fill = n.boolean(v != 0);
  return done(n, n.call("torch.full", {{"size", n.ints(*shape)},
                                       {"fill_value", fill},
                                       {"dtype", n.dtype(element)}}));
}

LogicalResult importRange(ImportNode &n) {
  std::optional<SmallVector<double>> s = n.constFloats(0), l = n.constFloats(1),
                                     d = n.constFloats(2);
  Value start = n.in(0);
  if (!s || !l || !d || !start)
    return n.fail("its start, limit and delta must be constants");
  Type element = elemOf(start);
  auto num = [&](double v) {
    return isFloat(element) ? n.f64(v) : n.i64(int64_t(v));
  };
  return done(n, n.call("torch.arange", {{"start", num((*s)[0])},
                                         {"end", num((*l)[0])},
                                         {"step", num((*d)[0])},
                                         {"dtype", n.dtype(element)}}));
}

LogicalResult importEinsum(ImportNode &n) {
  SmallVector<Value> ops;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    Value v = n.in(i);
    if (!v)
      return failure();
    ops.push_back(v);
  }
  return done(n, n.call("torch.einsum",
                        {{"equation", n.str(n.attrString("equation", ""))},
                         {"operands", Arg::list(n.ctx(), ops)}}));
}

LogicalResult importTopK(ImportNode &n) {
  Value x = n.in(0);
  std::optional<SmallVector<int64_t>> k =
      n.hasAttr("k") ? SmallVector<int64_t>{n.attrInt("k", 0)} : n.constInts(1);
  if (!x || !k || k->size() != 1)
    return n.fail("its k must be a constant");
  Value r = n.call("torch.topk", {{"input", x},
                                  {"k", n.i64((*k)[0])},
                                  {"dim", n.i64(n.attrInt("axis", -1))},
                                  {"largest", n.boolean(n.attrInt("largest", 1))},
                                  {"sorted", n.boolean(true)}});
  if (!r)
    return failure();
  n.set(0, n.call("operator.getitem", {{"input", r}, {"index", n.i64(0)}}));
  n.set(1, n.call("operator.getitem", {{"input", r}, {"index", n.i64(1)}}));
  return success();
}

LogicalResult importTrilu(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  int64_t k = 0;
  if (n.has(1)) {
    std::optional<SmallVector<int64_t>> kk = n.constInts(1);
    if (!kk || kk->size() != 1)
      return n.fail("its k must be a constant");
    k = (*kk)[0];
  }
  return done(n, n.call(n.attrInt("upper", 1) ? "torch.triu" : "torch.tril",
                        {{"input", x}, {"diagonal", n.i64(k)}}));
}

LogicalResult importDepthToSpace(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  int64_t b = n.attrInt("blocksize", 0);
  auto xt = cast<RankedTensorType>(x.getType());
  if (xt.getRank() != 4 || !xt.hasStaticShape() || b < 1)
    return n.fail("only static 4-D inputs are imported");
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(2),
          W = xt.getDimSize(3);
  if (n.opType() == "DepthToSpace") {
    bool crd = n.attrString("mode", "DCR") == "CRD";
    if (crd)
      return done(n, n.call("torch.nn.functional.pixel_shuffle",
                            {{"input", x}, {"upscale_factor", n.i64(b)}}));
    Value r = n.reshape(x, {N, b, b, C / (b * b), H, W});
    Value p = n.call("torch.permute",
                     {{"input", r}, {"dims", n.ints({0, 3, 4, 1, 5, 2})}});
    return done(n, n.reshape(p, {N, C / (b * b), H * b, W * b}));
  }
  Value r = n.reshape(x, {N, C, H / b, b, W / b, b});
  Value p = n.call("torch.permute",
                   {{"input", r}, {"dims", n.ints({0, 3, 5, 1, 2, 4})}});
  return done(n, n.reshape(p, {N, C * b * b, H / b, W / b}));
}

/// The source index ONNX's nearest Resize reads for output `i` of a dim
/// resized from `in` to `out` at `scale` (the given one, or out / in).
int64_t nearestSource(int64_t i, int64_t in, int64_t out, double scale,
                      StringRef ctm, StringRef mode) {
  double x;
  if (ctm == "asymmetric")
    x = i / scale;
  else if (ctm == "align_corners")
    x = out == 1 ? 0 : double(i) * (in - 1) / (out - 1);
  else if (ctm == "pytorch_half_pixel")
    x = out > 1 ? (i + 0.5) / scale - 0.5 : 0;
  else if (ctm == "tf_half_pixel_for_nn")
    x = (i + 0.5) / scale;
  else // half_pixel
    x = (i + 0.5) / scale - 0.5;
  int64_t r;
  if (mode == "floor")
    r = int64_t(std::floor(x));
  else if (mode == "ceil")
    r = int64_t(std::ceil(x));
  else if (mode == "round_prefer_ceil")
    r = x - std::floor(x) == 0.5 ? int64_t(std::ceil(x))
                                 : int64_t(std::round(x));
  else // round_prefer_floor
    r = x - std::floor(x) == 0.5 ? int64_t(std::floor(x))
                                 : int64_t(std::round(x));
  return std::clamp<int64_t>(r, 0, in - 1);
}

LogicalResult importResize(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t rank = xt.getRank();
  std::string mode = n.attrString("mode", "nearest");
  // Upsample (opsets 7-9): asymmetric coordinates, floor rounding.
  bool upsample = n.opType() == "Upsample";
  std::string ctm = upsample ? "asymmetric"
                             : n.attrString("coordinate_transformation_mode",
                                            "half_pixel");
  if (n.hasAttr("antialias") && n.attrInt("antialias", 0))
    return n.fail("antialiased Resize is not imported");
  if (!xt.hasStaticShape())
    return n.fail("Resize needs a static input shape");
  if (ctm == "tf_crop_and_resize")
    return n.fail("tf_crop_and_resize is not imported");
  SmallVector<int64_t> sizes;
  SmallVector<double> scales;
  bool given = false;
  // Opsets 11+: (X, roi, scales, sizes); 10: (X, scales).
  unsigned scalesInput = n.numInputs() == 2 ? 1 : 2;
  if (n.has(3)) {
    std::optional<SmallVector<int64_t>> s = n.constInts(3);
    if (!s || int64_t(s->size()) != rank)
      return n.fail("its sizes must be a constant of the input's rank");
    sizes = *s;
    for (int64_t i = 0; i < rank; ++i)
      scales.push_back(double(sizes[i]) / xt.getDimSize(i));
  } else if (n.has(scalesInput) || n.hasAttr("scales")) {
    std::optional<SmallVector<double>> sc;
    if (const onnx::Attribute *a = n.n.attr("scales"))
      sc = SmallVector<double>(a->floats.begin(), a->floats.end());
    else
      sc = n.constFloats(scalesInput);
    if (!sc || int64_t(sc->size()) != rank)
      return n.fail("its scales must be a constant of the input's rank");
    scales = *sc;
    given = true;
    for (int64_t i = 0; i < rank; ++i)
      sizes.push_back(int64_t(std::floor(xt.getDimSize(i) * scales[i])));
  } else {
    return n.fail("it has neither scales nor sizes");
  }
  if (mode == "nearest") {
    // Any coordinate mode and rounding: the source indices, computed here
    // (static shapes), gathered dim by dim.
    std::string nearest =
        upsample ? "floor" : n.attrString("nearest_mode", "round_prefer_floor");
    Value v = x;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t in = xt.getDimSize(d), out = sizes[d];
      if (in == out && scales[d] == 1)
        continue;
      if (!n.withinLimit(out, "the source indices of a resized dim"))
        return failure();
      SmallVector<int64_t> idx;
      for (int64_t i = 0; i < out; ++i)
        idx.push_back(nearestSource(i, in, out, scales[d], ctm, nearest));
      auto type = RankedTensorType::get({out}, IntegerType::get(n.ctx(), 64));
      Value index = ConstantOp::create(
          n.im.b, n.im.loc, type,
          DenseElementsAttr::get(type, ArrayRef<int64_t>(idx)));
      v = n.call("torch.index_select",
                 {{"input", v}, {"dim", n.i64(d)}, {"index", index}});
    }
    return done(n, v);
  }
  if (rank < 3 || sizes[0] != xt.getDimSize(0) ||
      sizes[1] != xt.getDimSize(1))
    return n.fail("only spatial dims are resized (linear and cubic)");
  if (mode != "linear" && mode != "cubic")
    return n.fail("Resize mode '" + mode + "' is not imported");
  bool align = ctm == "align_corners";
  if (!align && ctm != "pytorch_half_pixel" && ctm != "half_pixel")
    return n.fail("coordinate_transformation_mode '" + ctm +
                  "' is not imported for linear and cubic modes");
  if (mode == "cubic" && n.attrFloat("cubic_coeff_a", -0.75) != -0.75)
    return n.fail("cubic_coeff_a other than -0.75 is not imported");
  if (mode == "cubic" && n.attrInt("exclude_outside", 0))
    return n.fail("exclude_outside is not imported");
  // pytorch_half_pixel reads position 0 for a dim resized to 1 (torch's
  // own interpolation does not): that dim is cut to its first element.
  if (ctm == "pytorch_half_pixel")
    for (int64_t d = 2; d < rank; ++d)
      if (sizes[d] == 1 && xt.getDimSize(d) > 1) {
        x = n.call("torch.narrow", {{"input", x},
                                    {"dim", n.i64(d)},
                                    {"start", n.i64(0)},
                                    {"length", n.i64(1)}});
        scales[d] = 1;
        given = false;
      }
  SmallVector<int64_t> spatial(sizes.begin() + 2, sizes.end());
  SmallVector<KwArg> args = {{"input", x}};
  if (given) {
    // The given scales place the samples (as ONNX does), not out / in.
    SmallVector<Attribute> sc;
    for (int64_t d = 2; d < rank; ++d)
      sc.push_back(n.f64(scales[d]));
    args.push_back({"scale_factor", ArrayAttr::get(n.ctx(), sc)});
    args.push_back({"recompute_scale_factor", n.boolean(false)});
  } else {
    args.push_back({"size", n.ints(spatial)});
  }
  StringRef m = mode == "cubic" ? "bicubic"
                : rank == 3     ? "linear"
                : rank == 4     ? "bilinear"
                                : "trilinear";
  args.push_back({"mode", n.str(m)});
  args.push_back({"align_corners", n.boolean(align)});
  return done(n, n.call("torch.nn.functional.interpolate", args));
}

LogicalResult importGridSample(ImportNode &n) {
  Value x = n.in(0), grid = n.in(1);
  if (!x || !grid)
    return failure();
  std::string mode = n.attrString("mode", "bilinear");
  std::string padding = n.attrString("padding_mode", "zeros");
  return done(n, n.call("torch.nn.functional.grid_sample",
                        {{"input", x},
                         {"grid", grid},
                         {"mode", n.str(mode)},
                         {"padding_mode", n.str(padding)},
                         {"align_corners",
                          n.boolean(n.attrInt("align_corners", 0))}}));
}

/// BlackmanWindow, HannWindow, HammingWindow of a constant size: the
/// window's values (they depend on the size only).
LogicalResult importWindow(ImportNode &n) {
  std::optional<SmallVector<int64_t>> size = n.constInts(0);
  if (!size || size->size() != 1 || (*size)[0] < 0)
    return n.fail("its size must be a constant");
  int64_t len = (*size)[0];
  if (!n.withinLimit(len, "the window"))
    return failure();
  Type element = elementTypeOf(n.ctx(), n.attrInt("output_datatype", 1));
  if (!element || !isFloat(element))
    return n.fail("its output_datatype must be a float type");
  double N = n.attrInt("periodic", 1) ? len : len - 1;
  StringRef op = n.opType();
  SmallVector<double> values;
  for (int64_t i = 0; i < len; ++i) {
    double t = N > 0 ? 2 * M_PI * i / N : 0;
    if (op == "HannWindow")
      values.push_back(0.5 - 0.5 * std::cos(t));
    else if (op == "HammingWindow")
      values.push_back(25.0 / 46 - (21.0 / 46) * std::cos(t));
    else
      values.push_back(0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2 * t));
  }
  auto type = RankedTensorType::get({len}, element);
  SmallVector<Attribute> attrs;
  for (double v : values)
    attrs.push_back(FloatAttr::get(element, v));
  return done(n, ConstantOp::create(n.im.b, n.im.loc, type,
                                    DenseElementsAttr::get(type, attrs))
                     .getResult());
}

/// Compress with a constant condition: index_select of the kept indices.
LogicalResult importCompress(ImportNode &n) {
  Value x = n.in(0);
  std::optional<SmallVector<int64_t>> cond = n.constInts(1);
  if (!x || !cond)
    return n.fail("its condition must be a constant (the result's size "
                  "depends on it)");
  SmallVector<int64_t> kept;
  for (auto [i, c] : llvm::enumerate(*cond))
    if (c)
      kept.push_back(i);
  Value v = x;
  int64_t axis = 0;
  if (rankOf(x) < 1)
    return n.fail("its input must have rank 1 or more");
  if (n.hasAttr("axis")) {
    axis = norm(n.attrInt("axis", 0), rankOf(x));
  } else {
    auto xt = cast<RankedTensorType>(x.getType());
    if (!xt.hasStaticShape())
      return n.fail("Compress without axis needs a static shape");
    v = n.reshape(x, {xt.getNumElements()});
  }
  int64_t size = cast<RankedTensorType>(v.getType()).getDimSize(axis);
  while (!kept.empty() && kept.back() >= size)
    kept.pop_back();
  auto type = RankedTensorType::get({int64_t(kept.size())},
                                    IntegerType::get(n.ctx(), 64));
  Value index = ConstantOp::create(
      n.im.b, n.im.loc, type, DenseElementsAttr::get(type, ArrayRef(kept)));
  return done(n, n.call("torch.index_select",
                        {{"input", v}, {"dim", n.i64(axis)}, {"index", index}}));
}

LogicalResult importMeanVarianceNormalization(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  SmallVector<int64_t> axes =
      n.attrInts("axes").value_or(SmallVector<int64_t>{0, 2, 3});
  for (int64_t &a : axes)
    a = norm(a, rankOf(x));
  Value mean = n.call("torch.mean", {{"input", x},
                                     {"dim", n.ints(axes)},
                                     {"keepdim", n.boolean(true)}});
  Value var = n.call("torch.var", {{"input", x},
                                   {"dim", n.ints(axes)},
                                   {"unbiased", n.boolean(false)},
                                   {"keepdim", n.boolean(true)}});
  Value sd = n.call("torch.add", {{"input", n.call("torch.sqrt", {{"input", var}})},
                                  {"other", n.f64(1e-9)}});
  Value c = n.call("torch.sub", {{"input", x}, {"other", mean}});
  return done(n, n.call("torch.div", {{"input", c}, {"other", sd}}));
}

/// LRN: x / (bias + alpha / size * (sum of squares over the channel
/// window))^beta, the window [c - (size-1)/2, c + ceil((size-1)/2)].
LogicalResult importLRN(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t size = n.attrInt("size", 0);
  if (size < 1 || size > (int64_t(1) << 16) || xt.getRank() < 3 ||
      ShapedType::isDynamic(xt.getDimSize(1)))
    return n.fail("LRN needs a size and a static channel dim");
  int64_t C = xt.getDimSize(1);
  double alpha = n.attrFloat("alpha", 1e-4), beta = n.attrFloat("beta", 0.75),
         bias = n.attrFloat("bias", 1);
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  Value sq = n.call("torch.mul", {{"input", x}, {"other", x}});
  SmallVector<int64_t> pad(2 * (xt.getRank() - 2), 0);
  pad.push_back(lo);
  pad.push_back(hi);
  Value padded = n.call("torch.nn.functional.pad",
                        {{"input", sq}, {"pad", n.ints(pad)},
                         {"mode", n.str("constant")}, {"value", n.f64(0)}});
  Value sum;
  for (int64_t k = 0; k < size && padded; ++k) {
    Value part = n.call("torch.narrow", {{"input", padded},
                                         {"dim", n.i64(1)},
                                         {"start", n.i64(k)},
                                         {"length", n.i64(C)}});
    sum = sum ? n.call("torch.add", {{"input", sum}, {"other", part}}) : part;
  }
  Value scaled = n.call("torch.mul", {{"input", sum}, {"other", n.f64(alpha / size)}});
  Value base = n.call("torch.add", {{"input", scaled}, {"other", n.f64(bias)}});
  Value denom = n.call("torch.pow", {{"input", base}, {"exponent", n.f64(beta)}});
  return done(n, n.call("torch.div", {{"input", x}, {"other", denom}}));
}

/// ReverseSequence with constant lengths: a gather along the time axis
/// of indices computed here.
LogicalResult importReverseSequence(ImportNode &n) {
  Value x = n.in(0);
  std::optional<SmallVector<int64_t>> lens = n.constInts(1);
  auto xt = x ? cast<RankedTensorType>(x.getType()) : RankedTensorType();
  if (!x || !lens || !xt.hasStaticShape())
    return n.fail("its sequence lengths must be a constant and the input "
                  "static");
  int64_t timeAxis = norm(n.attrInt("time_axis", 0), xt.getRank()),
          batchAxis = norm(n.attrInt("batch_axis", 1), xt.getRank());
  if (timeAxis == batchAxis || int64_t(lens->size()) != xt.getDimSize(batchAxis))
    return n.fail("its time and batch axes must differ and its lengths "
                  "match the batch");
  if (!n.withinLimit(xt.getNumElements(), "the reversed positions"))
    return failure();
  SmallVector<int64_t> idx(xt.getNumElements());
  SmallVector<int64_t> strides(xt.getRank(), 1);
  for (int64_t d = xt.getRank() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * xt.getDimSize(d + 1);
  for (int64_t i = 0; i < xt.getNumElements(); ++i) {
    int64_t t = (i / strides[timeAxis]) % xt.getDimSize(timeAxis);
    int64_t b = (i / strides[batchAxis]) % xt.getDimSize(batchAxis);
    int64_t len = (*lens)[b];
    idx[i] = t < len ? len - 1 - t : t;
  }
  auto type = RankedTensorType::get(xt.getShape(), IntegerType::get(n.ctx(), 64));
  Value index = ConstantOp::create(n.im.b, n.im.loc, type,
                                   DenseElementsAttr::get(type, ArrayRef(idx)));
  return done(n, n.call("torch.gather", {{"input", x},
                                         {"dim", n.i64(timeAxis)},
                                         {"index", index}}));
}

/// Gate blocks of `w` (its first dim: `gates` blocks of `h` rows) taken in
/// `order` and concatenated: ONNX's gate order to torch's.
Value reorderGates(ImportNode &n, Value w, int64_t h, ArrayRef<int64_t> order) {
  SmallVector<Value> parts;
  for (int64_t g : order)
    parts.push_back(n.call("torch.narrow", {{"input", w},
                                            {"dim", n.i64(0)},
                                            {"start", n.i64(g * h)},
                                            {"length", n.i64(h)}}));
  if (parts.size() == 1)
    return parts[0];
  return n.call("torch.cat", {{"tensors", Arg::list(n.ctx(), parts)},
                              {"dim", n.i64(0)}});
}

/// RNN, GRU and LSTM: torch's recurrent modules (traced.nn.rnn, one layer,
/// forward or bidirectional; reverse runs forward over the flipped
/// sequence), the weights' gate blocks reordered (ONNX: LSTM i, o, f, c;
/// GRU z, r, h; torch: i, f, g, o and r, z, n), the outputs reshaped to
/// ONNX's [seq, num_directions, batch, hidden].
LogicalResult importRecurrent(ImportNode &n) {
  StringRef op = n.opType();
  Value x = n.in(0), w = n.in(1), r = n.in(2);
  if (!x || !w || !r)
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(w.getType());
  if (xt.getRank() != 3 || wt.getRank() != 3 || !xt.hasStaticShape() ||
      !wt.hasStaticShape())
    return n.fail("its input and weights must be static and 3-D");
  int64_t H = n.attrInt("hidden_size", 0);
  int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
  if (H <= 0 || wt.getDimSize(1) != gates * H)
    return n.fail("its hidden_size does not match its weights");
  std::string direction = n.attrString("direction", "forward");
  bool bidirectional = direction == "bidirectional";
  bool reverse = direction == "reverse";
  if (!bidirectional && !reverse && direction != "forward")
    return n.fail("direction '" + direction + "' is not an ONNX direction");
  int64_t dirs = bidirectional ? 2 : 1;
  if (wt.getDimSize(0) != dirs)
    return n.fail("its weights do not have one block per direction");
  // Activations: the defaults (torch's), spelled out or not; an RNN's may
  // be Relu (torch's nonlinearity="relu").
  bool relu = false;
  if (const onnx::Attribute *a = n.n.attr("activations")) {
    SmallVector<StringRef> want =
        op == "LSTM"  ? SmallVector<StringRef>{"Sigmoid", "Tanh", "Tanh"}
        : op == "GRU" ? SmallVector<StringRef>{"Sigmoid", "Tanh"}
                      : SmallVector<StringRef>{"Tanh"};
    relu = op == "RNN" && !a->strings.empty() && a->strings[0] == "Relu";
    if (relu)
      want = {"Relu"};
    bool same = a->strings.size() == want.size() * dirs;
    for (size_t i = 0; same && i < a->strings.size(); ++i)
      same = StringRef(a->strings[i]).equals_insensitive(want[i % want.size()]);
    if (!same)
      return n.fail("activations other than torch's are not imported");
  }
  if (n.hasAttr("activation_alpha") || n.hasAttr("activation_beta") ||
      n.hasAttr("clip") || n.attrInt("input_forget", 0))
    return n.fail("activation_alpha/beta, clip and input_forget are not "
                  "imported");
  if (op == "LSTM" && n.has(7))
    return n.fail("LSTM peepholes are not imported");
  if (op == "GRU" && !n.attrInt("linear_before_reset", 0))
    return n.fail("GRU with linear_before_reset=0 (ONNX's default) applies "
                  "the reset gate before the recurrent projection, which "
                  "torch's GRU does not; only linear_before_reset=1 is "
                  "imported");
  bool batchFirst = n.attrInt("layout", 0);
  int64_t T = xt.getDimSize(batchFirst ? 1 : 0),
          N = xt.getDimSize(batchFirst ? 0 : 1);
  if (n.has(4)) {
    std::optional<SmallVector<int64_t>> lens = n.constInts(4);
    if (!lens || llvm::any_of(*lens, [&](int64_t l) { return l != T; }))
      return n.fail("sequence_lens other than the full length (a constant) "
                    "are not imported");
  }
  SmallVector<int64_t> order = op == "LSTM"  ? SmallVector<int64_t>{0, 2, 3, 1}
                               : op == "GRU" ? SmallVector<int64_t>{1, 0, 2}
                                             : SmallVector<int64_t>{0};
  auto direction_ = [&](Value v, int64_t d) {
    return n.call("torch.select",
                  {{"input", v}, {"dim", n.i64(0)}, {"index", n.i64(d)}});
  };
  bool bias = n.has(3);
  Value b = bias ? n.in(3) : Value();
  SmallVector<Value> params;
  for (int64_t d = 0; d < dirs; ++d) {
    params.push_back(reorderGates(n, direction_(w, d), H, order));
    params.push_back(reorderGates(n, direction_(r, d), H, order));
    if (bias) {
      Value bd = direction_(b, d);
      Value wb = n.call("torch.narrow", {{"input", bd}, {"dim", n.i64(0)},
                                         {"start", n.i64(0)},
                                         {"length", n.i64(gates * H)}});
      Value rb = n.call("torch.narrow", {{"input", bd}, {"dim", n.i64(0)},
                                         {"start", n.i64(gates * H)},
                                         {"length", n.i64(gates * H)}});
      params.push_back(reorderGates(n, wb, H, order));
      params.push_back(reorderGates(n, rb, H, order));
    }
  }
  int64_t timeDim = batchFirst ? 1 : 0;
  if (reverse)
    x = n.call("torch.flip", {{"input", x}, {"dims", n.ints({timeDim})}});
  // Initial states: [num_directions, batch, hidden] (batch first with
  // layout 1).
  auto state = [&](unsigned i) -> Value {
    if (!n.has(i))
      return {};
    Value s = n.in(i);
    if (s && batchFirst)
      s = n.call("torch.permute", {{"input", s}, {"dims", n.ints({1, 0, 2})}});
    return s;
  };
  Value h0 = state(5), c0 = op == "LSTM" ? state(6) : Value();
  Arg hx = n.none();
  if (op == "LSTM" && (h0 || c0)) {
    auto zeros = [&]() {
      return n.call("torch.zeros", {{"size", n.ints({dirs, N, H})},
                                    {"dtype", n.dtype(xt.getElementType())}});
    };
    Value hh = h0 ? h0 : zeros(), cc = c0 ? c0 : zeros();
    Arg pair(TupleAttr::get(n.ctx(), ArrayAttr::get(n.ctx(), {OperandAttr::get(n.ctx(), 0), OperandAttr::get(n.ctx(), 1)})));
    pair.values = {hh, cc};
    hx = pair;
  } else if (h0) {
    hx = h0;
  }
  StringRef mode = op == "LSTM"  ? "LSTM"
                   : op == "GRU" ? "GRU"
                   : relu        ? "RNN_RELU"
                                 : "RNN_TANH";
  Value result = n.call("traced.nn.rnn",
                        {{"input", x},
                         {"hx", hx},
                         {"params", Arg::list(n.ctx(), params)},
                         {"mode", n.str(mode)},
                         {"input_size", n.i64(xt.getDimSize(2))},
                         {"hidden_size", n.i64(H)},
                         {"num_layers", n.i64(1)},
                         {"bias", n.boolean(bias)},
                         {"batch_first", n.boolean(batchFirst)},
                         {"dropout", n.f64(0)},
                         {"training", n.boolean(false)},
                         {"bidirectional", n.boolean(bidirectional)}});
  if (!result)
    return failure();
  auto item = [&](Value v, int64_t i) {
    return n.call("operator.getitem", {{"input", v}, {"index", n.i64(i)}});
  };
  Value y = item(result, 0);
  if (reverse)
    y = n.call("torch.flip", {{"input", y}, {"dims", n.ints({timeDim})}});
  // torch: [T, N, dirs * H] (or [N, T, dirs * H]); ONNX: [T, dirs, N, H]
  // (or [N, T, dirs, H]).
  if (batchFirst) {
    y = n.reshape(y, {N, T, dirs, H});
  } else {
    y = n.reshape(y, {T, N, dirs, H});
    y = n.call("torch.permute", {{"input", y}, {"dims", n.ints({0, 2, 1, 3})}});
  }
  n.set(0, y);
  Value states = item(result, 1);
  auto onnxState = [&](Value s) {
    return batchFirst ? n.call("torch.permute",
                               {{"input", s}, {"dims", n.ints({1, 0, 2})}})
                      : s;
  };
  if (op == "LSTM") {
    n.set(1, onnxState(item(states, 0)));
    n.set(2, onnxState(item(states, 1)));
  } else {
    n.set(1, onnxState(states));
  }
  return success();
}

LogicalResult importNonZero(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  Value nz = n.call("torch.nonzero", {{"input", x}});
  return done(n, n.call("torch.t", {{"input", nz}}));
}

LogicalResult importDet(ImportNode &n) {
  Value x = n.in(0);
  if (!x)
    return failure();
  return done(n, n.call("torch.linalg.det", {{"input", x}}));
}

} // namespace

std::string &onnx_import::axisError() {
  static std::string error;
  return error;
}

const ImportTable &onnx_import::getImportTable() {
  static const ImportTable table = [] {
    ImportTable t;
    for (const auto &e : unaryTargets())
      t[e.getKey()] = importUnary;
    t["Identity"] = importIdentity;
    t["Dropout"] = importIdentity;
    for (StringRef op : {"LeakyRelu", "Elu", "Celu", "Selu", "HardSigmoid",
                         "ThresholdedRelu", "Shrink", "PRelu", "IsInf"})
      t[op] = importActivation;
    for (StringRef op : {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal",
                         "Less", "LessOrEqual", "Greater", "GreaterOrEqual",
                         "And", "Or", "Xor", "BitShift"})
      t[op] = importBinary;
    for (StringRef op : {"Sum", "Mean", "Max", "Min"})
      t[op] = importVariadic;
    t["Where"] = importWhere;
    t["Clip"] = importClip;
    t["Cast"] = importCast;
    t["CastLike"] = importCast;
    t["MatMul"] = importMatMul;
    t["Gemm"] = importGemm;
    t["Conv"] = importConv;
    t["ConvTranspose"] = importConv;
    t["BatchNormalization"] = importBatchNorm;
    t["InstanceNormalization"] = importInstanceNorm;
    t["LayerNormalization"] = importLayerNorm;
    t["LpNormalization"] = importLpNorm;
    t["MaxPool"] = importPool;
    t["AveragePool"] = importPool;
    t["GlobalAveragePool"] = importGlobalPool;
    t["GlobalMaxPool"] = importGlobalPool;
    for (StringRef op :
         {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
          "ReduceLogSumExp", "ReduceSumSquare", "ReduceLogSum", "ReduceL1",
          "ReduceL2"})
      t[op] = importReduce;
    t["ArgMax"] = importArgReduce;
    t["ArgMin"] = importArgReduce;
    t["Softmax"] = importSoftmax;
    t["LogSoftmax"] = importSoftmax;
    t["Hardmax"] = importSoftmax;
    t["CumSum"] = importCumSum;
    t["Reshape"] = importReshape;
    t["Flatten"] = importFlatten;
    t["Squeeze"] = importSqueeze;
    t["Unsqueeze"] = importSqueeze;
    t["Transpose"] = importTranspose;
    t["Concat"] = importConcat;
    t["Split"] = importSplit;
    t["Slice"] = importSlice;
    t["Gather"] = importGather;
    t["GatherElements"] = importGather;
    t["Expand"] = importExpand;
    t["ScatterND"] = importScatterND;
    t["QuantizeLinear"] = importQuantizeLinear;
    t["DequantizeLinear"] = importDequantizeLinear;
    t["DynamicQuantizeLinear"] = importDynamicQuantizeLinear;
    for (StringRef op : {"QLinearMatMul", "QLinearConv", "MatMulInteger",
                         "ConvInteger"})
      t[op] = importIntegerContraction;
    t["ScatterElements"] = importScatterElements;
    t["Scatter"] = importScatterElements;
    t["GatherND"] = importGatherND;
    t["OneHot"] = importOneHot;
    t["EyeLike"] = importEyeLike;
    t["NegativeLogLikelihoodLoss"] = importLoss;
    t["SoftmaxCrossEntropyLoss"] = importLoss;
    t["Tile"] = importTile;
    t["Pad"] = importPad;
    t["Shape"] = importShape;
    t["Size"] = importShape;
    t["Constant"] = importConstant;
    t["ConstantOfShape"] = importConstantOfShape;
    t["Range"] = importRange;
    t["Einsum"] = importEinsum;
    t["TopK"] = importTopK;
    t["Trilu"] = importTrilu;
    t["DepthToSpace"] = importDepthToSpace;
    t["SpaceToDepth"] = importDepthToSpace;
    t["Resize"] = importResize;
    t["NonZero"] = importNonZero;
    t["RNN"] = importRecurrent;
    t["GRU"] = importRecurrent;
    t["LSTM"] = importRecurrent;
    t["GridSample"] = importGridSample;
    t["BlackmanWindow"] = importWindow;
    t["HannWindow"] = importWindow;
    t["HammingWindow"] = importWindow;
    t["Compress"] = importCompress;
    t["MeanVarianceNormalization"] = importMeanVarianceNormalization;
    t["LRN"] = importLRN;
    t["ReverseSequence"] = importReverseSequence;
    t["Upsample"] = importResize;
    t["Det"] = importDet;
    return t;
  }();
  return table;
}
