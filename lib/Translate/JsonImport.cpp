//===- JsonImport.cpp - JSON traces into traced IR ------------------------===//
//
// Reads the format of docs/trace-format.md: JNode trees from JsonScanner.h
// become traced.modules, every error located at the JSON element at fault.
//
//===----------------------------------------------------------------------===//

#include "JsonScanner.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "TracedIR/Support/Blobs.h"
#include "TracedIR/Support/DType.h"
#include "TracedIR/Support/Npy.h"
#include "TracedIR/Translate/JsonTrace.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(shape, os);
  os << ']';
  return s;
}

namespace {
class Importer;

/// Reads the fields of one JSON object and reports, at their position,
/// missing fields, fields of the wrong kind and unknown fields.
class FieldReader {
public:
  FieldReader(Importer &importer, const JNode &object, std::string what)
      : importer(importer), object(object), what(std::move(what)) {}

  /// The field `key` checked to be of `kind` (any kind when unset). Null when
  /// it is absent and optional; failure, reported, when it is missing or of
  /// another kind.
  FailureOr<const JNode *> get(StringRef key,
                               std::optional<JNode::Kind> kind = std::nullopt,
                               bool required = true);
  /// A required string field, and the node holding it.
  LogicalResult getString(StringRef key, StringRef &out,
                          const JNode **node = nullptr);
  /// Reports the first field nobody asked for.
  LogicalResult finish();

  void setWhat(std::string newWhat) { what = std::move(newWhat); }
  StringRef getWhat() const { return what; }

private:
  Importer &importer;
  const JNode &object;
  std::string what;
  llvm::StringSet<> used;
};

class Importer {
public:
  Importer(StringRef text, StringRef fileName, StringRef baseDir,
           MLIRContext *ctx)
      : ctx(ctx), text(text), fileName(fileName), baseDir(baseDir),
        builder(ctx) {
    lineStarts.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n')
        lineStarts.push_back(i + 1);
  }

  OwningOpRef<mlir::ModuleOp> run();

  Location loc(size_t offset) {
    offset = std::min(offset, text.size());
    auto line = llvm::upper_bound(lineStarts, offset) - 1;
    return FileLineColLoc::get(ctx, fileName, line - lineStarts.begin() + 1,
                               offset - *line + 1);
  }
  Location loc(const JNode &node) { return loc(node.offset); }
  InFlightDiagnostic error(size_t offset) {
    return mlir::emitError(loc(offset));
  }
  InFlightDiagnostic error(const JNode &node) { return error(node.offset); }

  /// Checks that `node` is of `kind`; `what` names it in the error.
  LogicalResult expect(const JNode &node, JNode::Kind kind, const Twine &what) {
    if (node.kind == kind)
      return success();
    return error(node) << "expected " << what << " to be " << describeKind(kind)
                       << ", got " << describeKind(node.kind);
  }

private:
  LogicalResult importDocument(const JNode &root, mlir::ModuleOp top);
  LogicalResult importAttribute(const JNode &node, StringRef moduleName);
  LogicalResult importGraph(const JNode &node, traced::ModuleOp module);
  LogicalResult importExpr(const JNode &node);
  FailureOr<Location> importSourceLocation(const JNode &node);

  FailureOr<Type> importType(const JNode &node);
  FailureOr<Type> importQParams(const JNode &node, Type dtype,
                                ArrayRef<int64_t> shape);
  FailureOr<RankedTensorType> importTensorType(FieldReader &reader,
                                               bool allowDynamic);
  /// A tensor's value (for a quantized one, its storage integers; its
  /// quantized type in `declared` when given).
  FailureOr<ElementsAttr> importTensorValue(const JNode &node,
                                            StringRef blobName,
                                            RankedTensorType *declared = nullptr);
  LogicalResult readNpy(const JNode &pathNode, RankedTensorType type,
                        std::vector<char> &data);
  FailureOr<Attribute> importPyValue(const JNode &node, const Twine &where,
                                     SmallVectorImpl<Value> *operands);
  LogicalResult importCallArguments(FieldReader &reader, StringRef what,
                                    SmallVectorImpl<Value> &operands,
                                    ArrayAttr &arguments, ArrayAttr &keywords);
  /// (`dimNames`, when given, gets each output's `"dim_names"` or null.)
  LogicalResult importOutputs(FieldReader &reader,
                              std::optional<unsigned> exactly,
                              SmallVectorImpl<Type> &types,
                              SmallVectorImpl<const JNode *> &names,
                              SmallVectorImpl<ArrayAttr> *dimNames = nullptr);
  /// Sets a call's `traced.dim_names` from its outputs' (when any has one).
  void setResultDimNames(Operation *op, ArrayRef<ArrayAttr> dimNames);
  LogicalResult defineOutputs(ArrayRef<const JNode *> names, Operation *op);
  /// Reads a `{"name": ..., "type": ...}` object (a graph input or an
  /// expr's output; `what` names it in errors).
  LogicalResult importNamedValue(const JNode &node, StringRef what,
                                 SmallVectorImpl<Type> &types,
                                 SmallVectorImpl<const JNode *> &names,
                                 SmallVectorImpl<ArrayAttr> *dimNames = nullptr);

  LogicalResult defineNode(const JNode &name, Value value);
  FailureOr<Value> lookupNode(const JNode &name, const Twine &where);

  MLIRContext *ctx;
  StringRef text, fileName, baseDir;
  OpBuilder builder;
  SmallVector<size_t> lineStarts;
  /// Module names, with the offset of their definition.
  llvm::StringMap<size_t> modules;
  /// The current graph's nodes, with the offset of their definition.
  llvm::StringMap<std::pair<Value, size_t>> nodes;
};
} // namespace

FailureOr<const JNode *> FieldReader::get(StringRef key,
                                          std::optional<JNode::Kind> kind,
                                          bool required) {
  used.insert(key);
  for (const JMember &member : object.members) {
    if (member.key != key)
      continue;
    if (kind && member.value.kind != *kind)
      return importer.error(member.value)
             << "field '" << key << "' of " << what << " must be "
             << describeKind(*kind) << ", got "
             << describeKind(member.value.kind);
    return &member.value;
  }
  if (!required)
    return static_cast<const JNode *>(nullptr);
  return importer.error(object) << "missing field '" << key << "' in " << what;
}

LogicalResult FieldReader::getString(StringRef key, StringRef &out,
                                     const JNode **node) {
  FailureOr<const JNode *> field = get(key, JNode::String);
  if (failed(field))
    return failure();
  out = (*field)->string;
  if (node)
    *node = *field;
  return success();
}

LogicalResult FieldReader::finish() {
  for (const JMember &member : object.members)
    if (!used.contains(member.key))
      return importer.error(member.keyOffset)
             << "unknown field '" << member.key << "' in " << what;
  return success();
}

OwningOpRef<mlir::ModuleOp> Importer::run() {
  ctx->loadDialect<TracedDialect>();
  JNode root;
  JsonError syntaxError;
  if (failed(parseJson(text, root, syntaxError))) {
    error(syntaxError.offset) << syntaxError.message;
    return {};
  }
  OwningOpRef<mlir::ModuleOp> top = mlir::ModuleOp::create(loc(root));
  if (failed(importDocument(root, *top)) || failed(mlir::verify(*top)))
    return {};
  // The parser puts calls of known targets into normalized form; the folder
  // does the same, so that an imported trace prints like its text form
  // parsed back (and exporting and importing again changes nothing).
  top->walk([](Operation *op) {
    if (isa<CallFunctionOp, CallMethodOp>(op)) {
      SmallVector<OpFoldResult> results;
      (void)op->fold(results);
    }
  });
  return top;
}

LogicalResult Importer::importDocument(const JNode &root, mlir::ModuleOp top) {
  if (failed(expect(root, JNode::Object, "a trace")))
    return failure();
  FieldReader reader(*this, root, "the trace");
  StringRef format, rootName;
  const JNode *formatNode, *rootNode = nullptr;
  if (failed(reader.getString("format", format, &formatNode)))
    return failure();
  if (format != "traced-trace")
    return error(*formatNode)
           << "unknown format '" << format << "'; expected \"traced-trace\"";
  FailureOr<const JNode *> version = reader.get("version", JNode::Integer);
  if (failed(version))
    return failure();
  if ((*version)->integer != 1)
    return error(**version) << "unsupported trace format version "
                            << (*version)->integer << "; this reader knows 1";
  FailureOr<const JNode *> rootField =
      reader.get("root", JNode::String, /*required=*/false);
  FailureOr<const JNode *> moduleList = reader.get("modules", JNode::Array);
  if (failed(rootField) || failed(moduleList) || failed(reader.finish()))
    return failure();
  if (*rootField) {
    rootNode = *rootField;
    rootName = rootNode->string;
  }

  // Create every module first, so that types and submodules may name
  // modules defined further down.
  struct Entry {
    traced::ModuleOp op;
    const JNode *attributes, *graphs;
  };
  SmallVector<Entry> entries;
  builder.setInsertionPointToEnd(top.getBody());
  for (const JNode &node : (*moduleList)->elements) {
    if (failed(expect(node, JNode::Object, "a module")))
      return failure();
    FieldReader mr(*this, node, "module");
    StringRef name, className;
    const JNode *nameNode;
    if (failed(mr.getString("name", name, &nameNode)))
      return failure();
    mr.setWhat(("module '" + name + "'").str());
    FailureOr<const JNode *> attributes =
        mr.get("attributes", JNode::Array, /*required=*/false);
    FailureOr<const JNode *> graphs =
        mr.get("graphs", JNode::Array, /*required=*/false);
    if (failed(mr.getString("class", className)) || failed(attributes) ||
        failed(graphs) || failed(mr.finish()))
      return failure();
    if (name.empty())
      return error(*nameNode) << "module names must not be empty";
    auto [it, inserted] = modules.try_emplace(name, nameNode->offset);
    if (!inserted) {
      InFlightDiagnostic diag = error(*nameNode)
                                << "duplicate module '" << name << "'";
      diag.attachNote(loc(it->second)) << "'" << name << "' first defined here";
      return diag;
    }
    auto op = traced::ModuleOp::create(builder, loc(node), name, className,
                                       /*root=*/rootNode && name == rootName);
    entries.push_back({op, *attributes, *graphs});
  }
  if (rootNode && !modules.contains(rootName))
    return error(*rootNode)
           << "the root '" << rootName << "' is not a module of the trace";

  for (Entry &entry : entries) {
    builder.setInsertionPointToEnd(&entry.op.getBody().front());
    if (entry.attributes)
      for (const JNode &attr : entry.attributes->elements)
        if (failed(importAttribute(attr, entry.op.getSymName())))
          return failure();
    if (entry.graphs)
      for (const JNode &graph : entry.graphs->elements)
        if (failed(importGraph(graph, entry.op)))
          return failure();
  }
  return success();
}

/// A blob name from module and attribute names, usable as a bare key in the
/// printed resource section.
static std::string getBlobName(StringRef module, StringRef attr) {
  std::string name = (module + "_" + attr).str();
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  if (llvm::isDigit(name[0]))
    name.insert(name.begin(), '_');
  return name;
}

LogicalResult Importer::importAttribute(const JNode &node,
                                        StringRef moduleName) {
  if (failed(expect(node, JNode::Object, "an attribute")))
    return failure();
  FieldReader reader(*this, node, "attribute");
  StringRef name, kind;
  const JNode *nameNode, *kindNode;
  if (failed(reader.getString("name", name, &nameNode)))
    return failure();
  if (name.empty())
    return error(*nameNode) << "attribute names must not be empty";
  reader.setWhat(("attribute '" + name + "'").str());
  if (failed(reader.getString("kind", kind, &kindNode)))
    return failure();
  Location location = loc(node);

  if (kind == "submodule") {
    StringRef target;
    const JNode *targetNode;
    if (failed(reader.getString("module", target, &targetNode)) ||
        failed(reader.finish()))
      return failure();
    if (!modules.contains(target))
      return error(*targetNode) << "unknown module '" << target << "'";
    SubmoduleOp::create(builder, location, name, target);
    return success();
  }
  if (kind == "parameter" || kind == "buffer") {
    FailureOr<const JNode *> tensor = reader.get("tensor", JNode::Object);
    if (failed(tensor) || failed(reader.finish()))
      return failure();
    RankedTensorType type;
    FailureOr<ElementsAttr> value =
        importTensorValue(**tensor, getBlobName(moduleName, name), &type);
    if (failed(value))
      return failure();
    if (kind == "parameter")
      ParameterOp::create(builder, location, name, type, *value);
    else
      BufferOp::create(builder, location, name, type, *value);
    return success();
  }
  if (kind == "attribute") {
    FailureOr<const JNode *> typeNode = reader.get("type");
    FailureOr<const JNode *> valueNode = reader.get("value");
    if (failed(typeNode) || failed(valueNode) || failed(reader.finish()))
      return failure();
    FailureOr<Type> type = importType(**typeNode);
    if (failed(type))
      return failure();
    FailureOr<Attribute> value = importPyValue(
        **valueNode, "the value of attribute '" + name + "'", nullptr);
    if (failed(value))
      return failure();
    AttributeOp::create(builder, location, name, *type, *value);
    return success();
  }
  return error(*kindNode) << "unknown attribute kind '" << kind
                          << "'; expected submodule, parameter, buffer or "
                             "attribute";
}

FailureOr<RankedTensorType> Importer::importTensorType(FieldReader &reader,
                                                       bool allowDynamic) {
  StringRef dtype;
  const JNode *dtypeNode;
  if (failed(reader.getString("dtype", dtype, &dtypeNode)))
    return failure();
  FailureOr<const JNode *> shapeNode = reader.get("shape", JNode::Array);
  if (failed(shapeNode))
    return failure();
  std::optional<DType> elementDType = dtypeFromName(dtype);
  Type quantizedDType = quantizedDTypeFromName(ctx, dtype);
  if (!elementDType && !quantizedDType)
    return error(*dtypeNode)
           << "unknown dtype '" << dtype << "'; expected " << dtypeNameList()
           << ", or quint8, qint8 or qint32 with \"qparams\"";
  FailureOr<const JNode *> qparams =
      reader.get("qparams", JNode::Object, /*required=*/false);
  if (failed(qparams))
    return failure();
  if (bool(*qparams) != bool(quantizedDType))
    return error(*qparams ? **qparams : *dtypeNode)
           << (*qparams ? "\"qparams\" belong to quantized dtypes (quint8, "
                          "qint8, qint32) only"
                        : "a quantized dtype needs \"qparams\"");
  SmallVector<int64_t> shape;
  for (const JNode &dim : (*shapeNode)->elements) {
    if (failed(expect(dim, JNode::Integer, "a dimension")))
      return failure();
    if (dim.integer == -1 && allowDynamic) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    if (dim.integer < 0)
      return error(dim) << "invalid dimension " << dim.integer
                        << (allowDynamic ? "; expected a size, or -1 for a "
                                           "dynamic one"
                                         : "; tensor data needs a static "
                                           "shape");
    shape.push_back(dim.integer);
  }
  if (!quantizedDType)
    return RankedTensorType::get(shape, typeFromDType(ctx, *elementDType));
  FailureOr<Type> element = importQParams(**qparams, quantizedDType, shape);
  if (failed(element))
    return failure();
  return RankedTensorType::get(shape, *element);
}

/// A quantized element type from "qparams": {"scale", "zero_point"} per
/// tensor, or {"scales", "zero_points", "axis"} per channel, of torch
/// dtype `dtype` (a `!quant.any` type), checked as torch checks them.
FailureOr<Type> Importer::importQParams(const JNode &node, Type dtype,
                                        ArrayRef<int64_t> shape) {
  FieldReader reader(*this, node, "qparams");
  FailureOr<const JNode *> scale =
      reader.get("scale", std::nullopt, /*required=*/false);
  FailureOr<const JNode *> scales =
      reader.get("scales", JNode::Array, /*required=*/false);
  if (failed(scale) || failed(scales))
    return failure();
  if (bool(*scale) == bool(*scales))
    return error(node) << "qparams need either \"scale\" and "
                          "\"zero_point\" or \"scales\", \"zero_points\" "
                          "and \"axis\"";
  auto emit = [&]() { return error(node); };
  auto number = [](const JNode &n) {
    return n.kind == JNode::Integer ? double(n.integer) : n.number;
  };
  auto isNumber = [&](const JNode &n, StringRef what) -> LogicalResult {
    if (n.kind == JNode::Integer || n.kind == JNode::Float)
      return success();
    return error(n) << "expected " << what << " (a number), got "
                    << describeKind(n.kind);
  };
  if (*scale) {
    if (failed(isNumber(**scale, "a scale")))
      return failure();
    FailureOr<const JNode *> zp = reader.get("zero_point", JNode::Integer);
    if (failed(zp) || failed(reader.finish()))
      return failure();
    Type t = uniformQuantizedType(dtype, number(**scale), (*zp)->integer,
                                  emit);
    if (!t)
      return failure();
    return t;
  }
  FailureOr<const JNode *> zps = reader.get("zero_points", JNode::Array);
  FailureOr<const JNode *> axis = reader.get("axis", JNode::Integer);
  if (failed(zps) || failed(axis) || failed(reader.finish()))
    return failure();
  int64_t a = (*axis)->integer;
  if (a < 0 || a >= int64_t(shape.size()))
    return error(**axis) << "axis " << a << " is out of range for a tensor of "
                         << shape.size() << " dimensions";
  size_t n = (*scales)->elements.size();
  if ((*zps)->elements.size() != n ||
      (!ShapedType::isDynamic(shape[a]) && int64_t(n) != shape[a]))
    return error(node) << "expects one scale and one zero point per index "
                          "along axis "
                       << a << " (" << shape[a] << "), got " << n << " and "
                       << (*zps)->elements.size();
  SmallVector<double> s;
  SmallVector<int64_t> z;
  for (auto [sn, zn] : llvm::zip((*scales)->elements, (*zps)->elements)) {
    if (failed(isNumber(sn, "a scale")) ||
        failed(expect(zn, JNode::Integer, "a zero point")))
      return failure();
    if (!uniformQuantizedType(dtype, number(sn), zn.integer,
                              [&]() { return error(sn); }))
      return failure();
    s.push_back(number(sn));
    z.push_back(zn.integer);
  }
  auto q = cast<quant::QuantizedType>(dtype);
  return Type(quant::UniformQuantizedPerAxisType::get(
      q.getFlags(), q.getStorageType(), q.getExpressedType(), s, z, int32_t(a),
      q.getStorageTypeMin(), q.getStorageTypeMax()));
}

FailureOr<Type> Importer::importType(const JNode &node) {
  static constexpr const char *expected =
      "expected int, float, bool, str, none, object, {\"tensor\": ...}, "
      "{\"list\": ...}, {\"tuple\": [...]} or {\"module\": ...}";
  if (node.kind == JNode::String) {
    Builder b(ctx);
    Type type = llvm::StringSwitch<Type>(node.string)
                    .Case("int", b.getI64Type())
                    .Case("float", b.getF64Type())
                    .Case("bool", b.getI1Type())
                    .Case("str", StrType::get(ctx))
                    .Case("none", traced::NoneType::get(ctx))
                    .Case("object", ObjectType::get(ctx))
                    .Default(Type());
    if (!type)
      return error(node) << "unknown type '" << node.string << "'; "
                         << expected;
    return type;
  }
  const JMember *member = node.single();
  if (!member)
    return error(node) << "expected a type, got " << describeKind(node.kind)
                       << "; " << expected;
  const JNode &value = member->value;
  if (member->key == "tensor") {
    if (failed(expect(value, JNode::Object, "a tensor type")))
      return failure();
    FieldReader reader(*this, value, "tensor type");
    FailureOr<RankedTensorType> type =
        importTensorType(reader, /*allowDynamic=*/true);
    if (failed(type) || failed(reader.finish()))
      return failure();
    return Type(*type);
  }
  if (member->key == "list") {
    FailureOr<Type> element = importType(value);
    if (failed(element))
      return failure();
    return Type(ListType::get(ctx, *element));
  }
  if (member->key == "tuple") {
    if (failed(expect(value, JNode::Array, "a tuple type")))
      return failure();
    SmallVector<Type> types;
    for (const JNode &e : value.elements) {
      FailureOr<Type> type = importType(e);
      if (failed(type))
        return failure();
      types.push_back(*type);
    }
    return Type(TupleType::get(ctx, types));
  }
  if (member->key == "module") {
    if (failed(expect(value, JNode::String, "a module type")))
      return failure();
    if (!modules.contains(value.string))
      return error(value) << "unknown module '" << value.string << "'";
    return Type(
        ModuleType::get(ctx, FlatSymbolRefAttr::get(ctx, value.string)));
  }
  return error(member->keyOffset)
         << "unknown type {\"" << member->key << "\": ...}; " << expected;
}

LogicalResult Importer::readNpy(const JNode &pathNode, RankedTensorType type,
                                std::vector<char> &data) {
  SmallString<256> path(pathNode.string);
  if (!llvm::sys::path::is_absolute(path)) {
    path = baseDir;
    llvm::sys::path::append(path, pathNode.string);
  }
  std::string message;
  FailureOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      traced::readNpyFile(path, message);
  if (failed(file))
    return error(pathNode) << "npy file: " << message;
  FailureOr<NpyArray> array = parseNpy((*file)->getBuffer(), message);
  if (failed(array))
    return error(pathNode) << "npy file '" << pathNode.string << "' "
                           << message;
  DType declared = *dtypeFromType(type.getElementType());
  if (array->dtype != declared)
    return error(pathNode) << "npy file '" << pathNode.string << "' holds "
                           << dtypeName(array->dtype)
                           << " data, but the tensor declares "
                           << dtypeName(declared);
  if (ArrayRef<int64_t>(array->shape) != type.getShape())
    return error(pathNode) << "npy file '" << pathNode.string << "' has shape "
                           << formatShape(array->shape)
                           << ", but the tensor declares shape "
                           << formatShape(type.getShape());
  data.assign(array->data.begin(), array->data.end());
  return success();
}

FailureOr<ElementsAttr>
Importer::importTensorValue(const JNode &node, StringRef blobName,
                            RankedTensorType *declared) {
  if (failed(expect(node, JNode::Object, "a tensor")))
    return failure();
  FieldReader reader(*this, node, "tensor");
  FailureOr<RankedTensorType> type =
      importTensorType(reader, /*allowDynamic=*/false);
  if (failed(type))
    return failure();
  FailureOr<const JNode *> base64 =
      reader.get("base64", JNode::String, /*required=*/false);
  FailureOr<const JNode *> npy =
      reader.get("npy", JNode::String, /*required=*/false);
  if (failed(base64) || failed(npy) || failed(reader.finish()))
    return failure();
  if (!*base64 == !*npy)
    return error(node) << "tensor data needs exactly one of 'base64' and "
                          "'npy'";

  // A quantized tensor's data are its storage integers; the declaration
  // keeps the quantized type (`declared`).
  if (declared)
    *declared = *type;
  type = cast<RankedTensorType>(quantStorageType(*type));
  Type elementType = type->getElementType();
  unsigned elementBytes = rawElementBytes(*dtypeFromType(elementType));
  // Shapes come from the file: compute the size without overflowing.
  int64_t expected = elementBytes;
  for (int64_t dim : type->getShape())
    if (llvm::MulOverflow(expected, dim, expected))
      return error(node) << "tensor of shape " << formatShape(type->getShape())
                         << " is too large";

  std::vector<char> data;
  const JNode *dataNode = *base64 ? *base64 : *npy;
  if (*base64) {
    if (llvm::Error err = llvm::decodeBase64(dataNode->string, data))
      return error(*dataNode)
             << "invalid base64 data: " << llvm::toString(std::move(err));
  } else if (failed(readNpy(*dataNode, *type, data))) {
    return failure();
  }
  if (data.size() != static_cast<uint64_t>(expected))
    return error(*dataNode)
           << "tensor data holds " << data.size() << " bytes, but " << *type
           << " needs " << expected << " (" << elementBytes
           << " per element, row-major)";
  if (elementType.isInteger(1) &&
      llvm::any_of(data, [](char c) { return c != 0 && c != 1; }))
    return error(*dataNode) << "bool tensor data must hold only the bytes 0 "
                               "and 1";

  if (blobName.empty()) {
    // Constants are small: keep them inline, where they print readably.
    if (elementType.isInteger(1)) {
      SmallVector<bool> bools(data.begin(), data.end());
      return ElementsAttr(DenseElementsAttr::get(*type, bools));
    }
    return ElementsAttr(DenseElementsAttr::getFromRawBuffer(*type, data));
  }
  // Weights become blobs aligned for their element type, so that consumers
  // can use them in place.
  AsmResourceBlob blob = copyToBlob(data, std::max(elementBytes, 1u));
  return ElementsAttr(
      DenseResourceElementsAttr::get(*type, blobName, std::move(blob)));
}

FailureOr<Attribute> Importer::importPyValue(const JNode &node,
                                             const Twine &where,
                                             SmallVectorImpl<Value> *operands) {
  Builder b(ctx);
  switch (node.kind) {
  case JNode::Null:
    return Attribute(traced::NoneAttr::get(ctx));
  case JNode::Bool:
    return Attribute(b.getBoolAttr(node.boolean));
  case JNode::Integer:
    return Attribute(b.getI64IntegerAttr(node.integer));
  case JNode::Float:
    return Attribute(b.getF64FloatAttr(node.number));
  case JNode::String:
    return Attribute(b.getStringAttr(node.string));
  case JNode::Array: {
    SmallVector<Attribute> elements;
    for (const JNode &e : node.elements) {
      FailureOr<Attribute> value = importPyValue(e, where, operands);
      if (failed(value))
        return failure();
      elements.push_back(*value);
    }
    return Attribute(b.getArrayAttr(elements));
  }
  case JNode::Object:
    break;
  }
  static constexpr const char *expected =
      "expected {\"tuple\": [...]}, {\"slice\": [start, stop, step]}, "
      "{\"ellipsis\": true}, {\"dtype\": ...}, {\"object\": ...}, "
      "{\"float\": ...} or {\"node\": ...}";
  const JMember *member = node.single();
  if (!member)
    return error(node) << "expected a Python value in " << where
                       << ", got an object with " << node.members.size()
                       << " fields; " << expected;
  const JNode &value = member->value;
  StringRef key = member->key;
  auto sequence = [&]() -> FailureOr<SmallVector<Attribute>> {
    if (failed(expect(value, JNode::Array, "a " + key)))
      return failure();
    SmallVector<Attribute> elements;
    for (const JNode &e : value.elements) {
      FailureOr<Attribute> element = importPyValue(e, where, operands);
      if (failed(element))
        return failure();
      elements.push_back(*element);
    }
    return elements;
  };
  if (key == "tuple") {
    FailureOr<SmallVector<Attribute>> elements = sequence();
    if (failed(elements))
      return failure();
    return Attribute(TupleAttr::get(ctx, b.getArrayAttr(*elements)));
  }
  if (key == "slice") {
    FailureOr<SmallVector<Attribute>> parts = sequence();
    if (failed(parts))
      return failure();
    if (parts->size() != 3)
      return error(value) << "a slice has 3 parts [start, stop, step], got "
                          << parts->size();
    return Attribute(
        SliceAttr::get(ctx, (*parts)[0], (*parts)[1], (*parts)[2]));
  }
  if (key == "ellipsis") {
    if (value.kind != JNode::Bool || !value.boolean)
      return error(value) << "expected {\"ellipsis\": true}";
    return Attribute(EllipsisAttr::get(ctx));
  }
  if (key == "dtype") {
    if (failed(expect(value, JNode::String, "a dtype")))
      return failure();
    if (Type q = quantizedDTypeFromName(ctx, value.string))
      return Attribute(DTypeAttr::get(ctx, q));
    std::optional<DType> dtype = dtypeFromName(value.string);
    if (!dtype)
      return error(value) << "unknown dtype '" << value.string << "'; expected "
                          << dtypeNameList();
    return Attribute(DTypeAttr::get(ctx, typeFromDType(ctx, *dtype)));
  }
  if (key == "object") {
    if (failed(expect(value, JNode::String, "an object's repr")))
      return failure();
    return Attribute(ObjectAttr::get(ctx, value.string));
  }
  if (key == "float") {
    double special;
    if (value.kind == JNode::String && value.string == "inf")
      special = INFINITY;
    else if (value.kind == JNode::String && value.string == "-inf")
      special = -INFINITY;
    else if (value.kind == JNode::String && value.string == "nan")
      special = NAN;
    else
      return error(value) << "expected {\"float\": \"inf\" | \"-inf\" | "
                             "\"nan\"}";
    return Attribute(b.getF64FloatAttr(special));
  }
  if (key == "node") {
    if (!operands)
      return error(node) << "a node reference cannot appear in " << where
                         << "; nodes are only allowed in call arguments";
    FailureOr<Value> operand = lookupNode(value, where);
    if (failed(operand))
      return failure();
    operands->push_back(*operand);
    return Attribute(OperandAttr::get(ctx, operands->size() - 1));
  }
  return error(member->keyOffset)
         << "unknown Python value {\"" << key << "\": ...} in " << where << "; "
         << expected;
}

LogicalResult Importer::defineNode(const JNode &name, Value value) {
  if (name.string.empty())
    return error(name) << "node names must not be empty";
  auto [it, inserted] =
      nodes.try_emplace(name.string, std::make_pair(value, name.offset));
  if (inserted)
    return success();
  InFlightDiagnostic diag = error(name)
                            << "duplicate node name '" << name.string << "'";
  diag.attachNote(loc(it->second.second))
      << "'" << name.string << "' first defined here";
  return diag;
}

FailureOr<Value> Importer::lookupNode(const JNode &name, const Twine &where) {
  if (name.kind != JNode::String)
    return error(name) << "expected a node name (a string) in " << where
                       << ", got " << describeKind(name.kind);
  auto it = nodes.find(name.string);
  if (it == nodes.end())
    return error(name) << "unknown node '" << name.string << "' in " << where;
  return it->second.first;
}

LogicalResult Importer::importGraph(const JNode &node,
                                    traced::ModuleOp module) {
  if (failed(expect(node, JNode::Object, "a graph")))
    return failure();
  FieldReader reader(*this, node, "graph");
  StringRef name;
  const JNode *nameNode;
  if (failed(reader.getString("name", name, &nameNode)))
    return failure();
  if (name.empty())
    return error(*nameNode) << "graph names must not be empty";
  reader.setWhat(("graph '" + name + "'").str());
  FailureOr<const JNode *> inputs = reader.get("inputs", JNode::Array);
  FailureOr<const JNode *> exprs = reader.get("exprs", JNode::Array);
  FailureOr<const JNode *> outputs = reader.get("outputs", JNode::Array);
  if (failed(inputs) || failed(exprs) || failed(outputs) ||
      failed(reader.finish()))
    return failure();

  SmallVector<Type> inputTypes;
  SmallVector<const JNode *> inputNames;
  SmallVector<ArrayAttr> dimNames;
  for (const JNode &input : (*inputs)->elements)
    if (failed(importNamedValue(input, "graph input", inputTypes, inputNames,
                                &dimNames)))
      return failure();
  SmallVector<StringRef> argNames = llvm::to_vector(llvm::map_range(
      inputNames, [](const JNode *n) { return StringRef(n->string); }));
  auto graph =
      GraphOp::create(builder, loc(node), name,
                      builder.getFunctionType(inputTypes, {}), argNames);

  for (auto [i, names] : llvm::enumerate(dimNames))
    if (names)
      graph.setArgAttr(i, kDimNamesAttr, names);
  nodes.clear();
  for (auto [i, nameNode] : llvm::enumerate(inputNames))
    if (failed(defineNode(*nameNode, graph.getArgument(i))))
      return failure();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&graph.getBody().front());
  for (const JNode &expr : (*exprs)->elements)
    if (failed(importExpr(expr)))
      return failure();

  SmallVector<Value> results;
  for (const JNode &output : (*outputs)->elements) {
    FailureOr<Value> value =
        lookupNode(output, "the outputs of graph '" + name + "'");
    if (failed(value))
      return failure();
    results.push_back(*value);
  }
  OutputOp::create(builder, loc(**outputs), results);
  graph.setFunctionTypeAttr(TypeAttr::get(
      builder.getFunctionType(inputTypes, ValueRange(results).getTypes())));
  return success();
}

void Importer::setResultDimNames(Operation *op, ArrayRef<ArrayAttr> dimNames) {
  if (llvm::none_of(dimNames, [](ArrayAttr a) { return bool(a); }))
    return;
  SmallVector<Attribute> perResult;
  for (ArrayAttr a : dimNames)
    perResult.push_back(a ? a : builder.getStrArrayAttr({}));
  op->setAttr(kDimNamesAttr, builder.getArrayAttr(perResult));
}

LogicalResult Importer::importOutputs(FieldReader &reader,
                                      std::optional<unsigned> exactly,
                                      SmallVectorImpl<Type> &types,
                                      SmallVectorImpl<const JNode *> &names,
                                      SmallVectorImpl<ArrayAttr> *dimNames) {
  FailureOr<const JNode *> outputs = reader.get("outputs", JNode::Array);
  if (failed(outputs))
    return failure();
  if (exactly && (*outputs)->elements.size() != *exactly)
    return error(**outputs)
           << "a " << reader.getWhat() << " has exactly " << *exactly
           << " output, got " << (*outputs)->elements.size();
  for (const JNode &output : (*outputs)->elements)
    if (failed(importNamedValue(output, "output", types, names, dimNames)))
      return failure();
  return success();
}

LogicalResult
Importer::importNamedValue(const JNode &node, StringRef what,
                           SmallVectorImpl<Type> &types,
                           SmallVectorImpl<const JNode *> &names,
                           SmallVectorImpl<ArrayAttr> *dimNames) {
  std::string article = what == "output" ? "an " : "a ";
  if (failed(expect(node, JNode::Object, article + what.str())))
    return failure();
  FieldReader reader(*this, node, what.str());
  const JNode *nameNode;
  StringRef name;
  FailureOr<const JNode *> typeNode = reader.get("type");
  // A graph input's names of its dynamic dims (traced.dim_names).
  FailureOr<const JNode *> dimsNode =
      dimNames ? reader.get("dim_names", JNode::Array, /*required=*/false)
               : FailureOr<const JNode *>(nullptr);
  if (failed(reader.getString("name", name, &nameNode)) || failed(typeNode) ||
      failed(dimsNode) || failed(reader.finish()))
    return failure();
  FailureOr<Type> type = importType(**typeNode);
  if (failed(type))
    return failure();
  if (dimNames) {
    ArrayAttr attr;
    if (*dimsNode) {
      SmallVector<StringRef> strings;
      for (const JNode &e : (*dimsNode)->elements) {
        if (failed(expect(e, JNode::String, "a dim name (string)")))
          return failure();
        strings.push_back(e.string);
      }
      attr = builder.getStrArrayAttr(strings);
    }
    dimNames->push_back(attr);
  }
  types.push_back(*type);
  names.push_back(nameNode);
  return success();
}

LogicalResult Importer::defineOutputs(ArrayRef<const JNode *> names,
                                      Operation *op) {
  for (auto [name, result] : llvm::zip(names, op->getResults()))
    if (failed(defineNode(*name, result)))
      return failure();
  return success();
}

LogicalResult Importer::importCallArguments(FieldReader &reader, StringRef what,
                                            SmallVectorImpl<Value> &operands,
                                            ArrayAttr &arguments,
                                            ArrayAttr &keywords) {
  FailureOr<const JNode *> args =
      reader.get("args", JNode::Array, /*required=*/false);
  FailureOr<const JNode *> kwargs =
      reader.get("kwargs", JNode::Object, /*required=*/false);
  if (failed(args) || failed(kwargs))
    return failure();
  // Positional arguments first, then keywords in file order; operand
  // markers number the operands depth-first in that same order.
  SmallVector<Attribute> values;
  SmallVector<StringRef> names;
  if (*args)
    for (auto [i, arg] : llvm::enumerate((*args)->elements)) {
      FailureOr<Attribute> value = importPyValue(
          arg, "argument " + Twine(i + 1) + " of " + what, &operands);
      if (failed(value))
        return failure();
      values.push_back(*value);
    }
  if (*kwargs)
    for (const JMember &kwarg : (*kwargs)->members) {
      StringRef key = kwarg.key;
      if (key.empty() || llvm::isDigit(key.front()) ||
          !llvm::all_of(key,
                        [](char c) { return llvm::isAlnum(c) || c == '_'; }))
        return error(kwarg.keyOffset) << "keyword argument name '" << key
                                      << "' is not a Python identifier";
      FailureOr<Attribute> value = importPyValue(
          kwarg.value, "keyword argument '" + key + "' of " + what, &operands);
      if (failed(value))
        return failure();
      values.push_back(*value);
      names.push_back(key);
    }
  arguments = builder.getArrayAttr(values);
  // Like the parser: no `keywords` attribute for a call without keywords.
  keywords = names.empty() ? ArrayAttr() : builder.getStrArrayAttr(names);
  return success();
}

LogicalResult Importer::importExpr(const JNode &node) {
  if (failed(expect(node, JNode::Object, "an expr")))
    return failure();
  FieldReader reader(*this, node, "expr");
  StringRef kind;
  const JNode *kindNode;
  if (failed(reader.getString("kind", kind, &kindNode)))
    return failure();
  if (kind != "Constant" && kind != "GetAttr" && kind != "CallMethod" &&
      kind != "CallFunction")
    return error(*kindNode) << "unknown expr kind '" << kind
                            << "'; expected Constant, GetAttr, CallMethod or "
                               "CallFunction";
  reader.setWhat((kind + " expr").str());
  Location location = loc(node);
  FailureOr<const JNode *> sourceLoc =
      reader.get("loc", JNode::Object, /*required=*/false);
  if (failed(sourceLoc))
    return failure();
  if (*sourceLoc) {
    FailureOr<Location> user = importSourceLocation(**sourceLoc);
    if (failed(user))
      return failure();
    location = *user;
  }
  SmallVector<Type> types;
  SmallVector<const JNode *> names;
  SmallVector<ArrayAttr> dimNames; // a call's outputs' (traced.dim_names)
  Operation *op;

  if (kind == "Constant") {
    FailureOr<const JNode *> valueNode = reader.get("value");
    if (failed(valueNode) || failed(importOutputs(reader, 1, types, names)) ||
        failed(reader.finish()))
      return failure();
    FailureOr<Attribute> value = failure();
    const JMember *tensor = (*valueNode)->single();
    if (tensor && tensor->key == "tensor")
      value = importTensorValue(tensor->value, /*blobName=*/"");
    else
      value = importPyValue(**valueNode,
                            "the value of Constant '" + names[0]->string + "'",
                            nullptr);
    if (failed(value))
      return failure();
    op = ConstantOp::create(builder, location, types[0], *value);
  } else if (kind == "GetAttr") {
    StringRef name;
    FailureOr<const JNode *> self = reader.get("self");
    if (failed(self) || failed(reader.getString("name", name)) ||
        failed(importOutputs(reader, 1, types, names)) ||
        failed(reader.finish()))
      return failure();
    FailureOr<Value> receiver =
        lookupNode(**self, "field 'self' of GetAttr \"" + name + "\"");
    if (failed(receiver))
      return failure();
    op = GetAttrOp::create(builder, location, types[0], *receiver, name);
  } else if (kind == "CallMethod") {
    StringRef method;
    FailureOr<const JNode *> self = reader.get("self");
    if (failed(self) || failed(reader.getString("method", method)))
      return failure();
    std::string what = ("CallMethod \"" + method + "\"").str();
    FailureOr<Value> receiver = lookupNode(**self, "field 'self' of " + what);
    if (failed(receiver))
      return failure();
    SmallVector<Value> operands;
    ArrayAttr arguments, keywords;
    if (failed(
            importCallArguments(reader, what, operands, arguments, keywords)) ||
        failed(importOutputs(reader, std::nullopt, types, names, &dimNames)) ||
        failed(reader.finish()))
      return failure();
    op = CallMethodOp::create(builder, location, types, *receiver,
                              builder.getStringAttr(method), operands,
                              arguments, keywords);
    setResultDimNames(op, dimNames);
  } else {
    StringRef func;
    if (failed(reader.getString("func", func)))
      return failure();
    std::string what = ("CallFunction \"" + func + "\"").str();
    SmallVector<Value> operands;
    ArrayAttr arguments, keywords;
    if (failed(
            importCallArguments(reader, what, operands, arguments, keywords)) ||
        failed(importOutputs(reader, std::nullopt, types, names, &dimNames)) ||
        failed(reader.finish()))
      return failure();
    op = CallFunctionOp::create(builder, location, types,
                                builder.getStringAttr(func), operands,
                                arguments, keywords);
    setResultDimNames(op, dimNames);
  }
  return defineOutputs(names, op);
}

/// An expr's `"loc": {"file", "line", "col", "scope"}`: the user's source
/// position, inside a NameLoc of the module path when there is a scope.
FailureOr<Location> Importer::importSourceLocation(const JNode &node) {
  FieldReader reader(*this, node, "the expr's loc");
  StringRef file;
  if (failed(reader.getString("file", file)))
    return failure();
  unsigned position[2] = {0, 0};
  const char *keys[2] = {"line", "col"};
  for (unsigned i = 0; i < 2; ++i) {
    FailureOr<const JNode *> n = reader.get(keys[i], JNode::Integer);
    if (failed(n))
      return failure();
    int64_t v = (*n)->integer;
    if (v < 0 || v > 0xffffffffll)
      return error(**n) << "expected '" << keys[i]
                        << "' of the expr's loc to be a non-negative 32-bit "
                           "integer, got "
                        << v;
    position[i] = static_cast<unsigned>(v);
  }
  FailureOr<const JNode *> scopeNode =
      reader.get("scope", JNode::String, /*required=*/false);
  if (failed(scopeNode) || failed(reader.finish()))
    return failure();
  Location loc = FileLineColLoc::get(ctx, file, position[0], position[1]);
  if (*scopeNode)
    loc = NameLoc::get(StringAttr::get(ctx, (*scopeNode)->string), loc);
  return loc;
}

OwningOpRef<mlir::ModuleOp> traced::importTrace(StringRef json,
                                                StringRef fileName,
                                                StringRef baseDir,
                                                MLIRContext *ctx) {
  return Importer(json, fileName, baseDir, ctx).run();
}
