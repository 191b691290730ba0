//===- DCE.cpp - remove dead exprs, declarations and modules --------------===//

#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDDCE
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
struct DCEPass : traced::impl::TracedDCEBase<DCEPass> {
  void runOnOperation() override {
    mlir::ModuleOp top = getOperation();
    SymbolTableCollection collection;
    symbols = &collection;
    bool changed = true;
    while (changed) {
      changed = false;
      changed |= removeDeadExprs(top);
      changed |= removeUnreachableGraphs(top);
      changed |= removeUnusedDecls(top);
      changed |= removeUnusedModules(top);
    }
  }

  bool removeDeadExprs(mlir::ModuleOp top) {
    bool changed = false;
    top.walk([&](GraphOp graph) {
      Block &body = graph.getBody().front();
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
        if (isOpTriviallyDead(&op)) {
          op.erase();
          ++numExprs;
          changed = true;
        }
    });
    return changed;
  }

  traced::ModuleOp moduleOf(Value receiver, mlir::ModuleOp top) {
    auto type = dyn_cast<ModuleType>(receiver.getType());
    return type ? symbols->lookupSymbolIn<traced::ModuleOp>(
                      top, type.getModuleName())
                : traced::ModuleOp();
  }

  bool removeUnreachableGraphs(mlir::ModuleOp top) {
    llvm::SetVector<GraphOp> reachable;
    for (auto m : top.getOps<traced::ModuleOp>())
      if (m.getRoot())
        for (GraphOp g : m.getBody().front().getOps<GraphOp>())
          reachable.insert(g);
    for (unsigned i = 0; i < reachable.size(); ++i)
      GraphOp(reachable[i]).walk([&](CallMethodOp call) {
        if (traced::ModuleOp m = moduleOf(call.getReceiver(), top))
          if (auto g = dyn_cast_or_null<GraphOp>(
                  symbols->lookupSymbolIn(m, call.getMethodAttr())))
            reachable.insert(g);
      });
    bool changed = false;
    SmallVector<GraphOp> dead;
    top.walk([&](GraphOp g) {
      if (!reachable.contains(g))
        dead.push_back(g);
    });
    for (GraphOp g : dead) {
      symbols->invalidateSymbolTable(g->getParentOp());
      g.erase();
      ++numGraphs;
      changed = true;
    }
    return changed;
  }

  bool removeUnusedDecls(mlir::ModuleOp top) {
    llvm::DenseSet<Operation *> used;
    llvm::DenseSet<Operation *> calledLeaves;
    top.walk([&](Operation *op) {
      if (auto get = dyn_cast<GetAttrOp>(op)) {
        if (traced::ModuleOp m = moduleOf(get.getReceiver(), top))
          if (Operation *decl = symbols->lookupSymbolIn(m, get.getNameAttr()))
            used.insert(decl);
      } else if (auto call = dyn_cast<CallMethodOp>(op)) {
        if (traced::ModuleOp m = moduleOf(call.getReceiver(), top))
          if (m.isLeaf())
            calledLeaves.insert(m);
      }
    });
    bool changed = false;
    for (auto m : top.getOps<traced::ModuleOp>()) {
      // A leaf's calls read its attributes through the op library (or in
      // ways nobody knows, for unknown classes); a leaf nobody calls loses
      // what nobody reads, and goes away whole once nothing names it.
      if (calledLeaves.contains(m))
        continue;
      SmallVector<Operation *> dead;
      for (Operation &decl : m.getBody().front())
        if (!isa<GraphOp>(decl) && !used.contains(&decl))
          dead.push_back(&decl);
      for (Operation *decl : dead) {
        symbols->invalidateSymbolTable(m);
        decl->erase();
        ++numDecls;
        changed = true;
      }
    }
    return changed;
  }

  bool removeUnusedModules(mlir::ModuleOp top) {
    llvm::DenseSet<StringRef> referenced;
    top.walk([&](SubmoduleOp sub) { referenced.insert(sub.getModule()); });
    bool changed = false;
    for (auto m : llvm::make_early_inc_range(top.getOps<traced::ModuleOp>()))
      if (!m.getRoot() && !referenced.contains(m.getSymName())) {
        symbols->invalidateSymbolTable(top);
        m.erase();
        ++numModules;
        changed = true;
      }
    return changed;
  }

  SymbolTableCollection *symbols = nullptr;
};
} // namespace
