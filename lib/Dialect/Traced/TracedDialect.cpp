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
