//===- MemrefAbi.h - the CPU runtime's export and memref-ABI macros -------===//
//
// Private to lib/Runtime/Cpu: how each runtime file exports its C entry
// points, and the parameters MLIR passes for one memref<?xT> argument of an
// external function (base, aligned, offset, size, stride; docs/
// linalg-runtime.md), with the element pointer they address.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_RUNTIME_CPU_MEMREFABI_H
#define TRACEDIR_LIB_RUNTIME_CPU_MEMREFABI_H

#include <stdint.h>

#define TRACED_EXPORT extern "C" __attribute__((visibility("default")))

// The five parameters of a memref<?xT> named `x`, and its first element.
#define MR(T, x) T *x##Base, T *x, int64_t x##Off, int64_t x##Size, int64_t x##Stride
#define AT(x) (x + x##Off)

#endif // TRACEDIR_LIB_RUNTIME_CPU_MEMREFABI_H
