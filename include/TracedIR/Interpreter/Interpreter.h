//===- Interpreter.h - the reference interpreter ----------------*- C++ -*-===//
//
// Runs a traced.graph as it is, module tree and all, like TracedModule's
// InternalGraph.interpret: a value per node, exprs in order. getattr reads
// the module's declarations, call_method on a module runs the callee graph
// (or the leaf class's functional), and every call of a known target runs
// the op library's kernel. It is the numerical oracle for every pass and
// lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_INTERPRETER_INTERPRETER_H
#define TRACEDIR_INTERPRETER_INTERPRETER_H

#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Interpreter/Value.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::traced {

class Interpreter {
public:
  /// Interprets graphs of `module` (a builtin module of traced.modules).
  /// Decoded weights and bound call arguments are cached, so running the
  /// same graph again is cheap; the IR must not change in between.
  explicit Interpreter(mlir::ModuleOp module);
  ~Interpreter();

  /// The root module's `forward` graph, or null (with an error) when there
  /// is none.
  GraphOp getEntry(StringRef moduleName = {}, StringRef graphName = "forward");

  /// Runs `graph` on `inputs` (one per input after `self`). Errors are
  /// reported as diagnostics at the offending op or input.
  FailureOr<std::vector<RtValue>> run(GraphOp graph, ArrayRef<RtValue> inputs);

  /// The most bytes one op's tensor results may take (by their declared
  /// static types); an op asking for more is refused with a diagnostic
  /// before anything is allocated. The default is the machine's physical
  /// memory.
  void setMemoryLimit(uint64_t bytes);
  // (Module calls need no depth limit: `run` refuses a graph that calls
  // itself through its submodules before anything runs, and runs a module
  // tree deeper than 1000 levels on a thread with a stack to match.)

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

/// Reads and writes NumPy .npy files (see Support/Npy.h); bfloat16 tensors are
/// written as float32, which NumPy has.
FailureOr<Tensor> readNpy(StringRef path, std::string &error);
LogicalResult writeNpy(StringRef path, const Tensor &tensor,
                       std::string &error);

/// Registers `traced-translate --interpret`.
void registerInterpretTranslation();

/// Registers the interpreter's kernels as the traced dialect's
/// ConstantEvaluatorInterface (Dialect/Traced/ConstantEvaluator.h), which
/// traced-fold-constants and the decompositions use.
void registerConstantEvaluator(DialectRegistry &registry);

} // namespace mlir::traced

#endif // TRACEDIR_INTERPRETER_INTERPRETER_H
