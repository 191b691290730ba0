/*===- Threads.h - the thread count of compiled calls ------------*- C -*-===*
 *
 * Compiled code's parallel loops and the int8 runtime run on libomp's
 * threads (docs/cpu.md, "Threads"). These set the count every compiled
 * call uses, process-wide, as torch.set_num_threads sets torch's
 * (traced.set_num_threads in Python). A count applies to the OpenMP
 * regions a thread starts after traced_enter_call on that thread, which
 * every compiled call from Python makes; a C caller of a saved library
 * calls omp_set_num_threads (libomp) on its own thread instead.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TRACEDIR_RUNTIME_THREADS_H
#define TRACEDIR_RUNTIME_THREADS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the count (n <= 0: libomp's default again, OMP_NUM_THREADS or the
 * cores). */
void traced_set_num_threads(int32_t n);
/* The count the next call on this thread uses. */
int32_t traced_get_num_threads(void);
/* Applies the count to the calling thread; returns it. */
int32_t traced_enter_call(void);

#ifdef __cplusplus
}
#endif

#endif /* TRACEDIR_RUNTIME_THREADS_H */
