//===- Threads.h - which dim of a loop nest goes to threads -----*- C++ -*-===//
//
// Part of TracedIR. See docs/cpu.md, "Threads". Shared by
// traced-cpu-tile-and-vectorize (elementwise ops, reductions, pooling
// loops) and traced-cpu-expand-copies (large copies), so that both spread
// their loops over threads by the same rule.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_CONVERSION_CPU_THREADS_H
#define TRACEDIR_LIB_CONVERSION_CPU_THREADS_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir::traced {

/// The dim a loop nest of these static bounds is spread over threads along
/// (scf.forall or scf.parallel, then OpenMP), among `candidates` (outermost
/// first): none below 2^14 iterations; else the outermost of eight or more,
/// else the largest of two or more. Eight: a stem's 3 channels on 2 threads
/// would leave one idle a third of the time.
inline std::optional<unsigned> threadDim(ArrayRef<int64_t> bounds,
                                         ArrayRef<unsigned> candidates) {
  int64_t iterations = 1;
  for (int64_t b : bounds)
    iterations = ShapedType::isDynamic(b) ? 0 : iterations * b;
  std::optional<unsigned> chosen;
  if (iterations < (int64_t(1) << 14))
    return chosen;
  for (unsigned d : candidates) {
    if (bounds[d] >= 8)
      return d;
    if (bounds[d] >= 2 && (!chosen || bounds[d] > bounds[*chosen]))
      chosen = d;
  }
  return chosen;
}

} // namespace mlir::traced

#endif // TRACEDIR_LIB_CONVERSION_CPU_THREADS_H
