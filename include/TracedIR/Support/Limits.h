//===- Limits.h - configurable resource limits ------------------*- C++ -*-===//
//
// Process-wide limits on what one tensor and one module may take
// (docs/reliability.md, "Resource limits"). Reaching one is an error that
// names the limit: Python raises traced.ResourceError, which is also how
// an allocation that fails in compiled code is reported (BufferCache.h).
// Python sets them with `traced.set_limits` / `traced.limits(...)`.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_SUPPORT_LIMITS_H
#define TRACEDIR_SUPPORT_LIMITS_H

#include "mlir/IR/Diagnostics.h"

#include <cstdint>
#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::traced {

struct ResourceLimits {
  /// The most bytes one tensor may take: a result the interpreter computes,
  /// a temporary compiled code allocates (checked when it is allocated),
  /// a static-shape value compiled code would allocate (checked when it
  /// is compiled). Default: this machine's physical memory.
  uint64_t maxTensorBytes;
  /// The most operations a module may hold when it is parsed, loaded,
  /// traced or compiled. Default: 2^24 (ResNet-50 holds about 1,300).
  uint64_t maxOps;
};

/// How a user sets them, for messages.
inline constexpr const char *kLimitsHow =
    "traced.set_limits, or TRACED_MAX_TENSOR_BYTES / TRACED_MAX_OPS";

/// The limits now (the defaults until setResourceLimits).
ResourceLimits getResourceLimits();
/// Replaces the limits; a zero field takes that limit's default.
void setResourceLimits(const ResourceLimits &limits);
/// The defaults: the environment's TRACED_MAX_TENSOR_BYTES and
/// TRACED_MAX_OPS (positive integers) when set, read once.
ResourceLimits defaultResourceLimits();

/// Counts, per thread, the errors emitted because a limit was reached or
/// memory ran out, so that a caller can tell them from others (the Python
/// bindings raise them as traced.ResourceError).
void noteResourceFailure();
uint64_t resourceFailureCount();

/// "the limit max_tensor_bytes (<limit> bytes; <how to set it>)": how every
/// message about that limit names it.
std::string describeTensorBytesLimit();

/// Emits at `loc`: "<what> would take <bytes> bytes, more than " and
/// describeTensorBytesLimit(), and notes it.
InFlightDiagnostic emitTensorBytesLimit(Location loc, const llvm::Twine &what,
                                        uint64_t bytes);

/// Fails, with an error at `root` naming the limit, when `root` holds
/// more than max_ops operations (itself included). `what` names the step:
/// "the parsed module", "the traced module"...
LogicalResult checkOpCount(Operation *root, llvm::StringRef what);

} // namespace mlir::traced

#endif // TRACEDIR_SUPPORT_LIMITS_H
