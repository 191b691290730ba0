//===- Utils.cpp - pieces the graph-surgery passes share ------------------===//

#include "Utils.h"
#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Support/Blobs.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>

using namespace mlir;
using namespace mlir::traced;

std::optional<BoundOp> mlir::traced::definingCall(Value v,
                                                  ArrayRef<StringRef> entries,
                                                  bool singleUse) {
  if (!v || (singleUse && !v.hasOneUse()))
    return std::nullopt;
  Operation *op = v.getDefiningOp();
  if (!op || !isa<CallFunctionOp, CallMethodOp>(op) || op->getNumResults() != 1)
    return std::nullopt;
  return bindCall(op, entries);
}

traced::ModuleOp traced::receiverModule(Value receiver,
                                        SymbolTableCollection &symbols) {
  auto type = dyn_cast<ModuleType>(receiver.getType());
  auto top = receiver.getParentRegion()->getParentOfType<mlir::ModuleOp>();
  if (!type || !top)
    return {};
  return symbols.lookupSymbolIn<traced::ModuleOp>(top, type.getModuleName());
}

FailureOr<CallFunctionOp>
traced::makeLeafCallFunctional(CallMethodOp call,
                               SymbolTableCollection &symbols) {
  traced::ModuleOp module = receiverModule(call.getReceiver(), symbols);
  if (!module || !module.isLeaf() || call.getMethod() != "forward")
    return failure();
  const ModuleSpec *leaf = OpLibrary::get().lookupModule(module.getClassName());
  if (!leaf)
    return failure();
  const OpSpec *functional = OpLibrary::get().lookupFunction(leaf->functional);
  MLIRContext *ctx = call.getContext();
  SmallVector<StringRef> keywords;
  for (Attribute k : call.getKeywordsAttr())
    keywords.push_back(cast<StringAttr>(k).getValue());
  SmallVector<Attribute> forwardSlots;
  {
    ScopedDiagnosticHandler silence(ctx,
                                    [](Diagnostic &) { return success(); });
    if (failed(bindArguments(
            ctx, leaf->forward, 0, call.getArgumentsAttr().getValue(), keywords,
            [&] { return mlir::emitError(call.getLoc()); }, forwardSlots)))
      return failure();
  }
  OpBuilder b(call);
  SmallVector<Value> operands;
  SmallVector<Attribute> arguments;
  SmallVector<StringRef> names;
  auto takeOperands = [&](Attribute slot) {
    return replaceOperandMarkers(slot, [&](OperandAttr m) {
      operands.push_back(call.getArgs()[m.getIndex()]);
      return OperandAttr::get(ctx, operands.size() - 1);
    });
  };
  for (const Param &param : functional->signature.params) {
    const ModuleBinding *binding = nullptr;
    for (const ModuleBinding &bnd : leaf->bindings)
      if (bnd.param == param.name)
        binding = &bnd;
    if (!binding)
      continue; // the functional's default
    StringRef source = binding->source;
    Attribute value;
    if (Attribute fixed =
            leafBindingOverride(*leaf, binding->param, module, symbols)) {
      value = fixed;
    } else if (source == "@*") {
      // All the module's parameters, in declaration order.
      SmallVector<Attribute> markers;
      for (ParameterOp p : module.getBody().front().getOps<ParameterOp>()) {
        auto get = GetAttrOp::create(b, call.getLoc(), p.getType(),
                                     call.getReceiver(), p.getSymName());
        operands.push_back(get);
        markers.push_back(OperandAttr::get(ctx, operands.size() - 1));
      }
      value = ArrayAttr::get(ctx, markers);
    } else if (source.consume_front("@")) {
      bool optional = source.consume_front("?");
      Operation *decl =
          symbols.lookupSymbolIn(module, StringAttr::get(ctx, source));
      if (!decl && optional)
        continue; // the functional's default
      if (auto attr = dyn_cast_or_null<AttributeOp>(decl)) {
        value = attr.getValue();
      } else if (isa_and_nonnull<ParameterOp, BufferOp>(decl)) {
        Type type = isa<ParameterOp>(decl) ? cast<ParameterOp>(decl).getType()
                                           : cast<BufferOp>(decl).getType();
        auto get = GetAttrOp::create(b, call.getLoc(), type, call.getReceiver(),
                                     source);
        operands.push_back(get);
        value = OperandAttr::get(ctx, operands.size() - 1);
      } else {
        return failure();
      }
    } else if (source.consume_front("=")) {
      value = parsePyLiteral(ctx, source);
    } else {
      value = takeOperands(forwardSlots[*leaf->forward.lookup(source)]);
    }
    arguments.push_back(value);
    names.push_back(binding->param);
  }
  auto fn = CallFunctionOp::create(b, call.getLoc(), call.getResultTypes(),
                                   b.getStringAttr(functional->name), operands,
                                   b.getArrayAttr(arguments),
                                   b.getStrArrayAttr(names));
  // (The dynamic dims' names the tracer recorded stay with the call.)
  if (Attribute dimNames = call->getAttr(kDimNamesAttr))
    fn->setAttr(kDimNamesAttr, dimNames);
  // Normalize (drop defaults); the folder does it in place.
  (void)normalizeCallInPlace(fn);
  call->replaceAllUsesWith(fn);
  call->erase();
  return fn;
}

FailureOr<ElementsAttr> traced::constantElements(Value value,
                                                 SymbolTableCollection &symbols) {
  Operation *def = value.getDefiningOp();
  if (auto c = dyn_cast_or_null<ConstantOp>(def)) {
    if (auto e = dyn_cast<ElementsAttr>(c.getValue()))
      return e;
    return failure();
  }
  auto get = dyn_cast_or_null<GetAttrOp>(def);
  if (!get)
    return failure();
  traced::ModuleOp module = receiverModule(get.getReceiver(), symbols);
  if (!module)
    return failure();
  Operation *decl = symbols.lookupSymbolIn(module, get.getNameAttr());
  if (!isa_and_nonnull<ParameterOp, BufferOp>(decl))
    return failure();
  return cast<ElementsAttr>(decl->getAttr("value"));
}

FailureOr<Tensor> traced::constantTensor(Value value,
                                         SymbolTableCollection &symbols) {
  FailureOr<ElementsAttr> attr = constantElements(value, symbols);
  if (failed(attr))
    return failure();
  return tensorFromElements(*attr);
}

ConstantOp traced::createTensorConstant(OpBuilder &builder, Location loc,
                                        const Tensor &tensor,
                                        StringRef nameHint) {
  MLIRContext *ctx = builder.getContext();
  auto type =
      RankedTensorType::get(tensor.shape(), typeFromDType(ctx, tensor.dtype()));
  // Store in the element type's own width (f32: 4 bytes), straight into
  // the blob: no DenseElementsAttr on the way (the context would hash and
  // keep a copy of every fused weight for its lifetime).
  // (f32 and f64 are held as they are stored: one copy, into the blob.)
  AsmResourceBlob blob;
  if (tensor.dtype() == DType::F32 || tensor.dtype() == DType::F64)
    blob = copyToBlob(ArrayRef<char>(tensor.data<char>(),
                                     tensor.numel() *
                                         rawElementBytes(tensor.dtype())),
                      alignof(double));
  else
    blob = copyToBlob(encodeRaw(tensor), alignof(double));
  return createBlobConstant(builder, loc, type, nameHint, std::move(blob));
}

ConstantOp traced::createBlobConstant(OpBuilder &builder, Location loc,
                                      RankedTensorType type,
                                      StringRef nameHint,
                                      AsmResourceBlob blob) {
  auto attr = DenseResourceElementsAttr::get(type, nameHint, std::move(blob));
  return ConstantOp::create(builder, loc, type, attr);
}

CallFunctionOp traced::rebuildConv(const BoundOp &conv, const Tensor &weight,
                                   const Tensor &bias,
                                   const std::string &hint) {
  OpBuilder b(conv.op);
  Value wValue =
      createTensorConstant(b, conv.op->getLoc(), weight, hint + "_weight");
  Value bValue =
      createTensorConstant(b, conv.op->getLoc(), bias, hint + "_bias");
  return rebuildConv(conv, wValue, bValue);
}

CallFunctionOp traced::rebuildConv(const BoundOp &conv, Value wValue,
                                   Value bValue) {
  auto call = cast<CallFunctionOp>(conv.op);
  OpBuilder b(call);
  MLIRContext *ctx = b.getContext();
  // The conv again, every argument by keyword, with the new weight and bias.
  SmallVector<Value> operands;
  SmallVector<Attribute> arguments;
  SmallVector<StringRef> names;
  for (auto [i, param] : llvm::enumerate(conv.spec->signature.params)) {
    Attribute slot = conv.slots[i];
    if (param.name == "weight" || param.name == "bias") {
      operands.push_back(param.name == "weight" ? wValue : bValue);
      slot = OperandAttr::get(ctx, operands.size() - 1);
    } else {
      slot = replaceOperandMarkers(slot, [&](OperandAttr m) {
        operands.push_back(call.getArgs()[m.getIndex()]);
        return OperandAttr::get(ctx, operands.size() - 1);
      });
    }
    arguments.push_back(slot);
    names.push_back(param.name);
  }
  auto fused = CallFunctionOp::create(b, call.getLoc(), call.getResultTypes(),
                                      b.getStringAttr(call.getCallee()),
                                      operands, b.getArrayAttr(arguments),
                                      b.getStrArrayAttr(names));
  (void)normalizeCallInPlace(fused);
  return fused;
}

FailureOr<unsigned>
traced::applyToFixedPoint(Operation *op,
                          const FrozenRewritePatternSet &patterns,
                          unsigned maxSweeps) {
  GreedyRewriteConfig config;
  config.setMaxIterations(1);
  for (unsigned sweep = 1; sweep <= maxSweeps; ++sweep) {
    bool changed = false;
    // One sweep may stop short of a fixed point; that is not an error here.
    (void)applyPatternsGreedily(op, patterns, config, &changed);
    if (!changed)
      return sweep;
  }
  return failure();
}
