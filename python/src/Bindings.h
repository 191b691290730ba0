//===- Bindings.h - what the _traced extension's files share ---*- C++ -*-===//
//
// The state behind a Python `traced.Module` (its MLIRContext and module),
// handles on its ops and values, diagnostics as `traced.Error`, and the
// conversions between Python objects and attributes. The bindings are split
// by concern, like upstream's: IR.cpp (modules, ops, values, parsing and
// importing), Execution.cpp (the interpreter's results, compiled models),
// OpLibrary.cpp (queries of the op library); TracedExtension.cpp defines
// the module.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_PYTHON_BINDINGS_H
#define TRACEDIR_PYTHON_BINDINGS_H

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/ExecutionEngine/CpuModule.h"
#include "TracedIR/InitAll.h"
#include "TracedIR/Interpreter/Interpreter.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Support/Progress.h"
#include "TracedIR/Support/Limits.h"
#include "TracedIR/Support/Untrusted.h"
#include "TracedIR/Translate/GraphDot.h"
#include "TracedIR/Translate/GraphText.h"
#include "TracedIR/Translate/JsonTrace.h"
#include "TracedIR/Transforms/DynamicDims.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <cstring>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <unordered_set>

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
  explicit DiagnosticCapture(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          if (!text.empty())
            os << "\n";
          // A traced expr's location is the user's file:line, inside a
          // NameLoc naming the module path that made the call.
          mlir::traced::formatDiagnostic(diag, os);
          return success();
        }) {}

  /// Throws the diagnostics: a TracedResourceError when one of them said
  /// a resource limit was reached (Support/Limits.h).
  [[noreturn]] void raise(const std::string &fallback) {
    const std::string &message = text.empty() ? fallback : text;
    if (resourceFailureCount() != resourceFailures)
      failResource(message);
    fail(message);
  }
  void check(LogicalResult result, const std::string &fallback) {
    if (failed(result))
      raise(fallback);
  }

private:
  std::string text;
  uint64_t resourceFailures = resourceFailureCount();
  ScopedDiagnosticHandler handler;
};

inline std::shared_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  traced::registerAllDialects(registry);
  // Threading off: Python drives one module at a time, and thread pools per
  // context would multiply with every traced module.
  auto ctx =
      std::make_shared<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  ctx->getOrLoadDialect<TracedDialect>();
  ctx->allowUnregisteredDialects(false);
  // Diagnostics name the op's location; printing whole graphs into Python
  // exceptions helps nobody.
  ctx->printOpOnDiagnostic(false);
  return ctx;
}

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

  mlir::ModuleOp get() { return *module; }
  void changed() { interpreter.reset(); }
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

inline std::string printToString(function_ref<void(llvm::raw_ostream &)> fn) {
  std::string s;
  llvm::raw_string_ostream os(s);
  fn(os);
  return s;
}

/// The name a value prints with (`add_out`, `x`), from its graph's AsmState.
inline std::string valueName(Value v) {
  GraphOp graph = dyn_cast_or_null<GraphOp>(v.getParentRegion()->getParentOp());
  if (!graph)
    return "?";
  AsmState state(graph);
  std::string s = printToString(
      [&](llvm::raw_ostream &os) { v.printAsOperand(os, state); });
  return s.substr(1);
}

/// "float32", ... for a tensor element type, or null.
inline const char *dtypeName(Type t) {
  std::optional<DType> d = dtypeFromType(t);
  return d ? traced::dtypeName(*d).data() : nullptr;
}

inline Type dtypeFromName(MLIRContext *ctx, const std::string &name) {
  std::optional<DType> d = traced::dtypeFromName(name);
  if (!d)
    fail("unsupported dtype '" + name + "'");
  return typeFromDType(ctx, *d);
}

/// Parses text or bytecode into `state`; bytecode with resources needs its
/// buffer aligned like the blobs. (Untrusted bytes are checked first:
/// `_traced.parse` with a sandbox tool, python/src/IR.cpp.)
inline void parseInto(ModuleState &state, llvm::StringRef buffer,
               const std::string &name) {
  DiagnosticCapture diags(state.ctx.get());
  std::string error;
  if (failed(checkResourceBlobs(buffer, error)))
    fail("cannot parse " + name + ": " + error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      alignForBlobs(llvm::MemoryBuffer::getMemBuffer(
          buffer, name, /*RequiresNullTerminator=*/false)),
      llvm::SMLoc());
  ParserConfig config(state.ctx.get());
  state.module = parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  if (!state.module)
    diags.raise("cannot parse " + name);
  if (failed(checkOpCount(*state.module, name)))
    diags.raise("cannot parse " + name);
}

inline traced::ModuleOp lookupTracedModule(ModuleState &state,
                                    const std::string &sym) {
  auto m = SymbolTable::lookupSymbolIn(state.get(), sym);
  auto traced = dyn_cast_or_null<traced::ModuleOp>(m);
  if (!traced)
    fail("no traced.module @" + sym);
  return traced;
}

inline GraphOp lookupGraph(ModuleState &state, const std::string &sym,
                    const std::string &graph) {
  traced::ModuleOp m = lookupTracedModule(state, sym);
  auto g = dyn_cast_or_null<GraphOp>(SymbolTable::lookupSymbolIn(m, graph));
  if (!g)
    fail("module @" + sym + " has no graph '" + graph + "'");
  return g;
}

/// Converts a Python value to the attribute that holds it in a call's
/// arguments; traced values (PyValue) become operand markers.
inline Attribute toAttr(MLIRContext *ctx, py::handle obj,
                 SmallVectorImpl<Value> *operands, StateRef state) {
  Builder b(ctx);
  auto seq = [&](py::handle items) {
    SmallVector<Attribute> elems;
    for (py::handle item : items)
      elems.push_back(toAttr(ctx, item, operands, state));
    return b.getArrayAttr(elems);
  };
  if (obj.is_none())
    return NoneAttr::get(ctx);
  if (py::isinstance<PyValue>(obj)) {
    if (!operands)
      fail("traced values are not allowed here; only Python constants");
    PyValue &v = obj.cast<PyValue &>();
    if (v.state != state)
      fail("the node belongs to another module");
    operands->push_back(v.get());
    return OperandAttr::get(ctx, operands->size() - 1);
  }
  if (py::isinstance<py::bool_>(obj))
    return b.getBoolAttr(obj.cast<bool>());
  if (py::isinstance<py::int_>(obj))
    return b.getI64IntegerAttr(obj.cast<int64_t>());
  if (py::isinstance<py::float_>(obj))
    return b.getF64FloatAttr(obj.cast<double>());
  if (py::isinstance<py::str>(obj))
    return b.getStringAttr(obj.cast<std::string>());
  if (py::isinstance<py::list>(obj))
    return seq(obj);
  if (py::isinstance<py::tuple>(obj))
    return TupleAttr::get(ctx, seq(obj));
  if (py::isinstance<py::slice>(obj)) {
    auto part = [&](const char *name) {
      return toAttr(ctx, obj.attr(name), operands, state);
    };
    return SliceAttr::get(ctx, part("start"), part("stop"), part("step"));
  }
  if (obj.is(py::ellipsis()))
    return EllipsisAttr::get(ctx);
  fail("cannot use a " +
       py::str(obj.get_type().attr("__name__")).cast<std::string>() +
       " as a constant argument");
}

/// A Python value attribute as a Python object; `marker` converts operand
/// markers (traced values) when the value may hold them.
inline py::object fromAttr(Attribute attr,
                    function_ref<py::object(OperandAttr)> marker = nullptr) {
  if (auto m = dyn_cast_or_null<OperandAttr>(attr); m && marker)
    return marker(m);
  if (!attr || isa<NoneAttr>(attr))
    return py::none();
  if (auto b = dyn_cast<BoolAttr>(attr))
    return py::bool_(b.getValue());
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return py::int_(i.getValue().getSExtValue());
  if (auto f = dyn_cast<FloatAttr>(attr))
    return py::float_(f.getValueAsDouble());
  if (auto s = dyn_cast<StringAttr>(attr))
    return py::str(s.getValue().str());
  if (auto l = dyn_cast<ArrayAttr>(attr)) {
    py::list out;
    for (Attribute e : l)
      out.append(fromAttr(e, marker));
    return out;
  }
  if (auto t = dyn_cast<TupleAttr>(attr)) {
    py::list out;
    for (Attribute e : t.getElements())
      out.append(fromAttr(e, marker));
    return py::tuple(out);
  }
  // Other values (slices, dtypes, objects) in their Python spelling.
  return py::str(
      printToString([&](llvm::raw_ostream &os) { printPyValue(os, attr); }));
}

/// The raw bytes of a tensor attribute, expanded when it is a splat.
inline py::bytes elementsBytes(ElementsAttr value) {
  ShapedType type = value.getShapedType();
  Type elt = type.getElementType();
  std::optional<DType> dtype = dtypeFromType(elt);
  if (!dtype)
    fail("unsupported element type in a tensor attribute");
  size_t width = rawElementBytes(*dtype);
  size_t count = type.getNumElements();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      fail("the tensor's dense_resource blob has no data");
    ArrayRef<char> data = blob->getData();
    if (data.size() != count * width)
      fail("the tensor's blob has the wrong size");
    return py::bytes(data.data(), data.size());
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (elt.isInteger(1)) {
      std::string out;
      for (bool v : dense.getValues<bool>())
        out.push_back(v ? 1 : 0);
      return py::bytes(out);
    }
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      std::string out;
      out.reserve(count * width);
      for (size_t i = 0; i < count; ++i)
        out.append(raw.data(), width);
      return py::bytes(out);
    }
    return py::bytes(raw.data(), raw.size());
  }
  fail("unsupported tensor attribute");
}

inline py::tuple tensorOf(ElementsAttr value) {
  ShapedType type = value.getShapedType();
  return py::make_tuple(elementsBytes(value), dtypeName(type.getElementType()),
                        py::cast(std::vector<int64_t>(type.getShape().begin(),
                                                      type.getShape().end())));
}

/// A new dense_resource attribute holding a copy of `data`.
inline DenseResourceElementsAttr makeResource(ModuleState &state,
                                       RankedTensorType type,
                                       const std::string &data,
                                       const std::string &hint) {
  AsmResourceBlob blob =
      copyToBlob(ArrayRef<char>(data.data(), data.size()), kResourceAlignment);
  std::string name = hint + "_" + std::to_string(state.blobCounter++);
  return DenseResourceElementsAttr::get(type, name, std::move(blob));
}

/// Where new exprs go: before `before`, or before the graph's output.
inline OpBuilder insertionPoint(GraphOp graph, std::optional<PyOp> before) {
  OpBuilder b(graph.getContext());
  if (before) {
    Operation *op = before->get();
    if (op->getParentOp() != graph)
      fail("the insertion point is not in this graph");
    b.setInsertionPoint(op);
  } else {
    b.setInsertionPoint(graph.getBody().front().getTerminator());
  }
  return b;
}

inline PyOp createCall(StateRef state, const std::string &sym,
                const std::string &graphName, const std::string &kind,
                const std::string &target, std::optional<PyValue> receiver,
                py::list args, py::list kwargs, std::optional<PyOp> before,
                std::optional<std::vector<std::string>> resultTypes) {
  MLIRContext *ctx = state->ctx.get();
  DiagnosticCapture diags(ctx);
  GraphOp graph = lookupGraph(*state, sym, graphName);
  state->changed();
  OpBuilder b = insertionPoint(graph, before);
  SmallVector<Value> operands;
  SmallVector<Attribute> arguments;
  SmallVector<StringRef> keywordRefs;
  std::vector<std::string> keywords;
  for (py::handle a : args)
    arguments.push_back(toAttr(ctx, a, &operands, state));
  for (py::handle kv : kwargs) {
    auto pair = kv.cast<py::tuple>();
    keywords.push_back(pair[0].cast<std::string>());
    arguments.push_back(toAttr(ctx, pair[1], &operands, state));
  }
  for (const std::string &k : keywords)
    keywordRefs.push_back(k);
  Location loc = UnknownLoc::get(ctx);
  auto build = [&](TypeRange types) -> Operation * {
    if (kind == "call_function")
      return CallFunctionOp::create(b, loc, types, b.getStringAttr(target),
                                    operands, b.getArrayAttr(arguments),
                                    b.getStrArrayAttr(keywordRefs));
    if (!receiver)
      fail("call_method needs a receiver");
    return CallMethodOp::create(
        b, loc, types, receiver->get(), b.getStringAttr(target), operands,
        b.getArrayAttr(arguments), b.getStrArrayAttr(keywordRefs));
  };
  if (kind != "call_function" && kind != "call_method")
    fail("unknown call kind '" + kind + "'");
  // Build once without results to ask the op library for the types.
  Operation *probe = build({});
  SymbolTableCollection symbols;
  FailureOr<SmallVector<Type>> inferred = inferCallResultTypes(probe, symbols);
  probe->erase();
  if (failed(inferred))
    diags.raise("invalid call of '" + target + "'");
  SmallVector<Type> types;
  if (resultTypes) {
    for (const std::string &t : *resultTypes) {
      Type type = parseType(t, ctx);
      if (!type)
        diags.raise("cannot parse type '" + t + "'");
      types.push_back(type);
    }
  } else if (!inferred->empty() &&
             llvm::all_of(*inferred, [](Type t) { return bool(t); })) {
    types = *inferred;
  } else {
    fail("the result types of '" + target +
         "' cannot be inferred; pass result_types");
  }
  Operation *op = build(types);
  (void)normalizeCallInPlace(op);
  if (failed(verify(op))) {
    op->erase();
    diags.raise("invalid call of '" + target + "'");
  }
  return PyOp{state, op};
}


/// The parts of the module, by concern.
void populateIR(py::module_ &m);
void populatePasses(py::module_ &m);
void populateExecution(py::module_ &m);
void populateOpLibrary(py::module_ &m);

} // namespace traced_python

#endif // TRACEDIR_PYTHON_BINDINGS_H
