//===- Limits.cpp - configurable resource limits --------------------------===//

#include "TracedIR/Support/Limits.h"

#include "TracedIR/Support/DType.h"

#include "mlir/IR/Operation.h"

#include <atomic>
#include <cstdlib>

using namespace mlir;
using namespace mlir::traced;

namespace {
std::atomic<uint64_t> maxTensorBytes{0};
std::atomic<uint64_t> maxOps{0};
thread_local uint64_t resourceFailures = 0;
} // namespace

/// A positive integer from the environment variable `name`, or `fallback`.
static uint64_t fromEnv(const char *name, uint64_t fallback) {
  const char *text = std::getenv(name);
  uint64_t value = 0;
  if (!text || llvm::StringRef(text).getAsInteger(10, value) || value == 0)
    return fallback;
  return value;
}

ResourceLimits traced::defaultResourceLimits() {
  // (Once: compiled code reads the limits on every allocation.)
  static const ResourceLimits defaults = {
      fromEnv("TRACED_MAX_TENSOR_BYTES",
              physicalMemoryBytes().value_or(uint64_t(1) << 40)),
      fromEnv("TRACED_MAX_OPS", uint64_t(1) << 24)};
  return defaults;
}

ResourceLimits traced::getResourceLimits() {
  ResourceLimits defaults = defaultResourceLimits();
  uint64_t bytes = maxTensorBytes.load(std::memory_order_relaxed);
  uint64_t ops = maxOps.load(std::memory_order_relaxed);
  return {bytes ? bytes : defaults.maxTensorBytes,
          ops ? ops : defaults.maxOps};
}

void traced::setResourceLimits(const ResourceLimits &limits) {
  maxTensorBytes.store(limits.maxTensorBytes, std::memory_order_relaxed);
  maxOps.store(limits.maxOps, std::memory_order_relaxed);
}

void traced::noteResourceFailure() { ++resourceFailures; }
uint64_t traced::resourceFailureCount() { return resourceFailures; }

std::string traced::describeTensorBytesLimit() {
  return "the limit max_tensor_bytes (" +
         std::to_string(getResourceLimits().maxTensorBytes) + " bytes; " +
         kLimitsHow + ")";
}

InFlightDiagnostic traced::emitTensorBytesLimit(Location loc,
                                                const llvm::Twine &what,
                                                uint64_t bytes) {
  noteResourceFailure();
  return emitError(loc) << what << " would take " << bytes
                        << " bytes, more than " << describeTensorBytesLimit();
}

LogicalResult traced::checkOpCount(Operation *root, llvm::StringRef what) {
  uint64_t limit = getResourceLimits().maxOps;
  uint64_t count = 0;
  // (Stops counting at the limit: a module of 2^30 ops is refused as fast
  // as one just over it.)
  WalkResult walk = root->walk([&](Operation *) {
    return ++count > limit ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (!walk.wasInterrupted())
    return success();
  noteResourceFailure();
  return root->emitError() << what << " holds more than " << limit
                           << " operations, the limit max_ops (" << kLimitsHow
                           << ")";
}
