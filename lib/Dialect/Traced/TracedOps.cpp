//===- TracedOps.cpp - traced ops: builders, assembly, verifiers ----------===//

#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/OpLibrary/OpLibrary.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlir::traced;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The `traced.module` a module-instance type names, or null.
///
/// Each traced.module is a symbol table, so MLIR verifies the symbol uses
/// inside it with a collection of its own: a lookup in the enclosing
/// builtin module would build that module's whole table once per
/// traced.module, quadratic in a 10k-deep module tree. The tracer writes a
/// module next to the ones it uses, so the neighbours are tried first
/// (names are uniqued StringAttrs: a pointer compare each); the table is
/// the fallback, so the answer is the same either way.
static traced::ModuleOp lookupModule(Operation *from, ModuleType type,
                                     SymbolTableCollection &symbolTable) {
  auto top = from->getParentOfType<mlir::ModuleOp>();
  if (!top)
    return {};
  StringAttr name = type.getModuleName().getAttr();
  Operation *start = from;
  while (start && start->getParentOp() != top.getOperation())
    start = start->getParentOp();
  if (start) {
    Operation *next = start, *prev = start;
    for (int step = 0; step < 16 && (next || prev); ++step) {
      for (Operation *op : {next, prev})
        if (auto m = dyn_cast_or_null<traced::ModuleOp>(op))
          if (m.getSymNameAttr() == name)
            return m;
      next = next ? next->getNextNode() : nullptr;
      prev = prev ? prev->getPrevNode() : nullptr;
    }
  }
  return symbolTable.lookupSymbolIn<traced::ModuleOp>(top,
                                                      type.getModuleName());
}

/// "@Linear_0 (class 'torch.nn.Linear')", for diagnostics.
static std::string describe(traced::ModuleOp module) {
  return ("@" + module.getSymName() + " (class '" + module.getClassName() +
          "')")
      .str();
}

//===----------------------------------------------------------------------===//
// ModuleOp
//===----------------------------------------------------------------------===//

void traced::ModuleOp::build(OpBuilder &builder, OperationState &state,
                             StringRef name, StringRef className, bool root) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addAttribute(getClassNameAttrName(state.name),
                     builder.getStringAttr(className));
  if (root)
    state.addAttribute(getRootAttrName(state.name), builder.getUnitAttr());
  state.addRegion()->emplaceBlock();
}

StringRef traced::ModuleOp::getDefaultDialect() { return "traced"; }

GraphOp traced::ModuleOp::getForward() {
  return dyn_cast_or_null<GraphOp>(lookupSymbol("forward"));
}

LogicalResult traced::ModuleOp::verify() {
  if (getClassName().empty())
    return emitOpError("needs a class name");
  for (Operation &op : getBody().front())
    if (!isa<SubmoduleOp, ParameterOp, BufferOp, AttributeOp, GraphOp>(op))
      return op.emitOpError("cannot appear in a 'traced.module'; a module "
                            "holds declarations and graphs only");
  // A second root is reported once, against the first.
  if (getRoot())
    for (auto other : (*this)->getParentOp()->getRegion(0).getOps<ModuleOp>()) {
      if (other == *this)
        break;
      if (other.getRoot())
        return emitOpError("is marked root, but so is @") << other.getSymName();
    }
  return success();
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

Type SubmoduleOp::getValueType() {
  return ModuleType::get(getContext(), getModuleAttr());
}

LogicalResult SubmoduleOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto type = cast<ModuleType>(getValueType());
  traced::ModuleOp target = lookupModule(*this, type, symbols);
  if (!target)
    return emitOpError("refers to ")
           << getModuleAttr() << ", which is not a 'traced.module'";
  if (target == (*this)->getParentOp())
    return emitOpError("makes module @")
           << target.getSymName() << " its own submodule";
  return success();
}

template <typename TensorDeclOp>
static LogicalResult verifyTensorDecl(TensorDeclOp op) {
  // A quantized tensor's value holds its storage integers (the quant
  // dialect's types are no element type of builtin elements attributes).
  auto valueType = cast<ElementsAttr>(op.getValue()).getShapedType();
  if (valueType != op.getType() && valueType != quantStorageType(op.getType()))
    return op.emitOpError("value of type ")
           << valueType << " does not match the declared type " << op.getType();
  return success();
}

Type ParameterOp::getValueType() { return getType(); }
LogicalResult ParameterOp::verify() { return verifyTensorDecl(*this); }
Type BufferOp::getValueType() { return getType(); }
LogicalResult BufferOp::verify() { return verifyTensorDecl(*this); }

Type AttributeOp::getValueType() { return getType(); }

LogicalResult AttributeOp::verify() {
  if (!isPyValue(getValue(), /*allowOperands=*/false))
    return emitOpError("value ") << getValue() << " is not a Python value";
  if (!ConstantOp::isValidValue(getValue(), getType()))
    return emitOpError("value of Python type ")
           << getPyType(getValue(), {}) << " does not match the declared type "
           << getType();
  return success();
}

// attribute @name : type = value attr-dict
ParseResult AttributeOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  Type type;
  Attribute value;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes) ||
      parser.parseColonType(type) || parser.parseEqual() ||
      parsePyValue(parser, value, /*operands=*/nullptr) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.addAttribute(getTypeAttrName(result.name), TypeAttr::get(type));
  result.addAttribute(getValueAttrName(result.name), value);
  return success();
}

void AttributeOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << " : " << getType() << " = ";
  printPyValue(p, getValue());
  p.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getTypeAttrName(), getValueAttrName()});
}

//===----------------------------------------------------------------------===//
// GraphOp
//===----------------------------------------------------------------------===//

void GraphOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                    FunctionType type, ArrayRef<StringRef> argNames) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  if (!argNames.empty())
    state.addAttribute(getArgNamesAttrName(state.name),
                       builder.getStrArrayAttr(argNames));
  Region *body = state.addRegion();
  Block &block = body->emplaceBlock();
  for (Type t : type.getInputs())
    block.addArgument(t, state.location);
}

StringRef GraphOp::getDefaultDialect() { return "traced"; }

StringRef GraphOp::getArgName(unsigned i) {
  std::optional<ArrayAttr> names = getArgNames();
  if (!names || i >= names->size())
    return i == 0 ? "self" : "";
  return cast<StringAttr>((*names)[i]).getValue();
}

void GraphOp::getAsmBlockArgumentNames(Region &region,
                                       OpAsmSetValueNameFn setNameFn) {
  if (&region != &getBody())
    return;
  for (BlockArgument arg : region.getArguments())
    if (StringRef name = getArgName(arg.getArgNumber()); !name.empty())
      setNameFn(arg, name);
}

ParseResult GraphOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes))
    return failure();
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  bool isVariadic = false;
  if (function_interface_impl::parseFunctionSignatureWithArguments(
          parser, /*allowVariadic=*/false, args, isVariadic, resultTypes,
          resultAttrs))
    return failure();
  SmallVector<Type> argTypes;
  SmallVector<StringRef> argNames;
  bool anyName = false;
  for (OpAsmParser::Argument &arg : args) {
    argTypes.push_back(arg.type);
    // Keep the names the writer gave the inputs; `%0` is no name.
    StringRef argName = arg.ssaName.name.drop_front();
    if (!argName.empty() && llvm::all_of(argName, llvm::isDigit))
      argName = "";
    anyName |= !argName.empty();
    argNames.push_back(argName);
  }
  result.addAttribute(
      getFunctionTypeAttrName(result.name),
      TypeAttr::get(builder.getFunctionType(argTypes, resultTypes)));
  if (anyName)
    result.addAttribute(getArgNamesAttrName(result.name),
                        builder.getStrArrayAttr(argNames));
  call_interface_impl::addArgAndResultAttrs(builder, result, args, resultAttrs,
                                            getArgAttrsAttrName(result.name),
                                            getResAttrsAttrName(result.name));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return parser.parseRegion(*result.addRegion(), args);
}

void GraphOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  function_interface_impl::printFunctionSignature(
      p, *this, getArgumentTypes(), /*isVariadic=*/false, getResultTypes());
  function_interface_impl::printFunctionAttributes(
      p, *this,
      {getSymNameAttrName(), getFunctionTypeAttrName(), getArgNamesAttrName(),
       getArgAttrsAttrName(), getResAttrsAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

LogicalResult GraphOp::verify() {
  ArrayRef<Type> inputs = getArgumentTypes();
  auto parent = (*this)->getParentOfType<traced::ModuleOp>();
  auto self = inputs.empty() ? ModuleType() : dyn_cast<ModuleType>(inputs[0]);
  if (!self || self.getName() != parent.getSymName())
    return emitOpError("must take `self` of type !traced.module<@")
           << parent.getSymName() << "> as its first argument";
  if (std::optional<ArrayAttr> names = getArgNames())
    if (names->size() != inputs.size())
      return emitOpError("has ") << names->size() << " argument names for "
                                 << inputs.size() << " arguments";
  // Every tensor the graph holds must have a size in bytes that int64 can
  // count (8 bytes an element at most): a shape whose product overflows is
  // refused here rather than wrapped by a later stage.
  auto tooLarge = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor)
      return false;
    std::optional<uint64_t> bytes = tensorBytes(tensor.getShape(), 8);
    return !bytes || *bytes > uint64_t(std::numeric_limits<int64_t>::max());
  };
  for (auto [i, t] : llvm::enumerate(inputs)) {
    auto names = getArgAttrOfType<ArrayAttr>(i, kDimNamesAttr);
    if (!names) {
      if (getArgAttr(i, kDimNamesAttr))
        return emitOpError("input #") << i << "'s " << kDimNamesAttr
                                      << " must be an array of strings";
      continue;
    }
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || names.size() != size_t(tensor.getRank()))
      return emitOpError("input #")
             << i << "'s " << kDimNamesAttr << " has " << names.size()
             << " entries for type " << t << " (one a dim of a ranked tensor)";
    for (auto [d, name] : llvm::enumerate(names)) {
      auto str = dyn_cast<StringAttr>(name);
      if (!str)
        return emitOpError("input #") << i << "'s " << kDimNamesAttr
                                      << " must be an array of strings";
      if (!str.empty() && !tensor.isDynamicDim(d))
        return emitOpError("input #")
               << i << " names dim " << d << " '" << str.getValue()
               << "', but that dim is static in " << t;
    }
  }
  for (auto [i, t] : llvm::enumerate(inputs))
    if (tooLarge(t))
      return emitOpError("input #")
             << i << " has type " << t
             << ", whose size in bytes overflows int64";
  for (Operation &op : getBody().front())
    for (Type t : op.getResultTypes())
      if (tooLarge(t))
        return op.emitOpError("result type ")
               << t << " has a size in bytes that overflows int64";
  return success();
}

LogicalResult GraphOp::verifySymbolUses(SymbolTableCollection &symbols) {
  // Every module-instance type in the signature names a module.
  for (Type t : llvm::concat<const Type>(getArgumentTypes(), getResultTypes()))
    if (auto m = dyn_cast<ModuleType>(t))
      if (!lookupModule(*this, m, symbols))
        return emitOpError("uses ")
               << m << ", but @" << m.getName() << " is not a 'traced.module'";
  return success();
}

LogicalResult OutputOp::verify() {
  auto graph = (*this)->getParentOfType<GraphOp>();
  ArrayRef<Type> expected = graph.getResultTypes();
  if (getResults().size() != expected.size())
    return emitOpError("returns ")
           << getResults().size() << " value(s), but graph @"
           << graph.getSymName() << " declares " << expected.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(getResults(), expected))) {
    auto [value, type] = pair;
    if (value.getType() != type)
      return emitOpError("output #")
             << i << " has type " << value.getType() << ", but graph @"
             << graph.getSymName() << " declares " << type;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GetAttrOp
//===----------------------------------------------------------------------===//

/// The name a getattr result prints with: the attribute's name, prefixed by
/// its owner's for Sequential-style numeric names (`%layer1_0`).
static std::string getAttrResultName(GetAttrOp op) {
  std::string name = op.getName().str();
  if (!name.empty() && llvm::isDigit(name[0]))
    if (auto owner = op.getReceiver().getDefiningOp<GetAttrOp>())
      return getAttrResultName(owner) + "_" + name;
  return name;
}

void GetAttrOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getAttrResultName(*this));
}

LogicalResult GetAttrOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto type = cast<ModuleType>(getReceiver().getType());
  traced::ModuleOp module = lookupModule(*this, type, symbols);
  if (!module)
    return emitOpError("receiver type ") << type << " names no 'traced.module'";
  Operation *decl = symbols.lookupSymbolIn(module, getNameAttr());
  if (!decl)
    return emitOpError("module ")
           << describe(module) << " has no attribute '" << getName() << "'";
  if (isa<GraphOp>(decl))
    return emitOpError("'")
           << getName() << "' is a method of " << describe(module)
           << "; call it with traced.call_method";
  Type declared = TypeSwitch<Operation *, Type>(decl)
                      .Case<SubmoduleOp, ParameterOp, BufferOp, AttributeOp>(
                          [](auto d) { return d.getValueType(); })
                      .Default([](Operation *) { return Type(); });
  if (declared != getResult().getType())
    return emitOpError("result type ")
           << getResult().getType() << " does not match the type " << declared
           << " of " << describe(module) << "'s attribute '" << getName()
           << "'";
  return success();
}

OpFoldResult GetAttrOp::fold(FoldAdaptor) {
  auto top = (*this)->getParentOfType<mlir::ModuleOp>();
  auto type = cast<ModuleType>(getReceiver().getType());
  auto module = top ? dyn_cast_or_null<traced::ModuleOp>(
                          SymbolTable::lookupSymbolIn(top, type.getModuleName()))
                    : traced::ModuleOp();
  if (!module)
    return {};
  auto attr =
      dyn_cast_or_null<AttributeOp>(module.lookupSymbol(getNameAttr()));
  if (!attr || !ConstantOp::isValidValue(attr.getValue(), getType()))
    return {};
  return attr.getValue();
}

namespace {
/// Reuses an earlier getattr of the same attribute of the same receiver.
struct MergeDuplicateGetAttr : OpRewritePattern<GetAttrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GetAttrOp op,
                                PatternRewriter &rewriter) const override {
    for (Operation *user : op.getReceiver().getUsers()) {
      auto other = dyn_cast<GetAttrOp>(user);
      if (other && other != op && other.getName() == op.getName() &&
          other->getBlock() == op->getBlock() && other->isBeforeInBlock(op)) {
        rewriter.replaceOp(op, other.getResult());
        return success();
      }
    }
    return failure();
  }
};
} // namespace

void GetAttrOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<MergeDuplicateGetAttr>(context);
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

bool ConstantOp::isValidValue(Attribute value, Type type) {
  // (A quantized tensor's value holds its storage integers.)
  if (auto elements = dyn_cast<ElementsAttr>(value))
    return elements.getShapedType() == type ||
           elements.getShapedType() == quantStorageType(type);
  if (!isPyValue(value, /*allowOperands=*/false) || isa<TensorType>(type))
    return false;
  return isCompatibleType(type, getPyType(value, {}));
}

void ConstantOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), isa<TensorType>(getType()) ? "const_tensor" : "const");
}

LogicalResult ConstantOp::verify() {
  if (!isValidValue(getValue(), getType()))
    return emitOpError("value ")
           << getValue() << " is not a valid constant of type " << getType();
  return success();
}

// constant <python value> : type    |   constant <elements attr : type>
ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  Attribute value;
  Type type;
  SMLoc loc = parser.getCurrentLocation();
  if (parsePyValue(parser, value, /*operands=*/nullptr))
    return failure();
  if (succeeded(parser.parseOptionalColon())) {
    if (parser.parseType(type))
      return failure();
  } else if (auto typed = dyn_cast<TypedAttr>(value)) {
    // Numbers and elements attributes carried their type with them.
    type = typed.getType();
  } else {
    return parser.emitError(loc, "expected ':' and the constant's type");
  }
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.addAttribute(getValueAttrName(result.name), value);
  result.addTypes(type);
  return success();
}

void ConstantOp::print(OpAsmPrinter &p) {
  p << ' ';
  if (isa<ElementsAttr>(getValue())) {
    p.printAttribute(getValue()); // prints `: type` itself
  } else {
    printPyValue(p, getValue());
    p << " : " << getType();
  }
  p.printOptionalAttrDict((*this)->getAttrs(), {getValueAttrName()});
}

//===----------------------------------------------------------------------===//
// Call ops: assembly
//===----------------------------------------------------------------------===//

/// Parses `(arg, ..., name=arg, ...)`: Python call syntax over operands and
/// Python constants.
static ParseResult
parseCallArguments(OpAsmParser &parser,
                   SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                   SmallVectorImpl<Attribute> &arguments,
                   SmallVectorImpl<std::string> &keywords) {
  return parser.parseCommaSeparatedList(
      OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
        SMLoc loc = parser.getCurrentLocation();
        StringRef word;
        StringRef leading;
        bool isKeyword = false;
        if (succeeded(parser.parseOptionalKeyword(&word))) {
          if (succeeded(parser.parseOptionalEqual()))
            isKeyword = true;
          else if (llvm::is_contained(getPyValueKeywords(), word))
            leading = word;
          else
            return parser.emitError(loc, "expected '=' after keyword "
                                         "argument name '")
                   << word << "'";
        }
        if (isKeyword)
          keywords.push_back(word.str());
        else if (!keywords.empty())
          return parser.emitError(loc, "positional argument follows keyword "
                                       "argument");
        Attribute value;
        if (parsePyValue(parser, value, &operands, leading))
          return failure();
        arguments.push_back(value);
        return success();
      });
}

/// Rewrites parsed or stored call arguments into normalized form when they
/// bind to `sig`; `permute` receives the new-to-old operand permutation.
/// Calls that do not bind are left as they are: the verifier reports them.
static bool tryNormalize(MLIRContext *ctx, const Signature &sig, unsigned skip,
                         SmallVectorImpl<Attribute> &arguments,
                         SmallVectorImpl<std::string> &keywords,
                         function_ref<void(ArrayRef<unsigned>)> permute) {
  SmallVector<StringRef> keywordRefs(keywords.begin(), keywords.end());
  FailureOr<NormalizedCall> normalized;
  {
    ScopedDiagnosticHandler silence(ctx,
                                    [](Diagnostic &) { return success(); });
    normalized =
        normalizeArguments(ctx, sig, skip, arguments, keywordRefs, [&] {
          return mlir::emitError(UnknownLoc::get(ctx));
        });
  }
  if (failed(normalized))
    return false;
  arguments.assign(normalized->arguments);
  keywords.assign(normalized->keywords.begin(), normalized->keywords.end());
  permute(normalized->permutation);
  return true;
}

/// The op library entry a call resolves to, if any. A method call resolves
/// only on a tensor receiver; module receivers are checked against symbols.
static const OpSpec *lookupCallee(CallFunctionOp op) {
  return OpLibrary::get().lookupFunction(op.getCallee());
}
static const OpSpec *lookupCallee(CallMethodOp op) {
  if (!isa<TensorType>(op.getReceiver().getType()))
    return nullptr;
  return OpLibrary::get().lookupMethod(op.getMethod());
}

/// Parses the part shared by both call ops, after the callee:
/// `(args) attr-dict : (operand types) -> (result types)`. `numLeading`
/// operand types belong to operands parsed before (the receiver).
static ParseResult parseCallTail(
    OpAsmParser &parser, OperationState &result,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &leading,
    StringRef argumentsName, StringRef keywordsName,
    function_ref<const Signature *(ArrayRef<Type> leadingTypes)> lookupSig) {
  MLIRContext *ctx = parser.getContext();
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Attribute> arguments;
  SmallVector<std::string> keywords;
  FunctionType fnType;
  SMLoc typeLoc;
  if (parseCallArguments(parser, operands, arguments, keywords) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon())
    return failure();
  typeLoc = parser.getCurrentLocation();
  if (parser.parseType(fnType))
    return failure();
  size_t numLeading = leading.size();
  if (fnType.getNumInputs() != numLeading + operands.size())
    return parser.emitError(typeLoc, "expected ")
           << numLeading + operands.size() << " operand types, got "
           << fnType.getNumInputs();
  ArrayRef<Type> leadingTypes = fnType.getInputs().take_front(numLeading);
  SmallVector<Type> types(fnType.getInputs().drop_front(numLeading));
  if (const Signature *sig = lookupSig(leadingTypes))
    tryNormalize(ctx, *sig, numLeading, arguments, keywords,
                 [&](ArrayRef<unsigned> perm) {
                   SmallVector<OpAsmParser::UnresolvedOperand> o;
                   SmallVector<Type> t;
                   for (unsigned old : perm) {
                     o.push_back(operands[old]);
                     t.push_back(types[old]);
                   }
                   operands = std::move(o);
                   types = std::move(t);
                 });
  if (parser.resolveOperands(leading, leadingTypes, typeLoc, result.operands) ||
      parser.resolveOperands(operands, types, typeLoc, result.operands))
    return failure();
  Builder b(ctx);
  SmallVector<StringRef> keywordRefs(keywords.begin(), keywords.end());
  result.addAttribute(argumentsName, b.getArrayAttr(arguments));
  if (!keywords.empty())
    result.addAttribute(keywordsName, b.getStrArrayAttr(keywordRefs));
  result.addTypes(fnType.getResults());
  return success();
}

template <typename CallOp>
static void printCallTail(OpAsmPrinter &p, CallOp op, TypeRange inputTypes) {
  ValueRange operands = op.getArgs();
  printPyCallArguments(p.getStream(), op.getArgumentsAttr(),
                       op.getKeywordsAttr(), [&](unsigned i) {
                         // Unverified IR may hold a stray marker.
                         if (i < operands.size())
                           p.printOperand(operands[i]);
                         else
                           p << "#traced.operand<" << i << ">";
                       });
  p.printOptionalAttrDict(op->getAttrs(),
                          {op.getArgumentsAttrName(), op.getKeywordsAttrName(),
                           "callee", "method"});
  p << " : ";
  p.printFunctionalType(inputTypes, op->getResultTypes());
}

// call_function "callee"(args) attr-dict : (types) -> (types)
ParseResult CallFunctionOp::parse(OpAsmParser &parser, OperationState &result) {
  std::string callee;
  if (parser.parseString(&callee))
    return failure();
  result.addAttribute(getCalleeAttrName(result.name),
                      parser.getBuilder().getStringAttr(callee));
  SmallVector<OpAsmParser::UnresolvedOperand> none;
  return parseCallTail(
      parser, result, none, getArgumentsAttrName(result.name).getValue(),
      getKeywordsAttrName(result.name).getValue(),
      [&](ArrayRef<Type>) -> const Signature * {
        const OpSpec *spec = OpLibrary::get().lookupFunction(callee);
        return spec ? &spec->signature : nullptr;
      });
}

void CallFunctionOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printString(getCallee());
  printCallTail(p, *this, getArgs().getTypes());
}

// call_method %receiver["method"](args) attr-dict : (types) -> (types)
ParseResult CallMethodOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> receiver(1);
  std::string method;
  if (parser.parseOperand(receiver[0]) || parser.parseLSquare() ||
      parser.parseString(&method) || parser.parseRSquare())
    return failure();
  result.addAttribute(getMethodAttrName(result.name),
                      parser.getBuilder().getStringAttr(method));
  return parseCallTail(
      parser, result, receiver, getArgumentsAttrName(result.name).getValue(),
      getKeywordsAttrName(result.name).getValue(),
      [&](ArrayRef<Type> leading) -> const Signature * {
        if (!isa<TensorType>(leading[0]))
          return nullptr;
        const OpSpec *spec = OpLibrary::get().lookupMethod(method);
        return spec ? &spec->signature : nullptr;
      });
}

void CallMethodOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printOperand(getReceiver());
  p << '[';
  p.printString(getMethod());
  p << ']';
  printCallTail(p, *this, (*this)->getOperandTypes());
}

//===----------------------------------------------------------------------===//
// Call ops: names, effects, normalization
//===----------------------------------------------------------------------===//

/// `relu` -> `relu_out`, `__add__` -> `add_out`, like TracedModule's nodes.
static std::string outName(StringRef name) {
  name = name.rsplit('.').second.empty() ? name : name.rsplit('.').second;
  name = name.trim('_');
  return (name.empty() ? "out" : name + "_out").str();
}

void CallFunctionOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  // Naming the first result only prints several results as `%relu_out:2`.
  if (getNumResults())
    setNameFn(getResult(0), outName(getCallee()));
}

void CallMethodOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  std::string name = outName(getMethod());
  // `linear(x)` prints its result as `linear_out`.
  if (getMethod() == "forward")
    if (auto owner = getReceiver().getDefiningOp<GetAttrOp>())
      name = getAttrResultName(owner) + "_out";
  if (getNumResults())
    setNameFn(getResult(0), name);
}

/// Whether a call passes `inplace=True`.
static bool isInplace(ArrayAttr arguments, ArrayAttr keywords) {
  size_t positional = arguments.size() - keywords.size();
  for (auto [i, kw] : llvm::enumerate(keywords))
    if (cast<StringAttr>(kw).getValue() == "inplace")
      if (auto b = dyn_cast<BoolAttr>(arguments[positional + i]))
        return b.getValue();
  return false;
}

template <typename CallOp>
static void getCallEffects(
    CallOp op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Known pure targets have no effects, so unused calls fold away; anything
  // else (unknown targets, in-place variants, module calls) may mutate.
  const OpSpec *spec = lookupCallee(op);
  if (spec && spec->pure &&
      !isInplace(op.getArgumentsAttr(), op.getKeywordsAttr()))
    return;
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

void CallFunctionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getCallEffects(*this, effects);
}

void CallMethodOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getCallEffects(*this, effects);
}

/// Puts a call to a known target into normalized form in place (a call built
/// or read in another form). Fails when there is nothing to change.
template <typename CallOp>
static LogicalResult normalizeInPlace(CallOp op, unsigned skip) {
  const OpSpec *spec = lookupCallee(op);
  if (!spec)
    return failure();
  MLIRContext *ctx = op.getContext();
  SmallVector<Attribute> arguments(op.getArgumentsAttr().getValue());
  SmallVector<std::string> keywords;
  for (Attribute kw : op.getKeywordsAttr())
    keywords.push_back(cast<StringAttr>(kw).str());
  SmallVector<Value> operands(op.getArgs());
  if (!tryNormalize(ctx, spec->signature, skip, arguments, keywords,
                    [&](ArrayRef<unsigned> perm) {
                      SmallVector<Value> o;
                      for (unsigned old : perm)
                        o.push_back(operands[old]);
                      operands = std::move(o);
                    }))
    return failure();
  Builder b(ctx);
  SmallVector<StringRef> keywordRefs(keywords.begin(), keywords.end());
  ArrayAttr newArguments = b.getArrayAttr(arguments);
  ArrayAttr newKeywords = b.getStrArrayAttr(keywordRefs);
  if (newArguments == op.getArgumentsAttr() &&
      newKeywords == op.getKeywordsAttr())
    return failure();
  op.setArgumentsAttr(newArguments);
  op.setKeywordsAttr(newKeywords);
  op.getArgsMutable().assign(operands);
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Call ops: verification
//===----------------------------------------------------------------------===//

/// Checks what every call must satisfy: arguments are Python values whose
/// operand markers number the argument operands in order; keywords are
/// distinct and follow the positional arguments.
static LogicalResult verifyCallStructure(Operation *op, ArrayAttr arguments,
                                         ArrayAttr keywords,
                                         unsigned numOperands) {
  unsigned next = 0;
  for (auto [i, arg] : llvm::enumerate(arguments)) {
    if (!isPyValue(arg, /*allowOperands=*/true))
      return op->emitOpError("argument #")
             << i << " is not a Python value: " << arg;
    bool ordered = true;
    walkOperandMarkers(arg, [&](OperandAttr marker) {
      ordered &= marker.getIndex() == next++;
    });
    if (!ordered)
      return op->emitOpError("operand markers must number the argument "
                             "operands in depth-first order");
  }
  if (next != numOperands)
    return op->emitOpError("has ")
           << numOperands << " argument operand(s), but its arguments "
           << "reference " << next;
  if (keywords.size() > arguments.size())
    return op->emitOpError("has ") << keywords.size() << " keyword names for "
                                   << arguments.size() << " arguments";
  llvm::StringSet<> seen;
  for (Attribute kw : keywords)
    if (!seen.insert(cast<StringAttr>(kw).getValue()).second)
      return op->emitOpError("repeats keyword argument '")
             << cast<StringAttr>(kw).getValue() << "'";
  return success();
}

static SmallVector<StringRef> keywordNames(ArrayAttr keywords) {
  return llvm::to_vector(llvm::map_range(
      keywords, [](Attribute a) { return cast<StringAttr>(a).getValue(); }));
}

/// Reports errors at a call of an op-library target, naming the target.
static std::function<InFlightDiagnostic()>
targetErrorEmitter(Operation *op, const OpSpec &spec, StringRef target) {
  return [op, &spec, target]() -> InFlightDiagnostic {
    InFlightDiagnostic diag = op->emitOpError();
    diag << "'" << target << "' ";
    if (target != spec.name)
      diag << "(" << spec.name << ") ";
    return diag;
  };
}

/// Checks a call of an op-library target (its arguments bind to the
/// signature and have the parameter types) and infers its result types.
/// `receiver` is a method call's receiver type.
static LogicalResult inferKnownCall(Operation *op, const OpSpec &spec,
                                    StringRef target, ArrayAttr arguments,
                                    ArrayAttr keywords, TypeRange operandTypes,
                                    Type receiver,
                                    SmallVectorImpl<Type> &results) {
  MLIRContext *ctx = op->getContext();
  std::function<InFlightDiagnostic()> emit =
      targetErrorEmitter(op, spec, target);
  unsigned skip = receiver ? 1 : 0;
  SmallVector<Attribute> slots;
  if (failed(bindArguments(ctx, spec.signature, skip, arguments.getValue(),
                           keywordNames(keywords), emit, slots)))
    return failure();
  SmallVector<Type> types(operandTypes);
  if (receiver) {
    slots[0] = OperandAttr::get(ctx, types.size());
    types.push_back(receiver);
  }
  // Rules see the canonical entry, however the call spells it (an ATen
  // overload, an alias).
  BoundCall call(ctx, spec.signature, spec.name, emit);
  if (failed(checkArguments(spec.signature, 0, slots, types, call)))
    return failure();
  return spec.inferResults(call, results);
}

/// Checks a call of an op-library target and its declared results.
static LogicalResult verifyKnownCall(Operation *op, const OpSpec &spec,
                                     StringRef target, ArrayAttr arguments,
                                     ArrayAttr keywords, TypeRange operandTypes,
                                     Type receiver) {
  SmallVector<Type> inferred;
  if (failed(inferKnownCall(op, spec, target, arguments, keywords, operandTypes,
                            receiver, inferred)))
    return failure();
  return checkResults(inferred, op->getResultTypes(),
                      targetErrorEmitter(op, spec, target));
}

LogicalResult CallFunctionOp::verify() {
  if (failed(verifyCallStructure(*this, getArgumentsAttr(), getKeywordsAttr(),
                                 getArgs().size())))
    return failure();
  if (const OpSpec *spec = lookupCallee(*this))
    return verifyKnownCall(*this, *spec, getCallee(), getArgumentsAttr(),
                           getKeywordsAttr(), getArgs().getTypes(), Type());
  return success();
}

LogicalResult CallMethodOp::verify() {
  if (failed(verifyCallStructure(*this, getArgumentsAttr(), getKeywordsAttr(),
                                 getArgs().size())))
    return failure();
  if (const OpSpec *spec = lookupCallee(*this))
    return verifyKnownCall(*this, *spec, ("Tensor." + getMethod()).str(),
                           getArgumentsAttr(), getKeywordsAttr(),
                           getArgs().getTypes(), getReceiver().getType());
  return success();
}

/// Checks that a call's arguments bind to a traced graph's inputs (after
/// self) with their types.
static LogicalResult
verifyGraphArguments(CallMethodOp op, traced::ModuleOp module, GraphOp graph) {
  auto emit = [&]() {
    return op.emitOpError() << "call of " << describe(module)
                            << "::" << graph.getSymName() << ": ";
  };
  ArrayRef<Type> inputs = graph.getArgumentTypes().drop_front();
  ArrayAttr arguments = op.getArgumentsAttr();
  SmallVector<StringRef> keywords = keywordNames(op.getKeywordsAttr());
  size_t positional = arguments.size() - keywords.size();
  if (positional > inputs.size())
    return emit() << "takes " << inputs.size()
                  << " argument(s) after self, but " << positional
                  << " were given";
  SmallVector<Attribute> slots(inputs.size());
  for (size_t i = 0; i < positional; ++i)
    slots[i] = arguments[i];
  for (auto [i, name] : llvm::enumerate(keywords)) {
    std::optional<unsigned> index;
    for (unsigned a = 1; a < graph.getNumArguments(); ++a)
      if (graph.getArgName(a) == name)
        index = a - 1;
    if (!index)
      return emit() << "got an unexpected keyword argument '" << name << "'";
    if (slots[*index])
      return emit() << "got multiple values for argument '" << name << "'";
    slots[*index] = arguments[positional + i];
  }
  for (auto [i, slot] : llvm::enumerate(slots)) {
    if (!slot)
      return emit() << "missing argument #" << i + 1 << " ('"
                    << graph.getArgName(i + 1) << "')";
    Type actual = getPyType(slot, op.getArgs().getTypes());
    if (!isCompatibleType(inputs[i], actual))
      return emit() << "argument #" << i + 1 << " has type " << actual
                    << ", but the graph takes " << inputs[i];
  }
  return success();
}

Attribute traced::leafBindingOverride(const ModuleSpec &spec, StringRef param,
                                     traced::ModuleOp module,
                                     SymbolTableCollection &symbols) {
  if (spec.functional != "torch.nn.functional.batch_norm" || param != "training")
    return {};
  for (StringRef stat : {"running_mean", "running_var"}) {
    auto attr = dyn_cast_or_null<AttributeOp>(symbols.lookupSymbolIn(
        module, StringAttr::get(module.getContext(), stat)));
    if (!attr || !isa<traced::NoneType>(attr.getType()))
      return {};
  }
  return BoolAttr::get(module.getContext(), true);
}

/// Checks `forward` of a leaf module whose class the op library knows and
/// infers its results: the call means the class's functional with the
/// module's attributes bound.
static LogicalResult inferLeafCall(CallMethodOp op, traced::ModuleOp module,
                                   const ModuleSpec &spec,
                                   SymbolTableCollection &symbols,
                                   SmallVectorImpl<Type> &results) {
  MLIRContext *ctx = op.getContext();
  const OpSpec *functional = OpLibrary::get().lookupFunction(spec.functional);
  auto emit = [&]() {
    return op.emitOpError()
           << "'" << spec.className << "' module " << describe(module) << ": ";
  };
  if (op.getMethod() != "forward")
    return emit() << "has no method '" << op.getMethod() << "'";
  SmallVector<Attribute> forwardSlots;
  if (failed(bindArguments(
          ctx, spec.forward, 0, op.getArgumentsAttr().getValue(),
          keywordNames(op.getKeywordsAttr()), emit, forwardSlots)))
    return failure();
  const Signature &sig = functional->signature;
  SmallVector<Attribute> slots(sig.params.size());
  SmallVector<Type> types(op.getArgs().getTypes());
  for (const ModuleBinding &binding : spec.bindings) {
    unsigned p = *sig.lookup(binding.param);
    StringRef source = binding.source;
    if (Attribute fixed =
            leafBindingOverride(spec, binding.param, module, symbols)) {
      slots[p] = fixed;
      continue;
    }
    if (source == "@*") {
      // All the module's parameters, in declaration order (nn.LSTM's).
      SmallVector<Attribute> markers;
      for (ParameterOp param : module.getBody().front().getOps<ParameterOp>()) {
        markers.push_back(OperandAttr::get(ctx, types.size()));
        types.push_back(param.getType());
      }
      slots[p] = ArrayAttr::get(ctx, markers);
      continue;
    }
    if (source.consume_front("@")) {
      bool optional = source.consume_front("?");
      Operation *decl =
          symbols.lookupSymbolIn(module, StringAttr::get(ctx, source));
      if (!decl && optional)
        continue;
      if (auto attr = dyn_cast_or_null<AttributeOp>(decl)) {
        slots[p] = attr.getValue();
      } else if (isa_and_nonnull<ParameterOp, BufferOp>(decl)) {
        // A tensor attribute: only its type matters here.
        slots[p] = OperandAttr::get(ctx, types.size());
        types.push_back(isa<ParameterOp>(decl)
                            ? cast<ParameterOp>(decl).getType()
                            : cast<BufferOp>(decl).getType());
      } else {
        return emit() << "needs attribute '" << source
                      << "' (a parameter, buffer or plain attribute)";
      }
    } else if (source.consume_front("=")) {
      slots[p] = parsePyLiteral(ctx, source);
    } else {
      slots[p] = forwardSlots[*spec.forward.lookup(source)];
    }
  }
  for (auto [p, param] : llvm::enumerate(sig.params))
    if (!slots[p])
      slots[p] = parsePyLiteral(ctx, param.defaultValue);
  BoundCall call(ctx, sig, spec.functional, emit);
  if (failed(checkArguments(sig, 0, slots, types, call)))
    return failure();
  return functional->inferResults(call, results);
}

/// Checks a call of a module instance's method and infers its results: the
/// callee graph's, or those of the leaf class's functional. `graph` is set
/// when the callee is a graph.
static LogicalResult inferModuleCall(CallMethodOp op,
                                     SymbolTableCollection &symbols,
                                     SmallVectorImpl<Type> &results,
                                     GraphOp *graph = nullptr) {
  auto type = cast<ModuleType>(op.getReceiver().getType());
  traced::ModuleOp module = lookupModule(op, type, symbols);
  if (!module)
    return op.emitOpError("receiver type ")
           << type << " names no 'traced.module'";
  Operation *target = symbols.lookupSymbolIn(module, op.getMethodAttr());
  if (auto callee = dyn_cast_or_null<GraphOp>(target)) {
    if (graph)
      *graph = callee;
    if (failed(verifyGraphArguments(op, module, callee)))
      return failure();
    llvm::append_range(results, callee.getResultTypes());
    return success();
  }
  if (target)
    return op.emitOpError("'") << op.getMethod() << "' of " << describe(module)
                               << " is an attribute, not a method";
  if (!module.isLeaf())
    return op.emitOpError("module ")
           << describe(module) << " has no method '" << op.getMethod() << "'";
  if (const ModuleSpec *spec =
          OpLibrary::get().lookupModule(module.getClassName()))
    return inferLeafCall(op, module, *spec, symbols, results);
  return success(); // a leaf of an unknown class: opaque
}

LogicalResult CallMethodOp::verifySymbolUses(SymbolTableCollection &symbols) {
  if (!isa<ModuleType>(getReceiver().getType()))
    return success();
  SmallVector<Type> inferred;
  GraphOp graph;
  if (failed(inferModuleCall(*this, symbols, inferred, &graph)))
    return failure();
  if (!graph) {
    auto module =
        lookupModule(*this, cast<ModuleType>(getReceiver().getType()), symbols);
    const ModuleSpec *spec =
        OpLibrary::get().lookupModule(module.getClassName());
    return checkResults(inferred, getResultTypes(), [&]() {
      return emitOpError() << "'" << (spec ? spec->className : "")
                           << "' module " << describe(module) << ": ";
    });
  }
  // A graph's results must match exactly.
  auto emit = [&]() {
    auto module = graph->getParentOfType<traced::ModuleOp>();
    return emitOpError() << "call of " << describe(module)
                         << "::" << graph.getSymName() << ": ";
  };
  if (inferred.size() != getNumResults())
    return emit() << "the graph returns " << inferred.size()
                  << " value(s), but the call declares " << getNumResults();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(inferred, getResultTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emit() << "result #" << i << " has type " << std::get<1>(pair)
                    << ", but the graph returns " << std::get<0>(pair);
  return success();
}

GraphOp traced::lookupCalleeGraph(Operation *op,
                                  SymbolTableCollection &symbols) {
  auto call = dyn_cast<CallMethodOp>(op);
  if (!call)
    return {};
  auto type = dyn_cast<ModuleType>(call.getReceiver().getType());
  if (!type)
    return {};
  traced::ModuleOp module = lookupModule(op, type, symbols);
  if (!module)
    return {};
  return dyn_cast_or_null<GraphOp>(
      symbols.lookupSymbolIn(module, call.getMethodAttr()));
}

FailureOr<SmallVector<Type>>
traced::inferCallResultTypes(Operation *op, SymbolTableCollection &symbols) {
  SmallVector<Type> results;
  LogicalResult status = success();
  if (auto call = dyn_cast<CallFunctionOp>(op)) {
    if (failed(verifyCallStructure(op, call.getArgumentsAttr(),
                                   call.getKeywordsAttr(),
                                   call.getArgs().size())))
      return failure();
    if (const OpSpec *spec = lookupCallee(call))
      status = inferKnownCall(op, *spec, call.getCallee(),
                              call.getArgumentsAttr(), call.getKeywordsAttr(),
                              call.getArgs().getTypes(), Type(), results);
  } else if (auto call = dyn_cast<CallMethodOp>(op)) {
    if (failed(verifyCallStructure(op, call.getArgumentsAttr(),
                                   call.getKeywordsAttr(),
                                   call.getArgs().size())))
      return failure();
    if (isa<ModuleType>(call.getReceiver().getType()))
      status = inferModuleCall(call, symbols, results);
    else if (const OpSpec *spec = lookupCallee(call))
      status = inferKnownCall(op, *spec, ("Tensor." + call.getMethod()).str(),
                              call.getArgumentsAttr(), call.getKeywordsAttr(),
                              call.getArgs().getTypes(),
                              call.getReceiver().getType(), results);
  }
  if (failed(status))
    return failure();
  return results;
}

//===----------------------------------------------------------------------===//
// Call ops: folding
//===----------------------------------------------------------------------===//

/// Folds a call of an entry with an op-specific fold (OpSpec::fold,
/// lib/OpLibrary/Folds.cpp): identities (eval dropout, contiguous, x * 1,
/// ...) fold to their input, sizes of static shapes to constants.
template <typename CallOp>
static OpFoldResult foldKnownResult(CallOp op, bool isMethod) {
  const OpSpec *spec = lookupCallee(op);
  if (!spec || !spec->fold || op->getNumResults() != 1)
    return {};
  MLIRContext *ctx = op.getContext();
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  Location loc = op.getLoc();
  SmallVector<Attribute> slots;
  if (failed(bindArguments(
          ctx, spec->signature, isMethod ? 1 : 0,
          op.getArgumentsAttr().getValue(), keywordNames(op.getKeywordsAttr()),
          [loc]() { return mlir::emitError(loc); }, slots)))
    return {};
  ValueRange args = op.getArgs();
  auto value = [&](StringRef name) -> Value {
    std::optional<unsigned> p = spec->signature.lookup(name);
    if (!p)
      return {};
    if (isMethod && *p == 0)
      return op->getOperand(0);
    auto marker = dyn_cast_or_null<OperandAttr>(slots[*p]);
    return marker ? args[marker.getIndex()] : Value();
  };
  auto slot = [&](StringRef name) -> Attribute {
    std::optional<unsigned> p = spec->signature.lookup(name);
    return p ? slots[*p] : Attribute();
  };
  return spec->fold(FoldCall{value, slot, op->getResult(0).getType()});
}

LogicalResult CallFunctionOp::fold(FoldAdaptor adaptor,
                                   SmallVectorImpl<OpFoldResult> &results) {
  if (OpFoldResult known = foldKnownResult(*this, false)) {
    results.push_back(known);
    return success();
  }
  // (Constant operands are folded by running kernels in the
  // traced-fold-constants pass, not here: fold() stays cheap and the
  // dialect does not depend on the interpreter's kernels for it.)
  return normalizeInPlace(*this, /*skip=*/0);
}

LogicalResult CallMethodOp::fold(FoldAdaptor adaptor,
                                 SmallVectorImpl<OpFoldResult> &results) {
  if (OpFoldResult known = foldKnownResult(*this, true)) {
    results.push_back(known);
    return success();
  }
  return normalizeInPlace(*this, /*skip=*/1);
}

const OpSpec *traced::lookupKnownCallee(Operation *call) {
  if (auto fn = dyn_cast<CallFunctionOp>(call))
    return lookupCallee(fn);
  if (auto method = dyn_cast<CallMethodOp>(call))
    return lookupCallee(method);
  return nullptr;
}

bool traced::passesInplaceTrue(Operation *call) {
  if (auto fn = dyn_cast<CallFunctionOp>(call))
    return isInplace(fn.getArgumentsAttr(), fn.getKeywordsAttr());
  if (auto method = dyn_cast<CallMethodOp>(call))
    return isInplace(method.getArgumentsAttr(), method.getKeywordsAttr());
  return false;
}

LogicalResult traced::normalizeCallInPlace(Operation *call) {
  if (auto fn = dyn_cast<CallFunctionOp>(call))
    return normalizeInPlace(fn, /*skip=*/0);
  if (auto method = dyn_cast<CallMethodOp>(call))
    return normalizeInPlace(method, /*skip=*/1);
  return failure();
}

#define GET_OP_CLASSES
#include "TracedIR/Dialect/Traced/TracedOps.cpp.inc"
