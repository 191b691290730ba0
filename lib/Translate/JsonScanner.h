//===- JsonScanner.h - JSON with source positions ---------------*- C++ -*-===//
//
// llvm::json::Value forgets where a value was written and the order of an
// object's members, and both matter to JSON traces: every error points into
// the file, and keyword arguments keep their order. parseJson reads a
// document into JNode trees that keep offsets and member order.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_TRANSLATE_JSONSCANNER_H
#define TRACEDIR_LIB_TRANSLATE_JSONSCANNER_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::traced {
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
  const JMember *single() const;
};

struct JMember {
  std::string key;
  size_t keyOffset = 0;
  JNode value;
};

/// "an integer", "an object", ... for diagnostics.
StringRef describeKind(JNode::Kind kind);

/// Why a document was refused: a message and the byte offset it is about.
struct JsonError {
  size_t offset = 0;
  std::string message;
};

/// Reads the JSON document `text` (RFC 8259) into `root`. Refuses, with
/// `error` set, malformed JSON ("malformed JSON: ..." at the character the
/// parser rejected, or just after the last one for truncated text), nesting
/// deeper than 256 levels, duplicate keys, integers beyond 64 bits and
/// numbers beyond a double. Integers are numbers without fraction or
/// exponent.
LogicalResult parseJson(StringRef text, JNode &root, JsonError &error);

} // namespace mlir::traced

#endif // TRACEDIR_LIB_TRANSLATE_JSONSCANNER_H
