//===- LinalgRuntime.cpp - LAPACK factorizations for traced code ----------===//
//
// The routines of include/TracedIR/Runtime/LinalgRuntime.h over LAPACK's
// Fortran entry points (OpenBLAS: spotrf_, dgetrf_, sgesdd_, ...), and the
// memref-ABI entry points compiled code calls. No C++ runtime is used (no
// exceptions, no operator new, no STL containers), so the static archive
// links into an AOT library with a C linker (docs/linalg-runtime.md).
//
// LAPACK is column-major: each matrix is copied transposed into a
// column-major scratch buffer, as torch's kernels copy their inputs into
// batched column-major tensors, so LAPACK sees the same matrix torch's call
// sees and pivots and signs come out the same.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Runtime/LinalgRuntime.h"
#include "MemrefAbi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


// LAPACK's and BLAS's Fortran entry points (all arguments by reference).
extern "C" {
#define TRACED_DECLARE_LAPACK(T, p)                                            \
  void p##potrf_(const char *, const int *, T *, const int *, int *);          \
  void p##potrs_(const char *, const int *, const int *, const T *,           \
                 const int *, T *, const int *, int *);                        \
  void p##potri_(const char *, const int *, T *, const int *, int *);          \
  void p##getrf_(const int *, const int *, T *, const int *, int *, int *);    \
  void p##getrs_(const char *, const int *, const int *, const T *,            \
                 const int *, const int *, T *, const int *, int *);           \
  void p##geqrf_(const int *, const int *, T *, const int *, T *, T *,         \
                 const int *, int *);                                          \
  void p##orgqr_(const int *, const int *, const int *, T *, const int *,      \
                 const T *, T *, const int *, int *);                          \
  void p##ormqr_(const char *, const char *, const int *, const int *,        \
                 const int *, const T *, const int *, const T *, T *,          \
                 const int *, T *, const int *, int *);                        \
  void p##gesdd_(const char *, const int *, const int *, T *, const int *,     \
                 T *, T *, const int *, T *, const int *, T *, const int *,    \
                 int *, int *);                                                \
  void p##syevd_(const char *, const char *, const int *, T *, const int *,    \
                 T *, T *, const int *, int *, const int *, int *);            \
  void p##trsm_(const char *, const char *, const char *, const char *,        \
                const int *, const int *, const T *, const T *, const int *,   \
                T *, const int *);                                             \
  void p##gemm_(const char *, const char *, const int *, const int *,          \
                const int *, const T *, const T *, const int *, const T *,     \
                const int *, const T *, T *, const int *);                     \
  void p##gels_(const char *, const int *, const int *, const int *, T *,      \
                const int *, T *, const int *, T *, const int *, int *);       \
  void p##gelsy_(const int *, const int *, const int *, T *, const int *, T *, \
                 const int *, int *, const T *, int *, T *, const int *,       \
                 int *);                                                       \
  void p##gelsd_(const int *, const int *, const int *, T *, const int *, T *, \
                 const int *, T *, const T *, int *, T *, const int *, int *,  \
                 int *);                                                       \
  void p##gelss_(const int *, const int *, const int *, T *, const int *, T *, \
                 const int *, T *, const T *, int *, T *, const int *, int *); \
  void p##sytrf_(const char *, const int *, T *, const int *, int *, T *,      \
                 const int *, int *);                                          \
  void p##sytrs_(const char *, const int *, const int *, const T *,           \
                 const int *, const int *, T *, const int *, int *);
TRACED_DECLARE_LAPACK(float, s)
TRACED_DECLARE_LAPACK(double, d)
#undef TRACED_DECLARE_LAPACK
}

namespace {

/// The LAPACK routines of one element type.
template <typename T> struct Lapack;
#define TRACED_LAPACK_TRAITS(T, p)                                             \
  template <> struct Lapack<T> {                                               \
    static constexpr auto potrf = p##potrf_;                                   \
    static constexpr auto potrs = p##potrs_;                                   \
    static constexpr auto potri = p##potri_;                                   \
    static constexpr auto getrf = p##getrf_;                                   \
    static constexpr auto getrs = p##getrs_;                                   \
    static constexpr auto geqrf = p##geqrf_;                                   \
    static constexpr auto orgqr = p##orgqr_;                                   \
    static constexpr auto ormqr = p##ormqr_;                                   \
    static constexpr auto gesdd = p##gesdd_;                                   \
    static constexpr auto syevd = p##syevd_;                                   \
    static constexpr auto trsm = p##trsm_;                                     \
    static constexpr auto gemm = p##gemm_;                                     \
    static constexpr auto gels = p##gels_;                                     \
    static constexpr auto gelsy = p##gelsy_;                                   \
    static constexpr auto gelsd = p##gelsd_;                                   \
    static constexpr auto gelss = p##gelss_;                                   \
    static constexpr auto sytrf = p##sytrf_;                                   \
    static constexpr auto sytrs = p##sytrs_;                                   \
  };
TRACED_LAPACK_TRAITS(float, s)
TRACED_LAPACK_TRAITS(double, d)
#undef TRACED_LAPACK_TRAITS

/// A malloc'ed scratch array, freed at scope exit.
template <typename T> struct Scratch {
  T *p;
  explicit Scratch(int64_t n)
      : p(static_cast<T *>(malloc(sizeof(T) * (n > 0 ? n : 1)))) {}
  ~Scratch() { free(p); }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  T &operator[](int64_t i) { return p[i]; }
};

/// Row-major (rows, cols) `src` into column-major `dst` (leading dim `ld`).
template <typename T>
void toColumns(const T *src, T *dst, int64_t rows, int64_t cols, int64_t ld) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      dst[j * ld + i] = src[i * cols + j];
}

/// Column-major (leading dim `ld`) `src` into row-major (rows, cols) `dst`.
template <typename T>
void toRows(const T *src, T *dst, int64_t rows, int64_t cols, int64_t ld) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      dst[i * cols + j] = src[j * ld + i];
}

int ld(int64_t rows) { return rows > 1 ? static_cast<int>(rows) : 1; }

int32_t firstNonzero(const int32_t *info, int64_t batch) {
  for (int64_t b = 0; b < batch; ++b)
    if (info[b] != 0)
      return info[b];
  return 0;
}

/// The optimal workspace size LAPACK reported in `query`.
template <typename T> int workSize(T query) {
  int size = static_cast<int>(query);
  return size > 1 ? size : 1;
}

/// Calls `call(work, lwork)` as LAPACK's routines want it: a workspace
/// query (lwork -1), then with a workspace of the size it asked for.
template <typename T, typename Call> void withWorkspace(Call call) {
  int lwork = -1;
  T query = T(0);
  call(&query, &lwork);
  lwork = workSize(query);
  Scratch<T> work(lwork);
  call(work.p, &lwork);
}

/// LAPACK over each of the `batch` row-major (m, n) matrices of `in`:
/// `call(b, w)` runs on `w`, a column-major copy of matrix b (leading dim
/// m), and returns LAPACK's info; `w` is then copied back into matrix b of
/// `out` (row-major) unless `out` is null. Returns the first nonzero info.
template <typename T, typename Call>
int32_t eachInColumns(const T *in, T *out, int64_t batch, int64_t m,
                      int64_t n, Call call) {
  Scratch<T> w(m * n);
  int32_t first = 0;
  for (int64_t b = 0; b < batch; ++b) {
    toColumns(in + b * m * n, w.p, m, n, m);
    int32_t info = call(b, w.p);
    if (info != 0 && first == 0)
      first = info;
    if (out)
      toRows(w.p, out + b * m * n, m, n, m);
  }
  return first;
}

/// The same over pairs: each read-only (r, c) matrix of `a` (column-major
/// copy `aw`) with the (m, n) matrix of `rhs` the routine overwrites (`bw`,
/// copied into `out`): `call(b, aw, bw)` returns LAPACK's info.
template <typename T, typename Call>
int32_t eachPairInColumns(const T *a, int64_t r, int64_t c, const T *rhs,
                          T *out, int64_t batch, int64_t m, int64_t n,
                          Call call) {
  Scratch<T> aw(r * c);
  return eachInColumns(rhs, out, batch, m, n, [&](int64_t b, T *bw) {
    toColumns(a + b * r * c, aw.p, r, c, r);
    return call(b, aw.p, bw);
  });
}

template <typename T>
int32_t cholesky(const T *a, T *out, int32_t *info, int64_t batch, int64_t n,
                 bool upper) {
  int nn = static_cast<int>(n), lda = ld(n);
  char uplo = upper ? 'U' : 'L';
  return eachInColumns(a, out, batch, n, n, [&](int64_t b, T *w) {
    int i = 0;
    if (n > 0)
      Lapack<T>::potrf(&uplo, &nn, w, &lda, &i);
    // The other triangle zeroed ((r, c) is w[c * n + r]).
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < n; ++c)
        if (upper ? c < r : c > r)
          w[c * n + r] = T(0);
    return info[b] = i;
  });
}

template <typename T>
int32_t choleskySolve(const T *factor, const T *rhs, T *x, int64_t batch,
                      int64_t n, int64_t k, bool upper) {
  int nn = static_cast<int>(n), kk = static_cast<int>(k), lda = ld(n);
  char uplo = upper ? 'U' : 'L';
  return eachPairInColumns(factor, n, n, rhs, x, batch, n, k,
                           [&](int64_t, T *aw, T *bw) {
                             int i = 0;
                             if (n > 0 && k > 0)
                               Lapack<T>::potrs(&uplo, &nn, &kk, aw, &lda, bw,
                                                &lda, &i);
                             return i;
                           });
}

template <typename T>
int32_t choleskyInverse(const T *factor, T *out, int32_t *info, int64_t batch,
                        int64_t n, bool upper) {
  int nn = static_cast<int>(n), lda = ld(n);
  char uplo = upper ? 'U' : 'L';
  return eachInColumns(factor, static_cast<T *>(nullptr), batch, n, n,
                       [&](int64_t b, T *w) {
    int i = 0;
    if (n > 0)
      Lapack<T>::potri(&uplo, &nn, w, &lda, &i);
    // potri writes one triangle; the inverse is symmetric (torch copies it).
    T *o = out + b * n * n;
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < n; ++c) {
        bool stored = upper ? c >= r : c <= r;
        o[r * n + c] = stored ? w[c * n + r] : w[r * n + c];
      }
    return info[b] = i;
  });
}

template <typename T>
int32_t luFactor(const T *a, T *lu, int32_t *pivots, int32_t *info,
                 int64_t batch, int64_t m, int64_t n) {
  int64_t k = m < n ? m : n;
  Scratch<int> ipiv(k);
  int mm = static_cast<int>(m), nn = static_cast<int>(n), lda = ld(m);
  return eachInColumns(a, lu, batch, m, n, [&](int64_t b, T *w) {
    int i = 0;
    if (k > 0)
      Lapack<T>::getrf(&mm, &nn, w, &lda, ipiv.p, &i);
    for (int64_t j = 0; j < k; ++j)
      pivots[b * k + j] = ipiv[j];
    return info[b] = i;
  });
}

template <typename T>
int32_t luUnpack(const T *lu, const int32_t *pivots, T *p, T *l, T *u,
                 int64_t batch, int64_t m, int64_t n, bool data,
                 bool permutation) {
  int64_t k = m < n ? m : n;
  Scratch<int64_t> perm(m);
  for (int64_t b = 0; b < batch; ++b) {
    const T *f = lu + b * m * n;
    if (data) {
      T *lo = l + b * m * k, *uo = u + b * k * n;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < k; ++j)
          lo[i * k + j] = i > j ? f[i * n + j] : i == j ? T(1) : T(0);
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < n; ++j)
          uo[i * n + j] = j >= i ? f[i * n + j] : T(0);
    }
    if (!permutation)
      continue;
    // The row interchanges applied in order: P^T A = L U, so P's column i
    // has its one in row perm[i].
    for (int64_t i = 0; i < m; ++i)
      perm[i] = i;
    for (int64_t i = 0; i < k; ++i) {
      int64_t q = pivots[b * k + i] - 1;
      if (q < 0 || q >= m)
        return -1;
      int64_t t = perm[i];
      perm[i] = perm[q];
      perm[q] = t;
    }
    T *po = p + b * m * m;
    for (int64_t e = 0; e < m * m; ++e)
      po[e] = T(0);
    for (int64_t i = 0; i < m; ++i)
      po[perm[i] * m + i] = T(1);
  }
  return 0;
}

/// Batch b's n 1-based pivots as LAPACK's ints.
void pivotsOf(const int32_t *pivots, int *ipiv, int64_t b, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    ipiv[j] = pivots[b * n + j];
}

template <typename T>
int32_t luSolve(const T *lu, const int32_t *pivots, const T *rhs, T *x,
                int64_t batch, int64_t n, int64_t k, bool adjoint) {
  Scratch<int> ipiv(n);
  int nn = static_cast<int>(n), kk = static_cast<int>(k), lda = ld(n);
  char trans = adjoint ? 'T' : 'N';
  return eachPairInColumns(lu, n, n, rhs, x, batch, n, k,
                           [&](int64_t b, T *aw, T *bw) {
                             pivotsOf(pivots, ipiv.p, b, n);
                             int i = 0;
                             if (n > 0 && k > 0)
                               Lapack<T>::getrs(&trans, &nn, &kk, aw, &lda,
                                                ipiv.p, bw, &lda, &i);
                             return i;
                           });
}

template <typename T>
int32_t qr(const T *a, T *q, T *r, int64_t batch, int64_t m, int64_t n,
           int64_t mode) {
  int64_t k = m < n ? m : n;
  int64_t qCols = mode == 1 ? m : k, rRows = mode == 1 ? m : k;
  // Column-major work of m x max(n, qCols): geqrf on its first n columns,
  // then orgqr forms Q's qCols columns in place.
  int64_t cols = n > qCols ? n : qCols;
  Scratch<T> w(m * cols), tau(k);
  int mm = static_cast<int>(m), nn = static_cast<int>(n),
      kk = static_cast<int>(k), qc = static_cast<int>(qCols), lda = ld(m);
  int32_t first = 0;
  for (int64_t bi = 0; bi < batch; ++bi) {
    toColumns(a + bi * m * n, w.p, m, n, m);
    int info = 0;
    if (k > 0)
      withWorkspace<T>([&](T *work, int *lwork) {
        Lapack<T>::geqrf(&mm, &nn, w.p, &lda, tau.p, work, lwork, &info);
      });
    T *ro = r + bi * rRows * n;
    for (int64_t i = 0; i < rRows; ++i)
      for (int64_t j = 0; j < n; ++j)
        ro[i * n + j] = j >= i ? w[j * m + i] : T(0);
    if (mode != 2) {
      if (qCols > 0 && m > 0)
        withWorkspace<T>([&](T *work, int *lwork) {
          Lapack<T>::orgqr(&mm, &qc, &kk, w.p, &lda, tau.p, work, lwork,
                           &info);
        });
      toRows(w.p, q + bi * m * qCols, m, qCols, m);
    }
    if (info != 0 && first == 0)
      first = info;
  }
  return first;
}

/// geqrf: the reflectors below the diagonal, R on and above it, and tau.
template <typename T>
int32_t geqrf(const T *a, T *out, T *tau, int64_t batch, int64_t m,
              int64_t n) {
  int64_t k = m < n ? m : n;
  int mm = static_cast<int>(m), nn = static_cast<int>(n), lda = ld(m);
  return eachInColumns(a, out, batch, m, n, [&](int64_t b, T *w) {
    int info = 0;
    if (k > 0)
      withWorkspace<T>([&](T *work, int *lwork) {
        Lapack<T>::geqrf(&mm, &nn, w, &lda, tau + b * k, work, lwork, &info);
      });
    return info;
  });
}

/// orgqr: the first n columns of the product of k reflectors (m x n).
template <typename T>
int32_t householderProduct(const T *a, const T *tau, T *out, int64_t batch,
                           int64_t m, int64_t n, int64_t k) {
  int mm = static_cast<int>(m), nn = static_cast<int>(n),
      kk = static_cast<int>(k), lda = ld(m);
  return eachInColumns(a, out, batch, m, n, [&](int64_t b, T *w) {
    int info = 0;
    if (m > 0 && n > 0)
      withWorkspace<T>([&](T *work, int *lwork) {
        Lapack<T>::orgqr(&mm, &nn, &kk, w, &lda, tau + b * k, work, lwork,
                         &info);
      });
    return info;
  });
}

/// ormqr: op(Q) C (`left`) or C op(Q) for the (m, n) C, Q the product of
/// the k reflectors of the (r, k) `a` (r = m with `left`, else n).
template <typename T>
int32_t applyQ(const T *a, const T *tau, const T *c, T *out, int64_t batch,
               int64_t m, int64_t n, int64_t k, bool left, bool transpose) {
  int64_t r = left ? m : n;
  char side = left ? 'L' : 'R', trans = transpose ? 'T' : 'N';
  int mm = static_cast<int>(m), nn = static_cast<int>(n),
      kk = static_cast<int>(k), lda = ld(r), ldc = ld(m);
  return eachPairInColumns(a, r, k, c, out, batch, m, n,
                           [&](int64_t b, T *aw, T *cw) {
    int info = 0;
    if (m > 0 && n > 0 && k > 0)
      withWorkspace<T>([&](T *work, int *lwork) {
        Lapack<T>::ormqr(&side, &trans, &mm, &nn, &kk, aw, &lda, tau + b * k,
                         cw, &ldc, work, lwork, &info);
      });
    return info;
  });
}

template <typename T>
int32_t svd(const T *a, T *u, T *s, T *vh, int32_t *info, int64_t batch,
            int64_t m, int64_t n, bool full, bool uv) {
  int64_t k = m < n ? m : n;
  int64_t uCols = full ? m : k, vRows = full ? n : k;
  Scratch<T> uw(uv ? m * uCols : 1), vw(uv ? vRows * n : 1);
  Scratch<int> iwork(8 * k);
  char jobz = !uv ? 'N' : full ? 'A' : 'S';
  int mm = static_cast<int>(m), nn = static_cast<int>(n), lda = ld(m),
      ldu = ld(m), ldvt = ld(vRows);
  return eachInColumns(a, static_cast<T *>(nullptr), batch, m, n,
                       [&](int64_t bi, T *w) {
    int i = 0;
    if (k > 0) {
      withWorkspace<T>([&](T *work, int *lwork) {
        Lapack<T>::gesdd(&jobz, &mm, &nn, w, &lda, s + bi * k, uw.p, &ldu,
                         vw.p, &ldvt, work, lwork, iwork.p, &i);
      });
    } else if (uv) {
      // No singular values: U and Vh are identities (torch's).
      for (int64_t e = 0; e < m * uCols; ++e)
        uw[e] = (e % (m + 1)) == 0 ? T(1) : T(0);
      for (int64_t e = 0; e < vRows * n; ++e)
        vw[e] = (e % (vRows + 1)) == 0 ? T(1) : T(0);
    }
    if (uv) {
      toRows(uw.p, u + bi * m * uCols, m, uCols, m);
      toRows(vw.p, vh + bi * vRows * n, vRows, n, vRows);
    }
    return info[bi] = i;
  });
}

template <typename T>
int32_t eigh(const T *a, T *w, T *v, int32_t *info, int64_t batch, int64_t n,
             bool upper, bool vectors) {
  char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  int nn = static_cast<int>(n), lda = ld(n);
  return eachInColumns(a, vectors ? v : nullptr, batch, n, n,
                       [&](int64_t bi, T *work0) {
    int i = 0;
    if (n > 0) {
      int lwork = -1, liwork = -1, iquery = 0;
      T query;
      Lapack<T>::syevd(&jobz, &uplo, &nn, work0, &lda, w + bi * n, &query,
                       &lwork, &iquery, &liwork, &i);
      lwork = workSize(query);
      liwork = iquery > 1 ? iquery : 1;
      Scratch<T> work(lwork);
      Scratch<int> iwork(liwork);
      Lapack<T>::syevd(&jobz, &uplo, &nn, work0, &lda, w + bi * n, work.p,
                       &lwork, iwork.p, &liwork, &i);
    }
    return info[bi] = i;
  });
}

template <typename T>
int32_t triangularSolve(const T *a, const T *rhs, T *x, int64_t batch,
                        int64_t m, int64_t n, bool left, bool upper,
                        bool transpose, bool unit) {
  int64_t r = left ? m : n;
  char side = left ? 'L' : 'R', uplo = upper ? 'U' : 'L',
       trans = transpose ? 'T' : 'N', diag = unit ? 'U' : 'N';
  int mm = static_cast<int>(m), nn = static_cast<int>(n), lda = ld(r),
      ldb = ld(m);
  T one = T(1);
  eachPairInColumns(a, r, r, rhs, x, batch, m, n, [&](int64_t, T *aw, T *bw) {
    if (m > 0 && n > 0)
      Lapack<T>::trsm(&side, &uplo, &trans, &diag, &mm, &nn, &one, aw, &lda,
                      bw, &ldb);
    return 0;
  });
  return 0;
}

/// gels (driver 0), gelsy (1), gelsd (2) or gelss (3) on each (m, n) A and
/// (m, k) B, as torch's lstsq calls them: B in the first m rows of a
/// (max(m, n), k) buffer, which LAPACK overwrites with the solution (its
/// first n rows, `x`; zeros for m = 0, as torch's) and the residual terms
/// (the rows below: `res` gets their squares' sums, in T); `rank` the
/// effective ranks (not gels) and `s` the min(m, n) singular values
/// (gelsd, gelss). `expect` 1 (2) returns -2 unless every matrix has (a
/// matrix lacks) rank n: compiled code whose residuals' shape (torch
/// returns them only when every rank is n) was fixed when it was traced.
template <typename T>
int32_t lstsq(const T *a, const T *rhs, T *x, T *res, int64_t *rank, T *s,
              int32_t *info, int64_t batch, int64_t m, int64_t n, int64_t k,
              int64_t driver, double rcond, int64_t expect) {
  int64_t rows = m > n ? m : n, mn = m < n ? m : n;
  Scratch<T> aw(m * n), bw(rows * k), none(1);
  Scratch<int> jpvt(n);
  int mm = static_cast<int>(m), nn = static_cast<int>(n),
      kk = static_cast<int>(k), lda = ld(m), ldb = ld(rows);
  T rc = T(rcond);
  char trans = 'N';
  // gelsy's column pivots, as torch 1.13 passes them: one array for the
  // whole batch, so the first matrix's columns are free to pivot (a fresh
  // array; torch's is uninitialized) and the later ones find the previous
  // permutation, all nonzero: every column leading, no pivoting.
  for (int64_t j = 0; j < n; ++j)
    jpvt[j] = 0;
  for (int64_t b = 0; b < batch; ++b) {
    toColumns(a + b * m * n, aw.p, m, n, m);
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < rows; ++i)
        bw[j * rows + i] = i < m ? rhs[b * m * k + i * k + j] : T(0);
    int i = 0, r = 0;
    T *sv = s && mn > 0 ? s + b * mn : none.p;
    if (driver == 0) {
      withWorkspace<T>([&](T *work, int *lwork) {
        Lapack<T>::gels(&trans, &mm, &nn, &kk, aw.p, &lda, bw.p, &ldb, work,
                        lwork, &i);
      });
    } else if (driver == 1) {
      withWorkspace<T>([&](T *work, int *lwork) {
        Lapack<T>::gelsy(&mm, &nn, &kk, aw.p, &lda, bw.p, &ldb, jpvt.p, &rc,
                         &r, work, lwork, &i);
      });
    } else if (driver == 2) {
      int lwork = -1, iquery = 0;
      T query = T(0);
      Lapack<T>::gelsd(&mm, &nn, &kk, aw.p, &lda, bw.p, &ldb, sv, &rc, &r,
                       &query, &lwork, &iquery, &i);
      lwork = workSize(query);
      Scratch<T> work(lwork);
      Scratch<int> iwork(iquery > 1 ? iquery : 1);
      Lapack<T>::gelsd(&mm, &nn, &kk, aw.p, &lda, bw.p, &ldb, sv, &rc, &r,
                       work.p, &lwork, iwork.p, &i);
    } else {
      withWorkspace<T>([&](T *work, int *lwork) {
        Lapack<T>::gelss(&mm, &nn, &kk, aw.p, &lda, bw.p, &ldb, sv, &rc, &r,
                         work, lwork, &i);
      });
    }
    info[b] = i;
    if (rank)
      rank[b] = r;
    for (int64_t j = 0; j < k; ++j) {
      for (int64_t i = 0; i < n; ++i)
        x[(b * n + i) * k + j] = m == 0 ? T(0) : bw[j * rows + i];
      T acc = T(0);
      for (int64_t i = n; i < m; ++i)
        acc += bw[j * rows + i] * bw[j * rows + i];
      res[b * k + j] = acc;
    }
  }
  int32_t first = firstNonzero(info, batch);
  bool full = true;
  for (int64_t b = 0; b < batch && rank; ++b)
    full = full && rank[b] == n;
  if (first == 0 && ((expect == 1 && !full) || (expect == 2 && full)))
    return -2;
  return first;
}

/// sytrf of each symmetric (n, n) matrix's lower triangle (torch's
/// ldl_factor: tril(A), then LAPACK in place; the upper triangle stays 0).
template <typename T>
int32_t ldlFactor(const T *a, T *out, int32_t *pivots, int32_t *info,
                  int64_t batch, int64_t n) {
  Scratch<int> ipiv(n);
  int nn = static_cast<int>(n), lda = ld(n);
  char uplo = 'L';
  return eachInColumns(a, out, batch, n, n, [&](int64_t b, T *w) {
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = r + 1; c < n; ++c)
        w[c * n + r] = T(0);
    int i = 0;
    if (n > 0)
      withWorkspace<T>([&](T *work, int *lwork) {
        Lapack<T>::sytrf(&uplo, &nn, w, &lda, ipiv.p, work, lwork, &i);
      });
    for (int64_t j = 0; j < n; ++j)
      pivots[b * n + j] = ipiv[j];
    return info[b] = i;
  });
}

/// sytrs: X with A X = B from sytrf's factors (lower) and pivots.
template <typename T>
int32_t ldlSolve(const T *factors, const int32_t *pivots, const T *rhs, T *x,
                 int64_t batch, int64_t n, int64_t k) {
  Scratch<int> ipiv(n);
  int nn = static_cast<int>(n), kk = static_cast<int>(k), lda = ld(n);
  char uplo = 'L';
  return eachPairInColumns(factors, n, n, rhs, x, batch, n, k,
                           [&](int64_t b, T *aw, T *bw) {
                             pivotsOf(pivots, ipiv.p, b, n);
                             // (A pivot out of range would index out of
                             // the matrix.)
                             for (int64_t j = 0; j < n; ++j)
                               if (ipiv[j] == 0 || ipiv[j] > n || ipiv[j] < -n)
                                 return -1;
                             int i = 0;
                             if (n > 0 && k > 0)
                               Lapack<T>::sytrs(&uplo, &nn, &kk, aw, &lda,
                                                ipiv.p, bw, &lda, &i);
                             return i;
                           });
}

//===----------------------------------------------------------------------===//
// The matrix exponential (torch 1.13's mexp: Bader, Blanes and Casas 2019)
//===----------------------------------------------------------------------===//

float mathExp(float x) { return expf(x); }
double mathExp(double x) { return exp(x); }
float mathLog2(float x) { return log2f(x); }
double mathLog2(double x) { return log2(x); }
float mathCeil(float x) { return ceilf(x); }
double mathCeil(double x) { return ceil(x); }

/// C = X Y for row-major (n, n) matrices as torch's matmul computes it:
/// BLAS's gemm with `blas` (torch's mm, and its bmm from 400 multiply-adds
/// a matrix), else torch's small bmm kernel, a plain loop in T.
template <typename T>
void matmul(const T *x, const T *y, T *c, int64_t n, bool blas) {
  if (blas) {
    // Row-major C = X Y is column-major C^T = Y^T X^T.
    int nn = static_cast<int>(n);
    T one = T(1), zero = T(0);
    char no = 'N';
    Lapack<T>::gemm(&no, &no, &nn, &nn, &nn, &one, y, &nn, x, &nn, &zero, c,
                    &nn);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T acc = T(0);
      for (int64_t l = 0; l < n; ++l)
        acc += x[i * n + l] * y[l * n + j];
      c[i * n + j] = acc;
    }
}

float fusedMulAdd(float x, float y, float z) { return fmaf(x, y, z); }
double fusedMulAdd(double x, double y, double z) { return fma(x, y, z); }

/// out = sum_j coeffs[j] terms[j] over `size` elements, summed in order
/// with fused multiply-adds (torch's _compute_linear_combination, whose
/// vectorized kernel fuses them); the coefficients rounded to T.
template <typename T>
void combination(T *const *terms, const double *coeffs, int count, T *out,
                 int64_t size) {
  for (int64_t e = 0; e < size; ++e) {
    T acc = T(0);
    for (int j = 0; j < count; ++j)
      acc = fusedMulAdd(terms[j][e], T(coeffs[j]), acc);
    out[e] = acc;
  }
}

/// The coefficients of the degree 12 and 18 polynomials over the powers
/// (I, A, A^2, A^3[, A^6]) (the paper's, as torch 1.13 has them).
const double kTaylor12[4][4] = {
    {9.0198e-16, 0.46932117595418237389, -0.20099424927047284052,
     -0.04623946134063071740},
    {5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
     0.01108844528519167989},
    {0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
     0.00610700528898058230},
    {-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079,
     -0.00675951846863086359}};
const double kTaylor18[5][5] = {
    {0., -1.00365581030144618291e-01, -8.02924648241156932449e-03,
     -8.92138498045729985177e-04, 0.},
    {0., 3.97849749499645077844e-01, 1.36783778460411720168e+00,
     4.98289622525382669416e-01, -6.37898194594723280150e-04},
    {-1.09676396052962061844e+01, 1.68015813878906206114e+00,
     5.71779846478865511061e-02, -6.98210122488052056106e-03,
     3.34975017086070470649e-05},
    {-9.04316832390810593223e-02, -6.76404519071381882256e-02,
     6.75961301770459654925e-02, 2.95552570429315521194e-02,
     -1.39180257516060693404e-05},
    {0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02,
     -1.40086798182036094347e-05}};

/// The degree 8 polynomial's constants, computed as torch does (in T, from
/// T's sqrt(177)).
template <typename T> void taylor8(T *const *p, T *out, int64_t n, T *tmp,
                                   T *tmp2, bool blas) {
  const T s177 = T(0.1330413469565007072504e+2), x3 = T(2. / 3.);
  const double x1 = T(x3 * ((1. + s177) / 88.)),
               x2 = T(x3 * ((1. + s177) / 352.)),
               x4 = T((-271. + 29. * s177) / (315. * x3)),
               x5 = T((-11. + 11. * s177) / (1260. * x3)),
               x6 = T((-99. + 11. * s177) / (5040. * x3)),
               x7 = T((89. - s177) / (5040. * x3)),
               y2 = T((857. - 58. * s177) / 630.);
  int64_t size = n * n;
  // p: I, A, A^2, then A4 = A^2 (x1 A + x2 A^2) and A8.
  const double ca[2] = {x1, x2}, cb[2] = {x3, 1.0}, cc[4] = {x4, x5, x6, x7},
               cd[5] = {1.0, 1.0, y2, 0.0, 1.0};
  combination(p + 1, ca, 2, tmp, size);
  matmul(p[2], tmp, p[3], n, blas);
  combination(p + 2, cb, 2, tmp, size);
  combination(p, cc, 4, tmp2, size);
  matmul(tmp, tmp2, p[4], n, blas);
  combination(p, cd, 5, out, size);
}

/// The Taylor polynomial of degree 1, 2, 4, 8, 12 or 18 (`degree` 0 to 5)
/// of the (n, n) `a`, as torch 1.13's compute_T<degree> evaluates it;
/// `buf` holds 12 matrices.
template <typename T>
void taylor(int degree, const T *a, T *out, int64_t n, T *buf, bool blas) {
  int64_t size = n * n;
  T *p[5], *bs[5];
  for (int i = 0; i < 5; ++i) {
    p[i] = buf + i * size;
    bs[i] = buf + (5 + i) * size;
  }
  T *tmp = buf + 10 * size, *tmp2 = buf + 11 * size;
  for (int64_t e = 0; e < size; ++e) {
    p[0][e] = e % (n + 1) == 0 ? T(1) : T(0);
    p[1][e] = a[e];
  }
  if (degree == 0) {
    for (int64_t e = 0; e < size; ++e)
      out[e] = p[0][e] + p[1][e];
    return;
  }
  matmul(p[1], p[1], p[2], n, blas);
  if (degree == 1) {
    for (int64_t e = 0; e < size; ++e)
      out[e] = (p[0][e] + p[1][e]) + p[2][e] / T(2);
    return;
  }
  if (degree == 2) {
    const double c[3] = {1 / 2.0, 1 / 6.0, 1 / 24.0}, d[4] = {1, 1, 0, 1};
    combination(p, c, 3, tmp, size);
    matmul(p[2], tmp, p[3], n, blas);
    combination(p, d, 4, out, size);
    return;
  }
  if (degree == 3)
    return taylor8(p, out, n, tmp, tmp2, blas);
  matmul(p[1], p[2], p[3], n, blas);
  int terms = degree == 4 ? 4 : 5;
  if (degree == 5)
    matmul(p[3], p[3], p[4], n, blas);
  for (int i = 0; i < terms; ++i)
    combination(p, degree == 4 ? kTaylor12[i] : kTaylor18[i], terms, bs[i],
                size);
  // Degree 12: B0 + (B1 + B2 + B3^2) (B2 + B3^2); degree 18: B1 + (B2 + B3
  // + B0 B4) (B3 + B0 B4).
  T *x = degree == 4 ? bs[3] : bs[0], *y = degree == 4 ? bs[3] : bs[4];
  T *head = degree == 4 ? bs[0] : bs[1], *mid = degree == 4 ? bs[1] : bs[2],
    *last = degree == 4 ? bs[2] : bs[3];
  matmul(x, y, tmp, n, blas);
  for (int64_t e = 0; e < size; ++e)
    last[e] += tmp[e];
  for (int64_t e = 0; e < size; ++e)
    mid[e] += last[e];
  matmul(mid, last, tmp, n, blas);
  for (int64_t e = 0; e < size; ++e)
    out[e] = head[e] + tmp[e];
}

/// The thetas that pick the degrees 1, 2, 4, 8, 12 and 18 by the 1-norm.
template <typename T> struct Thetas;
template <> struct Thetas<float> {
  static constexpr float v[6] = {1.192092800768788e-07, 5.978858893805233e-04,
                                 5.116619363445086e-02, 5.800524627688768e-01,
                                 1.461661507209034e+00, 3.010066362817634e+00};
};
template <> struct Thetas<double> {
  static constexpr double v[6] = {
      2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
      4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00};
};

/// torch 1.13's matrix_exp of each (n, n) matrix: the degree by the
/// matrix's 1-norm, degree 18 with scaling and squaring from the last
/// theta on.
template <typename T>
int32_t matrixExp(const T *a, T *out, int64_t batch, int64_t n) {
  int64_t size = n * n;
  const T *theta = Thetas<T>::v;
  Scratch<T> buf(13 * size);
  T *scaled = buf.p + 12 * size;
  bool blas = n * n * n >= 400;
  for (int64_t b = 0; b < batch; ++b) {
    const T *ab = a + b * size;
    T *ob = out + b * size;
    if (n == 1) {
      ob[0] = mathExp(ab[0]);
      continue;
    }
    T norm = T(0);
    for (int64_t c = 0; c < n; ++c) {
      T s = T(0);
      for (int64_t r = 0; r < n; ++r)
        s += ab[r * n + c] < T(0) ? -ab[r * n + c] : ab[r * n + c];
      if (!(s <= norm) && !(norm != norm))
        norm = s;
    }
    int degree = -1;
    for (int i = 0; i < 5; ++i)
      if ((i == 0 ? T(-1) : theta[i - 1]) < norm && norm <= theta[i])
        degree = i;
    if (norm >= theta[4])
      degree = 5;
    if (degree < 0) { // a NaN norm
      for (int64_t e = 0; e < size; ++e)
        ob[e] = norm;
      continue;
    }
    T steps = degree == 5 ? mathCeil(mathLog2(norm / theta[5])) : T(0);
    if (!(steps < T(1024))) { // an infinite norm: no finite scaling
      for (int64_t e = 0; e < size; ++e)
        ob[e] = T(NAN);
      continue;
    }
    int64_t s = steps > T(0) ? static_cast<int64_t>(steps) : 0;
    T scale = T(1);
    for (int64_t i = 0; i < s; ++i)
      scale *= T(2);
    for (int64_t e = 0; e < size; ++e)
      scaled[e] = ab[e] / scale;
    taylor(degree, scaled, ob, n, buf.p, blas);
    // Squared s times (torch's mm: BLAS).
    for (int64_t i = 0; i < s; ++i) {
      matmul(ob, ob, buf.p, n, true);
      for (int64_t e = 0; e < size; ++e)
        ob[e] = buf[e];
    }
  }
  return 0;
}

} // namespace

//===----------------------------------------------------------------------===//
// The entry points over raw buffers (the interpreter's)
//===----------------------------------------------------------------------===//

#define F(T, p) static_cast<const T *>(p)
#define M(T, p) static_cast<T *>(p)

TRACED_EXPORT int32_t traced_linalg_cholesky(int dtype, const void *a,
                                             void *out, int32_t *info,
                                             int64_t batch, int64_t n,
                                             int64_t upper) {
  return dtype == 0 ? cholesky(F(float, a), M(float, out), info, batch, n,
                               upper != 0)
                    : cholesky(F(double, a), M(double, out), info, batch, n,
                               upper != 0);
}

TRACED_EXPORT int32_t traced_linalg_cholesky_solve(int dtype,
                                                   const void *factor,
                                                   const void *b, void *x,
                                                   int64_t batch, int64_t n,
                                                   int64_t k, int64_t upper) {
  return dtype == 0 ? choleskySolve(F(float, factor), F(float, b),
                                    M(float, x), batch, n, k, upper != 0)
                    : choleskySolve(F(double, factor), F(double, b),
                                    M(double, x), batch, n, k, upper != 0);
}

TRACED_EXPORT int32_t traced_linalg_cholesky_inverse(int dtype,
                                                     const void *factor,
                                                     void *out, int32_t *info,
                                                     int64_t batch, int64_t n,
                                                     int64_t upper) {
  return dtype == 0 ? choleskyInverse(F(float, factor), M(float, out), info,
                                      batch, n, upper != 0)
                    : choleskyInverse(F(double, factor), M(double, out), info,
                                      batch, n, upper != 0);
}

TRACED_EXPORT int32_t traced_linalg_lu_factor(int dtype, const void *a,
                                              void *lu, int32_t *pivots,
                                              int32_t *info, int64_t batch,
                                              int64_t m, int64_t n) {
  return dtype == 0 ? luFactor(F(float, a), M(float, lu), pivots, info, batch,
                               m, n)
                    : luFactor(F(double, a), M(double, lu), pivots, info,
                               batch, m, n);
}

TRACED_EXPORT int32_t traced_linalg_lu_unpack(int dtype, const void *lu,
                                              const int32_t *pivots, void *p,
                                              void *l, void *u, int64_t batch,
                                              int64_t m, int64_t n,
                                              int64_t data,
                                              int64_t permutation) {
  return dtype == 0 ? luUnpack(F(float, lu), pivots, M(float, p), M(float, l),
                               M(float, u), batch, m, n, data != 0,
                               permutation != 0)
                    : luUnpack(F(double, lu), pivots, M(double, p),
                               M(double, l), M(double, u), batch, m, n,
                               data != 0, permutation != 0);
}

TRACED_EXPORT int32_t traced_linalg_lu_solve(int dtype, const void *lu,
                                             const int32_t *pivots,
                                             const void *b, void *x,
                                             int64_t batch, int64_t n,
                                             int64_t k, int64_t adjoint) {
  return dtype == 0 ? luSolve(F(float, lu), pivots, F(float, b), M(float, x),
                              batch, n, k, adjoint != 0)
                    : luSolve(F(double, lu), pivots, F(double, b),
                              M(double, x), batch, n, k, adjoint != 0);
}

TRACED_EXPORT int32_t traced_linalg_qr(int dtype, const void *a, void *q,
                                       void *r, int64_t batch, int64_t m,
                                       int64_t n, int64_t mode) {
  return dtype == 0 ? qr(F(float, a), M(float, q), M(float, r), batch, m, n,
                         mode)
                    : qr(F(double, a), M(double, q), M(double, r), batch, m,
                         n, mode);
}

TRACED_EXPORT int32_t traced_linalg_geqrf(int dtype, const void *a,
                                          void *out, void *tau, int64_t batch,
                                          int64_t m, int64_t n) {
  return dtype == 0 ? geqrf(F(float, a), M(float, out), M(float, tau), batch,
                            m, n)
                    : geqrf(F(double, a), M(double, out), M(double, tau),
                            batch, m, n);
}

TRACED_EXPORT int32_t traced_linalg_householder_product(
    int dtype, const void *a, const void *tau, void *out, int64_t batch,
    int64_t m, int64_t n, int64_t k) {
  return dtype == 0 ? householderProduct(F(float, a), F(float, tau),
                                         M(float, out), batch, m, n, k)
                    : householderProduct(F(double, a), F(double, tau),
                                         M(double, out), batch, m, n, k);
}

TRACED_EXPORT int32_t traced_linalg_ormqr(int dtype, const void *a,
                                          const void *tau, const void *c,
                                          void *out, int64_t batch, int64_t m,
                                          int64_t n, int64_t k, int64_t left,
                                          int64_t transpose) {
  return dtype == 0 ? applyQ(F(float, a), F(float, tau), F(float, c),
                             M(float, out), batch, m, n, k, left != 0,
                             transpose != 0)
                    : applyQ(F(double, a), F(double, tau), F(double, c),
                             M(double, out), batch, m, n, k, left != 0,
                             transpose != 0);
}

TRACED_EXPORT int32_t traced_linalg_svd(int dtype, const void *a, void *u,
                                        void *s, void *vh, int32_t *info,
                                        int64_t batch, int64_t m, int64_t n,
                                        int64_t full, int64_t uv) {
  return dtype == 0 ? svd(F(float, a), M(float, u), M(float, s), M(float, vh),
                          info, batch, m, n, full != 0, uv != 0)
                    : svd(F(double, a), M(double, u), M(double, s),
                          M(double, vh), info, batch, m, n, full != 0,
                          uv != 0);
}

TRACED_EXPORT int32_t traced_linalg_eigh(int dtype, const void *a, void *w,
                                         void *v, int32_t *info,
                                         int64_t batch, int64_t n,
                                         int64_t upper, int64_t vectors) {
  return dtype == 0 ? eigh(F(float, a), M(float, w), M(float, v), info, batch,
                           n, upper != 0, vectors != 0)
                    : eigh(F(double, a), M(double, w), M(double, v), info,
                           batch, n, upper != 0, vectors != 0);
}

TRACED_EXPORT int32_t traced_linalg_triangular_solve(
    int dtype, const void *a, const void *b, void *x, int64_t batch,
    int64_t m, int64_t n, int64_t left, int64_t upper, int64_t transpose,
    int64_t unit) {
  return dtype == 0
             ? triangularSolve(F(float, a), F(float, b), M(float, x), batch,
                               m, n, left != 0, upper != 0, transpose != 0,
                               unit != 0)
             : triangularSolve(F(double, a), F(double, b), M(double, x),
                               batch, m, n, left != 0, upper != 0,
                               transpose != 0, unit != 0);
}

TRACED_EXPORT int32_t traced_linalg_lstsq(int dtype, const void *a,
                                          const void *b, void *x, void *res,
                                          int64_t *rank, void *s,
                                          int32_t *info, int64_t batch,
                                          int64_t m, int64_t n, int64_t k,
                                          int64_t driver, double rcond,
                                          int64_t expect) {
  return dtype == 0 ? lstsq(F(float, a), F(float, b), M(float, x),
                            M(float, res), rank, M(float, s), info, batch, m,
                            n, k, driver, rcond, expect)
                    : lstsq(F(double, a), F(double, b), M(double, x),
                            M(double, res), rank, M(double, s), info, batch,
                            m, n, k, driver, rcond, expect);
}

TRACED_EXPORT int32_t traced_linalg_ldl_factor(int dtype, const void *a,
                                               void *ld, int32_t *pivots,
                                               int32_t *info, int64_t batch,
                                               int64_t n) {
  return dtype == 0 ? ldlFactor(F(float, a), M(float, ld), pivots, info,
                                batch, n)
                    : ldlFactor(F(double, a), M(double, ld), pivots, info,
                                batch, n);
}

TRACED_EXPORT int32_t traced_linalg_ldl_solve(int dtype, const void *ld,
                                              const int32_t *pivots,
                                              const void *b, void *x,
                                              int64_t batch, int64_t n,
                                              int64_t k) {
  return dtype == 0 ? ldlSolve(F(float, ld), pivots, F(float, b), M(float, x),
                               batch, n, k)
                    : ldlSolve(F(double, ld), pivots, F(double, b),
                               M(double, x), batch, n, k);
}

TRACED_EXPORT int32_t traced_linalg_matrix_exp(int dtype, const void *a,
                                               void *out, int64_t batch,
                                               int64_t n) {
  return dtype == 0 ? matrixExp(F(float, a), M(float, out), batch, n)
                    : matrixExp(F(double, a), M(double, out), batch, n);
}

//===----------------------------------------------------------------------===//
// The entry points of compiled code: each buffer a memref<?xT> descriptor,
// expanded (base, aligned, offset, size, stride); the buffers are fresh
// contiguous allocations (stride 1).
//===----------------------------------------------------------------------===//


#define TRACED_MEMREF_ENTRIES(T, suffix, code)                                 \
  TRACED_EXPORT int32_t traced_linalg_cholesky_##suffix(                       \
      MR(T, a), MR(T, out), MR(int32_t, info), int64_t batch, int64_t n,       \
      int64_t upper) {                                                         \
    return traced_linalg_cholesky(code, AT(a), AT(out), AT(info), batch, n,    \
                                  upper);                                      \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_cholesky_solve_##suffix(                 \
      MR(T, factor), MR(T, b), MR(T, x), int64_t batch, int64_t n, int64_t k,  \
      int64_t upper) {                                                         \
    return traced_linalg_cholesky_solve(code, AT(factor), AT(b), AT(x), batch, \
                                        n, k, upper);                          \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_cholesky_inverse_##suffix(               \
      MR(T, factor), MR(T, out), MR(int32_t, info), int64_t batch, int64_t n,  \
      int64_t upper) {                                                         \
    return traced_linalg_cholesky_inverse(code, AT(factor), AT(out), AT(info), \
                                          batch, n, upper);                    \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_lu_factor_##suffix(                      \
      MR(T, a), MR(T, lu), MR(int32_t, pivots), MR(int32_t, info),             \
      int64_t batch, int64_t m, int64_t n) {                                   \
    return traced_linalg_lu_factor(code, AT(a), AT(lu), AT(pivots), AT(info),  \
                                   batch, m, n);                               \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_lu_unpack_##suffix(                      \
      MR(T, lu), MR(int32_t, pivots), MR(T, p), MR(T, l), MR(T, u),            \
      int64_t batch, int64_t m, int64_t n, int64_t data,                       \
      int64_t permutation) {                                                   \
    return traced_linalg_lu_unpack(code, AT(lu), AT(pivots), AT(p), AT(l),     \
                                   AT(u), batch, m, n, data, permutation);     \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_lu_solve_##suffix(                       \
      MR(T, lu), MR(int32_t, pivots), MR(T, b), MR(T, x), int64_t batch,       \
      int64_t n, int64_t k, int64_t adjoint) {                                 \
    return traced_linalg_lu_solve(code, AT(lu), AT(pivots), AT(b), AT(x),      \
                                  batch, n, k, adjoint);                       \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_qr_##suffix(                             \
      MR(T, a), MR(T, q), MR(T, r), int64_t batch, int64_t m, int64_t n,       \
      int64_t mode) {                                                          \
    return traced_linalg_qr(code, AT(a), AT(q), AT(r), batch, m, n, mode);     \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_geqrf_##suffix(                         \
      MR(T, a), MR(T, out), MR(T, tau), int64_t batch, int64_t m, int64_t n) { \
    return traced_linalg_geqrf(code, AT(a), AT(out), AT(tau), batch, m, n);    \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_householder_product_##suffix(            \
      MR(T, a), MR(T, tau), MR(T, out), int64_t batch, int64_t m, int64_t n,   \
      int64_t k) {                                                             \
    return traced_linalg_householder_product(code, AT(a), AT(tau), AT(out),    \
                                             batch, m, n, k);                  \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_ormqr_##suffix(                         \
      MR(T, a), MR(T, tau), MR(T, c), MR(T, out), int64_t batch, int64_t m,    \
      int64_t n, int64_t k, int64_t left, int64_t transpose) {                 \
    return traced_linalg_ormqr(code, AT(a), AT(tau), AT(c), AT(out), batch, m, \
                               n, k, left, transpose);                         \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_svd_##suffix(                            \
      MR(T, a), MR(T, u), MR(T, s), MR(T, vh), MR(int32_t, info),              \
      int64_t batch, int64_t m, int64_t n, int64_t full, int64_t uv) {         \
    return traced_linalg_svd(code, AT(a), AT(u), AT(s), AT(vh), AT(info),      \
                             batch, m, n, full, uv);                           \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_eigh_##suffix(                           \
      MR(T, a), MR(T, w), MR(T, v), MR(int32_t, info), int64_t batch,          \
      int64_t n, int64_t upper, int64_t vectors) {                             \
    return traced_linalg_eigh(code, AT(a), AT(w), AT(v), AT(info), batch, n,   \
                              upper, vectors);                                 \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_triangular_solve_##suffix(               \
      MR(T, a), MR(T, b), MR(T, x), int64_t batch, int64_t m, int64_t n,       \
      int64_t left, int64_t upper, int64_t transpose, int64_t unit) {          \
    return traced_linalg_triangular_solve(code, AT(a), AT(b), AT(x), batch, m, \
                                          n, left, upper, transpose, unit);    \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_lstsq_##suffix(                          \
      MR(T, a), MR(T, b), MR(T, rcond), MR(T, x), MR(T, res),                  \
      MR(int64_t, rank), MR(T, s), MR(int32_t, info), int64_t batch,           \
      int64_t m, int64_t n, int64_t k, int64_t driver, int64_t expect) {       \
    return traced_linalg_lstsq(code, AT(a), AT(b), AT(x), AT(res), AT(rank),   \
                               AT(s), AT(info), batch, m, n, k, driver,        \
                               double(AT(rcond)[0]), expect);                  \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_ldl_factor_##suffix(                     \
      MR(T, a), MR(T, ld), MR(int32_t, pivots), MR(int32_t, info),             \
      int64_t batch, int64_t n) {                                              \
    return traced_linalg_ldl_factor(code, AT(a), AT(ld), AT(pivots), AT(info), \
                                    batch, n);                                 \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_ldl_solve_##suffix(                      \
      MR(T, ld), MR(int32_t, pivots), MR(T, b), MR(T, x), int64_t batch,       \
      int64_t n, int64_t k) {                                                  \
    return traced_linalg_ldl_solve(code, AT(ld), AT(pivots), AT(b), AT(x),     \
                                   batch, n, k);                               \
  }                                                                            \
  TRACED_EXPORT int32_t traced_linalg_matrix_exp_##suffix(                     \
      MR(T, a), MR(T, out), int64_t batch, int64_t n) {                        \
    return traced_linalg_matrix_exp(code, AT(a), AT(out), batch, n);           \
  }

TRACED_MEMREF_ENTRIES(float, f32, 0)
TRACED_MEMREF_ENTRIES(double, f64, 1)

#define TRACED_SYMBOLS(suffix)                                                 \
  {"traced_linalg_cholesky_" #suffix,                                         \
   reinterpret_cast<void *>(&traced_linalg_cholesky_##suffix)},               \
      {"traced_linalg_cholesky_solve_" #suffix,                               \
       reinterpret_cast<void *>(&traced_linalg_cholesky_solve_##suffix)},     \
      {"traced_linalg_cholesky_inverse_" #suffix,                             \
       reinterpret_cast<void *>(&traced_linalg_cholesky_inverse_##suffix)},   \
      {"traced_linalg_lu_factor_" #suffix,                                    \
       reinterpret_cast<void *>(&traced_linalg_lu_factor_##suffix)},          \
      {"traced_linalg_lu_unpack_" #suffix,                                    \
       reinterpret_cast<void *>(&traced_linalg_lu_unpack_##suffix)},          \
      {"traced_linalg_lu_solve_" #suffix,                                     \
       reinterpret_cast<void *>(&traced_linalg_lu_solve_##suffix)},           \
      {"traced_linalg_qr_" #suffix,                                           \
       reinterpret_cast<void *>(&traced_linalg_qr_##suffix)},                 \
      {"traced_linalg_geqrf_" #suffix,                                        \
       reinterpret_cast<void *>(&traced_linalg_geqrf_##suffix)},              \
      {"traced_linalg_householder_product_" #suffix,                          \
       reinterpret_cast<void *>(&traced_linalg_householder_product_##suffix)}, \
      {"traced_linalg_ormqr_" #suffix,                                        \
       reinterpret_cast<void *>(&traced_linalg_ormqr_##suffix)},              \
      {"traced_linalg_svd_" #suffix,                                          \
       reinterpret_cast<void *>(&traced_linalg_svd_##suffix)},                \
      {"traced_linalg_eigh_" #suffix,                                         \
       reinterpret_cast<void *>(&traced_linalg_eigh_##suffix)},               \
      {"traced_linalg_triangular_solve_" #suffix,                             \
       reinterpret_cast<void *>(&traced_linalg_triangular_solve_##suffix)},   \
      {"traced_linalg_lstsq_" #suffix,                                        \
       reinterpret_cast<void *>(&traced_linalg_lstsq_##suffix)},              \
      {"traced_linalg_ldl_factor_" #suffix,                                   \
       reinterpret_cast<void *>(&traced_linalg_ldl_factor_##suffix)},         \
      {"traced_linalg_ldl_solve_" #suffix,                                    \
       reinterpret_cast<void *>(&traced_linalg_ldl_solve_##suffix)},          \
      {"traced_linalg_matrix_exp_" #suffix,                                   \
       reinterpret_cast<void *>(&traced_linalg_matrix_exp_##suffix)}

TRACED_EXPORT const TracedRuntimeSymbol *
traced_linalg_runtime_symbols(int64_t *count) {
  static const TracedRuntimeSymbol symbols[] = {TRACED_SYMBOLS(f32),
                                               TRACED_SYMBOLS(f64)};
  *count = sizeof(symbols) / sizeof(symbols[0]);
  return symbols;
}
