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
