//===- OnnxExportOps.cpp - op-library calls as ONNX nodes -----------------===//
//
// One emitter per canonical target (or per family of targets that map the
// same way). Each reads the call's bound arguments, refuses what ONNX (at
// the opset written, 13-17) cannot say exactly, and appends the nodes.
// Shapes come from the traced result types, so reshape-like calls become
// one Reshape to the result's shape.
//
//===----------------------------------------------------------------------===//

#include "Export.h"

#include "TracedIR/Dialect/Traced/TracedOps.h"

#include <cmath>
#include <cstring>
#include <numeric>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::onnx_export;

namespace {

bool isFloat(Type t) { return t && isa<FloatType>(t); }

/// The element type two operands compute in: a float operand's type (the
/// input's first), else a tensor's integer type; Python floats with
/// integer tensors compute in float32, as torch's default dtype.
Type computeType(ExportCall &c, StringRef a, StringRef b) {
  Type ta = c.elementType(a), tb = c.elementType(b);
  if (isFloat(ta))
    return ta;
  if (isFloat(tb))
    return tb;
  MLIRContext *ctx = c.op()->getContext();
  auto pyFloat = [&](StringRef n) {
    return isa_and_nonnull<FloatAttr>(c.value(n));
  };
  if (pyFloat(a) || pyFloat(b))
    return Float32Type::get(ctx);
  if (ta && tb && ta != tb) {
    // Integer promotion: the wider (bool is the narrowest).
    unsigned wa = ta.getIntOrFloatBitWidth(), wb = tb.getIntOrFloatBitWidth();
    return wa >= wb ? ta : tb;
  }
  return ta ? ta : tb;
}

/// Operand `name` as a tensor of element type `type` (a Python number a
/// 0-d constant of it); empty if it is neither.
std::string operandAs(ExportCall &c, StringRef name, Type type) {
  if (c.isTensor(name))
    return c.cast(c.tensor(name), c.elementType(name), type);
  return c.operand(name, type);
}

LogicalResult unary(ExportCall &c, StringRef opType) {
  std::string x = c.tensor("input");
  if (x.empty())
    return c.fail("its input is not a tensor");
  x = c.cast(x, c.elementType("input"), c.resultElement());
  c.node(opType, {x}, {}, c.out());
  return success();
}

const llvm::StringMap<StringRef> &unaryOps() {
  static const llvm::StringMap<StringRef> ops = {
      {"torch.nn.functional.relu", "Relu"},
      {"torch.sigmoid", "Sigmoid"},
      {"torch.tanh", "Tanh"},
      {"torch.exp", "Exp"},
      {"torch.log", "Log"},
      {"torch.sqrt", "Sqrt"},
      {"torch.abs", "Abs"},
      {"torch.neg", "Neg"},
      {"torch.erf", "Erf"},
      {"torch.reciprocal", "Reciprocal"},
      {"torch.sin", "Sin"},
      {"torch.cos", "Cos"},
      {"torch.tan", "Tan"},
      {"torch.asin", "Asin"},
      {"torch.acos", "Acos"},
      {"torch.atan", "Atan"},
      {"torch.sinh", "Sinh"},
      {"torch.cosh", "Cosh"},
      {"torch.asinh", "Asinh"},
      {"torch.acosh", "Acosh"},
      {"torch.atanh", "Atanh"},
      {"torch.sign", "Sign"},
      {"torch.floor", "Floor"},
      {"torch.round", "Round"},
      {"torch.ceil", "Ceil"},
      {"torch.logical_not", "Not"},
      {"torch.isnan", "IsNaN"},
      {"torch.nn.functional.softsign", "Softsign"},
      {"torch.nn.functional.hardswish", "HardSwish"},
      {"torch.nn.functional.selu", "Selu"},
  };
  return ops;
}

LogicalResult emitUnary(ExportCall &c) {
  StringRef t = c.target();
  if (t == "torch.isnan") {
    c.node("IsNaN", {c.tensor("input")}, {}, c.out());
    return success();
  }
  if (t == "torch.round" && c.getInt("decimals").value_or(0) != 0)
    return c.fail("rounding to decimals is not exported");
  if (t == "torch.logical_not") {
    std::string x = c.cast(c.tensor("input"), c.elementType("input"),
                           c.resultElement());
    c.node("Not", {x}, {}, c.out());
    return success();
  }
  return unary(c, unaryOps().lookup(t));
}

LogicalResult emitIdentity(ExportCall &c) {
  StringRef t = c.target();
  if (t.contains("dropout") || t.contains("stochastic_depth")) {
    std::optional<bool> training = c.getBool("training");
    std::optional<double> p = c.getFloat("p");
    if (training.value_or(true) && p.value_or(1) != 0)
      return c.fail("it drops elements in training mode; export the model "
                    "in eval mode");
  }
  std::string x = c.tensor("input");
  if (x.empty())
    return c.fail("its input is not a tensor");
  c.node("Identity", {x}, {}, c.out());
  return success();
}

LogicalResult emitCast(ExportCall &c) {
  std::string x = c.tensor("input");
  if (x.empty())
    return c.fail("its input is not a tensor");
  Type from = c.elementType("input"), to = c.resultElement();
  if (from == to)
    c.node("Identity", {x}, {}, c.out());
  else
    c.node("Cast", {x}, {attrInt("to", onnxDataType(to))}, c.out());
  return success();
}

/// Clip between constants of the result's type (either may be absent).
LogicalResult clip(ExportCall &c, std::optional<double> lo,
                   std::optional<double> hi) {
  Type t = c.resultElement();
  std::string x = c.cast(c.tensor("input"), c.elementType("input"), t);
  c.node("Clip", {x, lo ? c.scalar(*lo, t) : "", hi ? c.scalar(*hi, t) : ""},
         {}, c.out());
  return success();
}

LogicalResult emitActivation(ExportCall &c) {
  StringRef t = c.target();
  Type type = c.resultElement();
  std::string x = c.tensor("input");
  if (x.empty())
    return c.fail("its input is not a tensor");
  if (t == "torch.nn.functional.relu6")
    return clip(c, 0.0, 6.0);
  if (t == "torch.nn.functional.hardtanh")
    return clip(c, c.getFloat("min_val"), c.getFloat("max_val"));
  if (t == "torch.nn.functional.leaky_relu") {
    c.node("LeakyRelu", {x}, {attrFloat("alpha", *c.getFloat("negative_slope"))},
           c.out());
    return success();
  }
  if (t == "torch.nn.functional.elu") {
    if (c.getFloat("scale").value_or(1) != 1 ||
        c.getFloat("input_scale").value_or(1) != 1)
      return c.fail("scale and input_scale other than 1 have no ONNX Elu");
    c.node("Elu", {x}, {attrFloat("alpha", *c.getFloat("alpha"))}, c.out());
    return success();
  }
  if (t == "torch.nn.functional.celu") {
    c.node("Celu", {x}, {attrFloat("alpha", *c.getFloat("alpha"))}, c.out());
    return success();
  }
  if (t == "torch.nn.functional.hardsigmoid") {
    c.node("HardSigmoid", {x},
           {attrFloat("alpha", 1.0 / 6), attrFloat("beta", 0.5)}, c.out());
    return success();
  }
  if (t == "torch.nn.functional.softplus") {
    double beta = c.getFloat("beta").value_or(1);
    // torch: x past threshold / beta is x itself; log1p(exp(x)) rounds to
    // x there in float32 too.
    if (beta == 1) {
      c.node("Softplus", {x}, {}, c.out());
      return success();
    }
    std::string bx = c.node("Mul", {x, c.scalar(beta, type)});
    std::string sp = c.node("Softplus", {bx});
    c.node("Div", {sp, c.scalar(beta, type)}, {}, c.out());
    return success();
  }
  if (t == "torch.nn.functional.silu") {
    std::string s = c.node("Sigmoid", {x});
    c.node("Mul", {x, s}, {}, c.out());
    return success();
  }
  if (t == "torch.nn.functional.mish") {
    std::string sp = c.node("Softplus", {x});
    std::string th = c.node("Tanh", {sp});
    c.node("Mul", {x, th}, {}, c.out());
    return success();
  }
  if (t == "torch.nn.functional.gelu") {
    Attribute approx = c.value("approximate");
    bool tanhForm = isa_and_nonnull<StringAttr>(approx) &&
                    cast<StringAttr>(approx).getValue() == "tanh";
    std::string half = c.node("Mul", {x, c.scalar(0.5, type)});
    std::string inner;
    if (tanhForm) {
      // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
      std::string x3 = c.node("Mul", {c.node("Mul", {x, x}), x});
      std::string sum =
          c.node("Add", {x, c.node("Mul", {x3, c.scalar(0.044715, type)})});
      inner = c.node("Tanh", {c.node(
                                 "Mul", {sum, c.scalar(std::sqrt(2 / M_PI),
                                                       type)})});
    } else {
      // 0.5 x (1 + erf(x / sqrt(2)))
      inner = c.node("Erf", {c.node("Div", {x, c.scalar(M_SQRT2, type)})});
    }
    std::string one = c.node("Add", {inner, c.scalar(1.0, type)});
    c.node("Mul", {half, one}, {}, c.out());
    return success();
  }
  if (t == "torch.rsqrt") {
    x = c.cast(x, c.elementType("input"), type);
    c.node("Reciprocal", {c.node("Sqrt", {x})}, {}, c.out());
    return success();
  }
  if (t == "torch.square") {
    x = c.cast(x, c.elementType("input"), type);
    c.node("Mul", {x, x}, {}, c.out());
    return success();
  }
  if (t == "torch.log1p" || t == "torch.expm1" || t == "torch.log2" ||
      t == "torch.log10" || t == "torch.erfc") {
    x = c.cast(x, c.elementType("input"), type);
    if (t == "torch.log1p")
      c.node("Log", {c.node("Add", {x, c.scalar(1, type)})}, {}, c.out());
    else if (t == "torch.expm1")
      c.node("Sub", {c.node("Exp", {x}), c.scalar(1, type)}, {}, c.out());
    else if (t == "torch.erfc")
      c.node("Sub", {c.scalar(1, type), c.node("Erf", {x})}, {}, c.out());
    else
      c.node("Div",
             {c.node("Log", {x}),
              c.scalar(std::log(t == "torch.log2" ? 2.0 : 10.0), type)},
             {}, c.out());
    return success();
  }
  return c.fail("no ONNX form is known for it");
}

LogicalResult emitNanToNum(ExportCall &c) {
  Type type = c.resultElement();
  std::string x = c.tensor("input");
  if (!isFloat(type)) {
    c.node("Identity", {x}, {}, c.out());
    return success();
  }
  const llvm::fltSemantics &sem = cast<FloatType>(type).getFloatSemantics();
  double big = APFloat::getLargest(sem).convertToDouble();
  double nan = c.getFloat("nan").value_or(0);
  double pos = c.isNone("posinf") ? big : *c.getFloat("posinf");
  double neg = c.isNone("neginf") ? -big : *c.getFloat("neginf");
  std::string r = c.node("Where", {c.node("IsNaN", {x}), c.scalar(nan, type), x});
  r = c.node("Where", {c.node("IsInf", {x}, {attrInt("detect_negative", 0)}),
                       c.scalar(pos, type), r});
  c.node("Where",
         {c.node("IsInf", {x}, {attrInt("detect_positive", 0)}),
          c.scalar(neg, type), r},
         {}, c.out());
  return success();
}

LogicalResult emitClamp(ExportCall &c) {
  StringRef t = c.target();
  Type type = c.resultElement();
  std::string x = c.cast(c.tensor("input"), c.elementType("input"), type);
  auto bound = [&](StringRef name) -> std::string {
    if (c.isNone(name))
      return "";
    return operandAs(c, name, type);
  };
  std::string lo = t == "torch.clamp_max" ? "" : bound("min");
  std::string hi = t == "torch.clamp_min" ? "" : bound("max");
  bool tensorBounds = (t != "torch.clamp_max" && c.isTensor("min")) ||
                      (t != "torch.clamp_min" && c.isTensor("max"));
  if (tensorBounds) {
    // Clip takes scalar bounds: tensor bounds are Max then Min.
    std::string r = x;
    if (!lo.empty())
      r = c.node("Max", {r, lo});
    if (!hi.empty())
      r = c.node("Min", {r, hi});
    c.node("Identity", {r}, {}, c.out());
    return success();
  }
  c.node("Clip", {x, lo, hi}, {}, c.out());
  return success();
}

LogicalResult emitBinary(ExportCall &c) {
  StringRef t = c.target();
  static const llvm::StringMap<StringRef> arith = {
      {"torch.add", "Add"},     {"torch.sub", "Sub"},
      {"torch.mul", "Mul"},     {"torch.div", "Div"},
      {"torch.pow", "Pow"},     {"torch.maximum", "Max"},
      {"torch.minimum", "Min"},
  };
  StringRef second = t == "torch.pow" ? "exponent" : "other";
  Type type = c.resultElement();
  if (t == "torch.div") {
    Attribute mode = c.value("rounding_mode");
    if (mode && !isa<NoneAttr>(mode))
      return c.fail("rounding modes other than None have no exact ONNX Div");
  }
  if (t == "torch.pow" && !isFloat(type))
    return c.fail("integer powers have no exact ONNX form");
  std::string a = operandAs(c, "input", type);
  std::string b = operandAs(c, second, type);
  if (a.empty() || b.empty())
    return c.fail("its operands are not tensors or numbers");
  if ((t == "torch.add" || t == "torch.sub")) {
    double alpha = c.getFloat("alpha").value_or(1);
    if (alpha != 1)
      b = c.node("Mul", {b, c.scalar(alpha, type)});
  }
  c.node(arith.lookup(t), {a, b}, {}, c.out());
  return success();
}

LogicalResult emitCompare(ExportCall &c) {
  StringRef t = c.target();
  static const llvm::StringMap<StringRef> ops = {
      {"torch.eq", "Equal"},         {"torch.ne", "Equal"},
      {"torch.lt", "Less"},          {"torch.le", "LessOrEqual"},
      {"torch.gt", "Greater"},       {"torch.ge", "GreaterOrEqual"},
      {"torch.logical_and", "And"},  {"torch.logical_or", "Or"},
      {"torch.logical_xor", "Xor"},
  };
  StringRef op = ops.lookup(t);
  Type type = op == "And" || op == "Or" || op == "Xor"
                  ? IntegerType::get(c.op()->getContext(), 1)
                  : computeType(c, "input", "other");
  std::string a = operandAs(c, "input", type);
  std::string b = operandAs(c, "other", type);
  if (a.empty() || b.empty())
    return c.fail("its operands are not tensors or numbers");
  if (t == "torch.ne")
    c.node("Not", {c.node("Equal", {a, b})}, {}, c.out());
  else
    c.node(op, {a, b}, {}, c.out());
  return success();
}

LogicalResult emitWhere(ExportCall &c) {
  Type type = c.resultElement();
  Type i1 = IntegerType::get(c.op()->getContext(), 1);
  if (c.target() == "Tensor.masked_fill") {
    std::string mask = c.cast(c.tensor("mask"), c.elementType("mask"), i1);
    std::string x = operandAs(c, "input", type);
    std::string v = operandAs(c, "value", type);
    c.node("Where", {mask, v, x}, {}, c.out());
    return success();
  }
  std::string cond =
      c.cast(c.tensor("condition"), c.elementType("condition"), i1);
  std::string a = operandAs(c, "input", type);
  std::string b = operandAs(c, "other", type);
  if (cond.empty() || a.empty() || b.empty())
    return c.fail("its operands are not tensors or numbers");
  c.node("Where", {cond, a, b}, {}, c.out());
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions and convolutions
//===----------------------------------------------------------------------===//

LogicalResult emitLinear(ExportCall &c) {
  std::string x = c.tensor("input"), w = c.tensor("weight");
  RankedTensorType xt = c.tensorType("input");
  if (x.empty() || w.empty())
    return c.fail("its input and weight must be tensors");
  bool bias = c.isTensor("bias");
  if (xt.getRank() == 2) {
    SmallVector<std::string> ins = {x, w};
    if (bias)
      ins.push_back(c.tensor("bias"));
    c.node("Gemm", ins, {attrInt("transB", 1)}, c.out());
    return success();
  }
  std::string wt = c.node("Transpose", {w}, {attrInts("perm", {1, 0})});
  if (c.tensorType("weight").getRank() == 1)
    wt = w;
  if (!bias) {
    c.node("MatMul", {x, wt}, {}, c.out());
    return success();
  }
  std::string mm = c.node("MatMul", {x, wt});
  c.node("Add", {mm, c.tensor("bias")}, {}, c.out());
  return success();
}

LogicalResult emitMatmul(ExportCall &c) {
  StringRef t = c.target();
  std::string a = c.tensor("input");
  std::string b = c.tensor(t == "torch.matmul" ? "other" : "mat2");
  if (t == "torch.mv")
    b = c.tensor("vec");
  if (a.empty() || b.empty())
    return c.fail("its operands must be tensors");
  c.node("MatMul", {a, b}, {}, c.out());
  return success();
}

LogicalResult emitAddmm(ExportCall &c) {
  Type type = c.resultElement();
  std::string in = c.tensor("input"), a = c.tensor("mat1"),
              b = c.tensor("mat2");
  std::optional<double> beta = c.getFloat("beta"), alpha = c.getFloat("alpha");
  if (in.empty() || a.empty() || b.empty() || !beta || !alpha)
    return c.fail("its operands must be tensors and beta, alpha numbers");
  (void)type;
  c.node("Gemm", {a, b, in},
         {attrFloat("alpha", *alpha), attrFloat("beta", *beta)}, c.out());
  return success();
}

LogicalResult emitEinsum(ExportCall &c) {
  auto eq = dyn_cast_or_null<StringAttr>(c.value("equation"));
  std::optional<SmallVector<std::string>> ops = c.tensors("operands");
  if (!eq || !ops)
    return c.fail("its equation must be a constant and its operands tensors");
  std::string e = eq.getValue().str();
  llvm::erase(e, ' ');
  c.node("Einsum", *ops, {attrString("equation", e)}, c.out());
  return success();
}

/// Conv and ConvTranspose attributes from torch's stride/padding/dilation.
LogicalResult emitConv(ExportCall &c) {
  StringRef t = c.target();
  bool transposed = t.contains("conv_transpose");
  RankedTensorType wt = c.tensorType("weight");
  RankedTensorType xt = c.tensorType("input");
  if (!wt || !xt || !c.isTensor("weight"))
    return c.fail("its weight must be a tensor");
  unsigned n = wt.getRank() - 2;
  if (xt.getRank() != int64_t(n) + 2)
    return c.fail("unbatched convolution inputs are not exported yet");
  SmallVector<int64_t> kernel(wt.getShape().drop_front(2));
  std::optional<SmallVector<int64_t>> stride = c.getInts("stride", n),
                                      dilation = c.getInts("dilation", n);
  std::optional<int64_t> groups = c.getInt("groups");
  if (!stride || !dilation || !groups)
    return c.fail("its stride, dilation and groups must be constants");
  SmallVector<int64_t> pads(2 * n, 0);
  Attribute padding = c.value("padding");
  if (auto s = dyn_cast_or_null<StringAttr>(padding)) {
    if (s.getValue() == "same")
      for (unsigned i = 0; i < n; ++i) {
        int64_t total = (*dilation)[i] * (kernel[i] - 1);
        pads[i] = total / 2;
        pads[i + n] = total - total / 2;
      }
  } else if (std::optional<SmallVector<int64_t>> p = c.getInts("padding", n)) {
    for (unsigned i = 0; i < n; ++i)
      pads[i] = pads[i + n] = (*p)[i];
  } else {
    return c.fail("its padding must be a constant");
  }
  std::string x = c.tensor("input");
  if (!transposed) {
    Attribute mode = c.value("padding_mode");
    StringRef m = isa_and_nonnull<StringAttr>(mode)
                      ? cast<StringAttr>(mode).getValue()
                      : "zeros";
    if (m != "zeros") {
      if (m == "circular")
        return c.fail("circular padding has no ONNX Pad before opset 19");
      SmallVector<int64_t> full(2 * (n + 2), 0);
      for (unsigned i = 0; i < n; ++i) {
        full[2 + i] = pads[i];
        full[n + 4 + i] = pads[i + n];
      }
      x = c.node("Pad", {x, c.int64s(full)},
                 {attrString("mode", m == "reflect" ? "reflect" : "edge")});
      pads.assign(2 * n, 0);
    }
  }
  SmallVector<OnnxAttr> attrs = {
      attrInts("kernel_shape", kernel), attrInts("strides", *stride),
      attrInts("dilations", *dilation), attrInts("pads", pads),
      attrInt("group", *groups)};
  if (transposed) {
    std::optional<SmallVector<int64_t>> outPad =
        c.getInts("output_padding", n);
    if (!outPad)
      return c.fail("its output_padding must be a constant");
    attrs.push_back(attrInts("output_padding", *outPad));
  }
  SmallVector<std::string> ins = {x, c.tensor("weight")};
  if (c.isTensor("bias"))
    ins.push_back(c.tensor("bias"));
  c.node(transposed ? "ConvTranspose" : "Conv", ins, attrs, c.out());
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

LogicalResult emitBatchNorm(ExportCall &c) {
  if (c.getBool("training").value_or(true) ||
      !c.isTensor("running_mean") || !c.isTensor("running_var"))
    return c.fail("only eval-mode batch_norm with running statistics has "
                  "an ONNX BatchNormalization; export the model in eval mode");
  RankedTensorType xt = c.tensorType("input");
  int64_t channels = xt.getDimSize(1);
  if (ShapedType::isDynamic(channels))
    return c.fail("its channel dim is dynamic");
  Type type = xt.getElementType();
  auto filled = [&](StringRef name, double v) {
    if (c.isTensor(name))
      return c.tensor(name);
    return c.node("Expand", {c.scalar(v, type), c.int64s({channels})});
  };
  c.node("BatchNormalization",
         {c.tensor("input"), filled("weight", 1), filled("bias", 0),
          c.tensor("running_mean"), c.tensor("running_var")},
         {attrFloat("epsilon", *c.getFloat("eps"))}, c.out());
  return success();
}

LogicalResult emitLayerNorm(ExportCall &c) {
  if (c.x.model.defaultOpset() < 17)
    return c.fail("ONNX LayerNormalization needs opset 17");
  std::optional<SmallVector<int64_t>> shape = c.getInts("normalized_shape");
  if (!shape)
    return c.fail("its normalized_shape must be a constant");
  Type type = c.resultElement();
  auto filled = [&](StringRef name, double v) {
    if (c.isTensor(name))
      return c.tensor(name);
    return c.node("Expand", {c.scalar(v, type), c.int64s(*shape)});
  };
  c.node("LayerNormalization",
         {c.tensor("input"), filled("weight", 1), filled("bias", 0)},
         {attrInt("axis", -static_cast<int64_t>(shape->size())),
          attrFloat("epsilon", *c.getFloat("eps"))},
         c.out());
  return success();
}

LogicalResult emitNormalize(ExportCall &c) {
  std::optional<double> p = c.getFloat("p");
  std::optional<int64_t> dim = c.getInt("dim");
  if (!p || !dim || (*p != 1 && *p != 2))
    return c.fail("only p = 1 or 2 along a constant dim is exported");
  Type type = c.resultElement();
  std::string x = c.tensor("input");
  std::string norm = c.node(*p == 2 ? "ReduceL2" : "ReduceL1", {x},
                            {attrInts("axes", {*dim}), attrInt("keepdims", 1)});
  std::string clamped =
      c.node("Max", {norm, c.scalar(*c.getFloat("eps"), type)});
  c.node("Div", {x, clamped}, {}, c.out());
  return success();
}

LogicalResult emitSoftmax(ExportCall &c) {
  bool log = c.target() == "torch.nn.functional.log_softmax";
  std::optional<int64_t> dim = c.getInt("dim");
  if (!dim)
    return c.fail("its dim must be given as a constant");
  std::string x = c.cast(c.tensor("input"), c.elementType("input"),
                         c.resultElement());
  c.node(log ? "LogSoftmax" : "Softmax", {x}, {attrInt("axis", *dim)},
         c.out());
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

LogicalResult emitPool(ExportCall &c) {
  StringRef t = c.target();
  bool isMax = t.contains("max_pool");
  RankedTensorType xt = c.tensorType("input");
  unsigned n = t.contains("1d") ? 1 : t.contains("3d") ? 3 : 2;
  if (xt.getRank() != int64_t(n) + 2)
    return c.fail("unbatched pooling inputs are not exported yet");
  if (isMax && c.getBool("return_indices").value_or(false))
    return c.fail("pooling indices have no exact ONNX form");
  std::optional<SmallVector<int64_t>> kernel = c.getInts("kernel_size", n);
  std::optional<SmallVector<int64_t>> stride = c.getInts("stride", n);
  if (c.isNone("stride") || (stride && stride->empty()))
    stride = kernel;
  std::optional<SmallVector<int64_t>> padding = c.getInts("padding", n);
  if (!kernel || !stride || !padding)
    return c.fail("its kernel_size, stride and padding must be constants");
  SmallVector<int64_t> pads(*padding);
  pads.append(*padding);
  SmallVector<OnnxAttr> attrs = {attrInts("kernel_shape", *kernel),
                                  attrInts("strides", *stride),
                                  attrInts("pads", pads),
                                  attrInt("ceil_mode",
                                          c.getBool("ceil_mode").value_or(
                                              false))};
  if (isMax) {
    std::optional<SmallVector<int64_t>> dilation = c.getInts("dilation", n);
    if (!dilation)
      return c.fail("its dilation must be a constant");
    attrs.push_back(attrInts("dilations", *dilation));
  } else {
    if (!c.isNone("divisor_override"))
      return c.fail("divisor_override has no ONNX AveragePool form");
    attrs.push_back(attrInt(
        "count_include_pad", c.getBool("count_include_pad").value_or(true)));
  }
  c.node(isMax ? "MaxPool" : "AveragePool", {c.tensor("input")}, attrs,
         c.out());
  return success();
}

LogicalResult emitAdaptivePool(ExportCall &c) {
  StringRef t = c.target();
  bool isMax = t.contains("max");
  if (t.contains("with_indices"))
    return c.fail("pooling indices have no exact ONNX form");
  RankedTensorType xt = c.tensorType("input"), rt = c.resultType();
  unsigned n = t.contains("1d") ? 1 : t.contains("3d") ? 3 : 2;
  if (xt.getRank() != int64_t(n) + 2 || !rt)
    return c.fail("unbatched pooling inputs are not exported yet");
  ArrayRef<int64_t> in = xt.getShape().drop_front(2),
                    out = rt.getShape().drop_front(2);
  if (llvm::all_of(out, [](int64_t d) { return d == 1; })) {
    c.node(isMax ? "GlobalMaxPool" : "GlobalAveragePool", {c.tensor("input")},
           {}, c.out());
    return success();
  }
  SmallVector<int64_t> kernel;
  for (auto [i, o] : llvm::zip(in, out)) {
    if (ShapedType::isDynamic(i) || ShapedType::isDynamic(o) || i % o)
      return c.fail("adaptive pooling is exported only where each output "
                    "size divides the input's (static) size");
    kernel.push_back(i / o);
  }
  c.node(isMax ? "MaxPool" : "AveragePool", {c.tensor("input")},
         {attrInts("kernel_shape", kernel), attrInts("strides", kernel)},
         c.out());
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The reduced dims of a `dim` argument (none: every dim).
std::optional<SmallVector<int64_t>> reducedDims(ExportCall &c,
                                                StringRef name) {
  int64_t rank = c.tensorType("input").getRank();
  Attribute v = c.value(name);
  SmallVector<int64_t> dims;
  if (!v || isa<NoneAttr>(v)) {
    dims.resize(rank);
    std::iota(dims.begin(), dims.end(), 0);
    return dims;
  }
  std::optional<SmallVector<int64_t>> given = getPyInts(v);
  if (!given)
    return std::nullopt;
  if (given->empty()) {
    dims.resize(rank);
    std::iota(dims.begin(), dims.end(), 0);
    return dims;
  }
  for (int64_t d : *given)
    dims.push_back(c.normDim(d, rank));
  return dims;
}

LogicalResult emitReduce(ExportCall &c) {
  StringRef t = c.target();
  static const llvm::StringMap<StringRef> ops = {
      {"torch.mean", "ReduceMean"}, {"torch.sum", "ReduceSum"},
      {"torch.amax", "ReduceMax"},  {"torch.amin", "ReduceMin"},
      {"torch.prod", "ReduceProd"}, {"torch.logsumexp", "ReduceLogSumExp"},
  };
  std::optional<SmallVector<int64_t>> dims = reducedDims(c, "dim");
  if (!dims)
    return c.fail("its dims must be constants");
  bool keep = c.getBool("keepdim").value_or(false);
  Type type = c.resultElement();
  std::string x = c.cast(c.tensor("input"), c.elementType("input"), type);
  if (c.tensorType("input").getRank() == 0) {
    c.node("Identity", {x}, {}, c.out());
    return success();
  }
  StringRef op = ops.lookup(t);
  if (op == "ReduceSum")
    c.node(op, {x, c.int64s(*dims)}, {attrInt("keepdims", keep)}, c.out());
  else
    c.node(op, {x}, {attrInts("axes", *dims), attrInt("keepdims", keep)},
           c.out());
  return success();
}

LogicalResult emitArgReduce(ExportCall &c) {
  bool isMax = c.target() == "torch.argmax";
  std::string x = c.tensor("input");
  bool keep = c.getBool("keepdim").value_or(false);
  std::optional<int64_t> dim = c.getInt("dim");
  if (!dim) {
    if (!c.isNone("dim"))
      return c.fail("its dim must be a constant");
    x = c.node("Reshape", {x, c.int64s({-1})});
    std::string r = c.node(isMax ? "ArgMax" : "ArgMin", {x},
                           {attrInt("axis", 0), attrInt("keepdims", 0)});
    FailureOr<std::string> shaped = c.reshapeToResult(r);
    return failure(failed(shaped));
  }
  c.node(isMax ? "ArgMax" : "ArgMin", {x},
         {attrInt("axis", *dim), attrInt("keepdims", keep)}, c.out());
  return success();
}

LogicalResult emitCumsum(ExportCall &c) {
  std::optional<int64_t> dim = c.getInt("dim");
  if (!dim)
    return c.fail("its dim must be a constant");
  std::string x = c.cast(c.tensor("input"), c.elementType("input"),
                         c.resultElement());
  c.node("CumSum", {x, c.int64s({*dim})}, {}, c.out());
  return success();
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

LogicalResult emitReshape(ExportCall &c) {
  std::string x = c.tensor("input");
  if (x.empty())
    return c.fail("its input is not a tensor");
  return failure(failed(c.reshapeToResult(x)));
}

LogicalResult emitPermute(ExportCall &c) {
  StringRef t = c.target();
  int64_t rank = c.tensorType("input").getRank();
  SmallVector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  if (t == "torch.permute") {
    std::optional<SmallVector<int64_t>> dims = c.getInts("dims");
    if (!dims)
      return c.fail("its dims must be constants");
    for (auto [i, d] : llvm::enumerate(*dims))
      perm[i] = c.normDim(d, rank);
  } else if (t == "torch.t") {
    if (rank == 2)
      std::swap(perm[0], perm[1]);
  } else if (t == "torch.movedim") {
    std::optional<SmallVector<int64_t>> src = c.getInts("source"),
                                        dst = c.getInts("destination");
    if (!src || !dst || src->size() != dst->size())
      return c.fail("its source and destination must be constants");
    SmallVector<int64_t> result(rank, -1);
    SmallVector<bool> taken(rank, false);
    for (auto [s, d] : llvm::zip(*src, *dst)) {
      result[c.normDim(d, rank)] = c.normDim(s, rank);
      taken[c.normDim(s, rank)] = true;
    }
    int64_t next = 0;
    for (int64_t &r : result)
      if (r < 0) {
        while (taken[next])
          ++next;
        r = next++;
      }
    perm = result;
  } else {
    std::optional<int64_t> a = c.getInt("dim0"), b = c.getInt("dim1");
    if (!a || !b)
      return c.fail("its dims must be constants");
    if (rank)
      std::swap(perm[c.normDim(*a, rank)], perm[c.normDim(*b, rank)]);
  }
  c.node("Transpose", {c.tensor("input")}, {attrInts("perm", perm)}, c.out());
  return success();
}

LogicalResult emitExpand(ExportCall &c) {
  RankedTensorType rt = c.resultType();
  if (!rt.hasStaticShape())
    return c.fail("expanding to a dynamic shape is not exported yet");
  c.node("Expand", {c.tensor("input"), c.int64s(rt.getShape())}, {}, c.out());
  return success();
}

LogicalResult emitRepeat(ExportCall &c) {
  StringRef name = c.target() == "torch.tile" ? "dims" : "repeats";
  std::optional<SmallVector<int64_t>> reps = c.getInts(name);
  RankedTensorType xt = c.tensorType("input");
  if (!reps)
    return c.fail("its repeats must be constants");
  std::string x = c.tensor("input");
  int64_t rank = xt.getRank();
  SmallVector<int64_t> r(*reps);
  if (int64_t(r.size()) > rank) {
    SmallVector<int64_t> shape(r.size() - rank, 1);
    shape.append(xt.getShape().begin(), xt.getShape().end());
    x = c.node("Reshape", {x, c.int64s(shape)});
  } else if (int64_t(r.size()) < rank) {
    r.insert(r.begin(), rank - r.size(), 1);
  }
  c.node("Tile", {x, c.int64s(r)}, {}, c.out());
  return success();
}

LogicalResult emitCat(ExportCall &c) {
  std::optional<SmallVector<std::string>> ins = c.tensors("tensors");
  std::optional<int64_t> dim = c.getInt("dim");
  if (!ins || !dim)
    return c.fail("its tensors must be traced tensors and dim a constant");
  Type type = c.resultElement();
  int64_t rank = c.resultType().getRank();
  bool stack = c.target() == "torch.stack";
  auto list = cast<ArrayAttr>(c.b.slot("tensors"));
  SmallVector<std::string> parts;
  for (auto [name, item] : llvm::zip(*ins, list.getValue())) {
    Value v = c.b.operandOf(cast<OperandAttr>(item));
    auto vt = cast<RankedTensorType>(v.getType());
    // torch.cat skips 1-d empty tensors of any size.
    if (!stack && vt.getRank() == 1 && vt.getDimSize(0) == 0 && rank != 1)
      continue;
    std::string p = c.cast(name, vt.getElementType(), type);
    if (stack)
      p = c.node("Unsqueeze", {p, c.int64s({c.normDim(*dim, rank)})});
    parts.push_back(p);
  }
  c.node("Concat", parts, {attrInt("axis", c.normDim(*dim, rank))}, c.out());
  return success();
}

/// chunk, split, tensor_split (sections or indices as constants), unbind:
/// one Split into the result tuple's pieces along dim.
LogicalResult emitSplit(ExportCall &c) {
  StringRef t = c.target();
  std::optional<int64_t> dim = c.getInt("dim");
  if (!dim)
    return c.fail("its dim must be a constant");
  RankedTensorType xt = c.tensorType("input");
  int64_t axis = c.normDim(*dim, xt.getRank());
  auto tuple = dyn_cast<TupleType>(c.op()->getResult(0).getType());
  if (!tuple)
    return c.fail("its result is not a tuple");
  SmallVector<int64_t> sizes;
  SmallVector<std::string> outs;
  for (Type e : tuple.getTypes()) {
    auto et = dyn_cast<RankedTensorType>(e);
    if (!et)
      return c.fail("its pieces are not ranked tensors");
    int64_t s = t == "torch.unbind" ? 1 : et.getDimSize(axis);
    if (ShapedType::isDynamic(s))
      return c.fail("its pieces have dynamic sizes along dim");
    sizes.push_back(s);
    outs.push_back(c.x.fresh("split"));
  }
  c.nodeN("Split", {c.tensor("input"), c.int64s(sizes)}, outs,
          {attrInt("axis", axis)});
  if (t == "torch.unbind")
    for (std::string &o : outs)
      o = c.node("Squeeze", {o, c.int64s({axis})});
  c.setTuple(0, outs);
  return success();
}

/// Slice of `x` along `axes` (ONNX clamps starts and ends as Python does).
std::string slice(ExportCall &c, const std::string &x, ArrayRef<int64_t> starts,
                  ArrayRef<int64_t> ends, ArrayRef<int64_t> axes,
                  ArrayRef<int64_t> steps) {
  return c.node("Slice", {x, c.int64s(starts), c.int64s(ends),
                          c.int64s(axes), c.int64s(steps)});
}

constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();

LogicalResult emitGetitem(ExportCall &c) {
  Value in = c.b.value("input");
  // An element of a tuple (chunk's pieces, attention's output).
  if (in && isa<TupleType>(in.getType())) {
    std::optional<int64_t> i = c.getInt("index");
    auto it = c.x.tuples.find(in);
    if (!i || it == c.x.tuples.end())
      return c.fail("only constant indices into exported tuples are "
                    "exported");
    int64_t n = it->second.size();
    int64_t k = *i < 0 ? *i + n : *i;
    auto inner = c.x.nested.find({in.getAsOpaquePointer(), unsigned(k)});
    if (k >= 0 && k < n && inner != c.x.nested.end()) {
      c.setTuple(0, inner->second);
      return success();
    }
    if (k < 0 || k >= n || it->second[k].empty())
      return c.fail("the tuple element it reads has no ONNX value");
    c.node("Identity", {it->second[k]}, {}, c.out());
    return success();
  }
  RankedTensorType xt = c.tensorType("input");
  if (!xt)
    return c.fail("it indexes neither a tensor nor a tuple");
  Attribute index = c.b.slot("index");
  SmallVector<Attribute> items;
  if (auto tuple = dyn_cast<TupleAttr>(index))
    items.assign(tuple.getElements().begin(), tuple.getElements().end());
  else
    items.push_back(index);
  int64_t rank = xt.getRank();
  int64_t used = 0;
  for (Attribute a : items)
    if (!isa<NoneAttr, EllipsisAttr>(a))
      ++used;
  SmallVector<int64_t> starts, ends, axes, steps;
  std::optional<std::pair<int64_t, Value>> gather;
  int64_t axis = 0;
  for (Attribute a : items) {
    if (isa<NoneAttr>(a))
      continue;
    if (isa<EllipsisAttr>(a)) {
      axis += rank - used;
      continue;
    }
    if (auto i = dyn_cast<IntegerAttr>(a); i && !i.getType().isInteger(1)) {
      int64_t v = i.getInt();
      starts.push_back(v);
      ends.push_back(v == -1 ? kEnd : v + 1);
      axes.push_back(axis++);
      steps.push_back(1);
      continue;
    }
    if (auto s = dyn_cast<SliceAttr>(a)) {
      auto get = [](Attribute v, int64_t dflt) -> std::optional<int64_t> {
        if (!v || isa<NoneAttr>(v))
          return dflt;
        if (auto i = dyn_cast<IntegerAttr>(v))
          return i.getInt();
        return std::nullopt;
      };
      std::optional<int64_t> step = get(s.getStep(), 1);
      if (!step || *step <= 0)
        return c.fail("slices with a non-constant or non-positive step are "
                      "not exported");
      std::optional<int64_t> lo = get(s.getStart(), 0),
                             hi = get(s.getStop(), kEnd);
      if (!lo || !hi)
        return c.fail("slices with non-constant bounds are not exported");
      if (*lo != 0 || *hi != kEnd || *step != 1) {
        starts.push_back(*lo);
        ends.push_back(*hi);
        axes.push_back(axis);
        steps.push_back(*step);
      }
      ++axis;
      continue;
    }
    if (auto m = dyn_cast<OperandAttr>(a)) {
      Value v = c.b.operandOf(m);
      auto vt = dyn_cast<RankedTensorType>(v.getType());
      if (!vt || gather || !vt.getElementType().isInteger(64) ||
          !c.x.names.count(v))
        return c.fail("only one int64 tensor index per subscript is "
                      "exported (masks and several tensor indices are not)");
      gather = {axis++, v};
      continue;
    }
    return c.fail("its subscript has a part the exporter does not take");
  }
  std::string x = c.tensor("input");
  if (!starts.empty())
    x = slice(c, x, starts, ends, axes, steps);
  if (gather)
    x = c.node("Gather", {x, c.x.names[gather->second]},
               {attrInt("axis", gather->first)});
  return failure(failed(c.reshapeToResult(x)));
}

/// `x[index] = value` for int and slice subscripts: ScatterND of the
/// covered positions (listed at export time: the shape is static) with the
/// value broadcast to them.
LogicalResult emitSetitem(ExportCall &c) {
  RankedTensorType xt = c.tensorType("input");
  if (!xt || !xt.hasStaticShape())
    return c.fail("only writes into tensors of static shape are exported");
  Attribute index = c.b.slot("index");
  SmallVector<Attribute> items;
  if (auto tuple = dyn_cast<TupleAttr>(index))
    items.assign(tuple.getElements().begin(), tuple.getElements().end());
  else
    items.push_back(index);
  int64_t rank = xt.getRank();
  int64_t used = llvm::count_if(
      items, [](Attribute a) { return !isa<EllipsisAttr>(a); });
  // Per indexed dim: the positions written; `kept` marks slice dims (ints
  // drop theirs from x[index]'s shape).
  SmallVector<SmallVector<int64_t>> positions;
  SmallVector<bool> kept;
  for (Attribute a : items) {
    if (isa<EllipsisAttr>(a)) {
      for (int64_t i = 0; i < rank - used; ++i) {
        int64_t size = xt.getDimSize(positions.size());
        SmallVector<int64_t> all(size);
        std::iota(all.begin(), all.end(), 0);
        positions.push_back(all);
        kept.push_back(true);
      }
      continue;
    }
    if (int64_t(positions.size()) >= rank)
      return c.fail("its subscript has more parts than the tensor has dims");
    int64_t size = xt.getDimSize(positions.size());
    if (auto i = dyn_cast<IntegerAttr>(a); i && !i.getType().isInteger(1)) {
      int64_t v = i.getInt() < 0 ? i.getInt() + size : i.getInt();
      if (v < 0 || v >= size)
        return c.fail("its index is out of range");
      positions.push_back({v});
      kept.push_back(false);
      continue;
    }
    auto sl = dyn_cast<SliceAttr>(a);
    if (!sl)
      return c.fail("only int and slice subscripts are exported for writes");
    auto get = [](Attribute v) -> std::optional<int64_t> {
      if (auto i = dyn_cast_or_null<IntegerAttr>(v))
        return i.getInt();
      return std::nullopt;
    };
    bool noneStep = !sl.getStep() || isa<NoneAttr>(sl.getStep());
    std::optional<int64_t> step = noneStep ? 1 : get(sl.getStep());
    if (!step || *step <= 0)
      return c.fail("slices with a non-constant or non-positive step are "
                    "not exported");
    auto bound = [&](Attribute v, int64_t dflt) -> std::optional<int64_t> {
      if (!v || isa<NoneAttr>(v))
        return dflt;
      std::optional<int64_t> b = get(v);
      if (!b)
        return std::nullopt;
      int64_t x = *b < 0 ? *b + size : *b;
      return std::clamp<int64_t>(x, 0, size);
    };
    std::optional<int64_t> lo = bound(sl.getStart(), 0),
                           hi = bound(sl.getStop(), size);
    if (!lo || !hi)
      return c.fail("slices with non-constant bounds are not exported");
    SmallVector<int64_t> p;
    for (int64_t v = *lo; v < *hi; v += *step)
      p.push_back(v);
    positions.push_back(p);
    kept.push_back(true);
  }
  int64_t k = positions.size();
  // indices: [n_0, ..., n_{k-1}, k]; updates: [n_0, ..., n_{k-1}] + the
  // shape of the dims after them.
  SmallVector<int64_t> counts, indices;
  int64_t total = 1;
  for (const auto &p : positions) {
    counts.push_back(p.size());
    total *= p.size();
  }
  if (total > (int64_t(1) << 26))
    return c.fail("it writes more positions (" + Twine(total) +
                  ") than the exporter lists in a ScatterND (2^26)");
  SmallVector<int64_t> idx(k, 0);
  for (int64_t n = 0; n < total; ++n) {
    for (int64_t d = 0; d < k; ++d)
      indices.push_back(positions[d][idx[d]]);
    for (int64_t d = k - 1; d >= 0; --d) {
      if (++idx[d] < counts[d])
        break;
      idx[d] = 0;
    }
  }
  SmallVector<int64_t> indexShape(counts);
  indexShape.push_back(k);
  std::string raw(indices.size() * 8, '\0');
  std::memcpy(raw.data(), indices.data(), raw.size());
  std::string indexName =
      c.x.addInitializer("setitem_indices", onnx::kInt64, indexShape, raw);
  SmallVector<int64_t> updateShape(counts);
  updateShape.append(xt.getShape().begin() + k, xt.getShape().end());
  // The value broadcasts against x[index] (int dims dropped), then takes
  // the updates' shape.
  SmallVector<int64_t> viewShape;
  for (int64_t d = 0; d < k; ++d)
    if (kept[d])
      viewShape.push_back(counts[d]);
  viewShape.append(xt.getShape().begin() + k, xt.getShape().end());
  Type type = xt.getElementType();
  std::string v = operandAs(c, "value", type);
  if (v.empty())
    return c.fail("its value is neither a tensor nor a number");
  std::string expanded = c.node("Expand", {v, c.int64s(viewShape)});
  std::string updates = c.node("Reshape", {expanded, c.int64s(updateShape)});
  c.node("ScatterND", {c.tensor("input"), indexName, updates}, {}, c.out());
  return success();
}

LogicalResult emitNarrow(ExportCall &c) {
  StringRef t = c.target();
  int64_t rank = c.tensorType("input").getRank();
  std::optional<int64_t> dim = c.getInt("dim");
  if (!dim)
    return c.fail("its dim must be a constant");
  int64_t axis = c.normDim(*dim, rank);
  std::string x = c.tensor("input");
  if (t == "torch.select") {
    std::optional<int64_t> i = c.getInt("index");
    if (!i)
      return c.fail("its index must be a constant");
    std::string s = slice(c, x, {*i}, {*i == -1 ? kEnd : *i + 1}, {axis}, {1});
    return failure(failed(c.reshapeToResult(s)));
  }
  std::optional<int64_t> start = c.getInt("start"), len = c.getInt("length");
  if (!start || !len)
    return c.fail("its start and length must be constants");
  int64_t size = c.tensorType("input").getDimSize(axis);
  int64_t lo = *start < 0 ? *start + size : *start;
  c.node("Slice",
         {x, c.int64s({lo}), c.int64s({lo + *len}), c.int64s({axis}),
          c.int64s({1})},
         {}, c.out());
  return success();
}

LogicalResult emitFlip(ExportCall &c) {
  std::optional<SmallVector<int64_t>> dims = c.getInts("dims");
  if (!dims)
    return c.fail("its dims must be constants");
  int64_t rank = c.tensorType("input").getRank();
  SmallVector<int64_t> axes, starts, ends, steps;
  for (int64_t d : *dims) {
    axes.push_back(c.normDim(d, rank));
    starts.push_back(-1);
    ends.push_back(std::numeric_limits<int64_t>::min());
    steps.push_back(-1);
  }
  c.node("Slice",
         {c.tensor("input"), c.int64s(starts), c.int64s(ends), c.int64s(axes),
          c.int64s(steps)},
         {}, c.out());
  return success();
}

LogicalResult emitRoll(ExportCall &c) {
  std::optional<SmallVector<int64_t>> shifts = c.getInts("shifts");
  RankedTensorType xt = c.tensorType("input");
  if (!shifts || !xt.hasStaticShape())
    return c.fail("its shifts must be constants and its input static");
  std::string x = c.tensor("input");
  SmallVector<int64_t> dims;
  if (c.isNone("dims")) {
    x = c.node("Reshape", {x, c.int64s({-1})});
    dims.push_back(0);
  } else if (std::optional<SmallVector<int64_t>> d = c.getInts("dims")) {
    dims = *d;
  } else {
    return c.fail("its dims must be constants");
  }
  int64_t rank = c.isNone("dims") ? 1 : xt.getRank();
  for (auto [s, d] : llvm::zip(*shifts, dims)) {
    int64_t axis = c.normDim(d, rank);
    int64_t size = c.isNone("dims") ? xt.getNumElements()
                                    : xt.getDimSize(axis);
    if (size == 0)
      continue;
    int64_t k = ((s % size) + size) % size;
    if (k == 0)
      continue;
    std::string tail = slice(c, x, {size - k}, {size}, {axis}, {1});
    std::string head = slice(c, x, {0}, {size - k}, {axis}, {1});
    x = c.node("Concat", {tail, head}, {attrInt("axis", axis)});
  }
  return failure(failed(c.reshapeToResult(x)));
}

LogicalResult emitPad(ExportCall &c) {
  std::optional<SmallVector<int64_t>> pad = c.getInts("pad");
  Attribute modeAttr = c.value("mode");
  StringRef mode = isa_and_nonnull<StringAttr>(modeAttr)
                       ? cast<StringAttr>(modeAttr).getValue()
                       : "constant";
  int64_t rank = c.tensorType("input").getRank();
  if (!pad || pad->size() % 2 || int64_t(pad->size()) > 2 * rank)
    return c.fail("its pad must be a constant list of pairs");
  if (mode == "circular")
    return c.fail("circular padding has no ONNX Pad before opset 19");
  SmallVector<int64_t> pads(2 * rank, 0);
  for (size_t i = 0; i < pad->size() / 2; ++i) {
    int64_t d = rank - 1 - i;
    pads[d] = (*pad)[2 * i];
    pads[rank + d] = (*pad)[2 * i + 1];
  }
  Type type = c.resultElement();
  SmallVector<std::string> ins = {c.tensor("input"), c.int64s(pads)};
  if (mode == "constant")
    ins.push_back(c.scalar(c.getFloat("value").value_or(0), type));
  c.node("Pad", ins,
         {attrString("mode", mode == "constant"  ? "constant"
                             : mode == "reflect" ? "reflect"
                                                 : "edge")},
         c.out());
  return success();
}

LogicalResult emitIndexSelect(ExportCall &c) {
  StringRef t = c.target();
  if (t == "torch.nn.functional.embedding") {
    if (!c.isNone("max_norm"))
      return c.fail("max_norm renormalizes the weight, which ONNX Gather "
                    "cannot");
    c.node("Gather", {c.tensor("weight"), c.tensor("input")},
           {attrInt("axis", 0)}, c.out());
    return success();
  }
  std::optional<int64_t> dim = c.getInt("dim");
  if (!dim)
    return c.fail("its dim must be a constant");
  int64_t rank = c.tensorType("input").getRank();
  int64_t axis = rank ? c.normDim(*dim, rank) : 0;
  if (t == "torch.gather") {
    c.node("GatherElements", {c.tensor("input"), c.tensor("index")},
           {attrInt("axis", axis)}, c.out());
    return success();
  }
  c.node("Gather", {c.tensor("input"), c.tensor("index")},
         {attrInt("axis", axis)}, c.out());
  return success();
}

LogicalResult emitTriangle(ExportCall &c) {
  std::optional<int64_t> k = c.getInt("diagonal");
  if (!k)
    return c.fail("its diagonal must be a constant");
  c.node("Trilu", {c.tensor("input"), c.int64s({*k})},
         {attrInt("upper", c.target() == "torch.triu")}, c.out());
  return success();
}

LogicalResult emitTopk(ExportCall &c) {
  std::optional<int64_t> k = c.getInt("k"), dim = c.getInt("dim");
  if (!k || !dim)
    return c.fail("its k and dim must be constants");
  std::string values = c.x.fresh("topk_values"),
              indices = c.x.fresh("topk_indices");
  c.nodeN("TopK", {c.tensor("input"), c.int64s({*k})}, {values, indices},
          {attrInt("axis", *dim),
           attrInt("largest", c.getBool("largest").value_or(true)),
           attrInt("sorted", 1)});
  c.setTuple(0, {values, indices});
  return success();
}

/// zeros_like and friends, new_zeros, full: a constant expanded to the
/// result's (static) shape.
LogicalResult emitFill(ExportCall &c) {
  StringRef t = c.target();
  RankedTensorType rt = c.resultType();
  if (!rt || !rt.hasStaticShape())
    return c.fail("filling a dynamic shape is not exported yet");
  double v = 0;
  if (t.contains("ones"))
    v = 1;
  else if (t.contains("full")) {
    std::optional<double> f = c.getFloat("fill_value");
    if (!f)
      return c.fail("its fill value must be a constant");
    v = *f;
  }
  c.node("Expand", {c.scalar(v, rt.getElementType()), c.int64s(rt.getShape())},
         {}, c.out());
  return success();
}

LogicalResult emitInterpolate(ExportCall &c) {
  Attribute modeAttr = c.value("mode");
  StringRef mode = isa_and_nonnull<StringAttr>(modeAttr)
                       ? cast<StringAttr>(modeAttr).getValue()
                       : "nearest";
  RankedTensorType rt = c.resultType();
  if (!rt || !rt.hasStaticShape())
    return c.fail("resizing to a dynamic shape is not exported yet");
  if (c.getBool("antialias").value_or(false))
    return c.fail("antialiased resizing has no ONNX form");
  bool align = c.getBool("align_corners").value_or(false);
  SmallVector<OnnxAttr> attrs;
  if (mode == "nearest") {
    attrs = {attrString("mode", "nearest"),
             attrString("coordinate_transformation_mode", "asymmetric"),
             attrString("nearest_mode", "floor")};
  } else if (mode == "linear" || mode == "bilinear" || mode == "trilinear") {
    attrs = {attrString("mode", "linear"),
             attrString("coordinate_transformation_mode",
                        align ? "align_corners" : "pytorch_half_pixel")};
  } else if (mode == "bicubic") {
    attrs = {attrString("mode", "cubic"), attrFloat("cubic_coeff_a", -0.75),
             attrString("coordinate_transformation_mode",
                        align ? "align_corners" : "pytorch_half_pixel")};
  } else {
    return c.fail(("mode '" + mode + "' is not exported").str());
  }
  if (!c.isNone("scale_factor") && mode == "nearest")
    return c.fail("nearest resizing by a scale factor rounds the source "
                  "index differently in ONNX; give size= instead");
  c.node("Resize", {c.tensor("input"), "", "", c.int64s(rt.getShape())},
         attrs, c.out());
  return success();
}

/// F.multi_head_attention_forward in inference (no dropout, no
/// key_padding_mask, packed or separate projections): the projections,
/// per-head scaled dot products, softmax and the output projection.
LogicalResult emitAttention(ExportCall &c) {
  if (c.getBool("training").value_or(true) &&
      c.getFloat("dropout_p").value_or(0) != 0)
    return c.fail("attention dropout in training mode has no ONNX form");
  if (c.isTensor("bias_k") || c.isTensor("bias_v") ||
      c.getBool("add_zero_attn").value_or(false) ||
      c.isTensor("key_padding_mask") || c.isTensor("static_k") ||
      c.isTensor("static_v"))
    return c.fail("bias_k/bias_v, add_zero_attn, key_padding_mask and "
                  "static keys are not exported yet");
  if (c.getBool("need_weights").value_or(true)) {
    auto tuple = cast<TupleType>(c.op()->getResult(0).getType());
    if (isa<RankedTensorType>(tuple.getType(1)))
      return c.fail("need_weights=True (the averaged attention weights) is "
                    "not exported yet");
  }
  RankedTensorType qt = c.tensorType("query"), kt = c.tensorType("key");
  std::optional<int64_t> heads = c.getInt("num_heads");
  if (!qt || !kt || qt.getRank() != 3 || !heads || !qt.hasStaticShape() ||
      !kt.hasStaticShape())
    return c.fail("only batched attention of static shapes is exported");
  int64_t L = qt.getDimSize(0), N = qt.getDimSize(1), E = qt.getDimSize(2);
  int64_t S = kt.getDimSize(0), H = *heads, D = E / H;
  Type type = qt.getElementType();
  bool separate = c.getBool("use_separate_proj_weight").value_or(false);
  auto project = [&](StringRef input, StringRef sepWeight, int64_t i) {
    std::string w, bias;
    if (separate) {
      w = c.tensor(sepWeight);
    } else {
      w = slice(c, c.tensor("in_proj_weight"), {i * E}, {(i + 1) * E}, {0},
                {1});
    }
    if (c.isTensor("in_proj_bias"))
      bias = slice(c, c.tensor("in_proj_bias"), {i * E}, {(i + 1) * E}, {0},
                   {1});
    std::string wt = c.node("Transpose", {w}, {attrInts("perm", {1, 0})});
    std::string p = c.node("MatMul", {c.tensor(input), wt});
    return bias.empty() ? p : c.node("Add", {p, bias});
  };
  auto heads3 = [&](const std::string &v, int64_t len) {
    // [len, N, E] -> [N * H, len, D]
    std::string r = c.node("Reshape", {v, c.int64s({len, N * H, D})});
    return c.node("Transpose", {r}, {attrInts("perm", {1, 0, 2})});
  };
  std::string q = heads3(project("query", "q_proj_weight", 0), L);
  std::string k = heads3(project("key", "k_proj_weight", 1), S);
  std::string v = heads3(project("value", "v_proj_weight", 2), S);
  q = c.node("Mul", {q, c.scalar(1.0 / std::sqrt(double(D)), type)});
  std::string kT = c.node("Transpose", {k}, {attrInts("perm", {0, 2, 1})});
  std::string scores = c.node("MatMul", {q, kT});
  if (c.isTensor("attn_mask")) {
    RankedTensorType mt = c.tensorType("attn_mask");
    std::string mask = c.tensor("attn_mask");
    if (mt.getElementType().isInteger(1))
      mask = c.node("Where", {mask, c.scalar(-INFINITY, type),
                              c.scalar(0, type)});
    else
      mask = c.cast(mask, mt.getElementType(), type);
    scores = c.node("Add", {scores, mask});
  }
  std::string attn = c.node("Softmax", {scores}, {attrInt("axis", -1)});
  std::string o = c.node("MatMul", {attn, v});
  o = c.node("Transpose", {o}, {attrInts("perm", {1, 0, 2})});
  o = c.node("Reshape", {o, c.int64s({L, N, E})});
  std::string wo = c.node("Transpose", {c.tensor("out_proj_weight")},
                          {attrInts("perm", {1, 0})});
  o = c.node("MatMul", {o, wo});
  if (c.isTensor("out_proj_bias"))
    o = c.node("Add", {o, c.tensor("out_proj_bias")});
  c.setTuple(0, {o, ""});
  return success();
}

/// traced.nn.rnn (nn.RNN, nn.GRU, nn.LSTM): one ONNX RNN/GRU/LSTM node per
/// layer, its directions stacked, the weights' gate blocks reordered
/// (torch: LSTM i, f, g, o and GRU r, z, n; ONNX: i, o, f, c and z, r, h),
/// GRU with linear_before_reset=1 (torch's formula); each layer's
/// [T, dirs, N, H] output flattened to the next layer's input.
LogicalResult emitRecurrent(ExportCall &c) {
  auto mode = dyn_cast_or_null<StringAttr>(c.value("mode"));
  std::optional<int64_t> H = c.getInt("hidden_size"),
                         layers = c.getInt("num_layers"),
                         proj = c.getInt("proj_size");
  std::optional<bool> bias = c.getBool("bias"),
                      batchFirst = c.getBool("batch_first"),
                      bidir = c.getBool("bidirectional"),
                      training = c.getBool("training");
  std::optional<SmallVector<std::string>> params = c.tensors("params");
  RankedTensorType xt = c.tensorType("input");
  if (!mode || !H || !layers || !bias || !batchFirst || !bidir || !params ||
      !xt)
    return c.fail("its mode, sizes and flags must be constants");
  if (proj.value_or(0) != 0)
    return c.fail("LSTM's proj_size has no ONNX form");
  if (training.value_or(false) && c.getFloat("dropout").value_or(0) != 0 &&
      *layers > 1)
    return c.fail("dropout between layers in training mode is random");
  StringRef m = mode.getValue();
  StringRef opType = m == "LSTM" ? "LSTM" : m == "GRU" ? "GRU" : "RNN";
  if (xt.getRank() != 3 || !xt.hasStaticShape())
    return c.fail("only batched inputs of static shape are exported");
  int64_t dirs = *bidir ? 2 : 1, h = *H;
  int64_t gates = opType == "LSTM" ? 4 : opType == "GRU" ? 3 : 1;
  SmallVector<int64_t> order = opType == "LSTM"  ? SmallVector<int64_t>{0, 3, 1, 2}
                               : opType == "GRU" ? SmallVector<int64_t>{1, 0, 2}
                                                 : SmallVector<int64_t>{0};
  unsigned perDir = *bias ? 4 : 2;
  if (int64_t(params->size()) != *layers * dirs * perDir)
    return c.fail("its parameter list does not match its layers");
  // Torch's gate blocks as ONNX's, stacked over the directions.
  auto reorder = [&](const std::string &w) {
    SmallVector<std::string> blocks;
    for (int64_t g = 0; g < gates; ++g)
      blocks.push_back(c.x.fresh("gate"));
    c.nodeN("Split", {w, c.int64s(SmallVector<int64_t>(gates, h))}, blocks,
            {attrInt("axis", 0)});
    SmallVector<std::string> ordered;
    for (int64_t g : order)
      ordered.push_back(blocks[g]);
    return gates == 1 ? w : c.node("Concat", ordered, {attrInt("axis", 0)});
  };
  auto stack = [&](ArrayRef<std::string> perDirection) {
    SmallVector<std::string> parts;
    for (const std::string &p : perDirection)
      parts.push_back(c.node("Unsqueeze", {p, c.int64s({0})}));
    return parts.size() == 1 ? parts[0]
                             : c.node("Concat", parts, {attrInt("axis", 0)});
  };
  std::string x = c.tensor("input");
  if (*batchFirst)
    x = c.node("Transpose", {x}, {attrInts("perm", {1, 0, 2})});
  // Initial states: hx, or (h0, c0) for LSTM.
  std::string h0, c0;
  Attribute hxSlot = c.b.slot("hx");
  if (auto marker = dyn_cast_or_null<OperandAttr>(hxSlot)) {
    h0 = c.x.names.lookup(c.b.operandOf(marker));
  } else if (auto tuple = dyn_cast_or_null<TupleAttr>(hxSlot)) {
    ArrayRef<Attribute> e = tuple.getElements().getValue();
    if (e.size() == 2 && isa<OperandAttr>(e[0]) && isa<OperandAttr>(e[1])) {
      h0 = c.x.names.lookup(c.b.operandOf(cast<OperandAttr>(e[0])));
      c0 = c.x.names.lookup(c.b.operandOf(cast<OperandAttr>(e[1])));
    }
  } else if (hxSlot && !isa<NoneAttr>(hxSlot)) {
    return c.fail("its initial state is not a tensor or a pair of them");
  }
  SmallVector<std::string> hs, cs;
  for (int64_t l = 0; l < *layers; ++l) {
    SmallVector<std::string> ws, rs, bs;
    for (int64_t d = 0; d < dirs; ++d) {
      ArrayRef<std::string> p =
          ArrayRef(*params).slice((l * dirs + d) * perDir, perDir);
      ws.push_back(reorder(p[0]));
      rs.push_back(reorder(p[1]));
      if (*bias)
        bs.push_back(c.node("Concat", {reorder(p[2]), reorder(p[3])},
                            {attrInt("axis", 0)}));
    }
    auto layerState = [&](const std::string &s) -> std::string {
      if (s.empty())
        return "";
      return slice(c, s, {l * dirs}, {(l + 1) * dirs}, {0}, {1});
    };
    SmallVector<std::string> ins = {x, stack(ws), stack(rs),
                                    *bias ? stack(bs) : "", "",
                                    layerState(h0)};
    if (opType == "LSTM")
      ins.push_back(layerState(c0));
    while (!ins.empty() && ins.back().empty())
      ins.pop_back();
    std::string y = c.x.fresh("rnn_y"), yh = c.x.fresh("rnn_h");
    SmallVector<std::string> outs = {y, yh};
    if (opType == "LSTM")
      outs.push_back(c.x.fresh("rnn_c"));
    SmallVector<OnnxAttr> attrs = {attrInt("hidden_size", h),
                                   attrString("direction",
                                              *bidir ? "bidirectional"
                                                     : "forward")};
    if (opType == "GRU")
      attrs.push_back(attrInt("linear_before_reset", 1));
    if (m == "RNN_RELU") {
      OnnxAttr acts;
      acts.name = "activations";
      acts.type = onnx::kAttrStrings;
      acts.strings.assign(dirs, "Relu");
      attrs.push_back(acts);
    }
    c.nodeN(opType, ins, outs, attrs);
    hs.push_back(yh);
    if (opType == "LSTM")
      cs.push_back(outs[2]);
    // [T, dirs, N, H] -> [T, N, dirs * H]
    std::string t = c.node("Transpose", {y}, {attrInts("perm", {0, 2, 1, 3})});
    x = c.node("Reshape", {t, c.int64s({0, 0, dirs * h})});
  }
  if (*batchFirst)
    x = c.node("Transpose", {x}, {attrInts("perm", {1, 0, 2})});
  auto cat = [&](ArrayRef<std::string> s) {
    return s.size() == 1 ? c.node("Identity", {s[0]})
                         : c.node("Concat", s, {attrInt("axis", 0)});
  };
  std::string hn = cat(hs);
  c.setTuple(0, {x, hn});
  if (opType == "LSTM") {
    // (output, (h_n, c_n)): the inner pair as a tuple value of its own.
    c.setTuple(0, {x, ""});
    c.x.nested[{c.op()->getResult(0).getAsOpaquePointer(), 1}] = {hn, cat(cs)};
  }
  return success();
}

LogicalResult emitChannelShuffle(ExportCall &c) {
  std::optional<int64_t> g = c.getInt("groups");
  RankedTensorType xt = c.tensorType("input");
  if (!g || !xt.hasStaticShape() || xt.getRank() < 3)
    return c.fail("its groups must be a constant and its input static");
  SmallVector<int64_t> shape(xt.getShape());
  SmallVector<int64_t> split = {shape[0], *g, shape[1] / *g};
  split.append(shape.begin() + 2, shape.end());
  SmallVector<int64_t> perm = {0, 2, 1};
  for (int64_t i = 3; i < int64_t(split.size()); ++i)
    perm.push_back(i);
  std::string r = c.node("Reshape", {c.tensor("input"), c.int64s(split)});
  std::string t = c.node("Transpose", {r}, {attrInts("perm", perm)});
  c.node("Reshape", {t, c.int64s(shape)}, {}, c.out());
  return success();
}

} // namespace

const EmitTable &onnx_export::getEmitTable() {
  static const EmitTable table = [] {
    EmitTable t;
    for (const auto &e : unaryOps())
      t[e.getKey()] = emitUnary;
    for (StringRef n :
         {"torch.nn.functional.dropout", "torch.dropout",
          "torch.nn.functional.dropout1d", "torch.nn.functional.dropout2d",
          "torch.nn.functional.dropout3d", "torch.nn.functional.alpha_dropout",
          "torch.nn.functional.feature_alpha_dropout",
          "torchvision.ops.stochastic_depth.stochastic_depth",
          "Tensor.contiguous", "torch.clone", "Tensor.detach"})
      t[n] = emitIdentity;
    for (StringRef n : {"Tensor.to", "Tensor.type_as", "Tensor.float",
                        "Tensor.double", "Tensor.half", "Tensor.bfloat16",
                        "Tensor.long", "Tensor.int", "Tensor.short",
                        "Tensor.char", "Tensor.byte", "Tensor.bool"})
      t[n] = emitCast;
    for (StringRef n :
         {"torch.nn.functional.relu6", "torch.nn.functional.hardtanh",
          "torch.nn.functional.leaky_relu", "torch.nn.functional.elu",
          "torch.nn.functional.celu", "torch.nn.functional.hardsigmoid",
          "torch.nn.functional.softplus", "torch.nn.functional.silu",
          "torch.nn.functional.mish", "torch.nn.functional.gelu",
          "torch.rsqrt", "torch.square", "torch.log1p", "torch.expm1",
          "torch.log2", "torch.log10", "torch.erfc"})
      t[n] = emitActivation;
    for (StringRef n : {"torch.clamp", "torch.clamp_min", "torch.clamp_max"})
      t[n] = emitClamp;
    for (StringRef n : {"torch.add", "torch.sub", "torch.mul", "torch.div",
                        "torch.pow", "torch.maximum", "torch.minimum"})
      t[n] = emitBinary;
    for (StringRef n : {"torch.eq", "torch.ne", "torch.lt", "torch.le",
                        "torch.gt", "torch.ge", "torch.logical_and",
                        "torch.logical_or", "torch.logical_xor"})
      t[n] = emitCompare;
    t["torch.where"] = emitWhere;
    t["torch.nan_to_num"] = emitNanToNum;
    t["Tensor.masked_fill"] = emitWhere;
    t["torch.nn.functional.linear"] = emitLinear;
    for (StringRef n : {"torch.matmul", "torch.mm", "torch.bmm", "torch.mv"})
      t[n] = emitMatmul;
    t["torch.addmm"] = emitAddmm;
    t["torch.einsum"] = emitEinsum;
    for (StringRef n :
         {"torch.nn.functional.conv1d", "torch.nn.functional.conv2d",
          "torch.nn.functional.conv3d", "torch.nn.functional.conv_transpose1d",
          "torch.nn.functional.conv_transpose2d",
          "torch.nn.functional.conv_transpose3d"})
      t[n] = emitConv;
    t["torch.nn.functional.batch_norm"] = emitBatchNorm;
    t["torch.nn.functional.layer_norm"] = emitLayerNorm;
    t["torch.nn.functional.normalize"] = emitNormalize;
    t["torch.nn.functional.softmax"] = emitSoftmax;
    t["torch.nn.functional.log_softmax"] = emitSoftmax;
    for (StringRef n :
         {"torch.nn.functional.max_pool1d", "torch.nn.functional.max_pool2d",
          "torch.nn.functional.max_pool3d", "torch.nn.functional.avg_pool1d",
          "torch.nn.functional.avg_pool2d", "torch.nn.functional.avg_pool3d"})
      t[n] = emitPool;
    for (StringRef n : {"torch.nn.functional.adaptive_avg_pool1d",
                        "torch.nn.functional.adaptive_avg_pool2d",
                        "torch.nn.functional.adaptive_avg_pool3d",
                        "torch.nn.functional.adaptive_max_pool1d",
                        "torch.nn.functional.adaptive_max_pool2d",
                        "torch.nn.functional.adaptive_max_pool3d"})
      t[n] = emitAdaptivePool;
    for (StringRef n : {"torch.mean", "torch.sum", "torch.amax", "torch.amin",
                        "torch.prod", "torch.logsumexp"})
      t[n] = emitReduce;
    t["torch.argmax"] = emitArgReduce;
    t["torch.argmin"] = emitArgReduce;
    t["torch.cumsum"] = emitCumsum;
    for (StringRef n :
         {"torch.flatten", "torch.reshape", "Tensor.view", "torch.squeeze",
          "torch.unsqueeze", "Tensor.unflatten", "Tensor.view_as",
          "Tensor.reshape_as", "torch.atleast_1d", "torch.atleast_2d",
          "torch.atleast_3d"})
      t[n] = emitReshape;
    for (StringRef n :
         {"torch.permute", "torch.transpose", "torch.t", "torch.movedim"})
      t[n] = emitPermute;
    t["Tensor.expand"] = emitExpand;
    t["Tensor.expand_as"] = emitExpand;
    t["Tensor.repeat"] = emitRepeat;
    t["torch.tile"] = emitRepeat;
    t["torch.cat"] = emitCat;
    t["torch.stack"] = emitCat;
    for (StringRef n :
         {"torch.chunk", "torch.split", "torch.tensor_split", "torch.unbind"})
      t[n] = emitSplit;
    t["operator.getitem"] = emitGetitem;
    t["operator.setitem"] = emitSetitem;
    t["torch.narrow"] = emitNarrow;
    t["torch.select"] = emitNarrow;
    t["torch.flip"] = emitFlip;
    t["torch.roll"] = emitRoll;
    t["torch.nn.functional.pad"] = emitPad;
    t["torch.index_select"] = emitIndexSelect;
    t["torch.gather"] = emitIndexSelect;
    t["torch.nn.functional.embedding"] = emitIndexSelect;
    t["torch.tril"] = emitTriangle;
    t["torch.triu"] = emitTriangle;
    t["torch.topk"] = emitTopk;
    for (StringRef n : {"torch.zeros_like", "torch.ones_like",
                        "torch.full_like", "Tensor.new_zeros",
                        "Tensor.new_ones", "Tensor.new_full", "torch.zeros",
                        "torch.ones", "torch.full"})
      t[n] = emitFill;
    t["torch.nn.functional.interpolate"] = emitInterpolate;
    t["torch.nn.functional.multi_head_attention_forward"] = emitAttention;
    t["torch.nn.functional.channel_shuffle"] = emitChannelShuffle;
    t["traced.nn.rnn"] = emitRecurrent;
    return t;
  }();
  return table;
}
