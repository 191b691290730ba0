//===- Flatten.cpp - inline traced submodule graphs into the root ---------===//

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"

#include "Utils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDFLATTEN
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

#include <deque>

namespace {
/// The callee graph of a call of a traced submodule's method, if any.
GraphOp calleeOf(CallMethodOp call, SymbolTableCollection &symbols) {
  traced::ModuleOp module = receiverModule(call.getReceiver(), symbols);
  if (!module)
    return {};
  return dyn_cast_or_null<GraphOp>(
      symbols.lookupSymbolIn(module, call.getMethodAttr()));
}

/// Whether a list argument holds traced values (not only constants).
/// The elements of a list (`[%a, %b]`) or tuple (`(%a, %b)`) argument.
ArrayAttr elementsOf(Attribute slot) {
  if (auto tuple = dyn_cast_or_null<TupleAttr>(slot))
    return tuple.getElements();
  return dyn_cast_or_null<ArrayAttr>(slot);
}

bool holdsOperand(ArrayAttr list) {
  return list && llvm::any_of(list, llvm::IsaPred<OperandAttr>);
}

/// Replaces `call` by a copy of `callee`'s body; fails (IR unchanged) when
/// an argument is not a plain traced value or constant.
LogicalResult inlineCall(CallMethodOp call, GraphOp callee) {
  IRMapping mapping;
  mapping.map(callee.getSelf(), call.getReceiver());
  ArrayAttr arguments = call.getArgumentsAttr();
  SmallVector<StringRef> keywords;
  for (Attribute k : call.getKeywordsAttr())
    keywords.push_back(cast<StringAttr>(k).getValue());
  size_t positional = arguments.size() - keywords.size();
  SmallVector<Attribute> slots(callee.getNumArguments() - 1);
  for (size_t i = 0; i < positional && i < slots.size(); ++i)
    slots[i] = arguments[i];
  for (auto [i, name] : llvm::enumerate(keywords))
    for (unsigned a = 1; a < callee.getNumArguments(); ++a)
      if (callee.getArgName(a) == name)
        slots[a - 1] = arguments[positional + i];
  // A list or tuple argument (`forward([%a, %b])`, DenseNet's layers; a
  // dict passed as the tuple of its values, LRASPP's head) has
  // no traced value to bind the callee's input to; the callee reads its
  // elements with `operator.getitem(input, i)`, and those reads become the
  // call's element values. Any other use of such an input keeps the call.
  DenseMap<Operation *, Value> elementReads;
  for (auto [i, slot] : llvm::enumerate(slots)) {
    ArrayAttr list = elementsOf(slot);
    if (!holdsOperand(list))
      continue;
    for (Operation *user : callee.getArgument(i + 1).getUsers()) {
      std::optional<BoundOp> get = bindCall(user, {"operator.getitem"});
      auto index = get ? dyn_cast_or_null<IntegerAttr>(get->slot("index"))
                       : IntegerAttr();
      if (!index || get->value("input") != callee.getArgument(i + 1))
        return failure();
      int64_t n = index.getInt();
      if (n < 0)
        n += list.size();
      auto marker = n >= 0 && n < static_cast<int64_t>(list.size())
                        ? dyn_cast<OperandAttr>(list[n])
                        : OperandAttr();
      if (!marker ||
          call.getArgs()[marker.getIndex()].getType() != user->getResult(0).getType())
        return failure();
      elementReads[user] = call.getArgs()[marker.getIndex()];
    }
  }
  OpBuilder b(call);
  for (auto [i, slot] : llvm::enumerate(slots)) {
    Value value;
    if (holdsOperand(elementsOf(slot))) {
      continue; // read element by element (above)
    } else if (auto marker = dyn_cast_or_null<OperandAttr>(slot)) {
      value = call.getArgs()[marker.getIndex()];
    } else if (slot && isPyValue(slot, /*allowOperands=*/false) &&
               ConstantOp::isValidValue(slot,
                                        callee.getArgument(i + 1).getType())) {
      value = ConstantOp::create(b, call.getLoc(),
                                 callee.getArgument(i + 1).getType(), slot);
    } else {
      return failure();
    }
    mapping.map(callee.getArgument(i + 1), value);
  }
  for (Operation &op : callee.getBody().front()) {
    if (auto output = dyn_cast<OutputOp>(op)) {
      for (auto [result, v] : llvm::zip(call.getResults(), output.getResults()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(v));
      break;
    }
    if (Value element = elementReads.lookup(&op)) {
      mapping.map(op.getResult(0), element);
      continue;
    }
    b.clone(op, mapping);
  }
  call->erase();
  return success();
}

/// The dotted path (`layer1.0.conv1.weight`) of a getattr chain that starts
/// at `self`, or "" when the chain starts elsewhere.
std::string pathFromSelf(GetAttrOp get, Value self) {
  SmallVector<StringRef> parts;
  for (GetAttrOp g = get; g; g = g.getReceiver().getDefiningOp<GetAttrOp>()) {
    parts.push_back(g.getName());
    if (g.getReceiver() == self)
      return llvm::join(llvm::reverse(parts), ".");
  }
  return "";
}

/// The parameter or buffer a tensor getattr reads, or null.
Operation *tensorDeclOf(GetAttrOp get, SymbolTableCollection &symbols) {
  if (!isa<TensorType>(get.getType()))
    return nullptr;
  traced::ModuleOp module = receiverModule(get.getReceiver(), symbols);
  Operation *decl =
      module ? symbols.lookupSymbolIn(module, get.getNameAttr()) : nullptr;
  return isa_and_nonnull<ParameterOp, BufferOp>(decl) ? decl : nullptr;
}

struct FlattenPass : traced::impl::TracedFlattenBase<FlattenPass> {
  using Base::Base;

  /// Refuses a module that calls its own graphs again through its
  /// submodules (A -> B -> A), which would inline forever: a depth-first
  /// walk of the module call graph, iterative so that a 10k-deep tree
  /// needs no deep native stack.
  LogicalResult checkNoRecursion(SymbolTableCollection &symbols) {
    DenseMap<Operation *, SmallVector<std::pair<Operation *, CallMethodOp>>>
        edges;
    for (auto m : getOperation().getOps<traced::ModuleOp>())
      m.walk([&](CallMethodOp call) {
        if (GraphOp callee = calleeOf(call, symbols))
          edges[m].push_back({callee->getParentOp(), call});
      });
    enum Color { White, Grey, Black };
    DenseMap<Operation *, Color> color;
    for (auto m : getOperation().getOps<traced::ModuleOp>()) {
      if (color[m] != White)
        continue;
      // (module, index of its next edge)
      SmallVector<std::pair<Operation *, size_t>> stack = {{m, 0}};
      color[m] = Grey;
      while (!stack.empty()) {
        auto &[node, next] = stack.back();
        auto &out = edges[node];
        if (next == out.size()) {
          color[node] = Black;
          stack.pop_back();
          continue;
        }
        auto [target, call] = out[next++];
        if (color[target] == Grey) {
          call.emitError("traced-flatten: graph calls do not terminate: "
                         "module @")
              << cast<traced::ModuleOp>(target).getSymName()
              << " calls itself through its submodules";
          return failure();
        }
        if (color[target] == White) {
          color[target] = Grey;
          stack.push_back({target, 0});
        }
      }
    }
    return success();
  }

  void runOnOperation() override {
    SymbolTableCollection symbols;
    traced::ModuleOp root;
    for (auto m : getOperation().getOps<traced::ModuleOp>())
      if (m.getRoot())
        root = m;
    if (!root)
      return; // nothing to flatten into
    if (failed(checkNoRecursion(symbols)))
      return signalPassFailure();
    for (GraphOp graph : root.getBody().front().getOps<GraphOp>()) {
      // Inline with a worklist: the copies of an inlined body are scanned
      // for calls once, so the work is linear in the flattened graph's
      // size, however deep the module tree (checkNoRecursion made it
      // finite).
      std::deque<CallMethodOp> worklist;
      graph.walk([&](CallMethodOp call) {
        if (calleeOf(call, symbols))
          worklist.push_back(call);
      });
      SmallVector<CallMethodOp> stuck;
      while (!worklist.empty()) {
        CallMethodOp call = worklist.front();
        worklist.pop_front();
        GraphOp callee = calleeOf(call, symbols);
        if (callee == graph) {
          call.emitError("traced-flatten: a graph calls itself");
          return signalPassFailure();
        }
        Block *block = call->getBlock();
        Operation *before = call->getPrevNode(), *after = call->getNextNode();
        if (failed(inlineCall(call, callee))) {
          stuck.push_back(call);
          continue;
        }
        ++numInlined;
        for (Operation *op = before ? before->getNextNode() : &block->front();
             op != after; op = op->getNextNode())
          if (auto inner = dyn_cast<CallMethodOp>(op))
            if (calleeOf(inner, symbols))
              worklist.push_back(inner);
      }
      for (CallMethodOp call : stuck)
        call.emitWarning("traced-flatten: call left in place: an argument "
                         "is neither a traced value, a constant, nor a "
                         "list the callee reads only with "
                         "operator.getitem");
      if (keepLeafModules)
        continue;
      SmallVector<CallMethodOp> leafCalls;
      graph.walk([&](CallMethodOp call) { leafCalls.push_back(call); });
      for (CallMethodOp call : leafCalls)
        if (succeeded(makeLeafCallFunctional(call, symbols)))
          ++numLeafCalls;
    }
    referenceDirectly(root, symbols);
  }

  /// GlobalizeObjectGraph's last step: a parameter or buffer read through a
  /// getattr chain from `self` (`self.fc1.weight`) is declared in the root
  /// under its dotted path (`@"fc1.weight"`, sharing the value attribute) and
  /// read with one getattr; module getattrs left unused are erased.
  ///
  /// Tied weights stay tied: declarations holding the same `dense_resource`
  /// (the tracer gives one tensor reachable from several attributes one
  /// blob) become one root declaration, the first path's (or the root's own
  /// declaration of it), which every path reads. Equal inline values are
  /// not ties (two zero biases are two parameters).
  void referenceDirectly(traced::ModuleOp root,
                         SymbolTableCollection &symbols) {
    SymbolTable &table = symbols.getSymbolTable(root);
    Block &body = root.getBody().front();
    SmallVector<GraphOp> graphs(body.getOps<GraphOp>());
    if (graphs.empty())
      return;
    // New declarations go after the existing ones, before the graphs.
    Block::iterator insertPt = graphs.front()->getIterator();
    llvm::StringMap<StringAttr> declared; // path -> root decl name
    // dense_resource value -> root decl name, parameters and buffers apart.
    llvm::DenseMap<Attribute, StringAttr> tiedParameters, tiedBuffers;
    auto tiedTable = [&](Operation *decl) {
      return isa<ParameterOp>(decl) ? &tiedParameters : &tiedBuffers;
    };
    auto tieKey = [](Operation *decl) -> Attribute {
      Attribute value = decl->getAttr("value");
      return isa_and_nonnull<DenseResourceElementsAttr>(value) ? value
                                                               : Attribute();
    };
    for (Operation &op : body)
      if (isa<ParameterOp, BufferOp>(op))
        if (Attribute key = tieKey(&op))
          tiedTable(&op)->try_emplace(key, SymbolTable::getSymbolName(&op));
    OpBuilder detached(root.getContext());
    for (GraphOp graph : graphs) {
      Value self = graph.getSelf();
      SmallVector<GetAttrOp> gets;
      graph.walk([&](GetAttrOp get) {
        if (get.getReceiver() != self)
          gets.push_back(get);
      });
      for (GetAttrOp get : gets) {
        Operation *decl = tensorDeclOf(get, symbols);
        if (!decl)
          continue;
        std::string path = pathFromSelf(get, self);
        if (path.empty())
          continue;
        StringAttr &name = declared[path];
        Attribute key = tieKey(decl);
        if (!name && key)
          if (StringAttr shared = tiedTable(decl)->lookup(key))
            name = shared;
        if (!name) {
          // A declaration of that name already in the root (not one of
          // ours) keeps it; ours gets a numeric suffix.
          std::string unique = path;
          for (unsigned n = 1; table.lookup(unique); ++n)
            unique = path + "_" + std::to_string(n);
          auto value = cast<ElementsAttr>(decl->getAttr("value"));
          auto type = cast<TensorType>(get.getType());
          Operation *copy =
              isa<ParameterOp>(decl)
                  ? ParameterOp::create(detached, decl->getLoc(), unique, type,
                                        value)
                        .getOperation()
                  : BufferOp::create(detached, decl->getLoc(), unique, type,
                                     value)
                        .getOperation();
          name = table.insert(copy, insertPt);
          if (key)
            (*tiedTable(decl))[key] = name;
          ++numDirect;
        }
        OpBuilder b(get);
        auto direct =
            GetAttrOp::create(b, get.getLoc(), get.getType(), self, name);
        get.replaceAllUsesWith(direct.getResult());
        get->erase();
      }
      // The chains' module getattrs that nothing reads any more; uses come
      // after definitions, so one backward sweep erases whole chains.
      for (Operation &op : llvm::make_early_inc_range(
               llvm::reverse(graph.getBody().front())))
        if (auto get = dyn_cast<GetAttrOp>(op))
          if (isa<ModuleType>(get.getType()) && get->use_empty())
            get->erase();
    }
  }
};
} // namespace
