//===- ConstantEvaluator.h - evaluating calls on constants ------*- C++ -*-===//
//
// A dialect interface of the traced dialect through which the rewrites
// below the interpreter (traced-fold-constants, the decompositions) run an
// op-library call on constant operands. The interpreter implements it with
// its kernels (lib/Interpreter/ConstantEvaluator.cpp) and registers it
// (`registerConstantEvaluator`, from InitAll's and the compilers'
// registries), so that Transforms does not link the kernels and BLAS: the
// layering of docs/overview.md. Upstream's external models (e.g. the
// bufferization interfaces) are registered the same way.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_DIALECT_TRACED_CONSTANTEVALUATOR_H
#define TRACEDIR_DIALECT_TRACED_CONSTANTEVALUATOR_H

#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/TypeID.h"

namespace mlir::traced {

class ConstantEvaluatorInterface
    : public DialectInterface::Base<ConstantEvaluatorInterface> {
public:
  explicit ConstantEvaluatorInterface(Dialect *dialect) : Base(dialect) {}
  /// The constant `call` (a call_function or call_method) evaluates to
  /// when it is a pure op-library call whose operands are all constants of
  /// at most `maxElements` elements each (results: at least 2^24); null
  /// otherwise.
  virtual Attribute evaluate(Operation *call, int64_t maxElements) const = 0;
};

/// The registered evaluator of `ctx`'s traced dialect, or null (the
/// dialect is not loaded, or nothing registered one).
const ConstantEvaluatorInterface *getConstantEvaluator(MLIRContext *ctx);

} // namespace mlir::traced

MLIR_DECLARE_EXPLICIT_TYPE_ID(mlir::traced::ConstantEvaluatorInterface)

#endif // TRACEDIR_DIALECT_TRACED_CONSTANTEVALUATOR_H
