//===- SplitFunctions.cpp - traced-cpu-split-functions --------------------===//
//
// A traced graph lowers to one function whose body is one block with an op
// per expr. Several upstream passes take more than linear time in the
// length of a block (CSE compares look-alike loops whose hash ignores their
// bodies, buffer-deallocation-simplification asks alias questions between
// the buffers of a block, LLVM optimizes a function of thousands of calls
// as a whole), so a graph of 10,000 exprs compiled 6.7 times slower than
// one of 3,000. This pass cuts such a block into parts of bounded size,
// each a private function called in order, before any of those passes run.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDCPUSPLITFUNCTIONS
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
/// Ops a part clones rather than takes as an argument: constants, whose
/// values later passes fold and pack, operand-free `tensor.empty`s, which
/// only say a shape, and `linalg.fill`s of those two. CSE shares one zero
/// fill between all the contractions of a shape; as an argument, it would
/// be one buffer that every contraction of a part writes into, and
/// one-shot-bufferize's conflict analysis is quadratic in such writers
/// (traced-cpu-pipeline gives each its own fill, but only within a
/// function).
bool isCloned(Operation *op) {
  if (op->getNumResults() != 1)
    return false;
  if (auto empty = dyn_cast<tensor::EmptyOp>(op))
    return empty->getNumOperands() == 0;
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.hasPureTensorSemantics() &&
           llvm::all_of(fill->getOperands(), [](Value operand) {
             Operation *def = operand.getDefiningOp();
             return def && isCloned(def);
           });
  return op->getNumRegions() == 0 && matchPattern(op, m_Constant());
}

/// Whether `value` is a tensor (or memref) of a size known only at run
/// time: no part may return one.
bool isDynamicallyShaped(Value value) {
  auto shaped = dyn_cast<ShapedType>(value.getType());
  return shaped && !shaped.hasStaticShape();
}

/// Clones the op defining `value` (an isCloned op), and what it uses,
/// at `b`'s insertion point unless `mapping` already has them.
Value cloneDefinition(OpBuilder &b, Value value, IRMapping &mapping) {
  if (Value done = mapping.lookupOrNull(value))
    return done;
  Operation *def = value.getDefiningOp();
  for (Value operand : def->getOperands())
    cloneDefinition(b, operand, mapping);
  return b.clone(*def, mapping)->getResult(0);
}

struct SplitFunctionsPass
    : traced::impl::TracedCpuSplitFunctionsBase<SplitFunctionsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (maxOps <= 0)
      return;
    SymbolTable symbols(getOperation());
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs)
      if (!func.isExternal() && func.getBody().hasOneBlock())
        split(func, symbols);
  }

  void split(func::FuncOp func, SymbolTable &symbols) {
    Block &body = func.getBody().front();
    SmallVector<Operation *> moved;
    DenseMap<Operation *, int64_t> position;
    for (Operation &op : body.without_terminator())
      if (!isCloned(&op) && !isa<cf::AssertOp>(op)) {
        position[&op] = static_cast<int64_t>(moved.size());
        moved.push_back(&op);
      }
    auto total = static_cast<int64_t>(moved.size());
    if (total <= maxOps)
      return;
    // A part cannot return a dynamically shaped tensor (its buffer could
    // not become an out-parameter of a size known to the caller), so no
    // part ends between the op defining one and its last use:
    // blocked[i] > 0 when no part may end after moved[i].
    SmallVector<int64_t> blocked(total + 1, 0);
    for (auto [i, op] : llvm::enumerate(moved))
      for (Value result : op->getResults()) {
        if (!isDynamicallyShaped(result))
          continue;
        int64_t last = static_cast<int64_t>(i);
        for (Operation *user : result.getUsers()) {
          Operation *top = body.findAncestorOpInBlock(*user);
          last = std::max(last, position.lookup_or(top, total));
        }
        ++blocked[i];
        --blocked[last];
      }
    // Parts of about equal size, each of at most maxOps where the blocked
    // stretches allow.
    int64_t size = llvm::divideCeilSigned(
        total, llvm::divideCeilSigned(total, static_cast<int64_t>(maxOps)));
    DenseMap<Operation *, int64_t> part;
    SmallVector<SmallVector<Operation *>> parts(1);
    for (int64_t i = 0, open = 0; i < total; ++i) {
      open += blocked[i];
      parts.back().push_back(moved[i]);
      part[moved[i]] = static_cast<int64_t>(parts.size());
      if (static_cast<int64_t>(parts.back().size()) >= size && open == 0 &&
          i + 1 < total)
        parts.emplace_back();
    }
    if (parts.size() < 2)
      return;
    auto partOf = [&](Operation *op) -> int64_t {
      Operation *top = body.findAncestorOpInBlock(*op);
      return top ? part.lookup(top) : 0;
    };
    auto definedIn = [&](Value value) -> int64_t {
      if (auto arg = dyn_cast<BlockArgument>(value))
        return arg.getOwner() == &body ? 0
                                       : partOf(arg.getOwner()->getParentOp());
      return partOf(value.getDefiningOp());
    };
    Operation *last = func;
    for (auto [k, ops] : llvm::enumerate(parts))
      last = outline(func, last, ops, static_cast<int64_t>(k) + 1, definedIn,
                     partOf, symbols);
    // The constants, empties and fills that only the parts used.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isCloned(&op) && op.use_empty())
        op.erase();
  }

  /// Moves `ops` (part `index`, consecutive among the moved ops) into a new
  /// function placed after `previous`, calls it after the last of them,
  /// and returns the function.
  Operation *outline(func::FuncOp func, Operation *previous,
                     ArrayRef<Operation *> ops, int64_t index,
                     llvm::function_ref<int64_t(Value)> definedIn,
                     llvm::function_ref<int64_t(Operation *)> partOf,
                     SymbolTable &symbols) {
    Location loc = ops.front()->getLoc();
    llvm::SetVector<Value> arguments, cloned;
    for (Operation *op : ops)
      op->walk([&](Operation *nested) {
        for (Value value : nested->getOperands()) {
          if (definedIn(value) == index)
            continue;
          Operation *def = value.getDefiningOp();
          (def && isCloned(def) ? cloned : arguments).insert(value);
        }
      });
    SmallVector<Value> results;
    for (Operation *op : ops)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return partOf(user) != index;
            }))
          results.push_back(result);
    // (Only the last part can end on a dynamically shaped value, one the
    // function returns: it stays in the function.)
    if (llvm::any_of(results, isDynamicallyShaped))
      return previous;
    // The checks among the part's ops, which follow its call.
    SmallVector<Operation *> checks;
    for (Operation *op = ops.front(); op != ops.back(); op = op->getNextNode())
      if (isa<cf::AssertOp>(op))
        checks.push_back(op);

    OpBuilder b(func);
    b.setInsertionPointAfter(previous);
    auto type = b.getFunctionType(ValueRange(arguments.getArrayRef()).getTypes(),
                                  ValueRange(results).getTypes());
    auto outlined = func::FuncOp::create(
        b, loc, (func.getSymName() + "_part" + Twine(index)).str(), type);
    outlined.setPrivate();
    // (LLVM's inliner would otherwise put the whole function back together.)
    outlined->setAttr("passthrough",
                      b.getArrayAttr({b.getStringAttr("noinline")}));
    symbols.insert(outlined);
    Block *entry = outlined.addEntryBlock();

    b.setInsertionPointAfter(ops.back());
    auto call = func::CallOp::create(b, loc, outlined,
                                     ValueRange(arguments.getArrayRef()));
    Operation *after = call;
    for (Operation *check : checks) {
      check->moveAfter(after);
      after = check;
    }

    b.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (Value value : cloned)
      cloneDefinition(b, value, mapping);
    mapping.map(arguments.getArrayRef(), entry->getArguments());
    auto ret = func::ReturnOp::create(b, loc, results);
    for (Operation *op : ops)
      op->moveBefore(ret);
    for (auto [result, replacement] : llvm::zip(results, call.getResults()))
      result.replaceUsesWithIf(replacement, [&](OpOperand &use) {
        return use.getOwner()->getParentOfType<func::FuncOp>() != outlined;
      });
    for (Operation *op : ops)
      op->walk([&](Operation *nested) {
        for (OpOperand &operand : nested->getOpOperands())
          if (Value replacement = mapping.lookupOrNull(operand.get()))
            operand.set(replacement);
      });
    return outlined;
  }
};
} // namespace
