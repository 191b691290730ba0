//===- Linalg.cpp - convolutions and matrix products ----------------------===//
//
// Contractions go through BLAS (Debian's OpenBLAS): conv as im2col + GEMM per
// group, products as (batched) GEMM. Only float and double tensors; the
// interpreter is the oracle, so it computes in the tensor's own precision
// like PyTorch does.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TracedIR/Runtime/LinalgRuntime.h"

#include <cblas.h>
#include <cstring>

using namespace mlir;
using namespace mlir::traced;

namespace {
/// Floats and doubles through BLAS (sgemm, dgemm).
template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const T *a,
          int64_t lda, const T *b, int64_t ldb, llvm::type_identity_t<T> beta,
          T *c, int64_t ldc) {
  constexpr auto blas = [] {
    if constexpr (std::is_same_v<T, float>)
      return cblas_sgemm;
    else
      return cblas_dgemm;
  }();
  blas(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
       transB ? CblasTrans : CblasNoTrans, m, n, k, T(1), a, lda, b, ldb, beta,
       c, ldc);
}
/// Integer products wrap like torch's (no signed-overflow UB: unsigned
/// arithmetic); narrower types are wrapped by the caller.
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
          const int64_t *a, int64_t lda, const int64_t *b, int64_t ldb,
          int64_t beta, int64_t *c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      uint64_t acc = beta ? static_cast<uint64_t>(beta) *
                                static_cast<uint64_t>(c[i * ldc + j])
                          : 0;
      for (int64_t p = 0; p < k; ++p) {
        int64_t x = transA ? a[p * lda + i] : a[i * lda + p];
        int64_t y = transB ? b[j * ldb + p] : b[p * ldb + j];
        acc += static_cast<uint64_t>(x) * static_cast<uint64_t>(y);
      }
      c[i * ldc + j] = static_cast<int64_t>(acc);
    }
}

/// Float-storage tensors of one dtype, or an error.
LogicalResult sameFloat(const KernelArgs &args, ArrayRef<const Tensor *> ts) {
  for (const Tensor *t : ts)
    if (t && (!isFloatingPoint(t->dtype()) || t->dtype() != ts[0]->dtype()))
      return args.emitError()
             << "expects floating-point tensors of one dtype, got "
             << dtypeName(ts[0]->dtype()) << " and " << dtypeName(t->dtype());
  return success();
}

/// Batched matrix product of [B, M, K] x [B, K, N] (B may be 1 on either
/// side, broadcast), both contiguous, into [B, M, N].
template <typename T>
void batchedGemm(const T *a, int64_t batchA, const T *b, int64_t batchB,
                 int64_t batch, int64_t m, int64_t k, int64_t n, T *c,
                 T beta = 0) {
  for (int64_t i = 0; i < batch; ++i)
    gemm(false, false, m, n, k, a + (batchA == 1 ? 0 : i) * m * k, k,
         b + (batchB == 1 ? 0 : i) * k * n, n, beta, c + i * m * n, n);
}

FailureOr<Tensor> matmulTensors(const KernelArgs &args, const Tensor &a0,
                                const Tensor &b0) {
  // torch multiplies integer matrices too, but not bools or mixed dtypes.
  if (a0.dtype() != b0.dtype() || a0.dtype() == DType::Bool)
    return args.emitError() << "expects tensors of one non-bool dtype, got "
                            << dtypeName(a0.dtype()) << " and "
                            << dtypeName(b0.dtype());
  if (a0.rank() == 0 || b0.rank() == 0)
    return args.emitError() << "both arguments to matmul must be at least 1-D";
  Tensor a = a0, b = b0;
  bool vecA = a.rank() == 1, vecB = b.rank() == 1;
  if (vecA)
    a = a.reshaped({1, a.dim(0)});
  if (vecB)
    b = b.reshaped({b.dim(0), 1});
  int64_t m = a.dim(a.rank() - 2), k = a.dim(a.rank() - 1);
  int64_t k2 = b.dim(b.rank() - 2), n = b.dim(b.rank() - 1);
  if (k != k2)
    return args.emitError() << "cannot multiply: contracted sizes " << k
                            << " and " << k2 << " differ";
  FailureOr<SmallVector<int64_t>> batch =
      broadcastShape(a.shape().drop_back(2), b.shape().drop_back(2));
  if (failed(batch))
    return args.emitError() << "batch dimensions cannot be broadcast";
  int64_t batchCount = 1;
  for (int64_t d : *batch)
    batchCount *= d;
  auto expand = [&](const Tensor &t, int64_t rows, int64_t cols) {
    SmallVector<int64_t> shape(*batch);
    shape.append({rows, cols});
    int64_t own = 1;
    for (int64_t d : t.shape().drop_back(2))
      own *= d;
    // A batch-less operand multiplies every batch as it is.
    if (own == 1)
      return t.reshaped({1, rows, cols});
    return broadcastTo(t, shape).reshaped({batchCount, rows, cols});
  };
  Tensor ea = expand(a, m, k), eb = expand(b, k, n);
  SmallVector<int64_t> outShape(*batch);
  outShape.append({m, n});
  Tensor out(a.dtype(), outShape);
  if (a.storage() == Storage::Double)
    batchedGemm(ea.data<double>(), ea.dim(0), eb.data<double>(), eb.dim(0),
                batchCount, m, k, n, out.data<double>());
  else if (a.storage() == Storage::Int)
    batchedGemm(ea.data<int64_t>(), ea.dim(0), eb.data<int64_t>(), eb.dim(0),
                batchCount, m, k, n, out.data<int64_t>());
  else
    batchedGemm(ea.data<float>(), ea.dim(0), eb.data<float>(), eb.dim(0),
                batchCount, m, k, n, out.data<float>());
  out.roundToDType();
  SmallVector<int64_t> finalShape(*batch);
  if (!vecA)
    finalShape.push_back(m);
  if (!vecB)
    finalShape.push_back(n);
  return out.reshaped(finalShape);
}

/// Convolution over 3 spatial dims (fewer are lifted to 3 with sizes of
/// one): im2col of each group's input channels, then one GEMM per group.
/// `x` is [N, C, D, H, W], `w` [O, C/groups, KD, KH, KW], `out` [N, O, ...].
/// The input index that padded position `i` (of an input of `size`) reads
/// under `mode`; -1 for a zero.
static int64_t padSource(int64_t i, int64_t size, ConvParams::PadMode mode) {
  if (i >= 0 && i < size)
    return i;
  switch (mode) {
  case ConvParams::PadMode::Zeros:
    return -1;
  case ConvParams::PadMode::Reflect:
    return i < 0 ? -i : 2 * (size - 1) - i;
  case ConvParams::PadMode::Replicate:
    return i < 0 ? 0 : size - 1;
  case ConvParams::PadMode::Circular:
    return ((i % size) + size) % size;
  }
  return -1;
}

template <typename T>
void convImpl(const Tensor &x, const Tensor &w, const Tensor *bias,
              const ConvParams &p, Tensor &out) {
  int64_t n = x.dim(0), c = x.dim(1);
  int64_t in[3] = {x.dim(2), x.dim(3), x.dim(4)};
  int64_t o = w.dim(0), cg = w.dim(1);
  int64_t kr[3] = {w.dim(2), w.dim(3), w.dim(4)};
  int64_t os[3] = {out.dim(2), out.dim(3), out.dim(4)};
  int64_t groups = p.groups, og = o / groups;
  int64_t inPlane = in[0] * in[1] * in[2];
  int64_t cols = os[0] * os[1] * os[2], kvol = kr[0] * kr[1] * kr[2];
  int64_t rows = cg * kvol;
  std::vector<T> col(std::max<int64_t>(rows * cols, 1));
  const T *xp = x.data<T>(), *wp = w.data<T>();
  T *op = out.data<T>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t ci = 0; ci < cg; ++ci) {
        const T *plane = xp + ((b * c) + g * cg + ci) * inPlane;
        for (int64_t kz = 0; kz < kr[0]; ++kz)
          for (int64_t ky = 0; ky < kr[1]; ++ky)
            for (int64_t kx = 0; kx < kr[2]; ++kx) {
              T *dst = col.data() +
                       (((ci * kr[0] + kz) * kr[1] + ky) * kr[2] + kx) * cols;
              for (int64_t z = 0; z < os[0]; ++z) {
                int64_t iz = padSource(z * p.stride[0] - p.padBefore[0] +
                                           kz * p.dilation[0],
                                       in[0], p.padMode);
                for (int64_t y = 0; y < os[1]; ++y, dst += os[2]) {
                  int64_t iy = padSource(y * p.stride[1] - p.padBefore[1] +
                                             ky * p.dilation[1],
                                         in[1], p.padMode);
                  if (iz < 0 || iy < 0) {
                    std::fill(dst, dst + os[2], T(0));
                    continue;
                  }
                  const T *src = plane + (iz * in[1] + iy) * in[2];
                  for (int64_t xo = 0; xo < os[2]; ++xo) {
                    int64_t ix = padSource(xo * p.stride[2] - p.padBefore[2] +
                                               kx * p.dilation[2],
                                           in[2], p.padMode);
                    dst[xo] = ix < 0 ? T(0) : src[ix];
                  }
                }
              }
            }
      }
      T *dst = op + (b * o + g * og) * cols;
      if (bias) {
        const T *bp = bias->data<T>() + g * og;
        for (int64_t oc = 0; oc < og; ++oc)
          std::fill(dst + oc * cols, dst + (oc + 1) * cols, bp[oc]);
      }
      if (rows == 0 || cols == 0) {
        if (!bias)
          std::fill(dst, dst + og * cols, T(0));
        continue;
      }
      gemm(false, false, og, cols, rows, wp + g * og * rows, rows, col.data(),
           cols, bias ? T(1) : T(0), dst, cols);
    }
  }
}

/// Transposed convolution over 3 spatial dims: per group, the GEMM
/// W^T * X gives every (output channel, kernel tap, input position)
/// product, which col2im adds at output position
/// `i * stride - padding + tap * dilation` when that lies in the output (so
/// a padding beyond the kernel's span crops, as in torch). `x` is
/// [N, C, D, H, W], `w` [C, O/groups, KD, KH, KW], `out` [N, O, ...].
template <typename T>
void convTransposeImpl(const Tensor &x, const Tensor &w, const Tensor *bias,
                       const ConvParams &p, Tensor &out) {
  int64_t n = x.dim(0), c = x.dim(1);
  int64_t in[3] = {x.dim(2), x.dim(3), x.dim(4)};
  int64_t og = w.dim(1), groups = p.groups, cg = c / groups, o = og * groups;
  int64_t kr[3] = {w.dim(2), w.dim(3), w.dim(4)};
  int64_t os[3] = {out.dim(2), out.dim(3), out.dim(4)};
  int64_t inPlane = in[0] * in[1] * in[2], outPlane = os[0] * os[1] * os[2];
  int64_t kvol = kr[0] * kr[1] * kr[2], rows = og * kvol;
  std::vector<T> col(std::max<int64_t>(rows * inPlane, 1));
  const T *xp = x.data<T>(), *wp = w.data<T>();
  T *op = out.data<T>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t g = 0; g < groups; ++g) {
      T *dst = op + (b * o + g * og) * outPlane;
      for (int64_t oc = 0; oc < og; ++oc)
        std::fill(dst + oc * outPlane, dst + (oc + 1) * outPlane,
                  bias ? bias->data<T>()[g * og + oc] : T(0));
      if (rows == 0 || inPlane == 0 || cg == 0)
        continue;
      gemm(true, false, rows, inPlane, cg, wp + g * cg * rows, rows,
           xp + (b * c + g * cg) * inPlane, inPlane, T(0), col.data(), inPlane);
      for (int64_t oc = 0; oc < og; ++oc)
        for (int64_t kz = 0; kz < kr[0]; ++kz)
          for (int64_t ky = 0; ky < kr[1]; ++ky)
            for (int64_t kx = 0; kx < kr[2]; ++kx) {
              const T *src =
                  col.data() +
                  (((oc * kr[0] + kz) * kr[1] + ky) * kr[2] + kx) * inPlane;
              T *plane = dst + oc * outPlane;
              for (int64_t z = 0; z < in[0]; ++z) {
                int64_t oz =
                    z * p.stride[0] - p.padBefore[0] + kz * p.dilation[0];
                for (int64_t y = 0; y < in[1]; ++y) {
                  int64_t oy =
                      y * p.stride[1] - p.padBefore[1] + ky * p.dilation[1];
                  const T *row = src + (z * in[1] + y) * in[2];
                  if (oz < 0 || oz >= os[0] || oy < 0 || oy >= os[1])
                    continue;
                  T *line = plane + (oz * os[1] + oy) * os[2];
                  for (int64_t xi = 0; xi < in[2]; ++xi) {
                    int64_t ox =
                        xi * p.stride[2] - p.padBefore[2] + kx * p.dilation[2];
                    if (ox >= 0 && ox < os[2])
                      line[ox] += row[xi];
                  }
                }
              }
            }
    }
  }
}

/// Lifts a convolution to a batched 3-D one: `p`'s lists get leading
/// entries for the missing spatial dims (size one: stride and dilation one,
/// no padding). Returns how many dims were added.
unsigned liftConvParams(ConvParams &p) {
  unsigned lift = 3 - p.spatial;
  for (auto [v, fill] : {std::pair<SmallVector<int64_t> *, int64_t>{&p.stride, 1},
                         {&p.dilation, 1},
                         {&p.padBefore, 0},
                         {&p.padAfter, 0},
                         {&p.outputPadding, 0}})
    v->insert(v->begin(), lift, fill);
  return lift;
}

/// `t` with `lift` spatial dims of size one after its batch and channel
/// dims (and a batch of one first when `addBatch`).
Tensor liftedConvTensor(const Tensor &t, unsigned lift, bool addBatch = false) {
  SmallVector<int64_t> s(t.shape());
  if (addBatch)
    s.insert(s.begin(), 1);
  s.insert(s.begin() + 2, lift, 1);
  return t.reshaped(s);
}

/// The taps of a convolution between a "wide" side (the input of a
/// convolution, the output of a transposed one) and a "narrow" side (the
/// other), lifted to 3 spatial dims: narrow position `o` and kernel tap `k`
/// meet wide position `o * stride - padding + k * dilation`. im2col gathers
/// `channels` planes of `wide` into [channels * taps, narrow positions]
/// (zeros outside it); col2im adds such columns back into `wide`.
struct ConvTaps {
  int64_t wide[3], narrow[3], kernel[3];
  const ConvParams &p;
  int64_t widePlane() const { return wide[0] * wide[1] * wide[2]; }
  int64_t narrowPlane() const { return narrow[0] * narrow[1] * narrow[2]; }
  int64_t taps() const { return kernel[0] * kernel[1] * kernel[2]; }

  template <typename Fn> void forEach(int64_t channels, Fn fn) const {
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t kz = 0; kz < kernel[0]; ++kz)
        for (int64_t ky = 0; ky < kernel[1]; ++ky)
          for (int64_t kx = 0; kx < kernel[2]; ++kx) {
            int64_t row = ((c * kernel[0] + kz) * kernel[1] + ky) * kernel[2] + kx;
            for (int64_t z = 0; z < narrow[0]; ++z) {
              int64_t iz = z * p.stride[0] - p.padBefore[0] + kz * p.dilation[0];
              for (int64_t y = 0; y < narrow[1]; ++y) {
                int64_t iy = y * p.stride[1] - p.padBefore[1] + ky * p.dilation[1];
                bool rowIn = iz >= 0 && iz < wide[0] && iy >= 0 && iy < wide[1];
                for (int64_t x = 0; x < narrow[2]; ++x) {
                  int64_t ix = x * p.stride[2] - p.padBefore[2] + kx * p.dilation[2];
                  int64_t col = (z * narrow[1] + y) * narrow[2] + x;
                  int64_t at = rowIn && ix >= 0 && ix < wide[2]
                                   ? c * widePlane() + (iz * wide[1] + iy) * wide[2] + ix
                                   : -1;
                  fn(row, col, at);
                }
              }
            }
          }
  }
  template <typename T>
  void im2col(const T *planes, int64_t channels, T *col) const {
    int64_t cols = narrowPlane();
    forEach(channels, [&](int64_t row, int64_t c, int64_t at) {
      col[row * cols + c] = at < 0 ? T(0) : planes[at];
    });
  }
  template <typename T>
  void col2im(const T *col, int64_t channels, T *planes) const {
    int64_t cols = narrowPlane();
    forEach(channels, [&](int64_t row, int64_t c, int64_t at) {
      if (at >= 0)
        planes[at] += col[row * cols + c];
    });
  }
};

/// The gradients of a convolution (lifted to 3 spatial dims) with respect
/// to its input (`gx`, when given) and weight (`gw`): per batch and group,
/// GEMMs against the im2col of the wide side. A convolution's wide side is
/// x (gy's positions are narrow): gw += gy x_col^T, gx = col2im(w^T gy).
/// A transposed one's is gy: gx = w gy_col, gw += x gy_col^T.
template <typename T>
void convBackwardImpl(const Tensor &gy, const Tensor &x, const Tensor &w,
                      const ConvParams &p, Tensor *gx, Tensor *gw) {
  int64_t n = x.dim(0), groups = p.groups;
  // Per group: channels of x (cg) and of gy (og).
  int64_t cg = x.dim(1) / groups, og = gy.dim(1) / groups;
  const Tensor &wideT = p.transposed ? gy : x;
  const Tensor &narrowT = p.transposed ? x : gy;
  ConvTaps taps{{wideT.dim(2), wideT.dim(3), wideT.dim(4)},
                {narrowT.dim(2), narrowT.dim(3), narrowT.dim(4)},
                {w.dim(2), w.dim(3), w.dim(4)},
                p};
  // The channels per group on the wide side and the narrow side.
  int64_t wideC = p.transposed ? og : cg, narrowC = p.transposed ? cg : og;
  int64_t rows = wideC * taps.taps(), cols = taps.narrowPlane();
  int64_t widePlane = taps.widePlane();
  std::vector<T> col(std::max<int64_t>(rows * cols, 1));
  const T *wp = w.data<T>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t g = 0; g < groups; ++g) {
      const T *wide = wideT.data<T>() + (b * wideT.dim(1) + g * wideC) * widePlane;
      const T *narrow = narrowT.data<T>() + (b * narrowT.dim(1) + g * narrowC) * cols;
      // This group's weight: [narrowC, rows] for a convolution ([og, cg *
      // taps]) and for a transposed one ([cg, og * taps]) alike.
      const T *wg = wp + g * narrowC * rows;
      if (rows == 0 || cols == 0 || narrowC == 0)
        continue;
      bool wideNeeded = gw || (gx && p.transposed);
      if (wideNeeded)
        taps.im2col(wide, wideC, col.data());
      if (gw)
        gemm(false, true, narrowC, rows, cols, narrow, cols, col.data(), cols,
             T(1), gw->data<T>() + g * narrowC * rows, rows);
      if (!gx)
        continue;
      T *gxp = gx->data<T>() + (b * x.dim(1) + g * cg) * x.dim(2) * x.dim(3) * x.dim(4);
      if (p.transposed) {
        gemm(false, false, cg, cols, rows, wg, rows, col.data(), cols, T(0), gxp,
             cols);
      } else {
        gemm(true, false, rows, cols, og, wg, rows, narrow, cols, T(0),
             col.data(), cols);
        taps.col2im(col.data(), cg, gxp);
      }
    }
}

/// A list of Python bools (or ints), or nullopt.
std::optional<SmallVector<bool>> boolList(const RtValue &v) {
  const RtValue::List *l = v.list();
  if (!l)
    return std::nullopt;
  SmallVector<bool> out;
  for (const RtValue &item : l->items) {
    if (auto *b = std::get_if<bool>(&item.v))
      out.push_back(*b);
    else if (auto *i = std::get_if<int64_t>(&item.v))
      out.push_back(*i != 0);
    else
      return std::nullopt;
  }
  return out;
}
} // namespace

/// The convolution's parameters, as decodeConv reads them from `args`, or
/// failure (reported).
static FailureOr<ConvParams>
convParams(const KernelArgs &args, const Tensor &input, const Tensor &weight,
           std::optional<ArrayRef<int64_t>> biasShape) {
  ConvParams p;
  if (failed(kernels::decodeArgs(
          args, "convolution",
          [&](const ArgReader &reader, std::string &error) {
            return decodeConv(args.signature(), reader, input.shape(),
                              weight.shape(), biasShape, p, error);
          })))
    return failure();
  return p;
}

namespace mlir::traced::kernels {

FailureOr<RtValue> conv(const KernelArgs &args) {
  FailureOr<Tensor> input = args.tensor("input"),
                    weight = args.tensor("weight");
  if (failed(input) || failed(weight))
    return failure();
  std::optional<Tensor> bias;
  if (!args.isNone("bias")) {
    FailureOr<Tensor> b = args.tensor("bias");
    if (failed(b))
      return failure();
    bias = *b;
  }
  if (input->dtype() != weight->dtype() || input->dtype() == DType::Bool)
    return args.emitError() << "expects input and weight of one non-bool "
                               "dtype, got "
                            << dtypeName(input->dtype()) << " and "
                            << dtypeName(weight->dtype());
  std::optional<ArrayRef<int64_t>> biasShape;
  if (bias)
    biasShape = bias->shape();
  FailureOr<ConvParams> params = convParams(args, *input, *weight, biasShape);
  if (failed(params))
    return failure();
  ConvParams &p = *params;
  DType dt = input->dtype();
  if (p.transposed && dt != DType::F32 && dt != DType::F64 && dt != DType::I64)
    return args.emitError() << "has no CPU kernel for a transposed "
                               "convolution in "
                            << dtypeName(dt);
  // Lift to a batched 3-D convolution: unbatched inputs get a batch of one,
  // missing spatial dims a size of one (stride and dilation one, no padding).
  unsigned lift = liftConvParams(p);
  Tensor x = liftedConvTensor(*input, lift, !p.batched),
         w = liftedConvTensor(*weight, lift);
  SmallVector<int64_t> outShape(p.resultShape);
  if (!p.batched)
    outShape.insert(outShape.begin(), 1);
  outShape.insert(outShape.begin() + 2, lift, 1);
  // torch takes a bias of another float dtype and casts it.
  std::optional<Tensor> b;
  if (bias)
    b = bias->dtype() == dt ? *bias : bias->to(dt);
  Tensor out(dt, outShape);
  dispatchStorage(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, uint8_t>) {
      return; // bool, rejected above
    } else if (p.transposed) {
      convTransposeImpl<T>(x, w, b ? &*b : nullptr, p, out);
    } else {
      convImpl<T>(x, w, b ? &*b : nullptr, p, out);
    }
  });
  out.roundToDType();
  return RtValue(out.reshaped(p.resultShape));
}

/// aten::convolution_backward: the gradients of torch.convolution with
/// respect to its input, weight and bias, each None where `output_mask`
/// says so. The result rule has checked shapes and dtypes as torch does;
/// bias_sizes is not read (torch ignores it too).
FailureOr<RtValue> convolutionBackward(const KernelArgs &args) {
  FailureOr<Tensor> grad = args.tensor("grad_output"),
                    input = args.tensor("input"),
                    weight = args.tensor("weight");
  if (failed(grad) || failed(input) || failed(weight))
    return failure();
  std::optional<SmallVector<bool>> mask = boolList(args.get("output_mask"));
  if (!mask || mask->size() != 3)
    return args.emitError() << "expects output_mask of three bools";
  FailureOr<ConvParams> params =
      convParams(args, *input, *weight, std::nullopt);
  if (failed(params))
    return failure();
  ConvParams &p = *params;
  if (grad->shape() != ArrayRef<int64_t>(p.resultShape))
    return args.emitError() << "grad_output has the wrong shape for this "
                               "convolution";
  DType dt = grad->dtype();
  std::vector<RtValue> results(3);
  if ((*mask)[0] || (*mask)[1]) {
    if (input->dtype() != dt || weight->dtype() != dt || !isFloatingPoint(dt))
      return args.emitError() << "expects floating-point grad_output, input "
                                 "and weight of one dtype";
    unsigned lift = liftConvParams(p);
    Tensor gy = liftedConvTensor(*grad, lift), x = liftedConvTensor(*input, lift),
           w = liftedConvTensor(*weight, lift);
    Tensor gx(dt, x.shape()), gw(dt, w.shape());
    dispatchStorage(dt, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
        convBackwardImpl<T>(gy, x, w, p, (*mask)[0] ? &gx : nullptr,
                            (*mask)[1] ? &gw : nullptr);
    });
    if ((*mask)[0]) {
      gx.roundToDType();
      results[0] = RtValue(gx.reshaped(input->shape()));
    }
    if ((*mask)[1]) {
      gw.roundToDType();
      results[1] = RtValue(gw.reshaped(weight->shape()));
    }
  }
  if ((*mask)[2]) {
    // The sum of grad_output over all dims but the channels, in its dtype
    // (bool: any; integers wrap).
    int64_t channels = grad->dim(1), inner = 1;
    for (int64_t i = 2; i < grad->rank(); ++i)
      inner *= grad->dim(i);
    Tensor gb(dt, {channels});
    for (int64_t c = 0; c < channels; ++c) {
      double fsum = 0;
      uint64_t isum = 0;
      for (int64_t b = 0; b < grad->dim(0); ++b)
        for (int64_t i = 0; i < inner; ++i) {
          int64_t at = (b * channels + c) * inner + i;
          if (isIntegral(dt))
            isum += static_cast<uint64_t>(grad->getInt(at));
          else
            fsum += grad->getDouble(at);
        }
      if (dt == DType::Bool)
        gb.setDouble(c, isum != 0);
      else if (isIntegral(dt))
        gb.data<int64_t>()[c] = static_cast<int64_t>(isum);
      else
        gb.setDouble(c, fsum);
    }
    gb.roundToDType();
    results[2] = RtValue(gb);
  }
  return RtValue::ofList(std::move(results), /*isTuple=*/true);
}

FailureOr<RtValue> convTbc(const KernelArgs &args) {
  FailureOr<Tensor> input = args.tensor("input"),
                    weight = args.tensor("weight"), bias = args.tensor("bias");
  FailureOr<int64_t> pad = args.getInt("pad");
  if (failed(input) || failed(weight) || failed(bias) || failed(pad))
    return failure();
  if (input->rank() != 3 || weight->rank() != 3 || bias->rank() != 1 ||
      input->dim(2) != weight->dim(1) || bias->dim(0) != weight->dim(2))
    return args.emitError() << "expects input [time, batch, channels], weight "
                               "[kernel, channels, out] and bias [out]";
  DType dt = input->dtype();
  if (weight->dtype() != dt || bias->dtype() != dt || dt == DType::Bool)
    return args.emitError() << "expects tensors of one non-bool dtype";
  int64_t t = input->dim(0), b = input->dim(1), c = input->dim(2);
  int64_t k = weight->dim(0), o = weight->dim(2);
  int64_t outT = t + 2 * *pad - k + 1;
  if (outT < 0)
    return args.emitError() << "the kernel is larger than the padded input";
  // As a conv1d over [B, C, T] with weight [O, C, K], lifted to 3-D; a
  // negative `pad` just starts the windows inside the input.
  Tensor x = gatherStrided(*input, {b, c, 1, 1, t}, 0, {c, 1, 0, 0, b * c});
  Tensor w = gatherStrided(*weight, {o, c, 1, 1, k}, 0, {1, o, 0, 0, c * o});
  ConvParams p;
  p.spatial = 3;
  p.stride.assign(3, 1);
  p.dilation.assign(3, 1);
  p.padBefore = {0, 0, *pad};
  p.padAfter = p.padBefore;
  Tensor out(dt, {b, o, 1, 1, outT});
  dispatchStorage(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, uint8_t>)
      convImpl<T>(x, w, &*bias, p, out);
  });
  out.roundToDType();
  return RtValue(gatherStrided(out, {outT, b, o}, 0, {1, o * outT, outT}));
}

FailureOr<RtValue> linear(const KernelArgs &args) {
  FailureOr<Tensor> input = args.tensor("input"),
                    weight = args.tensor("weight");
  if (failed(input) || failed(weight))
    return failure();
  // torch's linear multiplies integers too (one dtype, not bool).
  auto sameDType = [&](const Tensor &t) -> LogicalResult {
    if (t.dtype() == input->dtype() && t.dtype() != DType::Bool)
      return success();
    return args.emitError() << "expects tensors of one non-bool dtype, got "
                            << dtypeName(input->dtype()) << " and "
                            << dtypeName(t.dtype());
  };
  if (failed(sameDType(*weight)))
    return failure();
  if (weight->rank() != 2 && weight->rank() != 1)
    return args.emitError() << "weight must be 1-D or 2-D";
  int64_t in = input->shape().back();
  if (weight->shape().back() != in)
    return args.emitError() << "input has " << in << " features, weight "
                            << weight->shape().back();
  int64_t rows = input->numel() / std::max<int64_t>(in, 1);
  int64_t outF = weight->rank() == 2 ? weight->dim(0) : 1;
  SmallVector<int64_t> shape(input->shape().drop_back());
  if (weight->rank() == 2)
    shape.push_back(outF);
  Tensor out(input->dtype(), shape);
  bool hasBias = !args.isNone("bias");
  Tensor bias;
  if (hasBias) {
    FailureOr<Tensor> b = args.tensor("bias");
    if (failed(b) || failed(sameDType(*b)))
      return failure();
    // The bias broadcasts into the whole output, as torch adds it (a
    // [rows, 1] bias is one value a row, not one a column).
    if (b->rank() > static_cast<int64_t>(shape.size()))
      return args.emitError() << "bias of rank " << b->rank()
                              << " does not broadcast into the output";
    bias = broadcastTo(*b, shape);
  }
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T *o = out.data<T>();
    if (hasBias)
      std::memcpy(o, bias.data<T>(), out.numel() * sizeof(T));
    gemm(false, true, rows, outF, in, input->data<T>(), in, weight->data<T>(),
         in, hasBias ? T(1) : T(0), o, outF);
  };
  if (input->storage() == Storage::Double)
    run(double{});
  else if (input->storage() == Storage::Int)
    run(int64_t{});
  else
    run(float{});
  out.roundToDType();
  return RtValue(out);
}

/// The operands a product op takes: their ranks (0: any) and whether their
/// first dims must be equal (bmm's batches, dot's lengths).
struct ProductRanks {
  int64_t lhs = 0, rhs = 0;
  bool sameFirstDim = false;
  bool admit(const Tensor &a, const Tensor &b) const {
    return (!lhs || a.rank() == lhs) && (!rhs || b.rank() == rhs) &&
           (!sameFirstDim || a.dim(0) == b.dim(0));
  }
};

/// `lhs @ rhs` of two named tensor arguments of the `ranks` the op takes
/// (else `expects` is reported).
static FailureOr<RtValue> namedProduct(const KernelArgs &args, StringRef lhs,
                                       StringRef rhs, ProductRanks ranks,
                                       StringRef expects) {
  FailureOr<Tensor> a = args.tensor(lhs), b = args.tensor(rhs);
  if (failed(a) || failed(b))
    return failure();
  if (!ranks.admit(*a, *b))
    return args.emitError() << expects;
  FailureOr<Tensor> out = matmulTensors(args, *a, *b);
  if (failed(out))
    return failure();
  return RtValue(*out);
}

/// addmm's, addbmm's and baddbmm's input, and the product of their two
/// other tensor arguments.
struct InputAndProduct {
  Tensor input, product;
};

/// The input and the product of the tensor arguments `lhs` and `rhs`, or
/// failure (reported; `expects` when `rank`, unless 0, is not both's).
static FailureOr<InputAndProduct> inputAndProduct(const KernelArgs &args,
                                                  StringRef lhs, StringRef rhs,
                                                  int64_t rank,
                                                  StringRef expects) {
  FailureOr<Tensor> input = args.tensor("input"), a = args.tensor(lhs),
                    b = args.tensor(rhs);
  if (failed(input) || failed(a) || failed(b))
    return failure();
  if (rank && (a->rank() != rank || b->rank() != rank))
    return args.emitError() << expects;
  FailureOr<Tensor> prod = matmulTensors(args, *a, *b);
  if (failed(prod))
    return failure();
  return InputAndProduct{*input, *prod};
}

/// beta * input + alpha * product (addmm, baddbmm); beta = 0 ignores the
/// input entirely, NaNs included, as torch does.
static FailureOr<RtValue> scaledSum(const KernelArgs &args,
                                    const Tensor &input, const Tensor &prod) {
  FailureOr<double> beta = args.getFloat("beta"),
                    alpha = args.getFloat("alpha");
  if (failed(beta) || failed(alpha))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShape(input.shape(), prod.shape());
  if (failed(shape) || ArrayRef<int64_t>(*shape) != prod.shape())
    return args.emitError() << "'input' does not broadcast to the product's "
                               "shape";
  Tensor bias = broadcastTo(input.to(prod.dtype()), prod.shape());
  Tensor out(prod.dtype(), prod.shape());
  if (isIntegral(prod.dtype())) {
    // torch converts alpha and beta to the integer type (toward zero) and
    // computes with wrap-around.
    auto be = static_cast<uint64_t>(static_cast<int64_t>(std::trunc(*beta)));
    auto al = static_cast<uint64_t>(static_cast<int64_t>(std::trunc(*alpha)));
    for (int64_t i = 0; i < out.numel(); ++i)
      out.data<int64_t>()[i] = static_cast<int64_t>(
          be * static_cast<uint64_t>(bias.getInt(i)) +
          al * static_cast<uint64_t>(prod.getInt(i)));
    out.roundToDType();
    return RtValue(out);
  }
  for (int64_t i = 0; i < out.numel(); ++i) {
    double add = *beta == 0 ? 0 : *beta * bias.getDouble(i);
    out.setDouble(i, add + *alpha * prod.getDouble(i));
  }
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> matmul(const KernelArgs &args) {
  return namedProduct(args, "input", "other", ProductRanks(), "");
}

FailureOr<RtValue> bmm(const KernelArgs &args) {
  return namedProduct(args, "input", "mat2", {3, 3, /*sameFirstDim=*/true},
                      "bmm expects 3-D tensors with equal batches");
}

FailureOr<RtValue> mm(const KernelArgs &args) {
  return namedProduct(args, "input", "mat2", {2, 2}, "mm expects 2-D tensors");
}

/// F.bilinear: out[..., o] = x1[..., i] W[o, i, j] x2[..., j] + b[o].
FailureOr<RtValue> bilinear(const KernelArgs &args) {
  FailureOr<Tensor> x1 = args.tensor("input1"), x2 = args.tensor("input2"),
                    w = args.tensor("weight");
  if (failed(x1) || failed(x2) || failed(w))
    return failure();
  if (w->rank() != 3 || x1->rank() < 1 ||
      x1->shape().drop_back() != x2->shape().drop_back() ||
      x1->shape().back() != w->dim(1) || x2->shape().back() != w->dim(2))
    return args.emitError() << "expects inputs (*, in1) and (*, in2) and a "
                               "weight (out, in1, in2)";
  if (x1->dtype() != w->dtype() || x2->dtype() != w->dtype())
    return args.emitError() << "expects operands of one dtype";
  std::optional<Tensor> bias;
  if (!args.isNone("bias")) {
    FailureOr<Tensor> b = args.tensor("bias");
    if (failed(b))
      return failure();
    if (b->rank() != 1 || b->dim(0) != w->dim(0))
      return args.emitError() << "bias must have out_features elements";
    bias = *b;
  }
  int64_t outF = w->dim(0), in1 = w->dim(1), in2 = w->dim(2);
  int64_t rows = in1 ? x1->numel() / in1 : 0;
  SmallVector<int64_t> shape(x1->shape().drop_back());
  shape.push_back(outF);
  Tensor out(DType::F64, shape);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < outF; ++o) {
      double acc = bias ? bias->getDouble(o) : 0.0;
      for (int64_t i = 0; i < in1; ++i) {
        double a = x1->getDouble(r * in1 + i);
        for (int64_t j = 0; j < in2; ++j)
          acc += a * w->getDouble((o * in1 + i) * in2 + j) *
                 x2->getDouble(r * in2 + j);
      }
      out.data<double>()[r * outF + o] = acc;
    }
  return RtValue(out.to(w->dtype()));
}

namespace {
/// LU factorization with partial pivoting of one n x n matrix (row-major,
/// in place): the sign of the permutation; `singular` when a pivot is 0.
double luFactor(std::vector<double> &a, int64_t n, std::vector<int64_t> &perm,
                bool &singular) {
  double sign = 1;
  singular = false;
  perm.resize(n);
  for (int64_t i = 0; i < n; ++i)
    perm[i] = i;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > std::abs(a[p * n + k]))
        p = i;
    if (p != k) {
      for (int64_t j = 0; j < n; ++j)
        std::swap(a[k * n + j], a[p * n + j]);
      std::swap(perm[k], perm[p]);
      sign = -sign;
    }
    // A zero pivot (its column is zero below it, or NaN) scales nothing,
    // but the rows below still lose their multiple of the pivot row, as in
    // LAPACK's getf2: a NaN beside the zero column reaches the later
    // pivots, and the determinant, as in torch.
    double pivot = a[k * n + k];
    if (pivot == 0)
      singular = true;
    for (int64_t i = k + 1; i < n; ++i) {
      double f = pivot == 0 ? a[i * n + k] : (a[i * n + k] /= pivot);
      for (int64_t j = k + 1; j < n; ++j)
        a[i * n + j] -= f * a[k * n + j];
    }
  }
  return sign;
}
} // namespace

/// A (*, n, n) input: `batch` square matrices of size n.
struct SquareBatch {
  Tensor input;
  int64_t batch, n;
  /// Matrix b of `x` (the input in float64), row-major.
  std::vector<double> matrix(const Tensor &x, int64_t b) const {
    return std::vector<double>(x.data<double>() + b * n * n,
                               x.data<double>() + (b + 1) * n * n);
  }
};

/// The square matrices of the (*, n, n) input, or an error.
static FailureOr<SquareBatch> squareInput(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  const Tensor &a = *in;
  if (a.rank() < 2 || a.dim(a.rank() - 1) != a.dim(a.rank() - 2))
    return args.emitError() << "A must be batches of square matrices";
  if (!isFloatingPoint(a.dtype()))
    return args.emitError() << "expected a floating point tensor, got "
                            << dtypeName(a.dtype());
  int64_t n = a.dim(a.rank() - 1), batch = 1;
  for (int64_t d : a.shape().drop_back(2))
    batch *= d;
  return SquareBatch{a, batch, n}; // (0 x 0 matrices too: det 1)
}

/// linalg.det and linalg.slogdet (sign and log|det|), from LU in double.
static FailureOr<RtValue> determinant(const KernelArgs &args, bool logarithm) {
  FailureOr<SquareBatch> square = squareInput(args);
  if (failed(square))
    return failure();
  const Tensor &a = square->input;
  int64_t batch = square->batch, n = square->n;
  SmallVector<int64_t> shape(a.shape().drop_back(2));
  Tensor det(a.dtype(), shape), sign(a.dtype(), shape),
      logabs(a.dtype(), shape);
  Tensor x = a.to(DType::F64);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<double> m = square->matrix(x, b);
    std::vector<int64_t> perm;
    bool singular;
    double s = luFactor(m, n, perm, singular), d = s, logd = 0;
    // The pivots' product: 0 for a singular matrix, NaN where a NaN
    // reached a pivot; slogdet's sign is 0 for both (torch's).
    for (int64_t k = 0; k < n; ++k) {
      double u = m[k * n + k];
      d *= u;
      logd += std::log(std::abs(u));
      s *= (u > 0) - (u < 0);
    }
    det.setDouble(b, d);
    sign.setDouble(b, s);
    logabs.setDouble(b, logd);
  }
  det.roundToDType();
  sign.roundToDType();
  logabs.roundToDType();
  if (logarithm)
    return RtValue::ofList({RtValue(sign), RtValue(logabs)}, true);
  return RtValue(det);
}
FailureOr<RtValue> det(const KernelArgs &args) {
  return determinant(args, false);
}
FailureOr<RtValue> slogdet(const KernelArgs &args) {
  return determinant(args, true);
}
/// logdet: slogdet's log|det|, NaN where the sign is -1 (torch's).
FailureOr<RtValue> logdet(const KernelArgs &args) {
  FailureOr<RtValue> sl = determinant(args, true);
  if (failed(sl))
    return failure();
  const Tensor &sign = sl->list()->items[0].tensor();
  Tensor out = sl->list()->items[1].tensor();
  for (int64_t i = 0; i < out.numel(); ++i)
    if (sign.getDouble(i) == -1.0)
      out.setDouble(i, std::nan(""));
  return RtValue(out);
}

/// linalg.inv: LU with partial pivoting, one column of the identity at a
/// time; a singular matrix is an error, as in torch.
FailureOr<RtValue> inv(const KernelArgs &args) {
  FailureOr<SquareBatch> square = squareInput(args);
  if (failed(square))
    return failure();
  const Tensor &a = square->input;
  int64_t batch = square->batch, n = square->n;
  Tensor x = a.to(DType::F64), out(DType::F64, a.shape());
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<double> m = square->matrix(x, b);
    std::vector<int64_t> perm;
    bool singular;
    luFactor(m, n, perm, singular);
    if (singular)
      return args.emitError() << "linalg.inv: the input matrix is singular";
    double *o = out.data<double>() + b * n * n;
    for (int64_t c = 0; c < n; ++c) {
      // Solve L U y = P e_c.
      std::vector<double> y(n);
      for (int64_t i = 0; i < n; ++i) {
        double v = perm[i] == c ? 1.0 : 0.0;
        for (int64_t j = 0; j < i; ++j)
          v -= m[i * n + j] * y[j];
        y[i] = v;
      }
      for (int64_t i = n - 1; i >= 0; --i) {
        double v = y[i];
        for (int64_t j = i + 1; j < n; ++j)
          v -= m[i * n + j] * y[j];
        y[i] = v / m[i * n + i];
      }
      for (int64_t i = 0; i < n; ++i)
        o[i * n + c] = y[i];
    }
  }
  return RtValue(out.to(a.dtype()));
}

/// addbmm: beta * input + alpha * the sum over the batch of the products.
FailureOr<RtValue> addbmm(const KernelArgs &args) {
  FailureOr<InputAndProduct> ip = inputAndProduct(
      args, "batch1", "batch2", 3, "batch1 and batch2 must be 3-D");
  if (failed(ip))
    return failure();
  const Tensor &prod = ip->product;
  int64_t batch = prod.dim(0), n = prod.dim(1), p = prod.dim(2);
  Tensor sum(prod.dtype(), {n, p});
  dispatchStorage(prod.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t k = 0; k < batch; ++k)
      for (int64_t i = 0; i < n * p; ++i)
        sum.template data<T>()[i] += prod.template data<T>()[k * n * p + i];
    return 0;
  });
  sum.roundToDType();
  return scaledSum(args, ip->input, sum);
}

FailureOr<RtValue> baddbmm(const KernelArgs &args) {
  FailureOr<InputAndProduct> ip =
      inputAndProduct(args, "batch1", "batch2", 0, "");
  if (failed(ip))
    return failure();
  return scaledSum(args, ip->input, ip->product);
}


//===----------------------------------------------------------------------===//
// Factorizations over LAPACK, through the linear-algebra runtime that
// compiled code calls too (include/TracedIR/Runtime/LinalgRuntime.h).
//===----------------------------------------------------------------------===//

namespace {
/// A float32/float64 batch of (m, n) matrices, contiguous.
struct Matrices {
  Tensor t;
  SmallVector<int64_t> batchShape;
  int64_t batch, m, n;
  int code() const { return t.dtype() == DType::F32 ? 0 : 1; }
  const void *data() const {
    return t.dtype() == DType::F32 ? static_cast<const void *>(t.data<float>())
                                   : static_cast<const void *>(t.data<double>());
  }
};

void *rawData(Tensor &t) {
  return t.dtype() == DType::F32 ? static_cast<void *>(t.data<float>())
                                 : static_cast<void *>(t.data<double>());
}

/// The matrices of parameter `name` (a square batch with `square`).
FailureOr<Matrices> matrices(const KernelArgs &args, StringRef name,
                             bool square) {
  FailureOr<Tensor> in = args.tensor(name);
  if (failed(in))
    return failure();
  const Tensor &a = *in;
  if (a.rank() < 2)
    return args.emitError() << name << " must have at least 2 dimensions";
  if (square && a.dim(a.rank() - 1) != a.dim(a.rank() - 2))
    return args.emitError() << name << " must be batches of square matrices";
  if (a.dtype() != DType::F32 && a.dtype() != DType::F64)
    return args.emitError() << "expects float32 or float64 matrices (no "
                               "LAPACK kernel for "
                            << dtypeName(a.dtype()) << ")";
  Matrices r{a, SmallVector<int64_t>(a.shape().drop_back(2)), 1,
             a.dim(a.rank() - 2), a.dim(a.rank() - 1)};
  for (int64_t d : r.batchShape)
    r.batch *= d;
  return r;
}

SmallVector<int64_t> withTail(ArrayRef<int64_t> batch,
                              ArrayRef<int64_t> tail) {
  SmallVector<int64_t> shape(batch);
  shape.append(tail.begin(), tail.end());
  return shape;
}

/// An int32 tensor of `values`.
Tensor int32Tensor(ArrayRef<int64_t> shape, ArrayRef<int32_t> values) {
  Tensor t(DType::I32, shape);
  for (auto [i, v] : llvm::enumerate(values))
    t.setDouble(i, v);
  return t;
}

/// The (rows, cols) matrices of `t` transposed (a copy).
Tensor transposed(const Tensor &t) {
  int64_t r = t.rank(), rows = t.dim(r - 2), cols = t.dim(r - 1);
  SmallVector<int64_t> shape(t.shape());
  std::swap(shape[r - 2], shape[r - 1]);
  Tensor out(t.dtype(), shape);
  int64_t batch = rows * cols ? t.numel() / (rows * cols) : 0;
  dispatchStorage(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = t.template data<T>();
    T *dst = out.template data<T>();
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          dst[b * rows * cols + j * rows + i] = src[b * rows * cols + i * cols + j];
    return 0;
  });
  return out;
}

/// Torch's "(Batch element i): " prefix for the first failing matrix of a
/// batched input, "" for a single matrix.
std::string batchPrefix(const Matrices &a, ArrayRef<int32_t> info) {
  if (a.batchShape.empty())
    return "";
  for (auto [i, v] : llvm::enumerate(info))
    if (v != 0)
      return "(Batch element " + std::to_string(i) + "): ";
  return "";
}

bool anyNonzero(ArrayRef<int32_t> info) {
  return llvm::any_of(info, [](int32_t v) { return v != 0; });
}

int32_t firstNonzero(ArrayRef<int32_t> info) {
  for (int32_t v : info)
    if (v != 0)
      return v;
  return 0;
}

/// The matrices of `A` (the torch.linalg spellings) or else of `input`.
FailureOr<Matrices> matricesOf(const KernelArgs &args, bool square) {
  return matrices(args, args.has("A") ? "A" : "input", square);
}

/// Torch's error for a runtime call whose `info` has a nonzero entry:
/// "<api>: ", the "(Batch element i): " prefix, then `message` given the
/// first nonzero info. Success when every info is 0.
LogicalResult infoError(const KernelArgs &args, const Matrices &a,
                        ArrayRef<int32_t> info, StringRef api,
                        function_ref<void(InFlightDiagnostic &, int32_t)>
                            message) {
  if (!anyNonzero(info))
    return success();
  InFlightDiagnostic d = args.emitError();
  d << api << ": " << batchPrefix(a, info);
  message(d, firstNonzero(info));
  return failure();
}

/// The matrices of `a` and of `b` (*, r, c), broadcast to their common
/// batch, which holds `count` matrices; an error naming `what` (the pair)
/// when the batches do not broadcast.
struct MatrixPair {
  Tensor a, b;
  SmallVector<int64_t> batch;
  int64_t count = 1;
};
FailureOr<MatrixPair> broadcastPair(const KernelArgs &args, const Matrices &a,
                                    const Tensor &b, StringRef what) {
  FailureOr<SmallVector<int64_t>> bc =
      broadcastShape(a.batchShape, b.shape().drop_back(2));
  if (failed(bc))
    return args.emitError() << "the batch dims of " << what
                            << " do not broadcast";
  MatrixPair p{broadcastTo(a.t, withTail(*bc, a.t.shape().take_back(2))),
               broadcastTo(b, withTail(*bc, b.shape().take_back(2))), *bc, 1};
  for (int64_t d : p.batch)
    p.count *= d;
  return p;
}

/// lstsq's results as torch 1.13 shapes them (linalg_lstsq_out_info): the
/// residuals for m > n and a driver other than gelsy (gelsd and gelss:
/// only when every matrix has rank n), else empty; no ranks for gels,
/// singular values for gelsd and gelss only; a vector B's solution a
/// vector.
RtValue lstsqResults(Tensor x, const Tensor &res, const Tensor &s,
                     const Tensor &rank, int64_t driver, int64_t m, int64_t n,
                     bool vector) {
  bool residuals = m > n && driver != 1;
  if (residuals && driver >= 2)
    for (int64_t i = 0; i < rank.numel(); ++i)
      residuals &= rank.getInt(i) == n;
  if (vector)
    x = x.reshaped(x.shape().drop_back());
  DType dt = x.dtype();
  return RtValue::ofList(
      {RtValue(x), RtValue(residuals ? res : Tensor(dt, {0})),
       RtValue(driver == 0 ? Tensor(DType::I64, {0}) : rank),
       RtValue(driver >= 2 ? s : Tensor(dt, {0}))},
      true);
}

/// The LU factors of `a` (getrf) and their int32 pivots and infos.
struct LuFactors {
  Tensor lu;
  std::vector<int32_t> pivots, info;
};
LuFactors luFactors(const Matrices &a) {
  LuFactors f{Tensor(a.t.dtype(), a.t.shape()), {}, {}};
  int64_t k = std::min(a.m, a.n);
  f.pivots.resize(a.batch * k);
  f.info.resize(a.batch);
  traced_linalg_lu_factor(a.code(), a.data(), rawData(f.lu), f.pivots.data(),
                          f.info.data(), a.batch, a.m, a.n);
  return f;
}

/// X with A X = B (`left`) or X A = B from A's LU factors, over the
/// broadcast batch `batch` of A (`aBatch`) and B ((*, n, k) or (*, k, n)).
Tensor luSolve(const LuFactors &f, const Matrices &a, Tensor b,
               ArrayRef<int64_t> batch, bool left, bool adjoint) {
  int64_t n = a.n, count = 1;
  for (int64_t d : batch)
    count *= d;
  // The factors broadcast to the batch (pivots as an int tensor).
  Tensor lu = broadcastTo(f.lu, withTail(batch, {n, n}));
  Tensor piv = broadcastTo(
      int32Tensor(withTail(a.batchShape, {n}), f.pivots), withTail(batch, {n}));
  std::vector<int32_t> pivots(piv.numel());
  for (int64_t i = 0; i < piv.numel(); ++i)
    pivots[i] = static_cast<int32_t>(piv.getInt(i));
  b = broadcastTo(b, withTail(batch, b.shape().take_back(2)));
  // X A = B is A^T X^T = B^T.
  if (!left)
    b = transposed(b);
  int64_t k = b.dim(b.rank() - 1);
  Tensor x(b.dtype(), b.shape());
  traced_linalg_lu_solve(a.code(), rawData(lu), pivots.data(), rawData(b),
                         rawData(x), count, n, k, left ? adjoint : !adjoint);
  return left ? x : transposed(x);
}
} // namespace

/// linalg.cholesky, linalg.cholesky_ex and torch.cholesky: potrf.
FailureOr<RtValue> cholesky(const KernelArgs &args) {
  FailureOr<Matrices> a = matricesOf(args, true);
  FailureOr<bool> upper = args.getBool("upper");
  if (failed(a) || failed(upper))
    return failure();
  bool ex = args.has("check_errors");
  Tensor out(a->t.dtype(), a->t.shape());
  std::vector<int32_t> info(a->batch);
  traced_linalg_cholesky(a->code(), a->data(), rawData(out), info.data(),
                         a->batch, a->n, *upper);
  bool check = !ex || *args.getBool("check_errors");
  if (check && failed(infoError(args, *a, info, "linalg.cholesky",
                                [](InFlightDiagnostic &d, int32_t i) {
                                  d << "The factorization could not be "
                                       "completed because the input is not "
                                       "positive-definite (the leading minor "
                                       "of order "
                                    << i << " is not positive-definite).";
                                })))
    return failure();
  if (!ex)
    return RtValue(out);
  return RtValue::ofList(
      {RtValue(out), RtValue(int32Tensor(a->batchShape, info))}, true);
}

/// linalg.lu_factor and linalg.lu_factor_ex: getrf.
FailureOr<RtValue> luFactorKernel(const KernelArgs &args) {
  FailureOr<Matrices> a = matrices(args, "A", false);
  FailureOr<bool> pivot = args.getBool("pivot");
  if (failed(a) || failed(pivot))
    return failure();
  if (!*pivot)
    return args.emitError() << "LU without pivoting is not implemented on the "
                               "CPU (pivot must be True)";
  bool ex = args.has("check_errors");
  LuFactors f = luFactors(*a);
  bool check = !ex || *args.getBool("check_errors");
  if (check && failed(infoError(args, *a, f.info, "torch.linalg.lu_factor",
                                [](InFlightDiagnostic &d, int32_t i) {
                                  d << "U[" << i << "," << i
                                    << "] is zero and using it on lu_solve "
                                       "would result in a division by zero.";
                                })))
    return failure();
  int64_t k = std::min(a->m, a->n);
  std::vector<RtValue> items = {
      RtValue(f.lu),
      RtValue(int32Tensor(withTail(a->batchShape, {k}), f.pivots))};
  if (ex)
    items.push_back(RtValue(int32Tensor(a->batchShape, f.info)));
  return RtValue::ofList(std::move(items), true);
}

/// linalg.solve, linalg.solve_ex and linalg.inv_ex: getrf, then getrs.
FailureOr<RtValue> solve(const KernelArgs &args) {
  FailureOr<Matrices> a = matrices(args, "A", true);
  if (failed(a))
    return failure();
  bool inverse = !args.has("B");
  Tensor b;
  bool vector = false, left = true;
  if (inverse) {
    b = Tensor(a->t.dtype(), {a->n, a->n});
    for (int64_t i = 0; i < a->n; ++i)
      b.setDouble(i * a->n + i, 1.0);
  } else {
    FailureOr<Tensor> bt = args.tensor("B");
    FailureOr<bool> l = args.getBool("left");
    if (failed(bt) || failed(l))
      return failure();
    b = *bt;
    left = *l;
    vector = solveTakesVector(a->t.shape(), b.shape());
    if (vector && !left)
      return args.emitError() << "vector broadcasting of the left hand side "
                                 "is not supported for left=False";
    if (vector)
      b = b.reshaped(withTail(b.shape(), {1}));
    if (b.rank() < 2 || b.dtype() != a->t.dtype() ||
        b.dim(b.rank() - (left ? 2 : 1)) != a->n)
      return args.emitError() << "A and B have incompatible shapes or dtypes";
  }
  FailureOr<SmallVector<int64_t>> bc =
      broadcastShape(a->batchShape, b.shape().drop_back(2));
  if (failed(bc))
    return args.emitError() << "the batch dims of A and B do not broadcast";
  SmallVector<int64_t> batch = *bc;
  LuFactors f = luFactors(*a);
  bool ex = args.has("check_errors");
  bool check = !ex || *args.getBool("check_errors");
  if (check &&
      failed(infoError(args, *a, f.info,
                       inverse ? "linalg.inv_ex" : "torch.linalg.solve",
                       [&](InFlightDiagnostic &d, int32_t i) {
                         if (inverse)
                           d << "The diagonal element " << i
                             << " is zero, the inversion could not be "
                                "completed because the input matrix is "
                                "singular.";
                         else
                           d << "The solver failed because the input matrix "
                                "is singular.";
                       })))
    return failure();
  Tensor x = luSolve(f, *a, b, batch, left, false);
  if (vector)
    x = x.reshaped(x.shape().drop_back());
  if (!ex)
    return RtValue(x);
  return RtValue::ofList(
      {RtValue(x), RtValue(int32Tensor(a->batchShape, f.info))}, true);
}

/// linalg.lu_solve and torch.lu_solve: getrs from given LU factors.
FailureOr<RtValue> luSolveKernel(const KernelArgs &args) {
  bool linalg = args.has("B");
  FailureOr<Matrices> a = matrices(args, linalg ? "LU" : "LU_data", true);
  FailureOr<Tensor> pivots = args.tensor(linalg ? "pivots" : "LU_pivots");
  FailureOr<Tensor> bt = args.tensor(linalg ? "B" : "input");
  if (failed(a) || failed(pivots) || failed(bt))
    return failure();
  bool left = linalg ? *args.getBool("left") : true;
  bool adjoint = linalg ? *args.getBool("adjoint") : false;
  Tensor b = *bt;
  int64_t n = a->n;
  if (b.rank() < 2 || b.dtype() != a->t.dtype() ||
      b.dim(b.rank() - (left ? 2 : 1)) != n)
    return args.emitError() << "LU and B have incompatible shapes or dtypes";
  if (pivots->numel() != a->batch * n)
    return args.emitError() << "expects pivots of shape (*, " << n
                            << ") matching LU";
  FailureOr<SmallVector<int64_t>> bc =
      broadcastShape(a->batchShape, b.shape().drop_back(2));
  if (failed(bc))
    return args.emitError() << "the batch dims of LU and B do not broadcast";
  LuFactors f{a->t, std::vector<int32_t>(pivots->numel()), {}};
  for (int64_t i = 0; i < pivots->numel(); ++i) {
    int64_t p = pivots->getInt(i);
    if (p < 1 || p > n)
      return args.emitError() << "pivots must be 1-based row indices in [1, "
                              << n << "], got " << p;
    f.pivots[i] = static_cast<int32_t>(p);
  }
  return RtValue(luSolve(f, *a, b, *bc, left, adjoint));
}

/// cholesky_solve: potrs.
FailureOr<RtValue> choleskySolve(const KernelArgs &args) {
  FailureOr<Matrices> a = matrices(args, "input2", true);
  FailureOr<Tensor> bt = args.tensor("input");
  FailureOr<bool> upper = args.getBool("upper");
  if (failed(a) || failed(bt) || failed(upper))
    return failure();
  const Tensor &b = *bt;
  if (b.rank() < 2 || b.dtype() != a->t.dtype() ||
      b.dim(b.rank() - 2) != a->n)
    return args.emitError() << "B and A have incompatible shapes or dtypes";
  FailureOr<MatrixPair> p = broadcastPair(args, *a, b, "B and A");
  if (failed(p))
    return failure();
  Tensor x(b.dtype(), p->b.shape());
  traced_linalg_cholesky_solve(a->code(), rawData(p->a), rawData(p->b),
                               rawData(x), p->count, a->n,
                               b.dim(b.rank() - 1), *upper);
  return RtValue(x);
}

/// cholesky_inverse: potri.
FailureOr<RtValue> choleskyInverse(const KernelArgs &args) {
  FailureOr<Matrices> a = matrices(args, "input", true);
  FailureOr<bool> upper = args.getBool("upper");
  if (failed(a) || failed(upper))
    return failure();
  Tensor out(a->t.dtype(), a->t.shape());
  std::vector<int32_t> info(a->batch);
  traced_linalg_cholesky_inverse(a->code(), a->data(), rawData(out),
                                 info.data(), a->batch, a->n, *upper);
  if (failed(infoError(args, *a, info, "cholesky_inverse",
                       [](InFlightDiagnostic &d, int32_t i) {
                         d << "The diagonal element " << i
                           << " is zero, the inversion could not be completed "
                              "because the input matrix is singular.";
                       })))
    return failure();
  return RtValue(out);
}

/// P, L and U of LU factors (lu_unpack) or of A (linalg.lu: getrf first).
FailureOr<RtValue> luUnpackKernel(const KernelArgs &args) {
  bool unpack = args.has("LU_data");
  FailureOr<Matrices> a = matrices(args, unpack ? "LU_data" : "A", false);
  if (failed(a))
    return failure();
  int64_t m = a->m, n = a->n, k = std::min(m, n);
  bool data = true, permutation = true;
  LuFactors f;
  if (unpack) {
    FailureOr<Tensor> pivots = args.tensor("LU_pivots");
    FailureOr<bool> d = args.getBool("unpack_data"),
                    p = args.getBool("unpack_pivots");
    if (failed(pivots) || failed(d) || failed(p))
      return failure();
    if (pivots->dtype() != DType::I32 || pivots->numel() != a->batch * k)
      return args.emitError() << "LU_pivots must be int32 of shape (*, " << k
                              << ") matching LU_data";
    data = *d;
    permutation = *p;
    f.lu = a->t;
    f.pivots.resize(pivots->numel());
    for (int64_t i = 0; i < pivots->numel(); ++i)
      f.pivots[i] = static_cast<int32_t>(pivots->getInt(i));
  } else {
    FailureOr<bool> pivot = args.getBool("pivot");
    if (failed(pivot))
      return failure();
    if (!*pivot)
      return args.emitError() << "LU without pivoting is not implemented on "
                                 "the CPU (pivot must be True)";
    f = luFactors(*a);
  }
  DType dt = a->t.dtype();
  Tensor p(dt, permutation ? withTail(a->batchShape, {m, m})
                           : SmallVector<int64_t>{0}),
      l(dt, data ? withTail(a->batchShape, {m, k}) : SmallVector<int64_t>{0}),
      u(dt, data ? withTail(a->batchShape, {k, n}) : SmallVector<int64_t>{0});
  if (traced_linalg_lu_unpack(a->code(), rawData(f.lu), f.pivots.data(),
                              rawData(p), rawData(l), rawData(u), a->batch, m,
                              n, data, permutation) != 0)
    return args.emitError() << "lu_unpack: a pivot is out of range [1, " << m
                            << "]";
  return RtValue::ofList({RtValue(p), RtValue(l), RtValue(u)}, true);
}

/// torch.lu: getrf, with the infos when get_infos (never an error for a
/// singular matrix, as in torch).
FailureOr<RtValue> luWithInfo(const KernelArgs &args) {
  FailureOr<Matrices> a = matrices(args, "A", false);
  FailureOr<bool> pivot = args.getBool("pivot"),
                  infos = args.getBool("get_infos");
  if (failed(a) || failed(pivot) || failed(infos))
    return failure();
  if (!*pivot)
    return args.emitError() << "LU without pivoting is not implemented on the "
                               "CPU (pivot must be True)";
  LuFactors f = luFactors(*a);
  int64_t k = std::min(a->m, a->n);
  std::vector<RtValue> items = {
      RtValue(f.lu),
      RtValue(int32Tensor(withTail(a->batchShape, {k}), f.pivots))};
  if (*infos)
    items.push_back(RtValue(int32Tensor(a->batchShape, f.info)));
  return RtValue::ofList(std::move(items), true);
}

/// geqrf, linalg.householder_product (orgqr) and ormqr.
FailureOr<RtValue> householderKernel(const KernelArgs &args) {
  bool product = args.has("tau");
  FailureOr<Matrices> a = matrices(args, product ? "A" : "input", false);
  if (failed(a))
    return failure();
  int64_t m = a->m, n = a->n;
  DType dt = a->t.dtype();
  if (!product && !args.has("input2")) { // geqrf
    int64_t k = std::min(m, n);
    Tensor out(dt, a->t.shape()), tau(dt, withTail(a->batchShape, {k}));
    traced_linalg_geqrf(a->code(), a->data(), rawData(out), rawData(tau),
                        a->batch, m, n);
    return RtValue::ofList({RtValue(out), RtValue(tau)}, true);
  }
  FailureOr<Tensor> tau = args.tensor(product ? "tau" : "input2");
  if (failed(tau))
    return failure();
  if (tau->dtype() != dt || tau->rank() != a->t.rank() - 1 ||
      tau->shape().drop_back() != ArrayRef<int64_t>(a->batchShape))
    return args.emitError() << "tau must hold one vector per matrix, in the "
                               "matrices' dtype";
  int64_t k = tau->dim(tau->rank() - 1);
  Tensor tauT = *tau;
  if (product) {
    if (m < n || n < k)
      return args.emitError() << "expects input.shape[-2] >= "
                                 "input.shape[-1] >= tau.shape[-1]";
    Tensor out(dt, a->t.shape());
    traced_linalg_householder_product(a->code(), a->data(), rawData(tauT),
                                      rawData(out), a->batch, m, n, k);
    return RtValue(out);
  }
  FailureOr<Tensor> c = args.tensor("input3");
  FailureOr<bool> left = args.getBool("left"),
                  transpose = args.getBool("transpose");
  if (failed(c) || failed(left) || failed(transpose))
    return failure();
  Tensor cm = *c;
  if (cm.dtype() != dt || cm.rank() != a->t.rank() ||
      cm.shape().drop_back(2) != ArrayRef<int64_t>(a->batchShape) ||
      cm.dim(cm.rank() - (*left ? 2 : 1)) != m || k > n || k > m)
    return args.emitError() << "the reflectors, tau and the matrix do not fit";
  Tensor out(dt, cm.shape());
  traced_linalg_ormqr(a->code(), a->data(), rawData(tauT), rawData(cm),
                      rawData(out), a->batch, cm.dim(cm.rank() - 2),
                      cm.dim(cm.rank() - 1), k, *left, *transpose);
  return RtValue(out);
}

/// The singular values of each matrix of `a` (gesdd), or the absolute
/// eigenvalues (syevd) with `hermitian`, as a (batch, k) tensor.
static FailureOr<Tensor> spectrum(const KernelArgs &args, const Matrices &a,
                                  bool hermitian) {
  int64_t k = hermitian ? a.n : std::min(a.m, a.n);
  Tensor s(a.t.dtype(), withTail(a.batchShape, {k}));
  std::vector<int32_t> info(a.batch);
  int32_t status =
      hermitian ? traced_linalg_eigh(a.code(), a.data(), rawData(s), nullptr,
                                     info.data(), a.batch, a.n, 0, 0)
                : traced_linalg_svd(a.code(), a.data(), nullptr, rawData(s),
                                    nullptr, info.data(), a.batch, a.m, a.n,
                                    0, 0);
  if (status != 0)
    return args.emitError() << "the singular values did not converge";
  if (hermitian)
    for (int64_t i = 0; i < s.numel(); ++i)
      s.setDouble(i, std::abs(s.getDouble(i)));
  return s;
}

/// linalg.matrix_rank: the singular values above max(atol, rtol * the
/// largest), rtol eps * max(m, n) by default (0 where atol > 0 is given).
FailureOr<RtValue> matrixRank(const KernelArgs &args) {
  FailureOr<bool> hermitian = args.getBool("hermitian");
  if (failed(hermitian))
    return failure();
  FailureOr<Matrices> a = matrices(args, "A", *hermitian);
  if (failed(a))
    return failure();
  Tensor rank(DType::I64, a->batchShape);
  if (a->m == 0 || a->n == 0)
    return RtValue(rank);
  FailureOr<Tensor> s = spectrum(args, *a, *hermitian);
  if (failed(s))
    return failure();
  bool f32 = a->t.dtype() == DType::F32;
  double atol = args.isNone("atol") ? 0.0 : *args.getFloat("atol");
  double eps = f32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
  double rtol = !args.isNone("rtol")  ? *args.getFloat("rtol")
                : !args.isNone("atol") && atol > 0 ? 0.0
                                                   : eps * std::max(a->m, a->n);
  int64_t k = s->dim(s->rank() - 1);
  for (int64_t b = 0; b < a->batch; ++b) {
    double largest = -INFINITY;
    for (int64_t i = 0; i < k; ++i)
      largest = std::max(largest, s->getDouble(b * k + i));
    // (The product in the matrices' dtype, as torch's.)
    double tol = f32 ? double(float(rtol) * float(largest)) : rtol * largest;
    tol = std::max(atol, tol);
    int64_t count = 0;
    for (int64_t i = 0; i < k; ++i)
      count += s->getDouble(b * k + i) > tol;
    rank.setDouble(b, count);
  }
  return RtValue(rank);
}

/// linalg.cond for p None, 2 and -2: the largest singular value over the
/// smallest (or the inverse).
FailureOr<RtValue> cond(const KernelArgs &args) {
  FailureOr<Matrices> a = matrices(args, "A", false);
  if (failed(a))
    return failure();
  bool inverse = false;
  if (!args.isNone("p")) {
    FailureOr<int64_t> p = args.getInt("p");
    if (failed(p) || (*p != 2 && *p != -2))
      return args.emitError() << "only the orders None, 2 and -2 (singular "
                                 "values) are supported";
    inverse = *p == -2;
  }
  Tensor out(a->t.dtype(), a->batchShape);
  if (std::min(a->m, a->n) == 0)
    return RtValue(out);
  FailureOr<Tensor> s = spectrum(args, *a, false);
  if (failed(s))
    return failure();
  int64_t k = s->dim(s->rank() - 1);
  dispatchStorage(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *sv = s->template data<T>();
    for (int64_t b = 0; b < a->batch; ++b) {
      T hi = sv[b * k], lo = sv[b * k + k - 1];
      out.template data<T>()[b] = inverse ? lo / hi : hi / lo;
    }
    return 0;
  });
  return RtValue(out);
}

/// linalg.pinv and pinverse, as torch 1.13 computes them: from the reduced
/// SVD (or eigh with `hermitian`), the reciprocals of the singular values
/// above max(atol, rtol * the largest), then V diag(1/S) U^T.
FailureOr<RtValue> pinv(const KernelArgs &args) {
  FailureOr<Matrices> a = matricesOf(args, false);
  if (failed(a))
    return failure();
  bool old = args.has("input");
  bool hermitian = !old && *args.getBool("hermitian");
  if (hermitian && a->m != a->n)
    return args.emitError() << "A must be batches of square matrices";
  int64_t m = a->m, n = a->n;
  DType dt = a->t.dtype();
  Tensor out(dt, withTail(a->batchShape, {n, m}));
  if (out.numel() == 0)
    return RtValue(out);
  bool f32 = dt == DType::F32;
  double atol = 0, rtol = (f32 ? 1.1920928955078125e-07 : 2.220446049250313e-16) *
                          std::max(m, n);
  if (old) {
    rtol = *args.getFloat("rcond");
  } else if (!args.isNone("rcond")) {
    rtol = *args.getFloat("rcond");
  } else {
    if (!args.isNone("atol"))
      atol = *args.getFloat("atol");
    if (!args.isNone("rtol"))
      rtol = *args.getFloat("rtol");
    else if (!args.isNone("atol") && atol > 0)
      rtol = 0;
  }
  int64_t k = hermitian ? n : std::min(m, n);
  // U (m, k), S (k), V^T (k, n); for hermitian, U = V the eigenvectors.
  Tensor u(dt, withTail(a->batchShape, {m, k})), s(dt, withTail(a->batchShape, {k})),
      vh(dt, withTail(a->batchShape, {k, n}));
  std::vector<int32_t> info(a->batch);
  int32_t status =
      hermitian
          ? traced_linalg_eigh(a->code(), a->data(), rawData(s), rawData(u),
                               info.data(), a->batch, n, 0, 1)
          : traced_linalg_svd(a->code(), a->data(), rawData(u), rawData(s),
                              rawData(vh), info.data(), a->batch, m, n, 0, 1);
  if (status != 0)
    return args.emitError() << "the decomposition did not converge";
  if (hermitian)
    vh = transposed(u);
  dispatchStorage(dt, [&](auto tag) {
    using T = decltype(tag);
    const T *ud = u.template data<T>(), *sd = s.template data<T>(),
            *vd = vh.template data<T>();
    T *o = out.template data<T>();
    std::vector<T> sinv(k);
    for (int64_t b = 0; b < a->batch; ++b) {
      const T *sb = sd + b * k;
      // (Descending singular values; eigenvalues by their magnitude.)
      auto size = [&](T v) { return hermitian && v < T(0) ? T(-v) : v; };
      T largest = size(sb[0]);
      for (int64_t i = 1; i < k; ++i)
        largest = std::max(largest, size(sb[i]));
      T tol = std::max(T(atol), T(T(rtol) * largest));
      for (int64_t i = 0; i < k; ++i)
        sinv[i] = size(sb[i]) > tol ? T(1) / sb[i] : T(0);
      // out[j][i] = sum_l V[j][l] sinv[l] U[i][l] (V = Vh^T).
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
          T acc = 0;
          for (int64_t l = 0; l < k; ++l)
            acc += vd[b * k * n + l * n + j] * sinv[l] * ud[b * m * k + i * k + l];
          o[b * n * m + j * m + i] = acc;
        }
    }
    return 0;
  });
  return RtValue(out);
}

/// linalg.qr and torch.qr: geqrf, then orgqr.
FailureOr<RtValue> qr(const KernelArgs &args) {
  FailureOr<Matrices> a = matricesOf(args, false);
  if (failed(a))
    return failure();
  bool linalg = args.has("A");
  std::string mode = "reduced";
  if (linalg) {
    FailureOr<std::string> s = args.getStr("mode");
    if (failed(s))
      return failure();
    mode = *s;
  } else {
    FailureOr<bool> some = args.getBool("some");
    if (failed(some))
      return failure();
    mode = *some ? "reduced" : "complete";
  }
  int64_t code = mode == "reduced" ? 0 : mode == "complete" ? 1 : mode == "r" ? 2 : -1;
  if (code < 0)
    return args.emitError() << "qr received unrecognized mode '" << mode
                            << "' but expected one of 'reduced' (default), "
                               "'r', or 'complete'";
  int64_t m = a->m, n = a->n, k = std::min(m, n), rows = code == 1 ? m : k;
  Tensor q(a->t.dtype(), code == 2 ? SmallVector<int64_t>{0}
                                   : withTail(a->batchShape, {m, rows}));
  Tensor r(a->t.dtype(), withTail(a->batchShape, {rows, n}));
  traced_linalg_qr(a->code(), a->data(), rawData(q), rawData(r), a->batch, m,
                   n, code);
  return RtValue::ofList({RtValue(q), RtValue(r)}, true);
}

/// linalg.svd, torch.svd and linalg.svdvals: gesdd.
FailureOr<RtValue> svd(const KernelArgs &args) {
  FailureOr<Matrices> a = matricesOf(args, false);
  if (failed(a))
    return failure();
  bool linalg = args.has("A");
  bool vals = !args.has("full_matrices") && !args.has("some");
  bool full = true, uv = !vals, old = !linalg;
  if (args.has("full_matrices"))
    full = *args.getBool("full_matrices");
  if (old) {
    uv = *args.getBool("compute_uv");
    full = !*args.getBool("some");
  }
  int64_t m = a->m, n = a->n, k = std::min(m, n);
  DType dt = a->t.dtype();
  Tensor u(dt, withTail(a->batchShape, {m, full ? m : k})),
      s(dt, withTail(a->batchShape, {k})),
      vh(dt, withTail(a->batchShape, {full ? n : k, n}));
  std::vector<int32_t> info(a->batch);
  traced_linalg_svd(a->code(), a->data(), rawData(u), rawData(s), rawData(vh),
                    info.data(), a->batch, m, n, full, uv);
  if (failed(infoError(args, *a, info, "linalg.svd",
                       [](InFlightDiagnostic &d, int32_t i) {
                         d << "The algorithm failed to converge because the "
                              "input matrix is ill-conditioned or has too "
                              "many repeated singular values (error code: "
                           << i << ").";
                       })))
    return failure();
  if (vals)
    return RtValue(s);
  if (!old)
    return RtValue::ofList({RtValue(u), RtValue(s), RtValue(vh)}, true);
  if (!uv) // zero-filled U (m, m) and V (n, n)
    return RtValue::ofList(
        {RtValue(Tensor(dt, withTail(a->batchShape, {m, m}))), RtValue(s),
         RtValue(Tensor(dt, withTail(a->batchShape, {n, n})))},
        true);
  return RtValue::ofList({RtValue(u), RtValue(s), RtValue(transposed(vh))},
                         true);
}

/// linalg.eigh and linalg.eigvalsh: syevd.
static FailureOr<RtValue> symmetricEigen(const KernelArgs &args, bool vectors) {
  bool symeig = args.has("eigenvectors");
  FailureOr<Matrices> a = matrices(args, symeig ? "input" : "A", true);
  FailureOr<std::string> uplo =
      symeig ? FailureOr<std::string>(
                   std::string(*args.getBool("upper") ? "U" : "L"))
             : args.getStr("UPLO");
  if (failed(a) || failed(uplo))
    return failure();
  if (symeig)
    vectors = *args.getBool("eigenvectors");
  if (*uplo != "L" && *uplo != "U")
    return args.emitError() << "Expected UPLO argument to be 'L' or 'U', but "
                               "got "
                            << *uplo;
  int64_t n = a->n;
  Tensor w(a->t.dtype(), withTail(a->batchShape, {n})),
      v(a->t.dtype(), a->t.shape());
  std::vector<int32_t> info(a->batch);
  traced_linalg_eigh(a->code(), a->data(), rawData(w), rawData(v), info.data(),
                     a->batch, n, *uplo == "U", vectors);
  if (failed(infoError(args, *a, info, "linalg.eigh",
                       [](InFlightDiagnostic &d, int32_t i) {
                         d << "The algorithm failed to converge because the "
                              "input matrix is ill-conditioned or has too "
                              "many repeated eigenvalues (error code: "
                           << i << ").";
                       })))
    return failure();
  if (symeig)
    return RtValue::ofList(
        {RtValue(w), RtValue(vectors ? v : Tensor(a->t.dtype(), {0}))}, true);
  if (!vectors)
    return RtValue(w);
  return RtValue::ofList({RtValue(w), RtValue(v)}, true);
}
FailureOr<RtValue> eigh(const KernelArgs &args) {
  return symmetricEigen(args, true);
}
FailureOr<RtValue> eigvalsh(const KernelArgs &args) {
  return symmetricEigen(args, false);
}

/// linalg.solve_triangular and torch.triangular_solve: trsm.
FailureOr<RtValue> triangularSolve(const KernelArgs &args) {
  bool linalg = args.has("B");
  FailureOr<Matrices> a = matrices(args, "A", true);
  FailureOr<Tensor> bt = args.tensor(linalg ? "B" : "input");
  FailureOr<bool> upper = args.getBool("upper"),
                  unit = args.getBool("unitriangular");
  if (failed(a) || failed(bt) || failed(upper) || failed(unit))
    return failure();
  bool left = linalg ? *args.getBool("left") : true;
  bool transpose = linalg ? false : *args.getBool("transpose");
  // (solve_triangular computes B in A's dtype; triangular_solve refuses
  // another dtype, as torch does.)
  Tensor b = linalg ? bt->to(a->t.dtype()) : *bt;
  if (b.rank() < 2 || b.dtype() != a->t.dtype() ||
      b.dim(b.rank() - (left ? 2 : 1)) != a->n)
    return args.emitError() << "A and B have incompatible shapes or dtypes";
  FailureOr<MatrixPair> p = broadcastPair(args, *a, b, "A and B");
  if (failed(p))
    return failure();
  int64_t m = b.dim(b.rank() - 2), n = b.dim(b.rank() - 1);
  Tensor x(b.dtype(), p->b.shape());
  traced_linalg_triangular_solve(a->code(), rawData(p->a), rawData(p->b),
                                 rawData(x), p->count, m, n, left, *upper,
                                 transpose, *unit);
  if (linalg)
    return RtValue(x);
  return RtValue::ofList({RtValue(x), RtValue(p->a)}, true);
}

/// linalg.tensorinv and linalg.tensorsolve, as torch 1.13: one square
/// matrix (decodeTensorInverse), then inv_ex (checked) or solve.
FailureOr<RtValue> tensorInverseKernel(const KernelArgs &args) {
  bool solve = args.has("B");
  FailureOr<Tensor> a = args.tensor("A");
  if (failed(a))
    return failure();
  Tensor b;
  int64_t ind = 0;
  std::optional<SmallVector<int64_t>> dims;
  if (solve) {
    FailureOr<Tensor> bt = args.tensor("B");
    if (failed(bt))
      return failure();
    b = *bt;
    if (!args.isNone("dims")) {
      FailureOr<SmallVector<int64_t>> d = args.getInts("dims");
      if (failed(d))
        return failure();
      dims = *d;
    }
  } else {
    FailureOr<int64_t> i = args.getInt("ind");
    if (failed(i))
      return failure();
    ind = *i;
  }
  std::string error;
  std::optional<TensorInverse> d = decodeTensorInverse(
      a->shape(), ind,
      solve ? std::optional<ArrayRef<int64_t>>(b.shape()) : std::nullopt,
      dims ? std::optional<ArrayRef<int64_t>>(*dims) : std::nullopt, error);
  if (!d)
    return args.emitError() << error;
  FailureOr<Tensor> perm = callTensor(
      args, "torch.permute", {{"input", RtValue(*a)}, {"dims", intsValue(d->perm)}});
  if (failed(perm))
    return failure();
  Tensor matrix = perm->reshaped({d->size, d->size});
  FailureOr<Tensor> x =
      solve ? callTensor(args, "torch.linalg.solve",
                         {{"A", RtValue(matrix)},
                          {"B", RtValue(b.reshaped({d->size}))}})
            : FailureOr<Tensor>(Tensor());
  if (!solve) {
    FailureOr<RtValue> r =
        callEntry(args, "torch.linalg.inv_ex",
                  {{"A", RtValue(matrix)}, {"check_errors", RtValue::ofBool(true)}});
    if (failed(r))
      return failure();
    x = r->list()->items[0].tensor();
  }
  if (failed(x))
    return failure();
  return RtValue(x->reshaped(d->resultShape));
}

/// The driver of linalg.lstsq: 0 gels, 1 gelsy (the default), 2 gelsd, 3
/// gelss; -1 for another name.
int64_t lstsqDriver(const KernelArgs &args) {
  if (args.isNone("driver"))
    return 1;
  FailureOr<std::string> s = args.getStr("driver");
  if (failed(s))
    return -1;
  const char *names[] = {"gels", "gelsy", "gelsd", "gelss"};
  for (int64_t i = 0; i < 4; ++i)
    if (*s == names[i])
      return i;
  return -1;
}

/// linalg.lstsq, as torch 1.13 computes and shapes its results.
FailureOr<RtValue> lstsq(const KernelArgs &args) {
  FailureOr<Matrices> a = matrices(args, "A", false);
  FailureOr<Tensor> bt = args.tensor("B");
  if (failed(a) || failed(bt))
    return failure();
  int64_t driver = lstsqDriver(args);
  if (driver < 0)
    return args.emitError() << "torch.linalg.lstsq: parameter `driver` "
                               "should be one of (gels, gelsy, gelsd, gelss)";
  Tensor b = *bt;
  int64_t diff = a->t.rank() - b.rank();
  if (diff < 0 || diff > 1)
    return args.emitError() << "torch.linalg.lstsq: input.dim() must be "
                               "greater or equal to other.dim() and "
                               "(input.dim() - other.dim()) <= 1";
  if (b.dtype() != a->t.dtype())
    return args.emitError() << "torch.linalg.lstsq: Expected input and other "
                               "to have the same dtype";
  if (diff)
    b = b.reshaped(withTail(b.shape(), {1}));
  int64_t m = a->m, n = a->n, k = b.dim(b.rank() - 1);
  if (b.dim(b.rank() - 2) != m)
    return args.emitError() << "torch.linalg.lstsq: input.size(-2) should "
                               "match other.size("
                            << (diff ? -1 : -2) << ")";
  FailureOr<MatrixPair> p = broadcastPair(args, *a, b, "input and other");
  if (failed(p))
    return failure();
  DType dt = a->t.dtype();
  int64_t mn = std::min(m, n);
  double eps = dt == DType::F32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
  double rcond = args.isNone("rcond") ? eps * std::max(m, n)
                                      : *args.getFloat("rcond");
  Tensor x(dt, withTail(p->batch, {n, k})), res(dt, withTail(p->batch, {k})),
      s(dt, withTail(p->batch, {mn}));
  Tensor rank(DType::I64, p->batch);
  std::vector<int32_t> info(p->count);
  traced_linalg_lstsq(a->code(), rawData(p->a), rawData(p->b), rawData(x),
                      rawData(res), rank.data<int64_t>(), rawData(s),
                      info.data(), p->count, m, n, k, driver, rcond, 0);
  if (ArrayRef<int64_t>(a->batchShape) != ArrayRef<int64_t>(p->batch)) {
    // The ranks and singular values are A's own (over its batch, not the
    // broadcast one): the same routine on A alone, with one zero column.
    Tensor x1(dt, withTail(a->batchShape, {n, 1})),
        res1(dt, withTail(a->batchShape, {1})),
        zero(dt, withTail(a->batchShape, {m, 1}));
    rank = Tensor(DType::I64, a->batchShape);
    s = Tensor(dt, withTail(a->batchShape, {mn}));
    std::vector<int32_t> info1(a->batch);
    traced_linalg_lstsq(a->code(), a->data(), rawData(zero), rawData(x1),
                        rawData(res1), rank.data<int64_t>(), rawData(s),
                        info1.data(), a->batch, m, n, 1, driver, rcond, 0);
  }
  Matrices shaped{p->a, p->batch, p->count, m, n};
  if (failed(infoError(args, shaped, info, "torch.linalg.lstsq",
                       [&](InFlightDiagnostic &d, int32_t i) {
                         d << "The least squares solution could not be "
                              "computed because the input matrix does not "
                              "have full rank (error code: "
                           << i << ").";
                       })))
    return failure();
  return lstsqResults(x, res, s, rank, driver, m, n, diff != 0);
}

/// linalg.ldl_factor and linalg.ldl_factor_ex: sytrf on tril(A) (torch
/// 1.13 raises its internal "Unknown error code" for a zero pivot, in
/// ldl_factor and in ldl_factor_ex with check_errors).
FailureOr<RtValue> ldlFactorKernel(const KernelArgs &args) {
  FailureOr<Matrices> a = matrices(args, "A", true);
  if (failed(a))
    return failure();
  bool ex = args.has("check_errors");
  int64_t n = a->n;
  Tensor out(a->t.dtype(), a->t.shape());
  std::vector<int32_t> pivots(a->batch * n), info(a->batch);
  traced_linalg_ldl_factor(a->code(), a->data(), rawData(out), pivots.data(),
                           info.data(), a->batch, n);
  bool check = !ex || *args.getBool("check_errors");
  if (check && anyNonzero(info))
    return args.emitError() << (ex ? "torch.linalg.ldl_factor_ex"
                                   : "torch.linalg.ldl_factor")
                            << ": Unknown error code: " << firstNonzero(info)
                            << ".";
  std::vector<RtValue> items = {
      RtValue(out), RtValue(int32Tensor(withTail(a->batchShape, {n}), pivots))};
  if (ex)
    items.push_back(RtValue(int32Tensor(a->batchShape, info)));
  return RtValue::ofList(std::move(items), true);
}

/// linalg.ldl_solve: sytrs from ldl_factor's factors and pivots.
FailureOr<RtValue> ldlSolveKernel(const KernelArgs &args) {
  FailureOr<Matrices> a = matrices(args, "LD", true);
  FailureOr<Tensor> pivots = args.tensor("pivots"), bt = args.tensor("B");
  if (failed(a) || failed(pivots) || failed(bt))
    return failure();
  int64_t n = a->n;
  const Tensor &b = *bt;
  if (b.rank() < 2)
    return args.emitError() << "torch.linalg.ldl_solve: The input tensor B "
                               "must have at least 2 dimensions.";
  if (b.dtype() != a->t.dtype())
    return args.emitError() << "Expected b and A to have the same dtype";
  if (!isIntegral(pivots->dtype(), false) ||
      pivots->shape() != a->t.shape().drop_back())
    return args.emitError() << "torch.linalg.ldl_solve: Expected "
                               "LD.shape[:-1] and pivots.shape to be the "
                               "same, integer pivots";
  if (b.dim(b.rank() - 2) != n)
    return args.emitError() << "Incompatible matrix sizes for "
                               "torch.linalg.ldl_solve: each A matrix is "
                            << n << " by " << n << " but each b matrix is "
                            << b.dim(b.rank() - 2) << " by "
                            << b.dim(b.rank() - 1);
  FailureOr<MatrixPair> p = broadcastPair(args, *a, b, "LD and B");
  if (failed(p))
    return failure();
  Tensor piv = broadcastTo(*pivots, withTail(p->batch, {n}));
  std::vector<int32_t> pv(piv.numel());
  for (int64_t i = 0; i < piv.numel(); ++i) {
    int64_t v = piv.getInt(i);
    if (v == 0 || v > n || v < -n)
      return args.emitError() << "torch.linalg.ldl_solve: pivots must be "
                                 "LAPACK's sytrf pivots in [-"
                              << n << ", " << n << "] without 0, got " << v;
    pv[i] = static_cast<int32_t>(v);
  }
  Tensor x(b.dtype(), p->b.shape());
  traced_linalg_ldl_solve(a->code(), rawData(p->a), pv.data(),
                          rawData(p->b), rawData(x), p->count, n,
                          b.dim(b.rank() - 1));
  return RtValue(x);
}

/// linalg.matrix_exp: the runtime's, torch 1.13's algorithm.
FailureOr<RtValue> matrixExpKernel(const KernelArgs &args) {
  FailureOr<Matrices> a = matrices(args, "A", true);
  if (failed(a))
    return failure();
  Tensor out(a->t.dtype(), a->t.shape());
  traced_linalg_matrix_exp(a->code(), a->data(), rawData(out), a->batch,
                           a->n);
  return RtValue(out);
}

} // namespace mlir::traced::kernels

namespace {
/// What F.multi_head_attention_forward appends to the projected keys and
/// values: a bias_k / bias_v row (each (1, 1, E), repeated over the batch),
/// then, with add_zero_attn, a row of zeros. The masks get as many columns
/// of 0 (attend).
struct ExtraKeys {
  const Tensor *biasK = nullptr, *biasV = nullptr;
  bool zeroAttn = false;
  int64_t count() const { return (biasK ? 1 : 0) + (zeroAttn ? 1 : 0); }
};

/// F.multi_head_attention_forward with a packed in-projection, no dropout
/// in training; additive attention and key-padding masks.
template <typename T>
LogicalResult
attention(const KernelArgs &args, const Tensor &query, const Tensor &key,
          const Tensor &value, const Tensor &inW, const Tensor *inB,
          const Tensor &outW, const Tensor *outB, int64_t heads,
          bool needWeights, bool average, const Tensor *attnMask,
          const Tensor *padMask, ExtraKeys extra, Tensor &output,
          Tensor &weights) {
  int64_t l = query.dim(0), n = query.dim(1), e = query.dim(2);
  int64_t s0 = key.dim(0), s = s0 + extra.count(), d = e / heads;
  auto project = [&](const Tensor &x, int64_t part, int64_t rows,
                     const Tensor *biasRow) {
    // x [rows*n, e] @ W[part]^T + b[part] -> [rows, n*heads, d], then the
    // appended rows (keys and values only).
    int64_t total = part == 0 ? rows : rows + extra.count();
    Tensor y(x.dtype(), {total, n * heads, d});
    T *yp = y.data<T>();
    if (inB)
      for (int64_t r = 0; r < rows * n; ++r)
        std::memcpy(yp + r * e, inB->data<T>() + part * e, e * sizeof(T));
    gemm(false, true, rows * n, e, e, x.data<T>(), e,
         inW.data<T>() + part * e * e, e, inB ? T(1) : T(0), yp, e);
    if (biasRow)
      for (int64_t b = 0; b < n; ++b)
        std::memcpy(yp + (rows * n + b) * e, biasRow->data<T>(), e * sizeof(T));
    // (The zero row is the tensor's own zeros.)
    return y;
  };
  Tensor q = project(query, 0, l, nullptr), k = project(key, 1, s0, extra.biasK),
         v = project(value, 2, s0, extra.biasV);
  // [len, n*h, d] -> [n*h, len, d]
  auto headsFirst = [&](const Tensor &x, int64_t len) {
    Tensor y(x.dtype(), {n * heads, len, d});
    const T *xp = x.data<T>();
    T *yp = y.data<T>();
    for (int64_t t = 0; t < len; ++t)
      for (int64_t b = 0; b < n * heads; ++b)
        std::memcpy(yp + (b * len + t) * d, xp + (t * n * heads + b) * d,
                    d * sizeof(T));
    return y;
  };
  Tensor qh = headsFirst(q, l), kh = headsFirst(k, s), vh = headsFirst(v, s);
  T scale = static_cast<T>(std::sqrt(static_cast<double>(d)));
  for (int64_t i = 0; i < qh.numel(); ++i)
    qh.data<T>()[i] /= scale;
  Tensor attn(query.dtype(), {n * heads, l, s});
  for (int64_t b = 0; b < n * heads; ++b)
    gemm(false, true, l, s, d, qh.data<T>() + b * l * d, d,
         kh.data<T>() + b * s * d, d, T(0), attn.data<T>() + b * l * s, s);
  T *ap = attn.data<T>();
  // Additive masks (bool masks arrive as 0 / -inf): attn_mask is (L, S) or
  // (N * heads, L, S), key_padding_mask (N, S).
  if (attnMask || padMask)
    for (int64_t b = 0; b < n * heads; ++b)
      for (int64_t i = 0; i < l; ++i)
        for (int64_t j = 0; j < s; ++j) {
          // (The appended keys' columns, j >= s0, are masked by 0.)
          if (j >= s0)
            continue;
          T &a = ap[(b * l + i) * s + j];
          if (attnMask)
            a += attnMask->data<T>()[(attnMask->rank() == 3 ? b * l * s0 : 0) +
                                     i * s0 + j];
          if (padMask)
            a += padMask->data<T>()[(b / heads) * s0 + j];
        }
  for (int64_t r = 0; r < n * heads * l; ++r) {
    T *row = ap + r * s;
    T mx = *std::max_element(row, row + s);
    T sum = 0;
    for (int64_t j = 0; j < s; ++j)
      sum += (row[j] = std::exp(row[j] - mx));
    for (int64_t j = 0; j < s; ++j)
      row[j] /= sum;
  }
  Tensor ctx(query.dtype(), {n * heads, l, d});
  for (int64_t b = 0; b < n * heads; ++b)
    gemm(false, false, l, d, s, ap + b * l * s, s, vh.data<T>() + b * s * d, d,
         T(0), ctx.data<T>() + b * l * d, d);
  // [n*h, l, d] -> [l, n*h, d] = [l*n, e]
  Tensor merged(query.dtype(), {l * n, e});
  for (int64_t t = 0; t < l; ++t)
    for (int64_t b = 0; b < n * heads; ++b)
      std::memcpy(merged.data<T>() + (t * n * heads + b) * d,
                  ctx.data<T>() + (b * l + t) * d, d * sizeof(T));
  int64_t eo = outW.dim(0);
  output = Tensor(query.dtype(), {l, n, eo});
  T *op = output.data<T>();
  if (outB)
    for (int64_t r = 0; r < l * n; ++r)
      std::memcpy(op + r * eo, outB->data<T>(), eo * sizeof(T));
  gemm(false, true, l * n, eo, e, merged.data<T>(), e, outW.data<T>(), e,
       outB ? T(1) : T(0), op, eo);
  if (needWeights) {
    if (average) {
      weights = Tensor(query.dtype(), {n, l, s});
      for (int64_t b = 0; b < n; ++b)
        for (int64_t h = 0; h < heads; ++h)
          for (int64_t i = 0; i < l * s; ++i)
            weights.data<T>()[b * l * s + i] +=
                ap[((b * heads + h) * l * s) + i] / static_cast<T>(heads);
    } else {
      weights = attn.reshaped({n, heads, l, s});
    }
  }
  return success();
}
} // namespace

namespace mlir::traced::kernels {

FailureOr<RtValue> multiHeadAttention(const KernelArgs &args) {
  FailureOr<Tensor> query = args.tensor("query"), key = args.tensor("key"),
                    value = args.tensor("value");
  FailureOr<int64_t> heads = args.getInt("num_heads"),
                     embed = args.getInt("embed_dim_to_check");
  FailureOr<bool> needWeights = args.getBool("need_weights"),
                  average = args.getBool("average_attn_weights"),
                  training = args.getBool("training"),
                  zeroAttn = args.getBool("add_zero_attn"),
                  separate = args.getBool("use_separate_proj_weight");
  FailureOr<double> dropoutP = args.getFloat("dropout_p");
  if (failed(query) || failed(key) || failed(value) || failed(heads) ||
      failed(embed) || failed(needWeights) || failed(average) ||
      failed(training) || failed(zeroAttn) || failed(separate) ||
      failed(dropoutP))
    return failure();
  for (StringRef name : {"static_k", "static_v"})
    if (!args.isNone(name))
      return args.emitError()
             << "'" << name << "' is not supported by the interpreter";
  if (*separate)
    return args.emitError() << "separate projection weights are not "
                               "supported by the interpreter";
  if (args.isNone("bias_k") != args.isNone("bias_v"))
    return args.emitError() << "bias_k and bias_v must be given together";
  std::optional<Tensor> biasK, biasV;
  if (!args.isNone("bias_k")) {
    FailureOr<Tensor> bk = args.tensor("bias_k"), bv = args.tensor("bias_v");
    if (failed(bk) || failed(bv))
      return failure();
    SmallVector<int64_t> want{1, 1, *embed};
    if (bk->shape() != ArrayRef<int64_t>(want) ||
        bv->shape() != ArrayRef<int64_t>(want))
      return args.emitError() << "bias_k and bias_v must be (1, 1, "
                              << *embed << ")";
    biasK = *bk;
    biasV = *bv;
  }
  if (*training && *dropoutP > 0)
    return args.emitError() << "dropout in training mode is random; the "
                               "interpreter runs eval-mode graphs";
  FailureOr<Tensor> inW = args.tensor("in_proj_weight"),
                    outW = args.tensor("out_proj_weight");
  if (failed(inW) || failed(outW))
    return failure();
  std::optional<Tensor> inB, outB;
  if (!args.isNone("in_proj_bias"))
    inB = *args.tensor("in_proj_bias");
  if (!args.isNone("out_proj_bias"))
    outB = *args.tensor("out_proj_bias");
  bool unbatched = query->rank() == 2;
  auto batched = [&](const Tensor &t) {
    return unbatched ? t.reshaped({t.dim(0), 1, t.dim(1)}) : t;
  };
  Tensor q = batched(*query), k = batched(*key), v = batched(*value);
  if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3 || q.dim(2) != *embed ||
      *embed % *heads != 0 || inW->dim(0) != 3 * *embed)
    return args.emitError() << "query, key and value must be (L, N, E) with "
                               "E = embed_dim_to_check divisible by num_heads";
  if (failed(sameFloat(args, {&q, &k, &v, &*inW, &*outW})) ||
      (biasK && failed(sameFloat(args, {&q, &*biasK, &*biasV}))))
    return failure();
  ExtraKeys extra{biasK ? &*biasK : nullptr, biasV ? &*biasV : nullptr,
                  *zeroAttn};
  // Masks as additive tensors of the query's dtype: a bool mask's true
  // entries are -inf (not attended), as torch converts them.
  int64_t l = q.dim(0), n = q.dim(1), s = k.dim(0);
  auto additive = [&](StringRef name, ArrayRef<ArrayRef<int64_t>> shapes,
                      std::optional<Tensor> &out) -> LogicalResult {
    if (args.isNone(name))
      return success();
    FailureOr<Tensor> m = args.tensor(name);
    if (failed(m))
      return failure();
    Tensor t = *m;
    if (unbatched && name == "key_padding_mask" && t.rank() == 1)
      t = t.reshaped({1, t.dim(0)});
    if (!llvm::is_contained(shapes, t.shape())) {
      args.emitError() << "'" << name << "' has the wrong shape";
      return failure();
    }
    if (t.dtype() == DType::Bool) {
      Tensor f(q.dtype(), t.shape());
      for (int64_t i = 0; i < t.numel(); ++i)
        f.setDouble(i, t.data<uint8_t>()[i] ? -INFINITY : 0.0);
      out = f;
    } else if (isFloatingPoint(t.dtype())) {
      out = t.to(q.dtype());
    } else {
      args.emitError() << "'" << name << "' must be a bool or float tensor";
      return failure();
    }
    return success();
  };
  std::optional<Tensor> attnMask, padMask;
  SmallVector<int64_t> mask2{l, s}, mask3{n * *heads, l, s}, pad2{n, s};
  if (failed(additive("attn_mask", {mask2, mask3}, attnMask)) ||
      failed(additive("key_padding_mask", {pad2}, padMask)))
    return failure();
  Tensor output, weights;
  const Tensor *am = attnMask ? &*attnMask : nullptr,
               *pm = padMask ? &*padMask : nullptr;
  LogicalResult ok =
      q.storage() == Storage::Double
          ? attention<double>(args, q, k, v, *inW, inB ? &*inB : nullptr, *outW,
                              outB ? &*outB : nullptr, *heads, *needWeights,
                              *average, am, pm, extra, output, weights)
          : attention<float>(args, q, k, v, *inW, inB ? &*inB : nullptr, *outW,
                             outB ? &*outB : nullptr, *heads, *needWeights,
                             *average, am, pm, extra, output, weights);
  if (failed(ok))
    return failure();
  output.roundToDType();
  if (unbatched) {
    output = output.reshaped({output.dim(0), output.dim(2)});
    if (weights.defined()) {
      SmallVector<int64_t> s(weights.shape().drop_front());
      weights = weights.reshaped(s);
    }
  }
  std::vector<RtValue> items{RtValue(output),
                             weights.defined() ? RtValue(weights) : RtValue()};
  return RtValue::ofList(std::move(items), /*isTuple=*/true);
}

} // namespace mlir::traced::kernels

namespace mlir::traced::kernels {

/// torch.einsum by direct summation over the contracted labels: the
/// reference, not a fast path (lowerings use contractions).
FailureOr<RtValue> einsum(const KernelArgs &args) {
  FailureOr<std::string> eq = args.getStr("equation");
  if (failed(eq))
    return failure();
  // `*operands` holds one tensor as it is, several as a list.
  const RtValue &operands = args.get("operands");
  SmallVector<Tensor> ts;
  SmallVector<ArrayRef<int64_t>> shapes;
  if (operands.isTensor()) {
    ts.push_back(operands.tensor());
  } else if (const RtValue::List *list = operands.list()) {
    for (const RtValue &v : list->items) {
      if (!v.isTensor())
        return args.emitError() << "'operands' must be tensors";
      ts.push_back(v.tensor());
    }
  } else {
    return args.emitError() << "'operands' must be tensors";
  }
  for (const Tensor &t : ts) {
    if (t.dtype() != ts[0].dtype())
      return args.emitError() << "operands must have one dtype";
    shapes.push_back(t.shape());
  }
  std::string error;
  FailureOr<EinsumPlan> plan = planEinsum(*eq, shapes, error);
  if (failed(plan))
    return args.emitError() << error;
  // All labels in use: the output's first, then the contracted ones.
  SmallVector<int64_t> order(plan->outputLabels);
  for (int64_t label = 0; label < static_cast<int64_t>(plan->sizes.size());
       ++label)
    if (plan->sizes[label] != -2 && !llvm::is_contained(order, label))
      order.push_back(label);
  SmallVector<int64_t> outShape, extents;
  for (int64_t label : order)
    extents.push_back(plan->sizes[label]);
  for (int64_t label : plan->outputLabels)
    outShape.push_back(plan->sizes[label]);
  SmallVector<int64_t> position(plan->sizes.size(), 0);
  SmallVector<SmallVector<int64_t>> strides;
  for (const Tensor &t : ts)
    strides.push_back(t.strides());
  Tensor out(ts[0].dtype(), outShape);
  int64_t outCount = out.numel(), inner = 1;
  for (size_t i = plan->outputLabels.size(); i < order.size(); ++i)
    inner *= extents[i];
  bool isInt = isIntegral(ts[0].dtype());
  SmallVector<int64_t> idx(order.size(), 0);
  for (int64_t o = 0; o < outCount; ++o) {
    double acc = 0;
    uint64_t iacc = 0;
    for (int64_t c = 0; c < inner; ++c) {
      for (size_t i = 0; i < order.size(); ++i)
        position[order[i]] = idx[i];
      double prod = 1;
      uint64_t iprod = 1;
      for (auto [k, t] : llvm::enumerate(ts)) {
        int64_t off = 0;
        for (auto [d, label] : llvm::enumerate(plan->operandLabels[k]))
          off += (t.dim(d) == 1 ? 0 : position[label]) * strides[k][d];
        if (isInt)
          iprod *= static_cast<uint64_t>(t.getInt(off));
        else
          prod *= t.getDouble(off);
      }
      acc += prod;
      iacc += iprod;
      for (int64_t i = static_cast<int64_t>(order.size()) - 1; i >= 0; --i) {
        if (++idx[i] < extents[i])
          break;
        idx[i] = 0;
      }
    }
    if (isInt)
      out.data<int64_t>()[o] = static_cast<int64_t>(iacc);
    else
      out.setDouble(o, acc);
    if (inner == 0)
      for (int64_t i = static_cast<int64_t>(plan->outputLabels.size()) - 1;
           i >= 0; --i) {
        if (++idx[i] < extents[i])
          break;
        idx[i] = 0;
      }
  }
  out.roundToDType();
  return RtValue(out);
}

} // namespace mlir::traced::kernels

namespace mlir::traced::kernels {

FailureOr<RtValue> addmm(const KernelArgs &args) {
  FailureOr<InputAndProduct> ip =
      inputAndProduct(args, "mat1", "mat2", 2, "addmm expects 2-D matrices");
  if (failed(ip))
    return failure();
  return scaledSum(args, ip->input, ip->product);
}

FailureOr<RtValue> addmv(const KernelArgs &args) {
  FailureOr<Tensor> mat = args.tensor("mat"), vec = args.tensor("vec");
  if (failed(mat) || failed(vec))
    return failure();
  if (mat->rank() != 2 || vec->rank() != 1)
    return args.emitError() << "addmv expects a matrix and a vector";
  FailureOr<InputAndProduct> ip = inputAndProduct(args, "mat", "vec", 0, "");
  if (failed(ip))
    return failure();
  return scaledSum(args, ip->input, ip->product);
}

FailureOr<RtValue> mv(const KernelArgs &args) {
  return namedProduct(args, "input", "vec", {2, 1},
                      "mv expects a matrix and a vector");
}

FailureOr<RtValue> dot(const KernelArgs &args) {
  return namedProduct(args, "input", "other", {1, 1, /*sameFirstDim=*/true},
                      "dot expects two 1-D tensors of one size");
}

/// linalg.cross / cross: 3-vectors along `dim` (torch.cross's None: the
/// first dim of size 3) of the broadcast operands.
FailureOr<RtValue> cross(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("input"), b = args.tensor("other");
  if (failed(a) || failed(b))
    return failure();
  if (a->dtype() != b->dtype())
    return args.emitError() << "expects operands of one dtype, got "
                            << dtypeName(a->dtype()) << " and "
                            << dtypeName(b->dtype());
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(a->shape(), b->shape());
  if (failed(shape) || a->rank() != b->rank())
    return args.emitError() << "inputs cannot be broadcast together";
  int64_t rank = shape->size(), dim = -1;
  if (args.isNone("dim")) {
    for (int64_t i = 0; i < rank && dim < 0; ++i)
      if ((*shape)[i] == 3)
        dim = i;
    if (dim < 0)
      return args.emitError() << "no dimension of size 3 in input";
  } else {
    FailureOr<int64_t> d = args.getInt("dim");
    if (failed(d))
      return failure();
    FailureOr<int64_t> n = normalizeDim(args, *d, rank);
    if (failed(n))
      return failure();
    dim = *n;
  }
  if (a->dim(dim) != 3 || b->dim(dim) != 3)
    return args.emitError() << "inputs dimension " << dim
                            << " must have length 3";
  Tensor x = broadcastTo(*a, *shape), y = broadcastTo(*b, *shape);
  Tensor out(a->dtype(), *shape);
  int64_t inner = 1;
  for (int64_t i = dim + 1; i < rank; ++i)
    inner *= (*shape)[i];
  int64_t outer = inner ? out.numel() / (3 * inner) : 0;
  dispatchStorage(a->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = x.template data<T>(), *q = y.template data<T>();
    T *o = out.template data<T>();
    for (int64_t i = 0; i < outer; ++i)
      for (int64_t j = 0; j < inner; ++j) {
        auto at = [&](int64_t c) { return (i * 3 + c) * inner + j; };
        for (int c = 0; c < 3; ++c) {
          int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
          o[at(c)] = static_cast<T>(p[at(c1)] * q[at(c2)] -
                                    p[at(c2)] * q[at(c1)]);
        }
      }
    return 0;
  });
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> outer(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("input"), b = args.tensor("vec2");
  if (failed(a) || failed(b))
    return failure();
  if (a->rank() != 1 || b->rank() != 1)
    return args.emitError() << "outer expects two 1-D tensors";
  // torch's outer is input[:, None] * vec2: it promotes, and takes bools.
  const OpSpec *mul = OpLibrary::get().lookupFunction("torch.mul");
  KernelArgs product(mul->signature,
                     {RtValue(a->reshaped({a->dim(0), 1})), RtValue(*b)},
                     [&] { return args.emitError(); });
  return kernels::mul(product);
}

/// aten::_trilinear: i1 * i2 * i3, each unsqueezed at its expand dims and
/// broadcast, summed over sumdim, in the dtypes of torch's steps
/// (trilinearDTypes; floats accumulate in double and round once, integers
/// wrap, bools sum as "any"), the result in i1's dtype.
FailureOr<RtValue> trilinear(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("i1"), b = args.tensor("i2"),
                    c = args.tensor("i3");
  FailureOr<SmallVector<int64_t>> e1 = args.getInts("expand1"),
                                  e2 = args.getInts("expand2"),
                                  e3 = args.getInts("expand3"),
                                  sum = args.getInts("sumdim");
  FailureOr<int64_t> unroll = args.getInt("unroll_dim");
  if (failed(a) || failed(b) || failed(c) || failed(e1) || failed(e2) ||
      failed(e3) || failed(sum) || failed(unroll))
    return failure();
  std::string error;
  std::optional<TrilinearShapes> s =
      trilinearShapes({a->shape(), b->shape(), c->shape()}, {*e1, *e2, *e3},
                      *sum, *unroll, error);
  if (!s)
    return args.emitError() << error;
  DType first, product;
  std::optional<DType> result = trilinearDTypes(a->dtype(), b->dtype(),
                                                c->dtype(), *s, first, product,
                                                error);
  if (!result)
    return args.emitError() << error;
  // torch's steps (each product and sum in double or int64, rounded to the
  // step's dtype once): i1 * i2 summed over sums12, times i3 summed over
  // sums23, summed over unroll_dim; bools sum as "any".
  auto wide = [](DType t) { return isFloatingPoint(t) ? DType::F64 : DType::I64; };
  auto step = [&](const Tensor &x, const Tensor &y, ArrayRef<int64_t> dims,
                  DType t) {
    FailureOr<SmallVector<int64_t>> shape = broadcastShape(x.shape(), y.shape());
    Tensor xs = broadcastTo(x.to(wide(t)), *shape),
           ys = broadcastTo(y.to(wide(t)), *shape);
    SmallVector<int64_t> kept(*shape);
    for (int64_t d : dims)
      kept[d] = 1;
    Tensor out(wide(t), kept);
    SmallVector<int64_t> strides = out.strides(), index(shape->size(), 0);
    for (int64_t i = 0, n = xs.numel(); i < n; ++i) {
      int64_t o = 0;
      for (size_t d = 0; d < index.size(); ++d)
        o += (kept[d] == 1 ? 0 : index[d]) * strides[d];
      if (isFloatingPoint(t)) {
        out.setDouble(o, out.getDouble(o) + xs.getDouble(i) * ys.getDouble(i));
      } else {
        int64_t *p = out.data<int64_t>();
        p[o] = static_cast<int64_t>(static_cast<uint64_t>(p[o]) +
                                    static_cast<uint64_t>(xs.getInt(i)) *
                                        static_cast<uint64_t>(ys.getInt(i)));
      }
      for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
        if (++index[d] < (*shape)[d])
          break;
        index[d] = 0;
      }
    }
    if (t == DType::Bool)
      for (int64_t i = 0; i < out.numel(); ++i)
        out.data<int64_t>()[i] = out.data<int64_t>()[i] != 0;
    return out.to(t);
  };
  int64_t count = 1;
  for (int64_t size : s->result)
    count *= size;
  if (count == 0)
    return RtValue(Tensor(*result, s->result));
  Tensor one(DType::I64, {});
  one.data<int64_t>()[0] = 1;
  Tensor r = step(a->reshaped(s->unsqueezed[0]), b->reshaped(s->unsqueezed[1]),
                  s->sums12, first);
  r = step(r, c->reshaped(s->unsqueezed[2]), s->sums23, product);
  if (s->sumsUnroll)
    r = step(r, one.to(product), {*unroll}, product);
  return RtValue(r.reshaped(s->result).to(*result));
}

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Recurrent networks (traced.nn.rnn, traced.nn.rnn_cell)
//===----------------------------------------------------------------------===//

namespace {
/// One direction of one layer: its weights as doubles, row-major.
struct RecurrentWeights {
  std::vector<double> wIh, wHh, bIh, bHh, wHr;
  int64_t in = 0;
};

std::vector<double> toDoubles(const Tensor &t) {
  std::vector<double> v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i)
    v[i] = t.getDouble(i);
  return v;
}

/// y[rows] += w[rows x cols] * x[cols].
void matVecAdd(const std::vector<double> &w, const double *x, int64_t rows,
               int64_t cols, double *y) {
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t k = 0; k < cols; ++k)
      s += w[r * cols + k] * x[k];
    y[r] += s;
  }
}

double sigmoidD(double x) { return 1 / (1 + std::exp(-x)); }

/// One time step of one batch row: h (out elements) and c (hidden, LSTM)
/// are updated in place. Gate orders are torch's: LSTM i, f, g, o; GRU r,
/// z, n with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).
void recurrentStep(StringRef mode, const RecurrentWeights &w, const double *x,
                   double *h, double *c, int64_t hidden, int64_t out) {
  int64_t gates = mode == "LSTM" ? 4 : mode == "GRU" ? 3 : 1;
  std::vector<double> gi(gates * hidden, 0.0), gh(gates * hidden, 0.0);
  matVecAdd(w.wIh, x, gates * hidden, w.in, gi.data());
  matVecAdd(w.wHh, h, gates * hidden, out, gh.data());
  if (!w.bIh.empty())
    for (int64_t r = 0; r < gates * hidden; ++r) {
      gi[r] += w.bIh[r];
      gh[r] += w.bHh[r];
    }
  if (mode == "GRU") {
    for (int64_t j = 0; j < hidden; ++j) {
      double r = sigmoidD(gi[j] + gh[j]);
      double z = sigmoidD(gi[hidden + j] + gh[hidden + j]);
      double n = std::tanh(gi[2 * hidden + j] + r * gh[2 * hidden + j]);
      h[j] = (1 - z) * n + z * h[j];
    }
    return;
  }
  if (mode != "LSTM") {
    bool relu = mode == "RNN_RELU" || mode == "relu";
    for (int64_t j = 0; j < hidden; ++j) {
      double v = gi[j] + gh[j];
      h[j] = relu ? std::max(v, 0.0) : std::tanh(v);
    }
    return;
  }
  std::vector<double> full(hidden);
  for (int64_t j = 0; j < hidden; ++j) {
    double i = sigmoidD(gi[j] + gh[j]);
    double f = sigmoidD(gi[hidden + j] + gh[hidden + j]);
    double g = std::tanh(gi[2 * hidden + j] + gh[2 * hidden + j]);
    double o = sigmoidD(gi[3 * hidden + j] + gh[3 * hidden + j]);
    c[j] = f * c[j] + i * g;
    full[j] = o * std::tanh(c[j]);
  }
  if (w.wHr.empty()) {
    std::copy(full.begin(), full.end(), h);
    return;
  }
  std::fill(h, h + out, 0.0);
  matVecAdd(w.wHr, full.data(), out, hidden, h);
}

/// The tensors of `hx`: none, one, or a tuple's.
FailureOr<std::vector<Tensor>> hiddenTensors(const KernelArgs &args) {
  const RtValue &hx = args.get("hx");
  std::vector<Tensor> ts;
  if (hx.isNone())
    return ts;
  if (hx.isTensor()) {
    ts.push_back(hx.tensor());
    return ts;
  }
  if (const RtValue::List *l = hx.list())
    for (const RtValue &v : l->items) {
      if (!v.isTensor())
        return args.emitError() << "hx must hold tensors";
      ts.push_back(v.tensor());
    }
  return ts;
}

/// The weights of each layer and direction from `params` (torch's
/// _flat_weights order).
FailureOr<std::vector<RecurrentWeights>>
recurrentWeights(const KernelArgs &args, int64_t groups, bool bias, bool proj,
                 int64_t gates, int64_t hidden) {
  const RtValue::List *list = args.get("params").list();
  int64_t per = 2 + (bias ? 2 : 0) + (proj ? 1 : 0);
  if (!list || static_cast<int64_t>(list->items.size()) != per * groups)
    return args.emitError() << "expects " << per * groups << " parameters";
  std::vector<RecurrentWeights> ws(groups);
  for (int64_t g = 0; g < groups; ++g) {
    auto at = [&](int64_t k) { return list->items[g * per + k].tensor(); };
    ws[g].wIh = toDoubles(at(0));
    ws[g].wHh = toDoubles(at(1));
    ws[g].in = at(0).dim(1);
    if (at(0).dim(0) != gates * hidden)
      return args.emitError() << "weight_ih has " << at(0).dim(0)
                              << " rows, expected " << gates * hidden;
    if (bias) {
      ws[g].bIh = toDoubles(at(2));
      ws[g].bHh = toDoubles(at(3));
    }
    if (proj)
      ws[g].wHr = toDoubles(at(per - 1));
  }
  return ws;
}

/// The sequence shape of a recurrent call.
struct RecurrentShape {
  int64_t steps, batch, hidden, out, layers, directions;
  bool batched, batchFirst;
};

/// Runs all layers over `seq` ([steps][batch][in]); h and c are
/// [layers * directions][batch][out or hidden], updated in place.
std::vector<double> runRecurrent(StringRef mode, const RecurrentShape &s,
                                 const std::vector<RecurrentWeights> &ws,
                                 std::vector<double> seq, std::vector<double> &h,
                                 std::vector<double> &c) {
  for (int64_t l = 0; l < s.layers; ++l) {
    int64_t in = ws[l * s.directions].in, width = s.directions * s.out;
    std::vector<double> next(s.steps * s.batch * width);
    for (int64_t d = 0; d < s.directions; ++d) {
      int64_t g = l * s.directions + d;
      for (int64_t t0 = 0; t0 < s.steps; ++t0) {
        int64_t t = d ? s.steps - 1 - t0 : t0;
        for (int64_t n = 0; n < s.batch; ++n) {
          double *hh = &h[(g * s.batch + n) * s.out];
          double *cc = c.empty() ? nullptr : &c[(g * s.batch + n) * s.hidden];
          recurrentStep(mode, ws[g], &seq[(t * s.batch + n) * in], hh, cc,
                        s.hidden, s.out);
          std::copy(hh, hh + s.out,
                    &next[(t * s.batch + n) * width + d * s.out]);
        }
      }
    }
    seq = std::move(next);
  }
  return seq;
}

/// A tensor of `shape` and `dtype` holding `v`.
Tensor fromDoubles(DType dtype, ArrayRef<int64_t> shape,
                   const std::vector<double> &v) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setDouble(i, v[i]);
  return t;
}
} // namespace

/// nn.RNN / nn.LSTM / nn.GRU's forward (reference semantics; the result
/// rule has checked the shapes).
static FailureOr<RtValue> recurrent(const KernelArgs &args) {
  FailureOr<Tensor> input = args.tensor("input");
  FailureOr<std::string> mode = args.getStr("mode");
  FailureOr<int64_t> hidden = args.getInt("hidden_size"),
                     layers = args.getInt("num_layers"),
                     proj = args.getInt("proj_size");
  FailureOr<bool> bias = args.getBool("bias"),
                  batchFirst = args.getBool("batch_first"),
                  bidirectional = args.getBool("bidirectional");
  FailureOr<std::vector<Tensor>> hx = hiddenTensors(args);
  if (failed(input) || failed(mode) || failed(hidden) || failed(layers) ||
      failed(proj) || failed(bias) || failed(batchFirst) ||
      failed(bidirectional) || failed(hx))
    return failure();
  bool lstm = *mode == "LSTM";
  int64_t gates = lstm ? 4 : *mode == "GRU" ? 3 : 1;
  RecurrentShape s;
  s.batched = input->rank() == 3;
  s.batchFirst = *batchFirst && s.batched;
  s.steps = input->dim(s.batchFirst ? 1 : 0);
  s.batch = s.batched ? input->dim(s.batchFirst ? 0 : 1) : 1;
  s.hidden = *hidden;
  s.out = *proj > 0 ? *proj : *hidden;
  s.layers = *layers;
  s.directions = *bidirectional ? 2 : 1;
  int64_t groups = s.layers * s.directions, in = input->shape().back();
  FailureOr<std::vector<RecurrentWeights>> ws =
      recurrentWeights(args, groups, *bias, *proj > 0, gates, *hidden);
  if (failed(ws))
    return failure();
  // The sequence as [steps][batch][in].
  std::vector<double> seq(s.steps * s.batch * in);
  for (int64_t t = 0; t < s.steps; ++t)
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t k = 0; k < in; ++k)
        seq[(t * s.batch + n) * in + k] = input->getDouble(
            (s.batchFirst ? n * s.steps + t : t * s.batch + n) * in + k);
  std::vector<double> h(groups * s.batch * s.out, 0.0), c;
  if (lstm)
    c.assign(groups * s.batch * s.hidden, 0.0);
  if (!hx->empty()) {
    h = toDoubles((*hx)[0]);
    if (lstm)
      c = toDoubles((*hx)[1]);
  }
  std::vector<double> out = runRecurrent(*mode, s, *ws, seq, h, c);
  int64_t width = s.directions * s.out;
  SmallVector<int64_t> outShape(input->shape());
  outShape.back() = width;
  Tensor output(input->dtype(), outShape);
  for (int64_t t = 0; t < s.steps; ++t)
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t k = 0; k < width; ++k)
        output.setDouble(
            (s.batchFirst ? n * s.steps + t : t * s.batch + n) * width + k,
            out[(t * s.batch + n) * width + k]);
  SmallVector<int64_t> hShape = {groups, s.batch, s.out},
                       cShape = {groups, s.batch, s.hidden};
  if (!s.batched) {
    hShape.erase(hShape.begin() + 1);
    cShape.erase(cShape.begin() + 1);
  }
  RtValue hN = fromDoubles(input->dtype(), hShape, h);
  RtValue state =
      lstm ? RtValue::ofList({hN, fromDoubles(input->dtype(), cShape, c)},
                             /*isTuple=*/true)
           : hN;
  return RtValue::ofList({RtValue(output), state}, /*isTuple=*/true);
}

/// nn.RNNCell / nn.LSTMCell / nn.GRUCell's forward.
static FailureOr<RtValue> recurrentCell(const KernelArgs &args) {
  FailureOr<Tensor> input = args.tensor("input");
  FailureOr<std::string> mode = args.getStr("mode");
  FailureOr<int64_t> hidden = args.getInt("hidden_size");
  FailureOr<bool> bias = args.getBool("bias");
  FailureOr<std::vector<Tensor>> hx = hiddenTensors(args);
  if (failed(input) || failed(mode) || failed(hidden) || failed(bias) ||
      failed(hx))
    return failure();
  bool lstm = *mode == "LSTM";
  int64_t gates = lstm ? 4 : *mode == "GRU" ? 3 : 1;
  FailureOr<std::vector<RecurrentWeights>> ws =
      recurrentWeights(args, 1, *bias, false, gates, *hidden);
  if (failed(ws))
    return failure();
  int64_t batch = input->rank() == 2 ? input->dim(0) : 1;
  int64_t in = input->shape().back();
  std::vector<double> x = toDoubles(*input);
  std::vector<double> h(batch * *hidden, 0.0), c(batch * *hidden, 0.0);
  if (!hx->empty()) {
    h = toDoubles((*hx)[0]);
    if (lstm)
      c = toDoubles((*hx)[1]);
  }
  for (int64_t n = 0; n < batch; ++n)
    recurrentStep(*mode, (*ws)[0], &x[n * in], &h[n * *hidden],
                  &c[n * *hidden], *hidden, *hidden);
  SmallVector<int64_t> shape(input->shape().drop_back());
  shape.push_back(*hidden);
  RtValue hOut = fromDoubles(input->dtype(), shape, h);
  if (!lstm)
    return hOut;
  return RtValue::ofList({hOut, fromDoubles(input->dtype(), shape, c)},
                         /*isTuple=*/true);
}

//===----------------------------------------------------------------------===//
// Products that are formulas of other products: torch's own compositions,
// through the kernels of the entries they call (callEntry)
//===----------------------------------------------------------------------===//

namespace mlir::traced::kernels {

/// Tensor.__rmatmul__(input, other): other @ input.
static FailureOr<RtValue> rmatmul(const KernelArgs &args) {
  return callEntry(args, "torch.matmul",
                   {{"input", args.get("other")}, {"other", args.get("input")}});
}

/// addr as torch's kernel computes it: beta * input + alpha * vec1 * vec2
/// (beta == 0 ignores the input), in the promoted dtype; for bools,
/// (beta && input) || (alpha && vec1 && vec2).
static FailureOr<RtValue> addr(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), v1 = args.tensor("vec1"),
                    v2 = args.tensor("vec2");
  if (failed(in) || failed(v1) || failed(v2))
    return failure();
  DType e = resultType({tensorPromotion(*in), tensorPromotion(*v1),
                        tensorPromotion(*v2)});
  std::optional<double> beta = args.get("beta").number(),
                        alpha = args.get("alpha").number();
  if (!beta || !alpha)
    return args.emitError() << "beta and alpha must be numbers";
  FailureOr<Tensor> product = callTensor(
      args, "torch.outer",
      {{"input", RtValue(v1->to(e))}, {"vec2", RtValue(v2->to(e))}});
  if (failed(product))
    return failure();
  Tensor input = in->to(e);
  if (e == DType::Bool) {
    if (*alpha == 0)
      product = callTensor(args, "torch.zeros_like", {{"input", RtValue(*product)}});
    if (failed(product))
      return failure();
    if (*beta == 0)
      return RtValue(*product);
    return callEntry(args, "torch.logical_or",
                     {{"input", RtValue(input)}, {"other", RtValue(*product)}});
  }
  bool integral = !isFloatingPoint(e);
  auto scalar = [&](double v) {
    return integral ? RtValue::ofInt(static_cast<int64_t>(v)) : RtValue::ofFloat(v);
  };
  if (*alpha != 1)
    product = callTensor(args, "torch.mul",
                         {{"input", RtValue(*product)}, {"other", scalar(*alpha)}});
  if (failed(product))
    return failure();
  if (*beta == 0)
    return RtValue(*product);
  FailureOr<Tensor> scaled = *beta == 1 ? FailureOr<Tensor>(input)
                             : callTensor(args, "torch.mul",
                                          {{"input", RtValue(input)},
                                           {"other", scalar(*beta)}});
  if (failed(scaled))
    return failure();
  return callEntry(args, "torch.add",
                   {{"input", RtValue(*scaled)}, {"other", RtValue(*product)}});
}

/// tensordot's contraction of `a`'s dims `da` with `b`'s `db`: both
/// permuted and flattened into one matrix product.
static FailureOr<RtValue> contract(const KernelArgs &args, const Tensor &a,
                                   const Tensor &b, ArrayRef<int64_t> da,
                                   ArrayRef<int64_t> db) {
  SmallVector<int64_t> pa, pb, shape;
  int64_t rows = 1, cols = 1, inner = 1;
  for (int64_t i = 0; i < a.rank(); ++i)
    if (!llvm::is_contained(da, i)) {
      pa.push_back(i);
      shape.push_back(a.dim(i));
      rows *= a.dim(i);
    }
  for (int64_t i : da) {
    pa.push_back(i);
    inner *= a.dim(i);
  }
  llvm::append_range(pb, db);
  for (int64_t i = 0; i < b.rank(); ++i)
    if (!llvm::is_contained(db, i)) {
      pb.push_back(i);
      shape.push_back(b.dim(i));
      cols *= b.dim(i);
    }
  FailureOr<Tensor> ap = callTensor(args, "torch.permute",
                                    {{"input", RtValue(a)}, {"dims", intsValue(pa)}});
  FailureOr<Tensor> bp = callTensor(args, "torch.permute",
                                    {{"input", RtValue(b)}, {"dims", intsValue(pb)}});
  if (failed(ap) || failed(bp))
    return failure();
  FailureOr<Tensor> product = callTensor(
      args, "torch.mm",
      {{"input", RtValue(ap->reshaped({rows, inner}))},
       {"mat2", RtValue(bp->reshaped({inner, cols}))}});
  if (failed(product))
    return failure();
  return RtValue(product->reshaped(shape));
}

/// inner: the last dims contracted; a 0-d operand multiplies.
static FailureOr<RtValue> inner(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("input"), b = args.tensor("other");
  if (failed(a) || failed(b))
    return failure();
  if (a->rank() == 0 || b->rank() == 0)
    return callEntry(args, "torch.mul",
                     {{"input", RtValue(*a)}, {"other", RtValue(*b)}});
  return contract(args, *a, *b, {a->rank() - 1}, {b->rank() - 1});
}

/// tensordot: `dims` an int (a's last with b's first) or two int lists.
static FailureOr<RtValue> tensordot(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("a"), b = args.tensor("b");
  if (failed(a) || failed(b))
    return failure();
  const RtValue &dims = args.get("dims");
  std::optional<int64_t> count;
  SmallVector<int64_t> lists[2];
  if (auto *i = std::get_if<int64_t>(&dims.v)) {
    count = *i;
  } else if (dims.list() && dims.list()->items.size() == 2) {
    for (int k = 0; k < 2; ++k) {
      const RtValue &part = dims.list()->items[k];
      if (auto *one = std::get_if<int64_t>(&part.v)) {
        lists[k].push_back(*one);
        continue;
      }
      if (!part.list())
        return args.emitError() << "dims must be an int or two int lists";
      for (const RtValue &item : part.list()->items) {
        auto *v = std::get_if<int64_t>(&item.v);
        if (!v)
          return args.emitError() << "dims must be an int or two int lists";
        lists[k].push_back(*v);
      }
    }
  } else {
    return args.emitError() << "dims must be an int or two int lists";
  }
  std::string error;
  auto pair = tensordotDims(a->shape(), b->shape(), count, lists[0], lists[1],
                            error);
  if (failed(pair))
    return args.emitError() << error;
  return contract(args, *a, *b, pair->first, pair->second);
}

/// kron: a's dims interleaved with b's ([a0, 1, a1, 1] * [1, b0, 1, b1]),
/// multiplied (promoted) and merged pairwise.
static FailureOr<RtValue> kron(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("input"), b = args.tensor("other");
  if (failed(a) || failed(b))
    return failure();
  int64_t rank = std::max(a->rank(), b->rank());
  SmallVector<int64_t> sa, sb, out;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t ia = i - (rank - a->rank()), ib = i - (rank - b->rank());
    int64_t x = ia >= 0 ? a->dim(ia) : 1, y = ib >= 0 ? b->dim(ib) : 1;
    sa.append({x, 1});
    sb.append({1, y});
    out.push_back(x * y);
  }
  FailureOr<Tensor> product =
      callTensor(args, "torch.mul",
                 {{"input", RtValue(a->reshaped(sa))},
                  {"other", RtValue(b->reshaped(sb))}});
  if (failed(product))
    return failure();
  return RtValue(product->reshaped(out));
}

/// linalg.vecdot: sum(x * y, dim), as torch composes it for real tensors.
static FailureOr<RtValue> vecdot(const KernelArgs &args) {
  FailureOr<Tensor> product = callTensor(
      args, "torch.mul", {{"input", args.get("x")}, {"other", args.get("y")}});
  if (failed(product))
    return failure();
  return callEntry(args, "torch.sum",
                   {{"input", RtValue(*product)},
                    {"dim", intsValue({*args.getInt("dim")})}});
}

static FailureOr<Tensor> mmOf(const KernelArgs &args, const Tensor &a,
                              const Tensor &b) {
  return callTensor(args, "torch.mm", {{"input", RtValue(a)}, {"mat2", RtValue(b)}});
}

/// linalg.multi_dot: a leading vector as a row, a trailing one as a
/// column; three matrices in the cheaper order (torch's rule), more from
/// the left.
static FailureOr<RtValue> multiDot(const KernelArgs &args) {
  const RtValue &list = args.get("tensors");
  if (!list.list() || list.list()->items.size() < 2)
    return args.emitError() << "multi_dot(): expected at least 2 tensors";
  SmallVector<Tensor> ts;
  for (const RtValue &item : list.list()->items) {
    if (!item.isTensor())
      return args.emitError() << "multi_dot(): expected tensors";
    ts.push_back(item.tensor());
  }
  SmallVector<int64_t> out;
  if (ts.front().rank() == 2)
    out.push_back(ts.front().dim(0));
  else
    ts.front() = ts.front().reshaped({1, ts.front().dim(0)});
  if (ts.back().rank() == 2)
    out.push_back(ts.back().dim(1));
  else
    ts.back() = ts.back().reshaped({ts.back().dim(0), 1});
  FailureOr<Tensor> r = failure();
  if (ts.size() == 3) {
    int64_t a = ts[0].dim(0), b = ts[1].dim(0), c = ts[2].dim(0),
            d = ts[2].dim(1);
    if (a * c * (b + d) > b * d * (a + c)) {
      FailureOr<Tensor> bc = mmOf(args, ts[1], ts[2]);
      r = succeeded(bc) ? mmOf(args, ts[0], *bc) : FailureOr<Tensor>(failure());
    } else {
      FailureOr<Tensor> ab = mmOf(args, ts[0], ts[1]);
      r = succeeded(ab) ? mmOf(args, *ab, ts[2]) : FailureOr<Tensor>(failure());
    }
  } else {
    r = ts[0];
    for (size_t i = 1; i < ts.size() && succeeded(r); ++i)
      r = mmOf(args, *r, ts[i]);
  }
  if (failed(r))
    return failure();
  return RtValue(r->reshaped(out));
}

/// linalg.matrix_power as torch computes it: the identity for 0; the
/// inverse first for a negative power; then 1, 2 and 3 directly and
/// higher powers by repeated squaring.
static FailureOr<RtValue> matrixPower(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("input");
  FailureOr<int64_t> n = args.getInt("n");
  if (failed(a) || failed(n))
    return failure();
  int64_t rank = a->rank();
  if (rank < 2 || a->dim(rank - 1) != a->dim(rank - 2))
    return args.emitError() << "linalg.matrix_power: A must be batches of "
                               "square matrices";
  if (*n == 0) {
    Tensor eye(a->dtype(), a->shape());
    int64_t m = a->dim(rank - 1);
    dispatchStorage(a->dtype(), [&](auto tag) {
      using T = decltype(tag);
      T *o = eye.template data<T>();
      for (int64_t i = 0; i < eye.numel(); ++i)
        if ((i / m) % m == i % m)
          o[i] = T(1);
      return 0;
    });
    return RtValue(eye);
  }
  Tensor base = *a;
  if (*n < 0) {
    FailureOr<Tensor> inverse = callTensor(args, "torch.linalg.inv", {{"input", RtValue(base)}});
    if (failed(inverse))
      return failure();
    base = *inverse;
  }
  int64_t k = std::abs(*n);
  auto matmulOf = [&](const Tensor &x, const Tensor &y) {
    return callTensor(args, "torch.matmul", {{"input", RtValue(x)}, {"other", RtValue(y)}});
  };
  if (k == 1)
    return RtValue(copyOf(base));
  if (k == 2 || k == 3) {
    FailureOr<Tensor> sq = matmulOf(base, base);
    if (failed(sq))
      return failure();
    if (k == 2)
      return RtValue(*sq);
    FailureOr<Tensor> cube = matmulOf(*sq, base);
    if (failed(cube))
      return failure();
    return RtValue(*cube);
  }
  std::optional<Tensor> z, result;
  while (k > 0) {
    if (z) {
      FailureOr<Tensor> next = matmulOf(*z, *z);
      if (failed(next))
        return failure();
      z = *next;
    } else {
      z = base;
    }
    if (k & 1) {
      if (result) {
        FailureOr<Tensor> next = matmulOf(*result, *z);
        if (failed(next))
          return failure();
        result = *next;
      } else {
        result = copyOf(*z);
      }
    }
    k >>= 1;
  }
  return RtValue(*result);
}

/// dist: the p-norm of input - other.
static FailureOr<RtValue> dist(const KernelArgs &args) {
  FailureOr<Tensor> diff = callTensor(
      args, "torch.sub", {{"input", args.get("input")}, {"other", args.get("other")}});
  if (failed(diff))
    return failure();
  return callEntry(args, "torch.linalg.vector_norm",
                   {{"input", RtValue(*diff)}, {"ord", args.get("p")}});
}

/// Complex values along one dim of a row-major [outer, size, inner]
/// array: `re` and `im` (empty: all zeros).
struct Spectrum {
  std::vector<double> re, im;
  SmallVector<int64_t> shape;
};

/// cos and sin of 2 pi k / n, k reduced mod n first (exact for every n).
static std::pair<double, double> twiddle(int64_t k, int64_t n) {
  double angle = 2.0 * M_PI * static_cast<double>(k % n) / static_cast<double>(n);
  return {std::cos(angle), std::sin(angle)};
}

/// The inverse DFT of `n` points along dim `d` (the input cropped or
/// zero-padded to n): out[m] = sum_k x[k] e^{+2 pi i m k / n}.
static Spectrum inverseDft(const Spectrum &x, int64_t d, int64_t n) {
  auto [outer, inner] = outerInner(x.shape, d);
  int64_t size = x.shape[d], used = std::min(size, n);
  Spectrum y;
  y.shape = x.shape;
  y.shape[d] = n;
  y.re.assign(outer * n * inner, 0.0);
  y.im.assign(outer * n * inner, 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t m = 0; m < n; ++m)
      for (int64_t k = 0; k < used; ++k) {
        auto [c, sn] = twiddle(m * k, n);
        for (int64_t i = 0; i < inner; ++i) {
          int64_t src = (o * size + k) * inner + i, dst = (o * n + m) * inner + i;
          double re = x.re[src], im = x.im.empty() ? 0.0 : x.im[src];
          y.re[dst] += re * c - im * sn;
          y.im[dst] += re * sn + im * c;
        }
      }
  return y;
}

/// The real inverse DFT of `n` points along dim `d` of Hermitian input (bins
/// 0 .. n/2, cropped or zero-padded to them; the imaginary parts of bin 0
/// and, for even n, bin n/2 ignored, as pocketfft's c2r does), scaled.
static std::vector<double> hermitianDft(const Spectrum &x, int64_t d,
                                        int64_t n, double scale) {
  auto [outer, inner] = outerInner(x.shape, d);
  int64_t size = x.shape[d], used = std::min(size, n / 2 + 1);
  std::vector<double> y(outer * n * inner, 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t t = 0; t < n; ++t)
      for (int64_t j = 0; j < used; ++j) {
        auto [c, sn] = twiddle(t * j, n);
        double w = (j == 0 || 2 * j == n) ? 1.0 : 2.0;
        for (int64_t i = 0; i < inner; ++i) {
          int64_t src = (o * size + j) * inner + i;
          double im = x.im.empty() ? 0.0 : x.im[src];
          y[(o * n + t) * inner + i] += w * (x.re[src] * c - im * sn);
        }
      }
  for (double &v : y)
    v *= scale;
  return y;
}

/// torch.fft.irfft/irfft2/irfftn (`Hermitian`: hfft, hfft2, hfftn) of a
/// real input: decodeFftC2R's transforms, exact DFT sums in double.
template <bool Hermitian>
static FailureOr<RtValue> fftC2R(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  FftC2R fft;
  if (failed(kernels::decodeArgs(
          args, "FFT", [&](const ArgReader &reader, std::string &error) {
            return decodeFftC2R(args.signature(), reader, in->shape(),
                                Hermitian, Hermitian ? "hfftn" : "irfftn",
                                fft, error);
          })))
    return failure();
  DType dt = toFloatingDType(in->dtype());
  if (dt != DType::F32 && dt != DType::F64)
    return args.emitError() << "Unsupported dtype " << dtypeName(dt);
  Spectrum x;
  x.shape.assign(in->shape().begin(), in->shape().end());
  x.re.resize(in->numel());
  for (int64_t i = 0; i < in->numel(); ++i)
    x.re[i] = in->getDouble(i);
  for (size_t i = 0; i + 1 < fft.dims.size(); ++i)
    x = inverseDft(x, fft.dims[i], fft.sizes[i]);
  std::vector<double> y =
      hermitianDft(x, fft.dims.back(), fft.lastSize, fft.scale);
  Tensor out(dt, fft.resultShape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setDouble(i, y[i]);
  return RtValue(out);
}

/// The input, the window (none for window=None) and decodeStft's or
/// decodeIstft's frames of torch.stft/istft; the result's dtype (float64
/// with a float64 window) and the window padded to n_fft.
struct StftCall {
  Tensor input;
  std::optional<Tensor> window;
  Stft stft;
  DType dtype;
  std::vector<double> padded;
};

static FailureOr<StftCall> readStft(const KernelArgs &args, bool inverse) {
  StftCall c;
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in) || failed(kernels::optionalArg(args, "window",
                                                &KernelArgs::tensor, c.window)))
    return failure();
  c.input = *in;
  std::optional<ArrayRef<int64_t>> windowShape;
  if (c.window)
    windowShape = c.window->shape();
  if (failed(kernels::decodeArgs(
          args, inverse ? "istft" : "stft",
          [&](const ArgReader &reader, std::string &error) {
            return inverse ? decodeIstft(reader, c.input.shape(), windowShape,
                                         c.stft, error)
                           : decodeStft(reader, c.input.shape(), windowShape,
                                        c.stft, error);
          })))
    return failure();
  c.dtype = c.window && c.window->dtype() == DType::F64 ? DType::F64
                                                         : c.input.dtype();
  if (c.dtype != DType::F32 && c.dtype != DType::F64)
    return args.emitError() << (inverse ? "istft" : "stft")
                            << ": expected a float32 or float64 tensor, got "
                            << dtypeName(c.input.dtype());
  const Stft &s = c.stft;
  c.padded.assign(s.nFft, 0.0);
  int64_t left = (s.nFft - s.winLength) / 2;
  for (int64_t i = 0; i < s.winLength; ++i)
    c.padded[left + i] = c.window ? c.window->getDouble(i) : 1.0;
  return c;
}

/// torch.stft of a real signal (docs/fft.md): per frame of the padded
/// signal, the DFT of the frame times the window, exact sums in double;
/// [..., bin, frame, (re, im)].
static FailureOr<RtValue> stftKernel(const KernelArgs &args) {
  FailureOr<StftCall> c = readStft(args, /*inverse=*/false);
  if (failed(c))
    return failure();
  const Stft &s = c->stft;
  int64_t batch = c->input.shape().size() == 2 ? c->input.shape()[0] : 1;
  double scale = s.normalized ? 1.0 / std::sqrt(static_cast<double>(s.nFft))
                              : 1.0;
  Tensor out(c->dtype, s.resultShape);
  std::vector<double> frame(s.nFft);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t f = 0; f < s.frames; ++f) {
      for (int64_t t = 0; t < s.nFft; ++t) {
        int64_t src = s.source(f * s.hop + t);
        frame[t] = src < 0 ? 0.0
                           : c->input.getDouble(b * s.length + src) *
                                 c->padded[t];
      }
      for (int64_t k = 0; k < s.bins; ++k) {
        double re = 0.0, im = 0.0;
        for (int64_t t = 0; t < s.nFft; ++t) {
          auto [cs, sn] = twiddle(k * t, s.nFft);
          re += frame[t] * cs;
          im -= frame[t] * sn;
        }
        int64_t at = ((b * s.bins + k) * s.frames + f) * 2;
        out.setDouble(at, re * scale);
        out.setDouble(at + 1, im * scale);
      }
    }
  return RtValue(out);
}

/// torch.istft of a real spectrum [..., bin, frame, (re, im)] (docs/fft.md):
/// per frame the real inverse DFT of bins 0 .. n_fft / 2 (the imaginary
/// parts of bins 0 and n_fft / 2 dropped, as c2r does), times the window,
/// overlap-added and divided by the overlap-added squared window (an error
/// where that is below 1e-11), trimmed to [start, stop), zeros past it.
static FailureOr<RtValue> istftKernel(const KernelArgs &args) {
  FailureOr<StftCall> c = readStft(args, /*inverse=*/true);
  if (failed(c))
    return failure();
  const Stft &s = c->stft;
  int64_t n = s.nFft, half = n / 2 + 1;
  std::vector<double> envelope(s.added, 0.0);
  for (int64_t f = 0; f < s.frames; ++f)
    for (int64_t t = 0; t < n; ++t)
      envelope[f * s.hop + t] += c->padded[t] * c->padded[t];
  for (int64_t i = s.start; i < s.stop; ++i)
    if (std::abs(envelope[i]) < 1e-11)
      return args.emitError()
             << "istft: window overlap add min: 1 (the overlap-added squared "
             << "window is below 1e-11 at sample " << i << ")";
  int64_t batch = c->input.shape().size() == 4 ? c->input.shape()[0] : 1;
  double scale = s.normalized ? 1.0 / std::sqrt(static_cast<double>(n))
                              : 1.0 / static_cast<double>(n);
  Tensor out(c->dtype, s.resultShape);
  std::vector<double> y(s.added);
  for (int64_t b = 0; b < batch; ++b) {
    std::fill(y.begin(), y.end(), 0.0);
    for (int64_t f = 0; f < s.frames; ++f)
      for (int64_t t = 0; t < n; ++t) {
        double v = 0.0;
        for (int64_t j = 0; j < half; ++j) {
          int64_t at = ((b * s.bins + j) * s.frames + f) * 2;
          bool edge = j == 0 || 2 * j == n;
          auto [cs, sn] = twiddle(j * t, n);
          double term = c->input.getDouble(at) * cs;
          if (!edge)
            term -= c->input.getDouble(at + 1) * sn;
          v += edge ? term : 2.0 * term;
        }
        y[f * s.hop + t] += v * scale * c->padded[t];
      }
    for (int64_t i = 0; i < s.outLength; ++i) {
      int64_t src = s.start + i;
      out.setDouble(b * s.outLength + i,
                    src < s.stop ? y[src] / envelope[src] : 0.0);
    }
  }
  return RtValue(out);
}

/// torch 1.13's nn.functional._scaled_dot_product_attention on the CPU
/// (_scaled_dot_product_attention_math): the query times 1/sqrt(E), its
/// product with key^T, plus the mask (a bool one, or is_causal's lower
/// triangle, as 0 where kept and -inf elsewhere; add_ keeps the weights'
/// dtype), softmax over the last dim (times 0 for dropout_p = 1), times
/// value. The rule refuses 0 < dropout_p < 1 (random).
static FailureOr<RtValue> scaledDotProductAttention(const KernelArgs &args) {
  FailureOr<Tensor> q = args.tensor("query"), k = args.tensor("key");
  FailureOr<bool> causal = args.getBool("is_causal");
  if (failed(q) || failed(k) || failed(causal))
    return failure();
  double factor = 1.0 / std::sqrt(static_cast<double>(q->shape().back()));
  FailureOr<Tensor> scaled =
      callTensor(args, "torch.mul",
                 {{"input", RtValue(*q)}, {"other", RtValue::ofFloat(factor)}});
  FailureOr<Tensor> keyT =
      callTensor(args, "torch.transpose",
                 {{"input", RtValue(*k)}, {"dim0", RtValue::ofInt(-2)},
                  {"dim1", RtValue::ofInt(-1)}});
  if (failed(scaled) || failed(keyT))
    return failure();
  FailureOr<Tensor> attn = callTensor(
      args, "torch.matmul", {{"input", RtValue(*scaled)}, {"other", RtValue(*keyT)}});
  if (failed(attn))
    return failure();
  std::optional<Tensor> mask;
  if (*causal) {
    int64_t l = attn->shape()[attn->rank() - 2], s = attn->shape().back();
    Tensor tri(DType::Bool, {l, s});
    for (int64_t i = 0; i < l; ++i)
      for (int64_t j = 0; j <= std::min(i, s - 1); ++j)
        tri.setDouble(i * s + j, 1.0);
    mask = tri;
  } else if (!args.isNone("attn_mask")) {
    FailureOr<Tensor> m = args.tensor("attn_mask");
    if (failed(m))
      return failure();
    mask = *m;
  }
  if (mask) {
    if (mask->dtype() == DType::Bool) {
      Tensor additive(attn->dtype(), mask->shape());
      for (int64_t i = 0; i < additive.numel(); ++i)
        if (mask->getDouble(i) == 0.0)
          additive.setDouble(i, -std::numeric_limits<double>::infinity());
      mask = additive;
    }
    FailureOr<Tensor> sum = callTensor(
        args, "torch.add", {{"input", RtValue(*attn)}, {"other", RtValue(*mask)}});
    if (failed(sum))
      return failure();
    attn = sum->to(attn->dtype());
  }
  FailureOr<Tensor> weights =
      callTensor(args, "torch.nn.functional.softmax",
                 {{"input", RtValue(*attn)}, {"dim", RtValue::ofInt(-1)}});
  FailureOr<double> p = args.getFloat("dropout_p");
  if (failed(weights) || failed(p))
    return failure();
  if (*p == 1.0) // dropout of every weight: times a zero (NaN stays NaN)
    weights = callTensor(
        args, "torch.mul", {{"input", RtValue(*weights)}, {"other", RtValue::ofFloat(0.0)}});
  if (failed(weights))
    return failure();
  FailureOr<Tensor> out =
      callTensor(args, "torch.matmul",
                 {{"input", RtValue(*weights)}, {"other", args.get("value")}});
  if (failed(out))
    return failure();
  return RtValue::ofList({RtValue(*out), RtValue(*weights)}, /*isTuple=*/true);
}

} // namespace mlir::traced::kernels

void mlir::traced::kernels::populateLinalgKernels(KernelTable &table) {
  table["Tensor.__rmatmul__"] = rmatmul;
  table["torch.addr"] = addr;
  table["torch.inner"] = inner;
  table["torch.kron"] = kron;
  table["torch.fft.irfft"] = fftC2R<false>;
  table["torch.fft.irfft2"] = fftC2R<false>;
  table["torch.fft.irfftn"] = fftC2R<false>;
  table["torch.fft.hfft"] = fftC2R<true>;
  table["torch.fft.hfft2"] = fftC2R<true>;
  table["torch.fft.hfftn"] = fftC2R<true>;
  table["torch.functional.stft"] = stftKernel;
  table["torch.istft"] = istftKernel;
  table["torch.nn.functional._scaled_dot_product_attention"] =
      scaledDotProductAttention;
  table["torch.tensordot"] = tensordot;
  table["torch.linalg.vecdot"] = vecdot;
  table["torch.linalg.multi_dot"] = multiDot;
  table["torch.linalg.matrix_power"] = matrixPower;
  table["torch.dist"] = dist;
  table["torch.ops.aten._trilinear.default"] = trilinear;
  table["torch.nn.functional.conv1d"] = conv;
  table["torch.nn.functional.conv2d"] = conv;
  table["torch.nn.functional.conv3d"] = conv;
  table["torch.nn.functional.conv_transpose1d"] = conv;
  table["torch.nn.functional.conv_transpose2d"] = conv;
  table["torch.nn.functional.conv_transpose3d"] = conv;
  table["torch.convolution"] = conv;
  table["torch.conv_tbc"] = convTbc;
  table["torch.ops.aten.convolution_backward.default"] = convolutionBackward;
  table["torch.nn.functional.linear"] = linear;
  table["torch.matmul"] = matmul;
  table["torch.bmm"] = bmm;
  table["torch.mm"] = mm;
  table["torch.baddbmm"] = baddbmm;
  table["torch.einsum"] = einsum;
  table["torch.addmm"] = addmm;
  table["torch.addmv"] = addmv;
  table["torch.mv"] = mv;
  table["torch.dot"] = dot;
  table["torch.outer"] = outer;
  table["torch.nn.functional.multi_head_attention_forward"] = multiHeadAttention;
  table["torch.nn.functional.bilinear"] = bilinear;
  table["traced.nn.rnn"] = recurrent;
  table["traced.nn.rnn_cell"] = recurrentCell;
  table["torch.linalg.det"] = det;
  table["torch.linalg.slogdet"] = slogdet;
  table["torch.logdet"] = logdet;
  table["torch.linalg.inv"] = inv;
  table["torch.linalg.cholesky"] = cholesky;
  table["torch.linalg.cholesky_ex"] = cholesky;
  table["torch.cholesky"] = cholesky;
  table["torch.linalg.lu_factor"] = luFactorKernel;
  table["torch.linalg.lu_factor_ex"] = luFactorKernel;
  table["torch.linalg.solve"] = solve;
  table["torch.linalg.solve_ex"] = solve;
  table["torch.linalg.inv_ex"] = solve;
  table["torch.linalg.qr"] = qr;
  table["torch.qr"] = qr;
  table["torch.linalg.svd"] = svd;
  table["torch.svd"] = svd;
  table["torch.linalg.svdvals"] = svd;
  table["torch.linalg.eigh"] = eigh;
  table["torch.linalg.eigvalsh"] = eigvalsh;
  table["torch.linalg.solve_triangular"] = triangularSolve;
  table["torch.triangular_solve"] = triangularSolve;
  table["torch.linalg.lu_solve"] = luSolveKernel;
  table["torch.lu_solve"] = luSolveKernel;
  table["torch.cholesky_solve"] = choleskySolve;
  table["torch.cholesky_inverse"] = choleskyInverse;
  table["torch.lu_unpack"] = luUnpackKernel;
  table["torch.linalg.lu"] = luUnpackKernel;
  table["torch.functional.lu"] = luWithInfo;
  table["torch.symeig"] = eigh;
  table["torch.geqrf"] = householderKernel;
  table["torch.linalg.householder_product"] = householderKernel;
  table["torch.ormqr"] = householderKernel;
  table["torch.linalg.tensorinv"] = tensorInverseKernel;
  table["torch.linalg.tensorsolve"] = tensorInverseKernel;
  table["torch.linalg.lstsq"] = lstsq;
  table["torch.linalg.ldl_factor"] = ldlFactorKernel;
  table["torch.linalg.ldl_factor_ex"] = ldlFactorKernel;
  table["torch.linalg.ldl_solve"] = ldlSolveKernel;
  table["torch.linalg.matrix_exp"] = matrixExpKernel;
  table["torch.linalg.matrix_rank"] = matrixRank;
  table["torch.linalg.cond"] = cond;
  table["torch.linalg.pinv"] = pinv;
  table["torch.pinverse"] = pinv;
  table["torch.addbmm"] = addbmm;
  table["torch.linalg.cross"] = cross;
  table["torch.cross"] = cross;
}
