//===- TracedExtension.cpp - the _traced Python extension -----------------===//
//
// A small pybind11 surface over the C++ IR: parse and print modules, verify,
// run pass pipelines, read and write weights, and the graph-surgery
// primitives the pure-Python `traced` package builds its TracedModule-style
// API on. Every MLIR diagnostic raised during a call becomes `traced.Error`
// carrying the diagnostic text; nothing here may abort the interpreter.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/ExecutionEngine/CpuModule.h"
#include "TracedIR/InitAll.h"
#include "TracedIR/Interpreter/Interpreter.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Translate/GraphText.h"
#include "TracedIR/Translate/JsonTrace.h"
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

namespace {

/// The Python-visible error: MLIR's diagnostics as text.
struct TracedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string &message) {
  throw TracedError(message);
}

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
          Location where = diag.getLocation();
          auto name = dyn_cast<NameLoc>(where);
          if (auto loc = where->findInstanceOf<FileLineColLoc>())
            os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
               << loc.getColumn() << ": ";
          else if (!isa<UnknownLoc>(where))
            os << where << ": ";
          switch (diag.getSeverity()) {
          case DiagnosticSeverity::Error:
            os << "error: ";
            break;
          case DiagnosticSeverity::Warning:
            os << "warning: ";
            break;
          default:
            os << "note: ";
          }
          os << diag.str();
          if (name && !name.getName().getValue().empty())
            os << " (in " << name.getName().getValue() << ")";
          for (Diagnostic &note : diag.getNotes())
            os << "\n  note: " << note.str();
          return success();
        }) {}

  [[noreturn]] void raise(const std::string &fallback) {
    fail(text.empty() ? fallback : text);
  }
  void check(LogicalResult result, const std::string &fallback) {
    if (failed(result))
      raise(fallback);
  }

private:
  std::string text;
  ScopedDiagnosticHandler handler;
};

std::shared_ptr<MLIRContext> makeContext() {
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
  std::unordered_set<Operation *> erased;
  unsigned blobCounter = 0;
  /// The interpreter and its caches, dropped whenever the IR changes.
  std::unique_ptr<Interpreter> interpreter;

  mlir::ModuleOp get() { return *module; }
  void changed() { interpreter.reset(); }
};
using StateRef = std::shared_ptr<ModuleState>;

struct PyOp {
  StateRef state;
  Operation *op;

  Operation *get() const {
    if (state->erased.count(op))
      fail("the expr was removed from its graph");
    return op;
  }
  bool operator==(const PyOp &other) const { return op == other.op; }
};

struct PyValue {
  StateRef state;
  Value value;

  Value get() const {
    if (Operation *def = value.getDefiningOp())
      if (state->erased.count(def))
        fail("the node's expr was removed from its graph");
    return value;
  }
  bool operator==(const PyValue &other) const { return value == other.value; }
};

std::string printToString(function_ref<void(llvm::raw_ostream &)> fn) {
  std::string s;
  llvm::raw_string_ostream os(s);
  fn(os);
  return s;
}

/// The name a value prints with (`add_out`, `x`), from its graph's AsmState.
std::string valueName(Value v) {
  GraphOp graph = dyn_cast_or_null<GraphOp>(v.getParentRegion()->getParentOp());
  if (!graph)
    return "?";
  AsmState state(graph);
  std::string s = printToString(
      [&](llvm::raw_ostream &os) { v.printAsOperand(os, state); });
  return s.substr(1);
}

/// "float32", ... for a tensor element type, or null.
const char *dtypeName(Type t) {
  std::optional<DType> d = dtypeFromType(t);
  return d ? traced::dtypeName(*d).data() : nullptr;
}

Type dtypeFromName(MLIRContext *ctx, const std::string &name) {
  std::optional<DType> d = traced::dtypeFromName(name);
  if (!d)
    fail("unsupported dtype '" + name + "'");
  return typeFromDType(ctx, *d);
}

/// Parses text or bytecode into `state`; bytecode with resources needs its
/// buffer aligned like the blobs.
void parseInto(ModuleState &state, const std::string &buffer,
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
}

traced::ModuleOp lookupTracedModule(ModuleState &state,
                                    const std::string &sym) {
  auto m = SymbolTable::lookupSymbolIn(state.get(), sym);
  auto traced = dyn_cast_or_null<traced::ModuleOp>(m);
  if (!traced)
    fail("no traced.module @" + sym);
  return traced;
}

GraphOp lookupGraph(ModuleState &state, const std::string &sym,
                    const std::string &graph) {
  traced::ModuleOp m = lookupTracedModule(state, sym);
  auto g = dyn_cast_or_null<GraphOp>(SymbolTable::lookupSymbolIn(m, graph));
  if (!g)
    fail("module @" + sym + " has no graph '" + graph + "'");
  return g;
}

/// Converts a Python value to the attribute that holds it in a call's
/// arguments; traced values (PyValue) become operand markers.
Attribute toAttr(MLIRContext *ctx, py::handle obj,
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
py::object fromAttr(Attribute attr,
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
py::bytes elementsBytes(ElementsAttr value) {
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

py::tuple tensorOf(ElementsAttr value) {
  ShapedType type = value.getShapedType();
  return py::make_tuple(elementsBytes(value), dtypeName(type.getElementType()),
                        py::cast(std::vector<int64_t>(type.getShape().begin(),
                                                      type.getShape().end())));
}

/// A new dense_resource attribute holding a copy of `data`.
DenseResourceElementsAttr makeResource(ModuleState &state,
                                       RankedTensorType type,
                                       const std::string &data,
                                       const std::string &hint) {
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      ArrayRef<char>(data.data(), data.size()), kResourceAlignment);
  std::string name = hint + "_" + std::to_string(state.blobCounter++);
  return DenseResourceElementsAttr::get(type, name, std::move(blob));
}

/// Where new exprs go: before `before`, or before the graph's output.
OpBuilder insertionPoint(GraphOp graph, std::optional<PyOp> before) {
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

PyOp createCall(StateRef state, const std::string &sym,
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

} // namespace

PYBIND11_MODULE(_traced, m) {
  m.doc() = "C++ core of the traced package (TracedIR)";
  // The same passes as traced-opt, registered once per process.
  static std::once_flag passesRegistered;
  std::call_once(passesRegistered, [] { traced::registerAllPasses(); });
  static py::exception<TracedError> error(m, "Error");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const TracedError &e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });

  py::class_<ModuleState, StateRef>(m, "Module")
      .def(
          "to_text",
          [](ModuleState &s, bool generic, bool largeElided, bool debugInfo) {
            OpPrintingFlags flags;
            if (generic)
              flags.printGenericOpForm();
            if (debugInfo)
              flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
            return printToString(
                [&](llvm::raw_ostream &os) { s.get()->print(os, flags); });
          },
          py::arg("generic") = false, py::arg("large_elided") = false,
          py::arg("debuginfo") = false)
      .def("to_bytecode",
           [](ModuleState &s) {
             std::string out;
             llvm::raw_string_ostream os(out);
             DiagnosticCapture diags(s.ctx.get());
             diags.check(writeBytecodeToFile(s.get(), os),
                         "cannot write bytecode");
             os.flush();
             return py::bytes(out);
           })
      .def("to_trace_json",
           [](ModuleState &s) {
             DiagnosticCapture diags(s.ctx.get());
             std::string out;
             llvm::raw_string_ostream os(out);
             diags.check(exportTrace(s.get(), os), "cannot export the trace");
             os.flush();
             return out;
           })
      .def("verify",
           [](ModuleState &s) {
             DiagnosticCapture diags(s.ctx.get());
             diags.check(verify(s.get()), "the module does not verify");
           })
      .def("run_passes",
           [](ModuleState &s, const std::string &pipeline) {
             DiagnosticCapture diags(s.ctx.get());
             s.changed();
             PassManager pm(s.ctx.get(), mlir::ModuleOp::getOperationName());
             std::string err;
             llvm::raw_string_ostream errStream(err);
             if (failed(parsePassPipeline(pipeline, pm, errStream)))
               fail("invalid pass pipeline '" + pipeline + "': " + err);
             diags.check(pm.run(s.get()), "pass pipeline failed");
           })
      .def("clone",
           [](ModuleState &s) {
             // A clone lives in a new context so that blob names never clash.
             std::string bc;
             llvm::raw_string_ostream os(bc);
             DiagnosticCapture diags(s.ctx.get());
             diags.check(writeBytecodeToFile(s.get(), os), "cannot clone");
             os.flush();
             auto state = std::make_shared<ModuleState>();
             state->ctx = makeContext();
             parseInto(*state, bc, "<clone>");
             state->blobCounter = s.blobCounter;
             return state;
           })
      .def("set_blob",
           [](ModuleState &s, const std::string &name, py::bytes data) {
             std::string bytes = data;
             auto &manager =
                 DenseResourceElementsHandle::getManagerInterface(s.ctx.get());
             if (!manager.getBlobManager().lookup(name))
               fail("no dense_resource named '" + name + "'");
             s.changed();
             manager.update(
                 name, HeapAsmResourceBlob::allocateAndCopyWithAlign(
                           ArrayRef<char>(bytes.data(), bytes.size()), kResourceAlignment));
           })
      .def("root",
           [](ModuleState &s) -> py::object {
             for (auto m : s.get().getOps<traced::ModuleOp>())
               if (m.getRoot())
                 return py::str(m.getSymName().str());
             return py::none();
           })
      .def("modules",
           [](ModuleState &s) {
             std::vector<std::string> out;
             for (auto m : s.get().getOps<traced::ModuleOp>())
               out.push_back(m.getSymName().str());
             return out;
           })
      .def("module_info",
           [](ModuleState &s, const std::string &sym) {
             traced::ModuleOp m = lookupTracedModule(s, sym);
             py::list attrs, graphs;
             for (Operation &op : m.getBody().front()) {
               std::string name = cast<SymbolOpInterface>(op).getName().str();
               if (auto sub = dyn_cast<SubmoduleOp>(op))
                 attrs.append(
                     py::make_tuple(name, "submodule", sub.getModule().str()));
               else if (auto p = dyn_cast<ParameterOp>(op))
                 attrs.append(py::make_tuple(
                     name, "parameter",
                     printToString([&](auto &os) { os << p.getType(); })));
               else if (auto bu = dyn_cast<BufferOp>(op))
                 attrs.append(py::make_tuple(
                     name, "buffer",
                     printToString([&](auto &os) { os << bu.getType(); })));
               else if (auto a = dyn_cast<AttributeOp>(op))
                 attrs.append(
                     py::make_tuple(name, "attribute", fromAttr(a.getValue())));
               else if (isa<GraphOp>(op))
                 graphs.append(name);
             }
             py::dict info;
             info["class"] = m.getClassName().str();
             info["root"] = m.getRoot();
             info["attributes"] = attrs;
             info["graphs"] = graphs;
             return info;
           })
      .def("get_tensor",
           [](ModuleState &s, const std::string &sym, const std::string &name) {
             traced::ModuleOp m = lookupTracedModule(s, sym);
             Operation *decl = SymbolTable::lookupSymbolIn(m, name);
             if (auto p = dyn_cast_or_null<ParameterOp>(decl))
               return tensorOf(cast<ElementsAttr>(p.getValue()));
             if (auto bu = dyn_cast_or_null<BufferOp>(decl))
               return tensorOf(cast<ElementsAttr>(bu.getValue()));
             fail("@" + sym + " has no parameter or buffer '" + name + "'");
           })
      .def("set_tensor",
           [](StateRef s, const std::string &sym, const std::string &name,
              py::bytes data, const std::string &dtype,
              std::vector<int64_t> shape) {
             traced::ModuleOp m = lookupTracedModule(*s, sym);
             Operation *decl = SymbolTable::lookupSymbolIn(m, name);
             s->changed();
             auto type = RankedTensorType::get(
                 shape, dtypeFromName(s->ctx.get(), dtype));
             auto setValue = [&](auto op) {
               if (op.getType() != type)
                 fail("the new value of '" + name + "' has type " +
                      printToString([&](auto &os) { os << type; }) +
                      ", but the attribute is declared " +
                      printToString([&](auto &os) { os << op.getType(); }));
               op.setValueAttr(cast<ElementsAttr>(
                   makeResource(*s, type, data, sym + "_" + name)));
             };
             if (auto p = dyn_cast_or_null<ParameterOp>(decl))
               return setValue(p);
             if (auto bu = dyn_cast_or_null<BufferOp>(decl))
               return setValue(bu);
             fail("@" + sym + " has no parameter or buffer '" + name + "'");
           })
      .def("graph_text",
           [](StateRef s, const std::string &sym, const std::string &graph) {
             GraphOp g = lookupGraph(*s, sym, graph);
             return printToString(
                 [&](llvm::raw_ostream &os) { printGraphText(g, os); });
           })
      .def("graph_ops",
           [](StateRef s, const std::string &sym, const std::string &graph) {
             GraphOp g = lookupGraph(*s, sym, graph);
             std::vector<PyOp> ops;
             for (Operation &op : g.getBody().front())
               ops.push_back(PyOp{s, &op});
             return ops;
           })
      .def("graph_inputs",
           [](StateRef s, const std::string &sym, const std::string &graph) {
             GraphOp g = lookupGraph(*s, sym, graph);
             std::vector<PyValue> out;
             for (BlockArgument a : g.getArguments())
               out.push_back(PyValue{s, a});
             return out;
           })
      .def("graph_outputs",
           [](StateRef s, const std::string &sym, const std::string &graph) {
             GraphOp g = lookupGraph(*s, sym, graph);
             std::vector<PyValue> out;
             for (Value v : g.getBody().front().getTerminator()->getOperands())
               out.push_back(PyValue{s, v});
             return out;
           })
      .def("create_call", &createCall, py::arg("module"), py::arg("graph"),
           py::arg("kind"), py::arg("target"), py::arg("receiver"),
           py::arg("args"), py::arg("kwargs"), py::arg("before") = py::none(),
           py::arg("result_types") = py::none())
      .def(
          "create_constant",
          [](StateRef s, const std::string &sym, const std::string &graph,
             py::object value, std::optional<std::string> type,
             std::optional<PyOp> before) {
            MLIRContext *ctx = s->ctx.get();
            DiagnosticCapture diags(ctx);
            GraphOp g = lookupGraph(*s, sym, graph);
            s->changed();
            OpBuilder b = insertionPoint(g, before);
            Attribute attr;
            Type resultType;
            if (py::isinstance<py::tuple>(value) && type && *type == "tensor") {
              // (bytes, dtype, shape) from numpy.
              auto t = value.cast<py::tuple>();
              auto shape = t[2].cast<std::vector<int64_t>>();
              auto tt = RankedTensorType::get(
                  shape, dtypeFromName(ctx, t[1].cast<std::string>()));
              attr = makeResource(*s, tt, t[0].cast<std::string>(),
                                  sym + "_const");
              resultType = tt;
            } else {
              attr = toAttr(ctx, value, nullptr, s);
              resultType =
                  type ? parseType(*type, ctx) : getPyType(attr, TypeRange());
              if (!resultType)
                diags.raise("cannot parse type");
            }
            auto op =
                ConstantOp::create(b, UnknownLoc::get(ctx), resultType, attr);
            if (failed(verify(op))) {
              op->erase();
              diags.raise("invalid constant");
            }
            return PyOp{s, op};
          },
          py::arg("module"), py::arg("graph"), py::arg("value"),
          py::arg("type") = py::none(), py::arg("before") = py::none())
      .def(
          "create_getattr",
          [](StateRef s, const std::string &sym, const std::string &graph,
             PyValue receiver, const std::string &name,
             std::optional<PyOp> before) {
            MLIRContext *ctx = s->ctx.get();
            DiagnosticCapture diags(ctx);
            GraphOp g = lookupGraph(*s, sym, graph);
            s->changed();
            OpBuilder b = insertionPoint(g, before);
            auto type = dyn_cast<ModuleType>(receiver.get().getType());
            if (!type)
              fail("getattr needs a module receiver");
            traced::ModuleOp owner =
                lookupTracedModule(*s, type.getName().str());
            Operation *decl = SymbolTable::lookupSymbolIn(owner, name);
            Type result =
                TypeSwitch<Operation *, Type>(decl)
                    .Case<SubmoduleOp, ParameterOp, BufferOp, AttributeOp>(
                        [](auto d) { return d.getValueType(); })
                    .Default([](Operation *) { return Type(); });
            if (!result)
              fail("@" + type.getName().str() + " has no attribute '" + name +
                   "'");
            auto op = GetAttrOp::create(b, UnknownLoc::get(ctx), result,
                                        receiver.get(), name);
            return PyOp{s, op};
          },
          py::arg("module"), py::arg("graph"), py::arg("receiver"),
          py::arg("name"), py::arg("before") = py::none())
      .def(
          "interpret",
          [](StateRef s, py::list inputs, const std::string &module,
             const std::string &graph) {
            MLIRContext *ctx = s->ctx.get();
            DiagnosticCapture diags(ctx);
            if (!s->interpreter)
              s->interpreter = std::make_unique<Interpreter>(s->get());
            GraphOp entry = s->interpreter->getEntry(module, graph);
            if (!entry)
              diags.raise("no graph to interpret");
            std::vector<RtValue> values;
            for (py::handle item : inputs) {
              if (py::isinstance<py::tuple>(item)) {
                auto t = item.cast<py::tuple>();
                std::string data = t[0].cast<std::string>();
                auto shape = t[2].cast<std::vector<int64_t>>();
                // Raw little-endian elements, one byte per bool (numpy's
                // layout): decoded directly, not through a dense attribute
                // (whose i1 raw buffers are bit-packed).
                std::string dtype = t[1].cast<std::string>();
                std::optional<DType> d = traced::dtypeFromName(dtype);
                if (!d)
                  fail("unsupported dtype '" + dtype + "'");
                Tensor tensor(*d, shape);
                if (data.size() !=
                    static_cast<size_t>(tensor.numel()) * rawElementBytes(*d))
                  fail("input array of " + dtype + " has " +
                       std::to_string(data.size()) +
                       " bytes, which does not match its shape");
                decodeRaw(tensor, data.data());
                values.push_back(RtValue(tensor));
              } else if (py::isinstance<py::bool_>(item)) {
                values.push_back(RtValue::ofBool(item.cast<bool>()));
              } else if (py::isinstance<py::int_>(item)) {
                values.push_back(RtValue::ofInt(item.cast<int64_t>()));
              } else if (py::isinstance<py::float_>(item)) {
                values.push_back(RtValue::ofFloat(item.cast<double>()));
              } else if (item.is_none()) {
                values.push_back(RtValue());
              } else {
                fail("interpret takes numpy arrays and Python numbers");
              }
            }
            FailureOr<std::vector<RtValue>> results;
            {
              py::gil_scoped_release release;
              results = s->interpreter->run(entry, values);
            }
            if (failed(results))
              diags.raise("interpretation failed");
            std::function<py::object(const RtValue &)> convert =
                [&](const RtValue &v) -> py::object {
              if (v.isTensor()) {
                const Tensor &t = v.tensor();
                // Storage as numpy reads it; the caller casts to `dtype`.
                DType storage = storageDType(t.dtype());
                return py::make_tuple(
                    py::bytes(t.data<char>(),
                              t.numel() * rawElementBytes(storage)),
                    dtypeName(storage).str(),
                    py::cast(std::vector<int64_t>(t.shape().begin(),
                                                  t.shape().end())),
                    dtypeName(t.dtype()).str());
              }
              if (auto *i = std::get_if<int64_t>(&v.v))
                return py::int_(*i);
              if (auto *d = std::get_if<double>(&v.v))
                return py::float_(*d);
              if (auto *b = std::get_if<bool>(&v.v))
                return py::bool_(*b);
              if (auto *str = std::get_if<std::string>(&v.v))
                return py::str(*str);
              if (const RtValue::List *l = v.list()) {
                py::list out;
                for (const RtValue &item : l->items)
                  out.append(convert(item));
                if (l->isTuple)
                  return py::tuple(out);
                return out;
              }
              if (v.isNone())
                return py::none();
              return py::str(v.describe());
            };
            py::list out;
            for (const RtValue &v : *results)
              out.append(convert(v));
            return out;
          },
          py::arg("inputs"), py::arg("module") = "",
          py::arg("graph") = "forward")
      .def("erase_dead",
           [](StateRef s, const std::string &sym, const std::string &graph) {
             // TracedModule's graph.compile(): drop every expr whose outputs
             // nobody uses, repeatedly.
             GraphOp g = lookupGraph(*s, sym, graph);
             s->changed();
             int removed = 0;
             bool changed = true;
             while (changed) {
               changed = false;
               Block &body = g.getBody().front();
               for (Operation &op :
                    llvm::make_early_inc_range(llvm::reverse(body))) {
                 if (op.hasTrait<OpTrait::IsTerminator>() || !op.use_empty())
                   continue;
                 s->erased.insert(&op);
                 op.erase();
                 ++removed;
                 changed = true;
               }
             }
             return removed;
           });

  py::class_<PyOp>(m, "Op")
      .def_property_readonly(
          "kind",
          [](const PyOp &o) { return o.get()->getName().stripDialect().str(); })
      .def_property_readonly("target",
                             [](const PyOp &o) -> py::object {
                               Operation *op = o.get();
                               if (auto c = dyn_cast<CallFunctionOp>(op))
                                 return py::str(c.getCallee().str());
                               if (auto c = dyn_cast<CallMethodOp>(op))
                                 return py::str(c.getMethod().str());
                               if (auto g = dyn_cast<GetAttrOp>(op))
                                 return py::str(g.getName().str());
                               return py::none();
                             })
      .def_property_readonly("operands",
                             [](const PyOp &o) {
                               std::vector<PyValue> out;
                               for (Value v : o.get()->getOperands())
                                 out.push_back(PyValue{o.state, v});
                               return out;
                             })
      .def_property_readonly("results",
                             [](const PyOp &o) {
                               std::vector<PyValue> out;
                               for (Value v : o.get()->getResults())
                                 out.push_back(PyValue{o.state, v});
                               return out;
                             })
      .def_property_readonly(
          "arguments",
          [](const PyOp &o) -> py::object {
            // (positional, keyword) Python values; traced values as nodes.
            Operation *op = o.get();
            ArrayAttr arguments = op->getAttrOfType<ArrayAttr>("arguments");
            ArrayAttr keywords = op->getAttrOfType<ArrayAttr>("keywords");
            if (!arguments)
              return py::none();
            unsigned first = isa<CallMethodOp>(op) ? 1 : 0;
            auto operand = [&](OperandAttr m) -> py::object {
              return py::cast(
                  PyValue{o.state, op->getOperand(first + m.getIndex())});
            };
            auto convert = [&](Attribute a) { return fromAttr(a, operand); };
            size_t numKw = keywords ? keywords.size() : 0;
            py::list positional;
            py::dict named;
            for (auto [i, a] : llvm::enumerate(arguments)) {
              if (i < arguments.size() - numKw)
                positional.append(convert(a));
              else
                named[py::str(
                    cast<StringAttr>(keywords[i - (arguments.size() - numKw)])
                        .getValue()
                        .str())] = convert(a);
            }
            return py::make_tuple(positional, named);
          })
      .def_property_readonly("value",
                             [](const PyOp &o) -> py::object {
                               auto c = dyn_cast<ConstantOp>(o.get());
                               if (!c)
                                 return py::none();
                               if (auto e =
                                       dyn_cast<ElementsAttr>(c.getValue()))
                                 return tensorOf(e);
                               return fromAttr(c.getValue());
                             })
      .def_property_readonly("graph",
                             [](const PyOp &o) {
                               auto g = o.get()->getParentOfType<GraphOp>();
                               auto m = g->getParentOfType<traced::ModuleOp>();
                               return py::make_tuple(m.getSymName().str(),
                                                     g.getSymName().str());
                             })
      .def_property_readonly("index",
                             [](const PyOp &o) {
                               Operation *op = o.get();
                               int i = 0;
                               for (Operation &other : *op->getBlock()) {
                                 if (&other == op)
                                   return i;
                                 ++i;
                               }
                               return -1;
                             })
      .def_property_readonly(
          "alive", [](const PyOp &o) { return !o.state->erased.count(o.op); })
      .def("erase",
           [](PyOp &o) {
             Operation *op = o.get();
             if (!op->use_empty())
               fail("cannot remove an expr whose outputs are still used");
             if (op->hasTrait<OpTrait::IsTerminator>())
               fail("cannot remove a graph's output");
             o.state->changed();
             o.state->erased.insert(op);
             op->erase();
           })
      .def("__str__",
           [](const PyOp &o) {
             return printToString([&](llvm::raw_ostream &os) {
               o.get()->print(os, OpPrintingFlags().useLocalScope());
             });
           })
      .def("__eq__", &PyOp::operator==)
      .def("__hash__", [](const PyOp &o) { return std::hash<void *>()(o.op); });

  py::class_<PyValue>(m, "Value")
      .def_property_readonly(
          "name", [](const PyValue &v) { return valueName(v.get()); })
      .def_property_readonly("type",
                             [](const PyValue &v) {
                               return printToString([&](llvm::raw_ostream &os) {
                                 os << v.get().getType();
                               });
                             })
      .def_property_readonly(
          "shape",
          [](const PyValue &v) -> py::object {
            auto t = dyn_cast<RankedTensorType>(v.get().getType());
            if (!t)
              return py::none();
            py::list dims;
            for (int64_t d : t.getShape())
              dims.append(ShapedType::isDynamic(d) ? py::object(py::none())
                                                   : py::object(py::int_(d)));
            return py::tuple(dims);
          })
      .def_property_readonly("dtype",
                             [](const PyValue &v) -> py::object {
                               auto t = dyn_cast<TensorType>(v.get().getType());
                               if (!t || !dtypeName(t.getElementType()))
                                 return py::none();
                               return py::str(dtypeName(t.getElementType()));
                             })
      .def_property_readonly("module_name",
                             [](const PyValue &v) -> py::object {
                               auto t = dyn_cast<ModuleType>(v.get().getType());
                               if (!t)
                                 return py::none();
                               return py::str(t.getName().str());
                             })
      .def_property_readonly("owner",
                             [](const PyValue &v) -> py::object {
                               if (Operation *op = v.get().getDefiningOp())
                                 return py::cast(PyOp{v.state, op});
                               return py::none();
                             })
      .def_property_readonly("arg_number",
                             [](const PyValue &v) -> py::object {
                               if (auto a = dyn_cast<BlockArgument>(v.get()))
                                 return py::int_(a.getArgNumber());
                               return py::none();
                             })
      .def_property_readonly(
          "users",
          [](const PyValue &v) {
            std::vector<PyOp> out;
            llvm::SmallPtrSet<Operation *, 8> seen;
            // In graph order, each user once.
            Value value = v.get();
            Block *block = value.getParentRegion()->empty()
                               ? nullptr
                               : &value.getParentRegion()->front();
            if (!block)
              return out;
            for (Operation &op : *block)
              for (Value operand : op.getOperands())
                if (operand == value && seen.insert(&op).second)
                  out.push_back(PyOp{v.state, &op});
            return out;
          })
      .def("replace_all_uses_with",
           [](const PyValue &v, const PyValue &other) {
             if (v.state != other.state)
               fail("the nodes belong to different modules");
             Value from = v.get(), to = other.get();
             if (from.getType() != to.getType())
               fail("cannot replace a node of type " +
                    printToString([&](auto &os) { os << from.getType(); }) +
                    " with one of type " +
                    printToString([&](auto &os) { os << to.getType(); }));
             v.state->changed();
             // Only the uses after the replacement is defined change, so
             // that `x -> f(x)` rewrites keep f's own input (TracedModule's
             // replace_node does the same).
             Operation *def = to.getDefiningOp();
             from.replaceUsesWithIf(to, [&](OpOperand &use) {
               return !def || (use.getOwner()->getBlock() == def->getBlock() &&
                               def->isBeforeInBlock(use.getOwner()));
             });
           })
      .def("__eq__", &PyValue::operator==)
      .def("__hash__", [](const PyValue &v) {
        return std::hash<void *>()(v.value.getAsOpaquePointer());
      });

  m.def(
      "parse",
      [](py::bytes data, const std::string &name) {
        auto state = std::make_shared<ModuleState>();
        state->ctx = makeContext();
        parseInto(*state, data, name);
        return state;
      },
      py::arg("data"), py::arg("name") = "<string>");
  m.def(
      "import_trace",
      [](py::bytes data, const std::string &name, const std::string &baseDir) {
        auto state = std::make_shared<ModuleState>();
        state->ctx = makeContext();
        DiagnosticCapture diags(state->ctx.get());
        std::string text = data;
        state->module = importTrace(text, name, baseDir, state->ctx.get());
        if (!state->module)
          diags.raise("cannot import the trace " + name);
        return state;
      },
      py::arg("data"), py::arg("name"), py::arg("base_dir"));
  // Compiled models: a JIT-loaded CpuModule runs on raw buffers; the
  // Python side (traced.compile) checks shapes and dtypes and owns them.
  py::class_<CpuModule, std::shared_ptr<CpuModule>>(m, "CpuModule")
      .def_property_readonly(
          "signature",
          [](const CpuModule &c) {
            auto specs = [](TypeRange types) {
              py::list out;
              for (Type t : types) {
                auto tensor = cast<RankedTensorType>(t);
                std::string dtype;
                llvm::raw_string_ostream os(dtype);
                os << tensor.getElementType();
                out.append(py::make_tuple(
                    std::vector<int64_t>(tensor.getShape().begin(),
                                         tensor.getShape().end()),
                    dtype));
              }
              return out;
            };
            FunctionType sig = c.getSignature();
            return py::make_tuple(specs(sig.getInputs()),
                                  specs(sig.getResults()));
          })
      .def("run", [](const CpuModule &c, const std::vector<uintptr_t> &in,
                     const std::vector<uintptr_t> &out) {
        std::vector<void *> inputs, outputs;
        for (uintptr_t p : in)
          inputs.push_back(reinterpret_cast<void *>(p));
        for (uintptr_t p : out)
          outputs.push_back(reinterpret_cast<void *>(p));
        std::optional<std::string> failedCheck;
        {
          py::gil_scoped_release release;
          failedCheck = c.run(inputs.data(), outputs.data());
        }
        if (failedCheck)
          fail(*failedCheck);
      });
  m.def(
      "compile_cpu",
      [](ModuleState &s, const std::string &entry, bool vectorize,
         int64_t tileN, bool surgery, bool packRhs) {
        DiagnosticCapture diags(s.ctx.get());
        CpuPipelineOptions options;
        options.entry = entry;
        options.vectorize = vectorize;
        options.tileN = tileN;
        options.packRhs = packRhs;
        options.surgery = surgery;
        FailureOr<std::unique_ptr<CpuModule>> compiled =
            CpuModule::compile(s.get(), options);
        if (failed(compiled))
          diags.raise("cannot compile the module for the CPU");
        return std::shared_ptr<CpuModule>(std::move(*compiled));
      },
      py::arg("state"), py::arg("entry") = "forward",
      py::arg("vectorize") = true, py::arg("tile_n") = 0,
      py::arg("surgery") = true, py::arg("pack_rhs") = true);
  m.def(
      "write_cpu_object",
      [](ModuleState &s, const std::string &path, const std::string &entry,
         bool vectorize) {
        DiagnosticCapture diags(s.ctx.get());
        CpuPipelineOptions options;
        options.entry = entry;
        options.vectorize = vectorize;
        OwningOpRef<mlir::ModuleOp> copy(s.get().clone());
        if (failed(lowerForCpu(*copy, options)))
          diags.raise("cannot compile the module for the CPU");
        std::error_code ec;
        llvm::raw_fd_ostream os(path, ec);
        if (ec)
          fail("cannot write " + path + ": " + ec.message());
        if (failed(writeCpuObject(*copy, os)))
          diags.raise("cannot write the object file");
      },
      py::arg("state"), py::arg("path"), py::arg("entry") = "forward",
      py::arg("vectorize") = true);
  m.def(
      "op_library_targets",
      [] {
        std::vector<std::string> names;
        for (const OpSpec &op : OpLibrary::get().getOps())
          names.push_back(op.name.str());
        return names;
      },
      "The canonical names of the op library's targets.");
  m.def(
      "op_library_signatures",
      [] {
        std::map<std::string, std::string> sigs;
        for (const OpSpec &op : OpLibrary::get().getOps())
          sigs[op.name.str()] = op.signature.text;
        return sigs;
      },
      "{canonical name: signature} of the op library's entries.");
  m.def(
      "accepts_dtype",
      [](const std::string &target, const std::string &dtype) {
        const OpSpec *spec = OpLibrary::get().lookupFunction(target);
        std::optional<DType> d = traced::dtypeFromName(dtype);
        if (!spec || !d)
          fail("unknown target or dtype");
        return spec->acceptsDType(*d);
      },
      "Whether an entry accepts a tensor `input` of a dtype (\"float16\").");
  m.def(
      "canonical_target",
      [](const std::string &name) -> std::optional<std::string> {
        const OpSpec *spec = StringRef(name).starts_with("Tensor.")
                                 ? OpLibrary::get().lookupMethod(
                                       StringRef(name).drop_front(7))
                                 : OpLibrary::get().lookupFunction(name);
        if (!spec)
          return std::nullopt;
        return spec->name.str();
      },
      "The canonical name of a function or `Tensor.<method>`, or None.");
  m.def("lowered_targets", &getLoweredTargets,
        "The targets convert-traced-to-linalg lowers (directly or through "
        "a decomposition).");
  m.def("decomposed_targets", &getDecomposedTargets,
        "The targets traced-decompose rewrites as other entries.");
  m.def(
      "is_known_module",
      [](const std::string &className) {
        return OpLibrary::get().lookupModule(className) != nullptr;
      },
      "Whether the op library knows a leaf module class.");
  m.def(
      "is_known_function",
      [](const std::string &name) {
        return OpLibrary::get().lookupFunction(name) != nullptr;
      },
      "Whether the op library knows a function or `Tensor.<method>`.");
}
