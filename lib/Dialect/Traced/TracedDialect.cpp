//===- TracedDialect.cpp - the traced dialect -----------------------------===//

#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/Dialect/Traced/ConstantEvaluator.h"
#include "mlir/InitAllDialects.h"
#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::traced;

#include "TracedIR/Dialect/Traced/TracedDialect.cpp.inc"

void TracedDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "TracedIR/Dialect/Traced/TracedOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

Operation *TracedDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  if (!ConstantOp::isValidValue(value, type))
    return nullptr;
  return ConstantOp::create(builder, loc, type, value);
}

/// `traced.dim_names` on a call (traced.trace with dynamic_dims): one array
/// per result, empty or one string per dim of a ranked tensor result,
/// non-empty only at its `?` dims (the dim's size as an expression of the
/// inputs' dim names). On other ops (the lowering's functions) it is theirs.
LogicalResult TracedDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() != kDimNamesAttr || !isa<CallFunctionOp, CallMethodOp>(op))
    return success();
  auto perResult = dyn_cast<ArrayAttr>(attr.getValue());
  if (!perResult || perResult.size() != op->getNumResults())
    return op->emitOpError() << "'" << kDimNamesAttr
                             << "' must hold one array per result";
  for (auto [i, entry] : llvm::enumerate(perResult)) {
    auto names = dyn_cast<ArrayAttr>(entry);
    if (!names)
      return op->emitOpError() << "'" << kDimNamesAttr << "' of result #" << i
                               << " must be an array of strings";
    if (names.empty())
      continue;
    auto type = dyn_cast<RankedTensorType>(op->getResult(i).getType());
    if (!type || static_cast<int64_t>(names.size()) != type.getRank())
      return op->emitOpError() << "'" << kDimNamesAttr << "' of result #" << i
                               << " must hold one string per dim of "
                               << op->getResult(i).getType();
    for (auto [d, name] : llvm::enumerate(names)) {
      auto s = dyn_cast<StringAttr>(name);
      if (!s)
        return op->emitOpError() << "'" << kDimNamesAttr << "' of result #"
                                 << i << " must be an array of strings";
      if (!s.getValue().empty() && !type.isDynamicDim(d))
        return op->emitOpError()
               << "'" << kDimNamesAttr << "' names dim " << d << " of result #"
               << i << " ('" << s.getValue() << "'), which is static";
    }
  }
  return success();
}

void traced::registerReaderDialects(DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  registry.insert<TracedDialect>();
}

MLIR_DEFINE_EXPLICIT_TYPE_ID(mlir::traced::ConstantEvaluatorInterface)

const mlir::traced::ConstantEvaluatorInterface *
mlir::traced::getConstantEvaluator(MLIRContext *ctx) {
  auto *dialect = ctx->getLoadedDialect<TracedDialect>();
  return dialect ? dialect->getRegisteredInterface<ConstantEvaluatorInterface>()
                 : nullptr;
}
