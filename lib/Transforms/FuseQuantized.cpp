//===- FuseQuantized.cpp - q/dq pairs around float ops as int8 ops --------===//
//
// traced-fuse-quantized: a reference model (torch.fx's
// convert_to_reference_fx, docs/quantization.md) computes every quantized
// op as a float op between dequantize and quantize calls. This pass turns
// each such island into the quantized op an int8 model has, reading the
// result's parameters from the quantize call's type:
//
//   quantize(relu?(conv(dequantize(xq), dequantize(wq), b)))  -> conv_relu?
//   quantize(relu?(linear(dequantize(xq), dequantize(wq), b))) -> linear_relu?
//   quantize(relu?(add(dequantize(a), dequantize(b))))        -> quantized.add_relu?
//   quantize(op(dequantize(x))), same parameters, op taking quantized
//   tensors (views, pooling, relu, ...)                         -> op(x)
//   quantize(dequantize(x)), same parameters                    -> x
//
// The float ops left without users go. Run traced-flatten and
// traced-normalize first: the reference modules' graphs are inlined and
// the targets canonical.
//
//===----------------------------------------------------------------------===//

#include "Decompose/Decompose.h"
#include "Utils.h"

#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDFUSEQUANTIZED
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

namespace {
/// The call of `entry` (any known entry when empty) that defines `v`,
/// bound; by default only when `v` has one reader.
std::optional<BoundOp> producer(Value v, StringRef entry = {},
                                bool singleUse = true) {
  if (entry.empty())
    return definingCall(v, {}, singleUse);
  return definingCall(v, {entry}, singleUse);
}

/// The quantized tensor `v` dequantizes (`v` = dequantize(q)), or null.
Value dequantized(Value v, bool singleUse = false) {
  std::optional<BoundOp> dq = producer(v, "torch.dequantize", singleUse);
  if (!dq)
    return {};
  Value q = dq->value("input");
  return isQuantizedTensor(q.getType()) ? q : Value();
}

Type elementOf(Value v) { return cast<TensorType>(v.getType()).getElementType(); }

bool isUnsigned8(Value v) {
  auto q = dyn_cast<quant::QuantizedType>(elementOf(v));
  return q && !q.isSigned() && q.getStorageTypeIntegralWidth() == 8;
}

bool isSigned8(Value v) {
  auto q = dyn_cast<quant::QuantizedType>(elementOf(v));
  return q && q.isSigned() && q.getStorageTypeIntegralWidth() == 8;
}

/// The int8 form of `quantize(relu?(core))`, built before the quantize
/// call, or null when it has none.
Value fuse(Decomposer &d, const BoundOp &core, bool relu, Type result) {
  auto u = dyn_cast<quant::UniformQuantizedType>(
      cast<TensorType>(result).getElementType());
  if (!u)
    return {};
  StringRef name = core.spec->name;
  Attribute scale = d.f64(u.getScale()), zp = d.i64(u.getZeroPoint());
  if (name.starts_with("torch.nn.functional.conv") || name == "torch.nn.functional.linear") {
    Value x = dequantized(core.value("input")), w = dequantized(core.value("weight"));
    if (!x || !w || !isUnsigned8(x) || !isSigned8(w))
      return {};
    bool linear = name == "torch.nn.functional.linear";
    StringRef n = name.take_back(2);
    if (!linear && (n != "1d" && n != "2d" && n != "3d"))
      return {};
    if (!linear && isa_and_nonnull<StringAttr>(core.slot("padding")))
      return {}; // padding="same": the quantized functional takes ints
    std::string target =
        linear ? (relu ? "traced.quantized.linear_relu"
                       : "torch.ao.nn.quantized.functional.linear")
               : (relu ? "traced.quantized.conv_relu" + n.str()
                       : "torch.ao.nn.quantized.functional.conv" + n.str());
    SmallVector<KwArg> args{{"input", x}, {"weight", w}};
    if (!d.isNone("bias"))
      args.push_back({"bias", d.arg("bias")});
    if (!linear)
      for (StringRef p : {"stride", "padding", "dilation", "groups"})
        args.push_back({p, d.arg(p)});
    args.push_back({"scale", scale});
    args.push_back({"zero_point", zp});
    return d.call(target, args, result);
  }
  if (name == "torch.add") {
    Value a = dequantized(core.value("input")), b = dequantized(core.value("other"));
    std::optional<double> alpha = d.getFloat("alpha");
    if (!a || !b || (alpha && *alpha != 1.0) || elementOf(a).getTypeID() != elementOf(b).getTypeID())
      return {};
    return d.call(relu ? "torch.ops.quantized.add_relu" : "torch.ops.quantized.add",
                  {{"qa", a}, {"qb", b}, {"scale", scale}, {"zero_point", zp}},
                  result);
  }
  return {};
}

/// `op(dequantize(x))` quantized again at x's own parameters, op an entry
/// that takes quantized tensors (QuantizedUse Storage or SameQParams) and
/// x its only tensor operand: the op on x, of type `result`.
Value onQuantized(OpBuilder &b, const BoundOp &op, Type result) {
  if (op.spec->quantized != QuantizedUse::Storage &&
      op.spec->quantized != QuantizedUse::SameQParams)
    return {};
  Value x;
  unsigned index = 0;
  for (auto [i, operand] : llvm::enumerate(op.op->getOperands())) {
    if (!isa<TensorType>(operand.getType()))
      continue;
    if (x)
      return {};
    x = dequantized(operand);
    index = i;
    if (!x || elementOf(x) != cast<TensorType>(result).getElementType())
      return {};
  }
  if (!x)
    return {};
  Operation *clone = b.clone(*op.op);
  clone->setOperand(index, x);
  clone->getResult(0).setType(result);
  return clone->getResult(0);
}

/// Erases `op` and then the producers it leaves unused (pure calls and
/// dequantizes).
void eraseDead(Operation *op) {
  SmallVector<Operation *> work{op};
  while (!work.empty()) {
    Operation *o = work.pop_back_val();
    if (!o->use_empty())
      continue;
    SmallVector<Operation *> defs;
    for (Value v : o->getOperands())
      if (Operation *def = v.getDefiningOp();
          def && isa<CallFunctionOp, CallMethodOp>(def))
        defs.push_back(def);
    o->erase();
    for (Operation *def : defs)
      if (std::optional<BoundOp> bd = bindCall(def, {}); bd && bd->spec->pure)
        work.push_back(def);
  }
}
} // namespace

FailureOr<unsigned> traced::fuseQuantizedIslands(mlir::ModuleOp top) {
  SymbolTableCollection symbols;
  SmallVector<Operation *> quantizes;
  top.walk([&](Operation *op) {
    if (std::optional<BoundOp> b = bindCall(op, {});
        b && b->spec->name == "torch.quantize_per_tensor" &&
        isQuantizedTensor(op->getResult(0).getType()))
      quantizes.push_back(op);
  });
  unsigned fused = 0;
  for (Operation *q : quantizes) {
    std::optional<BoundOp> bound = bindCall(q, {});
    Value input = bound->value("input");
    Type result = q->getResult(0).getType();
    OpBuilder b(q);
    Value replacement;
    if (Value x = dequantized(input); x && x.getType() == result) {
      replacement = x; // quantize(dequantize(x)) at x's parameters
    } else if (std::optional<BoundOp> def = producer(input)) {
      bool relu = def->spec->name == "torch.nn.functional.relu";
      std::optional<BoundOp> core = relu ? producer(def->value("input")) : def;
      if (core) {
        Decomposer dc(*core, b, symbols);
        replacement = fuse(dc, *core, relu, result);
        if (dc.failed)
          return failure();
      }
      if (!replacement)
        replacement = onQuantized(b, *def, result);
    }
    if (!replacement)
      continue;
    ++fused;
    q->getResult(0).replaceAllUsesWith(replacement);
    eraseDead(q);
  }
  return fused;
}

namespace {
struct FuseQuantizedPass
    : traced::impl::TracedFuseQuantizedBase<FuseQuantizedPass> {
  void runOnOperation() override {
    FailureOr<unsigned> fused = fuseQuantizedIslands(getOperation());
    if (failed(fused))
      return signalPassFailure();
    numFused += *fused;
  }
};
} // namespace
