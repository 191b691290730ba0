//===- BoundOp.cpp - a call bound to its op-library signature -------------===//

#include "TracedIR/Dialect/Traced/BoundOp.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::traced;

Value BoundOp::value(StringRef name) const {
  unsigned p = *spec->signature.lookup(name);
  bool isMethod = isa<CallMethodOp>(op);
  if (isMethod && p == 0)
    return op->getOperand(0);
  auto marker = dyn_cast_or_null<OperandAttr>(slots[p]);
  if (!marker)
    return Value();
  return op->getOperand(marker.getIndex() + (isMethod ? 1 : 0));
}

Attribute BoundOp::slot(StringRef name) const {
  return slots[*spec->signature.lookup(name)];
}

Value BoundOp::operandOf(OperandAttr marker) const {
  return op->getOperand(marker.getIndex() + (isa<CallMethodOp>(op) ? 1 : 0));
}

Attribute BoundOp::knownValue(StringRef name) const {
  return resolveKnownMarkers(slot(name), [&](OperandAttr m) {
    return operandOf(m);
  });
}

Attribute traced::knownPyValue(Value v) {
  if (!v)
    return {};
  if (auto c = v.getDefiningOp<ConstantOp>())
    if (!isa<ElementsAttr>(c.getValue()))
      return c.getValue();
  if (auto get = v.getDefiningOp<GetAttrOp>()) {
    auto type = dyn_cast<ModuleType>(get.getReceiver().getType());
    auto top = get->getParentOfType<mlir::ModuleOp>();
    if (!type || !top)
      return {};
    auto module = SymbolTable::lookupNearestSymbolFrom<traced::ModuleOp>(
        top, type.getModuleName());
    if (module)
      if (auto attr = module.lookupSymbol<AttributeOp>(get.getName()))
        return attr.getValue();
  }
  return {};
}

Attribute
traced::resolveKnownMarkers(Attribute slot,
                            function_ref<Value(OperandAttr)> operandOf) {
  if (!slot)
    return {};
  bool unknown = false;
  Attribute v = replaceOperandMarkers(slot, [&](OperandAttr m) -> Attribute {
    Attribute known = knownPyValue(operandOf(m));
    if (!known) {
      unknown = true;
      return m;
    }
    return known;
  });
  return unknown ? Attribute() : v;
}

std::optional<BoundOp> traced::bindCall(Operation *op,
                                        ArrayRef<StringRef> canonical) {
  const OpSpec *spec = nullptr;
  ArrayAttr arguments, keywordAttr;
  bool isMethod = false;
  if (auto fn = dyn_cast_or_null<CallFunctionOp>(op)) {
    spec = OpLibrary::get().lookupFunction(fn.getCallee());
    arguments = fn.getArgumentsAttr();
    keywordAttr = fn.getKeywordsAttr();
  } else if (auto m = dyn_cast_or_null<CallMethodOp>(op)) {
    if (!isa<TensorType>(m.getReceiver().getType()))
      return std::nullopt;
    spec = OpLibrary::get().lookupMethod(m.getMethod());
    arguments = m.getArgumentsAttr();
    keywordAttr = m.getKeywordsAttr();
    isMethod = true;
  }
  if (!spec || (!canonical.empty() && !llvm::is_contained(canonical, spec->name)))
    return std::nullopt;
  BoundOp bound{spec, {}, op};
  SmallVector<StringRef> keywords;
  for (Attribute k : keywordAttr)
    keywords.push_back(cast<StringAttr>(k).getValue());
  MLIRContext *ctx = op->getContext();
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  Location loc = op->getLoc();
  if (failed(bindArguments(
          ctx, spec->signature, isMethod ? 1 : 0, arguments.getValue(),
          keywords, [loc] { return mlir::emitError(loc); }, bound.slots)))
    return std::nullopt;
  return bound;
}

std::optional<StringRef> traced::interpreterOnlyReason(Operation *call) {
  std::optional<BoundOp> bound = bindCall(call, {});
  if (!bound)
    return std::nullopt;
  auto slot = [&](StringRef name) { return bound->slot(name); };
  auto valueType = [&](StringRef name) {
    Value v = bound->value(name);
    return v ? v.getType() : Type();
  };
  return bound->spec->interpreterOnlyReason(
      call->getOperandTypes(), call->getResultTypes(), BoundArgs{slot, valueType});
}
