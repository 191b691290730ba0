//===- JsonScanner.cpp - JSON with source positions -----------------------===//
//
// A small strict scanner builds JNode trees that keep offsets and member
// order, with escaped strings decoded by llvm::json; llvm::json::parse
// words the syntax error of a document the scanner refuses.
//
//===----------------------------------------------------------------------===//

#include "JsonScanner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <optional>
#include <tuple>

using namespace mlir;
using namespace mlir::traced;
namespace json = llvm::json;

/// Nesting deeper than this is refused before anything recurses over it, so
/// that hostile input cannot exhaust the stack.
static constexpr unsigned kMaxDepth = 256;

const JMember *JNode::single() const {
  return kind == Object && members.size() == 1 ? &members.front() : nullptr;
}

StringRef traced::describeKind(JNode::Kind kind) {
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

/// Whether `token` is a number by JSON's grammar:
/// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
static bool isJsonNumber(StringRef token) {
  size_t i = 0, n = token.size();
  auto digits = [&] {
    size_t from = i;
    while (i < n && llvm::isDigit(token[i]))
      ++i;
    return i > from;
  };
  if (i < n && token[i] == '-')
    ++i;
  if (i < n && token[i] == '0')
    ++i;
  else if (!digits())
    return false;
  if (i < n && token[i] == '.') {
    ++i;
    if (!digits())
      return false;
  }
  if (i < n && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < n && (token[i] == '+' || token[i] == '-'))
      ++i;
    if (!digits())
      return false;
  }
  return i == n;
}

namespace {
/// Builds JNodes from the text of a JSON document, strictly; it still checks
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

  JsonError error;

private:
  LogicalResult fail(size_t at, const Twine &message) {
    error = {at, message.str()};
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
    // Plain printable ASCII (names, base64) is the string itself.
    StringRef body = text.slice(start + 1, pos - 1);
    if (llvm::all_of(body, [](char c) {
          return c >= 0x20 && c < 0x7f && c != '\\';
        })) {
      out = body.str();
      return success();
    }
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
    if (!isJsonNumber(token))
      return fail(start, "invalid number '" + token + "'");
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

/// The located error of llvm::json::parse's `err`.
static JsonError getSyntaxError(StringRef source, llvm::Error err) {
  // llvm::json::ParseError keeps its position private; its message reads
  // "[line:column, byte=offset]: message".
  std::string text = llvm::toString(std::move(err));
  StringRef message = text;
  size_t offset = source.size();
  if (message.consume_front("[")) {
    auto [position, rest] = message.split("]: ");
    size_t byte = position.find("byte=");
    if (byte != StringRef::npos)
      (void)position.substr(byte + 5).getAsInteger(10, offset);
    message = rest;
  }
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
  return {offset, "malformed JSON: " + lowered};
}

LogicalResult traced::parseJson(StringRef text, JNode &root, JsonError &error) {
  if (std::optional<size_t> at = findExcessiveNesting(text, kMaxDepth)) {
    error = {*at, "JSON nested more than " + std::to_string(kMaxDepth) +
                      " levels deep"};
    return failure();
  }
  // The scanner is strict itself (numbers by JSON's grammar, strings
  // decoded by llvm::json), so llvm::json::parse runs only on a document the
  // scanner refused, for its located syntax message: building its DOM of a
  // whole trace took ~27 KiB a traced expr (3.4 GiB for 100k exprs).
  JsonScanner scanner(text);
  if (succeeded(scanner.scan(root)))
    return success();
  root = JNode();
  if (llvm::Expected<json::Value> parsed = json::parse(text); !parsed)
    error = getSyntaxError(text, parsed.takeError());
  else
    error = scanner.error;
  return failure();
}
