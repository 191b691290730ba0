//===- DynamicDims.h - dynamic input dims of a traced module ----*- C++ -*-===//
//
// A trace records one run, so every type in it is static. A dim the user
// declares dynamic (`traced.trace(m, x, dynamic_dims={0: "batch"})`) is
// found by tracing twice, at two sizes of that dim, and merging the two
// traces: they must be the same graph (the same ops, operands, attributes
// and constants), and a dim that differs between them becomes `?`. A trace
// whose graph depends on the size (a constant computed from `x.shape`, a
// branch taken on it) is refused instead of being silently specialized.
//
// The names of the root graph's dynamic input dims are kept as the argument
// attribute `traced.dim_names`: an array with one string per dim, empty for
// the static ones. Dims with the same name must have the same size at run
// time.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_TRANSFORMS_DYNAMICDIMS_H
#define TRACEDIR_TRANSFORMS_DYNAMICDIMS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::traced {

/// A dynamic dim of the root graph: `dim` of tensor input `input` (0 is the
/// first input after `self`), called `name`.
struct DynamicDim {
  unsigned input;
  int64_t dim;
  std::string name;
};

/// Merges `other`, the trace of the same model with the sizes of `dims`
/// changed, into `module`: every type that differs between the two gets `?`
/// where its dims differ, and the root `forward`'s inputs get their dim
/// names. Fails with an error at the first place where the two traces are
/// not the same graph, or when a requested dim did not become dynamic.
/// `module` is unchanged on failure.
LogicalResult mergeDynamicTrace(mlir::ModuleOp module, mlir::ModuleOp other,
                                ArrayRef<DynamicDim> dims);

} // namespace mlir::traced

#endif // TRACEDIR_TRANSFORMS_DYNAMICDIMS_H
