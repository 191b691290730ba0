//===- Int8Runtime.cpp - int8 convolutions and linears with VNNI ----------===//
//
// The routines of include/TracedIR/Runtime/Int8Runtime.h. A convolution
// is a matrix product of the weight, [oc][k] with k in (kernel row, kernel
// column, channel) order and the channels padded to a multiple of 4 (the
// layout traced-lower-quantized packs the constant weight in), by the
// input's patches, packed per call as uint8 in blocks of 64 output pixels:
// block[k / 4][pixel][k % 4], four consecutive k of one pixel in one
// int32 lane, as vpdpbusd reads them. A tile of up to 6 output channels
// by 64 pixels keeps its 24 int32 accumulators in registers; each weight
// quadruple is broadcast to 16 lanes. The epilogue requantizes 16 outputs
// at a time and stores uint8.
//
// The input is first copied into a padded, channel-blocked layout
// [row][channel / 4][column][channel % 4] (pads hold the input's zero
// point, so that they add nothing to the centered sums), from which each
// patch quadruple is one 4-byte copy and, at stride 1, a run of pixels of
// one output row is one contiguous copy.
//
// The portable path computes the same int32 sums with scalar loops; the
// epilogue is the same float32 sequence (this file is compiled with
// -ffp-contract=off so that the multiply and add stay two roundings).
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Runtime/Int8Runtime.h"
#include "MemrefAbi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

constexpr int64_t kBlock = 64;  // output pixels per packed block
constexpr int kRows = 6;        // output channels per register tile

constexpr int64_t kMaxReduction = TRACED_INT8_MAX_REDUCTION;

struct Conv {
  int64_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
  int32_t zx, zo;
  bool relu;
  bool hwc; // the input is [h][w][c] (a linear's rows), not [c][h][w]
  int64_t cg() const { return (c + 3) / 4; }
  int64_t groups() const { return kh * kw * cg(); } // k / 4
  int64_t kp() const { return groups() * 4; }
  int64_t pixels() const { return oh * ow; }
  int64_t blocks() const { return (pixels() + kBlock - 1) / kBlock; }
  int64_t hp() const { return h + 2 * ph; }
  int64_t wp() const { return w + 2 * pw; }
};

/// What the tiles of one image read and write.
struct Job {
  const Conv *g;
  const uint8_t *col;   // [block][k / 4][kBlock][4]
  const int8_t *w;      // [oc][kp]
  const int32_t *comp;  // zx * sum_k w[o][k]
  const float *mult, *off;
  uint8_t *out;         // (o, p) at out[o * ocStride + p * pStride]
  int64_t ocStride, pStride;
};

/// One output: the float32 requantization of centered sum `acc`.
inline uint8_t requantize(int32_t acc, float mult, float off, const Conv &g) {
  float y = static_cast<float>(acc) * mult;
  y = y + off;
  float r = nearbyintf(y);
  r = r + static_cast<float>(g.zo);
  float lo = g.relu ? static_cast<float>(g.zo) : 0.0f;
  r = r < lo ? lo : r;
  r = r > 255.0f ? 255.0f : r;
  return static_cast<uint8_t>(static_cast<int32_t>(r));
}

/// The input image `x` ([c][h][w]) as [hp][cg][wp][4], pads at zx.
void blockInput(const Conv &g, const uint8_t *x, uint8_t *xh) {
  int64_t cg = g.cg(), hp = g.hp(), wp = g.wp();
  memset(xh, g.zx, static_cast<size_t>(hp * cg * wp * 4));
  for (int64_t y = 0; y < g.h; ++y)
    for (int64_t q = 0; q < cg; ++q) {
      uint8_t *row = xh + (((y + g.ph) * cg + q) * wp + g.pw) * 4;
      for (int64_t j = 0; j < 4; ++j) {
        int64_t ch = q * 4 + j;
        if (ch >= g.c) {
          for (int64_t i = 0; i < g.w; ++i)
            row[i * 4 + j] = 0; // a padded channel: its weights are 0
          continue;
        }
        if (g.hwc) {
          for (int64_t i = 0; i < g.w; ++i)
            row[i * 4 + j] = x[(y * g.w + i) * g.c + ch];
          continue;
        }
        const uint8_t *src = x + (ch * g.h + y) * g.w;
        for (int64_t i = 0; i < g.w; ++i)
          row[i * 4 + j] = src[i];
      }
    }
}

/// Block `b` of the patches: [k / 4][kBlock][4] from the blocked input.
void packBlock(const Conv &g, const uint8_t *xh, int64_t b, uint8_t *col) {
  int64_t cg = g.cg(), wp = g.wp(), p0 = b * kBlock;
  int64_t count = g.pixels() - p0 < kBlock ? g.pixels() - p0 : kBlock;
  uint8_t *dst = col;
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j)
      for (int64_t q = 0; q < cg; ++q, dst += kBlock * 4) {
        int64_t pl = 0;
        while (pl < count) {
          int64_t p = p0 + pl, oy = p / g.ow, ox = p % g.ow;
          int64_t run = g.ow - ox < count - pl ? g.ow - ox : count - pl;
          const uint8_t *src =
              xh + (((oy * g.sh + i * g.dh) * cg + q) * wp + ox * g.sw + j * g.dw) * 4;
          if (g.sw == 1) {
            memcpy(dst + pl * 4, src, static_cast<size_t>(run * 4));
          } else {
            for (int64_t r = 0; r < run; ++r)
              memcpy(dst + (pl + r) * 4, src + r * g.sw * 4, 4);
          }
          pl += run;
        }
        if (count < kBlock)
          memset(dst + count * 4, 0, static_cast<size_t>((kBlock - count) * 4));
      }
}

/// Output channels [o0, o0 + rows) of block b, by scalar loops.
void tilePortable(const Job &jb, int64_t b, int64_t o0, int64_t rows) {
  const Conv &g = *jb.g;
  int64_t groups = g.groups(), p0 = b * kBlock;
  int64_t count = g.pixels() - p0 < kBlock ? g.pixels() - p0 : kBlock;
  const uint8_t *col = jb.col + b * groups * kBlock * 4;
  for (int64_t o = o0; o < o0 + rows; ++o) {
    const int8_t *w = jb.w + o * g.kp();
    for (int64_t pl = 0; pl < count; ++pl) {
      int32_t acc = 0;
      for (int64_t q = 0; q < groups; ++q)
        for (int64_t j = 0; j < 4; ++j)
          acc += static_cast<int32_t>(col[(q * kBlock + pl) * 4 + j]) * w[q * 4 + j];
      jb.out[o * jb.ocStride + (p0 + pl) * jb.pStride] =
          requantize(acc - jb.comp[o], jb.mult[o], jb.off[o], g);
    }
  }
}

#if defined(__x86_64__)
#define TRACED_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

/// Output channels [o0, o0 + R) by T vectors of 16 pixels of block b.
template <int R, int T>
TRACED_VNNI void tileVnni(const Job &jb, int64_t b, int64_t o0) {
  const Conv &g = *jb.g;
  int64_t groups = g.groups(), kp = g.kp(), p0 = b * kBlock;
  int64_t count = g.pixels() - p0 < kBlock ? g.pixels() - p0 : kBlock;
  const uint8_t *col = jb.col + b * groups * kBlock * 4;
  const int8_t *w = jb.w + o0 * kp;
  __m512i acc[R][T];
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < T; ++t)
      acc[r][t] = _mm512_setzero_si512();
  for (int64_t q = 0; q < groups; ++q, col += kBlock * 4) {
    __m512i v[T];
    for (int t = 0; t < T; ++t)
      v[t] = _mm512_loadu_si512(col + t * 64);
    for (int r = 0; r < R; ++r) {
      int32_t quad;
      memcpy(&quad, w + r * kp + q * 4, 4);
      __m512i s = _mm512_set1_epi32(quad);
      for (int t = 0; t < T; ++t)
        acc[r][t] = _mm512_dpbusd_epi32(acc[r][t], v[t], s);
    }
  }
  __m512 zo = _mm512_set1_ps(static_cast<float>(g.zo));
  __m512 lo = _mm512_set1_ps(g.relu ? static_cast<float>(g.zo) : 0.0f);
  __m512 hi = _mm512_set1_ps(255.0f);
  for (int r = 0; r < R; ++r) {
    int64_t o = o0 + r;
    __m512i comp = _mm512_set1_epi32(jb.comp[o]);
    __m512 mult = _mm512_set1_ps(jb.mult[o]), off = _mm512_set1_ps(jb.off[o]);
    for (int t = 0; t < T; ++t) {
      int64_t left = count - t * 16;
      if (left <= 0)
        break;
      __m512 y = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r][t], comp));
      y = _mm512_mul_ps(y, mult);
      y = _mm512_add_ps(y, off);
      y = _mm512_roundscale_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      y = _mm512_add_ps(y, zo);
      y = _mm512_min_ps(_mm512_max_ps(y, lo), hi);
      __m128i q8 = _mm512_cvtusepi32_epi8(_mm512_cvtps_epi32(y));
      uint8_t *dst = jb.out + o * jb.ocStride + (p0 + t * 16) * jb.pStride;
      if (jb.pStride == 1) {
        __mmask16 m = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
        _mm_mask_storeu_epi8(dst, m, q8);
      } else {
        alignas(16) uint8_t lanes[16];
        _mm_store_si128(reinterpret_cast<__m128i *>(lanes), q8);
        for (int64_t l = 0; l < left && l < 16; ++l)
          dst[l * jb.pStride] = lanes[l];
      }
    }
  }
}

using TileFn = void (*)(const Job &, int64_t, int64_t);
template <int R> constexpr TileFn tilesOfRows(int t) {
  return t == 1 ? tileVnni<R, 1> : t == 2 ? tileVnni<R, 2>
       : t == 3 ? tileVnni<R, 3> : tileVnni<R, 4>;
}
TileFn vnniTile(int rows, int vectors) {
  switch (rows) {
  case 1: return tilesOfRows<1>(vectors);
  case 2: return tilesOfRows<2>(vectors);
  case 3: return tilesOfRows<3>(vectors);
  case 4: return tilesOfRows<4>(vectors);
  case 5: return tilesOfRows<5>(vectors);
  default: return tilesOfRows<6>(vectors);
  }
}

/// zx * sum_k w[o][k] with vpdpbusd against ones.
TRACED_VNNI void weightSumsVnni(const int8_t *w, int64_t oc, int64_t kp,
                                int32_t zx, int32_t *comp) {
  __m512i ones = _mm512_set1_epi8(1);
  for (int64_t o = 0; o < oc; ++o) {
    __m512i acc = _mm512_setzero_si512();
    const int8_t *row = w + o * kp;
    for (int64_t k = 0; k < kp; k += 64) {
      int64_t left = kp - k;
      __mmask64 m = left >= 64 ? ~__mmask64(0) : (__mmask64(1) << left) - 1;
      acc = _mm512_dpbusd_epi32(acc, ones, _mm512_maskz_loadu_epi8(m, row + k));
    }
    comp[o] = zx * _mm512_reduce_add_epi32(acc);
  }
}

/// Whether the VNNI tiles run: the CPU has them and TRACED_INT8_PORTABLE
/// is unset (read once; no C++ runtime, so no guarded static).
bool hasVnni() {
  static int state = -1;
  int known = __atomic_load_n(&state, __ATOMIC_RELAXED);
  if (known < 0) {
    __builtin_cpu_init();
    known = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512vnni") &&
            getenv("TRACED_INT8_PORTABLE") == nullptr;
    __atomic_store_n(&state, known, __ATOMIC_RELAXED);
  }
  return known != 0;
}
#else
bool hasVnni() { return false; }
#endif

void weightSums(const int8_t *w, int64_t oc, int64_t kp, int32_t zx, int32_t *comp) {
#if defined(__x86_64__)
  if (hasVnni())
    return weightSumsVnni(w, oc, kp, zx, comp);
#endif
  for (int64_t o = 0; o < oc; ++o) {
    int32_t s = 0;
    for (int64_t k = 0; k < kp; ++k)
      s += w[o * kp + k];
    comp[o] = zx * s;
  }
}

/// Every image of `g`: out[n] ([oc][pixels], or with the strides given).
int32_t run(const Conv &g, const uint8_t *x, const int8_t *w, const float *mult,
            const float *off, uint8_t *out, int64_t ocStride, int64_t pStride) {
  if (g.kp() > kMaxReduction)
    return -1;
  int64_t blocks = g.blocks(), groups = g.groups();
  size_t xhBytes = static_cast<size_t>(g.hp() * g.cg() * g.wp() * 4);
  size_t colBytes = static_cast<size_t>(blocks * groups * kBlock * 4);
  uint8_t *xh = static_cast<uint8_t *>(malloc(xhBytes ? xhBytes : 1));
  uint8_t *col = static_cast<uint8_t *>(malloc(colBytes ? colBytes : 1));
  int32_t *comp = static_cast<int32_t *>(malloc(sizeof(int32_t) * (g.oc ? g.oc : 1)));
  if (!xh || !col || !comp) {
    free(xh);
    free(col);
    free(comp);
    return -2;
  }
  weightSums(w, g.oc, g.kp(), g.zx, comp);
  bool vnni = hasVnni();
  int64_t oblocks = (g.oc + kRows - 1) / kRows;
  for (int64_t n = 0; n < g.n; ++n) {
    blockInput(g, x + n * g.c * g.h * g.w, xh);
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < blocks; ++b)
      packBlock(g, xh, b, col + b * groups * kBlock * 4);
    Job jb{&g, col, w, comp, mult, off, out + n * g.oc * g.pixels(), ocStride, pStride};
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t b = 0; b < blocks; ++b)
      for (int64_t ob = 0; ob < oblocks; ++ob) {
        int64_t o0 = ob * kRows;
        int64_t rows = g.oc - o0 < kRows ? g.oc - o0 : kRows;
#if defined(__x86_64__)
        if (vnni) {
          int64_t count = g.pixels() - b * kBlock;
          int vectors = count >= kBlock ? 4 : static_cast<int>((count + 15) / 16);
          vnniTile(static_cast<int>(rows), vectors)(jb, b, o0);
          continue;
        }
#endif
        (void)vnni;
        tilePortable(jb, b, o0, rows);
      }
  }
  free(xh);
  free(col);
  free(comp);
  return 0;
}

} // namespace

extern "C" {

TRACED_EXPORT int32_t traced_int8_conv2d(const uint8_t *x, const int8_t *w, const float *multiplier,
                           const float *offset, uint8_t *out, const int64_t *v) {
  Conv g{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
         v[11], v[12], v[13], v[14], static_cast<int32_t>(v[15]),
         static_cast<int32_t>(v[16]), v[17] != 0, false};
  if (g.n < 0 || g.c <= 0 || g.oc < 0 || g.kh <= 0 || g.kw <= 0 || g.sh <= 0 ||
      g.sw <= 0 || g.dh <= 0 || g.dw <= 0 || g.ph < 0 || g.pw < 0 ||
      g.oh != (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1 ||
      g.ow != (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1 || g.oh <= 0 ||
      g.ow <= 0)
    return -1;
  return run(g, x, w, multiplier, offset, out, g.pixels(), 1);
}

TRACED_EXPORT int32_t traced_int8_linear(const uint8_t *x, const int8_t *w,
                                         const float *multiplier,
                           const float *offset, uint8_t *out, const int64_t *v) {
  // rows x k as one channels-last image of k channels, `rows` rows and
  // one column.
  int64_t rows = v[0], k = v[1], n = v[2];
  if (rows < 0 || k <= 0 || n < 0)
    return -1;
  if (rows == 0)
    return 0;
  Conv g{1, k, rows, 1, n, 1, 1, 1, 1, 0, 0, 1, 1, rows, 1,
         static_cast<int32_t>(v[3]), static_cast<int32_t>(v[4]), v[5] != 0, true};
  // Output (o, p) of the image is out[p][o].
  return run(g, x, w, multiplier, offset, out, 1, n);
}

TRACED_EXPORT int32_t traced_int8_uses_vnni(void) { return hasVnni() ? 1 : 0; }

// The compiled-code entry points: each buffer a memref<?xT> descriptor.
TRACED_EXPORT int32_t traced_int8_conv2d_memref(
    MR(uint8_t, x), MR(int8_t, w), MR(float, m), MR(float, o), MR(uint8_t, out),
    int64_t n, int64_t c, int64_t h, int64_t wd, int64_t oc, int64_t kh, int64_t kw,
    int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
    int64_t oh, int64_t ow, int64_t zx, int64_t zo, int64_t relu) {
  int64_t v[] = {n, c, h, wd, oc, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, zx, zo, relu};
  return traced_int8_conv2d(AT(x), AT(w), AT(m), AT(o), AT(out), v);
}

TRACED_EXPORT int32_t traced_int8_linear_memref(MR(uint8_t, x), MR(int8_t, w), MR(float, m),
                                         MR(float, o), MR(uint8_t, out), int64_t rows,
                                         int64_t k, int64_t n, int64_t zx, int64_t zo,
                                         int64_t relu) {
  int64_t v[] = {rows, k, n, zx, zo, relu};
  return traced_int8_linear(AT(x), AT(w), AT(m), AT(o), AT(out), v);
}

TRACED_EXPORT const TracedRuntimeSymbol *traced_int8_runtime_symbols(int64_t *count) {
  static const TracedRuntimeSymbol symbols[] = {
      {"traced_int8_conv2d_memref", reinterpret_cast<void *>(&traced_int8_conv2d_memref)},
      {"traced_int8_linear_memref", reinterpret_cast<void *>(&traced_int8_linear_memref)},
  };
  *count = sizeof(symbols) / sizeof(symbols[0]);
  return symbols;
}

} // extern "C"
