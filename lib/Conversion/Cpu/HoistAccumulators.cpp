//===- HoistAccumulators.cpp - traced-cpu-hoist-accumulators --------------===//
//
// After bufferization: the register tile's accumulator loads and stores
// leave the reduction loop (upstream's hoistRedundantVectorTransfers).
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDCPUHOISTACCUMULATORS
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
struct HoistAccumulatorsPass
    : traced::impl::TracedCpuHoistAccumulatorsBase<HoistAccumulatorsPass> {
  using Base::Base;
  void runOnOperation() override {
    linalg::hoistRedundantVectorTransfers(getOperation());
  }
};
} // namespace
