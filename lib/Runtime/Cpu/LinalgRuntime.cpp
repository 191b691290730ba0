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

#include <stdlib.h>
#include <string.h>

#define TRACED_EXPORT extern "C" __attribute__((visibility("default")))

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
                T *, const int *);
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

template <typename T>
int32_t cholesky(const T *a, T *out, int32_t *info, int64_t batch, int64_t n,
                 bool upper) {
  Scratch<T> w(n * n);
  int nn = static_cast<int>(n), lda = ld(n);
  char uplo = upper ? 'U' : 'L';
  for (int64_t b = 0; b < batch; ++b) {
    toColumns(a + b * n * n, w.p, n, n, n);
    int i = 0;
    if (n > 0)
      Lapack<T>::potrf(&uplo, &nn, w.p, &lda, &i);
    info[b] = i;
    T *o = out + b * n * n;
    toRows(w.p, o, n, n, n);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < n; ++c)
        if (upper ? c < r : c > r)
          o[r * n + c] = T(0);
  }
  return firstNonzero(info, batch);
}

template <typename T>
int32_t choleskySolve(const T *factor, const T *rhs, T *x, int64_t batch,
                      int64_t n, int64_t k, bool upper) {
  Scratch<T> w(n * n), bx(n * k);
  int nn = static_cast<int>(n), kk = static_cast<int>(k), lda = ld(n);
  char uplo = upper ? 'U' : 'L';
  int32_t first = 0;
  for (int64_t b = 0; b < batch; ++b) {
    toColumns(factor + b * n * n, w.p, n, n, n);
    toColumns(rhs + b * n * k, bx.p, n, k, n);
    int i = 0;
    if (n > 0 && k > 0)
      Lapack<T>::potrs(&uplo, &nn, &kk, w.p, &lda, bx.p, &lda, &i);
    if (i != 0 && first == 0)
      first = i;
    toRows(bx.p, x + b * n * k, n, k, n);
  }
  return first;
}

template <typename T>
int32_t choleskyInverse(const T *factor, T *out, int32_t *info, int64_t batch,
                        int64_t n, bool upper) {
  Scratch<T> w(n * n);
  int nn = static_cast<int>(n), lda = ld(n);
  char uplo = upper ? 'U' : 'L';
  for (int64_t b = 0; b < batch; ++b) {
    toColumns(factor + b * n * n, w.p, n, n, n);
    int i = 0;
    if (n > 0)
      Lapack<T>::potri(&uplo, &nn, w.p, &lda, &i);
    info[b] = i;
    // potri writes one triangle; the inverse is symmetric (torch copies it).
    T *o = out + b * n * n;
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < n; ++c) {
        bool stored = upper ? c >= r : c <= r;
        o[r * n + c] = stored ? w[c * n + r] : w[r * n + c];
      }
  }
  return firstNonzero(info, batch);
}

template <typename T>
int32_t luFactor(const T *a, T *lu, int32_t *pivots, int32_t *info,
                 int64_t batch, int64_t m, int64_t n) {
  Scratch<T> w(m * n);
  int64_t k = m < n ? m : n;
  Scratch<int> ipiv(k);
  int mm = static_cast<int>(m), nn = static_cast<int>(n), lda = ld(m);
  for (int64_t b = 0; b < batch; ++b) {
    toColumns(a + b * m * n, w.p, m, n, m);
    int i = 0;
    if (k > 0)
      Lapack<T>::getrf(&mm, &nn, w.p, &lda, ipiv.p, &i);
    info[b] = i;
    toRows(w.p, lu + b * m * n, m, n, m);
    for (int64_t j = 0; j < k; ++j)
      pivots[b * k + j] = ipiv[j];
  }
  return firstNonzero(info, batch);
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

template <typename T>
int32_t luSolve(const T *lu, const int32_t *pivots, const T *rhs, T *x,
                int64_t batch, int64_t n, int64_t k, bool adjoint) {
  Scratch<T> w(n * n), bx(n * k);
  Scratch<int> ipiv(n);
  int nn = static_cast<int>(n), kk = static_cast<int>(k), lda = ld(n);
  char trans = adjoint ? 'T' : 'N';
  int32_t first = 0;
  for (int64_t b = 0; b < batch; ++b) {
    toColumns(lu + b * n * n, w.p, n, n, n);
    toColumns(rhs + b * n * k, bx.p, n, k, n);
    for (int64_t j = 0; j < n; ++j)
      ipiv[j] = pivots[b * n + j];
    int i = 0;
    if (n > 0 && k > 0)
      Lapack<T>::getrs(&trans, &nn, &kk, w.p, &lda, ipiv.p, bx.p, &lda, &i);
    if (i != 0 && first == 0)
      first = i;
    toRows(bx.p, x + b * n * k, n, k, n);
  }
  return first;
}

/// The optimal workspace size LAPACK reported in `query`.
template <typename T> int workSize(T query) {
  int size = static_cast<int>(query);
  return size > 1 ? size : 1;
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
    int info = 0, lwork = -1;
    if (k > 0) {
      T query;
      Lapack<T>::geqrf(&mm, &nn, w.p, &lda, tau.p, &query, &lwork, &info);
      lwork = workSize(query);
      Scratch<T> work(lwork);
      Lapack<T>::geqrf(&mm, &nn, w.p, &lda, tau.p, work.p, &lwork, &info);
    }
    T *ro = r + bi * rRows * n;
    for (int64_t i = 0; i < rRows; ++i)
      for (int64_t j = 0; j < n; ++j)
        ro[i * n + j] = j >= i ? w[j * m + i] : T(0);
    if (mode != 2) {
      if (qCols > 0 && m > 0) {
        lwork = -1;
        T query;
        Lapack<T>::orgqr(&mm, &qc, &kk, w.p, &lda, tau.p, &query, &lwork,
                         &info);
        lwork = workSize(query);
        Scratch<T> work(lwork);
        Lapack<T>::orgqr(&mm, &qc, &kk, w.p, &lda, tau.p, work.p, &lwork,
                         &info);
      }
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
  Scratch<T> w(m * n);
  int mm = static_cast<int>(m), nn = static_cast<int>(n), lda = ld(m);
  int32_t first = 0;
  for (int64_t b = 0; b < batch; ++b) {
    toColumns(a + b * m * n, w.p, m, n, m);
    int info = 0, lwork = -1;
    if (k > 0) {
      T query;
      Lapack<T>::geqrf(&mm, &nn, w.p, &lda, tau + b * k, &query, &lwork,
                       &info);
      lwork = workSize(query);
      Scratch<T> work(lwork);
      Lapack<T>::geqrf(&mm, &nn, w.p, &lda, tau + b * k, work.p, &lwork,
                       &info);
    }
    toRows(w.p, out + b * m * n, m, n, m);
    if (info != 0 && first == 0)
      first = info;
  }
  return first;
}

/// orgqr: the first n columns of the product of k reflectors (m x n).
template <typename T>
int32_t householderProduct(const T *a, const T *tau, T *out, int64_t batch,
                           int64_t m, int64_t n, int64_t k) {
  Scratch<T> w(m * n);
  int mm = static_cast<int>(m), nn = static_cast<int>(n),
      kk = static_cast<int>(k), lda = ld(m);
  int32_t first = 0;
  for (int64_t b = 0; b < batch; ++b) {
    toColumns(a + b * m * n, w.p, m, n, m);
    int info = 0;
    if (m > 0 && n > 0) {
      int lwork = -1;
      T query;
      Lapack<T>::orgqr(&mm, &nn, &kk, w.p, &lda, tau + b * k, &query, &lwork,
                       &info);
      lwork = workSize(query);
      Scratch<T> work(lwork);
      Lapack<T>::orgqr(&mm, &nn, &kk, w.p, &lda, tau + b * k, work.p, &lwork,
                       &info);
    }
    toRows(w.p, out + b * m * n, m, n, m);
    if (info != 0 && first == 0)
      first = info;
  }
  return first;
}

/// ormqr: op(Q) C (`left`) or C op(Q) for the (m, n) C, Q the product of
/// the k reflectors of the (r, k) `a` (r = m with `left`, else n).
template <typename T>
int32_t applyQ(const T *a, const T *tau, const T *c, T *out, int64_t batch,
               int64_t m, int64_t n, int64_t k, bool left, bool transpose) {
  int64_t r = left ? m : n;
  Scratch<T> aw(r * k), cw(m * n);
  char side = left ? 'L' : 'R', trans = transpose ? 'T' : 'N';
  int mm = static_cast<int>(m), nn = static_cast<int>(n),
      kk = static_cast<int>(k), lda = ld(r), ldc = ld(m);
  int32_t first = 0;
  for (int64_t b = 0; b < batch; ++b) {
    toColumns(a + b * r * k, aw.p, r, k, r);
    toColumns(c + b * m * n, cw.p, m, n, m);
    int info = 0;
    if (m > 0 && n > 0 && k > 0) {
      int lwork = -1;
      T query;
      Lapack<T>::ormqr(&side, &trans, &mm, &nn, &kk, aw.p, &lda, tau + b * k,
                       cw.p, &ldc, &query, &lwork, &info);
      lwork = workSize(query);
      Scratch<T> work(lwork);
      Lapack<T>::ormqr(&side, &trans, &mm, &nn, &kk, aw.p, &lda, tau + b * k,
                       cw.p, &ldc, work.p, &lwork, &info);
    }
    toRows(cw.p, out + b * m * n, m, n, m);
    if (info != 0 && first == 0)
      first = info;
  }
  return first;
}

template <typename T>
int32_t svd(const T *a, T *u, T *s, T *vh, int32_t *info, int64_t batch,
            int64_t m, int64_t n, bool full, bool uv) {
  int64_t k = m < n ? m : n;
  int64_t uCols = full ? m : k, vRows = full ? n : k;
  Scratch<T> w(m * n), uw(uv ? m * uCols : 1), vw(uv ? vRows * n : 1);
  Scratch<int> iwork(8 * k);
  char jobz = !uv ? 'N' : full ? 'A' : 'S';
  int mm = static_cast<int>(m), nn = static_cast<int>(n), lda = ld(m),
      ldu = ld(m), ldvt = ld(vRows);
  for (int64_t bi = 0; bi < batch; ++bi) {
    toColumns(a + bi * m * n, w.p, m, n, m);
    int i = 0;
    if (k > 0) {
      int lwork = -1;
      T query;
      Lapack<T>::gesdd(&jobz, &mm, &nn, w.p, &lda, s + bi * k, uw.p, &ldu,
                       vw.p, &ldvt, &query, &lwork, iwork.p,
                       &i);
      lwork = workSize(query);
      Scratch<T> work(lwork);
      Lapack<T>::gesdd(&jobz, &mm, &nn, w.p, &lda, s + bi * k, uw.p, &ldu,
                       vw.p, &ldvt, work.p, &lwork, iwork.p, &i);
    } else if (uv) {
      // No singular values: U and Vh are identities (torch's).
      for (int64_t e = 0; e < m * uCols; ++e)
        uw[e] = (e % (m + 1)) == 0 ? T(1) : T(0);
      for (int64_t e = 0; e < vRows * n; ++e)
        vw[e] = (e % (vRows + 1)) == 0 ? T(1) : T(0);
    }
    info[bi] = i;
    if (uv) {
      toRows(uw.p, u + bi * m * uCols, m, uCols, m);
      toRows(vw.p, vh + bi * vRows * n, vRows, n, vRows);
    }
  }
  return firstNonzero(info, batch);
}

template <typename T>
int32_t eigh(const T *a, T *w, T *v, int32_t *info, int64_t batch, int64_t n,
             bool upper, bool vectors) {
  Scratch<T> work0(n * n);
  char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  int nn = static_cast<int>(n), lda = ld(n);
  for (int64_t bi = 0; bi < batch; ++bi) {
    toColumns(a + bi * n * n, work0.p, n, n, n);
    int i = 0;
    if (n > 0) {
      int lwork = -1, liwork = -1, iquery = 0;
      T query;
      Lapack<T>::syevd(&jobz, &uplo, &nn, work0.p, &lda, w + bi * n, &query,
                       &lwork, &iquery, &liwork, &i);
      lwork = workSize(query);
      liwork = iquery > 1 ? iquery : 1;
      Scratch<T> work(lwork);
      Scratch<int> iwork(liwork);
      Lapack<T>::syevd(&jobz, &uplo, &nn, work0.p, &lda, w + bi * n, work.p,
                       &lwork, iwork.p, &liwork, &i);
    }
    info[bi] = i;
    if (vectors)
      toRows(work0.p, v + bi * n * n, n, n, n);
  }
  return firstNonzero(info, batch);
}

template <typename T>
int32_t triangularSolve(const T *a, const T *rhs, T *x, int64_t batch,
                        int64_t m, int64_t n, bool left, bool upper,
                        bool transpose, bool unit) {
  int64_t r = left ? m : n;
  Scratch<T> aw(r * r), bw(m * n);
  char side = left ? 'L' : 'R', uplo = upper ? 'U' : 'L',
       trans = transpose ? 'T' : 'N', diag = unit ? 'U' : 'N';
  int mm = static_cast<int>(m), nn = static_cast<int>(n), lda = ld(r),
      ldb = ld(m);
  T one = T(1);
  for (int64_t bi = 0; bi < batch; ++bi) {
    toColumns(a + bi * r * r, aw.p, r, r, r);
    toColumns(rhs + bi * m * n, bw.p, m, n, m);
    if (m > 0 && n > 0)
      Lapack<T>::trsm(&side, &uplo, &trans, &diag, &mm, &nn, &one, aw.p, &lda,
                      bw.p, &ldb);
    toRows(bw.p, x + bi * m * n, m, n, m);
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

//===----------------------------------------------------------------------===//
// The entry points of compiled code: each buffer a memref<?xT> descriptor,
// expanded (base, aligned, offset, size, stride); the buffers are fresh
// contiguous allocations (stride 1).
//===----------------------------------------------------------------------===//

#define MR(T, x) T *x##Base, T *x, int64_t x##Off, int64_t x##Size, int64_t x##Stride
#define AT(x) (x + x##Off)

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
       reinterpret_cast<void *>(&traced_linalg_triangular_solve_##suffix)}

TRACED_EXPORT const TracedLinalgSymbol *
traced_linalg_runtime_symbols(int64_t *count) {
  static const TracedLinalgSymbol symbols[] = {TRACED_SYMBOLS(f32),
                                               TRACED_SYMBOLS(f64)};
  *count = sizeof(symbols) / sizeof(symbols[0]);
  return symbols;
}
