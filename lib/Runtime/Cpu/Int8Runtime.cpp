//===- Int8Runtime.cpp - int8 convolutions and linears, AMX and VNNI ------===//
//
// The routines of include/TracedIR/Runtime/Int8Runtime.h (docs/
// quantization.md, "int8 code"). A convolution is a matrix product of the
// weight, one row per output channel with k in (kernel row, kernel column,
// channel) order, the channels padded to 4 and the row to 64 (the layout
// traced-lower-quantized packs the constant weight in), by the input's
// patches.
//
// The input is first copied into a padded, channel-blocked layout
// [row][channel / 4][stride phase][column / stride][channel % 4] (pads
// hold the input's zero point, so that with the compensation they add
// nothing): the 16 output columns of one output row at one tap are 64
// contiguous bytes at any stride, the next 4 channels one stride further.
// AMX tiles (tdpbsud: 16 weight rows of 64 k times 16 groups of 4 k of 16
// pixels) read it directly when the channels come in 64s (Conv::direct);
// otherwise the patches are packed per block of 64 output pixels,
// block[k / 4][pixel][k % 4] (one int32 lane per pixel, as tdpbsud and
// vpdpbusd read them), per thread in an L1-sized buffer. Without AMX, VNNI
// tiles of up to 6 channels by 64 pixels keep 24 int32 accumulators in
// registers, each weight quadruple broadcast to 16 lanes. Depthwise
// convolutions take one padded plane per channel and float32 FMAs of the
// integers (exact). The epilogue requantizes 16 outputs at a time and
// stores uint8.
//
// The portable path computes the same int32 sums with scalar loops; the
// epilogue is the same float32 sequence (this file is compiled with
// -ffp-contract=off so that the multiply and add stay two roundings).
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Runtime/Int8Runtime.h"
#include "MemrefAbi.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
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
  bool depthwise = false; // groups == c == oc: each channel its own filter
  /// Channel groups of 4 along one filter's k (a depthwise filter has one
  /// channel).
  int64_t cg() const { return depthwise ? 1 : (c + 3) / 4; }
  /// The weight's row: the taps' channels padded to 4, then to 64.
  int64_t kp() const { return (kh * kw * cg() * 4 + 63) / 64 * 64; }
  int64_t groups() const { return kp() / 4; } // groups of 4 along k
  int64_t pixels() const { return oh * ow; }
  int64_t blocks() const { return (pixels() + kBlock - 1) / kBlock; }
  /// Pixels of block b (kBlock but in the last block).
  int64_t blockCount(int64_t b) const {
    return pixels() - b * kBlock < kBlock ? pixels() - b * kBlock : kBlock;
  }
  int64_t hp() const { return h + 2 * ph; }
  int64_t wp() const { return w + 2 * pw; }
  /// Columns per phase of the blocked input (below), with 16 more when the
  /// distance between channel groups (a tile's row stride) would be a
  /// multiple of 1 KiB: a linear's 1024 rows made it 4 KiB, every row of a
  /// tile in one L1 set.
  int64_t wq() const {
    int64_t columns = (wp() + sw - 1) / sw;
    return (sw * columns * 4) % 1024 == 0 ? columns + 16 : columns;
  }
  /// Bytes of the blocked input, with room for a 32-pixel read (two tiles)
  /// past the last column.
  int64_t blockedBytes() const { return (hp() * cg() * sw * wq() + 32) * 4; }
  /// Byte offset of padded row y, channel group q, padded column x.
  int64_t at(int64_t y, int64_t q, int64_t x) const {
    return (((y * cg() + q) * sw + x % sw) * wq() + x / sw) * 4;
  }
  /// Whether AMX tiles read the blocked input directly: a k step of 64 is
  /// then one tap's 16 channel groups, and 16 pixels of an output row are
  /// 64 contiguous bytes; rows of 14 or more keep the pixels past the row
  /// end (computed, not stored) at most 1/8 of the work.
  bool direct() const { return c % 64 == 0 && ow >= 14 && !depthwise; }
};

/// The residual add fused after the requantization (Int8Runtime.h,
/// traced_int8_conv2d_add): the output and the residual dequantized as
/// torch's vectorized dequantize does (fma(q, s, s * -z)), added, and
/// requantized to the sum's parameters.
struct Sum {
  float so, co;  // the output's scale, and scale * -zero point
  float sr, cr;  // the residual's
  float inv, zs; // 1 / the sum's scale, its zero point
  float lo;      // 0, or zs when the add is add_relu
};

/// What the tiles of one image read and write.
struct Job {
  const Conv *g;
  const uint8_t *xh;    // the blocked input (blockInput)
  const int8_t *w;      // [oc][kp]
  const int32_t *comp;  // zx * sum_k w[o][k] (the compensation)
  const float *mult, *off;
  uint8_t *out;         // (o, p) at out[o * ocStride + p * pStride]
  int64_t ocStride, pStride;
  const uint8_t *res = nullptr; // the residual, laid out as out; null: none
  const Sum *sum = nullptr;
};

/// The requantization of one output, r (an integer in [0, 255], as a
/// float), added to its residual when there is one.
inline float addResidual(const Job &jb, int64_t at, float r) {
  if (!jb.res)
    return r;
  const Sum &s = *jb.sum;
  float y = fmaf(r, s.so, s.co) + fmaf(static_cast<float>(jb.res[at]), s.sr, s.cr);
  y = nearbyintf(y * s.inv) + s.zs;
  y = y < s.lo ? s.lo : y;
  return y > 255.0f ? 255.0f : y;
}

/// Output (o, p): the float32 requantization of its centered sum `acc`,
/// then the residual add.
inline void requantize(const Job &jb, int64_t o, int64_t p, int32_t acc) {
  const Conv &g = *jb.g;
  float y = static_cast<float>(acc) * jb.mult[o];
  y = y + jb.off[o];
  y = y + static_cast<float>(g.zo);
  float r = nearbyintf(y);
  float lo = g.relu ? static_cast<float>(g.zo) : 0.0f;
  r = r < lo ? lo : r;
  r = r > 255.0f ? 255.0f : r;
  int64_t at = o * jb.ocStride + p * jb.pStride;
  jb.out[at] = static_cast<uint8_t>(static_cast<int32_t>(addResidual(jb, at, r)));
}

bool hasVnni();
bool hasAmx();

#if defined(__x86_64__)
/// The 4 bytes at x + i * stride for i in [0, count), 16 at a time with
/// gathers, into dst; returns how many were copied (a multiple of 16).
__attribute__((target("avx512f"))) int64_t gatherColumnsVnni(const uint8_t *x, int64_t stride,
                                                             int64_t count, uint8_t *dst) {
  if (stride > (int64_t(1) << 26))
    return 0; // (16 * stride must fit the gather's int32 offsets)
  __m512i index = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32(static_cast<int32_t>(stride)));
  int64_t i = 0;
  for (; i + 16 <= count; i += 16)
    _mm512_storeu_si512(dst + i * 4, _mm512_i32gather_epi32(index, x + i * stride, 1));
  return i;
}
#endif

#if defined(__x86_64__)
/// Pixels [i, i + 16) of four channel rows a..d as 4-byte pixels: p[0]
/// holds pixels 0-3, p[3] pixels 12-15.
inline void interleave16(const uint8_t *a, const uint8_t *b, const uint8_t *c,
                         const uint8_t *d, int64_t i, __m128i p[4]) {
  __m128i va = _mm_loadu_si128(reinterpret_cast<const __m128i *>(a + i));
  __m128i vb = _mm_loadu_si128(reinterpret_cast<const __m128i *>(b + i));
  __m128i vc = _mm_loadu_si128(reinterpret_cast<const __m128i *>(c + i));
  __m128i vd = _mm_loadu_si128(reinterpret_cast<const __m128i *>(d + i));
  __m128i ab0 = _mm_unpacklo_epi8(va, vb), ab1 = _mm_unpackhi_epi8(va, vb);
  __m128i cd0 = _mm_unpacklo_epi8(vc, vd), cd1 = _mm_unpackhi_epi8(vc, vd);
  p[0] = _mm_unpacklo_epi16(ab0, cd0);
  p[1] = _mm_unpackhi_epi16(ab0, cd0);
  p[2] = _mm_unpacklo_epi16(ab1, cd1);
  p[3] = _mm_unpackhi_epi16(ab1, cd1);
}
#endif

/// Pixel i of four channel rows a..d at dst (4 bytes).
inline void putPixel(const uint8_t *a, const uint8_t *b, const uint8_t *c, const uint8_t *d,
                     int64_t i, uint8_t *dst) {
  dst[0] = a[i];
  dst[1] = b[i];
  dst[2] = c[i];
  dst[3] = d[i];
}

/// Four channel rows a..d of n bytes interleaved into 4-byte pixels.
void interleave4(const uint8_t *a, const uint8_t *b, const uint8_t *c, const uint8_t *d,
                 int64_t n, uint8_t *out) {
  int64_t i = 0;
#if defined(__x86_64__)
  for (; i + 16 <= n; i += 16) {
    __m128i p[4];
    interleave16(a, b, c, d, i, p);
    for (int j = 0; j < 4; ++j)
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i * 4) + j, p[j]);
  }
#endif
  for (; i < n; ++i)
    putPixel(a, b, c, d, i, out + i * 4);
}

/// interleave4 at stride 2: pixel 2j to even + 4j, pixel 2j + 1 to odd +
/// 4j (the two stride phases of a padded row).
void interleave4Stride2(const uint8_t *a, const uint8_t *b, const uint8_t *c,
                        const uint8_t *d, int64_t n, uint8_t *even, uint8_t *odd) {
  int64_t i = 0;
#if defined(__x86_64__)
  for (; i + 16 <= n; i += 16) {
    __m128i p[4];
    interleave16(a, b, c, d, i, p);
    __m128 p0 = _mm_castsi128_ps(p[0]), p1 = _mm_castsi128_ps(p[1]);
    __m128 p2 = _mm_castsi128_ps(p[2]), p3 = _mm_castsi128_ps(p[3]);
    float *e = reinterpret_cast<float *>(even + i * 2), *o = reinterpret_cast<float *>(odd + i * 2);
    _mm_storeu_ps(e, _mm_shuffle_ps(p0, p1, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm_storeu_ps(e + 4, _mm_shuffle_ps(p2, p3, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm_storeu_ps(o, _mm_shuffle_ps(p0, p1, _MM_SHUFFLE(3, 1, 3, 1)));
    _mm_storeu_ps(o + 4, _mm_shuffle_ps(p2, p3, _MM_SHUFFLE(3, 1, 3, 1)));
  }
#endif
  for (; i < n; ++i)
    putPixel(a, b, c, d, i, (i % 2 ? odd : even) + i / 2 * 4);
}

/// A row's columns [0, n) of `Unit` bytes spread over the stride phases
/// of its padded row: column i is padded column pw + i, at phase (pw + i) %
/// sw, index (pw + i) / sw; `phaseRow(phase)` is where a phase's index 0 is.
template <int64_t Unit, typename PhaseRow>
void spreadPhases(const uint8_t *src, int64_t n, int64_t sw, int64_t pw, PhaseRow phaseRow) {
  for (int64_t phase = 0; phase < sw; ++phase) {
    int64_t first = ((phase - pw) % sw + sw) % sw;
    uint8_t *to = phaseRow(phase) + (pw + first) / sw * Unit;
    for (int64_t i = first; i < n; i += sw, to += Unit)
      memcpy(to, src + i * Unit, Unit);
  }
}

/// Channels [4q, 4q + 4) of each of the w columns of a channels-last row
/// `x` ([w][c]) as w contiguous 4-byte groups at `dst` (stride 1), the
/// channels past c as 0.
void blockRowHwc(const Conv &g, const uint8_t *x, int64_t q, uint8_t *dst) {
  int64_t n = g.c - q * 4 < 4 ? g.c - q * 4 : 4, i = 0;
#if defined(__x86_64__)
  if (n == 4 && hasVnni())
    i = gatherColumnsVnni(x + q * 4, g.c, g.w, dst);
#endif
  for (; i < g.w; ++i) {
    memcpy(dst + i * 4, x + i * g.c + q * 4, static_cast<size_t>(n));
    memset(dst + i * 4 + n, 0, static_cast<size_t>(4 - n));
  }
}

/// The input image `x` ([c][h][w], or [h][w][c] for a linear) blocked: [hp][cg][sw][wq][4], padded
/// row y, channel group q, padded column x at phase x % sw, index x / sw
/// (so that the columns one output row reads at one tap are contiguous at
/// any stride). Pads hold zx; channels past c hold 0 (their weights are 0).
/// Rows and channel groups are spread over the threads when there are
/// enough of them (a serial copy was a tenth of resnet18's int8 time).
/// -2 when scratch memory runs out.
int32_t blockInput(const Conv &g, const uint8_t *x, uint8_t *xh, const uint8_t *zeros) {
  int64_t cg = g.cg(), rows = g.h * cg;
  memset(xh, g.zx, static_cast<size_t>(g.blockedBytes()));
  int failed = 0;
#pragma omp parallel if (g.h * g.c * g.w >= (int64_t(1) << 16)) reduction(| : failed)
  {
    // Stride 3 or more: a row interleaved here, then spread over the phases.
    uint8_t *scratch =
        g.sw > 2 && !g.hwc ? static_cast<uint8_t *>(malloc(static_cast<size_t>(g.w * 4))) : nullptr;
#pragma omp for schedule(static)
    for (int64_t i = 0; i < rows; ++i) {
      int64_t y = i / cg, q = i % cg;
      if (g.hwc) { // a linear's rows: 4 channels of a column per copy
        blockRowHwc(g, x + y * g.w * g.c, q, xh + g.at(y + g.ph, q, g.pw));
        continue;
      }
      const uint8_t *r[4];
      for (int64_t j = 0; j < 4; ++j)
        r[j] = q * 4 + j < g.c ? x + ((q * 4 + j) * g.h + y) * g.w : zeros;
      if (g.sw == 1) { // contiguous in the blocked input
        interleave4(r[0], r[1], r[2], r[3], g.w, xh + g.at(y + g.ph, q, g.pw));
      } else if (g.sw == 2) {
        interleave4Stride2(r[0], r[1], r[2], r[3], g.w, xh + g.at(y + g.ph, q, g.pw),
                           xh + g.at(y + g.ph, q, g.pw + 1));
      } else if (!scratch) {
        failed = 1;
      } else {
        interleave4(r[0], r[1], r[2], r[3], g.w, scratch);
        spreadPhases<4>(scratch, g.w, g.sw, g.pw,
                        [&](int64_t phase) { return xh + g.at(y + g.ph, q, phase); });
      }
    }
    free(scratch);
  }
  return failed ? -2 : 0;
}

/// Block `b` of the patches: [k / 4][kBlock][4] from the blocked input.
void packBlock(const Conv &g, const uint8_t *xh, int64_t b, uint8_t *col) {
  int64_t cg = g.cg(), p0 = b * kBlock, count = g.blockCount(b);
  uint8_t *dst = col;
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j)
      for (int64_t q = 0; q < cg; ++q, dst += kBlock * 4) {
        int64_t pl = 0;
        while (pl < count) {
          int64_t p = p0 + pl, oy = p / g.ow, ox = p % g.ow;
          int64_t run = g.ow - ox < count - pl ? g.ow - ox : count - pl;
          // Consecutive output columns are consecutive in one phase.
          memcpy(dst + pl * 4, xh + g.at(oy * g.sh + i * g.dh, q, ox * g.sw + j * g.dw),
                 static_cast<size_t>(run * 4));
          pl += run;
        }
        if (count < kBlock)
          memset(dst + count * 4, 0, static_cast<size_t>((kBlock - count) * 4));
      }
  // The groups padding k to 64: zeros.
  memset(dst, 0, static_cast<size_t>(col + g.groups() * kBlock * 4 - dst));
}

/// Output channels [o0, o0 + rows) of block b, by scalar loops.
void tilePortable(const Job &jb, int64_t b, const uint8_t *col, int64_t o0, int64_t rows) {
  const Conv &g = *jb.g;
  int64_t groups = g.groups(), p0 = b * kBlock, count = g.blockCount(b);
  for (int64_t o = o0; o < o0 + rows; ++o) {
    const int8_t *w = jb.w + o * g.kp();
    for (int64_t pl = 0; pl < count; ++pl) {
      int32_t acc = 0;
      for (int64_t q = 0; q < groups; ++q)
        for (int64_t j = 0; j < 4; ++j)
          acc += static_cast<int32_t>(col[(q * kBlock + pl) * 4 + j]) * w[q * 4 + j];
      requantize(jb, o, p0 + pl, acc - jb.comp[o]);
    }
  }
}

#if defined(__x86_64__)
#define TRACED_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

/// The epilogue's operands and constants of a job, copied out of it once
/// per tile so that they stay in registers: the byte stores of the outputs
/// may alias anything, so the compiler would otherwise reload them from
/// the job after every store.
struct Epilogue {
  uint8_t *out;
  const uint8_t *res;
  int64_t ocStride, pStride;
  const float *mult, *off;
  const int32_t *comp;
  __m512 zo, top, guard;
  __m512i lo;
  __m512 so, co, sr, cr, inv, zs, slo; // the fused add's (Sum)

  TRACED_VNNI explicit Epilogue(const Job &jb)
      : out(jb.out), res(jb.res), ocStride(jb.ocStride), pStride(jb.pStride),
        mult(jb.mult), off(jb.off), comp(jb.comp),
        zo(_mm512_set1_ps(static_cast<float>(jb.g->zo))), top(_mm512_set1_ps(255.0f)),
        guard(_mm512_set1_ps(16777216.0f)), lo(_mm512_set1_epi32(jb.g->relu ? jb.g->zo : 0)) {
    const Sum s = jb.sum ? *jb.sum : Sum{};
    so = _mm512_set1_ps(s.so);
    co = _mm512_set1_ps(s.co);
    sr = _mm512_set1_ps(s.sr);
    cr = _mm512_set1_ps(s.cr);
    inv = _mm512_set1_ps(s.inv);
    zs = _mm512_set1_ps(s.zs);
    slo = _mm512_set1_ps(s.lo);
  }
};

/// The requantized outputs of channel `o` at pixels [p, p + 16) (the
/// first `left` of them) from their centered sums `y` (integers, exact in
/// float32), added to the residual when there is one (addResidual).
TRACED_VNNI inline void storeCentered(const Epilogue &e, int64_t o, int64_t p, int64_t left,
                                      __m512 y) {
  if (left <= 0)
    return;
  y = _mm512_mul_ps(y, _mm512_set1_ps(e.mult[o]));
  y = _mm512_add_ps(y, _mm512_set1_ps(e.off[o]));
  // nearbyint(y + zo) clamped to [lo, 255], in int32: capped at 2^24 first
  // (any value from there on clamps to 255; below -2^31 the conversion's
  // INT_MIN clamps to lo), the upper clamp the saturating narrowing's. The
  // same integers as the float sequence of requantize().
  y = _mm512_add_ps(y, e.zo);
  __m512i q = _mm512_cvt_roundps_epi32(_mm512_min_ps(y, e.guard),
                                       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  q = _mm512_max_epi32(q, e.lo);
  int64_t at = o * e.ocStride + p * e.pStride;
  __mmask16 m = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
  if (e.res) {
    y = _mm512_cvtepi32_ps(_mm512_min_epi32(q, _mm512_set1_epi32(255)));
    __m128i r8;
    if (e.pStride == 1) {
      r8 = _mm_maskz_loadu_epi8(m, e.res + at);
    } else {
      alignas(16) uint8_t lanes[16] = {};
      for (int64_t l = 0; l < left && l < 16; ++l)
        lanes[l] = e.res[at + l * e.pStride];
      r8 = _mm_load_si128(reinterpret_cast<const __m128i *>(lanes));
    }
    __m512 r = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(r8));
    y = _mm512_add_ps(_mm512_fmadd_ps(y, e.so, e.co), _mm512_fmadd_ps(r, e.sr, e.cr));
    y = _mm512_roundscale_ps(_mm512_mul_ps(y, e.inv),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    y = _mm512_add_ps(y, e.zs);
    q = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(y, e.slo), e.top));
  }
  __m128i q8 = _mm512_cvtusepi32_epi8(q);
  uint8_t *dst = e.out + at;
  if (e.pStride == 1) {
    _mm_mask_storeu_epi8(dst, m, q8);
    return;
  }
  alignas(16) uint8_t lanes[16];
  _mm_store_si128(reinterpret_cast<__m128i *>(lanes), q8);
  for (int64_t l = 0; l < left && l < 16; ++l)
    dst[l * e.pStride] = lanes[l];
}

/// The same from the int32 sums `acc` of x * w, less the compensation.
TRACED_VNNI inline void storeOutputs(const Epilogue &e, int64_t o, int64_t p, int64_t left,
                                     __m512i acc) {
  if (left > 0)
    storeCentered(e, o, p, left,
                  _mm512_cvtepi32_ps(_mm512_sub_epi32(acc, _mm512_set1_epi32(e.comp[o]))));
}

/// Output channels [o0, o0 + R) by T vectors of 16 pixels of block b.
template <int R, int T>
TRACED_VNNI void tileVnni(const Job &jb, int64_t b, const uint8_t *col, int64_t o0) {
  const Conv &g = *jb.g;
  int64_t groups = g.groups(), kp = g.kp(), p0 = b * kBlock, count = g.blockCount(b);
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
  Epilogue e(jb);
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < T; ++t)
      storeOutputs(e, o0 + r, p0 + t * 16, count - t * 16, acc[r][t]);
}

using TileFn = void (*)(const Job &, int64_t, const uint8_t *, int64_t);
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


#define TRACED_AMX                                                             \
  __attribute__((target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl,avx512vnni")))

/// Palette 1, tiles 0-7 all 16 rows of 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette, startRow;
  uint8_t reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};

TRACED_AMX void amxConfigure() {
  TileConfig cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.palette = 1;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
}

TRACED_AMX void amxRelease() { _tile_release(); }
#endif

/// The AMX tile configuration of the calling thread, loaded for the
/// scope when `on` (each OpenMP thread of a region that runs AMX tiles).
struct AmxThread {
  bool on;
  explicit AmxThread(bool on) : on(on) {
#if defined(__x86_64__)
    if (on)
      amxConfigure();
#endif
  }
  ~AmxThread() {
#if defined(__x86_64__)
    if (on)
      amxRelease();
#endif
  }
};

#if defined(__x86_64__)

/// The AMX tiles of a unit of NO x NP 16 x 16 int32 sums: tiles 0-3 the
/// sums (channel tile o, pixel tile p in tile 2o + p), 4-5 16 weight rows
/// of 64 k (int8), 6-7 16 groups of 4 k of 16 pixels (uint8). Tile
/// registers are named by constants, hence the spelled-out branches.
template <int NO, int NP> TRACED_AMX inline void amxZero() {
  _tile_zero(0);
  if constexpr (NP == 2)
    _tile_zero(1);
  if constexpr (NO == 2) {
    _tile_zero(2);
    if constexpr (NP == 2)
      _tile_zero(3);
  }
}

/// One k step of 64: weight rows at `w` (row stride `kp`), pixel groups at
/// `px` (row stride `stride`; the second pixel tile 64 bytes on).
template <int NO, int NP>
TRACED_AMX inline void amxStep(const int8_t *w, int64_t kp, const uint8_t *px,
                               int64_t stride) {
  _tile_loadd(6, px, stride);
  _tile_loadd(4, w, kp);
  _tile_dpbsud(0, 4, 6);
  if constexpr (NP == 2) {
    _tile_loadd(7, px + 64, stride);
    _tile_dpbsud(1, 4, 7);
  }
  if constexpr (NO == 2) {
    _tile_loadd(5, w + 16 * kp, kp);
    _tile_dpbsud(2, 5, 6);
    if constexpr (NP == 2)
      _tile_dpbsud(3, 5, 7);
  }
}

/// The unit's outputs: channels [o0, o0 + 16 * NO) at pixels [p0, p0 +
/// 16 * NP), the first `left` of those pixels stored.
template <int NO, int NP>
TRACED_AMX inline void amxStore(const Job &jb, int64_t o0, int64_t p0, int64_t left) {
  alignas(64) int32_t sums[4][16][16];
  _tile_stored(0, sums[0], 64);
  if constexpr (NP == 2)
    _tile_stored(1, sums[1], 64);
  if constexpr (NO == 2) {
    _tile_stored(2, sums[2], 64);
    if constexpr (NP == 2)
      _tile_stored(3, sums[3], 64);
  }
  Epilogue e(jb);
  for (int o = 0; o < NO; ++o)
    for (int p = 0; p < NP; ++p)
      for (int r = 0; r < 16; ++r)
        storeOutputs(e, o0 + 16 * o + r, p0 + 16 * p, left - 16 * p,
                     _mm512_load_si512(sums[o * 2 + p][r]));
}

/// Output channels [o0, o0 + 16 * NO) by pixels [32 * half, 32 * half + 32)
/// of block b, from its packed patches.
template <int NO>
TRACED_AMX void tileAmx(const Job &jb, int64_t b, const uint8_t *block, int64_t o0,
                        int64_t half) {
  const Conv &g = *jb.g;
  int64_t kp = g.kp(), p0 = b * kBlock + half * 32;
  amxZero<NO, 2>();
  for (int64_t s = 0; s < kp / 64; ++s)
    amxStep<NO, 2>(jb.w + o0 * kp + s * 64, kp, block + (s * 16 * kBlock + half * 32) * 4,
                   kBlock * 4);
  amxStore<NO, 2>(jb, o0, p0, g.pixels() - p0);
}

/// Output channels [o0, o0 + 16 * NO) by output row oy's columns
/// [ox, ox + 16 * NP), read from the blocked input directly (Conv::direct):
/// at k step s (tap s / (c / 64), channel groups 16 (s % (c / 64)) on), a
/// tile's 16 rows are channel groups, each 16 consecutive output columns'
/// 4 channels.
template <int NO, int NP>
TRACED_AMX void tileAmxDirect(const Job &jb, int64_t oy, int64_t ox, int64_t o0) {
  const Conv &g = *jb.g;
  int64_t kp = g.kp(), chunks = g.c / 64, stride = g.sw * g.wq() * 4;
  amxZero<NO, NP>();
  int64_t s = 0;
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j) {
      const uint8_t *tap = jb.xh + g.at(oy * g.sh + i * g.dh, 0, ox * g.sw + j * g.dw);
      for (int64_t q = 0; q < chunks; ++q, ++s)
        amxStep<NO, NP>(jb.w + o0 * kp + s * 64, kp, tap + q * 16 * stride, stride);
    }
  int64_t left = g.ow - ox;
  amxStore<NO, NP>(jb, o0, oy * g.ow + ox, left < 32 ? left : 32);
}

/// Channels [o0, o0 + width) (width 32 or 16; fewer at the last
/// 16-channel tile `tiled`) of block b by AMX tiles, both halves of its
/// pixels.
TRACED_AMX void amxUnit(const Job &jb, int64_t b, const uint8_t *block, int64_t o0,
                        int64_t tiled, int64_t width = 32) {
  bool second = jb.g->blockCount(b) > 32;
  for (int64_t half = 0; half < (second ? 2 : 1); ++half) {
    if (width == 32 && tiled - o0 >= 32)
      tileAmx<2>(jb, b, block, o0, half);
    else
      tileAmx<1>(jb, b, block, o0, half);
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
/// Whether the AMX tiles run: the CPU has AMX-INT8, the kernel grants the
/// process its tile state (arch_prctl ARCH_REQ_XCOMP_PERM), the VNNI
/// path runs, and TRACED_INT8_NO_AMX is unset.
bool hasAmx() {
  static int state = -1;
  int known = __atomic_load_n(&state, __ATOMIC_RELAXED);
  if (known < 0) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    bool cpu = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 24)) &&
               (d & (1u << 25));
    known = cpu && hasVnni() && getenv("TRACED_INT8_NO_AMX") == nullptr &&
            syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */,
                    18 /* XFEATURE_XTILEDATA */) == 0;
    __atomic_store_n(&state, known, __ATOMIC_RELAXED);
  }
  return known != 0;
}
#else
bool hasVnni() { return false; }
bool hasAmx() { return false; }
#endif

/// The channels [from, to) of block b (its patches at `col`) by VNNI
/// tiles of up to 6 rows, or by the portable loops.
void rowsOfBlock(const Job &jb, int64_t b, const uint8_t *col, int64_t from, int64_t to,
                 bool vnni) {
  const Conv &g = *jb.g;
  for (int64_t o0 = from; o0 < to; o0 += kRows) {
    int64_t rows = to - o0 < kRows ? to - o0 : kRows;
#if defined(__x86_64__)
    if (vnni) {
      int vectors = static_cast<int>((g.blockCount(b) + 15) / 16);
      vnniTile(static_cast<int>(rows), vectors)(jb, b, col, o0);
      continue;
    }
#endif
    (void)vnni;
    tilePortable(jb, b, col, o0, rows);
  }
}

/// Channels [from, oc) of output row oy's columns [ox, ox + 32), from the
/// blocked input (the channels past the last 16 of a direct convolution).
void directTail(const Job &jb, int64_t oy, int64_t ox, int64_t from) {
  const Conv &g = *jb.g;
  int64_t end = ox + 32 < g.ow ? ox + 32 : g.ow;
  for (int64_t o = from; o < g.oc; ++o) {
    const int8_t *w = jb.w + o * g.kp();
    for (int64_t x = ox; x < end; ++x) {
      int32_t acc = 0;
      int64_t k = 0;
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j)
          for (int64_t q = 0; q < g.cg(); ++q) {
            const uint8_t *v = jb.xh + g.at(oy * g.sh + i * g.dh, q, x * g.sw + j * g.dw);
            for (int64_t b = 0; b < 4; ++b, ++k)
              acc += static_cast<int32_t>(v[b]) * w[k];
          }
      requantize(jb, o, oy * g.ow + x, acc - jb.comp[o]);
    }
  }
}

/// Every output of block b (its patches at `col`): with AMX, tiles of up
/// to 32 channels by 32 pixels, the last channels below 16 by VNNI tiles.
void outputsOfBlock(const Job &jb, int64_t b, const uint8_t *col, bool amx, bool vnni) {
  const Conv &g = *jb.g;
  if (!amx)
    return rowsOfBlock(jb, b, col, 0, g.oc, vnni);
#if defined(__x86_64__)
  int64_t tiled = g.oc / 16 * 16;
  for (int64_t o0 = 0; o0 < tiled; o0 += 32)
    amxUnit(jb, b, col, o0, tiled);
  rowsOfBlock(jb, b, col, tiled, g.oc, true);
#endif
}

/// Direct AMX (Conv::direct): units of 32 channels by 32 columns of one
/// output row; the last channels below 16 by portable loops.
void directImage(const Job &jb) {
#if defined(__x86_64__)
  const Conv &g = *jb.g;
  int64_t tiled = g.oc / 16 * 16, units = (tiled + 31) / 32;
  int64_t spans = (g.ow + 31) / 32, perRow = spans * (units + (tiled < g.oc ? 1 : 0));
#pragma omp parallel
  {
    AmxThread tiles(true);
#pragma omp for schedule(static)
    for (int64_t i = 0; i < g.oh * perRow; ++i) {
      int64_t oy = i / perRow, u = i % perRow, ox = (u % spans) * 32, ou = u / spans;
      bool two = g.ow - ox > 16;
      if (ou == units)
        directTail(jb, oy, ox, tiled);
      else if (tiled - ou * 32 >= 32)
        two ? tileAmxDirect<2, 2>(jb, oy, ox, ou * 32) : tileAmxDirect<2, 1>(jb, oy, ox, ou * 32);
      else
        two ? tileAmxDirect<1, 2>(jb, oy, ox, ou * 32) : tileAmxDirect<1, 1>(jb, oy, ox, ou * 32);
    }
  }
#else
  (void)jb;
#endif
}

/// src[0, n) split into its even- and odd-indexed bytes.
void deinterleave2(const uint8_t *src, int64_t n, uint8_t *even, uint8_t *odd) {
  int64_t i = 0;
#if defined(__x86_64__)
  const __m128i low = _mm_set1_epi16(0x00ff);
  for (; i + 32 <= n; i += 32) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 16));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(even + i / 2),
                     _mm_packus_epi16(_mm_and_si128(a, low), _mm_and_si128(b, low)));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(odd + i / 2),
                     _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8)));
  }
#endif
  for (; i < n; ++i)
    (i % 2 ? odd : even)[i / 2] = src[i];
}

/// Channel `ch` of a depthwise convolution as a padded plane [hp][sw][wq]
/// (stride phases as blockInput's), pads at zx.
void depthwisePlane(const Conv &g, const uint8_t *x, int64_t ch, uint8_t *plane,
                    uint8_t *scratch) {
  int64_t wq = g.wq();
  memset(plane, g.zx, static_cast<size_t>(g.hp() * g.sw * wq + 64));
  for (int64_t y = 0; y < g.h; ++y) {
    const uint8_t *src = x + (ch * g.h + y) * g.w;
    if (g.sw == 1) {
      memcpy(plane + (y + g.ph) * wq + g.pw, src, static_cast<size_t>(g.w));
      continue;
    }
    if (g.sw == 2) {
      // Source column i lands in phase (pw + i) % 2 at (pw + i) / 2.
      uint8_t *even = scratch, *odd = scratch + g.w / 2 + 1;
      deinterleave2(src, g.w, even, odd);
      for (int64_t first = 0; first < 2 && first < g.w; ++first)
        memcpy(plane + ((y + g.ph) * 2 + (g.pw + first) % 2) * wq + (g.pw + first) / 2,
               first ? odd : even, static_cast<size_t>((g.w - first + 1) / 2));
      continue;
    }
    spreadPhases<1>(src, g.w, g.sw, g.pw,
                    [&](int64_t phase) { return plane + ((y + g.ph) * g.sw + phase) * wq; });
  }
}

/// Channel ch's outputs from its plane by scalar loops.
void depthwisePortable(const Job &jb, int64_t ch, const uint8_t *plane) {
  const Conv &g = *jb.g;
  int64_t wq = g.wq();
  const int8_t *w = jb.w + ch * g.kp();
  for (int64_t oy = 0; oy < g.oh; ++oy)
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      int32_t acc = 0;
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j) {
          int64_t y = oy * g.sh + i * g.dh, col = ox * g.sw + j * g.dw;
          acc += static_cast<int32_t>(plane[(y * g.sw + col % g.sw) * wq + col / g.sw]) *
                 w[(i * g.kw + j) * 4];
        }
      requantize(jb, ch, oy * g.ow + ox, acc - jb.comp[ch]);
    }
}

#if defined(__x86_64__)
/// Channel ch's outputs, 16 columns of a row at a time: the taps' products
/// summed in float32, exact (at most 514 taps: the sums stay below 2^24).
/// The plane is converted to float32 first (`floats`, as many elements as
/// the plane has bytes), once, rather than at each of the taps reading it.
TRACED_VNNI void depthwiseVnni(const Job &jb, int64_t ch, const uint8_t *plane,
                               float *floats) {
  const Conv &g = *jb.g;
  int64_t wq = g.wq(), taps = g.kh * g.kw;
  for (int64_t i = 0; i + 16 <= g.hp() * g.sw * wq + 64; i += 16)
    _mm512_storeu_ps(floats + i, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(
                                     reinterpret_cast<const __m128i *>(plane + i)))));
  const int8_t *w = jb.w + ch * g.kp();
  // Per tap: its weight, and where its column 0 of output row 0 is.
  float weights[514];
  int64_t offsets[514];
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j) {
      int64_t t = i * g.kw + j, col = j * g.dw;
      weights[t] = static_cast<float>(w[t * 4]);
      offsets[t] = (i * g.dh * g.sw + col % g.sw) * wq + col / g.sw;
    }
  __m512 comp = _mm512_set1_ps(static_cast<float>(jb.comp[ch]));
  Epilogue e(jb);
  // Four vectors of 16 output columns at a time (of one row or of the
  // next: a 7- or 14-wide row is one vector), each its own chain of FMAs.
  constexpr int kChains = 4;
  int64_t ow = g.ow, vectors = (ow + 15) / 16, count = g.oh * vectors;
  int64_t rowStep = g.sh * g.sw * wq;
  for (int64_t i = 0; i < count; i += kChains) {
    const float *at[kChains];
    int64_t pixel[kChains];
    int n = count - i < kChains ? static_cast<int>(count - i) : kChains;
    for (int c = 0; c < kChains; ++c) {
      int64_t v = i + (c < n ? c : 0), oy = v / vectors, ox = v % vectors * 16;
      at[c] = floats + oy * rowStep + ox;
      pixel[c] = oy * ow + ox;
    }
    __m512 acc[kChains];
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_setzero_ps();
    for (int64_t t = 0; t < taps; ++t) {
      __m512 wt = _mm512_set1_ps(weights[t]);
      for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_fmadd_ps(_mm512_loadu_ps(at[c] + offsets[t]), wt, acc[c]);
    }
    for (int c = 0; c < n; ++c)
      storeCentered(e, ch, pixel[c], ow - pixel[c] % ow, _mm512_sub_ps(acc[c], comp));
  }
}
#endif

/// A depthwise convolution of one image: each thread one channel at a
/// time, through its own plane. -2 when memory runs out.
int32_t depthwiseImage(const Job &jb, const uint8_t *x) {
  const Conv &g = *jb.g;
  bool vnni = hasVnni() && g.kh * g.kw <= 514;
  size_t planeBytes = static_cast<size_t>(g.hp() * g.sw * g.wq() + 64);
  int failed = 0;
#pragma omp parallel reduction(| : failed)
  {
    uint8_t *plane = static_cast<uint8_t *>(malloc(planeBytes));
    uint8_t *scratch = static_cast<uint8_t *>(malloc(static_cast<size_t>(g.w + 64)));
    float *floats = vnni ? static_cast<float *>(malloc(planeBytes * sizeof(float))) : nullptr;
#pragma omp for schedule(static)
    for (int64_t ch = 0; ch < g.c; ++ch) {
      if (!plane || !scratch || (vnni && !floats)) {
        failed = 1;
        continue;
      }
      depthwisePlane(g, x, ch, plane, scratch);
#if defined(__x86_64__)
      if (vnni) {
        depthwiseVnni(jb, ch, plane, floats);
        continue;
      }
#endif
      depthwisePortable(jb, ch, plane);
    }
    free(plane);
    free(scratch);
    free(floats);
  }
  (void)vnni;
  return failed ? -2 : 0;
}

/// One image's outputs, spread over the threads. With enough blocks of
/// pixels, each thread packs one block at a time into its own buffer (16
/// KiB for a row of 64 k: it stays in L1 while every channel reads it);
/// with few blocks (a 7x7 image is one), the blocks are packed first and
/// the threads share each block's channels. -2 when memory runs out.
int32_t computeImage(const Job &jb) {
  const Conv &g = *jb.g;
  bool vnni = hasVnni(), amx = hasAmx();
  if (amx && g.direct()) {
    directImage(jb);
    return 0;
  }
  int64_t blocks = g.blocks();
  size_t blockBytes = static_cast<size_t>(g.groups() * kBlock * 4);
  int failed = 0;
  if (blocks >= 2 * omp_get_max_threads()) {
#pragma omp parallel reduction(| : failed)
    {
      uint8_t *col = static_cast<uint8_t *>(malloc(blockBytes));
      AmxThread tiles(amx);
      // (Dynamic: the last block may hold a few pixels only, and a static
      // split of 4 blocks, 14x14's, gave one thread twice the other's.)
#pragma omp for schedule(dynamic)
      for (int64_t b = 0; b < blocks; ++b) {
        if (!col) {
          failed = 1;
          continue;
        }
        packBlock(g, jb.xh, b, col);
        outputsOfBlock(jb, b, col, amx, vnni);
      }
      free(col);
    }
    return failed ? -2 : 0;
  }
  uint8_t *col = static_cast<uint8_t *>(malloc(blockBytes * blocks));
  if (!col)
    return -2;
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b)
    packBlock(g, jb.xh, b, col + b * blockBytes);
  // Units: per block, each 32 channels (AMX; 16 when there are fewer
  // than four 32-channel units per thread, so that the threads' shares
  // differ by less) or 6 (VNNI).
  int64_t tiled = amx ? g.oc / 16 * 16 : 0;
  int64_t width = blocks * ((tiled + 31) / 32) >= 4 * omp_get_max_threads() ? 32 : 16;
  int64_t amxUnits = (tiled + width - 1) / width;
  int64_t rowUnits = (g.oc - tiled + kRows - 1) / kRows;
  int64_t perBlock = amxUnits + rowUnits;
#pragma omp parallel
  {
    AmxThread tiles(amx);
#pragma omp for schedule(dynamic)
    for (int64_t i = 0; i < blocks * perBlock; ++i) {
      int64_t b = i / perBlock, u = i % perBlock;
      const uint8_t *block = col + b * blockBytes;
      if (u >= amxUnits) {
        int64_t from = tiled + (u - amxUnits) * kRows;
        rowsOfBlock(jb, b, block, from, from + kRows < g.oc ? from + kRows : g.oc, vnni);
        continue;
      }
#if defined(__x86_64__)
      amxUnit(jb, b, block, u * width, tiled, width);
#endif
    }
  }
  free(col);
  return 0;
}

/// Every image of `g`: out[n] ([oc][pixels], or with the strides given),
/// added to res[n] (laid out as out) when `sum` is given.
int32_t run(const Conv &g, const uint8_t *x, const int8_t *w, const float *mult,
            const float *off, const int32_t *comp, const uint8_t *res, const Sum *sum,
            uint8_t *out, int64_t ocStride, int64_t pStride) {
  if (g.kp() > kMaxReduction)
    return -1;
  uint8_t *xh = static_cast<uint8_t *>(
      malloc(g.depthwise ? 1 : static_cast<size_t>(g.blockedBytes())));
  // A zero row for the channels past c in the last group of 4.
  uint8_t *zeros = static_cast<uint8_t *>(calloc(static_cast<size_t>(g.w + 64), 1));
  int32_t status = xh && zeros ? 0 : -2;
  for (int64_t n = 0; status == 0 && n < g.n; ++n) {
    int64_t image = n * g.oc * g.pixels();
    Job jb{&g,       xh,       w,     comp, mult, off, out + image, ocStride,
           pStride,  sum ? res + image : nullptr, sum};
    if (g.depthwise) {
      status = depthwiseImage(jb, x + n * g.c * g.h * g.w);
      continue;
    }
    status = blockInput(g, x + n * g.c * g.h * g.w, xh, zeros);
    if (status == 0)
      status = computeImage(jb);
  }
  free(xh);
  free(zeros);
  return status;
}

} // namespace

extern "C" {

/// The fused add's parameters from `scales` (the output's, the
/// residual's and the sum's) and the geometry's zr, zs, relu; false when
/// they are not valid (a scale not positive and finite, a zero point out
/// of [0, 255]).
static bool readSum(const float *scales, const int64_t *v, int32_t zo, Sum &s) {
  for (int i = 0; i < 3; ++i)
    if (!(scales[i] > 0.0f && scales[i] < INFINITY))
      return false;
  if (v[0] < 0 || v[0] > 255 || v[1] < 0 || v[1] > 255)
    return false;
  float zs = static_cast<float>(v[1]);
  s = {scales[0], scales[0] * static_cast<float>(-zo), scales[1],
       scales[1] * static_cast<float>(-v[0]), 1.0f / scales[2], zs, v[2] ? zs : 0.0f};
  return true;
}

TRACED_EXPORT int32_t traced_int8_conv2d_add(const uint8_t *x, const int8_t *w,
                                             const float *multiplier, const float *offset,
                                             const int32_t *compensation,
                                             const uint8_t *residual, const float *scales,
                                             uint8_t *out, const int64_t *v) {
  Conv g{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
         v[11], v[12], v[13], v[14], static_cast<int32_t>(v[15]),
         static_cast<int32_t>(v[16]), v[17] != 0, false};
  int64_t groups = v[18];
  if (groups != 1 && !(groups == g.c && g.oc == g.c))
    return -1;
  g.depthwise = groups != 1;
  if (g.n < 0 || g.c <= 0 || g.oc < 0 || g.kh <= 0 || g.kw <= 0 || g.sh <= 0 ||
      g.sw <= 0 || g.dh <= 0 || g.dw <= 0 || g.ph < 0 || g.pw < 0 ||
      g.oh != (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1 ||
      g.ow != (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1 || g.oh <= 0 ||
      g.ow <= 0)
    return -1;
  Sum sum;
  if (residual && !readSum(scales, v + TRACED_INT8_CONV_GEOMETRY, g.zo, sum))
    return -1;
  return run(g, x, w, multiplier, offset, compensation, residual,
             residual ? &sum : nullptr, out, g.pixels(), 1);
}

TRACED_EXPORT int32_t traced_int8_conv2d(const uint8_t *x, const int8_t *w,
                                         const float *multiplier, const float *offset,
                                         const int32_t *compensation, uint8_t *out,
                                         const int64_t *v) {
  return traced_int8_conv2d_add(x, w, multiplier, offset, compensation, nullptr, nullptr,
                                out, v);
}

TRACED_EXPORT int32_t traced_int8_linear_add(const uint8_t *x, const int8_t *w,
                                             const float *multiplier, const float *offset,
                                             const int32_t *compensation,
                                             const uint8_t *residual, const float *scales,
                                             uint8_t *out, const int64_t *v) {
  // rows x k as one channels-last image of k channels, one row of `rows`
  // columns.
  int64_t rows = v[0], k = v[1], n = v[2];
  if (rows < 0 || k <= 0 || n < 0)
    return -1;
  Sum sum;
  if (residual && !readSum(scales, v + TRACED_INT8_LINEAR_GEOMETRY, static_cast<int32_t>(v[4]),
                           sum))
    return -1;
  if (rows == 0)
    return 0;
  // (One image row of `rows` columns: AMX reads it directly when k is a
  // multiple of 64 and there are 14 rows or more.)
  Conv g{1, k, 1, rows, n, 1, 1, 1, 1, 0, 0, 1, 1, 1, rows,
         static_cast<int32_t>(v[3]), static_cast<int32_t>(v[4]), v[5] != 0, true};
  // Output (o, p) of the image is out[p][o].
  return run(g, x, w, multiplier, offset, compensation, residual,
             residual ? &sum : nullptr, out, 1, n);
}

TRACED_EXPORT int32_t traced_int8_linear(const uint8_t *x, const int8_t *w,
                                         const float *multiplier, const float *offset,
                                         const int32_t *compensation, uint8_t *out,
                                         const int64_t *v) {
  return traced_int8_linear_add(x, w, multiplier, offset, compensation, nullptr, nullptr,
                                out, v);
}

TRACED_EXPORT int32_t traced_int8_path(void) { return hasAmx() ? 2 : hasVnni() ? 1 : 0; }

// The compiled-code entry points: each buffer a memref<?xT> descriptor.
#define TRACED_INT8_CONV_PARAMS                                                   \
  int64_t n, int64_t c, int64_t h, int64_t wd, int64_t oc, int64_t kh, int64_t kw, \
      int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,      \
      int64_t oh, int64_t ow, int64_t zx, int64_t zo, int64_t relu, int64_t groups
#define TRACED_INT8_CONV_VALUES \
  n, c, h, wd, oc, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, zx, zo, relu, groups

TRACED_EXPORT int32_t traced_int8_conv2d_memref(MR(uint8_t, x), MR(int8_t, w), MR(float, m),
                                                MR(float, o), MR(int32_t, comp),
                                                MR(uint8_t, out), TRACED_INT8_CONV_PARAMS) {
  int64_t v[] = {TRACED_INT8_CONV_VALUES};
  return traced_int8_conv2d(AT(x), AT(w), AT(m), AT(o), AT(comp), AT(out), v);
}

TRACED_EXPORT int32_t traced_int8_conv2d_add_memref(
    MR(uint8_t, x), MR(int8_t, w), MR(float, m), MR(float, o), MR(int32_t, comp),
    MR(uint8_t, res), MR(float, scales), MR(uint8_t, out), TRACED_INT8_CONV_PARAMS,
    int64_t zr, int64_t zs, int64_t sumRelu) {
  int64_t v[] = {TRACED_INT8_CONV_VALUES, zr, zs, sumRelu};
  return traced_int8_conv2d_add(AT(x), AT(w), AT(m), AT(o), AT(comp), AT(res), AT(scales),
                                AT(out), v);
}

TRACED_EXPORT int32_t traced_int8_linear_memref(MR(uint8_t, x), MR(int8_t, w), MR(float, m),
                                                MR(float, o), MR(int32_t, comp),
                                                MR(uint8_t, out), int64_t rows, int64_t k,
                                                int64_t n, int64_t zx, int64_t zo,
                                                int64_t relu) {
  int64_t v[] = {rows, k, n, zx, zo, relu};
  return traced_int8_linear(AT(x), AT(w), AT(m), AT(o), AT(comp), AT(out), v);
}

TRACED_EXPORT int32_t traced_int8_linear_add_memref(
    MR(uint8_t, x), MR(int8_t, w), MR(float, m), MR(float, o), MR(int32_t, comp),
    MR(uint8_t, res), MR(float, scales), MR(uint8_t, out), int64_t rows, int64_t k,
    int64_t n, int64_t zx, int64_t zo, int64_t relu, int64_t zr, int64_t zs,
    int64_t sumRelu) {
  int64_t v[] = {rows, k, n, zx, zo, relu, zr, zs, sumRelu};
  return traced_int8_linear_add(AT(x), AT(w), AT(m), AT(o), AT(comp), AT(res), AT(scales),
                                AT(out), v);
}

TRACED_EXPORT const TracedRuntimeSymbol *traced_int8_runtime_symbols(int64_t *count) {
  static const TracedRuntimeSymbol symbols[] = {
      {"traced_int8_conv2d_memref", reinterpret_cast<void *>(&traced_int8_conv2d_memref)},
      {"traced_int8_linear_memref", reinterpret_cast<void *>(&traced_int8_linear_memref)},
      {"traced_int8_conv2d_add_memref",
       reinterpret_cast<void *>(&traced_int8_conv2d_add_memref)},
      {"traced_int8_linear_add_memref",
       reinterpret_cast<void *>(&traced_int8_linear_add_memref)},
  };
  *count = sizeof(symbols) / sizeof(symbols[0]);
  return symbols;
}

} // extern "C"
