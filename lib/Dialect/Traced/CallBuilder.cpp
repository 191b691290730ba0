//===- CallBuilder.cpp - building op-library calls by keyword -------------===//

#include "TracedIR/Dialect/Traced/CallBuilder.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/OpLibrary/OpLibrary.h"

using namespace mlir;
using namespace mlir::traced;

CallArg::CallArg(Value v) {
  if (v) {
    attr = OperandAttr::get(v.getContext(), 0);
    values.push_back(v);
  }
}

CallArg CallArg::list(MLIRContext *ctx, ArrayRef<Value> values) {
  SmallVector<Attribute> markers;
  for (unsigned i = 0; i < values.size(); ++i)
    markers.push_back(OperandAttr::get(ctx, i));
  CallArg a(ArrayAttr::get(ctx, markers));
  a.values.assign(values.begin(), values.end());
  return a;
}

LibraryCall::LibraryCall(MLIRContext *ctx, StringRef target,
                         ArrayRef<KwCallArg> args) {
  method = target.starts_with("Tensor.");
  entry = method ? OpLibrary::get().lookupMethod(target.drop_front(7))
                 : OpLibrary::get().lookupFunction(target);
  name = method ? target.drop_front(7) : (entry ? entry->name : target);
  for (auto [i, kw] : llvm::enumerate(args)) {
    const CallArg &a = kw.second;
    // (A null value, in a list too, comes from an earlier failed call.)
    if (!a.attr || llvm::any_of(a.values, [](Value v) { return !v; })) {
      missing = true;
      continue;
    }
    if (method && i == 0) {
      assert(a.values.size() == 1 && isa<OperandAttr>(a.attr) &&
             "a method call's first argument is its receiver");
      receiver = a.values[0];
      continue;
    }
    unsigned base = operands.size();
    llvm::append_range(operands, a.values);
    arguments.push_back(replaceOperandMarkers(a.attr, [&](OperandAttr m) {
      return OperandAttr::get(ctx, base + m.getIndex());
    }));
    keywords.push_back(kw.first);
  }
}

Operation *LibraryCall::build(OpBuilder &b, Location loc,
                              TypeRange types) const {
  if (method)
    return CallMethodOp::create(b, loc, types, receiver,
                                b.getStringAttr(name), operands,
                                b.getArrayAttr(arguments),
                                b.getStrArrayAttr(keywords));
  return CallFunctionOp::create(b, loc, types, b.getStringAttr(name),
                                operands, b.getArrayAttr(arguments),
                                b.getStrArrayAttr(keywords));
}

FailureOr<SmallVector<Type>>
LibraryCall::inferTypes(OpBuilder &b, Location loc,
                        SymbolTableCollection &symbols) const {
  Operation *probe = build(b, loc, {});
  FailureOr<SmallVector<Type>> types = inferCallResultTypes(probe, symbols);
  probe->erase();
  return types;
}
