//===- Interpreter.cpp - the reference interpreter ------------------------===//
//
// Each op gets a plan the first time it runs: its arguments bound to the
// target's signature once (defaults parsed, constants decoded), so that a
// run only fills in the traced operands and calls the kernel.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Interpreter/Interpreter.h"
#include "TracedIR/Interpreter/Kernels.h"

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Support/Limits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/thread.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::traced;

namespace {
/// How one op runs.
struct Plan {
  enum Kind { Constant, Kernel, Graph, Unknown } kind = Unknown;
  RtValue constant;             // Constant (and getattr results)
  const OpSpec *spec = nullptr; // Kernel
  traced::Kernel kernel = nullptr; // Kernel: spec's, from the kernel table
  std::string target;           // for diagnostics
  // One entry per parameter of `spec` (Kernel) or per callee input (Graph):
  // the bound argument with operand markers, and its value when it has no
  // marker.
  SmallVector<Attribute> slots;
  SmallVector<std::optional<RtValue>> fixed;
  GraphOp callee;            // Graph
  std::string unknownReason; // Unknown
};

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// Whether a runtime value fits a declared traced type.
bool matchesType(const RtValue &v, Type type) {
  if (isa<ObjectType>(type))
    return true;
  if (auto tt = dyn_cast<TensorType>(type)) {
    if (!v.isTensor())
      return false;
    Type element = tt.getElementType();
    if (isQuantizedElement(element) ? v.tensor().quantType() != element
                                    : v.tensor().isQuantized())
      return false;
    std::optional<DType> dtype = storageDTypeFromType(element);
    if (!dtype || *dtype != v.tensor().dtype())
      return false;
    if (!tt.hasRank())
      return true;
    if (tt.getRank() != v.tensor().rank())
      return false;
    for (auto [d, actual] : llvm::zip(tt.getShape(), v.tensor().shape()))
      if (!ShapedType::isDynamic(d) && d != actual)
        return false;
    return true;
  }
  if (type.isInteger(1))
    return std::holds_alternative<bool>(v.v);
  if (type.isInteger(64))
    return std::holds_alternative<int64_t>(v.v) ||
           std::holds_alternative<bool>(v.v);
  if (type.isF64())
    return v.number().has_value();
  if (isa<traced::NoneType>(type))
    return v.isNone();
  if (isa<StrType>(type))
    return std::holds_alternative<std::string>(v.v);
  if (isa<ModuleType>(type))
    return std::holds_alternative<RtValue::Module>(v.v);
  if (auto tuple = dyn_cast<TupleType>(type)) {
    const RtValue::List *l = v.list();
    if (!l || l->items.size() != tuple.size())
      return false;
    for (auto [item, t] : llvm::zip(l->items, tuple.getTypes()))
      if (!matchesType(item, t))
        return false;
    return true;
  }
  if (auto list = dyn_cast<ListType>(type)) {
    const RtValue::List *l = v.list();
    return l && llvm::all_of(l->items, [&](const RtValue &item) {
             return matchesType(item, list.getElementType());
           });
  }
  return true;
}

/// For an entry that computes on storage integers (QuantizedUse::Storage):
/// replaces the quantized tensors among `v` (list items too) by their
/// storage integers and returns their quantized type (null when none).
Type stripQuantized(RtValue &v) {
  if (v.isTensor()) {
    Type q = v.tensor().quantType();
    if (q)
      v = RtValue(v.tensor().withQuantType(nullptr));
    return q;
  }
  const RtValue::List *l = v.list();
  if (!l)
    return {};
  std::vector<RtValue> items = l->items;
  Type q;
  for (RtValue &item : items)
    if (Type t = stripQuantized(item))
      q = t;
  if (q)
    v = RtValue::ofList(std::move(items), l->isTuple);
  return q;
}

/// The inverse for results: the tensors of `quant`'s storage dtype among
/// `v` become quantized tensors of `quant`.
void requantizeResults(RtValue &v, Type quant) {
  if (v.isTensor()) {
    if (v.tensor().dtype() == *storageDTypeFromType(quant))
      v = RtValue(v.tensor().withQuantType(quant));
    return;
  }
  const RtValue::List *l = v.list();
  if (!l)
    return;
  std::vector<RtValue> items = l->items;
  for (RtValue &item : items)
    requantizeResults(item, quant);
  v = RtValue::ofList(std::move(items), l->isTuple);
}

bool hasMarker(Attribute a) {
  bool found = false;
  walkOperandMarkers(a, [&](OperandAttr) { found = true; });
  return found;
}
} // namespace

/// The bytes the interpreter's storage takes for a value of `type` (at most
/// 8 per element, whatever the dtype), or nullopt when that count overflows
/// 64 bits. Values other than static-shaped tensors count 0.
static std::optional<uint64_t> storageBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return tensorBytes(tensor.getShape(), 8);
}

/// The kernel of a call of `spec`: for an entry with quantized semantics of
/// its own, given a quantized tensor, its quantized kernel (registered as
/// "<entry>@quantized").
static traced::Kernel kernelFor(const OpSpec &spec, Operation *op) {
  if ((spec.quantized == QuantizedUse::SameQParams ||
       spec.quantized == QuantizedUse::FixedQParams) &&
      llvm::any_of(op->getOperandTypes(), isQuantizedTensor))
    return lookupQuantizedKernel(spec.name);
  return lookupKernel(spec.name);
}

struct Interpreter::Impl {
  mlir::ModuleOp module;
  SymbolTableCollection symbols;
  llvm::DenseMap<Operation *, std::unique_ptr<Plan>> plans;
  llvm::DenseMap<Operation *, RtValue> declValues;
  // (setMemoryLimit's; else the max_tensor_bytes limit, Support/Limits.h.)
  std::optional<uint64_t> memoryLimit;
  unsigned unwindNotes = 0;
  /// The static nesting depth of module calls below each graph (see
  /// nestingDepth).
  llvm::DenseMap<Operation *, unsigned> nesting;

  /// The callee graph of a module-method call, or null.
  GraphOp calleeOf(CallMethodOp call) {
    auto type = dyn_cast<ModuleType>(call.getReceiver().getType());
    traced::ModuleOp module = type ? lookupModule(type) : traced::ModuleOp();
    return module ? dyn_cast_or_null<GraphOp>(
                        symbols.lookupSymbolIn(module, call.getMethodAttr()))
                  : GraphOp();
  }

  /// How deeply module calls nest below `root` (0: it calls no graph),
  /// from the IR alone; a graph that calls itself again through its
  /// submodules is refused here, before anything runs. An iterative
  /// depth-first walk, so that a 10k-deep module tree needs no deep native
  /// stack to analyse.
  FailureOr<unsigned> nestingDepth(GraphOp root) {
    if (auto it = nesting.find(root); it != nesting.end())
      return it->second;
    llvm::DenseSet<Operation *> onPath;
    // (graph, its calls of graphs, index of the next one)
    struct Frame {
      GraphOp graph;
      SmallVector<std::pair<GraphOp, CallMethodOp>> calls;
      size_t next = 0;
      unsigned depth = 0;
    };
    SmallVector<Frame> stack;
    auto push = [&](GraphOp g) {
      Frame f{g, {}, 0, 0};
      g.walk([&](CallMethodOp call) {
        if (GraphOp callee = calleeOf(call))
          f.calls.push_back({callee, call});
      });
      onPath.insert(g);
      stack.push_back(std::move(f));
    };
    push(root);
    while (!stack.empty()) {
      Frame &f = stack.back();
      if (f.next == f.calls.size()) {
        nesting[f.graph] = f.depth;
        onPath.erase(f.graph);
        unsigned d = f.depth;
        stack.pop_back();
        if (!stack.empty())
          stack.back().depth = std::max(stack.back().depth, d + 1);
        continue;
      }
      auto [callee, call] = f.calls[f.next++];
      if (onPath.contains(callee))
        return call.emitError("module calls do not terminate: ")
               << calleeDescription(callee)
               << " calls itself through its submodules";
      if (auto it = nesting.find(callee); it != nesting.end()) {
        f.depth = std::max(f.depth, it->second + 1);
        continue;
      }
      push(callee);
    }
    return nesting[root];
  }

  static std::string calleeDescription(GraphOp g) {
    auto m = g->getParentOfType<traced::ModuleOp>();
    return ("@" + m.getSymName() + "::" + g.getSymName()).str();
  }

  /// Refuses `op` when its declared tensor results (or, for a parameter or
  /// buffer, its value) need more memory than the limit: a graph asking for
  /// a [100000, 100000] tensor gets a diagnostic, not an out-of-memory kill.
  LogicalResult checkMemory(Operation *op, TypeRange types) {
    uint64_t total = 0;
    for (Type t : types) {
      std::optional<uint64_t> bytes = storageBytes(t);
      if (!bytes || __builtin_add_overflow(total, *bytes, &total))
        return op->emitError("the interpreter cannot hold ")
               << t << ": its size in bytes overflows 64 bits";
    }
    if (memoryLimit && total > *memoryLimit)
      return op->emitError("the interpreter would need ")
             << total << " bytes for this op's results, more than its "
             << "memory limit of " << *memoryLimit << " bytes";
    if (!memoryLimit && total > getResourceLimits().maxTensorBytes)
      return emitTensorBytesLimit(op->getLoc(), "the results of this op",
                                  total);
    return success();
  }

  /// checkMemory for a computed result: its elements at 8 bytes each.
  LogicalResult checkComputed(Operation *op, const RtValue &result) {
    uint64_t total = 0;
    std::function<void(const RtValue &)> add = [&](const RtValue &v) {
      if (v.isTensor())
        total += uint64_t(v.tensor().numel()) * 8;
      else if (const RtValue::List *l = v.list())
        for (const RtValue &item : l->items)
          add(item);
    };
    add(result);
    uint64_t limit = memoryLimit.value_or(getResourceLimits().maxTensorBytes);
    if (total <= limit)
      return success();
    if (memoryLimit)
      return op->emitError("the interpreter computed ")
             << total << " bytes for this op's results, more than its "
             << "memory limit of " << limit << " bytes";
    return emitTensorBytesLimit(op->getLoc(), "the results of this op", total);
  }

  traced::ModuleOp lookupModule(ModuleType type) {
    return symbols.lookupSymbolIn<traced::ModuleOp>(module,
                                                    type.getModuleName());
  }

  FailureOr<RtValue> declValue(Operation *decl) {
    auto it = declValues.find(decl);
    if (it != declValues.end())
      return it->second;
    RtValue value;
    if (auto sub = dyn_cast<SubmoduleOp>(decl)) {
      value.v = RtValue::Module{
          lookupModule(cast<ModuleType>(sub.getValueType())).getOperation()};
    } else if (isa<ParameterOp, BufferOp>(decl)) {
      auto attr = cast<ElementsAttr>(decl->getAttr("value"));
      if (failed(checkMemory(decl, attr.getType())))
        return failure();
      FailureOr<Tensor> t = tensorFromElements(attr);
      if (failed(t))
        return decl->emitError("cannot read the value of this tensor "
                               "(unsupported element type, or a "
                               "dense_resource without data)");
      // A quantized tensor's value holds its storage integers.
      Type declared = cast<TypeAttr>(decl->getAttr("type")).getValue();
      if (isQuantizedTensor(declared))
        *t = t->withQuantType(cast<TensorType>(declared).getElementType());
      value = RtValue(*t);
    } else if (auto a = dyn_cast<AttributeOp>(decl)) {
      std::optional<RtValue> v = rtValueFromAttr(a.getValue());
      if (!v)
        return decl->emitError("cannot interpret the value of this attribute");
      value = *v;
    } else {
      return decl->emitError("is not an attribute");
    }
    declValues[decl] = value;
    return value;
  }

  /// Binds `slots` (one per parameter, null where unbound) to `sig`'s
  /// defaults and precomputes the marker-free ones.
  LogicalResult finishSlots(Plan &plan, const Signature &sig, MLIRContext *ctx,
                            Operation *op) {
    plan.fixed.resize(plan.slots.size());
    for (auto [i, slot] : llvm::enumerate(plan.slots)) {
      if (!slot) {
        if (sig.params[i].defaultValue.empty())
          return op->emitError("missing argument '")
                 << sig.params[i].name << "'";
        slot = parsePyLiteral(ctx, sig.params[i].defaultValue);
      }
      if (!hasMarker(slot)) {
        std::optional<RtValue> v = rtValueFromAttr(slot);
        if (!v)
          return op->emitError("cannot interpret argument '")
                 << sig.params[i].name << "'";
        plan.fixed[i] = *v;
      }
    }
    return success();
  }

  FailureOr<Plan *> planFor(Operation *op) {
    auto it = plans.find(op);
    if (it != plans.end())
      return it->second.get();
    auto plan = std::make_unique<Plan>();
    if (failed(makePlan(op, *plan)))
      return failure();
    Plan *raw = plan.get();
    plans[op] = std::move(plan);
    return raw;
  }

  LogicalResult makePlan(Operation *op, Plan &plan) {
    MLIRContext *ctx = op->getContext();
    if (auto c = dyn_cast<ConstantOp>(op)) {
      std::optional<RtValue> v = rtValueFromAttr(c.getValue());
      if (!v)
        return op->emitError("cannot interpret this constant");
      // A quantized constant holds its storage integers.
      if (isQuantizedTensor(c.getType()) && v->isTensor())
        *v = RtValue(v->tensor().withQuantType(
            cast<TensorType>(c.getType()).getElementType()));
      plan.kind = Plan::Constant;
      plan.constant = *v;
      return success();
    }
    if (auto g = dyn_cast<GetAttrOp>(op)) {
      // Module instances are static: a getattr always reads the same decl.
      traced::ModuleOp owner =
          lookupModule(cast<ModuleType>(g.getReceiver().getType()));
      Operation *decl =
          owner ? symbols.lookupSymbolIn(owner, g.getNameAttr()) : nullptr;
      if (!decl)
        return op->emitError("cannot resolve this getattr");
      FailureOr<RtValue> v = declValue(decl);
      if (failed(v))
        return failure();
      plan.kind = Plan::Constant;
      plan.constant = *v;
      return success();
    }
    ArrayAttr arguments = op->getAttrOfType<ArrayAttr>("arguments");
    ArrayAttr keywordAttr = op->getAttrOfType<ArrayAttr>("keywords");
    SmallVector<StringRef> keywords;
    if (keywordAttr)
      for (Attribute k : keywordAttr)
        keywords.push_back(cast<StringAttr>(k).getValue());
    unsigned numArgs =
        isa<CallMethodOp>(op) ? op->getNumOperands() - 1 : op->getNumOperands();
    auto emit = [op]() { return op->emitError(); };
    if (auto call = dyn_cast<CallFunctionOp>(op)) {
      plan.target = call.getCallee().str();
      plan.spec = OpLibrary::get().lookupFunction(call.getCallee());
      if (!plan.spec) {
        plan.unknownReason = "the op library does not know '" + plan.target +
                             "', so the interpreter has no kernel for it";
        return success();
      }
      if (failed(bindArguments(ctx, plan.spec->signature, 0,
                               arguments.getValue(), keywords, emit,
                               plan.slots)))
        return failure();
      plan.kind = Plan::Kernel;
      plan.kernel = kernelFor(*plan.spec, op);
      return finishSlots(plan, plan.spec->signature, ctx, op);
    }
    auto call = cast<CallMethodOp>(op);
    Type receiverType = call.getReceiver().getType();
    if (isa<TensorType>(receiverType)) {
      plan.target = ("Tensor." + call.getMethod()).str();
      plan.spec = OpLibrary::get().lookupMethod(call.getMethod());
      if (!plan.spec) {
        plan.unknownReason =
            "the op library does not know the Tensor method '" +
            call.getMethod().str() +
            "', so the interpreter has no kernel for it";
        return success();
      }
      if (failed(bindArguments(ctx, plan.spec->signature, 1,
                               arguments.getValue(), keywords, emit,
                               plan.slots)))
        return failure();
      // The receiver is the operand after the arguments.
      plan.slots[0] = OperandAttr::get(ctx, numArgs);
      plan.kind = Plan::Kernel;
      plan.kernel = kernelFor(*plan.spec, op);
      return finishSlots(plan, plan.spec->signature, ctx, op);
    }
    auto moduleType = dyn_cast<ModuleType>(receiverType);
    if (!moduleType) {
      plan.unknownReason = "methods of " + typeString(receiverType) +
                           " values cannot be interpreted";
      return success();
    }
    traced::ModuleOp module = lookupModule(moduleType);
    if (!module)
      return op->emitError("cannot resolve the receiver's module");
    if (auto graph = dyn_cast_or_null<GraphOp>(
            symbols.lookupSymbolIn(module, call.getMethodAttr()))) {
      plan.kind = Plan::Graph;
      plan.callee = graph;
      plan.target =
          ("@" + module.getSymName() + "::" + graph.getSymName()).str();
      unsigned inputs = graph.getNumArguments() - 1;
      plan.slots.assign(inputs, Attribute());
      size_t positional = arguments.size() - keywords.size();
      for (size_t i = 0; i < positional && i < inputs; ++i)
        plan.slots[i] = arguments[i];
      for (auto [i, name] : llvm::enumerate(keywords))
        for (unsigned a = 1; a < graph.getNumArguments(); ++a)
          if (graph.getArgName(a) == name)
            plan.slots[a - 1] = arguments[positional + i];
      plan.fixed.resize(inputs);
      for (auto [i, slot] : llvm::enumerate(plan.slots)) {
        if (!slot)
          return op->emitError("no argument for input ")
                 << i + 1 << " of " << plan.target;
        if (!hasMarker(slot))
          plan.fixed[i] = rtValueFromAttr(slot);
      }
      return success();
    }
    // A leaf module: its class's functional with the module's attributes.
    const ModuleSpec *leaf =
        OpLibrary::get().lookupModule(module.getClassName());
    if (!leaf || call.getMethod() != "forward") {
      plan.unknownReason = "the leaf module @" + module.getSymName().str() +
                           " of class '" + module.getClassName().str() +
                           "' has no kernel";
      return success();
    }
    plan.spec = OpLibrary::get().lookupFunction(leaf->functional);
    plan.target = leaf->className.str();
    SmallVector<Attribute> forwardSlots;
    if (failed(bindArguments(ctx, leaf->forward, 0, arguments.getValue(),
                             keywords, emit, forwardSlots)))
      return failure();
    const Signature &sig = plan.spec->signature;
    plan.slots.assign(sig.params.size(), Attribute());
    plan.fixed.resize(sig.params.size());
    for (const ModuleBinding &binding : leaf->bindings) {
      unsigned p = *sig.lookup(binding.param);
      StringRef source = binding.source;
      if (Attribute fixed =
              leafBindingOverride(*leaf, binding.param, module, symbols)) {
        plan.slots[p] = fixed;
      } else if (source == "@*") {
        // All the module's parameters, in declaration order.
        std::vector<RtValue> params;
        for (auto param :
             module.getBody().front().getOps<traced::ParameterOp>()) {
          FailureOr<RtValue> v = declValue(param);
          if (failed(v))
            return failure();
          params.push_back(*v);
        }
        plan.fixed[p] = RtValue::ofList(std::move(params), /*isTuple=*/false);
        plan.slots[p] = UnitAttr::get(ctx); // bound, fixed
      } else if (source.consume_front("@")) {
        bool optional = source.consume_front("?");
        Operation *decl =
            symbols.lookupSymbolIn(module, StringAttr::get(ctx, source));
        if (!decl && optional)
          continue;
        if (!decl)
          return op->emitError("the leaf module lacks attribute '")
                 << source << "'";
        FailureOr<RtValue> v = declValue(decl);
        if (failed(v))
          return failure();
        plan.fixed[p] = *v;
        plan.slots[p] = UnitAttr::get(ctx); // bound, fixed
      } else if (source.consume_front("=")) {
        plan.slots[p] = parsePyLiteral(ctx, source);
      } else {
        plan.slots[p] = forwardSlots[*leaf->forward.lookup(source)];
      }
    }
    plan.kind = Plan::Kernel;
    plan.kernel = kernelFor(*plan.spec, op);
    for (auto [i, slot] : llvm::enumerate(plan.slots)) {
      if (plan.fixed[i])
        continue;
      if (!slot) {
        if (sig.params[i].defaultValue.empty())
          return op->emitError("missing argument '")
                 << sig.params[i].name << "'";
        slot = parsePyLiteral(ctx, sig.params[i].defaultValue);
      }
      if (!hasMarker(slot))
        plan.fixed[i] = rtValueFromAttr(slot);
    }
    return success();
  }

  FailureOr<std::vector<RtValue>> run(GraphOp graph, ArrayRef<RtValue> inputs,
                                      RtValue self) {
    ArrayRef<Type> types = graph.getArgumentTypes();
    auto module = graph->getParentOfType<traced::ModuleOp>();
    std::string where =
        ("@" + module.getSymName() + "::" + graph.getSymName()).str();
    // Trailing inputs that can only be None (a forward's `mask=None` the
    // trace saw as None) may be left out.
    size_t required = types.size() - 1;
    while (required > inputs.size() && isa<traced::NoneType>(types[required]))
      --required;
    if (inputs.size() < required || inputs.size() + 1 > types.size())
      return graph.emitError()
             << where << " takes " << types.size() - 1
             << " input(s) after self, but " << inputs.size() << " were given";
    llvm::DenseMap<Value, RtValue> env;
    env[graph.getSelf()] = self;
    for (size_t i = inputs.size(); i + 1 < types.size(); ++i)
      env[graph.getArgument(i + 1)] = RtValue();
    for (auto [i, input] : llvm::enumerate(inputs)) {
      if (!matchesType(input, types[i + 1])) {
        StringRef name = graph.getArgName(i + 1);
        return graph.emitError()
               << "input " << i + 1
               << (name.empty() ? "" : (" ('" + name + "')").str()) << " of "
               << where << " expects " << types[i + 1] << ", got "
               << input.describe();
      }
      env[graph.getArgument(i + 1)] = input;
    }
    // Dynamic dims with one name (traced.dim_names) have one size.
    llvm::StringMap<std::pair<int64_t, size_t>> named;
    for (auto [i, input] : llvm::enumerate(inputs)) {
      auto names = graph.getArgAttrOfType<ArrayAttr>(i + 1, kDimNamesAttr);
      if (!names || !input.isTensor())
        continue;
      for (auto [d, name] : llvm::enumerate(names.getAsValueRange<StringAttr>())) {
        if (name.empty() || d >= input.tensor().shape().size())
          continue;
        int64_t size = input.tensor().shape()[d];
        auto [it, fresh] = named.try_emplace(name, size, i + 1);
        if (!fresh && it->second.first != size) {
          // As the compiled call paths say it (python/traced/_calls.py).
          auto label = [&](size_t k) {
            StringRef n = graph.getArgName(k);
            return ("input " + Twine(k) +
                    (n.empty() ? "" : (" ('" + n + "')").str()))
                .str();
          };
          return graph.emitError()
                 << label(i + 1) << " has size " << size << " in dim " << d
                 << " ('" << name << "'), but " << label(it->second.second)
                 << " has " << it->second.first << " there (" << where << ")";
        }
      }
    }
    std::vector<RtValue> operands;
    for (Operation &op : graph.getBody().front()) {
      if (failed(checkMemory(&op, op.getResultTypes())))
        return failure();
      if (auto output = dyn_cast<OutputOp>(op)) {
        std::vector<RtValue> results;
        for (Value v : output.getResults())
          results.push_back(env.lookup(v));
        return results;
      }
      FailureOr<Plan *> planOr = planFor(&op);
      if (failed(planOr))
        return failure();
      Plan &plan = **planOr;
      operands.clear();
      for (Value v : op.getOperands())
        operands.push_back(env.lookup(v));
      if (isa<CallMethodOp>(op)) {
        // Receiver last, after the arguments (markers index the arguments).
        std::rotate(operands.begin(), operands.begin() + 1, operands.end());
      }
      switch (plan.kind) {
      case Plan::Constant:
        env[op.getResult(0)] = plan.constant;
        break;
      case Plan::Unknown:
        return op.emitError() << plan.unknownReason;
      case Plan::Graph: {
        std::vector<RtValue> args;
        for (auto [i, slot] : llvm::enumerate(plan.slots))
          args.push_back(
              plan.fixed[i] ? *plan.fixed[i]
                            : resolveArgument(slot, operands, op.getContext()));
        FailureOr<std::vector<RtValue>> results =
            run(plan.callee, args, operands.back());
        if (failed(results)) {
          // The first callers only: a failure 10k calls deep would
          // otherwise print 10k lines.
          if (unwindNotes++ < 8)
            return op.emitError() << "in the call of " << plan.target;
          return failure();
        }
        if (results->size() != op.getNumResults())
          return op.emitError()
                 << "the callee returned " << results->size() << " value(s)";
        for (auto [r, v] : llvm::zip(op.getResults(), *results))
          env[r] = v;
        break;
      }
      case Plan::Kernel: {
        std::vector<RtValue> values;
        values.reserve(plan.slots.size());
        for (auto [i, slot] : llvm::enumerate(plan.slots))
          values.push_back(
              plan.fixed[i] ? *plan.fixed[i]
                            : resolveArgument(slot, operands, op.getContext()));
        // An entry that moves elements computes on storage integers.
        Type quant;
        if (plan.spec->quantized == QuantizedUse::Storage)
          for (RtValue &v : values)
            if (Type q = stripQuantized(v))
              quant = q;
        Operation *at = &op;
        const Plan *p = &plan;
        KernelArgs args(plan.spec->signature, std::move(values), [at, p]() {
          return at->emitError() << "'" << p->target << "': ";
        });
        if (!plan.kernel)
          return op.emitError() << "'" << plan.target << "' has no kernel";
        FailureOr<RtValue> result = plan.kernel(args);
        if (failed(result))
          return failure();
        if (quant)
          requantizeResults(*result, quant);
        // Results of dynamic shapes, checked now that their sizes are known
        // (those of static shapes were before the kernel ran).
        if (llvm::any_of(op.getResultTypes(), [](Type t) {
              auto tensor = dyn_cast<RankedTensorType>(t);
              return tensor && !tensor.hasStaticShape();
            }) &&
            failed(checkComputed(&op, *result)))
          return failure();
        // An in-place variant (`x.add_(y)`) writes into its input: the
        // result keeps the input's dtype (the verifier checked the cast).
        if (plan.spec->inplace && result->isTensor() && args.has("input") &&
            args.get("input").isTensor())
          *result = RtValue(
              result->tensor().to(args.get("input").tensor().dtype()));
        if (op.getNumResults() == 1) {
          if (!matchesType(*result, op.getResult(0).getType()))
            return op.emitError()
                   << "'" << plan.target << "' computed " << result->describe()
                   << ", but the op declares " << op.getResult(0).getType();
          env[op.getResult(0)] = std::move(*result);
        } else if (op.getNumResults() > 1) {
          const RtValue::List *l = result->list();
          if (!l || l->items.size() != op.getNumResults())
            return op.emitError()
                   << "'" << plan.target << "' computed " << result->describe()
                   << " for " << op.getNumResults() << " results";
          for (auto [r, v] : llvm::zip(op.getResults(), l->items))
            env[r] = v;
        }
        break;
      }
      }
    }
    return graph.emitError() << "has no output";
  }
};

Interpreter::Interpreter(mlir::ModuleOp module) : impl(new Impl) {
  impl->module = module;
}

Interpreter::~Interpreter() = default;

GraphOp Interpreter::getEntry(StringRef moduleName, StringRef graphName) {
  traced::ModuleOp module;
  for (auto m : impl->module.getOps<traced::ModuleOp>())
    if (moduleName.empty() ? m.getRoot() : m.getSymName() == moduleName)
      module = m;
  if (!module) {
    emitError(impl->module.getLoc())
        << (moduleName.empty()
                ? "there is no root traced.module"
                : ("there is no traced.module @" + moduleName).str());
    return {};
  }
  auto graph = dyn_cast_or_null<GraphOp>(module.lookupSymbol(graphName));
  if (!graph)
    module.emitError() << "@" << module.getSymName() << " has no graph '"
                       << graphName << "'";
  return graph;
}

void Interpreter::setMemoryLimit(uint64_t bytes) { impl->memoryLimit = bytes; }

FailureOr<std::vector<RtValue>> Interpreter::run(GraphOp graph,
                                                 ArrayRef<RtValue> inputs) {
  RtValue self;
  self.v = RtValue::Module{graph->getParentOfType<traced::ModuleOp>()};
  FailureOr<unsigned> nesting = impl->nestingDepth(graph);
  if (failed(nesting))
    return failure();
  impl->unwindNotes = 0;
  // Each nested module call takes about 1 KiB of native stack: a deep
  // module tree runs on a thread with a stack to match (16 KiB a level),
  // so that 10k nested modules need no larger main-thread stack.
  if (*nesting < 1000)
    return impl->run(graph, inputs, self);
  uint64_t bytes = (uint64_t(*nesting) << 14) + (uint64_t(8) << 20);
  FailureOr<std::vector<RtValue>> result = failure();
  llvm::thread worker(
      std::optional<unsigned>(std::min<uint64_t>(bytes, 3u << 30)),
      [&] { result = impl->run(graph, inputs, self); });
  worker.join();
  return result;
}
