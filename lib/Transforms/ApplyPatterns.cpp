//===- ApplyPatterns.cpp - user-written PDL patterns ----------------------===//

#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Transforms/Passes.h"
#include "Utils.h"

#include "mlir/Dialect/PDL/IR/PDL.h"
#include "mlir/Dialect/PDL/IR/PDLOps.h"
#include "mlir/Dialect/PDLInterp/IR/PDLInterp.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDAPPLYPATTERNS
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
struct ApplyPatternsPass
    : traced::impl::TracedApplyPatternsBase<ApplyPatternsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    // Parsed once per pipeline; a bad file fails in runOnOperation with
    // the parser's diagnostics.
    if (patternFile.empty())
      return success();
    ParserConfig config(ctx);
    OwningOpRef<mlir::ModuleOp> module =
        parseSourceFile<mlir::ModuleOp>(patternFile, config);
    if (!module)
      return success();
    if (module->getOps<pdl::PatternOp>().empty()) {
      emitError(module->getLoc())
          << "'" << patternFile << "' holds no pdl.pattern";
      return success();
    }
    RewritePatternSet set(ctx);
    set.add(PDLPatternModule(std::move(module)));
    patterns = std::make_shared<FrozenRewritePatternSet>(std::move(set));
    return success();
  }

  void runOnOperation() override {
    if (patternFile.empty()) {
      getOperation().emitError(
          "traced-apply-patterns needs a pattern file: patterns=FILE");
      return signalPassFailure();
    }
    if (!patterns) {
      getOperation().emitError("cannot use the patterns in '")
          << patternFile << "'";
      return signalPassFailure();
    }
    FailureOr<unsigned> sweeps = applyToFixedPoint(getOperation(), *patterns);
    if (failed(sweeps)) {
      getOperation().emitError("the patterns in '")
          << patternFile << "' did not reach a fixed point";
      return signalPassFailure();
    }
    numIterations = *sweeps;
    if (reportIterations)
      emitRemark(getOperation().getLoc())
          << "traced-apply-patterns: fixed point after " << *sweeps
          << " sweep(s)";
    // Patterns can build anything: check what they built.
    if (failed(verify(getOperation())))
      return signalPassFailure();
  }

  std::shared_ptr<FrozenRewritePatternSet> patterns;
};
} // namespace
