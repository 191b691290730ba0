//===- Decompose.cpp - the decomposition driver and traced-decompose ------===//

#include "Decompose.h"

#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Support/FamilyTable.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"

#include "llvm/ADT/StringSet.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDDECOMPOSE
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

//===----------------------------------------------------------------------===//
// Reading the call
//===----------------------------------------------------------------------===//

Value Decomposer::tensor(StringRef name) const {
  Value v = bound.value(name);
  return v && isa<TensorType>(v.getType()) ? v : Value();
}

RankedTensorType Decomposer::tensorType(StringRef name) const {
  Value v = tensor(name);
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

Attribute Decomposer::value(StringRef name) const {
  return bound.knownValue(name);
}

bool Decomposer::isNone(StringRef name) const {
  return isa_and_nonnull<NoneAttr>(value(name));
}

std::optional<int64_t> Decomposer::getInt(StringRef name) const {
  return getPyInt(value(name));
}

std::optional<double> Decomposer::getFloat(StringRef name) const {
  return getPyFloat(value(name));
}

std::optional<bool> Decomposer::getBool(StringRef name) const {
  return getPyBool(value(name));
}

std::optional<std::string> Decomposer::getStr(StringRef name) const {
  if (auto s = dyn_cast_or_null<StringAttr>(value(name)))
    return s.getValue().str();
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> Decomposer::getInts(StringRef name,
                                                        unsigned size) const {
  return getPyInts(value(name), size);
}

Arg Decomposer::arg(StringRef name) const {
  std::optional<unsigned> p = bound.spec->signature.lookup(name);
  assert(p && "no such parameter");
  if (Value v = bound.value(name); v && *p == 0 && isa<CallMethodOp>(bound.op))
    return Arg(v);
  Attribute slot = bound.slot(name);
  unsigned skip = isa<CallMethodOp>(bound.op) ? 1 : 0;
  Arg a(Attribute{});
  a.attr = replaceOperandMarkers(slot, [&](OperandAttr m) -> Attribute {
    a.values.push_back(bound.op->getOperand(m.getIndex() + skip));
    return OperandAttr::get(ctx, a.values.size() - 1);
  });
  return a;
}

Type Decomposer::resultType(unsigned i) const {
  return bound.op->getResult(i).getType();
}

RankedTensorType Decomposer::resultTensorType(unsigned i) const {
  return dyn_cast<RankedTensorType>(resultType(i));
}

Attribute Decomposer::i64(int64_t v) const {
  return IntegerAttr::get(IntegerType::get(ctx, 64), v);
}
Attribute Decomposer::f64(double v) const {
  return FloatAttr::get(Float64Type::get(ctx), v);
}
Attribute Decomposer::boolean(bool v) const { return BoolAttr::get(ctx, v); }
Attribute Decomposer::str(StringRef v) const { return StringAttr::get(ctx, v); }
Attribute Decomposer::ints(ArrayRef<int64_t> v) const {
  SmallVector<Attribute> elements;
  for (int64_t x : v)
    elements.push_back(i64(x));
  return ArrayAttr::get(ctx, elements);
}
Attribute Decomposer::none() const { return NoneAttr::get(ctx); }
Attribute Decomposer::dtype(Type type) const {
  return DTypeAttr::get(ctx, type);
}

FailureOr<SmallVector<Value>> Decomposer::decline(const Twine &why) {
  declined = why.str();
  return failure();
}

//===----------------------------------------------------------------------===//
// Building calls
//===----------------------------------------------------------------------===//

SmallVector<Value> Decomposer::calls(StringRef target, ArrayRef<KwArg> args,
                                     TypeRange refined) {
  LibraryCall call(ctx, target, args);
  if (failed || call.incomplete()) {
    failed = true;
    return {};
  }
  assert(call.spec() && "a decomposition calls an unknown entry");
  // Type the call by its entry's rule: build it untyped, infer, rebuild.
  FailureOr<SmallVector<Type>> types = call.inferTypes(b, loc, symbols);
  if (mlir::failed(types)) {
    mlir::emitError(loc) << "(in the decomposition of '" << this->target()
                         << "')";
    failed = true;
    return {};
  }
  // (A rule that leaves the types to the trace gives none: `refined` then
  // types the call alone.)
  if (!refined.empty()) {
    if ((!types->empty() && refined.size() != types->size()) ||
        llvm::any_of(llvm::zip(*types, refined), [](auto pair) {
          auto [inferred, given] = pair;
          return inferred && !isCompatibleType(inferred, given);
        })) {
      mlir::emitError(loc) << "the decomposition of '" << this->target()
                           << "' types a call of '" << target
                           << "' against its rule";
      failed = true;
      return {};
    }
    types->assign(refined.begin(), refined.end());
  }
  if (types->empty() || llvm::any_of(*types, [](Type t) { return !t; })) {
    mlir::emitError(loc) << "the decomposition of '" << this->target()
                         << "' builds a call of '" << target
                         << "' whose result types are not known statically";
    failed = true;
    return {};
  }
  Operation *op = call.build(b, loc, *types);
  (void)normalizeCallInPlace(op);
  return SmallVector<Value>(op->getResults());
}

Value Decomposer::call(StringRef target, ArrayRef<KwArg> args, Type refined) {
  SmallVector<Value> results =
      calls(target, args, refined ? TypeRange(refined) : TypeRange());
  if (results.empty())
    return {};
  assert(results.size() == 1 && "a call with one result");
  return results[0];
}

Value Decomposer::cast(Value a, Type element) {
  if (!a || llvm::cast<RankedTensorType>(a.getType()).getElementType() == element)
    return a;
  return call("Tensor.to", {{"input", a}, {"dtype", dtype(element)}});
}

Value Decomposer::constant(Attribute value, Type type) {
  return ConstantOp::create(b, loc, type, value);
}

Value Decomposer::tensorConstant(RankedTensorType type,
                                 function_ref<double(ArrayRef<int64_t>)> fn) {
  Type element = type.getElementType();
  SmallVector<Attribute> values;
  SmallVector<int64_t> index(type.getRank(), 0);
  int64_t n = type.getNumElements();
  for (int64_t i = 0; i < n; ++i) {
    double v = fn(index);
    if (auto f = dyn_cast<FloatType>(element)) {
      values.push_back(FloatAttr::get(f, v));
    } else if (element.isInteger(1)) {
      values.push_back(BoolAttr::get(ctx, v != 0));
    } else {
      values.push_back(IntegerAttr::get(element, static_cast<int64_t>(v)));
    }
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      if (++index[d] < type.getDimSize(d))
        break;
      index[d] = 0;
    }
  }
  return constant(DenseElementsAttr::get(type, values), type);
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

static const FamilyTable<DecomposeFn> &getDecompositionFamilies() {
  static const FamilyTable<DecomposeFn> families = [] {
    FamilyTable<DecomposeFn> f;
    f.add("Backward", populateBackwardDecompositions);
    f.add("Elementwise", populateElementwiseDecompositions);
    f.add("Factory", populateFactoryDecompositions);
    f.add("Index", populateIndexDecompositions);
    f.add("Linalg", populateLinalgDecompositions);
    f.add("Loss", populateLossDecompositions);
    f.add("Norm", populateNormDecompositions);
    f.add("Pool", populatePoolDecompositions);
    f.add("Reduce", populateReduceDecompositions);
    f.add("Shape", populateShapeDecompositions);
    f.add("Sort", populateSortDecompositions);
    f.add("Quantized", populateQuantizedDecompositions);
    return f;
  }();
  return families;
}

const DecompositionTable &decompose::getDecompositionTable() {
  return getDecompositionFamilies().table;
}

StringRef traced::decompositionFamily(StringRef entry) {
  return getDecompositionFamilies().family.lookup(entry);
}

std::vector<std::string> traced::getDecomposedTargets() {
  std::vector<std::string> names;
  for (const auto &entry : getDecompositionTable())
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

static bool isHalf(Type element) {
  return element && (element.isF16() || element.isBF16());
}

/// The call again with its float16/bfloat16 tensors in float32, its results
/// rounded back once: what torch's CPU kernels for these dtypes do (they
/// compute in float: max pooling exactly, averages, norms and reductions
/// accumulated in float), for the calls a direct lowering refuses in half
/// precision (decomposeCalls' `widenHalf`).
Results decompose::widenToFloat32(Decomposer &d) {
  const OpSpec &spec = *d.bound.spec;
  bool widened = false;
  SmallVector<KwArg> args;
  for (const Param &p : spec.signature.params) {
    RankedTensorType type = d.tensorType(p.name);
    if (type && isHalf(type.getElementType())) {
      args.push_back({p.name, Arg(d.cast(d.tensor(p.name), d.b.getF32Type()))});
      widened = true;
    } else {
      args.push_back({p.name, d.arg(p.name)});
    }
  }
  for (Type t : d.bound.op->getResultTypes()) {
    if (auto tuple = dyn_cast<TupleType>(t)) {
      for (Type e : tuple.getTypes())
        if (auto r = dyn_cast<RankedTensorType>(e); r && isHalf(r.getElementType()))
          widened = true;
    } else if (auto r = dyn_cast<RankedTensorType>(t); r && isHalf(r.getElementType())) {
      widened = true;
    }
  }
  if (!widened)
    return d.decline("it has no float16 or bfloat16 tensor");
  // The same spelling, so that an ATen overload keeps its parameter names.
  std::string target;
  if (auto f = dyn_cast<CallFunctionOp>(d.bound.op))
    target = f.getCallee().str();
  else
    target = ("Tensor." + cast<CallMethodOp>(d.bound.op).getMethod()).str();
  SmallVector<Value> results = d.calls(target, args);
  if (d.failed)
    return failure();
  SmallVector<Value> out;
  auto roundBack = [&](Value v, Type original) {
    auto r = dyn_cast<RankedTensorType>(original);
    return r ? d.cast(v, r.getElementType()) : v;
  };
  Type only = d.resultType();
  if (auto tuple = dyn_cast<TupleType>(only); tuple && results.size() == 1) {
    // A (values, indices) pair: its elements, for the getitems to read. A
    // None element (multi_head_attention_forward's weights without
    // need_weights) is a None constant, not a getitem a lowering would
    // have to compute.
    for (auto [i, element] : llvm::enumerate(tuple.getTypes())) {
      if (isa<traced::NoneType>(element)) {
        out.push_back(d.constant(d.none(), element));
        continue;
      }
      Value e = d.call("operator.getitem",
                       {{"input", results[0]}, {"index", d.i64(i)}});
      out.push_back(roundBack(e, element));
    }
    return out;
  }
  for (auto [v, t] : llvm::zip(results, d.bound.op->getResultTypes()))
    out.push_back(roundBack(v, t));
  return out;
}

/// Replaces `op`, bound as `bound`, with what `fn` builds. Returns whether
/// it was replaced; failure after an error. A declined call stays, and
/// `declined` says why.
static FailureOr<bool>
decomposeWith(Operation *op, const BoundOp &bound, DecomposeFn fn,
              SymbolTableCollection &symbols,
              llvm::StringMap<std::string> &declined,
              SmallVectorImpl<Operation *> &dead, bool widenHalf);

/// Decomposes `op` when it is a call of an entry with a decomposition that
/// `filter` selects (decomposeWith).
static FailureOr<bool>
decomposeOne(Operation *op,
             function_ref<bool(Operation *, StringRef)> filter,
             bool widenHalf, SymbolTableCollection &symbols,
             llvm::StringMap<std::string> &declined,
             SmallVectorImpl<Operation *> &dead) {
  std::optional<BoundOp> bound = bindCall(op, {});
  if (!bound || (filter && !filter(op, bound->spec->name)))
    return false;
  DecomposeFn fn = getDecompositionTable().lookup(bound->spec->name);
  if (!fn && widenHalf)
    fn = widenToFloat32;
  if (!fn)
    return false;
  return decomposeWith(op, *bound, fn, symbols, declined, dead, widenHalf);
}

static FailureOr<bool>
decomposeWith(Operation *op, const BoundOp &boundOp, DecomposeFn fn,
              SymbolTableCollection &symbols,
              llvm::StringMap<std::string> &declined,
              SmallVectorImpl<Operation *> &dead, bool widenHalf) {
  const BoundOp *bound = &boundOp;
  OpBuilder b(op);
  Decomposer d(*bound, b, symbols);
  // New calls go before `op`; on failure they are removed again.
  Block *block = op->getBlock();
  Operation *first = op->getPrevNode();
  FailureOr<SmallVector<Value>> results = fn(d);
  if (d.failed)
    results = failure();
  auto eraseBuilt = [&] {
    SmallVector<Operation *> built;
    for (Operation *o = first ? first->getNextNode() : &block->front();
         o != op; o = o->getNextNode())
      built.push_back(o);
    for (Operation *o : llvm::reverse(built)) {
      o->dropAllUses();
      o->erase();
    }
  };
  if (failed(results)) {
    eraseBuilt();
    if (d.declined.empty()) {
      if (!d.failed)
        op->emitError() << "the decomposition of '" << bound->spec->name
                        << "' failed";
      return failure();
    }
    // (The widening fallback is no decomposition of the entry's own: its
    // refusal explains nothing.)
    if (fn == widenToFloat32)
      return false;
    declined[bound->spec->name] = d.declined;
    // A call the entry's own decomposition leaves to the direct lowering
    // (eval-mode batch_norm) is still widened where that lowering refuses
    // half precision.
    if (!widenHalf)
      return false;
    return decomposeWith(op, *bound, widenToFloat32, symbols, declined, dead,
                         /*widenHalf=*/false);
  }
  // A call with one tuple result may be decomposed into its elements: each
  // `operator.getitem(result, i)` then reads element i directly.
  // (A list result, as ATen's `Tensor[]` schemas give, has no length in
  // its type: the getitems must stay within the elements.)
  Type aggregate = op->getNumResults() == 1 ? op->getResult(0).getType() : Type();
  if (isa_and_nonnull<TupleType, ListType>(aggregate) &&
      (results->size() != 1 || (*results)[0].getType() != aggregate)) {
    auto tuple = dyn_cast<TupleType>(aggregate);
    int64_t count = results->size();
    if (tuple && results->size() != tuple.size()) {
      op->emitError() << "the decomposition of '" << bound->spec->name
                      << "' gives " << results->size() << " elements for "
                      << tuple;
      eraseBuilt();
      return failure();
    }
    SmallVector<std::pair<Operation *, unsigned>> reads;
    for (Operation *user : op->getResult(0).getUsers()) {
      std::optional<BoundOp> get = bindCall(user, {"operator.getitem"});
      auto i = get ? dyn_cast_or_null<IntegerAttr>(get->slot("index"))
                   : IntegerAttr();
      if (!i || get->value("input") != op->getResult(0)) {
        eraseBuilt();
        declined[bound->spec->name] =
            "its tuple result is used other than by constant getitems";
        return false;
      }
      int64_t n = i.getInt() < 0 ? i.getInt() + count : i.getInt();
      if (n < 0 || n >= count) {
        eraseBuilt();
        declined[bound->spec->name] = "a getitem reads past its elements";
        return false;
      }
      reads.push_back({user, static_cast<unsigned>(n)});
    }
    for (auto [user, n] : reads) {
      Value element = (*results)[n];
      if (element.getType() != user->getResult(0).getType()) {
        user->emitError() << "the decomposition of '" << bound->spec->name
                          << "' gives element #" << n << " the type "
                          << element.getType() << ", not "
                          << user->getResult(0).getType();
        eraseBuilt();
        return failure();
      }
    }
    // (The getitems and the call are erased after the round: the round's
    // worklist still holds them.)
    for (auto [user, n] : reads) {
      user->getResult(0).replaceAllUsesWith((*results)[n]);
      dead.push_back(user);
    }
    dead.push_back(op);
    return true;
  }
  assert(results->size() == op->getNumResults());
  for (auto [i, pair] : llvm::enumerate(llvm::zip(op->getResults(), *results)))
    if (std::get<0>(pair).getType() != std::get<1>(pair).getType()) {
      op->emitError() << "the decomposition of '" << bound->spec->name
                      << "' gives result #" << i << " the type "
                      << std::get<1>(pair).getType() << ", not "
                      << std::get<0>(pair).getType();
      eraseBuilt();
      return failure();
    }
  op->replaceAllUsesWith(*results);
  op->erase();
  return true;
}

LogicalResult
traced::decomposeCalls(Operation *root,
                       function_ref<bool(Operation *, StringRef)> filter,
                       llvm::StringMap<std::string> *declinedOut,
                       bool widenHalf) {
  SymbolTableCollection symbols;
  llvm::StringMap<std::string> declined;
  // Decompositions may call entries that decompose further; each round
  // rewrites the calls present at its start. Decompositions only call
  // entries of smaller meaning, so this ends; the bound is a safeguard.
  for (unsigned round = 0; round < 16; ++round) {
    SmallVector<Operation *> calls;
    root->walk([&](Operation *op) {
      if (isa<CallFunctionOp, CallMethodOp>(op))
        calls.push_back(op);
    });
    bool changed = false;
    SmallVector<Operation *> dead;
    for (Operation *op : calls) {
      if (llvm::is_contained(dead, op))
        continue;
      FailureOr<bool> done =
          decomposeOne(op, filter, widenHalf, symbols, declined, dead);
      if (failed(done))
        return failure();
      changed |= *done;
    }
    for (Operation *op : dead)
      op->erase();
    if (!changed) {
      if (declinedOut)
        *declinedOut = std::move(declined);
      return success();
    }
  }
  return root->emitError("decompositions did not converge in 16 rounds");
}

namespace {
struct DecomposePass : traced::impl::TracedDecomposeBase<DecomposePass> {
  using Base::Base;
  void runOnOperation() override {
    llvm::StringSet<> only;
    for (const std::string &t : targets) {
      const OpSpec *spec = OpLibrary::get().lookupFunction(t);
      if (!spec && StringRef(t).starts_with("Tensor."))
        spec = OpLibrary::get().lookupMethod(StringRef(t).drop_front(7));
      if (!spec || !getDecompositionTable().count(spec->name)) {
        getOperation().emitError()
            << "traced-decompose: '" << t
            << "' is not an op-library entry with a decomposition";
        return signalPassFailure();
      }
      only.insert(spec->name);
    }
    auto filter = [&](Operation *, StringRef name) {
      return only.empty() || only.contains(name);
    };
    if (failed(decomposeCalls(getOperation(), filter, nullptr,
                              /*widenHalf=*/false)))
      signalPassFailure();
  }
};
} // namespace
