//===- LowerChecks.cpp - traced-cpu-lower-checks --------------------------===//
//
// The lowerings write what torch checks at run time (an index out of
// bounds, a boolean mask whose count is not the traced one) as cf.assert.
// Upstream lowers cf.assert to a message and abort(), which would kill the
// caller's process; here each check becomes a store into a status argument
// of the entry function instead, which the C entry points return
// (traced-emit-entry) and the Python bindings raise.
//
// The status is an argument, not a global: concurrent calls of one compiled
// model each get their own (the checks run on the calling thread: they sit
// between the linalg ops, outside any parallel loop).
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDCPULOWERCHECKS
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
struct LowerChecksPass
    : traced::impl::TracedCpuLowerChecksBase<LowerChecksPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void LowerChecksPass::runOnOperation() {
  MLIRContext *ctx = &getContext();
  for (auto f : getOperation().getOps<func::FuncOp>()) {
    SmallVector<cf::AssertOp> checks;
    f.walk([&](cf::AssertOp a) { checks.push_back(a); });
    if (checks.empty())
      continue;
    if (drop) {
      // (checks=false: the computation runs as if every check passed.)
      for (cf::AssertOp check : checks)
        check.erase();
      continue;
    }
    if (!f->hasAttr("traced.entry") || f.isExternal()) {
      checks.front().emitError()
          << "a run-time check outside a traced entry function";
      return signalPassFailure();
    }
    auto i32 = IntegerType::get(ctx, 32);
    auto statusType = MemRefType::get({}, i32);
    if (failed(f.insertArgument(f.getNumArguments(), statusType, {},
                                f.getLoc())))
      return signalPassFailure();
    Value status = f.getArgument(f.getNumArguments() - 1);
    SmallVector<Attribute> messages;
    for (auto [k, check] : llvm::enumerate(checks)) {
      OpBuilder b(check);
      Location loc = check.getLoc();
      Value failedCheck = arith::XOrIOp::create(
          b, loc, check.getArg(),
          arith::ConstantIntOp::create(b, loc, 1, 1));
      int64_t code = k + 1;
      scf::IfOp::create(b, loc, failedCheck, [&](OpBuilder &tb, Location l) {
        // The first check that fails is the one reported.
        Value current = memref::LoadOp::create(tb, l, status, ValueRange{});
        Value zero = arith::ConstantIntOp::create(tb, l, i32, 0);
        Value first = arith::CmpIOp::create(tb, l, arith::CmpIPredicate::eq,
                                            current, zero);
        Value next = arith::SelectOp::create(
            tb, l, first, arith::ConstantIntOp::create(tb, l, i32, code),
            current);
        memref::StoreOp::create(tb, l, next, status, ValueRange{});
        scf::YieldOp::create(tb, l);
      });
      messages.push_back(check.getMsgAttr());
      check.erase();
    }
    f->setAttr("traced.checks", ArrayAttr::get(ctx, messages));
  }
}
