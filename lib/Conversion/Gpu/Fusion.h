//===- Fusion.h - What a GPU contraction kernel absorbs ---------*- C++ -*-===//
//
// traced-gpu-tile-contractions builds one kernel per contraction from
// bufferized linalg. The ops bufferization leaves around a contraction are
// separate loop nests, each a launch that reads and writes the whole
// activation: a convolution's padded copy of its input (a fill and a copy
// into a subview), the zero fill of C, and the elementwise generic after it
// (bias, activation, residual add). These helpers find the ones the kernel
// can take in (its loads read through the padding; its stores apply the
// generic), with the buffer-order checks that make moving them sound.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_CONVERSION_GPU_FUSION_H
#define TRACEDIR_LIB_CONVERSION_GPU_FUSION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::traced::gpu_fusion {

/// Every buffer that may alias `v`: the root it is a view of, and the views
/// of that root, transitively.
SmallVector<Value> aliases(Value v);

/// The buffer `v` is a view of (through view-like ops), or `v`.
Value rootOf(Value v);

/// Whether `op` (or an op nested in it) may write one of `values`.
bool mayWrite(Operation *op, ArrayRef<Value> values);

/// Whether `op` or an op nested in it has one of `values` as an operand.
bool uses(Operation *op, ArrayRef<Value> values);

/// Whether an op strictly between `first` and `last` (later in the same
/// block) writes a buffer that may alias `x` or `y`, or with `anyUse`
/// uses one at all.
bool touchedBetween(Operation *first, Operation *last, Value x, Value y,
                    bool anyUse);

/// The fill of `c` with +0.0 before `op` in its block, with nothing between
/// them touching `c`.
linalg::FillOp zeroFillBefore(Value c, Operation *op);

/// A convolution input that is a padded copy: an allocation filled with a
/// constant (`linalg.fill`, or a `linalg.map` yielding one), `source`
/// copied into a static unit-stride subview of it at `offsets`, and read by
/// nothing but the convolution. The kernel reads `source` and gives
/// `padding` outside it.
struct PaddedInput {
  Value source;
  SmallVector<int64_t> offsets;
  TypedAttr padding;
  Operation *alloc = nullptr, *fill = nullptr, *subview = nullptr,
            *copy = nullptr;
};

/// The padded copy `input` is (an operand of `reader`), if one.
std::optional<PaddedInput> paddedInput(Value input, Operation *reader);

/// Erases `reader`, once the kernel built before it reads `pad.source`,
/// and the padded buffer (allocation, fill, subview, copy, frees); frees of
/// the source between the copy and `reader` move to where `reader` was.
void replacePaddedRead(const PaddedInput &pad, Operation *reader);

/// The elementwise op after a contraction into C: a `linalg.generic` with
/// parallel loops only that reads all of C (identity map) and writes `out`
/// (identity map), whose other inputs are read at dims or constants, with
/// a pure body. C must be an allocation filled with zeros before the
/// contraction and read by nothing else, so that the kernel computes the
/// generic's element from its sum and C goes away.
struct Epilogue {
  linalg::GenericOp generic;
  Value c, out;
};

/// The epilogue of the contraction `op` into `c` (zero-filled by `fill`),
/// if the kernel replacing `op` can compute it: nothing between `op` and
/// the generic writes the generic's inputs or touches `out` or `c`, and
/// `out` overlaps none of `reads` (what the kernel reads) nor the
/// generic's inputs (but for `out` itself at the identity map). Buffers
/// the generic uses that are defined between `op` and it (an allocation,
/// a global, views of them) are moved before `op`.
std::optional<Epilogue> epilogueAfter(Value c, Operation *op,
                                      linalg::FillOp fill,
                                      ArrayRef<Value> reads);

/// The epilogue's element at C's `indices` (the generic's loop indices),
/// given C's value there, stored to `out`.
void emitEpilogue(OpBuilder &b, Location loc, const Epilogue &epilogue,
                  Value value, ValueRange indices);

/// Once the kernel computes the epilogue: the generic, C's allocation and
/// everything else using it (its fill, its frees) go away.
void absorbEpilogue(const Epilogue &epilogue);

} // namespace mlir::traced::gpu_fusion

#endif // TRACEDIR_LIB_CONVERSION_GPU_FUSION_H
