//===- Bindings.cpp - what the _traced extension's files share ------------===//
//
// The shared helpers Bindings.h declares: diagnostics, the module state,
// and the conversions between Python objects and attributes.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/InitAll.h"
#include "TracedIR/Interpreter/Interpreter.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Support/Blobs.h"
#include "TracedIR/Support/DType.h"
#include "TracedIR/Support/Limits.h"
#include "TracedIR/Support/Untrusted.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace traced_python;

namespace traced_python {

DiagnosticCapture::DiagnosticCapture(MLIRContext *ctx)
    : resourceFailures(resourceFailureCount()),
      handler(ctx, [this](Diagnostic &diag) {
        llvm::raw_string_ostream os(text);
        if (!text.empty())
          os << "\n";
        // A traced expr's location is the user's file:line, inside a
        // NameLoc naming the module path that made the call.
        mlir::traced::formatDiagnostic(diag, os);
        return success();
      }) {}

void DiagnosticCapture::raise(const std::string &fallback) {
  const std::string &message = text.empty() ? fallback : text;
  if (resourceFailureCount() != resourceFailures)
    failResource(message);
  fail(message);
}

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

ModuleState::ModuleState() = default;
ModuleState::~ModuleState() = default;
void ModuleState::changed() { interpreter.reset(); }

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
  if (StringRef q = quantizedDTypeName(t); !q.empty())
    return q.data();
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
/// buffer aligned like the blobs. (Untrusted bytes are checked first:
/// `_traced.parse` with a sandbox tool, python/src/IR.cpp.)
void parseInto(ModuleState &state, llvm::StringRef buffer,
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
                    function_ref<py::object(OperandAttr)> marker) {
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
  AsmResourceBlob blob =
      copyToBlob(ArrayRef<char>(data.data(), data.size()), kResourceAlignment);
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


} // namespace traced_python
