//===- Passes.h - graph-surgery passes --------------------------*- C++ -*-===//
//
// The passes only; what they share with the layers above (decompositions,
// constant evaluation, leaf-module calls as functional calls) is in
// GraphRewrites.h.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_TRANSFORMS_PASSES_H
#define TRACEDIR_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include <string>
#include <vector>

namespace mlir::traced {

#define GEN_PASS_DECL
#include "TracedIR/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TracedIR/Transforms/Passes.h.inc"

} // namespace mlir::traced

#endif // TRACEDIR_TRANSFORMS_PASSES_H
