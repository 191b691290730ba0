//===- Winograd.h - 3x3 convolutions as Winograd F(2x2, 3x3) ----*- C++ -*-===//
//
// Part of TracedIR. See docs/cpu.md, "Winograd convolutions".
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_CONVERSION_CPU_WINOGRAD_H
#define TRACEDIR_LIB_CONVERSION_CPU_WINOGRAD_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::traced {

/// Rewrites `conv` as Winograd F(2x2, 3x3): an input transform into 16
/// matrices of C x tiles, one `linalg.batch_matmul` by the filter
/// transformed at compile time (16 x F x C), and an output transform into
/// the convolution's result. The transforms are vector code over rows of
/// tiles, spread over threads (`scf.forall`) when `parallel`. Fails,
/// changing nothing, unless `conv` is f32, of static shapes, with a 3x3
/// filter that is an `arith.constant`, unit strides and dilations, at
/// least `minChannels` input and output channels, and a shape Winograd
/// pays for (docs/cpu.md, "Winograd convolutions").
LogicalResult convToWinograd(RewriterBase &rewriter,
                             linalg::Conv2DNchwFchwOp conv,
                             int64_t minChannels, bool parallel);

} // namespace mlir::traced

#endif // TRACEDIR_LIB_CONVERSION_CPU_WINOGRAD_H
