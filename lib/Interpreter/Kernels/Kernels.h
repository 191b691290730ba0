//===- Kernels.h - the interpreter kernels of the op library ----*- C++ -*-===//
//
// One kernel per op-library entry, in one file per family (Elementwise.cpp,
// Factory.cpp, Linalg.cpp, Loss.cpp, Norm.cpp, Pool.cpp, Reduce.cpp,
// Shape.cpp), each of which names its entries' kernels by canonical name
// in its populate function; KernelTable.cpp gathers them.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_INTERPRETER_KERNELS_KERNELS_H
#define TRACEDIR_LIB_INTERPRETER_KERNELS_KERNELS_H

#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/OpLibrary/Runtime.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::traced::kernels {

using KernelTable = llvm::StringMap<Kernel>;

/// `fn` of an ArgReader over a kernel's arguments (for the op library's
/// decodeConv and decodePool, which the rules and the lowering call too).
template <typename Fn> auto withArgReader(const KernelArgs &args, Fn fn) {
  auto ints = [&](StringRef name) -> std::optional<SmallVector<int64_t>> {
    const RtValue &v = args.get(name);
    if (!std::holds_alternative<int64_t>(v.v) && !v.list())
      return std::nullopt;
    FailureOr<SmallVector<int64_t>> l = args.getInts(name);
    return succeeded(l) ? std::optional(*l) : std::nullopt;
  };
  auto integer = [&](StringRef name) -> std::optional<int64_t> {
    FailureOr<int64_t> i = args.getInt(name);
    return succeeded(i) ? std::optional(*i) : std::nullopt;
  };
  auto boolean = [&](StringRef name) -> std::optional<bool> {
    FailureOr<bool> b = args.getBool(name);
    return succeeded(b) ? std::optional(*b) : std::nullopt;
  };
  auto str = [&](StringRef name) -> std::optional<std::string> {
    if (auto *s = std::get_if<std::string>(&args.get(name).v))
      return *s;
    return std::nullopt;
  };
  auto isNone = [&](StringRef name) { return args.isNone(name); };
  auto known = [](StringRef) { return true; };
  ArgReader reader{ints, integer, boolean, str, isNone, known};
  return fn(reader);
}

/// Kernels that other families' kernels call (a loss computes with exp and
/// log; a matrix product sums): declared here, defined in their family's
/// file. Entries are not declared otherwise: a family file names its
/// entries' kernels itself.
#define TRACED_KERNEL(name) FailureOr<RtValue> name(const KernelArgs &args);
TRACED_KERNEL(clamp)
TRACED_KERNEL(exp)
TRACED_KERNEL(expand)
TRACED_KERNEL(floor)
TRACED_KERNEL(log)
TRACED_KERNEL(max)
TRACED_KERNEL(mean)
TRACED_KERNEL(min)
TRACED_KERNEL(mul)
TRACED_KERNEL(round)
TRACED_KERNEL(sign)
TRACED_KERNEL(sum)
TRACED_KERNEL(t)
TRACED_KERNEL(xlogy)
#undef TRACED_KERNEL

/// Each family file names its entries' kernels.
void populateElementwiseKernels(KernelTable &table);
void populateFactoryKernels(KernelTable &table);
void populateLinalgKernels(KernelTable &table);
void populateLossKernels(KernelTable &table);
void populateNormKernels(KernelTable &table);
void populatePoolKernels(KernelTable &table);
void populateReduceKernels(KernelTable &table);
void populateShapeKernels(KernelTable &table);

} // namespace mlir::traced::kernels

#endif // TRACEDIR_LIB_INTERPRETER_KERNELS_KERNELS_H
