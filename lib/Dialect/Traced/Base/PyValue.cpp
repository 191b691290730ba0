//===- PyValue.cpp - Python values as attributes --------------------------===//

#include "TracedIR/Dialect/Traced/PyValue.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::traced;

static bool isPyInt(Attribute attr) {
  auto i = dyn_cast<IntegerAttr>(attr);
  return i && !isa<BoolAttr>(attr) && i.getType().isInteger(64);
}

static bool isPyFloat(Attribute attr) {
  auto f = dyn_cast<FloatAttr>(attr);
  return f && f.getType().isF64();
}

bool traced::isPyValue(Attribute attr, bool allowOperands) {
  if (!attr)
    return false;
  if (isa<BoolAttr, StringAttr, NoneAttr, EllipsisAttr, DTypeAttr, ObjectAttr>(
          attr) ||
      isPyInt(attr) || isPyFloat(attr))
    return true;
  if (isa<OperandAttr>(attr))
    return allowOperands;
  auto all = [&](ArrayRef<Attribute> elems) {
    return llvm::all_of(
        elems, [&](Attribute e) { return isPyValue(e, allowOperands); });
  };
  if (auto list = dyn_cast<ArrayAttr>(attr))
    return all(list.getValue());
  if (auto tuple = dyn_cast<TupleAttr>(attr))
    return all(tuple.getElements().getValue());
  if (auto slice = dyn_cast<SliceAttr>(attr))
    return all({slice.getStart(), slice.getStop(), slice.getStep()});
  return false;
}

Type traced::getPyType(Attribute value, TypeRange operandTypes) {
  MLIRContext *ctx = value.getContext();
  Builder b(ctx);
  if (auto marker = dyn_cast<OperandAttr>(value))
    return marker.getIndex() < operandTypes.size()
               ? operandTypes[marker.getIndex()]
               : ObjectType::get(ctx);
  if (isa<BoolAttr>(value))
    return b.getI1Type();
  if (isPyInt(value))
    return b.getI64Type();
  if (isPyFloat(value))
    return b.getF64Type();
  if (isa<StringAttr>(value))
    return StrType::get(ctx);
  if (isa<NoneAttr>(value))
    return NoneType::get(ctx);
  if (auto tuple = dyn_cast<TupleAttr>(value)) {
    SmallVector<Type> types;
    for (Attribute e : tuple.getElements())
      types.push_back(getPyType(e, operandTypes));
    return TupleType::get(ctx, types);
  }
  if (auto list = dyn_cast<ArrayAttr>(value)) {
    // A list's element type is the one type all elements share; a list of
    // mixed values holds objects. An empty list's elements are unknown.
    Type elem;
    for (Attribute e : list) {
      Type t = getPyType(e, operandTypes);
      if (!elem)
        elem = t;
      else if (elem != t)
        elem = ObjectType::get(ctx);
    }
    return ListType::get(ctx, elem ? elem : ObjectType::get(ctx));
  }
  return ObjectType::get(ctx);
}

bool traced::isCompatibleType(Type expected, Type actual) {
  // `object` is Python's "anything": an empty list's elements, a value the
  // dialect does not model.
  if (expected == actual || isa<ObjectType>(expected) ||
      isa<ObjectType>(actual))
    return true;
  auto et = dyn_cast<TensorType>(expected);
  auto at = dyn_cast<TensorType>(actual);
  if (et && at) {
    if (et.getElementType() != at.getElementType())
      return false;
    if (!et.hasRank() || !at.hasRank())
      return true;
    if (et.getRank() != at.getRank())
      return false;
    for (auto [e, a] : llvm::zip(et.getShape(), at.getShape()))
      if (!ShapedType::isDynamic(e) && !ShapedType::isDynamic(a) && e != a)
        return false;
    return true;
  }
  auto etup = dyn_cast<TupleType>(expected);
  auto atup = dyn_cast<TupleType>(actual);
  if (etup && atup) {
    if (etup.size() != atup.size())
      return false;
    for (auto [e, a] : llvm::zip(etup.getTypes(), atup.getTypes()))
      if (!isCompatibleType(e, a))
        return false;
    return true;
  }
  auto elist = dyn_cast<ListType>(expected);
  auto alist = dyn_cast<ListType>(actual);
  if (elist && alist)
    return isCompatibleType(elist.getElementType(), alist.getElementType());
  return false;
}

void traced::walkOperandMarkers(Attribute value,
                                function_ref<void(OperandAttr)> fn) {
  if (auto marker = dyn_cast<OperandAttr>(value))
    return fn(marker);
  if (auto list = dyn_cast<ArrayAttr>(value))
    for (Attribute e : list)
      walkOperandMarkers(e, fn);
  if (auto tuple = dyn_cast<TupleAttr>(value))
    for (Attribute e : tuple.getElements())
      walkOperandMarkers(e, fn);
  if (auto slice = dyn_cast<SliceAttr>(value))
    for (Attribute e : {slice.getStart(), slice.getStop(), slice.getStep()})
      walkOperandMarkers(e, fn);
}

Attribute
traced::replaceOperandMarkers(Attribute value,
                              function_ref<Attribute(OperandAttr)> fn) {
  MLIRContext *ctx = value.getContext();
  auto map = [&](ArrayRef<Attribute> elems) {
    SmallVector<Attribute> out;
    for (Attribute e : elems)
      out.push_back(replaceOperandMarkers(e, fn));
    return ArrayAttr::get(ctx, out);
  };
  if (auto marker = dyn_cast<OperandAttr>(value))
    return fn(marker);
  if (auto list = dyn_cast<ArrayAttr>(value))
    return map(list.getValue());
  if (auto tuple = dyn_cast<TupleAttr>(value))
    return TupleAttr::get(ctx, map(tuple.getElements().getValue()));
  if (auto slice = dyn_cast<SliceAttr>(value)) {
    ArrayAttr parts = map({slice.getStart(), slice.getStop(), slice.getStep()});
    return SliceAttr::get(ctx, parts[0], parts[1], parts[2]);
  }
  return value;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

std::string traced::shortestDigits(double v, bool single) {
  char text[40];
  int precision = 1;
  for (;; ++precision) {
    snprintf(text, sizeof(text), "%.*e", precision - 1, v);
    if (precision == 17 || (single ? strtof(text, nullptr) == static_cast<float>(v)
                                   : strtod(text, nullptr) == v))
      break;
  }
  // Python's repr: positional notation for decimal exponents from -4 to 15
  // (20 is "20", where "%g" writes "2e+01"), scientific outside.
  const char *e = strchr(text, 'e');
  int exponent = std::isfinite(v) && e ? atoi(e + 1) : 0;
  if (std::isfinite(v) && exponent >= -4 && exponent < 16)
    snprintf(text, sizeof(text), "%.*f",
             std::max(precision - 1 - exponent, 0), v);
  else
    snprintf(text, sizeof(text), "%.*g", precision, v);
  return text;
}

/// Prints a float so that it reads back as the same f64 and as a float (never
/// as an integer): shortest round-trip digits, always with a '.'.
static void printPyFloat(llvm::raw_ostream &os, double v) {
  if (std::isnan(v)) {
    os << "float(\"nan\")";
    return;
  }
  if (std::isinf(v)) {
    os << (v < 0 ? "float(\"-inf\")" : "float(\"inf\")");
    return;
  }
  // Python's repr: the shortest digits that read back as the same double.
  std::string text = shortestDigits(v);
  StringRef s = text;
  size_t exp = s.find_first_of("eE");
  StringRef mantissa = s.substr(0, exp);
  os << mantissa;
  if (!mantissa.contains('.'))
    os << ".0";
  if (exp != StringRef::npos)
    os << "e" << s.substr(exp + 1);
}

namespace {
/// Prints Python syntax; operands and non-Python attributes are delegated.
template <typename PrintOperand, typename PrintOther> struct PyPrinter {
  llvm::raw_ostream &os;
  PrintOperand printOperand;
  PrintOther printOther;

  void printSeq(ArrayRef<Attribute> elems) {
    llvm::interleaveComma(elems, os, [&](Attribute e) { print(e); });
  }

  void print(Attribute value) {
    if (auto marker = dyn_cast<OperandAttr>(value))
      return printOperand(marker);
    if (auto b = dyn_cast<BoolAttr>(value)) {
      os << (b.getValue() ? "True" : "False");
      return;
    }
    if (isPyInt(value)) {
      os << cast<IntegerAttr>(value).getValue().getSExtValue();
      return;
    }
    if (isPyFloat(value))
      return printPyFloat(os, cast<FloatAttr>(value).getValueAsDouble());
    if (auto s = dyn_cast<StringAttr>(value)) {
      os << '"';
      llvm::printEscapedString(s.getValue(), os);
      os << '"';
      return;
    }
    if (isa<NoneAttr>(value)) {
      os << "None";
      return;
    }
    if (isa<EllipsisAttr>(value)) {
      os << "...";
      return;
    }
    if (auto list = dyn_cast<ArrayAttr>(value)) {
      os << '[';
      printSeq(list.getValue());
      os << ']';
      return;
    }
    if (auto tuple = dyn_cast<TupleAttr>(value)) {
      os << '(';
      printSeq(tuple.getElements().getValue());
      if (tuple.getElements().size() == 1)
        os << ',';
      os << ')';
      return;
    }
    if (auto slice = dyn_cast<SliceAttr>(value)) {
      os << "slice(";
      printSeq({slice.getStart(), slice.getStop(), slice.getStep()});
      os << ')';
      return;
    }
    if (auto dtype = dyn_cast<DTypeAttr>(value)) {
      os << "dtype(" << dtype.getType() << ')';
      return;
    }
    if (auto object = dyn_cast<ObjectAttr>(value)) {
      os << "object(\"";
      llvm::printEscapedString(object.getRepr(), os);
      os << "\")";
      return;
    }
    printOther(value);
  }
};
} // namespace

void traced::printPyValue(OpAsmPrinter &p, Attribute value,
                          ValueRange operands) {
  auto printOperand = [&](OperandAttr marker) {
    if (marker.getIndex() < operands.size())
      p.printOperand(operands[marker.getIndex()]);
    else
      p.printAttribute(marker);
  };
  auto printOther = [&](Attribute other) { p.printAttribute(other); };
  PyPrinter<decltype(printOperand), decltype(printOther)>{
      p.getStream(), printOperand, printOther}
      .print(value);
}

void traced::printPyValue(llvm::raw_ostream &os, Attribute value,
                          function_ref<void(unsigned)> printIndex) {
  auto printOperand = [&](OperandAttr marker) {
    if (printIndex)
      printIndex(marker.getIndex());
    else
      os << "%" << marker.getIndex();
  };
  auto printOther = [&](Attribute other) { other.print(os); };
  PyPrinter<decltype(printOperand), decltype(printOther)>{os, printOperand,
                                                          printOther}
      .print(value);
}

void traced::printPyCallArguments(llvm::raw_ostream &os, ArrayAttr arguments,
                                  ArrayAttr keywords,
                                  function_ref<void(unsigned)> printOperand) {
  size_t positional = arguments.size() - keywords.size();
  os << '(';
  for (auto [i, arg] : llvm::enumerate(arguments)) {
    if (i)
      os << ", ";
    if (i >= positional)
      os << cast<StringAttr>(keywords[i - positional]).getValue() << '=';
    printPyValue(os, arg, printOperand);
  }
  os << ')';
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> traced::getPyValueKeywords() {
  static const StringRef keywords[] = {"None",  "True",  "False", "slice",
                                       "float", "dtype", "object"};
  return keywords;
}

namespace {
struct PyParser {
  OpAsmParser &parser;
  SmallVectorImpl<OpAsmParser::UnresolvedOperand> *operands;
  MLIRContext *ctx;

  ParseResult parseSeq(OpAsmParser::Delimiter delim,
                       SmallVectorImpl<Attribute> &elems) {
    return parser.parseCommaSeparatedList(delim, [&]() -> ParseResult {
      Attribute e;
      if (parse(e))
        return failure();
      elems.push_back(e);
      return success();
    });
  }

  ParseResult parseKeywordValue(StringRef kw, Attribute &value) {
    Builder b(ctx);
    if (kw == "None") {
      value = NoneAttr::get(ctx);
      return success();
    }
    if (kw == "True" || kw == "False") {
      value = b.getBoolAttr(kw == "True");
      return success();
    }
    if (kw == "slice") {
      SmallVector<Attribute> parts;
      SMLoc loc = parser.getCurrentLocation();
      if (parseSeq(OpAsmParser::Delimiter::Paren, parts))
        return failure();
      if (parts.size() != 3)
        return parser.emitError(loc, "slice takes (start, stop, step)");
      value = SliceAttr::get(ctx, parts[0], parts[1], parts[2]);
      return success();
    }
    if (kw == "float") {
      std::string text;
      SMLoc loc = parser.getCurrentLocation();
      if (parser.parseLParen() || parser.parseString(&text) ||
          parser.parseRParen())
        return failure();
      double v;
      if (text == "nan")
        v = NAN;
      else if (text == "inf")
        v = INFINITY;
      else if (text == "-inf")
        v = -INFINITY;
      else
        return parser.emitError(loc, "expected float(\"nan\"), float(\"inf\") "
                                     "or float(\"-inf\")");
      value = b.getF64FloatAttr(v);
      return success();
    }
    if (kw == "dtype") {
      Type type;
      if (parser.parseLParen() || parser.parseType(type) ||
          parser.parseRParen())
        return failure();
      value = DTypeAttr::get(ctx, type);
      return success();
    }
    if (kw == "object") {
      std::string repr;
      if (parser.parseLParen() || parser.parseString(&repr) ||
          parser.parseRParen())
        return failure();
      value = ObjectAttr::get(ctx, repr);
      return success();
    }
    return parser.emitError(parser.getCurrentLocation(), "unexpected keyword '")
           << kw << "' in a Python value";
  }

  ParseResult parse(Attribute &value, StringRef leadingKeyword = {}) {
    if (!leadingKeyword.empty())
      return parseKeywordValue(leadingKeyword, value);
    OpAsmParser::UnresolvedOperand operand;
    OptionalParseResult hasOperand = parser.parseOptionalOperand(operand);
    if (hasOperand.has_value()) {
      if (failed(*hasOperand))
        return failure();
      if (!operands)
        return parser.emitError(operand.location,
                                "operands are not allowed here; only Python "
                                "constants");
      value = OperandAttr::get(ctx, operands->size());
      operands->push_back(operand);
      return success();
    }
    if (succeeded(parser.parseOptionalLSquare())) {
      SmallVector<Attribute> elems;
      if (failed(parser.parseOptionalRSquare())) {
        do {
          Attribute e;
          if (parse(e))
            return failure();
          elems.push_back(e);
        } while (succeeded(parser.parseOptionalComma()));
        if (parser.parseRSquare())
          return failure();
      }
      value = ArrayAttr::get(ctx, elems);
      return success();
    }
    if (succeeded(parser.parseOptionalLParen())) {
      // Python tuple syntax: `()`, `(a,)`, `(a, b)`, `(a, b,)`.
      SmallVector<Attribute> elems;
      while (failed(parser.parseOptionalRParen())) {
        Attribute e;
        if (parse(e))
          return failure();
        elems.push_back(e);
        if (failed(parser.parseOptionalComma())) {
          if (parser.parseRParen())
            return failure();
          break;
        }
      }
      value = TupleAttr::get(ctx, ArrayAttr::get(ctx, elems));
      return success();
    }
    if (succeeded(parser.parseOptionalEllipsis())) {
      value = EllipsisAttr::get(ctx);
      return success();
    }
    std::string str;
    if (succeeded(parser.parseOptionalString(&str))) {
      value = StringAttr::get(ctx, str);
      return success();
    }
    StringRef kw;
    if (succeeded(parser.parseOptionalKeyword(&kw, getPyValueKeywords())))
      return parseKeywordValue(kw, value);
    // Integers, and negative floats, are read here so that they never take
    // a trailing `: type` as theirs.
    Builder b(ctx);
    SMLoc loc = parser.getCurrentLocation();
    bool negative = succeeded(parser.parseOptionalMinus());
    APInt integer;
    OptionalParseResult isInteger = parser.parseOptionalDecimalInteger(integer);
    if (isInteger.has_value()) {
      if (failed(*isInteger))
        return failure();
      // Python ints here are int64: [-2^63, 2^63).
      APInt wide = integer.zextOrTrunc(std::max(integer.getBitWidth(), 65u));
      APInt limit = APInt::getOneBitSet(wide.getBitWidth(), 63);
      if (negative ? wide.ugt(limit) : wide.uge(limit))
        return parser.emitError(loc, "integer does not fit in 64 bits");
      APInt v = wide.trunc(64);
      value = b.getI64IntegerAttr((negative ? -v : v).getSExtValue());
      return success();
    }
    if (negative) {
      double v;
      if (parser.parseFloat(v))
        return failure();
      value = b.getF64FloatAttr(-v);
      return success();
    }
    // Positive floats, and elements attributes for a constant's whole value.
    if (parser.parseAttribute(value))
      return failure();
    if (!isPyValue(value, /*allowOperands=*/false) && !isa<ElementsAttr>(value))
      return parser.emitError(loc, "expected a Python value, got ") << value;
    return success();
  }
};
} // namespace

ParseResult
traced::parsePyValue(OpAsmParser &parser, Attribute &value,
                     SmallVectorImpl<OpAsmParser::UnresolvedOperand> *operands,
                     StringRef leadingKeyword) {
  return PyParser{parser, operands, parser.getContext()}.parse(value,
                                                               leadingKeyword);
}
