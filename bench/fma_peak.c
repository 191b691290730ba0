// The single-core f32 FMA peak of this machine as it runs now: 16
// independent vector accumulators (AVX-512 when the compiler targets it,
// else AVX2 + FMA), no memory traffic. bench/cpu.py builds it with
// `clang -O2 -march=native` and quotes the matmul against it, because on a
// shared VM the nominal peak (2 FMA ports x 16 lanes x 2 x clock) is not
// what a core delivers.
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__AVX512F__)
typedef __m512 vec;
#define LANES 16
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define STORE _mm512_storeu_ps
#elif defined(__FMA__)
typedef __m256 vec;
#define LANES 8
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define STORE _mm256_storeu_ps
#else
#error "needs AVX2 + FMA"
#endif

int main(int argc, char **argv) {
  long iters = argc > 1 ? atol(argv[1]) : 50000000L;
  vec acc[16];
  for (int i = 0; i < 16; ++i)
    acc[i] = SET1(0.001f * (float)i);
  vec a = SET1(0.9999999f), b = SET1(1e-7f);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long it = 0; it < iters; ++it) {
    for (int i = 0; i < 16; ++i)
      acc[i] = FMA(a, acc[i], b);
    // Keeps the accumulators in registers and the loop from folding.
    __asm__ volatile("" : "+x"(acc[0]), "+x"(acc[1]), "+x"(acc[2]),
                     "+x"(acc[3]), "+x"(acc[4]), "+x"(acc[5]), "+x"(acc[6]),
                     "+x"(acc[7]), "+x"(acc[8]), "+x"(acc[9]), "+x"(acc[10]),
                     "+x"(acc[11]), "+x"(acc[12]), "+x"(acc[13]),
                     "+x"(acc[14]), "+x"(acc[15]));
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  float sink[LANES], sum = 0;
  for (int i = 0; i < 16; ++i) {
    STORE(sink, acc[i]);
    sum += sink[0];
  }
  printf("%.1f %d %g\n", (double)iters * 16 * LANES * 2 / seconds / 1e9, LANES, sum);
  return 0;
}
