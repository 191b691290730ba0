//===- IR.cpp - modules, ops and values -----------------------------------===//
//
// traced.Module's C++ state, its ops and values, parsing, bytecode and
// JSON traces, and graph surgery (python/traced/module.py wraps them).
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Interpreter/Interpreter.h"
#include "TracedIR/Interpreter/Kernels.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Onnx/Onnx.h"
#include "TracedIR/Support/Blobs.h"
#include "TracedIR/Support/DType.h"
#include "TracedIR/Support/Limits.h"
#include "TracedIR/Support/Untrusted.h"
#include "TracedIR/Translate/GraphDot.h"
#include "TracedIR/Translate/GraphText.h"
#include "TracedIR/Translate/JsonTrace.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace traced_python;
namespace {
using ModuleClass = py::class_<ModuleState, StateRef>;

/// The module as text, bytecode, a JSON trace and Graphviz; verification;
/// copies and weight blobs.
void bindModuleFormats(ModuleClass &cls) {
  cls
      .def(
          "to_text",
          [](ModuleState &s, bool generic, bool largeElided, bool debugInfo) {
            OpPrintingFlags flags;
            if (generic)
              flags.printGenericOpForm();
            if (debugInfo)
              flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
            // Weights as `__elided__`: dense attributes past 16 elements and
            // resource blobs past 64 bytes.
            if (largeElided) {
              flags.elideLargeElementsAttrs(16);
              flags.elideLargeResourceString(64);
            }
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
             // With TracedIR's integrity stamp (Untrusted.h): still plain
             // MLIR bytecode.
             diags.check(writeStampedBytecode(s.get(), os),
                         "cannot write bytecode");
             os.flush();
             return py::bytes(out);
           })
      .def(
          "to_trace_json",
          [](ModuleState &s, bool locations) {
            DiagnosticCapture diags(s.ctx.get());
            std::string out;
            llvm::raw_string_ostream os(out);
            diags.check(exportTrace(s.get(), os, locations),
                        "cannot export the trace");
            os.flush();
            return out;
          },
          py::arg("locations") = true)
      .def(
          "tensor_blobs",
          // {(module, name): blob key} for parameters and buffers held in
          // dense_resource blobs: two declarations share a tensor exactly
          // when they name one blob (tied weights).
          [](ModuleState &s) {
            py::dict out;
            for (auto module : s.get().getBody()->getOps<traced::ModuleOp>())
              for (Operation &op : module.getBody().front()) {
                ElementsAttr value;
                if (auto p = dyn_cast<ParameterOp>(op))
                  value = p.getValue();
                else if (auto b = dyn_cast<BufferOp>(op))
                  value = b.getValue();
                auto blob = dyn_cast_or_null<DenseResourceElementsAttr>(value);
                if (!blob)
                  continue;
                out[py::make_tuple(module.getSymName().str(),
                                   cast<SymbolOpInterface>(op).getName().str())] =
                    blob.getRawHandle().getKey().str();
              }
            return out;
          })
      .def(
          "op_locations",
          // {(module, graph): [(file, line, col, scope) or None per op of
          // the graph's body, its output included]}: what the graph
          // explorer shows, without printing the module.
          [](ModuleState &s) {
            py::dict out;
            for (auto module : s.get().getBody()->getOps<traced::ModuleOp>())
              for (auto graph : module.getBody().front().getOps<GraphOp>()) {
                py::list ops;
                for (Operation &op : graph.getBody().front()) {
                  FileLineColLoc file;
                  std::string scope;
                  op.getLoc()->walk([&](Location l) {
                    if (auto name = dyn_cast<NameLoc>(l); name && scope.empty())
                      scope = name.getName().str();
                    if (auto f = dyn_cast<FileLineColLoc>(l)) {
                      file = f;
                      return WalkResult::interrupt();
                    }
                    return WalkResult::advance();
                  });
                  if (!file)
                    ops.append(py::none());
                  else
                    ops.append(py::make_tuple(file.getFilename().str(),
                                              file.getLine(), file.getColumn(),
                                              scope));
                }
                out[py::make_tuple(module.getSymName().str(),
                                   graph.getSymName().str())] = ops;
              }
            return out;
          })
      .def(
          "to_onnx",
          [](ModuleState &s, int64_t opset, const std::string &externalFile,
             const std::string &externalDir, bool locations) {
            DiagnosticCapture diags(s.ctx.get());
            OnnxExportOptions options;
            options.opset = opset;
            options.externalDataFile = externalFile;
            options.externalDataDir = externalDir;
            options.locations = locations;
            std::string out;
            llvm::raw_string_ostream os(out);
            diags.check(exportOnnx(s.get(), os, options),
                        "cannot export to ONNX");
            os.flush();
            return py::bytes(out);
          },
          py::arg("opset") = 17, py::arg("external_data") = "",
          py::arg("external_dir") = "", py::arg("locations") = true)
      .def(
          "to_dot",
          [](ModuleState &s, unsigned depth, bool params) {
            DiagnosticCapture diags(s.ctx.get());
            DotOptions options;
            options.depth = depth;
            options.params = params;
            std::string out;
            llvm::raw_string_ostream os(out);
            diags.check(printGraphDot(s.get(), options, os),
                        "cannot draw the module");
            os.flush();
            return out;
          },
          py::arg("depth") = 0, py::arg("params") = false)
      .def("verify",
           [](ModuleState &s) {
             DiagnosticCapture diags(s.ctx.get());
             diags.check(verify(s.get()), "the module does not verify");
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
           [](ModuleState &s, const std::string &name, py::buffer data) {
             // Any C-contiguous buffer (bytes, a numpy array): its bytes
             // go straight into the blob, one copy.
             py::buffer_info info = data.request();
             if (!PyBuffer_IsContiguous(info.view(), 'C'))
               fail("set_blob takes a C-contiguous buffer");
             auto &manager =
                 DenseResourceElementsHandle::getManagerInterface(s.ctx.get());
             if (!manager.getBlobManager().lookup(name))
               fail("no dense_resource named '" + name + "'");
             s.changed();
             manager.update(
                 name, copyToBlob(ArrayRef<char>(static_cast<char *>(info.ptr),
                                                 info.size * info.itemsize),
                                  kResourceAlignment));
           });
}

/// The module tree: its modules, their attributes and tensors.
void bindModuleTree(ModuleClass &cls) {
  cls
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
               Attribute old = op.getValueAttr();
               auto value = cast<ElementsAttr>(
                   makeResource(*s, type, data, sym + "_" + name));
               op.setValueAttr(value);
               // A tied weight (one blob that several declarations name,
               // as the tracer writes a shared tensor) stays tied: every
               // declaration of it gets the new value, as an in-place
               // write to a shared torch Parameter would.
               if (!isa<DenseResourceElementsAttr>(old))
                 return;
               s->get().walk([&](Operation *other) {
                 if (auto p = dyn_cast<ParameterOp>(other);
                     p && p.getValueAttr() == old)
                   p.setValueAttr(value);
                 else if (auto bu = dyn_cast<BufferOp>(other);
                          bu && bu.getValueAttr() == old)
                   bu.setValueAttr(value);
               });
             };
             if (auto p = dyn_cast_or_null<ParameterOp>(decl))
               return setValue(p);
             if (auto bu = dyn_cast_or_null<BufferOp>(decl))
               return setValue(bu);
             fail("@" + sym + " has no parameter or buffer '" + name + "'");
           });
}

/// A graph's ops, inputs and outputs, and the surgery primitives.
void bindGraphEditing(ModuleClass &cls) {
  cls
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
                 s->markErased(&op);
                 op.erase();
                 ++removed;
                 changed = true;
               }
             }
             return removed;
           });
}

/// A quantized element type's parameters as Python reads them: {"dtype":
/// "quint8", "scale": s, "zero_point": z} per tensor, "scales",
/// "zero_points" and "axis" per channel.
static py::dict quantParams(Type type) {
  py::dict d;
  d["dtype"] = quantizedDTypeName(type).str();
  if (auto u = dyn_cast<quant::UniformQuantizedType>(type)) {
    d["scale"] = u.getScale();
    d["zero_point"] = u.getZeroPoint();
  } else if (auto a = dyn_cast<quant::UniformQuantizedPerAxisType>(type)) {
    d["scales"] = std::vector<double>(a.getScales().begin(),
                                      a.getScales().end());
    d["zero_points"] = std::vector<int64_t>(a.getZeroPoints().begin(),
                                            a.getZeroPoints().end());
    d["axis"] = a.getQuantizedDimension();
  }
  return d;
}

/// Module.interpret: the reference interpreter on Python inputs.
void bindInterpret(ModuleClass &cls) {
  cls
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
                // A quantized tensor: its storage integers and its type.
                if (t.size() == 4) {
                  Type q = parseType(t[3].cast<std::string>(), ctx);
                  if (!q || !isQuantizedElement(q))
                    fail("unsupported quantized type '" +
                         t[3].cast<std::string>() + "'");
                  tensor = tensor.withQuantType(q);
                }
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
                py::tuple raw = py::make_tuple(
                    py::bytes(t.data<char>(),
                              t.numel() * rawElementBytes(storage)),
                    dtypeName(storage).str(),
                    py::cast(std::vector<int64_t>(t.shape().begin(),
                                                  t.shape().end())),
                    dtypeName(t.dtype()).str());
                if (!t.isQuantized())
                  return raw;
                // A quantized tensor: its parameters too.
                return py::make_tuple(raw[0], raw[1], raw[2], raw[3],
                                      quantParams(t.quantType()));
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
          py::arg("graph") = "forward");
}

/// traced.Op: one op of a graph.
void bindOp(py::module_ &m) {
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
          "alive", [](const PyOp &o) { return o.state->erasuresOf(o.op) == o.epoch; })
      .def("erase",
           [](PyOp &o) {
             Operation *op = o.get();
             if (!op->use_empty())
               fail("cannot remove an expr whose outputs are still used");
             if (op->hasTrait<OpTrait::IsTerminator>())
               fail("cannot remove a graph's output");
             o.state->changed();
             o.state->markErased(op);
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
}

/// traced.Value: one value of a graph.
void bindValue(py::module_ &m) {
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
      .def_property_readonly(
          "dims",
          [](const PyValue &v) -> py::object {
            // The shape with each `?` as its name or expression of the
            // input dims' names (traced.dim_names), else None.
            Value value = v.get();
            auto t = dyn_cast<RankedTensorType>(value.getType());
            if (!t)
              return py::none();
            ArrayAttr names;
            if (auto arg = dyn_cast<BlockArgument>(value)) {
              if (auto graph = dyn_cast<GraphOp>(arg.getOwner()->getParentOp()))
                names = graph.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                                          kDimNamesAttr);
            } else if (auto perResult =
                           value.getDefiningOp()->getAttrOfType<ArrayAttr>(
                               kDimNamesAttr)) {
              unsigned i = cast<OpResult>(value).getResultNumber();
              if (i < perResult.size())
                names = dyn_cast<ArrayAttr>(perResult[i]);
            }
            py::list dims;
            for (auto [d, size] : llvm::enumerate(t.getShape())) {
              auto name = names && d < names.size()
                              ? dyn_cast<StringAttr>(names[d])
                              : StringAttr();
              if (!ShapedType::isDynamic(size))
                dims.append(py::int_(size));
              else if (name && !name.getValue().empty())
                dims.append(py::str(name.getValue().str()));
              else
                dims.append(py::none());
            }
            return py::tuple(dims);
          })
      .def_property_readonly("qparams",
                             [](const PyValue &v) -> py::object {
                               auto t = dyn_cast<TensorType>(v.get().getType());
                               if (!t || !isQuantizedElement(t.getElementType()))
                                 return py::none();
                               return quantParams(t.getElementType());
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
}

/// Parsing and loading: text, bytecode (sandboxed when untrusted), JSON traces.
void bindLoading(py::module_ &m) {
  // `sandbox_tool`: bytes from outside (traced.parse, traced.load) are
  // checked first (Untrusted.h): the integrity stamp, then a parse by that
  // tool (traced-opt's probe mode) in a child process with limits, as the
  // policy asks; `trusted` skips the child for bytecode whose stamp
  // verified. Without a tool (the package's own text) only the stamp.
  m.def(
      "parse",
      [](py::bytes data, const std::string &name,
         std::optional<std::string> sandboxTool, bool trusted) {
        char *ptr = nullptr;
        Py_ssize_t size = 0;
        if (PyBytes_AsStringAndSize(data.ptr(), &ptr, &size) != 0)
          throw py::error_already_set();
        llvm::StringRef bytes(ptr, size_t(size));
        CheckedInput checked;
        // The environment is read with the GIL held: Python threads change
        // it only then.
        SandboxPolicy policy = SandboxPolicy::fromEnv();
        if (trusted)
          policy.stampedBytecode = false;
        SandboxLimits limits = SandboxLimits::forInput(bytes.size());
        std::vector<std::string> environment;
        if (sandboxTool)
          environment = probeEnvironment();
        {
          // `data` stays alive in the caller's frame; other Python threads
          // run while the child reads.
          py::gil_scoped_release release;
          if (sandboxTool) {
            checked = checkUntrustedInput(
                bytes, policy,
                [&](const SandboxLimits &chosen) {
                  return probeInTool(*sandboxTool, bytes, name, chosen,
                                     environment);
                },
                limits);
          } else if (failed(checkStamp(bytes, checked.message))) {
            checked.kind = CheckedInput::Failed;
          }
        }
        if (checked.kind == CheckedInput::Failed)
          fail("cannot parse " + name + ": " + checked.message);
        if (checked.kind == CheckedInput::Refused)
          fail(checked.message.empty() ? "cannot parse " + name
                                       : checked.message);
        auto state = std::make_shared<ModuleState>();
        state->ctx = makeContext();
        // The module the sandboxed child read, as it wrote it back; never
        // the untrusted bytes themselves.
        parseInto(*state,
                  checked.rewritten ? checked.rewritten->getBuffer() : bytes,
                  name);
        return state;
      },
      py::arg("data"), py::arg("name") = "<string>",
      py::arg("sandbox_tool") = py::none(), py::arg("trusted") = false);
  m.def(
      "import_trace",
      [](py::bytes data, const std::string &name, const std::string &baseDir) {
        auto state = std::make_shared<ModuleState>();
        state->ctx = makeContext();
        DiagnosticCapture diags(state->ctx.get());
        std::string text = data;
        state->module = importTrace(text, name, baseDir, state->ctx.get());
        if (!state->module || failed(checkOpCount(*state->module, name)))
          diags.raise("cannot import the trace " + name);
        return state;
      },
      py::arg("data"), py::arg("name"), py::arg("base_dir"));
  m.def(
      "import_onnx",
      [](py::bytes data, const std::string &name, const std::string &baseDir,
         const std::map<std::string, py::bytes> &constants) {
        auto state = std::make_shared<ModuleState>();
        state->ctx = makeContext();
        DiagnosticCapture diags(state->ctx.get());
        std::map<std::string, std::string> constantInputs;
        for (const auto &[k, v] : constants)
          constantInputs[k] = std::string(v);
        std::string bytes = data;
        state->module = importOnnx(bytes, name, baseDir, state->ctx.get(),
                                   constantInputs);
        if (!state->module || failed(checkOpCount(*state->module, name)))
          diags.raise("cannot import the ONNX model " + name);
        return state;
      },
      py::arg("data"), py::arg("name"), py::arg("base_dir"),
      py::arg("constant_inputs") = std::map<std::string, py::bytes>());
}
} // namespace

void traced_python::populateIR(py::module_ &m) {
  ModuleClass cls(m, "Module");
  bindModuleFormats(cls);
  bindModuleTree(cls);
  bindGraphEditing(cls);
  bindInterpret(cls);
  bindOp(m);
  bindValue(m);
  bindLoading(m);
}
