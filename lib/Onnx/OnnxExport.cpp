//===- OnnxExport.cpp - traced IR as ONNX models --------------------------===//
//
// The driver of `--export-onnx`: a flattened copy of the module, its root
// forward graph walked in order, values named as the traced graph names
// them (`conv1_out`, `layer1.0.conv1.weight`), each call written by the
// emitter of its target (OnnxExportOps.cpp).
//
//===----------------------------------------------------------------------===//

#include "Export.h"
#include "Import.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Onnx/Onnx.h"
#include "TracedIR/Support/Blobs.h"
#include "TracedIR/Support/DType.h"
#include "TracedIR/Support/Translation.h"
#include "TracedIR/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::onnx_export;

OnnxAttr onnx_export::attrInt(StringRef name, int64_t v) {
  OnnxAttr a;
  a.name = name.str();
  a.type = onnx::kAttrInt;
  a.i = v;
  return a;
}

OnnxAttr onnx_export::attrFloat(StringRef name, double v) {
  OnnxAttr a;
  a.name = name.str();
  a.type = onnx::kAttrFloat;
  a.f = static_cast<float>(v);
  return a;
}

OnnxAttr onnx_export::attrInts(StringRef name, ArrayRef<int64_t> v) {
  OnnxAttr a;
  a.name = name.str();
  a.type = onnx::kAttrInts;
  a.ints.assign(v.begin(), v.end());
  return a;
}

OnnxAttr onnx_export::attrString(StringRef name, StringRef v) {
  OnnxAttr a;
  a.name = name.str();
  a.type = onnx::kAttrString;
  a.s = v.str();
  return a;
}

int32_t onnx_export::onnxDataType(Type t) {
  std::optional<DType> dtype = dtypeFromType(t);
  if (!dtype || typeFromDType(t.getContext(), *dtype) != t)
    return onnx::kUndefined;
  switch (*dtype) {
  case DType::F32:
    return onnx::kFloat;
  case DType::F64:
    return onnx::kDouble;
  case DType::F16:
    return onnx::kFloat16;
  case DType::BF16:
    return onnx::kBFloat16;
  case DType::I64:
    return onnx::kInt64;
  case DType::I32:
    return onnx::kInt32;
  case DType::I16:
    return onnx::kInt16;
  case DType::I8:
    return onnx::kInt8;
  case DType::U8:
    return onnx::kUInt8;
  case DType::Bool:
    return onnx::kBool;
  }
  return onnx::kUndefined;
}

/// The first file:line:col in `loc` (the user's source), or null.
static FileLineColLoc sourceLocation(Location loc) {
  FileLineColLoc found;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      found = f;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

std::string Exporter::valueName(Value v, AsmState &state) {
  std::string s;
  llvm::raw_string_ostream os(s);
  v.printAsOperand(os, state);
  StringRef name = StringRef(s).drop_front();
  // ONNX names are any strings; keep the graph's own.
  return fresh(name);
}

std::string Exporter::docString(Operation *op) {
  if (!options.locations)
    return "";
  FileLineColLoc loc = sourceLocation(op->getLoc());
  if (!loc)
    return "";
  return (loc.getFilename().getValue() + ":" + Twine(loc.getLine())).str();
}

LogicalResult Exporter::elementBytes(ElementsAttr value, Operation *op,
                                     std::string &out) {
  auto type = dyn_cast<RankedTensorType>(value.getShapedType());
  if (!type || !type.hasStaticShape() ||
      onnxDataType(type.getElementType()) == onnx::kUndefined)
    return op->emitError() << "cannot export the tensor value of type "
                           << value.getShapedType() << " to ONNX";
  size_t width = onnx::dataTypeBytes(onnxDataType(type.getElementType()));
  size_t expected = width * type.getNumElements();
  if (std::optional<ArrayRef<char>> bytes = storedBytes(value)) {
    out.assign(bytes->begin(), bytes->end());
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    out.clear();
    out.reserve(expected);
    if (type.getElementType().isInteger(1)) {
      for (bool b : dense.getValues<bool>())
        out.push_back(b);
    } else if (dense.isSplat()) {
      ArrayRef<char> raw = dense.getRawData();
      for (int64_t i = 0; i < type.getNumElements(); ++i)
        out.append(raw.begin(), raw.end());
    } else {
      ArrayRef<char> raw = dense.getRawData();
      out.assign(raw.begin(), raw.end());
    }
  } else {
    return op->emitError() << "the data of " << type
                           << " is not available to export";
  }
  if (out.size() != expected)
    return op->emitError() << "tensor value holds " << out.size()
                           << " bytes, expected " << expected;
  return success();
}

onnx::TypeInfo Exporter::typeInfo(RankedTensorType type, ArrayAttr dimNames) {
  onnx::TypeInfo info;
  info.elemType = onnxDataType(type.getElementType());
  info.hasShape = true;
  for (auto [i, d] : llvm::enumerate(type.getShape())) {
    onnx::Dim dim;
    if (!ShapedType::isDynamic(d))
      dim.value = d;
    else if (dimNames && i < dimNames.size() &&
             isa<StringAttr>(dimNames[i]) &&
             !cast<StringAttr>(dimNames[i]).getValue().empty())
      dim.param = cast<StringAttr>(dimNames[i]).getValue().str();
    info.shape.push_back(dim);
  }
  return info;
}

LogicalResult Exporter::writeGetAttr(GetAttrOp get, traced::ModuleOp root) {
  Operation *decl = root.lookupSymbol(get.getName());
  if (auto attr = dyn_cast_or_null<AttributeOp>(decl))
    return success(); // a Python value: read where it is used
  ElementsAttr value;
  if (auto p = dyn_cast_or_null<ParameterOp>(decl))
    value = p.getValue();
  else if (auto b = dyn_cast_or_null<BufferOp>(decl))
    value = b.getValue();
  if (!value)
    return get.emitError() << "cannot export the getattr of '"
                           << get.getName()
                           << "' to ONNX: it is not a parameter, buffer or "
                              "attribute of the root module";
  auto type = cast<RankedTensorType>(get.getType());
  std::string raw;
  if (failed(elementBytes(value, get, raw)))
    return failure();
  names[get.getResult()] =
      addInitializer(get.getName(), onnxDataType(type.getElementType()),
                     type.getShape(), std::move(raw));
  return success();
}

LogicalResult Exporter::writeConstant(ConstantOp c, AsmState &state) {
  auto value = dyn_cast<ElementsAttr>(c.getValue());
  if (!value)
    return success(); // a Python value: read where it is used
  auto type = dyn_cast<RankedTensorType>(c.getType());
  if (!type)
    return c.emitError("cannot export a constant of type ")
           << c.getType() << " to ONNX";
  std::string raw;
  if (failed(elementBytes(value, c, raw)))
    return failure();
  std::string name = valueName(c.getResult(), state);
  onnx::Tensor t;
  t.name = name;
  t.dataType = onnxDataType(type.getElementType());
  t.dims.assign(type.getShape().begin(), type.getShape().end());
  t.raw = std::move(raw);
  model.graph.initializers.push_back(std::move(t));
  names[c.getResult()] = name;
  return success();
}

LogicalResult Exporter::writeCall(Operation *op, AsmState &state) {
  std::optional<BoundOp> bound = bindCall(op, {});
  if (!bound) {
    std::string what;
    if (auto m = dyn_cast<CallMethodOp>(op))
      what = "call of method '" + m.getMethod().str() + "' on " +
             ([&] {
               std::string s;
               llvm::raw_string_ostream os(s);
               os << m.getReceiver().getType();
               return s;
             })();
    else if (auto f = dyn_cast<CallFunctionOp>(op))
      what = "call of '" + f.getCallee().str() + "'";
    else
      what = "'" + op->getName().getStringRef().str() + "'";
    return op->emitError() << "cannot export the " << what
                           << " to ONNX: it is not an op-library call";
  }
  // Calls with no result that matters (torch._assert of a constant).
  if (bound->spec->name == "torch._assert")
    return success();
  const EmitTable &table = getEmitTable();
  auto it = table.find(bound->spec->name);
  if (it == table.end())
    return ExportCall(*this, *bound)
        .fail("no ONNX form is known for it (docs/onnx.md lists the "
              "exported targets)");
  for (Value r : op->getResults())
    if (isa<TensorType>(r.getType()))
      names[r] = valueName(r, state);
  doc = docString(op);
  ExportCall call(*this, *bound);
  return it->second(call);
}

LogicalResult Exporter::run(traced::ModuleOp root, GraphOp graph) {
  AsmState state(graph);
  Block &body = graph.getBody().front();
  onnx::Graph &g = model.graph;
  g.name = root.getSymName().str();
  g.docString = ("the forward graph of " + root.getClassName()).str();
  auto argNames = [&](unsigned i) {
    return graph.getArgAttrOfType<ArrayAttr>(i, kDimNamesAttr);
  };
  for (BlockArgument arg : body.getArguments()) {
    if (isa<ModuleType>(arg.getType()))
      continue;
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || onnxDataType(type.getElementType()) == onnx::kUndefined)
      return graph.emitError() << "cannot export graph input #"
                               << arg.getArgNumber() << " of type "
                               << arg.getType()
                               << " to ONNX: inputs must be tensors of a "
                                  "real dtype";
    std::string name = valueName(arg, state);
    names[arg] = name;
    g.inputs.push_back({name, typeInfo(type, argNames(arg.getArgNumber()))});
  }
  for (Operation &op : body.without_terminator()) {
    LogicalResult r = success();
    if (auto get = dyn_cast<GetAttrOp>(op))
      r = isa<TensorType>(get.getType()) ? writeGetAttr(get, root)
                                         : success();
    else if (auto c = dyn_cast<ConstantOp>(op))
      r = writeConstant(c, state);
    else
      r = writeCall(&op, state);
    if (failed(r))
      return failure();
  }
  auto output = cast<OutputOp>(body.getTerminator());
  // (value or null, its type, its ONNX name) per output; tuples (the
  // compilers' nesting included) flattened.
  struct Out {
    Value v;
    Type type;
    std::string name;
  };
  SmallVector<Out> outs;
  std::function<LogicalResult(Value, Type, ArrayRef<std::string>, void *)>
      addTuple = [&](Value v, Type type, ArrayRef<std::string> elements,
                     void *key) -> LogicalResult {
    auto tupleType = cast<TupleType>(type);
    for (auto [k, pair] :
         llvm::enumerate(llvm::zip(tupleType.getTypes(), elements))) {
      auto [t, n] = pair;
      auto inner = nested.find({key, unsigned(k)});
      if (inner != nested.end() && isa<TupleType>(t)) {
        if (failed(addTuple(Value(), t, inner->second, nullptr)))
          return failure();
      } else if (n.empty() || !isa<RankedTensorType>(t)) {
        return output.emitError()
               << "cannot export graph output element of type " << t
               << " to ONNX (an attention's unused weights, a None)";
      } else {
        outs.push_back({Value(), t, n});
      }
    }
    return success();
  };
  auto addOutput = [&](Value v) -> LogicalResult {
    if (auto it = tuples.find(v); it != tuples.end())
      return addTuple(v, v.getType(), it->second, v.getAsOpaquePointer());
    auto it = names.find(v);
    if (it == names.end() || !isa<RankedTensorType>(v.getType()))
      return output.emitError() << "cannot export a graph output of type "
                                << v.getType()
                                << " to ONNX: outputs must be tensors";
    outs.push_back({v, v.getType(), it->second});
    return success();
  };
  for (Value v : output.getResults())
    if (failed(addOutput(v)))
      return failure();
  // Each output is a value of its own: an input or an initializer passed
  // straight through, or one value output twice, gets an Identity.
  llvm::StringSet<> seen;
  llvm::StringSet<> graphInputs;
  for (const onnx::ValueInfo &in : g.inputs)
    graphInputs.insert(in.name);
  for (const onnx::Tensor &t : g.initializers)
    graphInputs.insert(t.name);
  for (Out &o : outs) {
    std::string &name = o.name;
    if (!seen.insert(name).second || graphInputs.contains(name)) {
      onnx::Node n;
      n.opType = "Identity";
      n.inputs = {name};
      name = fresh(name + "_out");
      n.outputs = {name};
      g.nodes.push_back(std::move(n));
      seen.insert(name);
    }
  }
  for (const Out &o : outs) {
    onnx::ValueInfo info;
    info.name = o.name;
    ArrayAttr dimNames;
    if (auto r = dyn_cast_or_null<OpResult>(o.v))
      if (auto all = r.getOwner()->getAttrOfType<ArrayAttr>(kDimNamesAttr))
        if (r.getResultNumber() < all.size())
          dimNames = dyn_cast<ArrayAttr>(all[r.getResultNumber()]);
    info.type = typeInfo(cast<RankedTensorType>(o.type), dimNames);
    g.outputs.push_back(std::move(info));
  }
  return status;
}

//===----------------------------------------------------------------------===//
// ExportCall
//===----------------------------------------------------------------------===//

LogicalResult ExportCall::fail(const Twine &why) const {
  x.status = failure();
  InFlightDiagnostic d = b.op->emitError()
                         << "cannot export '" << target() << "' to ONNX: "
                         << why;
  if (FileLineColLoc loc = sourceLocation(b.op->getLoc()))
    d << " (called at " << loc.getFilename().getValue() << ":"
      << loc.getLine() << ")";
  return failure();
}

bool ExportCall::isTensor(StringRef name) const {
  Value v = b.value(name);
  return v && isa<RankedTensorType>(v.getType()) && x.names.count(v);
}

std::string ExportCall::tensor(StringRef name) const {
  Value v = b.value(name);
  if (!v)
    return "";
  auto it = x.names.find(v);
  return it == x.names.end() ? "" : it->second;
}

std::optional<SmallVector<std::string>>
ExportCall::tensors(StringRef name) const {
  auto list = dyn_cast_or_null<ArrayAttr>(b.slot(name));
  ArrayRef<Attribute> items;
  if (list)
    items = list.getValue();
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(b.slot(name)))
    items = tuple.getElements().getValue();
  else
    return std::nullopt;
  SmallVector<std::string> out;
  for (Attribute item : items) {
    auto marker = dyn_cast<OperandAttr>(item);
    if (!marker)
      return std::nullopt;
    Value v = b.operandOf(marker);
    auto it = x.names.find(v);
    if (it == x.names.end())
      return std::nullopt;
    out.push_back(it->second);
  }
  return out;
}

RankedTensorType ExportCall::tensorType(StringRef name) const {
  Value v = b.value(name);
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

Type ExportCall::elementType(StringRef name) const {
  RankedTensorType t = tensorType(name);
  return t ? t.getElementType() : Type();
}

Attribute ExportCall::value(StringRef name) const {
  return b.knownValue(name);
}

bool ExportCall::isNone(StringRef name) const {
  return isa_and_nonnull<NoneAttr>(value(name));
}

std::optional<int64_t> ExportCall::getInt(StringRef name) const {
  return getPyInt(value(name));
}

std::optional<double> ExportCall::getFloat(StringRef name) const {
  return getPyFloat(value(name));
}

std::optional<bool> ExportCall::getBool(StringRef name) const {
  return getPyBool(value(name));
}

std::optional<SmallVector<int64_t>> ExportCall::getInts(StringRef name,
                                                        unsigned size) const {
  return getPyInts(value(name), size);
}

const std::string &ExportCall::out(unsigned i) {
  return x.names[b.op->getResult(i)];
}

RankedTensorType ExportCall::resultType(unsigned i) const {
  return dyn_cast<RankedTensorType>(b.op->getResult(i).getType());
}

Type ExportCall::resultElement(unsigned i) const {
  RankedTensorType t = resultType(i);
  return t ? t.getElementType() : Type();
}

std::string ExportCall::node(StringRef opType, ArrayRef<std::string> inputs,
                             ArrayRef<OnnxAttr> attrs, StringRef output) {
  std::string name = output.empty() ? x.fresh(opType.lower()) : output.str();
  nodeN(opType, inputs, {name}, attrs);
  return name;
}

void ExportCall::nodeN(StringRef opType, ArrayRef<std::string> inputs,
                       ArrayRef<std::string> outputs,
                       ArrayRef<OnnxAttr> attrs) {
  onnx::Node n;
  n.opType = opType.str();
  n.inputs.assign(inputs.begin(), inputs.end());
  n.outputs.assign(outputs.begin(), outputs.end());
  n.attributes.assign(attrs.begin(), attrs.end());
  n.name = x.fresh("n_" + outputs.front());
  n.docString = x.doc;
  x.model.graph.nodes.push_back(std::move(n));
}

std::string ExportCall::cast(const std::string &v, Type from, Type to) {
  if (from == to)
    return v;
  return node("Cast", {v}, {attrInt("to", onnxDataType(to))});
}

std::string ExportCall::int64s(ArrayRef<int64_t> values) {
  std::string raw(values.size() * 8, '\0');
  std::memcpy(raw.data(), values.data(), raw.size());
  return x.addInitializer("c_i64", onnx::kInt64,
                          {static_cast<int64_t>(values.size())},
                          std::move(raw));
}

std::string ExportCall::scalar(double v, Type type) {
  int32_t dt = onnxDataType(type);
  std::string raw(onnx::dataTypeBytes(dt), '\0');
  auto put = [&](auto value) { std::memcpy(raw.data(), &value, raw.size()); };
  switch (dt) {
  case onnx::kFloat:
    put(static_cast<float>(v));
    break;
  case onnx::kDouble:
    put(v);
    break;
  case onnx::kFloat16:
  case onnx::kBFloat16: {
    APFloat f(v);
    bool lost;
    f.convert(dt == onnx::kFloat16 ? APFloat::IEEEhalf() : APFloat::BFloat(),
              APFloat::rmNearestTiesToEven, &lost);
    put(static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue()));
    break;
  }
  case onnx::kInt64:
    put(static_cast<int64_t>(v));
    break;
  case onnx::kInt32:
    put(static_cast<int32_t>(v));
    break;
  case onnx::kInt16:
    put(static_cast<int16_t>(v));
    break;
  case onnx::kInt8:
    put(static_cast<int8_t>(v));
    break;
  case onnx::kUInt8:
    put(static_cast<uint8_t>(v));
    break;
  case onnx::kBool:
    put(static_cast<uint8_t>(v != 0));
    break;
  default:
    break;
  }
  return x.addInitializer("c_scalar", dt, {}, std::move(raw));
}

std::string ExportCall::operand(StringRef name, Type type) {
  if (isTensor(name))
    return tensor(name);
  std::optional<double> v = getFloat(name);
  if (!v)
    return "";
  return scalar(*v, type);
}

FailureOr<std::string> ExportCall::reshapeToResult(const std::string &v,
                                                   unsigned i) {
  RankedTensorType type = resultType(i);
  if (!type)
    return fail("its result is not a ranked tensor");
  SmallVector<int64_t> shape(type.getShape());
  if (llvm::count_if(shape, ShapedType::isDynamic) > 1)
    return fail("its result has more than one dynamic dim, which the "
                "exporter cannot reshape to yet");
  for (int64_t &d : shape)
    if (ShapedType::isDynamic(d))
      d = -1;
  return node("Reshape", {v, int64s(shape)}, {}, out(i));
}

void ExportCall::setTuple(unsigned i, SmallVector<std::string> names) {
  x.tuples[b.op->getResult(i)] = std::move(names);
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

LogicalResult traced::exportOnnx(mlir::ModuleOp module, llvm::raw_ostream &os,
                                 const OnnxExportOptions &options) {
  if (options.opset < 13 || options.opset > 17)
    return module.emitError() << "cannot export to ONNX opset "
                              << options.opset
                              << ": TracedIR writes opsets 13 to 17";
  if (failed(mlir::verify(module)))
    return failure();
  // The export works on a flattened copy: the user's module is left as it
  // is (TracedModule's graphs, the submodule tree).
  OwningOpRef<mlir::ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  pm.addPass(createTracedFlatten());
  pm.addPass(createTracedNormalize());
  // Quantized tensors as their integers and quantized ops as integer and
  // float calls (the compilers' form; docs/onnx.md).
  // Integer math ONNX can express: not the CPU's int8 runtime entries.
  TracedLowerQuantizedOptions quantized;
  quantized.int8Kernels = false;
  pm.addPass(createTracedLowerQuantized(quantized));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTracedFoldConstants());
  pm.addPass(createTracedDCE());
  if (failed(pm.run(*copy)))
    return failure();
  traced::ModuleOp root;
  for (auto m : copy->getBody()->getOps<traced::ModuleOp>())
    if (m.getRoot())
      root = m;
  GraphOp forward = root ? root.getForward() : GraphOp();
  if (!forward)
    return module.emitError("cannot export to ONNX: the module has no root "
                            "traced.module with a forward graph");
  Exporter exporter(options, module.getContext());
  exporter.model.irVersion = 8;
  exporter.model.producerName = "TracedIR";
  exporter.model.producerVersion = "0.1";
  exporter.model.opsets.push_back({"", options.opset});
  if (failed(exporter.run(root, forward)))
    return failure();
  onnx::Model &model = exporter.model;
  // Weights in a file of their own, when asked for or needed.
  uint64_t total = 0;
  for (const onnx::Tensor &t : model.graph.initializers)
    total += t.raw.size();
  if (!options.externalDataFile.empty()) {
    llvm::SmallString<256> path(options.externalDataDir);
    llvm::sys::path::append(path, options.externalDataFile);
    std::error_code ec;
    llvm::raw_fd_ostream data(path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return module.emitError() << "cannot write the external data file '"
                                << path << "': " << ec.message();
    uint64_t offset = 0;
    for (onnx::Tensor &t : model.graph.initializers) {
      if (t.raw.size() < 1024)
        continue;
      // Offsets aligned to 64 bytes, as onnx's own writer does for mmap.
      uint64_t pad = (64 - offset % 64) % 64;
      data.write_zeros(pad);
      offset += pad;
      data.write(t.raw.data(), t.raw.size());
      t.external = true;
      t.location = options.externalDataFile;
      t.offset = static_cast<int64_t>(offset);
      t.length = static_cast<int64_t>(t.raw.size());
      offset += t.raw.size();
      t.raw.clear();
    }
  } else if (total >= (uint64_t(2) << 30)) {
    return module.emitError()
           << "cannot export to ONNX: the initializers take " << total
           << " bytes, past protobuf's 2 GiB; write them as external data "
              "(--onnx-external-data=FILE, or to_onnx(path) which does)";
  }
  std::string bytes = onnx::serializeModel(model);
  os.write(bytes.data(), bytes.size());
  return success();
}

void traced::printOnnxOpTables(llvm::raw_ostream &os) {
  os << "# ONNX op tables\n\n"
     << "Generated by `traced-translate --traced-onnx-doc`; do not edit. "
        "What `--export-onnx` / `Module.to_onnx` writes (by op-library "
        "target) and what `--import-onnx` / `traced.from_onnx` reads (by "
        "ONNX op type); docs/onnx.md says how.\n\n";
  std::vector<std::string> exported, imported;
  for (const auto &e : getEmitTable())
    exported.push_back(e.getKey().str());
  for (const auto &e : onnx_import::getImportTable())
    imported.push_back(e.getKey().str());
  llvm::sort(exported);
  llvm::sort(imported);
  os << "## Exported op-library targets (" << exported.size() << ")\n\n";
  for (const std::string &t : exported)
    os << "- `" << t << "`\n";
  os << "\n## Imported ONNX op types (" << imported.size() << ")\n\n";
  for (const std::string &t : imported)
    os << "- `" << t << "`\n";
}

void traced::registerOnnxTranslations(
    const std::function<void(DialectRegistry &)> &dialects) {
  static llvm::cl::opt<int64_t> opset(
      "onnx-opset",
      llvm::cl::desc("--export-onnx: the ONNX opset to write (13-17)"),
      llvm::cl::init(17));
  static llvm::cl::opt<std::string> externalData(
      "onnx-external-data",
      llvm::cl::desc("--export-onnx: write initializers of 1 KiB or more to "
                     "this file (relative to the current directory, named "
                     "so in the model)"),
      llvm::cl::init(""));
  static traced::TracedFromMLIRRegistration exportModel(
      "export-onnx",
      "write the root module's forward graph as an ONNX model "
      "(docs/onnx.md)",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<mlir::ModuleOp>(op);
        if (!module)
          return op->emitOpError("expected a builtin module to export");
        OnnxExportOptions options;
        options.opset = opset;
        options.externalDataFile = externalData;
        options.externalDataDir = ".";
        return exportOnnx(module, os, options);
      },
      dialects);
  static traced::TracedFromMLIRRegistration doc(
      "traced-onnx-doc",
      "print the ONNX export's and import's op tables as Markdown (the "
      "input is ignored)",
      [](Operation *, llvm::raw_ostream &os) {
        printOnnxOpTables(os);
        return success();
      },
      dialects);
  static TranslateToMLIRRegistration importModel(
      "import-onnx", "read an ONNX model as traced IR (docs/onnx.md)",
      TranslateRawSourceMgrToMLIRFunction(
          [](llvm::SourceMgr &sourceMgr,
             MLIRContext *ctx) -> OwningOpRef<Operation *> {
            const llvm::MemoryBuffer *input =
                sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
            StringRef fileName = input->getBufferIdentifier();
            return traced::importOnnx(input->getBuffer(), fileName,
                                      llvm::sys::path::parent_path(fileName),
                                      ctx);
          }),
      dialects);
}
