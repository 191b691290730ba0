//===- JsonTrace.cpp - the JSON trace interchange format ------------------===//
//
// Reads and writes the format of docs/trace-format.md.
//
// llvm::json::Value forgets where a value was written and the order of an
// object's members, and both matter here: every error points into the file,
// and keyword arguments keep their order. So llvm::json::parse validates the
// text (its syntax errors become located diagnostics), and a small scanner
// then builds JNode trees that keep offsets and member order, with strings
// decoded by llvm::json.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Translate/JsonTrace.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>

using namespace mlir;
using namespace mlir::traced;
namespace json = llvm::json;

/// Nesting deeper than this is refused before anything recurses over it, so
/// that hostile input cannot exhaust the stack.
static constexpr unsigned kMaxDepth = 256;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

static constexpr const char *kDTypeList =
    "float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8 "
    "or bool";

/// The builtin element type a trace dtype names, or null.
static Type parseDType(MLIRContext *ctx, StringRef name) {
  Builder b(ctx);
  if (name == "float32")
    return b.getF32Type();
  if (name == "float64")
    return b.getF64Type();
  if (name == "float16")
    return b.getF16Type();
  if (name == "bfloat16")
    return b.getBF16Type();
  if (name == "int64")
    return b.getI64Type();
  if (name == "int32")
    return b.getI32Type();
  if (name == "int16")
    return b.getI16Type();
  if (name == "int8")
    return b.getI8Type();
  if (name == "uint8")
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  if (name == "bool")
    return b.getI1Type();
  return {};
}

/// The trace dtype of an element type, or "" when the format has none.
static StringRef getDTypeName(Type type) {
  if (type.isF32())
    return "float32";
  if (type.isF64())
    return "float64";
  if (type.isF16())
    return "float16";
  if (type.isBF16())
    return "bfloat16";
  if (type.isUnsignedInteger(8))
    return "uint8";
  if (type.isSignlessInteger(64))
    return "int64";
  if (type.isSignlessInteger(32))
    return "int32";
  if (type.isSignlessInteger(16))
    return "int16";
  if (type.isSignlessInteger(8))
    return "int8";
  if (type.isSignlessInteger(1))
    return "bool";
  return "";
}

/// Bytes per element of weights data: a bool takes a byte, as in NumPy (and
/// in dense_resource blobs), not a bit as in DenseElementsAttr's storage.
static unsigned getElementBytes(Type type) {
  return type.isInteger(1) ? 1 : type.getIntOrFloatBitWidth() / 8;
}

//===----------------------------------------------------------------------===//
// JNode: JSON with positions and member order
//===----------------------------------------------------------------------===//

namespace {
struct JMember;

/// A JSON value as written: its kind, the offset where it starts, and an
/// object's members in file order.
struct JNode {
  enum Kind { Null, Bool, Integer, Float, String, Array, Object };
  Kind kind = Null;
  size_t offset = 0;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::string string;
  std::vector<JNode> elements;
  std::vector<JMember> members;

  /// The single member of an object such as {"tuple": [...]}, or null.
  const JMember *single() const {
    return kind == Object && members.size() == 1 ? &members.front() : nullptr;
  }
};

struct JMember {
  std::string key;
  size_t keyOffset = 0;
  JNode value;
};
} // namespace

static StringRef describeKind(JNode::Kind kind) {
  switch (kind) {
  case JNode::Null:
    return "null";
  case JNode::Bool:
    return "a boolean";
  case JNode::Integer:
    return "an integer";
  case JNode::Float:
    return "a number";
  case JNode::String:
    return "a string";
  case JNode::Array:
    return "an array";
  case JNode::Object:
    return "an object";
  }
  return "a value";
}

namespace {
/// Builds JNodes from text that llvm::json::parse accepted; it still checks
/// everything it relies on, and reports what llvm::json lets through:
/// duplicate keys and numbers that do not fit their C++ type.
class JsonScanner {
public:
  explicit JsonScanner(StringRef text) : text(text) {}

  LogicalResult scan(JNode &root) {
    if (failed(scanValue(root, 0)))
      return failure();
    skipSpace();
    if (pos != text.size())
      return fail(pos, "text after the end of the JSON document");
    return success();
  }

  size_t errorOffset = 0;
  std::string errorMessage;

private:
  LogicalResult fail(size_t at, const Twine &message) {
    errorOffset = at;
    errorMessage = message.str();
    return failure();
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  LogicalResult scanString(std::string &out) {
    size_t start = pos;
    if (pos >= text.size() || text[pos] != '"')
      return fail(pos, "expected a string");
    ++pos;
    while (pos < text.size() && text[pos] != '"')
      pos += text[pos] == '\\' ? 2 : 1;
    if (pos >= text.size())
      return fail(start, "unterminated string");
    ++pos;
    // llvm::json knows the escapes and UTF-16 surrogates; reuse it.
    llvm::Expected<json::Value> value = json::parse(text.slice(start, pos));
    if (!value) {
      llvm::consumeError(value.takeError());
      return fail(start, "invalid string");
    }
    out = value->getAsString()->str();
    return success();
  }

  LogicalResult scanNumber(JNode &node) {
    size_t start = pos;
    while (pos < text.size() &&
           StringRef("+-0123456789.eE").contains(text[pos]))
      ++pos;
    StringRef token = text.slice(start, pos);
    if (token.find_first_of(".eE") == StringRef::npos) {
      node.kind = JNode::Integer;
      if (token.getAsInteger(10, node.integer))
        return fail(start, "integer " + token + " does not fit in 64 bits");
      return success();
    }
    node.kind = JNode::Float;
    if (token.getAsDouble(node.number) || !std::isfinite(node.number))
      return fail(start,
                  "number " + token + " is out of the range of a double");
    return success();
  }

  LogicalResult scanValue(JNode &node, unsigned depth) {
    skipSpace();
    node.offset = pos;
    if (pos >= text.size())
      return fail(pos, "unexpected end of the JSON document");
    if (depth > kMaxDepth)
      return fail(pos,
                  "JSON nested more than " + Twine(kMaxDepth) + " levels deep");
    StringRef rest = text.drop_front(pos);
    char c = rest.front();
    if (c == '{') {
      ++pos;
      node.kind = JNode::Object;
      if (consume('}'))
        return success();
      llvm::StringSet<> seen;
      do {
        skipSpace();
        JMember member;
        member.keyOffset = pos;
        if (failed(scanString(member.key)))
          return failure();
        if (!seen.insert(member.key).second)
          return fail(member.keyOffset,
                      "duplicate key '" + member.key + "' in object");
        if (!consume(':'))
          return fail(pos, "expected ':' after object key");
        if (failed(scanValue(member.value, depth + 1)))
          return failure();
        node.members.push_back(std::move(member));
      } while (consume(','));
      if (!consume('}'))
        return fail(pos, "expected ',' or '}' in object");
      return success();
    }
    if (c == '[') {
      ++pos;
      node.kind = JNode::Array;
      if (consume(']'))
        return success();
      do {
        node.elements.emplace_back();
        if (failed(scanValue(node.elements.back(), depth + 1)))
          return failure();
      } while (consume(','));
      if (!consume(']'))
        return fail(pos, "expected ',' or ']' in array");
      return success();
    }
    if (c == '"') {
      node.kind = JNode::String;
      return scanString(node.string);
    }
    for (auto [word, kind, value] :
         {std::make_tuple("true", JNode::Bool, true),
          std::make_tuple("false", JNode::Bool, false),
          std::make_tuple("null", JNode::Null, false)}) {
      if (rest.starts_with(word)) {
        pos += StringRef(word).size();
        node.kind = kind;
        node.boolean = value;
        return success();
      }
    }
    if (c == '-' || llvm::isDigit(c))
      return scanNumber(node);
    return fail(pos, "invalid JSON value");
  }

  StringRef text;
  size_t pos = 0;
};
} // namespace

/// The offset of the first bracket nested deeper than `limit`, if any.
static std::optional<size_t> findExcessiveNesting(StringRef text,
                                                  unsigned limit) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        return i;
    } else if ((c == ']' || c == '}') && depth) {
      --depth;
    }
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// NumPy .npy files
//===----------------------------------------------------------------------===//

namespace {
/// What an .npy header declares.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  SmallVector<int64_t> shape;
  size_t dataOffset = 0;
};
} // namespace

/// Parses the header of an .npy file (format versions 1 to 3): the magic, the
/// header length, and the Python dict literal
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`.
static LogicalResult parseNpyHeader(StringRef file, NpyHeader &header,
                                    std::string &error) {
  auto fail = [&](const Twine &message) {
    error = message.str();
    return failure();
  };
  if (!file.starts_with("\x93NUMPY") || file.size() < 10)
    return fail("not a NumPy .npy file (bad magic)");
  unsigned major = static_cast<unsigned char>(file[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(file[8]) |
                static_cast<unsigned char>(file[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12)
      return fail("truncated .npy header");
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = headerLen << 8 | static_cast<unsigned char>(file[8 + i]);
    headerStart = 12;
  } else {
    return fail("unsupported .npy format version " + Twine(major));
  }
  if (headerLen > file.size() - headerStart)
    return fail("truncated .npy header");
  header.dataOffset = headerStart + headerLen;
  StringRef dict = file.substr(headerStart, headerLen).trim();

  // A tiny reader for the dict literal NumPy writes.
  auto skip = [&]() { dict = dict.ltrim(); };
  auto quoted = [&](std::string &out) -> bool {
    skip();
    if (dict.empty() || (dict.front() != '\'' && dict.front() != '"'))
      return false;
    char quote = dict.front();
    size_t end = dict.find(quote, 1);
    if (end == StringRef::npos)
      return false;
    out = dict.slice(1, end).str();
    dict = dict.drop_front(end + 1);
    return true;
  };
  skip();
  if (!dict.consume_front("{"))
    return fail("malformed .npy header: expected '{'");
  bool sawDescr = false, sawShape = false;
  while (true) {
    skip();
    if (dict.consume_front("}"))
      break;
    std::string key;
    if (!quoted(key))
      return fail("malformed .npy header: expected a key");
    skip();
    if (!dict.consume_front(":"))
      return fail("malformed .npy header: expected ':' after '" + key + "'");
    skip();
    if (key == "descr") {
      if (!quoted(header.descr))
        return fail("unsupported .npy dtype (a structured dtype?)");
      sawDescr = true;
    } else if (key == "fortran_order") {
      if (dict.consume_front("True"))
        header.fortranOrder = true;
      else if (!dict.consume_front("False"))
        return fail("malformed .npy header: bad 'fortran_order'");
    } else if (key == "shape") {
      if (!dict.consume_front("("))
        return fail("malformed .npy header: expected a tuple for 'shape'");
      while (true) {
        skip();
        if (dict.consume_front(")"))
          break;
        size_t digits = dict.find_first_not_of("0123456789");
        int64_t dim;
        if (digits == 0 || dict.take_front(digits).getAsInteger(10, dim))
          return fail("malformed .npy header: bad 'shape'");
        header.shape.push_back(dim);
        dict = dict.drop_front(digits);
        skip();
        dict.consume_front(",");
      }
      sawShape = true;
    } else {
      return fail("malformed .npy header: unknown key '" + key + "'");
    }
    skip();
    dict.consume_front(",");
  }
  if (!sawDescr || !sawShape)
    return fail("malformed .npy header: needs 'descr' and 'shape'");
  return success();
}

/// The trace dtype of a little-endian .npy descr, or "".
static StringRef getNpyDType(StringRef descr) {
  // NumPy writes '|' for one-byte types and '<' on little-endian machines.
  if (descr.size() < 2 || !StringRef("<|=").contains(descr.front()))
    return "";
  return llvm::StringSwitch<StringRef>(descr.drop_front())
      .Case("f4", "float32")
      .Case("f8", "float64")
      .Case("f2", "float16")
      .Case("i8", "int64")
      .Case("i4", "int32")
      .Case("i2", "int16")
      .Case("i1", "int8")
      .Case("u1", "uint8")
      .Case("b1", "bool")
      .Default("");
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(shape, os);
  os << ']';
  return s;
}

//===----------------------------------------------------------------------===//
// Importer
//===----------------------------------------------------------------------===//

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
  void reportSyntaxError(llvm::Error err);
  LogicalResult importDocument(const JNode &root, mlir::ModuleOp top);
  LogicalResult importAttribute(const JNode &node, StringRef moduleName);
  LogicalResult importGraph(const JNode &node, traced::ModuleOp module);
  LogicalResult importExpr(const JNode &node);

  FailureOr<Type> importType(const JNode &node);
  FailureOr<RankedTensorType> importTensorType(FieldReader &reader,
                                               bool allowDynamic);
  FailureOr<ElementsAttr> importTensorValue(const JNode &node,
                                            StringRef blobName);
  LogicalResult readNpy(const JNode &pathNode, RankedTensorType type,
                        std::vector<char> &data);
  FailureOr<Attribute> importPyValue(const JNode &node, const Twine &where,
                                     SmallVectorImpl<Value> *operands);
  LogicalResult importCallArguments(FieldReader &reader, StringRef what,
                                    SmallVectorImpl<Value> &operands,
                                    ArrayAttr &arguments, ArrayAttr &keywords);
  LogicalResult importOutputs(FieldReader &reader,
                              std::optional<unsigned> exactly,
                              SmallVectorImpl<Type> &types,
                              SmallVectorImpl<const JNode *> &names);
  LogicalResult defineOutputs(ArrayRef<const JNode *> names, Operation *op);
  /// Reads a `{"name": ..., "type": ...}` object (a graph input or an
  /// expr's output; `what` names it in errors).
  LogicalResult importNamedValue(const JNode &node, StringRef what,
                                 SmallVectorImpl<Type> &types,
                                 SmallVectorImpl<const JNode *> &names);

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

void Importer::reportSyntaxError(llvm::Error err) {
  // llvm::json::ParseError keeps its position private; its message reads
  // "[line:column, byte=offset]: message".
  std::string text = llvm::toString(std::move(err));
  StringRef message = text;
  size_t offset = this->text.size();
  if (message.consume_front("[")) {
    auto [position, rest] = message.split("]: ");
    size_t byte = position.find("byte=");
    if (byte != StringRef::npos)
      (void)position.substr(byte + 5).getAsInteger(10, offset);
    message = rest;
  }
  StringRef source = this->text;
  if (offset >= source.size()) {
    // Truncated input: point just past the last thing written.
    offset = source.rtrim().size();
  } else if (offset > 0 && !llvm::isSpace(source[offset - 1]) &&
             message != "Text after end of document" &&
             message != "Invalid UTF-8 sequence") {
    // The parser stands just after the character it rejected.
    --offset;
  }
  std::string lowered = message.str();
  if (!lowered.empty())
    lowered[0] = llvm::toLower(lowered[0]);
  error(offset) << "malformed JSON: " << lowered;
}

OwningOpRef<mlir::ModuleOp> Importer::run() {
  ctx->loadDialect<TracedDialect>();
  if (std::optional<size_t> at = findExcessiveNesting(text, kMaxDepth)) {
    error(*at) << "JSON nested more than " << kMaxDepth << " levels deep";
    return {};
  }
  // Only the verdict is needed: drop the parsed value before the scanner
  // builds its own copy of large base64 strings.
  if (llvm::Expected<json::Value> parsed = json::parse(text); !parsed) {
    reportSyntaxError(parsed.takeError());
    return {};
  }
  JNode root;
  JsonScanner scanner(text);
  if (failed(scanner.scan(root))) {
    error(scanner.errorOffset) << scanner.errorMessage;
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
    FailureOr<ElementsAttr> value =
        importTensorValue(**tensor, getBlobName(moduleName, name));
    if (failed(value))
      return failure();
    auto type = cast<TensorType>(value->getShapedType());
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
  Type elementType = parseDType(ctx, dtype);
  if (!elementType)
    return error(*dtypeNode)
           << "unknown dtype '" << dtype << "'; expected " << kDTypeList;
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
  return RankedTensorType::get(shape, elementType);
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
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return error(pathNode) << "cannot read npy file '" << path
                           << "': " << file.getError().message();
  StringRef contents = (*file)->getBuffer();
  NpyHeader header;
  std::string message;
  if (failed(parseNpyHeader(contents, header, message)))
    return error(pathNode) << "npy file '" << pathNode.string
                           << "': " << message;
  StringRef declared = getDTypeName(type.getElementType());
  StringRef actual = getNpyDType(header.descr);
  if (actual.empty())
    return error(pathNode) << "npy file '" << pathNode.string << "' has dtype '"
                           << header.descr << "', which is not a little-endian "
                           << kDTypeList;
  if (actual != declared)
    return error(pathNode) << "npy file '" << pathNode.string << "' holds "
                           << actual << " data, but the tensor declares "
                           << declared;
  if (header.fortranOrder && type.getRank() > 1)
    return error(pathNode) << "npy file '" << pathNode.string
                           << "' is in Fortran order; expected C order";
  if (ArrayRef<int64_t>(header.shape) != type.getShape())
    return error(pathNode) << "npy file '" << pathNode.string << "' has shape "
                           << formatShape(header.shape)
                           << ", but the tensor declares shape "
                           << formatShape(type.getShape());
  StringRef payload = contents.drop_front(header.dataOffset);
  data.assign(payload.begin(), payload.end());
  return success();
}

FailureOr<ElementsAttr> Importer::importTensorValue(const JNode &node,
                                                    StringRef blobName) {
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

  Type elementType = type->getElementType();
  unsigned elementBytes = getElementBytes(elementType);
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
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      data, std::max(elementBytes, 1u));
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
    Type type = parseDType(ctx, value.string);
    if (!type)
      return error(value) << "unknown dtype '" << value.string << "'; expected "
                          << kDTypeList;
    return Attribute(DTypeAttr::get(ctx, type));
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
  for (const JNode &input : (*inputs)->elements)
    if (failed(importNamedValue(input, "graph input", inputTypes, inputNames)))
      return failure();
  SmallVector<StringRef> argNames = llvm::to_vector(llvm::map_range(
      inputNames, [](const JNode *n) { return StringRef(n->string); }));
  auto graph =
      GraphOp::create(builder, loc(node), name,
                      builder.getFunctionType(inputTypes, {}), argNames);

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

LogicalResult Importer::importOutputs(FieldReader &reader,
                                      std::optional<unsigned> exactly,
                                      SmallVectorImpl<Type> &types,
                                      SmallVectorImpl<const JNode *> &names) {
  FailureOr<const JNode *> outputs = reader.get("outputs", JNode::Array);
  if (failed(outputs))
    return failure();
  if (exactly && (*outputs)->elements.size() != *exactly)
    return error(**outputs)
           << "a " << reader.getWhat() << " has exactly " << *exactly
           << " output, got " << (*outputs)->elements.size();
  for (const JNode &output : (*outputs)->elements)
    if (failed(importNamedValue(output, "output", types, names)))
      return failure();
  return success();
}

LogicalResult
Importer::importNamedValue(const JNode &node, StringRef what,
                           SmallVectorImpl<Type> &types,
                           SmallVectorImpl<const JNode *> &names) {
  std::string article = what == "output" ? "an " : "a ";
  if (failed(expect(node, JNode::Object, article + what.str())))
    return failure();
  FieldReader reader(*this, node, what.str());
  const JNode *nameNode;
  StringRef name;
  FailureOr<const JNode *> typeNode = reader.get("type");
  if (failed(reader.getString("name", name, &nameNode)) || failed(typeNode) ||
      failed(reader.finish()))
    return failure();
  FailureOr<Type> type = importType(**typeNode);
  if (failed(type))
    return failure();
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
  SmallVector<Type> types;
  SmallVector<const JNode *> names;
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
        failed(importOutputs(reader, std::nullopt, types, names)) ||
        failed(reader.finish()))
      return failure();
    op = CallMethodOp::create(builder, location, types, *receiver,
                              builder.getStringAttr(method), operands,
                              arguments, keywords);
  } else {
    StringRef func;
    if (failed(reader.getString("func", func)))
      return failure();
    std::string what = ("CallFunction \"" + func + "\"").str();
    SmallVector<Value> operands;
    ArrayAttr arguments, keywords;
    if (failed(
            importCallArguments(reader, what, operands, arguments, keywords)) ||
        failed(importOutputs(reader, std::nullopt, types, names)) ||
        failed(reader.finish()))
      return failure();
    op = CallFunctionOp::create(builder, location, types,
                                builder.getStringAttr(func), operands,
                                arguments, keywords);
  }
  return defineOutputs(names, op);
}

OwningOpRef<mlir::ModuleOp> traced::importTrace(StringRef json,
                                                StringRef fileName,
                                                StringRef baseDir,
                                                MLIRContext *ctx) {
  return Importer(json, fileName, baseDir, ctx).run();
}

//===----------------------------------------------------------------------===//
// Exporter
//===----------------------------------------------------------------------===//

namespace {
/// Writes a module as a trace. json::OStream writes as it goes, so errors set
/// `status` and the caller discards the text; writing stops at the first.
class Exporter {
public:
  explicit Exporter(json::OStream &j) : j(j) {}

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
  void writeType(Type type, Operation *op);
  void writeShape(ArrayRef<int64_t> shape);
  void writeTensor(ElementsAttr value, Operation *op);
  void writePyValue(Attribute value, Operation *op,
                    function_ref<std::string(unsigned)> operandName);
  void writeOutputs(Operation &op, AsmState &state);

  json::OStream &j;
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
      writeTensor(parameter.getValue(), &op);
      j.attributeEnd();
    } else if (auto buffer = dyn_cast<BufferOp>(op)) {
      j.attribute("kind", "buffer");
      j.attributeBegin("tensor");
      writeTensor(buffer.getValue(), &op);
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
  j.attributeArray("outputs", [&] {
    for (Value result : op.getResults())
      j.object([&] {
        j.attribute("name", str(getNodeName(result, state), &op));
        j.attributeBegin("type");
        writeType(result.getType(), &op);
        j.attributeEnd();
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
    writeOutputs(op, state);
  });
}

void Exporter::writeType(Type type, Operation *op) {
  auto unsupported = [&]() {
    j.value(nullptr);
    if (ok())
      fail(op) << "type " << type << " cannot be expressed in a trace";
  };
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    StringRef dtype = getDTypeName(tensor.getElementType());
    if (dtype.empty() || tensor.getEncoding())
      return unsupported();
    j.object([&] {
      j.attributeObject("tensor", [&] {
        j.attribute("dtype", dtype);
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

void Exporter::writeTensor(ElementsAttr value, Operation *op) {
  auto type = dyn_cast<RankedTensorType>(value.getShapedType());
  StringRef dtype = type ? getDTypeName(type.getElementType()) : "";
  if (!type || !type.hasStaticShape() || dtype.empty()) {
    j.value(nullptr);
    fail(op) << "tensor value of type " << value.getShapedType()
             << " cannot be expressed in a trace";
    return;
  }
  Type elementType = type.getElementType();
  size_t expected = getElementBytes(elementType) * type.getNumElements();
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
  j.object([&] {
    j.attribute("dtype", dtype);
    j.attributeBegin("shape");
    writeShape(type.getShape());
    j.attributeEnd();
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
    StringRef name = getDTypeName(dtype.getType());
    if (!name.empty())
      return wrap("dtype", [&] { j.value(name); });
  }
  if (auto object = dyn_cast<ObjectAttr>(value))
    return wrap("object", [&] { j.value(str(object.getRepr(), op)); });
  j.value(nullptr);
  if (ok())
    fail(op) << "value " << value << " cannot be expressed in a trace";
}

LogicalResult traced::exportTrace(mlir::ModuleOp module,
                                  llvm::raw_ostream &os) {
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
    Exporter exporter(j);
    exporter.run(modules, root);
    if (!exporter.ok())
      return failure();
  }
  os << text << "\n";
  return success();
}
