//===- GraphRewrites.h - graph rewrites every layer uses --------*- C++ -*-===//
//
// The pieces of the graph-surgery library that the lowering and the
// bindings use too: leaf-module calls as functional calls, tensor
// constants, constant evaluation with the interpreter's kernels, and the
// decompositions of op-library entries into other entries.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_TRANSFORMS_GRAPHREWRITES_H
#define TRACEDIR_TRANSFORMS_GRAPHREWRITES_H

#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Interpreter/Value.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace mlir::traced {

/// Rewrites a call of a leaf module of a known class into a call of the
/// class's functional with the module's attributes (getattr for tensors,
/// inline constants for plain attributes). Fails, leaving the IR as it is,
/// for unknown classes.
FailureOr<CallFunctionOp>
makeLeafCallFunctional(CallMethodOp call, SymbolTableCollection &symbols);

/// The value of a tensor the graph reads from a constant or a parameter or
/// buffer declaration, when it has one.
FailureOr<Tensor> constantTensor(Value value, SymbolTableCollection &symbols);
/// The same value as the attribute that holds it (no copy).
FailureOr<ElementsAttr> constantElements(Value value,
                                         SymbolTableCollection &symbols);

/// A traced.constant holding `tensor` as a dense_resource blob.
ConstantOp createTensorConstant(OpBuilder &builder, Location loc,
                                const Tensor &tensor, StringRef nameHint);

/// The constant a call of a pure op-library entry evaluates to when all its
/// operands are constants (of at most `maxElements` elements each), by
/// running the entry's interpreter kernel once; null otherwise
/// (traced-fold-constants).
Attribute evaluateConstantCall(Operation *call, int64_t maxElements);

/// The op-library entries with a decomposition (traced-decompose), sorted.
std::vector<std::string> getDecomposedTargets();
/// The family (Elementwise, Factory, Linalg, ...; an entry's family is the
/// same in every layer) of the file that names `entry`'s decomposition, or
/// "" when it has none.
llvm::StringRef decompositionFamily(llvm::StringRef entry);

/// Applies decompositions to the calls under `root` that `filter` selects
/// (given the call and its canonical target; all when null), until none is
/// left. Calls a decomposition declines stay; `declined` (when given) maps
/// their targets to why. With `widenHalf`, a selected call whose entry has
/// no decomposition and that holds float16 or bfloat16 tensors becomes the
/// same call in float32, its results rounded back once (how torch's CPU
/// kernels compute those dtypes). Fails after reporting an error.
LogicalResult
decomposeCalls(Operation *root,
               function_ref<bool(Operation *call, StringRef target)> filter,
               llvm::StringMap<std::string> *declined, bool widenHalf = false);

/// traced-lower-quantized: the quantized tensors of `top` as their storage
/// integers, its quantized ops as calls of ordinary entries
/// (Decompose/LowerQuantized.cpp). `entry`, when given, is the graph to
/// compile, whose inputs and outputs must not be quantized. Fails after
/// reporting an error.
LogicalResult lowerQuantized(mlir::ModuleOp top, Operation *entry,
                             bool int8Kernels = true);
/// traced-fuse-quantized: each dequantize / float op / quantize island under
/// `top` as the int8 op (FuseQuantized.cpp); returns how many quantize
/// calls it fused, or fails after reporting an error.
FailureOr<unsigned> fuseQuantizedIslands(mlir::ModuleOp top);
/// The quantized entries (QuantizedUse::Native) traced-lower-quantized
/// rewrites, which the compilers therefore lower.
std::vector<std::string> getQuantizedLoweringTargets();

} // namespace mlir::traced

#endif // TRACEDIR_TRANSFORMS_GRAPHREWRITES_H
