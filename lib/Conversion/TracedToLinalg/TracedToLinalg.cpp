//===- TracedToLinalg.cpp - the convert-traced-to-linalg pass -------------===//
//
// The pass prepares the entry graph (leaf-module calls become functional
// calls, getattrs of parameters become constants, the graph becomes a
// func.func), then runs one dialect conversion whose call pattern dispatches
// on the canonical target to the lowering table filled by the family files.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "TracedIR/Dialect/Traced/BoundOp.h"

#include "TracedIR/Conversion/Passes.h"
#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Support/FamilyTable.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::traced {
#define GEN_PASS_DEF_CONVERTTRACEDTOLINALG
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;

//===----------------------------------------------------------------------===//
// LoweringCall
//===----------------------------------------------------------------------===//

static bool isMethodCall(Operation *op) { return isa<CallMethodOp>(op); }

Value LoweringCall::original(Attribute slot) const {
  auto marker = dyn_cast_or_null<OperandAttr>(slot);
  if (!marker)
    return {};
  return op->getOperand(marker.getIndex() + (isMethodCall(op) ? 1 : 0));
}

Value LoweringCall::lowered(Attribute slot) const {
  auto marker = dyn_cast_or_null<OperandAttr>(slot);
  if (!marker)
    return {};
  return operands[marker.getIndex() + (isMethodCall(op) ? 1 : 0)];
}

Value LoweringCall::tensor(StringRef name) const {
  std::optional<unsigned> p = spec->signature.lookup(name);
  assert(p && "no such parameter");
  Value v = (isMethodCall(op) && *p == 0) ? operands[0] : lowered(slots[*p]);
  if (v && isa<TensorType>(v.getType()))
    return v;
  return {};
}

Value LoweringCall::scalar(StringRef name) const {
  std::optional<unsigned> p = spec->signature.lookup(name);
  assert(p && "no such parameter");
  if (Value v = lowered(slots[*p])) {
    Type t = v.getType();
    return (t.isInteger(64) || t.isInteger(1) || t.isF64()) ? v : Value();
  }
  Attribute a = value(name);
  if (auto b = dyn_cast_or_null<BoolAttr>(a))
    return arith::ConstantIntOp::create(rewriter, loc, b.getValue(), 1);
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return arith::ConstantIntOp::create(rewriter, loc, i.getInt(), 64);
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return arith::ConstantFloatOp::create(rewriter, loc, rewriter.getF64Type(),
                                          APFloat(f.getValueAsDouble()));
  return {};
}

std::optional<SmallVector<OpFoldResult>>
LoweringCall::sizeList(StringRef name) const {
  Attribute slot = slots[*spec->signature.lookup(name)];
  ArrayRef<Attribute> items;
  if (auto list = dyn_cast_or_null<ArrayAttr>(slot))
    items = list.getValue();
  else if (auto tuple = dyn_cast_or_null<TupleAttr>(slot))
    items = tuple.getElements().getValue();
  else if (slot)
    items = ArrayRef<Attribute>(slots[*spec->signature.lookup(name)]);
  SmallVector<OpFoldResult> sizes;
  for (Attribute item : items) {
    if (auto i = dyn_cast<IntegerAttr>(item)) {
      if (i.getType().isInteger(1))
        return std::nullopt;
      sizes.push_back(rewriter.getIndexAttr(i.getInt()));
      continue;
    }
    if (Attribute known = knownPyValue(original(item)))
      if (auto i = dyn_cast<IntegerAttr>(known); i && !i.getType().isInteger(1)) {
        sizes.push_back(rewriter.getIndexAttr(i.getInt()));
        continue;
      }
    Value v = lowered(item);
    if (!v || !v.getType().isInteger(64))
      return std::nullopt;
    sizes.push_back(
        arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), v)
            .getResult());
  }
  return sizes;
}

FailureOr<SmallVector<Value>> LoweringCall::tensors(StringRef name) const {
  Attribute slot = slots[*spec->signature.lookup(name)];
  SmallVector<Value> values;
  bool ok = true;
  auto list = dyn_cast_or_null<ArrayAttr>(slot);
  if (!list)
    if (auto tuple = dyn_cast_or_null<TupleAttr>(slot))
      list = tuple.getElements();
  if (!list)
    return failure();
  for (Attribute e : list) {
    Value v = lowered(e);
    if (!v || !isa<TensorType>(v.getType()))
      ok = false;
    values.push_back(v);
  }
  if (!ok)
    return failure();
  return values;
}

/// The Python value a traced value has when it is known at compile time.
Attribute LoweringCall::value(StringRef name) const {
  std::optional<unsigned> p = spec->signature.lookup(name);
  assert(p && "no such parameter");
  return resolveKnownMarkers(slots[*p],
                             [&](OperandAttr m) { return original(m); });
}

bool LoweringCall::isNone(StringRef name) const {
  return isa_and_nonnull<NoneAttr>(value(name));
}

std::optional<int64_t> LoweringCall::getInt(StringRef name) const {
  return getPyInt(value(name));
}

std::optional<double> LoweringCall::getFloat(StringRef name) const {
  return getPyFloat(value(name));
}

std::optional<bool> LoweringCall::getBool(StringRef name) const {
  return getPyBool(value(name));
}

std::optional<SmallVector<int64_t>>
LoweringCall::getInts(StringRef name, unsigned size) const {
  return getPyInts(value(name), size);
}

RankedTensorType LoweringCall::resultType(unsigned i, bool dynamic) const {
  RankedTensorType type = logicalResultType(i, dynamic);
  return type ? cast<RankedTensorType>(storageType(type)) : type;
}

RankedTensorType LoweringCall::logicalResultType(unsigned i,
                                                 bool dynamic) const {
  return dynamic ? rankedTensorType(op->getResult(i))
                 : staticTensorType(op->getResult(i));
}

Type LoweringCall::logicalElementType(Value v) const {
  for (auto [lowered, traced] : llvm::zip(operands, op->getOperands()))
    if (lowered == v)
      if (auto t = dyn_cast<ShapedType>(traced.getType()))
        return t.getElementType();
  return cast<ShapedType>(v.getType()).getElementType();
}

SmallVector<Type> LoweringCall::logicalElementTypes(ValueRange values) const {
  return llvm::map_to_vector(values,
                             [&](Value v) { return logicalElementType(v); });
}

void LoweringCall::check(Value ok, const Twine &what) const {
  cf::AssertOp::create(rewriter, loc, ok,
                       checkMessage(loc, "'" + target() + "': " + what));
}

/// What a refusal of `op` (a call of `spec`) adds: the op table's reason
/// when it marks the call interpreter-only, else that it does not (a
/// refusal no mark covers is a compiler gap, docs/reliability.md).
static std::string interpreterOnlyNote(const OpSpec *spec, Operation *op) {
  if (spec)
    if (std::optional<StringRef> why = interpreterOnlyReason(op))
      return (" (interpreter-only in the op library: " + *why + ")").str();
  return " (the interpreter still runs it; the op library does not mark "
         "this call interpreter-only)";
}

LogicalResult LoweringCall::fail(const Twine &why) const {
  return op->emitError() << "cannot lower '" << target()
                         << "' to linalg: " << why
                         << interpreterOnlyNote(spec, op);
}

//===----------------------------------------------------------------------===//
// The lowering table
//===----------------------------------------------------------------------===//

/// Targets whose lowerings handle every element type: they move data, or
/// pick their arithmetic by type (elementwise ops, sum, mean). The others
/// (contractions, convolutions, pooling, normalization, softmax) compute in
/// f32 or f64 only; f16/bf16 would need torch's f32 accumulation. (amax,
/// amin and prod pick their arithmetic by type, like sum.)
static const llvm::StringSet<> &anyElementTypeTargets() {
  static const llvm::StringSet<> names = [] {
    LoweringTable t;
    populateElementwiseLowerings(t);
    populateFactoryLowerings(t);
    populateShapeLowerings(t);
    populateIndexLowerings(t);
    populateSortLowerings(t);
    populateQuantizedLowerings(t);
    llvm::StringSet<> set;
    for (const auto &entry : t)
      set.insert(entry.getKey());
    set.insert("torch.sum");
    set.insert("torch.mean");
    set.insert("torch.amax");
    set.insert("torch.amin");
    set.insert("torch.prod");
    set.insert("torch.argmax");
    set.insert("torch.cumsum");
    set.insert("torch.cumprod");
    // Sorting moves elements; it compares in the compute type (Sort.cpp).
    set.insert("torch.sort");
    set.insert("torch.argsort");
    set.insert("torch.topk");
    set.insert("torch.kthvalue");
    set.insert("torch.argmin");
    // mode widens every dtype for its runtime call (Reduce.cpp).
    set.insert("torch.mode");
    // ctc_loss's targets and lengths are integers (the rule checks
    // log_probs is f32 or f64; Reduce.cpp widens the integers).
    set.insert("torch.nn.functional.ctc_loss");
    // Softmax computes f16/bf16 in f32 and rounds once (Reduce.cpp).
    set.insert("torch.nn.functional.softmax");
    set.insert("torch.nn.functional.log_softmax");
    return set;
  }();
  return names;
}

std::optional<std::string> lowering::elementTypeError(StringRef target,
                                                     Operation *op) {
  if (anyElementTypeTargets().contains(target))
    return std::nullopt;
  // Integer products wrap, as torch's do; bool is no integer here.
  bool integers = llvm::is_contained(ArrayRef<StringRef>{"torch.matmul",
                                                         "torch.mm",
                                                         "torch.bmm"},
                                     target) ||
                  isConvTarget(target);
  // Attention masks may be bool (the lowering reads them as -inf / 0).
  bool boolMasks = target == "torch.nn.functional.multi_head_attention_forward";
  // Average pooling has torch's int64 kernel (a truncating division).
  bool int64s = llvm::is_contained(
      ArrayRef<StringRef>{"torch.nn.functional.avg_pool1d",
                          "torch.nn.functional.avg_pool2d",
                          "torch.nn.functional.avg_pool3d"},
      target);
  // Convolutions and matrix products compute bfloat16 in float32
  // (Linalg.cpp).
  bool bf16 = isConvTarget(target) ||
              llvm::is_contained(
                  ArrayRef<StringRef>{"torch.matmul", "torch.mm", "torch.bmm"},
                  target);
  // LU pivots are int32 (the op library's rules keep the matrices float).
  bool pivots = isLapackTarget(target);
  auto check = [&](Type type) -> std::optional<std::string> {
    auto tensor = dyn_cast<ShapedType>(type);
    if (!tensor || tensor.getElementType().isF32() ||
        tensor.getElementType().isF64())
      return std::nullopt;
    if (pivots && tensor.getElementType().isSignlessInteger(32))
      return std::nullopt;
    if (bf16 && tensor.getElementType().isBF16())
      return std::nullopt;
    if (boolMasks && tensor.getElementType().isInteger(1))
      return std::nullopt;
    if (integers && isa<IntegerType>(tensor.getElementType()) &&
        !tensor.getElementType().isInteger(1))
      return std::nullopt;
    if (int64s && tensor.getElementType().isSignlessInteger(64))
      return std::nullopt;
    std::string message;
    llvm::raw_string_ostream os(message);
    os << "element type " << tensor.getElementType()
       << (integers ? " is not supported (only f32, f64 and integers)"
                    : " is not supported (only f32 and f64)");
    return message;
  };
  for (Value v : op->getOperands())
    if (std::optional<std::string> error = check(v.getType()))
      return error;
  for (Type t : op->getResultTypes())
    if (std::optional<std::string> error = check(t))
      return error;
  return std::nullopt;
}

LogicalResult lowering::checkElementTypes(LoweringCall &c) {
  if (std::optional<std::string> error = elementTypeError(c.target(), c.op))
    return c.fail(*error);
  return success();
}

static const FamilyTable<LowerFn> &getLoweringFamilies() {
  static const FamilyTable<LowerFn> families = [] {
    FamilyTable<LowerFn> f;
    f.add("Elementwise", populateElementwiseLowerings);
    f.add("Factory", populateFactoryLowerings);
    f.add("Linalg", populateLinalgLowerings);
    f.add("Loss", populateLossLowerings);
    f.add("Pool", populatePoolLowerings);
    f.add("Norm", populateNormLowerings);
    f.add("Reduce", populateReduceLowerings);
    f.add("Shape", populateShapeLowerings);
    f.add("Index", populateIndexLowerings);
    f.add("Sort", populateSortLowerings);
    f.add("Quantized", populateQuantizedLowerings);
    return f;
  }();
  return families;
}

const LoweringTable &lowering::getLoweringTable() {
  return getLoweringFamilies().table;
}

StringRef traced::loweringFamily(StringRef entry) {
  return getLoweringFamilies().family.lookup(entry);
}

std::vector<std::string> traced::getLoweredTargets() {
  std::vector<std::string> names;
  for (const auto &entry : getLoweringTable())
    names.push_back(entry.getKey().str());
  // Entries with a decomposition (traced-decompose) are lowered through it.
  for (const std::string &name : getDecomposedTargets())
    if (!getLoweringTable().count(name))
      names.push_back(name);
  // Quantized entries are lowered through traced-lower-quantized.
  for (std::string &name : getQuantizedLoweringTargets())
    names.push_back(std::move(name));
  llvm::sort(names);
  return names;
}

/// Results that are tuples or lists (chunk, multi-head attention) are not
/// tensors; their calls are lowered where `operator.getitem` reads them.
static bool producesAggregate(Operation *op) {
  return llvm::any_of(op->getResultTypes(), [](Type t) {
    return isa<TupleType, ListType>(t);
  });
}

//===----------------------------------------------------------------------===//
// Conversion patterns
//===----------------------------------------------------------------------===//

namespace {
template <typename CallOpT>
struct CallLowering : OpConversionPattern<CallOpT> {
  using OpConversionPattern<CallOpT>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<CallOpT>::OpAdaptor;

  LogicalResult
  matchAndRewrite(CallOpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<BoundOp> bound = bindCall(op, {});
    if (!bound)
      return failure();
    LowerFn fn = getLoweringTable().lookup(bound->spec->name);
    if (!fn)
      return failure();
    LoweringCall call(op, bound->spec, bound->slots, adaptor.getOperands(),
                      rewriter);
    call.remap = [&](Value v) { return rewriter.getRemappedValue(v); };
    if (failed(checkElementTypes(call)))
      return failure();
    FailureOr<SmallVector<Value>> results = fn(call);
    if (failed(results))
      return failure();
    // A call whose only result is None (torch._assert) leaves nothing.
    if (results->empty() && llvm::all_of(op->getResults(), [](Value r) {
          return isa<traced::NoneType>(r.getType()) && r.use_empty();
        })) {
      rewriter.eraseOp(op);
      return success();
    }
    if (results->size() != op->getNumResults())
      return call.fail("produced the wrong number of values");
    for (auto [from, to] : llvm::zip(op->getResults(), *results))
      if (to && this->getTypeConverter()->convertType(from.getType()) !=
                    to.getType())
        return call.fail(Twine("produced a value of the wrong type"));
    rewriter.replaceOp(op, *results);
    return success();
  }
};

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<ElementsAttr>(op.getValue());
    if (!value)
      return failure();
    Value lowered = buildConstant(rewriter, op.getLoc(), value);
    if (!lowered)
      return op.emitError() << "cannot compile the tensor constant of type "
                            << value.getType()
                            << ": its data is missing or has the wrong size";
    rewriter.replaceOp(op, lowered);
    return success();
  }
};

/// A Python number a graph may return: int (i64), float (f64), bool (i1).
static bool isPythonScalar(Type t) {
  return t.isInteger(64) || t.isInteger(1) || t.isF64();
}

/// The graph's outputs; a Python number becomes a 0-d tensor of its storage
/// type (the entry's results were retyped so; bool is stored as i8).
struct OutputLowering : OpConversionPattern<OutputOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OutputOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> results;
    Location loc = op.getLoc();
    for (Value v : adaptor.getOperands()) {
      Type t = v.getType();
      if (!isPythonScalar(t)) {
        results.push_back(v);
        continue;
      }
      if (auto c = v.getDefiningOp<ConstantOp>()) {
        Attribute value = c.getValue();
        if (auto b = dyn_cast<BoolAttr>(value))
          value = rewriter.getIntegerAttr(t, b.getValue());
        auto typed = dyn_cast<TypedAttr>(value);
        if (!typed || typed.getType() != t)
          return op.emitError() << "cannot compile the constant output "
                                << c.getValue();
        v = arith::ConstantOp::create(rewriter, loc, typed);
      }
      if (t.isInteger(1))
        v = arith::ExtUIOp::create(rewriter, loc, rewriter.getI8Type(), v);
      results.push_back(tensor::FromElementsOp::create(
          rewriter, loc, RankedTensorType::get({}, v.getType()), v));
    }
    rewriter.replaceOpWithNewOp<func::ReturnOp>(op, results);
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertTracedToLinalgPass
    : traced::impl::ConvertTracedToLinalgBase<ConvertTracedToLinalgPass> {
  using Base::Base;

  /// The stages, in order.
  void runOnOperation() override;
  FailureOr<llvm::BitVector> checkSignature(GraphOp graph);
  void flattenTupleOutputs(GraphOp graph);
  LogicalResult prepare(GraphOp graph, SymbolTableCollection &symbols);
  LogicalResult decomposeUnlowered(GraphOp graph);
  FailureOr<func::FuncOp> graphToFunction(traced::ModuleOp root, GraphOp graph,
                                          const llvm::BitVector &noneInputs,
                                          FunctionType &entryType);
  LogicalResult checkTargets(func::FuncOp func);
  LogicalResult convertCalls(func::FuncOp func);
  LogicalResult eraseLeftovers(func::FuncOp func);
  LogicalResult finishEntry(func::FuncOp func, GraphOp graph,
                            const llvm::BitVector &noneInputs,
                            FunctionType entryType);
  /// Why decompositions declined calls, by target.
  llvm::StringMap<std::string> declinedDecompositions;
};
} // namespace

/// Leaf-module calls become functional calls; getattrs of tensors become
/// constants; calls of traced graphs are refused.
LogicalResult
ConvertTracedToLinalgPass::prepare(GraphOp graph,
                                   SymbolTableCollection &symbols) {
  auto top = getOperation();
  // Leaf-module calls first: their functional forms add getattrs of the
  // module's parameters, which the second walk turns into constants.
  SmallVector<CallMethodOp> calls;
  graph.walk([&](CallMethodOp call) { calls.push_back(call); });
  for (CallMethodOp call : calls) {
    auto type = dyn_cast<ModuleType>(call.getReceiver().getType());
    if (!type)
      continue;
    auto module =
        symbols.lookupSymbolIn<traced::ModuleOp>(top, type.getModuleName());
    if (module && !module.isLeaf())
      return call.emitError()
             << "call of the traced graph '" << module.getSymName() << "."
             << call.getMethod()
             << "' cannot be compiled; run traced-flatten first";
    // (makeLeafCallFunctional replaces and erases the call.)
    if (failed(makeLeafCallFunctional(call, symbols)))
      return call.emitError() << "call of module '" << type.getModuleName()
                              << "' has no functional form to compile";
  }
  SmallVector<Operation *> ops;
  graph.walk([&](Operation *op) { ops.push_back(op); });
  llvm::SmallPtrSet<Operation *, 8> erased;
  for (Operation *op : ops) {
    if (erased.contains(op))
      continue;
    // Shape queries of static shapes are compile-time values: fold them
    // (their folders do) rather than lower them.
    if (isa<CallFunctionOp, CallMethodOp>(op)) {
      std::optional<BoundOp> bound = bindCall(op, {});
      if (bound && llvm::is_contained(ArrayRef<StringRef>{"Tensor.size",
                                                          "Tensor.dim",
                                                          "builtins.getattr"},
                                      bound->spec->name)) {
        SmallVector<OpFoldResult> folded;
        if (succeeded(op->fold(folded)) &&
            folded.size() == op->getNumResults() &&
            llvm::all_of(folded, [](OpFoldResult r) {
              return isa<Attribute>(r);
            })) {
          OpBuilder b(op);
          for (auto [result, value] : llvm::zip(op->getResults(), folded))
            result.replaceAllUsesWith(
                ConstantOp::create(b, op->getLoc(), result.getType(),
                                   cast<Attribute>(value)));
          op->erase();
          continue;
        }
        // A dynamic shape read element by element (`x.shape[0]`,
        // `x.size()[0]`): each element is `x.size(dim=i)`, which lowers
        // to tensor.dim.
        auto name = dyn_cast_or_null<StringAttr>(bound->slot("name"));
        bool whole = bound->spec->name == "builtins.getattr"
                         ? name && name.getValue() == "shape"
                         : bound->spec->name == "Tensor.size" &&
                               isa_and_nonnull<NoneAttr>(bound->slot("dim"));
        Value x = bound->value("input");
        if (whole && x && isa<RankedTensorType>(x.getType())) {
          for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
            std::optional<BoundOp> get = bindCall(user, {"operator.getitem"});
            auto index = get ? dyn_cast_or_null<IntegerAttr>(get->slot("index"))
                             : IntegerAttr();
            if (!index || user->getNumResults() != 1)
              continue;
            auto type = cast<RankedTensorType>(x.getType());
            int64_t d = normalizeDim(index.getInt(), type.getRank());
            if (d < 0 || d >= type.getRank())
              continue;
            OpBuilder b(user);
            // (A static dim is a number, as when the whole shape folds.)
            Value size =
                type.isDynamicDim(d)
                    ? CallMethodOp::create(
                          b, user->getLoc(), user->getResultTypes(), x,
                          b.getStringAttr("size"), ValueRange{},
                          b.getArrayAttr({index}), b.getStrArrayAttr({"dim"}))
                          .getResult(0)
                    : ConstantOp::create(
                          b, user->getLoc(), user->getResult(0).getType(),
                          b.getI64IntegerAttr(type.getDimSize(d)))
                          .getResult();
            user->getResult(0).replaceAllUsesWith(size);
            erased.insert(user);
            user->erase();
          }
          if (op->use_empty())
            op->erase();
        }
        continue;
      }
      // A pure call whose results are all empty tensors computes nothing:
      // it becomes empty constants, whatever its target (an empty softmax
      // of integers, which torch returns early, has no lowering otherwise).
      // The verifier has checked its types, and nothing is read at run time.
      // Not when the emptiness is the trace's (the result rule leaves the
      // size to the values: nonzero of an all-zero example): that size is
      // checked at run time by the lowering.
      auto empty = [](Type t) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        return tensor && tensor.hasStaticShape() &&
               tensor.getNumElements() == 0;
      };
      FailureOr<SmallVector<Type>> ruled =
          bound && bound->spec->pure && op->getNumResults() &&
                  llvm::all_of(op->getResultTypes(), empty)
              ? inferCallResultTypes(op, symbols)
              : FailureOr<SmallVector<Type>>(failure());
      // (A rule that answers "unknown" gives no types.)
      if (succeeded(ruled) && ruled->size() == op->getNumResults() &&
          llvm::all_of(*ruled, empty)) {
        OpBuilder b(op);
        for (OpResult result : op->getResults()) {
          // (A quantized constant holds its storage integers.)
          auto type = cast<RankedTensorType>(result.getType());
          result.replaceAllUsesWith(ConstantOp::create(
              b, op->getLoc(), type,
              DenseElementsAttr::get(
                  cast<RankedTensorType>(quantStorageType(type)),
                  ArrayRef<Attribute>{})));
        }
        op->erase();
        continue;
      }
    }
    auto get = dyn_cast<GetAttrOp>(op);
    if (!get || !isa<TensorType>(get.getType()))
      continue;
    auto type = cast<ModuleType>(get.getReceiver().getType());
    auto module =
        symbols.lookupSymbolIn<traced::ModuleOp>(top, type.getModuleName());
    Operation *decl = module ? module.lookupSymbol(get.getName()) : nullptr;
    ElementsAttr value;
    if (auto p = dyn_cast_or_null<ParameterOp>(decl))
      value = p.getValue();
    else if (auto b = dyn_cast_or_null<BufferOp>(decl))
      value = b.getValue();
    if (!value)
      return get.emitError() << "cannot compile getattr of '" << get.getName()
                             << "': not a parameter or buffer";
    // (A traced constant: the conversion gives it its storage type.)
    OpBuilder b(get);
    get.replaceAllUsesWith(
        ConstantOp::create(b, get.getLoc(), get.getType(), value).getResult());
    get.erase();
  }
  return success();
}

/// Reports every call the table cannot lower, with its target.
LogicalResult ConvertTracedToLinalgPass::checkTargets(func::FuncOp func) {
  bool ok = true;
  func.walk([&](Operation *op) {
    if (!isa<CallFunctionOp, CallMethodOp>(op))
      return;
    std::optional<BoundOp> bound = bindCall(op, {});
    if (!bound) {
      StringRef name;
      if (auto f = dyn_cast<CallFunctionOp>(op))
        name = f.getCallee();
      else
        name = cast<CallMethodOp>(op).getMethod();
      op->emitError() << "cannot compile a call of '" << name
                      << "': not a target of the op library";
      ok = false;
      return;
    }
    if (!getLoweringTable().lookup(bound->spec->name)) {
      InFlightDiagnostic diag = op->emitError();
      diag << "no lowering to linalg for '" << bound->spec->name << "'";
      auto why = declinedDecompositions.find(bound->spec->name);
      if (why != declinedDecompositions.end())
        diag << " (its decomposition does not apply: " << why->second << ")";
      diag << interpreterOnlyNote(bound->spec, op);
      ok = false;
    }
  });
  return success(ok);
}

/// For an entry with dynamic dims, `<entry>_output_dims`: the same inputs,
/// returning every dim of every output (index values, outputs in order):
/// the entry with its results replaced by their `tensor.dim`s, resolved
/// through the ops' shape reification until only sizes of the inputs are
/// left. The compiled code calls it to know the sizes of the buffers it
/// writes (traced-emit-entry); it fails when an output's size depends on
/// data rather than on the inputs' sizes.
static LogicalResult buildOutputDims(func::FuncOp entry) {
  MLIRContext *ctx = entry.getContext();
  OpBuilder b(entry);
  b.setInsertionPointAfter(entry);
  auto fn = cast<func::FuncOp>(b.clone(*entry));
  fn.setSymName((entry.getSymName() + "_output_dims").str());
  fn->removeAttr("traced.entry");
  fn->setAttr("traced.output_dims_of",
              FlatSymbolRefAttr::get(ctx, entry.getSymName()));
  // The checks stay with the entry; here they would keep data reads alive.
  fn.walk([](cf::AssertOp op) { op.erase(); });
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  b.setInsertionPoint(ret);
  SmallVector<Value> dims;
  for (Value r : ret.getOperands())
    for (OpFoldResult size : dimSizes(b, ret.getLoc(), r))
      dims.push_back(getValueOrCreateConstantIndexOp(b, ret.getLoc(), size));
  func::ReturnOp::create(b, ret.getLoc(), dims);
  ret.erase();
  fn.setFunctionType(FunctionType::get(ctx, fn.getArgumentTypes(),
                                       ValueRange(dims).getTypes()));
  RewritePatternSet patterns(ctx);
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  memref::populateResolveShapedTypeResultDimsPatterns(patterns);
  tensor::DimOp::getCanonicalizationPatterns(patterns, ctx);
  arith::ArithDialect *arith = ctx->getLoadedDialect<arith::ArithDialect>();
  arith->getCanonicalizationPatterns(patterns);
  if (failed(applyPatternsGreedily(fn, std::move(patterns))))
    return fn.emitError("cannot resolve the output sizes");
  WalkResult data = fn.walk([&](Operation *op) {
    bool sizeOnly =
        op == fn.getOperation() ||
        isa<func::ReturnOp, affine::AffineApplyOp, affine::AffineMinOp,
            affine::AffineMaxOp>(op) ||
        // (math.ceil / floor / trunc of a size: `math.ceil(n / 2)`.)
        isa<math::CeilOp, math::FloorOp, math::TruncOp>(op) ||
        isa<arith::ArithDialect>(op->getDialect()) ||
        (isa<tensor::DimOp>(op) &&
         isa<BlockArgument>(cast<tensor::DimOp>(op).getSource()));
    if (sizeOnly)
      return WalkResult::advance();
    entry.emitError("an output's size depends on the data (")
        << op->getName() << "), which compiled code with dynamic dims "
        << "does not support";
    return WalkResult::interrupt();
  });
  if (data.wasInterrupted()) {
    fn.erase();
    return failure();
  }
  return success();
}

/// Inputs that can only be None become constants (set in the result);
/// every other input and output must be a ranked tensor or a Python
/// number.
FailureOr<llvm::BitVector>
ConvertTracedToLinalgPass::checkSignature(GraphOp graph) {
  MLIRContext *ctx = &getContext();
  FunctionType type = graph.getFunctionType();
  // Inputs that can only be None (a forward's `offsets=None` the trace saw
  // as None, as nn.EmbeddingBag's) are constants of the compiled code,
  // which does not take them.
  llvm::BitVector noneInputs(type.getNumInputs());
  {
    OpBuilder nb = OpBuilder::atBlockBegin(&graph.getBody().front());
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      if (i == 0 || !isa<traced::NoneType>(t))
        continue;
      noneInputs.set(i);
      Value arg = graph.getBody().front().getArgument(i);
      if (!arg.use_empty())
        arg.replaceAllUsesWith(
            ConstantOp::create(nb, graph.getLoc(), t, NoneAttr::get(ctx)));
    }
  }
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    if (i == 0 || noneInputs.test(i))
      continue;
    if (!isa<RankedTensorType>(t) && !isPythonScalar(t)) {
      graph.emitError() << "input " << i << " ('" << graph.getArgName(i)
                        << "') has type " << t
                        << "; compiled graphs take ranked tensors and "
                           "Python numbers (int, float, bool)";
      return failure();
    }
  }
  flattenTupleOutputs(graph);
  for (Type t : graph.getFunctionType().getResults()) {
    if (!isa<RankedTensorType>(t) && !isPythonScalar(t)) {
      graph.emitError() << "an output has type " << t
                        << "; compiled graphs return ranked tensors and "
                           "Python numbers (int, float, bool)";
      return failure();
    }
  }
  return noneInputs;
}

/// Outputs that are tuples a call returned (an LSTM's `(h, c)` beside its
/// output) become their elements, depth first, read with
/// `operator.getitem`: the compiled code returns the leaves, and the
/// caller (CompiledModule) nests them again by the graph's output types.
void ConvertTracedToLinalgPass::flattenTupleOutputs(GraphOp graph) {
  auto output = cast<OutputOp>(graph.getBody().front().getTerminator());
  if (llvm::none_of(output.getResults().getTypes(),
                    [](Type t) { return isa<TupleType>(t); }))
    return;
  MLIRContext *ctx = &getContext();
  OpBuilder b(output);
  SmallVector<Value> leaves;
  std::function<void(Value)> flatten = [&](Value v) {
    auto tuple = dyn_cast<TupleType>(v.getType());
    if (!tuple) {
      leaves.push_back(v);
      return;
    }
    for (auto [i, element] : llvm::enumerate(tuple.getTypes()))
      flatten(CallFunctionOp::create(
                  b, output.getLoc(), TypeRange{element},
                  b.getStringAttr("operator.getitem"), ValueRange{v},
                  b.getArrayAttr({OperandAttr::get(ctx, 0),
                                  b.getI64IntegerAttr(i)}),
                  b.getStrArrayAttr({"input", "index"}))
                  ->getResult(0));
  };
  for (Value v : output.getResults())
    flatten(v);
  OutputOp::create(b, output.getLoc(), leaves);
  output.erase();
  FunctionType type = graph.getFunctionType();
  graph.setFunctionTypeAttr(TypeAttr::get(FunctionType::get(
      ctx, type.getInputs(), ValueRange(leaves).getTypes())));
}

/// Decomposes what has no direct lowering, or a lowering that declines it.
LogicalResult ConvertTracedToLinalgPass::decomposeUnlowered(GraphOp graph) {
  // Calls without a direct lowering that have a decomposition are written
  // as the calls it builds (which may decompose in turn); so are calls
  // whose direct lowering does not take their element types (an integer
  // linear is matmul and add; a bfloat16 call with no decomposition of its
  // own, layer_norm or pooling, becomes the float32 call rounded back
  // once), and calls of the entries
  // whose decomposition takes the cases their lowering does not (it
  // declines the others: `x[i] = v` with index tensors is index_put, with
  // a basic index a direct insert_slice; training-mode batch_norm is eval
  // batch_norm by the batch's statistics). The factories and shape ops
  // whose constant forms decompose (to constants, masks, slices) and whose
  // lowerings take what is known only at run time (sizes as values) are
  // such entries too.
  static const llvm::StringSet<> decomposedFirst = {
      "operator.setitem", "torch.nn.functional.batch_norm", "torch.zeros",
      "torch.ones",       "torch.full",                     "torch.empty",
      "torch.arange",     "torch.tril",                     "torch.triu",
      "torch.narrow",     "torch.numel",                    "Tensor.repeat"};
  llvm::StringMap<std::string> declined;
  if (failed(decomposeCalls(
          graph,
          [](Operation *call, StringRef target) {
            return !getLoweringTable().count(target) ||
                   decomposedFirst.contains(target) ||
                   elementTypeError(target, call).has_value();
          },
          &declined, /*widenHalf=*/true)))
    return failure();
  declinedDecompositions = std::move(declined);

  return success();
}

/// The graph as a function (still taking `self`): Python-number inputs as
/// 0-d buffers read once, Python-number outputs as 0-d tensors, the
/// entry's traced signature in `entryType` and `traced.entry`.
FailureOr<func::FuncOp> ConvertTracedToLinalgPass::graphToFunction(
    traced::ModuleOp root, GraphOp graph, const llvm::BitVector &noneInputs,
    FunctionType &entryType) {
  // The graph becomes a function (still with `self` until the end).
  MLIRContext *ctx = &getContext();
  FunctionType type = graph.getFunctionType();
  OpBuilder b(root);
  auto func = func::FuncOp::create(b, graph.getLoc(), entry, type);
  func.getBody().takeBody(graph.getBody());
  if (failed(func.eraseArguments(noneInputs)))
    return failure();
  // A Python number the graph takes (`forward(self, x, scale=1.0)`) comes
  // in as a 0-d tensor of its storage type (int64, float64, bool as i8),
  // read once at the entry; the entry's type keeps the logical 0-d type,
  // so callers see a 0-d int64/float64/bool input.
  SmallVector<Type> entryInputs(func.getFunctionType().getInputs());
  {
    Block &body = func.getBody().front();
    OpBuilder eb = OpBuilder::atBlockBegin(&body);
    SmallVector<Type> argTypes(entryInputs);
    for (auto [i, t] : llvm::enumerate(entryInputs)) {
      if (i == 0 || !isPythonScalar(t))
        continue;
      auto logical = RankedTensorType::get({}, t);
      auto stored = cast<RankedTensorType>(storageType(logical));
      BlockArgument arg = body.getArgument(i);
      arg.setType(stored);
      Value v = tensor::ExtractOp::create(eb, arg.getLoc(), arg, ValueRange{});
      Operation *read = v.getDefiningOp();
      if (stored.getElementType() != t) // bool: stored as i8
        v = arith::CmpIOp::create(
            eb, arg.getLoc(), arith::CmpIPredicate::ne, v,
            arith::ConstantIntOp::create(eb, arg.getLoc(), 0, 8));
      arg.replaceAllUsesExcept(v, read);
      argTypes[i] = stored;
      entryInputs[i] = logical;
    }
    func.setFunctionType(
        FunctionType::get(ctx, argTypes, func.getFunctionType().getResults()));
  }
  // A Python number the graph returns (`x.numel()`, `float(t)`) comes
  // out as a 0-d tensor of its type (int64, float64, bool); the entry's
  // `traced.scalar_outputs` lists them so callers can give numbers back.
  SmallVector<Type> resultTypes;
  SmallVector<int64_t> scalarOutputs;
  for (auto [i, t] : llvm::enumerate(func.getFunctionType().getResults())) {
    resultTypes.push_back(t);
    if (isPythonScalar(t)) {
      scalarOutputs.push_back(i);
      resultTypes.back() = RankedTensorType::get({}, t);
    }
  }
  func.setFunctionType(FunctionType::get(
      ctx, func.getFunctionType().getInputs(), resultTypes));
  if (!scalarOutputs.empty())
    func->setAttr("traced.scalar_outputs",
                  DenseI64ArrayAttr::get(ctx, scalarOutputs));
  type = func.getFunctionType();
  entryType = FunctionType::get(ctx, ArrayRef<Type>(entryInputs).drop_front(),
                                type.getResults());
  func->setAttr("traced.entry", TypeAttr::get(entryType));

  return func;
}

/// The dialect conversion of the function's traced ops to linalg, tensor,
/// arith and math, with tensors in their storage types.
LogicalResult ConvertTracedToLinalgPass::convertCalls(func::FuncOp func) {
  MLIRContext *ctx = &getContext();
  // Tensors get their storage types (bool as i8, uint8 as signless i8);
  // legal ops that still read a converted value (tuple producers, until
  // their elements are lowered) read it through a cast that dies with them.
  TypeConverter converter;
  // (Python values, such as i1 flags, keep their types.)
  converter.addConversion([](Type t) {
    return isa<RankedTensorType>(t) ? storageType(t) : t;
  });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  converter.addSourceMaterialization(cast);
  converter.addTargetMaterialization(cast);

  ConversionTarget target(*ctx);
  target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                         math::MathDialect, tensor::TensorDialect,
                         scf::SCFDialect>();
  // Run-time checks (LoweringCall::check).
  target.addLegalOp<cf::AssertOp>();
  // Calls of the linear-algebra runtime (Linalg.cpp, docs/linalg-runtime.md).
  target.addLegalDialect<memref::MemRefDialect,
                         bufferization::BufferizationDialect>();
  target.addLegalOp<func::CallOp>();
  target.addLegalOp<func::ReturnOp, UnrealizedConversionCastOp>();
  target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
    return converter.isSignatureLegal(f.getFunctionType());
  });
  target.addIllegalDialect<TracedDialect>();
  // Python values and modules stay until nothing reads them; tuple and list
  // producers are lowered where their elements are read.
  target.addDynamicallyLegalOp<ConstantOp>(
      [](ConstantOp op) { return !isa<ElementsAttr>(op.getValue()); });
  target.addLegalOp<GetAttrOp>();
  target.addDynamicallyLegalOp<CallFunctionOp, CallMethodOp>(
      [](Operation *op) { return producesAggregate(op); });
  RewritePatternSet patterns(ctx);
  patterns.add<CallLowering<CallFunctionOp>, CallLowering<CallMethodOp>,
               ConstantLowering, OutputLowering>(converter, ctx);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  {
    // A lowering that refuses a call has said why; the framework's own
    // "failed to legalize" would only repeat it.
    bool reported = false;
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (StringRef(diag.str()).starts_with("failed to legalize") && reported)
        return success();
      reported = true;
      return failure();
    });
    if (failed(applyFullConversion(func, target, std::move(patterns))))
      return failure();
  }

  return success();
}

/// Erases the traced ops nothing reads any more; one still read is an
/// error.
LogicalResult ConvertTracedToLinalgPass::eraseLeftovers(func::FuncOp func) {
  // What is left of the traced IR must be dead now.
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> dead;
    func.walk([&](Operation *op) {
      if ((isa<TracedDialect>(op->getDialect()) ||
           isa<UnrealizedConversionCastOp>(op)) &&
          op->use_empty())
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead)) {
      op->erase();
      changed = true;
    }
  }
  WalkResult leftover = func.walk([&](Operation *op) {
    if (!isa<TracedDialect>(op->getDialect()))
      return WalkResult::advance();
    op->emitError("cannot lower this traced op: its result is still used by ")
        << **op->getUsers().begin();
    return WalkResult::interrupt();
  });
  return failure(leftover.wasInterrupted());

}

/// Drops `self`, and records the names of the dynamic dims (with the
/// output-dims function) and the labels the checked C entry gives inputs.
LogicalResult ConvertTracedToLinalgPass::finishEntry(
    func::FuncOp func, GraphOp graph, const llvm::BitVector &noneInputs,
    FunctionType entryType) {
  MLIRContext *ctx = &getContext();
  Block &body = func.getBody().front();
  if (!body.getArgument(0).use_empty()) {
    func.emitError("the graph uses 'self' in a way that cannot be compiled");
    return failure();
  }
  body.eraseArgument(0);
  // (In storage types; `traced.entry` keeps the traced ones.)
  func.setFunctionType(FunctionType::get(
      ctx, body.getArgumentTypes(), func.getFunctionType().getResults()));
  // Dynamic dims: their names (per input, one per dim, "" when static) and
  // the function computing the output sizes.
  auto isDynamic = [](Type t) {
    return !llvm::cast<RankedTensorType>(t).hasStaticShape();
  };
  OpBuilder b(func);
  if (llvm::any_of(entryType.getInputs(), isDynamic) ||
      llvm::any_of(entryType.getResults(), isDynamic)) {
    SmallVector<Attribute> names;
    for (unsigned i = 1, e = graph.getArgumentTypes().size(); i < e; ++i) {
      if (noneInputs.test(i))
        continue;
      auto attr = graph.getArgAttrOfType<ArrayAttr>(i, kDimNamesAttr);
      auto tensor =
          llvm::dyn_cast<RankedTensorType>(graph.getArgumentTypes()[i]);
      if (!tensor) { // a Python number: a 0-d buffer, no dims
        names.push_back(b.getStrArrayAttr({}));
        continue;
      }
      if (!attr) {
        // An unnamed dynamic dim (hand-written IR) is its own size.
        SmallVector<StringRef> anonymous;
        std::vector<std::string> storage;
        for (int64_t d = 0; d < tensor.getRank(); ++d)
          storage.push_back(tensor.isDynamicDim(d)
                                ? ("input" + Twine(i - 1) + "_dim" + Twine(d)).str()
                                : std::string());
        for (const std::string &n : storage)
          anonymous.push_back(n);
        attr = b.getStrArrayAttr(anonymous);
      }
      names.push_back(attr);
    }
    func->setAttr(kDimNamesAttr, b.getArrayAttr(names));
    if (failed(buildOutputDims(func)))
      return failure();
  }
  // How the checked C entry names each input it takes, as Python's call
  // paths do: `input 2 ('scale')`, counted from 1 after self, None-only
  // inputs included in the count.
  {
    SmallVector<StringRef> labels;
    std::vector<std::string> storage;
    for (unsigned i = 1, e = graph.getArgumentTypes().size(); i < e; ++i)
      if (!noneInputs.test(i))
        storage.push_back(("input " + Twine(i) + " ('" +
                           graph.getArgName(i) + "')")
                              .str());
    for (const std::string &l : storage)
      labels.push_back(l);
    func->setAttr("traced.input_labels", b.getStrArrayAttr(labels));
  }
  return success();
}

void ConvertTracedToLinalgPass::runOnOperation() {
  mlir::ModuleOp top = getOperation();
  SymbolTableCollection symbols;

  traced::ModuleOp root;
  bool anyTraced = false;
  for (auto m : top.getOps<traced::ModuleOp>()) {
    anyTraced = true;
    if (m.getRoot())
      root = m;
  }
  if (!anyTraced)
    return; // nothing traced: already lowered
  if (!root) {
    top.emitError("no root traced.module to lower");
    return signalPassFailure();
  }
  auto graph = root.lookupSymbol<GraphOp>(entry);
  if (!graph) {
    root.emitError() << "the root module has no graph '" << entry << "'";
    return signalPassFailure();
  }
  FailureOr<llvm::BitVector> noneInputs = checkSignature(graph);
  // Quantized tensors become their storage integers, quantized ops calls
  // of ordinary entries (traced-lower-quantized), before any lowering.
  if (failed(noneInputs) || failed(prepare(graph, symbols)) ||
      failed(lowerQuantized(top, graph, int8Kernels)) ||
      failed(decomposeUnlowered(graph)))
    return signalPassFailure();
  FunctionType entryType;
  FailureOr<func::FuncOp> func =
      graphToFunction(root, graph, *noneInputs, entryType);
  if (failed(func) || failed(checkTargets(*func)) ||
      failed(convertCalls(*func)) || failed(eraseLeftovers(*func)) ||
      failed(finishEntry(*func, graph, *noneInputs, entryType)))
    return signalPassFailure();
  for (auto m : llvm::make_early_inc_range(top.getOps<traced::ModuleOp>()))
    m.erase();
}
