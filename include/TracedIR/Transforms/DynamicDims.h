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

#include "TracedIR/Dialect/Traced/TracedOps.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

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

/// A named dynamic dim and its size in the example the trace ran.
struct NamedDimExample {
  std::string name;
  int64_t example;
};

/// The sizes of every tensor of a module with dynamic dims, from the op
/// library's rules evaluated at sample sizes of the names (SizeProbes.cpp):
/// per tensor result, per dim, whether every probe knew it, whether it
/// varies, and the affine expression of the names (symbol i is
/// `names[i]`) that gives it, when one does.
struct SizeRelations {
  struct Fit {
    bool known = true;
    bool varies = false;
    AffineExpr expr; // null when not affine in the names
  };
  std::vector<std::string> names;
  llvm::DenseMap<Value, SmallVector<Fit>> dims;
  /// `e` over the names: "past + seq", "2 * n - 1".
  std::string print(AffineExpr e) const;
};

/// Evaluates `root` (the root forward, whose inputs carry traced.dim_names)
/// and the graphs it calls at sample sizes around `dims`' examples.
SizeRelations probeSizes(mlir::ModuleOp module, GraphOp root,
                         ArrayRef<NamedDimExample> dims);

} // namespace mlir::traced

#endif // TRACEDIR_TRANSFORMS_DYNAMICDIMS_H
