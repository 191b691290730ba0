//===- Bindings.h - what the _traced extension's files share ---*- C++ -*-===//
//
// The state behind a Python `traced.Module` (its MLIRContext and module),
// handles on its ops and values, diagnostics as `traced.Error`, and the
// conversions between Python objects and attributes. The bindings are split
// by concern, like upstream's: IR.cpp (modules, ops, values, parsing and
// importing), Passes.cpp (pass pipelines), Execution.cpp (compiled
// models), OpLibrary.cpp (queries of the op library); Bindings.cpp holds
// what they share, and TracedExtension.cpp defines the module. Each file
// includes the layers it uses; this header only the dialect's ops.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_PYTHON_BINDINGS_H
#define TRACEDIR_PYTHON_BINDINGS_H

#include "TracedIR/Dialect/Traced/TracedOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::traced {
class Interpreter;
} // namespace mlir::traced

namespace py = pybind11;
using namespace mlir;
using namespace mlir::traced;

namespace traced_python {


/// The Python-visible error: MLIR's diagnostics as text.
struct TracedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// A resource limit reached (Support/Limits.h) or memory that ran out:
/// traced.ResourceError, a traced.Error and a MemoryError.
struct TracedResourceError : TracedError {
  using TracedError::TracedError;
};

[[noreturn]] inline void fail(const std::string &message) {
  throw TracedError(message);
}
[[noreturn]] inline void failResource(const std::string &message) {
  throw TracedResourceError(message);
}

/// For CompileMonitor::cancelled, with the GIL held: runs Python's signal
/// handlers (on the main thread; elsewhere nothing is pending) and says
/// whether one raised, KeyboardInterrupt for Ctrl-C. The exception stays
/// set for `throw py::error_already_set()` once the compile has stopped.
inline bool pythonSignalPending() { return PyErr_CheckSignals() != 0; }

/// Collects the diagnostics emitted while it lives; `check` throws them.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(MLIRContext *ctx);

  /// Throws the diagnostics: a TracedResourceError when one of them said
  /// a resource limit was reached (Support/Limits.h).
  [[noreturn]] void raise(const std::string &fallback);
  void check(LogicalResult result, const std::string &fallback) {
    if (failed(result))
      raise(fallback);
  }

private:
  std::string text;
  uint64_t resourceFailures;
  ScopedDiagnosticHandler handler;
};

/// A context with every dialect the bindings read and write registered.
std::shared_ptr<MLIRContext> makeContext();

/// A module and the context that owns it. Handles to its ops and values
/// keep it alive and check that their op has not been erased.
struct ModuleState {
  std::shared_ptr<MLIRContext> ctx;
  OwningOpRef<mlir::ModuleOp> module;
  /// How often an op at each address was erased. A handle remembers the
  /// count it saw when it was made, so a handle of an erased op stays
  /// invalid even when a new op is later allocated at the same address.
  llvm::DenseMap<Operation *, uint64_t> erasures;
  unsigned blobCounter = 0;
  /// The interpreter and its caches, dropped whenever the IR changes.
  std::unique_ptr<Interpreter> interpreter;

  ModuleState();
  ~ModuleState();
  mlir::ModuleOp get() { return *module; }
  void changed();
  uint64_t erasuresOf(Operation *op) const {
    auto it = erasures.find(op);
    return it == erasures.end() ? 0 : it->second;
  }
  /// Records that `op` is about to be erased (before `op->erase()`).
  void markErased(Operation *op) { ++erasures[op]; }
};
using StateRef = std::shared_ptr<ModuleState>;

struct PyOp {
  StateRef state;
  Operation *op;
  uint64_t epoch; // state->erasuresOf(op) when the handle was made

  PyOp(StateRef s, Operation *o)
      : state(std::move(s)), op(o), epoch(state->erasuresOf(o)) {}

  Operation *get() const {
    if (state->erasuresOf(op) != epoch)
      fail("the expr was removed from its graph");
    return op;
  }
  bool operator==(const PyOp &other) const {
    return op == other.op && epoch == other.epoch;
  }
};

struct PyValue {
  StateRef state;
  Value value;
  uint64_t epoch; // the defining op's erasures when the handle was made

  PyValue(StateRef s, Value v)
      : state(std::move(s)), value(v),
        epoch(v.getDefiningOp() ? state->erasuresOf(v.getDefiningOp()) : 0) {}

  Value get() const {
    if (Operation *def = value.getDefiningOp())
      if (state->erasuresOf(def) != epoch)
        fail("the node's expr was removed from its graph");
    return value;
  }
  bool operator==(const PyValue &other) const {
    return value == other.value && epoch == other.epoch;
  }
};

/// `fn`'s output as a string.
std::string printToString(function_ref<void(llvm::raw_ostream &)> fn);
/// The name a value prints with (`add_out`, `x`), from its graph's AsmState.
std::string valueName(Value v);
/// "float32", ... for a tensor element type, or null.
const char *dtypeName(Type t);
Type dtypeFromName(MLIRContext *ctx, const std::string &name);
/// Parses text or bytecode into `state`; bytecode with resources needs its
/// buffer aligned like the blobs. (Untrusted bytes are checked first:
/// `_traced.parse` with a sandbox tool, python/src/IR.cpp.)
void parseInto(ModuleState &state, llvm::StringRef buffer,
               const std::string &name);
traced::ModuleOp lookupTracedModule(ModuleState &state, const std::string &sym);
GraphOp lookupGraph(ModuleState &state, const std::string &sym,
                    const std::string &graph);
/// Converts a Python value to the attribute that holds it in a call's
/// arguments; traced values (PyValue) become operand markers.
Attribute toAttr(MLIRContext *ctx, py::handle obj,
                 SmallVectorImpl<Value> *operands, StateRef state);
/// A Python value attribute as a Python object; `marker` converts operand
/// markers (traced values) when the value may hold them.
py::object fromAttr(Attribute attr,
                    function_ref<py::object(OperandAttr)> marker = nullptr);
/// The raw bytes of a tensor attribute, expanded when it is a splat.
py::bytes elementsBytes(ElementsAttr value);
/// (bytes, dtype name, shape) of a tensor attribute.
py::tuple tensorOf(ElementsAttr value);
/// A new dense_resource attribute holding a copy of `data`.
DenseResourceElementsAttr makeResource(ModuleState &state,
                                       RankedTensorType type,
                                       const std::string &data,
                                       const std::string &hint);
/// Where new exprs go: before `before`, or before the graph's output.
OpBuilder insertionPoint(GraphOp graph, std::optional<PyOp> before);
/// A call_function or call_method built from Python arguments, its result
/// types inferred by the op library (or given), verified.
PyOp createCall(StateRef state, const std::string &sym,
                const std::string &graphName, const std::string &kind,
                const std::string &target, std::optional<PyValue> receiver,
                py::list args, py::list kwargs, std::optional<PyOp> before,
                std::optional<std::vector<std::string>> resultTypes);

/// The parts of the module, by concern.
void populateIR(py::module_ &m);
void populatePasses(py::module_ &m);
void populateExecution(py::module_ &m);
void populateOpLibrary(py::module_ &m);

} // namespace traced_python

#endif // TRACEDIR_PYTHON_BINDINGS_H
