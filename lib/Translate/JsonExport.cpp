//===- JsonExport.cpp - traced IR as JSON traces --------------------------===//
//
// Writes the format of docs/trace-format.md, which JsonImport.cpp reads
// back to the same IR.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Support/DType.h"
#include "TracedIR/Translate/JsonTrace.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;
namespace json = llvm::json;

/// The dtype of an element type the format can express: exactly a dtype's
/// element type (si8 and ui32 are not int8 and int32 here).
static std::optional<DType> getTraceDType(Type type) {
  std::optional<DType> dtype = dtypeFromType(type);
  if (dtype && typeFromDType(type.getContext(), *dtype) == type)
    return dtype;
  return std::nullopt;
}

namespace {
/// Writes a module as a trace. json::OStream writes as it goes, so errors set
/// `status` and the caller discards the text; writing stops at the first.
class Exporter {
public:
  Exporter(json::OStream &j, bool locations) : j(j), locations(locations) {}

  /// Writes the trace of `modules`; fails after reporting an error.
  void run(ArrayRef<traced::ModuleOp> modules, traced::ModuleOp root);
  bool ok() const { return succeeded(status); }

private:
  InFlightDiagnostic fail(Operation *op) {
    status = failure();
    return op->emitOpError();
  }
  /// A string for the JSON text; llvm::json requires UTF-8.
  std::string str(StringRef s, Operation *op) {
    if (!json::isUTF8(s) && ok())
      fail(op) << "holds a string that is not valid UTF-8, which JSON "
                  "cannot carry";
    return json::fixUTF8(s);
  }

  void writeModule(traced::ModuleOp module);
  void writeDecl(Operation &op);
  void writeGraph(GraphOp graph);
  void writeExpr(Operation &op, AsmState &state);
  void writeLocation(Operation &op);
  void writeType(Type type, Operation *op);
  void writeQuantizedType(RankedTensorType tensor);
  void writeQParams(Type element);
  void writeShape(ArrayRef<int64_t> shape);
  /// `declared`: the declaration's type, when it is of quantized elements
  /// (the value then holds their storage integers).
  void writeTensor(ElementsAttr value, Operation *op, Type declared = {});
  void writePyValue(Attribute value, Operation *op,
                    function_ref<std::string(unsigned)> operandName);
  void writeOutputs(Operation &op, AsmState &state);

  json::OStream &j;
  bool locations;
  LogicalResult status = success();
};
} // namespace

/// The name a value prints with (`%add_out` -> "add_out"): unique in its
/// graph, and what TracedModule would call the node.
static std::string getNodeName(Value value, AsmState &state) {
  std::string s;
  llvm::raw_string_ostream os(s);
  value.printAsOperand(os, state);
  return StringRef(s).drop_front().str();
}

void Exporter::run(ArrayRef<traced::ModuleOp> modules, traced::ModuleOp root) {
  j.object([&] {
    j.attribute("format", "traced-trace");
    j.attribute("version", 1);
    if (root)
      j.attribute("root", str(root.getSymName(), root));
    j.attributeArray("modules", [&] {
      for (traced::ModuleOp module : modules)
        if (ok())
          writeModule(module);
    });
  });
}

void Exporter::writeModule(traced::ModuleOp module) {
  j.object([&] {
    j.attribute("name", str(module.getSymName(), module));
    j.attribute("class", str(module.getClassName(), module));
    Block &body = module.getBody().front();
    j.attributeArray("attributes", [&] {
      for (Operation &op : body)
        if (ok() && !isa<GraphOp>(op))
          writeDecl(op);
    });
    j.attributeArray("graphs", [&] {
      for (auto graph : body.getOps<GraphOp>())
        if (ok())
          writeGraph(graph);
    });
  });
}

void Exporter::writeDecl(Operation &op) {
  j.object([&] {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    j.attribute("name", str(name ? name.getValue() : "", &op));
    if (auto submodule = dyn_cast<SubmoduleOp>(op)) {
      j.attribute("kind", "submodule");
      j.attribute("module", str(submodule.getModule(), &op));
    } else if (auto parameter = dyn_cast<ParameterOp>(op)) {
      j.attribute("kind", "parameter");
      j.attributeBegin("tensor");
      writeTensor(parameter.getValue(), &op, parameter.getType());
      j.attributeEnd();
    } else if (auto buffer = dyn_cast<BufferOp>(op)) {
      j.attribute("kind", "buffer");
      j.attributeBegin("tensor");
      writeTensor(buffer.getValue(), &op, buffer.getType());
      j.attributeEnd();
    } else if (auto attribute = dyn_cast<AttributeOp>(op)) {
      j.attribute("kind", "attribute");
      j.attributeBegin("type");
      writeType(attribute.getType(), &op);
      j.attributeEnd();
      j.attributeBegin("value");
      writePyValue(attribute.getValue(), &op, nullptr);
      j.attributeEnd();
    } else {
      fail(&op) << "cannot be expressed in a trace";
    }
  });
}

void Exporter::writeGraph(GraphOp graph) {
  AsmState state(graph);
  Block &body = graph.getBody().front();
  j.object([&] {
    j.attribute("name", str(graph.getSymName(), graph));
    j.attributeArray("inputs", [&] {
      for (BlockArgument arg : body.getArguments())
        j.object([&] {
          j.attribute("name", str(getNodeName(arg, state), graph));
          j.attributeBegin("type");
          writeType(arg.getType(), graph);
          j.attributeEnd();
          if (auto names = graph.getArgAttrOfType<ArrayAttr>(
                  arg.getArgNumber(), kDimNamesAttr))
            j.attributeArray("dim_names", [&] {
              for (auto name : names.getAsValueRange<StringAttr>())
                j.value(str(name, graph));
            });
        });
    });
    auto output = dyn_cast<OutputOp>(body.back());
    if (!output) {
      fail(graph) << "does not end in 'traced.output'";
      return;
    }
    j.attributeArray("exprs", [&] {
      for (Operation &op : body.without_terminator())
        if (ok())
          writeExpr(op, state);
    });
    j.attributeArray("outputs", [&] {
      for (Value v : output.getResults())
        j.value(str(getNodeName(v, state), output));
    });
  });
}

void Exporter::writeOutputs(Operation &op, AsmState &state) {
  // A call's `traced.dim_names`: each output's dims as expressions of the
  // inputs' dim names (traced.trace with dynamic_dims), when it has any.
  auto dimNames = op.getAttrOfType<ArrayAttr>(kDimNamesAttr);
  j.attributeArray("outputs", [&] {
    for (auto [i, result] : llvm::enumerate(op.getResults()))
      j.object([&] {
        j.attribute("name", str(getNodeName(result, state), &op));
        j.attributeBegin("type");
        writeType(result.getType(), &op);
        j.attributeEnd();
        auto names = dimNames && i < dimNames.size()
                         ? dyn_cast<ArrayAttr>(dimNames[i])
                         : ArrayAttr();
        if (names && !names.empty())
          j.attributeArray("dim_names", [&] {
            for (auto name : names.getAsValueRange<StringAttr>())
              j.value(str(name, &op));
          });
      });
  });
}

void Exporter::writeExpr(Operation &op, AsmState &state) {
  auto nodeName = [&](Value v) { return str(getNodeName(v, state), &op); };
  // Positional arguments, then the trailing keyword ones.
  auto writeArguments = [&](ArrayAttr arguments, ArrayAttr keywords,
                            ValueRange operands) {
    auto operandName = [&](unsigned i) -> std::string {
      if (i < operands.size())
        return nodeName(operands[i]);
      if (ok())
        fail(&op) << "refers to argument operand #" << i
                  << ", which it does not have";
      return "";
    };
    size_t positional =
        arguments.size() - std::min(arguments.size(), keywords.size());
    j.attributeArray("args", [&] {
      for (Attribute arg : arguments.getValue().take_front(positional))
        writePyValue(arg, &op, operandName);
    });
    j.attributeObject("kwargs", [&] {
      for (auto [kw, arg] :
           llvm::zip(keywords.getValue(),
                     arguments.getValue().drop_front(positional))) {
        j.attributeBegin(str(cast<StringAttr>(kw).getValue(), &op));
        writePyValue(arg, &op, operandName);
        j.attributeEnd();
      }
    });
  };

  j.object([&] {
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      j.attribute("kind", "Constant");
      j.attributeBegin("value");
      if (auto elements = dyn_cast<ElementsAttr>(constant.getValue()))
        j.object([&] {
          j.attributeBegin("tensor");
          writeTensor(elements, &op);
          j.attributeEnd();
        });
      else
        writePyValue(constant.getValue(), &op, nullptr);
      j.attributeEnd();
    } else if (auto getattr = dyn_cast<GetAttrOp>(op)) {
      j.attribute("kind", "GetAttr");
      j.attribute("self", nodeName(getattr.getReceiver()));
      j.attribute("name", str(getattr.getName(), &op));
    } else if (auto call = dyn_cast<CallMethodOp>(op)) {
      j.attribute("kind", "CallMethod");
      j.attribute("self", nodeName(call.getReceiver()));
      j.attribute("method", str(call.getMethod(), &op));
      writeArguments(call.getArgumentsAttr(), call.getKeywordsAttr(),
                     call.getArgs());
    } else if (auto call = dyn_cast<CallFunctionOp>(op)) {
      j.attribute("kind", "CallFunction");
      j.attribute("func", str(call.getCallee(), &op));
      writeArguments(call.getArgumentsAttr(), call.getKeywordsAttr(),
                     call.getArgs());
    } else {
      fail(&op) << "cannot be expressed in a trace; a graph holds "
                   "Constant, GetAttr, CallMethod and CallFunction exprs only";
      return;
    }
    writeLocation(op);
    writeOutputs(op, state);
  });
}

void Exporter::writeLocation(Operation &op) {
  if (!locations)
    return;
  Location loc = op.getLoc();
  StringRef scope;
  if (auto name = dyn_cast<NameLoc>(loc)) {
    scope = name.getName().getValue();
    loc = name.getChildLoc();
  }
  auto file = dyn_cast<FileLineColLoc>(loc);
  if (!file)
    return;
  j.attributeObject("loc", [&] {
    j.attribute("file", str(file.getFilename().getValue(), &op));
    j.attribute("line", static_cast<int64_t>(file.getLine()));
    j.attribute("col", static_cast<int64_t>(file.getColumn()));
    if (!scope.empty())
      j.attribute("scope", str(scope, &op));
  });
}

/// A quantized tensor's type: its torch dtype, shape and "qparams" (a
/// scale and zero point, or one per index along an axis).
void Exporter::writeQuantizedType(RankedTensorType tensor) {
  Type element = tensor.getElementType();
  j.object([&] {
    j.attributeObject("tensor", [&] {
      j.attribute("dtype", quantizedDTypeName(element));
      j.attributeBegin("shape");
      writeShape(tensor.getShape());
      j.attributeEnd();
      writeQParams(element);
    });
  });
}

void Exporter::writeQParams(Type element) {
  j.attributeObject("qparams", [&] {
    if (auto u = dyn_cast<quant::UniformQuantizedType>(element)) {
      j.attribute("scale", u.getScale());
      j.attribute("zero_point", u.getZeroPoint());
      return;
    }
    auto a = cast<quant::UniformQuantizedPerAxisType>(element);
    j.attributeArray("scales", [&] {
      for (double scale : a.getScales())
        j.value(scale);
    });
    j.attributeArray("zero_points", [&] {
      for (int64_t zp : a.getZeroPoints())
        j.value(zp);
    });
    j.attribute("axis", a.getQuantizedDimension());
  });
}

void Exporter::writeType(Type type, Operation *op) {
  auto unsupported = [&]() {
    j.value(nullptr);
    if (ok())
      fail(op) << "type " << type << " cannot be expressed in a trace";
  };
  if (auto tensor = dyn_cast<RankedTensorType>(type);
      tensor && isQuantizedElement(tensor.getElementType()) &&
      !tensor.getEncoding())
    return writeQuantizedType(tensor);
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    std::optional<DType> dtype = getTraceDType(tensor.getElementType());
    if (!dtype || tensor.getEncoding())
      return unsupported();
    j.object([&] {
      j.attributeObject("tensor", [&] {
        j.attribute("dtype", dtypeName(*dtype));
        j.attributeBegin("shape");
        writeShape(tensor.getShape());
        j.attributeEnd();
      });
    });
    return;
  }
  if (type.isSignlessInteger(64))
    return j.value("int");
  if (type.isF64())
    return j.value("float");
  if (type.isSignlessInteger(1))
    return j.value("bool");
  if (isa<StrType>(type))
    return j.value("str");
  if (isa<traced::NoneType>(type))
    return j.value("none");
  if (isa<ObjectType>(type))
    return j.value("object");
  if (auto list = dyn_cast<ListType>(type)) {
    j.objectBegin();
    j.attributeBegin("list");
    writeType(list.getElementType(), op);
    j.attributeEnd();
    j.objectEnd();
    return;
  }
  if (auto tuple = dyn_cast<TupleType>(type)) {
    j.object([&] {
      j.attributeArray("tuple", [&] {
        for (Type element : tuple.getTypes())
          writeType(element, op);
      });
    });
    return;
  }
  if (auto module = dyn_cast<ModuleType>(type)) {
    j.object([&] { j.attribute("module", str(module.getName(), op)); });
    return;
  }
  unsupported();
}

void Exporter::writeShape(ArrayRef<int64_t> shape) {
  // On one line: OStream would give every dimension a line of its own.
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t dim) {
    os << (ShapedType::isDynamic(dim) ? int64_t(-1) : dim);
  });
  os << ']';
  j.rawValue(text);
}

void Exporter::writeTensor(ElementsAttr value, Operation *op, Type declared) {
  auto type = dyn_cast<RankedTensorType>(value.getShapedType());
  std::optional<DType> dtype =
      type ? getTraceDType(type.getElementType()) : std::nullopt;
  if (!type || !type.hasStaticShape() || !dtype) {
    j.value(nullptr);
    fail(op) << "tensor value of type " << value.getShapedType()
             << " cannot be expressed in a trace";
    return;
  }
  Type elementType = type.getElementType();
  size_t expected = rawElementBytes(*dtype) * type.getNumElements();
  // A splat is a few bytes of IR but its trace holds every element: one of
  // 2^38 elements would be written for hours. Such a tensor is refused
  // before anything is built.
  uint64_t memory = physicalMemoryBytes().value_or(~uint64_t(0));
  if (expected > memory / 4) {
    j.value(nullptr);
    fail(op) << "tensor value of type " << type << " would take " << expected
             << " bytes in the trace, more than a quarter of this machine's "
             << memory << " bytes of memory";
    return;
  }
  std::string bytes;
  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(value)) {
    if (elementType.isInteger(1)) {
      // DenseElementsAttr packs bools into bits; the format has a byte each.
      for (bool b : dense.getValues<bool>())
        bytes.push_back(b);
    } else {
      ArrayRef<char> raw = dense.getRawData();
      size_t copies = dense.isSplat() ? type.getNumElements() : 1;
      for (size_t i = 0; i < copies; ++i)
        bytes.append(raw.begin(), raw.end());
    }
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    ArrayRef<char> raw = resource.getData();
    bytes.assign(raw.begin(), raw.end());
    if (bytes.size() != expected) {
      j.value(nullptr);
      fail(op) << "the data of " << value << " is not available ("
               << bytes.size() << " bytes for " << expected << ")";
      return;
    }
  } else {
    j.value(nullptr);
    fail(op) << "tensor value " << value
             << " cannot be expressed in a trace; only dense and "
                "dense_resource values can";
    return;
  }
  if (bytes.size() != expected) {
    j.value(nullptr);
    fail(op) << "tensor value holds " << bytes.size() << " bytes, expected "
             << expected;
    return;
  }
  Type quantized = isQuantizedTensor(declared)
                       ? cast<TensorType>(declared).getElementType()
                       : Type();
  j.object([&] {
    j.attribute("dtype", quantized ? quantizedDTypeName(quantized)
                                   : dtypeName(*dtype));
    j.attributeBegin("shape");
    writeShape(type.getShape());
    j.attributeEnd();
    if (quantized)
      writeQParams(quantized);
    j.attribute("base64", llvm::encodeBase64(bytes));
  });
}

void Exporter::writePyValue(Attribute value, Operation *op,
                            function_ref<std::string(unsigned)> operandName) {
  auto wrap = [&](StringRef key, function_ref<void()> contents) {
    j.object([&] {
      j.attributeBegin(key);
      contents();
      j.attributeEnd();
    });
  };
  auto sequence = [&](ArrayRef<Attribute> elements) {
    j.array([&] {
      for (Attribute e : elements)
        writePyValue(e, op, operandName);
    });
  };
  if (auto marker = dyn_cast<OperandAttr>(value)) {
    if (!operandName) {
      j.value(nullptr);
      if (ok())
        fail(op) << "holds an operand marker outside call arguments";
      return;
    }
    return wrap("node", [&] { j.value(operandName(marker.getIndex())); });
  }
  if (auto b = dyn_cast<BoolAttr>(value))
    return j.value(b.getValue());
  if (auto i = dyn_cast<IntegerAttr>(value);
      i && i.getType().isSignlessInteger(64))
    return j.value(i.getValue().getSExtValue());
  if (auto f = dyn_cast<FloatAttr>(value); f && f.getType().isF64()) {
    double d = f.getValueAsDouble();
    if (std::isnan(d))
      return wrap("float", [&] { j.value("nan"); });
    if (std::isinf(d))
      return wrap("float", [&] { j.value(d < 0 ? "-inf" : "inf"); });
    // Python's repr: the shortest digits that read back as the same double,
    // always with a '.' or exponent so that it reads back as a float.
    std::string text;
    llvm::raw_string_ostream os(text);
    printPyValue(os, value);
    return j.rawValue(text);
  }
  if (auto s = dyn_cast<StringAttr>(value))
    return j.value(str(s.getValue(), op));
  if (isa<traced::NoneAttr>(value))
    return j.value(nullptr);
  if (auto list = dyn_cast<ArrayAttr>(value))
    return sequence(list.getValue());
  if (auto tuple = dyn_cast<TupleAttr>(value))
    return wrap("tuple", [&] { sequence(tuple.getElements().getValue()); });
  if (auto slice = dyn_cast<SliceAttr>(value))
    return wrap("slice", [&] {
      sequence({slice.getStart(), slice.getStop(), slice.getStep()});
    });
  if (isa<EllipsisAttr>(value))
    return wrap("ellipsis", [&] { j.value(true); });
  if (auto dtype = dyn_cast<DTypeAttr>(value)) {
    if (std::optional<DType> d = getTraceDType(dtype.getType()))
      return wrap("dtype", [&] { j.value(dtypeName(*d)); });
    if (isa<quant::AnyQuantizedType>(dtype.getType()))
      return wrap("dtype",
                  [&] { j.value(quantizedDTypeName(dtype.getType())); });
  }
  if (auto object = dyn_cast<ObjectAttr>(value))
    return wrap("object", [&] { j.value(str(object.getRepr(), op)); });
  j.value(nullptr);
  if (ok())
    fail(op) << "value " << value << " cannot be expressed in a trace";
}

LogicalResult traced::exportTrace(mlir::ModuleOp module,
                                  llvm::raw_ostream &os, bool locations) {
  // The writer relies on what the verifier checks (a graph ends in its
  // output, call markers number the operands); C++ callers may not have run
  // it.
  if (failed(mlir::verify(module)))
    return failure();
  SmallVector<traced::ModuleOp> modules;
  traced::ModuleOp root;
  for (Operation &op : module.getBody()->getOperations()) {
    auto tracedModule = dyn_cast<traced::ModuleOp>(op);
    if (!tracedModule)
      return op.emitOpError("cannot be expressed in a trace; only "
                            "'traced.module' ops may appear at the top level");
    if (tracedModule.getRoot() && !root)
      root = tracedModule;
    modules.push_back(tracedModule);
  }
  // Write to a buffer so that a failure leaves no half-written trace.
  std::string text;
  llvm::raw_string_ostream buffer(text);
  {
    json::OStream j(buffer, /*IndentSize=*/2);
    Exporter exporter(j, locations);
    exporter.run(modules, root);
    if (!exporter.ok())
      return failure();
  }
  os << text << "\n";
  return success();
}
