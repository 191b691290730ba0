// How far apart this machine's cores are: two threads, pinned to CPUs 0
// and 1, hand one cache line back and forth; prints the median round trip
// of 7 runs of 200,000. The cost of a cache line written on one core and
// read on the other, which every parallel loop pays where it reads what
// another thread's part of the previous loop wrote (docs/cpu.md, "Two
// threads"). Build and run:
//   clang -O2 -pthread bench/core_pingpong.c -o /tmp/pingpong && /tmp/pingpong
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { ROUNDS = 200000, RUNS = 7 };
static _Atomic int turn __attribute__((aligned(64)));

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *partner(void *arg) {
  (void)arg;
  pin(1);
  for (int r = 0; r < RUNS * ROUNDS; ++r) {
    while (atomic_load_explicit(&turn, memory_order_acquire) != 1)
      ;
    atomic_store_explicit(&turn, 0, memory_order_release);
  }
  return NULL;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  if (pin(0) != 0) {
    fprintf(stderr, "cannot pin to CPU 0\n");
    return 1;
  }
  pthread_t t;
  if (pthread_create(&t, NULL, partner, NULL) != 0)
    return 1;
  double ns[RUNS];
  for (int run = 0; run < RUNS; ++run) {
    double start = now();
    for (int r = 0; r < ROUNDS; ++r) {
      atomic_store_explicit(&turn, 1, memory_order_release);
      while (atomic_load_explicit(&turn, memory_order_acquire) != 0)
        ;
    }
    ns[run] = (now() - start) / ROUNDS * 1e9;
  }
  pthread_join(t, NULL);
  qsort(ns, RUNS, sizeof ns[0], cmp);
  printf("CPU 0 <-> CPU 1 round trip: median %.0f ns (runs %.0f to %.0f)\n",
         ns[RUNS / 2], ns[0], ns[RUNS - 1]);
  return 0;
}
