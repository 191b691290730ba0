/*===- RuntimeSymbol.h - a CPU runtime entry point by name --------*- C -*-===*
 *
 * Each part of the CPU runtime (LAPACK, sort, special functions, losses;
 * docs/linalg-runtime.md) lists the entry points compiled code calls as an
 * array of these, for a JIT to define (CpuModule.cpp).
 *
 *===----------------------------------------------------------------------===*/

#ifndef TRACEDIR_RUNTIME_RUNTIMESYMBOL_H
#define TRACEDIR_RUNTIME_RUNTIMESYMBOL_H

typedef struct {
  const char *name;
  void *address;
} TracedRuntimeSymbol;

#endif /* TRACEDIR_RUNTIME_RUNTIMESYMBOL_H */
