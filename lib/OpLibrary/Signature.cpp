//===- Signature.cpp - schemas, argument binding, normalization -----------===//

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedBase.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Support/DType.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::traced;

//===----------------------------------------------------------------------===//
// Parameter types
//===----------------------------------------------------------------------===//

static bool acceptsScalarKind(ParamType::Kind kind, Type type) {
  bool isInt = type.isInteger(64);
  bool isBool = type.isInteger(1);
  bool isFloat = isa<FloatType>(type);
  switch (kind) {
  case ParamType::Tensor:
    return isa<TensorType>(type);
  case ParamType::Int:
    return isInt || isBool;
  case ParamType::Float:
    return isFloat || isInt || isBool;
  case ParamType::Bool:
    return isBool;
  case ParamType::Str:
    return isa<StrType>(type);
  case ParamType::Scalar:
    return isInt || isBool || isFloat;
  case ParamType::TensorOrScalar:
    return isa<TensorType>(type) || isInt || isBool || isFloat;
  case ParamType::DType:
    return isa<ObjectType>(type);
  case ParamType::Any:
    return true;
  }
  llvm_unreachable("unknown parameter kind");
}

bool ParamType::accepts(Type type) const {
  if (kind == Any || isa<ObjectType>(type) || (orStr && isa<StrType>(type)))
    return true;
  if (optional && isa<NoneType>(type))
    return true;
  if (!isList)
    return acceptsScalarKind(kind, type);
  if ((listSize > 0 || acceptsOne) && acceptsScalarKind(kind, type))
    return true; // `int[2]` given one int
  if (auto list = dyn_cast<ListType>(type))
    return acceptsScalarKind(kind, list.getElementType());
  if (auto tuple = dyn_cast<TupleType>(type))
    return llvm::all_of(tuple.getTypes(),
                        [&](Type t) { return acceptsScalarKind(kind, t); });
  return false;
}

std::string ParamType::str() const {
  static const char *names[] = {"Tensor",        "int",   "float",
                                "bool",          "str",   "Scalar",
                                "Tensor|Scalar", "dtype", "Any"};
  std::string s = names[kind];
  if (isList)
    s += listSize ? "[" + std::to_string(listSize) + "]" : "[]";
  if (optional)
    s += "?";
  if (orStr)
    s += "|str";
  return s;
}

//===----------------------------------------------------------------------===//
// Schema parsing
//===----------------------------------------------------------------------===//

static void schemaError(StringRef text, const Twine &msg) {
  llvm::report_fatal_error("malformed op library schema '" + text +
                           "': " + msg);
}

Signature Signature::parse(StringRef text) {
  Signature sig;
  sig.text = text.str();
  StringRef body = text.trim();
  if (!body.consume_front("(") || !body.consume_back(")"))
    schemaError(text, "expected '(...)'");
  bool keywordOnly = false;
  SmallVector<StringRef> parts;
  // Defaults never contain commas at top level except inside brackets.
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= body.size(); ++i) {
    char c = i < body.size() ? body[i] : ',';
    if (c == '[' || c == '(')
      ++depth;
    else if (c == ']' || c == ')')
      --depth;
    else if (c == ',' && depth == 0) {
      StringRef part = body.slice(start, i).trim();
      if (!part.empty())
        parts.push_back(part);
      start = i + 1;
    }
  }
  for (StringRef part : parts) {
    if (part == "*") {
      keywordOnly = true;
      continue;
    }
    Param param;
    auto [decl, def] = part.split('=');
    if (part.contains('='))
      param.defaultValue = def.trim().str();
    auto [typeText, name] = decl.trim().rsplit(' ');
    name = name.trim();
    if (name.consume_front("*"))
      param.varargs = true;
    param.name = name.str();
    StringRef t = typeText.trim();
    if (t.consume_back("|str"))
      param.type.orStr = true;
    if (t.consume_back("?"))
      param.type.optional = true;
    if (t.consume_back("]")) {
      auto [base, size] = t.split('[');
      t = base;
      param.type.isList = true;
      if (!size.empty() && size.getAsInteger(10, param.type.listSize))
        schemaError(text, "bad list size in '" + part + "'");
    }
    static const std::pair<StringRef, ParamType::Kind> kinds[] = {
        {"Tensor", ParamType::Tensor},
        {"int", ParamType::Int},
        {"float", ParamType::Float},
        {"bool", ParamType::Bool},
        {"str", ParamType::Str},
        {"Scalar", ParamType::Scalar},
        {"Tensor|Scalar", ParamType::TensorOrScalar},
        {"dtype", ParamType::DType},
        {"Any", ParamType::Any}};
    bool found = false;
    for (auto [spelling, kind] : kinds)
      if (t == spelling) {
        param.type.kind = kind;
        found = true;
      }
    if (!found || param.name.empty())
      schemaError(text, "bad parameter '" + part + "'");
    param.keywordOnly = keywordOnly;
    param.type.acceptsOne = param.type.isList && param.type.listSize > 0;
    if (param.varargs && !param.type.isList)
      schemaError(text, "*args parameter '" + part + "' must be a list");
    if (param.varargs)
      param.type.acceptsOne = true;
    if (param.varargs)
      keywordOnly = true; // parameters after *args are keyword-only
    sig.params.push_back(std::move(param));
  }
  return sig;
}

std::optional<unsigned> Signature::lookup(StringRef name) const {
  for (auto [i, p] : llvm::enumerate(params))
    if (p.name == name)
      return i;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Python literals (defaults and binding constants)
//===----------------------------------------------------------------------===//

namespace {
struct LiteralParser {
  MLIRContext *ctx;
  StringRef text;
  StringRef rest;

  Attribute fail() {
    llvm::report_fatal_error("malformed Python literal in op library: '" +
                             text + "'");
  }
  void skipSpace() { rest = rest.ltrim(); }

  Attribute parseSeq(char close, SmallVectorImpl<Attribute> &elems) {
    skipSpace();
    while (!rest.consume_front(StringRef(&close, 1))) {
      elems.push_back(parse());
      skipSpace();
      if (!rest.consume_front(",")) {
        skipSpace();
        if (!rest.consume_front(StringRef(&close, 1)))
          return fail();
        break;
      }
      skipSpace();
    }
    return UnitAttr::get(ctx);
  }

  Attribute parse() {
    Builder b(ctx);
    skipSpace();
    if (rest.consume_front("None"))
      return NoneAttr::get(ctx);
    if (rest.consume_front("True"))
      return b.getBoolAttr(true);
    if (rest.consume_front("False"))
      return b.getBoolAttr(false);
    if (rest.consume_front("[")) {
      SmallVector<Attribute> elems;
      parseSeq(']', elems);
      return b.getArrayAttr(elems);
    }
    if (rest.consume_front("(")) {
      SmallVector<Attribute> elems;
      parseSeq(')', elems);
      return TupleAttr::get(ctx, b.getArrayAttr(elems));
    }
    if (rest.consume_front("torch.")) {
      // A dtype (`torch.int64`: the fixed dtype of ATen's _cast_Long).
      size_t len = rest.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyz0123456789_");
      std::optional<DType> dtype = dtypeFromName(rest.substr(0, len));
      if (!dtype)
        return fail();
      rest = rest.substr(std::min(len, rest.size()));
      return DTypeAttr::get(ctx, typeFromDType(ctx, *dtype));
    }
    if (rest.consume_front("\"")) {
      auto [str, after] = rest.split('"');
      rest = after;
      return b.getStringAttr(str);
    }
    size_t len = rest.find_first_not_of("0123456789+-.eE");
    StringRef num = rest.substr(0, len);
    rest = rest.substr(num.size());
    int64_t i;
    if (!num.getAsInteger(10, i))
      return b.getI64IntegerAttr(i);
    double d;
    if (!num.getAsDouble(d))
      return b.getF64FloatAttr(d);
    return fail();
  }
};
} // namespace

Attribute traced::parsePyLiteral(MLIRContext *ctx, StringRef text) {
  LiteralParser p{ctx, text, text};
  Attribute result = p.parse();
  if (!p.rest.trim().empty())
    return p.fail();
  return result;
}

//===----------------------------------------------------------------------===//
// Binding
//===----------------------------------------------------------------------===//

/// Packs the positional arguments a `*args` parameter receives: a single
/// list/tuple (or traced value) is taken as it is, others become a list.
static Attribute packVarargs(MLIRContext *ctx, ArrayRef<Attribute> rest) {
  if (rest.size() == 1 && isa<ArrayAttr, TupleAttr, OperandAttr>(rest[0]))
    return rest[0];
  return ArrayAttr::get(ctx, rest);
}

LogicalResult
traced::bindArguments(MLIRContext *ctx, const Signature &sig, unsigned skip,
                      ArrayRef<Attribute> arguments,
                      ArrayRef<StringRef> keywords,
                      function_ref<InFlightDiagnostic()> emitError,
                      SmallVectorImpl<Attribute> &slots) {
  slots.assign(sig.params.size(), Attribute());
  if (keywords.size() > arguments.size())
    return emitError() << "has more keyword names than arguments";
  ArrayRef<Attribute> positional = arguments.drop_back(keywords.size());
  ArrayRef<Attribute> keywordValues = arguments.take_back(keywords.size());

  unsigned p = skip;
  for (unsigned i = 0; i < positional.size();) {
    if (p >= sig.params.size() || sig.params[p].keywordOnly) {
      // Count the parameters that can be given positionally.
      unsigned maxPositional = 0;
      for (unsigned q = skip; q < sig.params.size(); ++q)
        if (!sig.params[q].keywordOnly || sig.params[q].varargs)
          ++maxPositional;
      return emitError() << "takes " << maxPositional
                         << " positional argument(s) but " << positional.size()
                         << " were given";
    }
    const Param &param = sig.params[p];
    if (param.varargs) {
      slots[p++] = packVarargs(ctx, positional.drop_front(i));
      i = positional.size();
      break;
    }
    slots[p++] = positional[i++];
  }
  for (auto [name, value] : llvm::zip(keywords, keywordValues)) {
    std::optional<unsigned> index = sig.lookup(name);
    if (!index || *index < skip)
      return emitError() << "got an unexpected keyword argument '" << name
                         << "'";
    if (slots[*index])
      return emitError() << "got multiple values for argument '" << name << "'";
    slots[*index] = value;
  }
  for (unsigned q = skip; q < sig.params.size(); ++q) {
    if (slots[q])
      continue;
    const Param &param = sig.params[q];
    if (param.varargs && param.defaultValue.empty()) {
      slots[q] = ArrayAttr::get(ctx, {});
      continue;
    }
    if (param.defaultValue.empty())
      return emitError() << "missing required argument '" << param.name << "'";
    slots[q] = parsePyLiteral(ctx, param.defaultValue);
  }
  return success();
}

/// The one spelling of a list argument: a list, with a single int of an
/// `int[N]` parameter repeated N times and a tuple turned into a list, so
/// that `stride=1`, `stride=(1, 1)` and `stride=[1, 1]` normalize alike.
static Attribute canonicalizeListArgument(MLIRContext *ctx,
                                          const ParamType &type,
                                          Attribute value) {
  if (!type.isList || !value)
    return value;
  if (auto tuple = dyn_cast<TupleAttr>(value))
    return tuple.getElements();
  if (type.listSize > 0 && isa<IntegerAttr, FloatAttr>(value) &&
      !isa<BoolAttr>(value))
    return ArrayAttr::get(ctx, SmallVector<Attribute>(type.listSize, value));
  return value;
}

FailureOr<NormalizedCall>
traced::normalizeArguments(MLIRContext *ctx, const Signature &sig,
                           unsigned skip, ArrayRef<Attribute> arguments,
                           ArrayRef<StringRef> keywords,
                           function_ref<InFlightDiagnostic()> emitError) {
  SmallVector<Attribute> slots;
  if (failed(
          bindArguments(ctx, sig, skip, arguments, keywords, emitError, slots)))
    return failure();
  NormalizedCall result;
  for (unsigned p = skip; p < sig.params.size(); ++p) {
    // Arguments equal to their defaults are left out: the call means the
    // same, and `f(x)` and `f(x, 1)` print alike when 1 is the default.
    const Param &param = sig.params[p];
    Attribute defaultValue =
        param.defaultValue.empty()
            ? (param.varargs ? ArrayAttr::get(ctx, {}) : Attribute())
            : parsePyLiteral(ctx, param.defaultValue);
    Attribute slot = canonicalizeListArgument(ctx, param.type, slots[p]);
    if (slot == canonicalizeListArgument(ctx, param.type, defaultValue))
      continue;
    // Renumber the markers in their new depth-first order.
    slot = replaceOperandMarkers(slot, [&](OperandAttr marker) {
      result.permutation.push_back(marker.getIndex());
      return OperandAttr::get(ctx, result.permutation.size() - 1);
    });
    result.arguments.push_back(slot);
    result.keywords.push_back(sig.params[p].name);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Checking
//===----------------------------------------------------------------------===//

LogicalResult traced::checkArguments(const Signature &sig, unsigned skip,
                                     ArrayRef<Attribute> slots,
                                     TypeRange operandTypes, BoundCall &call) {
  for (unsigned p = skip; p < sig.params.size(); ++p) {
    const Param &param = sig.params[p];
    Attribute slot = slots[p];
    Type type = getPyType(slot, operandTypes);
    // A list of traced values is checked element by element: its list type
    // is `object` when the elements' shapes differ.
    bool ok = param.type.accepts(type);
    if (!ok && param.type.isList)
      if (auto list = dyn_cast<ArrayAttr>(slot)) {
        ParamType elem = param.type;
        elem.isList = false;
        elem.optional = false;
        ok = llvm::all_of(list, [&](Attribute e) {
          return elem.accepts(getPyType(e, operandTypes));
        });
      }
    if (!ok)
      return call.emitError() << "argument '" << param.name << "' expects "
                              << param.type.str() << ", got " << type;
    bool hasOperand = false;
    walkOperandMarkers(slot, [&](OperandAttr) { hasOperand = true; });
    BoundCall::Arg &arg = call[p];
    arg.type = type;
    arg.value = hasOperand ? Attribute() : slot;
    arg.slot = slot;
    arg.elements.clear();
    if (auto list = dyn_cast<ArrayAttr>(slot))
      for (Attribute e : list)
        arg.elements.push_back(getPyType(e, operandTypes));
    else if (auto tuple = dyn_cast<TupleAttr>(slot))
      for (Attribute e : tuple.getElements())
        arg.elements.push_back(getPyType(e, operandTypes));
    else if (auto tupleType = dyn_cast<TupleType>(type))
      llvm::append_range(arg.elements, tupleType.getTypes());
  }
  return success();
}

LogicalResult
traced::checkResults(ArrayRef<Type> inferred, TypeRange resultTypes,
                     function_ref<InFlightDiagnostic()> emitError) {
  if (inferred.empty())
    return success();
  if (inferred.size() != resultTypes.size())
    return emitError() << "returns " << inferred.size()
                       << " result(s), but the op declares "
                       << resultTypes.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(inferred, resultTypes))) {
    auto [expected, declared] = pair;
    // A list of tensors where the entry returns a tuple: what ATen's
    // `Tensor[]` results are in Python (aten.split vs torch.split).
    if (auto list = dyn_cast<ListType>(declared))
      if (auto tuple = dyn_cast_or_null<TupleType>(expected))
        if (llvm::all_of(tuple.getTypes(), [&](Type t) {
              return isCompatibleType(t, list.getElementType()) ||
                     isCompatibleType(list.getElementType(), t);
            }))
          continue;
    if (expected && !isCompatibleType(expected, declared) &&
        !isCompatibleType(declared, expected))
      return emitError() << "result #" << i << " is inferred as " << expected
                         << ", but the op declares " << declared;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// BoundCall accessors
//===----------------------------------------------------------------------===//

const BoundCall::Arg &BoundCall::get(StringRef name) const {
  std::optional<unsigned> index = sig.lookup(name);
  if (!index)
    llvm::report_fatal_error("result rule of '" + target +
                             "' reads unknown parameter '" + name + "'");
  return args[*index];
}

bool BoundCall::isNone(StringRef name) const {
  return isa_and_nonnull<NoneType>(get(name).type);
}

RankedTensorType BoundCall::getTensor(StringRef name) const {
  return dyn_cast_or_null<RankedTensorType>(get(name).type);
}

std::optional<int64_t> BoundCall::getInt(StringRef name) const {
  return getPyInt(get(name).value);
}

std::optional<double> BoundCall::getFloat(StringRef name) const {
  return getPyFloat(get(name).value);
}

std::optional<bool> BoundCall::getBool(StringRef name) const {
  return getPyBool(get(name).value);
}

std::optional<SmallVector<int64_t>> traced::reductionDims(Attribute dim,
                                                          int64_t rank) {
  SmallVector<int64_t> dims;
  if (rank > 0 && dim && !isa<NoneAttr>(dim)) {
    std::optional<SmallVector<int64_t>> given = getPyInts(dim);
    if (!given)
      return std::nullopt;
    for (int64_t d : *given)
      dims.push_back(d < 0 ? d + rank : d);
  }
  if (!dim)
    return std::nullopt;
  if (dims.empty())
    for (int64_t i = 0; i < rank; ++i)
      dims.push_back(i);
  return dims;
}

std::optional<int64_t> traced::getPyInt(Attribute v) {
  auto i = dyn_cast_or_null<IntegerAttr>(v);
  if (!i || i.getType().isInteger(1))
    return std::nullopt;
  return i.getValue().getSExtValue();
}

std::optional<double> traced::getPyFloat(Attribute v) {
  if (auto f = dyn_cast_or_null<FloatAttr>(v))
    return f.getValueAsDouble();
  // (A Python bool is 1 or 0; its i1 attribute would sign-extend to -1.)
  if (auto b = dyn_cast_or_null<BoolAttr>(v))
    return b.getValue() ? 1.0 : 0.0;
  if (auto i = dyn_cast_or_null<IntegerAttr>(v))
    return static_cast<double>(i.getValue().getSExtValue());
  return std::nullopt;
}

std::optional<bool> traced::getPyBool(Attribute v) {
  if (auto b = dyn_cast_or_null<BoolAttr>(v))
    return b.getValue();
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> traced::getPyInts(Attribute v,
                                                     unsigned size) {
  if (!v)
    return std::nullopt;
  if (auto i = dyn_cast<IntegerAttr>(v))
    return SmallVector<int64_t>(size ? size : 1, i.getValue().getSExtValue());
  ArrayRef<Attribute> elems;
  if (auto list = dyn_cast<ArrayAttr>(v))
    elems = list.getValue();
  else if (auto tuple = dyn_cast<TupleAttr>(v))
    elems = tuple.getElements().getValue();
  else
    return std::nullopt;
  SmallVector<int64_t> values;
  for (Attribute e : elems) {
    auto i = dyn_cast<IntegerAttr>(e);
    if (!i)
      return std::nullopt;
    values.push_back(i.getValue().getSExtValue());
  }
  return values;
}

std::optional<SmallVector<int64_t>> BoundCall::getInts(StringRef name,
                                                       unsigned size) const {
  return getPyInts(get(name).value, size);
}

std::optional<SmallVector<int64_t>>
BoundCall::getSizes(StringRef name) const {
  const Arg &arg = get(name);
  if (std::optional<SmallVector<int64_t>> known = getPyInts(arg.value))
    return known;
  ArrayRef<Attribute> elems;
  if (auto list = dyn_cast_or_null<ArrayAttr>(arg.slot))
    elems = list.getValue();
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(arg.slot))
    elems = tuple.getElements().getValue();
  else
    return std::nullopt;
  if (arg.elements.size() != elems.size())
    return std::nullopt;
  SmallVector<int64_t> values;
  for (auto [e, type] : llvm::zip(elems, arg.elements)) {
    if (auto i = dyn_cast<IntegerAttr>(e); i && !isa<BoolAttr>(e))
      values.push_back(i.getValue().getSExtValue());
    else if (isa<OperandAttr>(e) && type && type.isInteger(64))
      values.push_back(ShapedType::kDynamic);
    else
      return std::nullopt;
  }
  return values;
}

InFlightDiagnostic BoundCall::emitError() const { return emitErrorFn(); }

LossTyping traced::lossTyping(StringRef name) {
  return llvm::StringSwitch<LossTyping>(name)
      .Case("torch.nn.functional.huber_loss", LossTyping::AsInput)
      .Case("torch.nn.functional.soft_margin_loss", LossTyping::AsInput)
      .Case("torch.nn.functional.binary_cross_entropy_with_logits",
            LossTyping::AsTarget)
      .Case("torch.nn.functional.binary_cross_entropy", LossTyping::SameDType)
      .Case("torch.nn.functional.kl_div", LossTyping::FloatOperands)
      .Case("torch.nn.functional.poisson_nll_loss", LossTyping::ResultType)
      .Default(LossTyping::Promoted);
}

FailureOr<SmallVector<std::pair<int64_t, int64_t>>>
traced::tensorSplitPieces(int64_t size, std::optional<int64_t> sections,
                          ArrayRef<int64_t> indices, std::string &error) {
  SmallVector<std::pair<int64_t, int64_t>> pieces;
  if (sections) {
    if (*sections < 1) {
      error = "number of sections must be larger than 0, got " + std::to_string(*sections);
      return failure();
    }
    int64_t base = size / *sections, extra = size % *sections, begin = 0;
    for (int64_t i = 0; i < *sections; ++i) {
      int64_t len = base + (i < extra ? 1 : 0);
      pieces.push_back({begin, begin + len});
      begin += len;
    }
    return pieces;
  }
  auto bound = [&](int64_t v) {
    if (v < 0)
      v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  int64_t start = 0;
  for (int64_t cut : indices) {
    int64_t b = bound(start), e = bound(cut);
    pieces.push_back({b, std::max(b, e)});
    start = cut;
  }
  int64_t b = bound(start);
  pieces.push_back({b, std::max(b, size)});
  return pieces;
}

FailureOr<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
traced::tensordotDims(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                      std::optional<int64_t> count, ArrayRef<int64_t> dimsA,
                      ArrayRef<int64_t> dimsB, std::string &error) {
  int64_t ra = a.size(), rb = b.size();
  SmallVector<int64_t> da, db;
  if (count) {
    if (*count < 0) {
      error = "tensordot expects dims >= 0, but got dims=" + std::to_string(*count);
      return failure();
    }
    if (*count > ra || *count > rb) {
      error = "tensordot expects dims < ndim_a or ndim_b, but got dims=" +
              std::to_string(*count);
      return failure();
    }
    for (int64_t i = 0; i < *count; ++i) {
      da.push_back(ra - *count + i);
      db.push_back(i);
    }
  } else {
    if (dimsA.size() != dimsB.size()) {
      error = "both dimension lists should have same length";
      return failure();
    }
    auto norm = [&](ArrayRef<int64_t> in, int64_t rank,
                    SmallVector<int64_t> &out) {
      SmallVector<bool> seen(rank, false);
      for (int64_t d : in) {
        int64_t n = d < 0 ? d + rank : d;
        if (n < 0 || n >= rank) {
          error = "Dimension out of range (expected to be in range of [" +
                  std::to_string(-std::max<int64_t>(rank, 1)) + ", " +
                  std::to_string(std::max<int64_t>(rank, 1) - 1) +
                  "], but got " + std::to_string(d) + ")";
          return false;
        }
        if (seen[n]) {
          error = "dim " + std::to_string(n) +
                  " appears multiple times in the list of dims";
          return false;
        }
        seen[n] = true;
        out.push_back(n);
      }
      return true;
    };
    if (!norm(dimsA, ra, da) || !norm(dimsB, rb, db))
      return failure();
  }
  for (size_t i = 0; i < da.size(); ++i) {
    int64_t sa = a[da[i]], sb = b[db[i]];
    if (sa >= 0 && sb >= 0 && sa != sb) {
      error = "contracted dimensions need to match, but first has size " +
              std::to_string(sa) + " in dim " + std::to_string(da[i]) +
              " and second has size " + std::to_string(sb) + " in dim " +
              std::to_string(db[i]);
      return failure();
    }
  }
  return std::make_pair(da, db);
}

std::optional<FailureOr<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>>
traced::tensordotDimsOf(Attribute dims, ArrayRef<int64_t> a,
                        ArrayRef<int64_t> b, std::string &error) {
  if (std::optional<int64_t> count = getPyInt(dims))
    return tensordotDims(a, b, count, {}, {}, error);
  ArrayRef<Attribute> pair;
  if (auto list = dyn_cast_or_null<ArrayAttr>(dims))
    pair = list.getValue();
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(dims))
    pair = tuple.getElements().getValue();
  if (pair.size() != 2)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> da = getPyInts(pair[0]),
                                      db = getPyInts(pair[1]);
  if (!da || !db)
    return std::nullopt;
  return tensordotDims(a, b, std::nullopt, *da, *db, error);
}

FailureOr<std::pair<SmallVector<int64_t>, SmallVector<double>>>
traced::gradientDims(ArrayRef<int64_t> shape,
                     std::optional<ArrayRef<int64_t>> dims,
                     ArrayRef<double> spacing, int64_t edgeOrder,
                     std::string &error) {
  int64_t rank = shape.size();
  SmallVector<int64_t> ds;
  if (dims) {
    for (int64_t d : *dims) {
      int64_t n = d < 0 ? d + rank : d;
      if (n < 0 || n >= rank) {
        error = "Dimension out of range (expected to be in range of [" +
                std::to_string(-rank) + ", " + std::to_string(rank - 1) +
                "], but got " + std::to_string(d) + ")";
        return failure();
      }
      ds.push_back(n);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      ds.push_back(i);
  }
  if (edgeOrder != 1 && edgeOrder != 2) {
    error = "torch.gradient only supports edge_order=1 and edge_order=2.";
    return failure();
  }
  SmallVector<double> hs;
  if (spacing.size() > 1 && spacing.size() != ds.size()) {
    error = "torch.gradient expected spacing to be unspecified, a scalar or "
            "it's spacing and dim arguments to have the same length, but got "
            "a spacing argument of length " +
            std::to_string(spacing.size()) + " and a dim argument of length " +
            std::to_string(ds.size()) + ".";
    return failure();
  }
  for (size_t i = 0; i < ds.size(); ++i) {
    hs.push_back(spacing.empty() ? 1.0 : spacing.size() == 1 ? spacing[0] : spacing[i]);
    if (shape[ds[i]] >= 0 && shape[ds[i]] < edgeOrder + 1) {
      error = "torch.gradient expected each dimension size to be at least "
              "edge_order+1";
      return failure();
    }
  }
  return std::make_pair(ds, hs);
}

PoissonNllDTypes traced::poissonNllDTypes(PromotionOperand input,
                                          PromotionOperand target,
                                          bool logInput) {
  // exp(x) and log(x + eps) are floating (integers in the default dtype)
  // and as dimensioned as x; a product is dimensioned if either factor is.
  PromotionOperand term{isFloatingPoint(input.dtype) ? input.dtype : kDefaultFloat,
                        input.priority};
  PromotionOperand factor = logInput ? input : term;
  PromotionOperand product{resultType({target, factor}),
                           std::min(target.priority, factor.priority)};
  DType result = logInput ? resultType({term, product}) : resultType({input, product});
  return {term.dtype, product.dtype, result};
}

std::optional<DType> traced::lossResultDType(LossTyping typing,
                                             PromotionOperand inputOperand,
                                             PromotionOperand targetOperand,
                                             std::string &error) {
  DType input = inputOperand.dtype, target = targetOperand.dtype;
  DType promoted = typing == LossTyping::Promoted
                       ? promoteDTypes(input, target)
                       : resultType({inputOperand, targetOperand});
  bool inFloat = isFloatingPoint(input), targetFloat = isFloatingPoint(target);
  auto refuse = [&](const llvm::Twine &why) -> std::optional<DType> {
    error = why.str();
    return std::nullopt;
  };
  std::string pair = ("input " + dtypeName(input) + " and target " +
                      dtypeName(target))
                         .str();
  switch (typing) {
  case LossTyping::ResultType:
    // (Always floating: exp and log of integers are; the caller types it
    // by poissonNllDTypes, which knows log_input.)
    return promoted;
  case LossTyping::Promoted:
    if (!isFloatingPoint(promoted))
      return refuse("expects floating-point input or target, got " + pair);
    return promoted;
  case LossTyping::AsInput:
    if (!inFloat)
      return refuse("computes in the input's dtype, which must be "
                    "floating-point, got " + pair);
    return input;
  case LossTyping::AsTarget:
    if (!inFloat || !targetFloat)
      return refuse("expects floating-point input and target, got " + pair);
    return target;
  case LossTyping::SameDType:
    if (input != target || !inFloat)
      return refuse("expects floating-point input and target of one dtype, "
                    "got " + pair);
    return input;
  case LossTyping::FloatOperands:
    if (!inFloat || !targetFloat)
      return refuse("does not support integral inputs, got " + pair);
    return promoted;
  }
  llvm_unreachable("unknown loss typing");
}

std::string traced::meanOfIntegersError(DType dtype) {
  return ("mean(): could not infer output dtype. Input dtype must be either "
          "a floating point or complex dtype. Got: " +
          torchTypeName(dtype))
      .str();
}

namespace {
/// The steps of a margin loss: torch.result_type of intermediate tensors,
/// each a dtype and a priority (dimensioned or 0-d), and the shapes they
/// broadcast to.
struct LossStep {
  DType dtype;
  PromotionPriority priority;
  operator PromotionOperand() const { return {dtype, priority}; }
};

LossStep stepOf(const LossOperand &o) { return {o.dtype, o.priority()}; }

/// The promoted step of `a` and `b` (dimensioned if either is).
LossStep promoted(LossStep a, LossStep b) {
  return {resultType({a, b}), std::min(a.priority, b.priority)};
}

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return os.str();
}

std::optional<llvm::SmallVector<int64_t>>
broadcastAll(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
             std::string &error) {
  llvm::SmallVector<int64_t> out;
  for (llvm::ArrayRef<int64_t> s : shapes) {
    FailureOr<llvm::SmallVector<int64_t>> b = broadcastShape(out, s);
    if (failed(b)) {
      error = "the operands' shapes " + shapeText(out) + " and " +
              shapeText(s) + " cannot be broadcast together";
      return std::nullopt;
    }
    out = *b;
  }
  return out;
}

/// torch's refusal of `-` with a bool operand.
bool subtractsBool(DType a, DType b, std::string &error) {
  if (a != DType::Bool && b != DType::Bool)
    return false;
  error = a == DType::Bool && b == DType::Bool
              ? "Subtraction, the `-` operator, with two bool tensors is not "
                "supported. Use the `^` or `logical_xor()` operator instead."
              : "Subtraction, the `-` operator, with a bool tensor is not "
                "supported. If you are trying to invert a mask, use the `~` "
                "or `logical_not()` operator instead.";
  return true;
}

/// pairwise_distance(a, b)'s dtype and shape (the norm of a - b + eps over
/// the last dim).
std::optional<MarginLossType> pairwiseType(const LossOperand &a,
                                           const LossOperand &b,
                                           std::string &error) {
  if (subtractsBool(a.dtype, b.dtype, error))
    return std::nullopt;
  std::optional<llvm::SmallVector<int64_t>> shape =
      broadcastAll({a.shape, b.shape}, error);
  if (!shape)
    return std::nullopt;
  if (!shape->empty())
    shape->pop_back();
  return MarginLossType{toFloatingDType(promoted(stepOf(a), stepOf(b)).dtype),
                        *shape};
}

std::optional<MarginLossType> classMarginType(llvm::StringRef name,
                                              const LossOperand &x,
                                              const LossOperand &t,
                                              const std::optional<LossOperand> &w,
                                              std::string &error) {
  bool multilabel = name.ends_with("multilabel_margin_loss");
  auto refuse = [&](const llvm::Twine &why) -> std::optional<MarginLossType> {
    error = why.str();
    return std::nullopt;
  };
  if (x.dtype != DType::F32 && x.dtype != DType::F64)
    return refuse(llvm::Twine(multilabel ? "multilabel_margin_loss_forward_out_frame"
                                         : "multi_margin_loss_cpu_kernel") +
                  " not implemented for '" + torchTypeName(x.dtype) + "'");
  if (t.dtype != DType::I64)
    return refuse("expected a target of dtype int64 (class indices), got " +
                  dtypeName(t.dtype));
  int64_t rank = x.shape.size();
  bool valid = (rank == 2 && x.shape[1] != 0) || (rank == 1 && x.shape[0] != 0) ||
               rank == 0;
  if (!valid)
    return refuse("Expected non-empty vector or matrix with optional 0-dim "
                  "batch size, but got: " + shapeText(x.shape));
  int64_t nframe = rank <= 1 ? 1 : x.shape[0];
  int64_t dim = rank == 0 ? 1 : x.shape[rank - 1];
  int64_t targetNumel = 1;
  for (int64_t s : t.shape)
    targetNumel *= s;
  if (multilabel) {
    bool ok = rank <= 1 ? t.shape.size() <= 1 && targetNumel == dim
                        : t.shape.size() == 2 && t.shape[0] == nframe &&
                              t.shape[1] == dim;
    if (!ok)
      return refuse("inconsistent size " + shapeText(t.shape) +
                    " for argument #2 'target'");
    return MarginLossType{x.dtype, rank <= 1 ? llvm::SmallVector<int64_t>{}
                                             : llvm::SmallVector<int64_t>{nframe}};
  }
  if (t.shape.size() > 1 || targetNumel != nframe)
    return refuse("inconsistent target size, got: " + shapeText(t.shape));
  if (w) {
    if (w->shape.size() != 1)
      return refuse("weight must be one-dimensional");
    if (w->shape[0] != dim)
      return refuse("inconsistent weight size, expected " +
                    std::to_string(dim) + " but got " + shapeText(w->shape));
    if (w->dtype != x.dtype)
      return refuse("expected a weight of the input's dtype " +
                    dtypeName(x.dtype) + ", got " + dtypeName(w->dtype));
  }
  return MarginLossType{x.dtype, t.shape.empty()
                                     ? llvm::SmallVector<int64_t>{}
                                     : llvm::SmallVector<int64_t>{nframe}};
}
} // namespace

static std::optional<MarginLossType>
embeddingLossType(llvm::StringRef name,
                  llvm::function_ref<std::optional<LossOperand>(llvm::StringRef)> get,
                  std::string &error) {
  auto refuse = [&](const llvm::Twine &why) -> std::optional<MarginLossType> {
    error = why.str();
    return std::nullopt;
  };
  if (name.ends_with("margin_ranking_loss")) {
    std::optional<LossOperand> a = get("input1"), b = get("input2"), t = get("target");
    if (a->shape.size() != b->shape.size() || a->shape.size() != t->shape.size())
      return refuse("margin_ranking_loss : All input tensors should have same "
                    "dimension but got sizes: input1: " + shapeText(a->shape) +
                    ", input2: " + shapeText(b->shape) + ", target: " +
                    shapeText(t->shape));
    if (subtractsBool(a->dtype, b->dtype, error))
      return std::nullopt;
    if (t->dtype == DType::Bool)
      return refuse("Negation, the `-` operator, on a bool tensor is not "
                    "supported. If you are trying to invert a mask, use the "
                    "`~` or `logical_not()` operator instead.");
    std::optional<llvm::SmallVector<int64_t>> shape =
        broadcastAll({a->shape, b->shape, t->shape}, error);
    if (!shape)
      return std::nullopt;
    // -target * (input1 - input2) + margin.
    LossStep d = promoted(stepOf(*t), promoted(stepOf(*a), stepOf(*b)));
    return MarginLossType{toFloatingDType(d.dtype), *shape};
  }
  if (name.ends_with("hinge_embedding_loss")) {
    std::optional<LossOperand> x = get("input"), t = get("target");
    // (margin - input is written into a tensor of the input's dtype.)
    if (x->dtype == DType::Bool && subtractsBool(x->dtype, x->dtype, error))
      return std::nullopt;
    std::optional<llvm::SmallVector<int64_t>> shape =
        broadcastAll({x->shape, t->shape}, error);
    if (!shape)
      return std::nullopt;
    return MarginLossType{x->dtype, *shape};
  }
  if (name.ends_with("cosine_embedding_loss")) {
    std::optional<LossOperand> a = get("input1"), b = get("input2"), t = get("target");
    int64_t targetRank = t->shape.size();
    if (targetRank > 1)
      return refuse("0D or 1D target tensor expected, multi-target not "
                    "supported");
    if (static_cast<int64_t>(a->shape.size()) != targetRank + 1)
      return refuse(llvm::Twine(targetRank ? "1D target tensor expects 2D"
                                           : "0D target tensor expects 1D") +
                    " input tensors, but found inputs with sizes " +
                    shapeText(a->shape) + " and " + shapeText(b->shape) + ".");
    if (b->shape.size() != a->shape.size())
      return refuse("cosine_embedding_loss expects input1 and input2 of one "
                    "rank, got sizes " + shapeText(a->shape) + " and " +
                    shapeText(b->shape));
    std::optional<llvm::SmallVector<int64_t>> product =
        broadcastAll({a->shape, b->shape}, error);
    if (!product)
      return std::nullopt;
    // The sums over the target's dim of input1 * input2, input1^2 and
    // input2^2, their cosine, then where(target == 1, ...).
    auto without = [&](llvm::ArrayRef<int64_t> s) {
      llvm::SmallVector<int64_t> r(s);
      r.erase(r.begin() + targetRank);
      return r;
    };
    std::optional<llvm::SmallVector<int64_t>> shape = broadcastAll(
        {without(*product), without(a->shape), without(b->shape), t->shape}, error);
    if (!shape)
      return std::nullopt;
    return MarginLossType{
        toFloatingDType(promoted(stepOf(*a), stepOf(*b)).dtype), *shape};
  }
  return std::nullopt;
}

static std::optional<MarginLossType> marginLossTypeOf(
    llvm::StringRef name,
    llvm::function_ref<std::optional<LossOperand>(llvm::StringRef)> get,
    std::string &error);

std::optional<MarginLossType> traced::marginLossType(
    llvm::StringRef name,
    llvm::function_ref<std::optional<LossOperand>(llvm::StringRef)> get,
    std::string &error) {
  std::optional<MarginLossType> type = marginLossTypeOf(name, get, error);
  if (!type)
    return type;
  // The float16 step torch 1.13 has no CPU kernel for: clamp_min (of the
  // loss, or of gaussian_nll's var), sqrt (cosine_embedding), log_sigmoid
  // (multilabel_soft_margin).
  DType half = type->dtype;
  const char *kernel = "clamp_min_cpu";
  if (name.ends_with("gaussian_nll_loss"))
    half = get("var")->dtype;
  else if (name.ends_with("multilabel_soft_margin_loss"))
    half = get("input")->dtype, kernel = "log_sigmoid_cpu";
  else if (name.ends_with("cosine_embedding_loss"))
    kernel = "sqrt_vml_cpu";
  if (half == DType::F16) {
    error = (llvm::Twine("\"") + kernel + "\" not implemented for 'Half'").str();
    return std::nullopt;
  }
  return type;
}

static std::optional<MarginLossType> marginLossTypeOf(
    llvm::StringRef name,
    llvm::function_ref<std::optional<LossOperand>(llvm::StringRef)> get,
    std::string &error) {
  auto refuse = [&](const llvm::Twine &why) -> std::optional<MarginLossType> {
    error = why.str();
    return std::nullopt;
  };
  if (name.ends_with("margin_ranking_loss") ||
      name.ends_with("hinge_embedding_loss") ||
      name.ends_with("cosine_embedding_loss"))
    return embeddingLossType(name, get, error);
  if (name.ends_with("gaussian_nll_loss")) {
    std::optional<LossOperand> x = get("input"), t = get("target"), v = get("var");
    llvm::SmallVector<int64_t> varShape = v->shape;
    llvm::ArrayRef<int64_t> in = x->shape;
    if (varShape != x->shape) {
      // Homoscedastic: var one dim short of the input, or of size 1 there.
      if (!in.empty() && llvm::ArrayRef<int64_t>(varShape) == in.drop_back())
        varShape.push_back(1);
      else if (!(!in.empty() && !varShape.empty() &&
                 llvm::ArrayRef<int64_t>(varShape).drop_back() == in.drop_back() &&
                 varShape.back() == 1))
        return refuse("var is of incorrect size");
    }
    // var.clamp_(min=eps) writes a float into var.
    if (!isFloatingPoint(v->dtype))
      return refuse("result type Float can't be cast to the desired output "
                    "type " + torchTypeName(v->dtype));
    if (subtractsBool(x->dtype, t->dtype, error))
      return std::nullopt;
    std::optional<llvm::SmallVector<int64_t>> shape =
        broadcastAll({x->shape, t->shape, varShape}, error);
    if (!shape)
      return std::nullopt;
    // 0.5 * (log(var) + (input - target) ** 2 / var).
    LossStep var{v->dtype, varShape.empty() ? PromotionPriority::ZeroDim
                                            : PromotionPriority::Tensor};
    LossStep q = promoted(promoted(stepOf(*x), stepOf(*t)), var);
    q.dtype = toFloatingDType(q.dtype);
    return MarginLossType{promoted(var, q).dtype, *shape};
  }
  if (name.ends_with("multilabel_soft_margin_loss")) {
    std::optional<LossOperand> x = get("input"), t = get("target"), w = get("weight");
    if (!isFloatingPoint(x->dtype))
      return refuse(llvm::Twine("\"log_sigmoid_cpu\" not implemented for '") +
                    torchTypeName(x->dtype) + "'");
    if (t->dtype == DType::Bool && subtractsBool(DType::I64, t->dtype, error))
      return std::nullopt;
    if (x->shape.empty())
      return refuse("Dimension specified as -1 but tensor has no dimensions");
    llvm::SmallVector<llvm::ArrayRef<int64_t>> shapes{x->shape, t->shape};
    LossStep d = promoted(stepOf(*t), stepOf(*x));
    if (w) {
      shapes.push_back(w->shape);
      d = promoted(d, stepOf(*w));
    }
    std::optional<llvm::SmallVector<int64_t>> shape = broadcastAll(shapes, error);
    if (!shape)
      return std::nullopt;
    // loss.sum(dim=input.dim() - 1) / C.
    shape->erase(shape->begin() + (x->shape.size() - 1));
    return MarginLossType{toFloatingDType(d.dtype), *shape};
  }
  if (name.ends_with("triplet_margin_loss")) {
    std::optional<LossOperand> a = get("anchor"), p = get("positive"),
                               n = get("negative");
    if (a->shape.size() != p->shape.size() || p->shape.size() != n->shape.size())
      return refuse("All inputs should have same dimension but got " +
                    std::to_string(a->shape.size()) + "D, " +
                    std::to_string(p->shape.size()) + "D and " +
                    std::to_string(n->shape.size()) + "D inputs.");
    std::optional<MarginLossType> pos = pairwiseType(*a, *p, error);
    std::optional<MarginLossType> neg = pos ? pairwiseType(*a, *n, error) : pos;
    // (swap's distance of positive and negative is typed like these.)
    std::optional<MarginLossType> swap = neg ? pairwiseType(*p, *n, error) : neg;
    if (!swap)
      return std::nullopt;
    std::optional<llvm::SmallVector<int64_t>> shape =
        broadcastAll({pos->shape, neg->shape}, error);
    if (!shape)
      return std::nullopt;
    return MarginLossType{promoteDTypes(pos->dtype, neg->dtype), *shape};
  }
  if (name.ends_with("multi_margin_loss") ||
      name.ends_with("multilabel_margin_loss")) {
    std::optional<LossOperand> w;
    if (name.ends_with("multi_margin_loss"))
      w = get("weight");
    return classMarginType(name, *get("input"), *get("target"), w, error);
  }
  return refuse("not a margin loss: " + name);
}

std::optional<bool> traced::searchsortedSide(llvm::ArrayRef<int64_t> sequence,
                                             std::optional<llvm::ArrayRef<int64_t>> values,
                                             std::optional<std::string> side, bool right,
                                             std::string &error) {
  auto refuse = [&](const llvm::Twine &why) -> std::optional<bool> {
    error = why.str();
    return std::nullopt;
  };
  if (sequence.empty())
    return refuse("torch.searchsorted(): boundaries tensor should have positive "
                  "dimension, but got 0 dimension");
  if (sequence.size() > 1 &&
      (!values || values->size() != sequence.size() ||
       values->drop_back() != sequence.drop_back()))
    return refuse("torch.searchsorted(): boundaries tensor should be 1 dimension or "
                  "the first N-1 dimensions of boundaries tensor and input value "
                  "tensor must match, but we got boundaries tensor " +
                  shapeText(sequence) + " and input value tensor " +
                  (values ? shapeText(*values) : std::string("[]")));
  if (side && *side != "left" && *side != "right")
    return refuse("torch.searchsorted(): side can only be 'left' or 'right' but "
                  "got " + *side);
  if (side && right && *side == "left")
    return refuse("torch.searchsorted(): side and right can't be set to opposites, "
                  "got side of left while right was True");
  return right || (side && *side == "right");
}
