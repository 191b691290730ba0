/*===- LinalgRuntime.h - LAPACK factorizations over raw buffers --*- C -*-===//
 *
 * The linear-algebra runtime (docs/linalg-runtime.md): the factorizations
 * of torch.linalg over LAPACK (OpenBLAS's), as C functions over row-major
 * contiguous buffers holding `batch` matrices. The interpreter's kernels
 * call the `traced_linalg_*` functions below; compiled code calls the
 * `traced_linalg_*_f32/_f64` entry points, which take each buffer as an
 * expanded rank-1 memref descriptor (base, aligned, offset, size, stride:
 * MLIR's calling convention for a memref<?xT> argument) and forward here.
 *
 * Each routine does what torch 1.13's CPU kernel does (the same LAPACK
 * routine on a column-major copy, with the same job options), so results
 * agree with torch's, the signs of singular vectors and eigenvectors
 * included. `info` (one int32 per matrix) is LAPACK's; each function
 * returns the first nonzero one (0 when every matrix succeeded).
 *
 * `dtype` is 0 for float32, 1 for float64.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TRACEDIR_RUNTIME_LINALGRUNTIME_H
#define TRACEDIR_RUNTIME_LINALGRUNTIME_H

#include <stdint.h>

#include "TracedIR/Runtime/RuntimeSymbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* potrf: the Cholesky factor (lower, or upper with `upper`) of each (n, n)
 * matrix of `a`, the other triangle zeroed. */
int32_t traced_linalg_cholesky(int dtype, const void *a, void *out,
                               int32_t *info, int64_t batch, int64_t n,
                               int64_t upper);

/* potrs: X with A X = B from the Cholesky factor (lower, or upper with
 * `upper`) of each (n, n) A and each (n, k) B. */
int32_t traced_linalg_cholesky_solve(int dtype, const void *factor,
                                     const void *b, void *x, int64_t batch,
                                     int64_t n, int64_t k, int64_t upper);

/* potri: the inverse of each A from its Cholesky factor, both triangles
 * filled (torch's). */
int32_t traced_linalg_cholesky_inverse(int dtype, const void *factor,
                                       void *out, int32_t *info,
                                       int64_t batch, int64_t n,
                                       int64_t upper);

/* getrf: LU with partial pivoting of each (m, n) matrix; `pivots` holds
 * min(m, n) 1-based row interchanges per matrix. */
int32_t traced_linalg_lu_factor(int dtype, const void *a, void *lu,
                                int32_t *pivots, int32_t *info, int64_t batch,
                                int64_t m, int64_t n);

/* The permutation P (m x m, with `permutation`), the unit lower L (m x k)
 * and the upper U (k x n, with `data`) of getrf's factors and pivots:
 * A = P L U (torch.lu_unpack). Returns -1 for a pivot out of [1, m]. */
int32_t traced_linalg_lu_unpack(int dtype, const void *lu,
                                const int32_t *pivots, void *p, void *l,
                                void *u, int64_t batch, int64_t m, int64_t n,
                                int64_t data, int64_t permutation);

/* getrs: X with A X = B (`adjoint`: A^T X = B) from getrf's factors of each
 * (n, n) A and each (n, k) B. */
int32_t traced_linalg_lu_solve(int dtype, const void *lu,
                               const int32_t *pivots, const void *b, void *x,
                               int64_t batch, int64_t n, int64_t k,
                               int64_t adjoint);

/* geqrf + orgqr: Q and R of each (m, n) matrix. mode 0 "reduced" (Q m x k,
 * R k x n), 1 "complete" (Q m x m, R m x n), 2 "r" (R k x n, `q` unused);
 * k = min(m, n). */
int32_t traced_linalg_qr(int dtype, const void *a, void *q, void *r,
                         int64_t batch, int64_t m, int64_t n, int64_t mode);

/* geqrf: each (m, n) matrix's reflectors (below the diagonal) and R (on and
 * above it), and tau (k = min(m, n) per matrix): torch.geqrf. */
int32_t traced_linalg_geqrf(int dtype, const void *a, void *out, void *tau,
                            int64_t batch, int64_t m, int64_t n);

/* orgqr: the (m, n) product of the k reflectors of each (m, n) `a` and its
 * tau (linalg.householder_product; m >= n >= k). */
int32_t traced_linalg_householder_product(int dtype, const void *a,
                                          const void *tau, void *out,
                                          int64_t batch, int64_t m, int64_t n,
                                          int64_t k);

/* ormqr: Q C (`left`) or C Q, Q transposed with `transpose`, for each (m, n)
 * C, Q the product of the k reflectors of `a` ((m or n) x k) and tau. */
int32_t traced_linalg_ormqr(int dtype, const void *a, const void *tau,
                            const void *c, void *out, int64_t batch,
                            int64_t m, int64_t n, int64_t k, int64_t left,
                            int64_t transpose);

/* gesdd: U (m x m with `full`, else m x k), S (k), Vh (n x n, else k x n)
 * of each (m, n) matrix; only S without `uv` (`u` and `vh` unused). */
int32_t traced_linalg_svd(int dtype, const void *a, void *u, void *s,
                          void *vh, int32_t *info, int64_t batch, int64_t m,
                          int64_t n, int64_t full, int64_t uv);

/* syevd: the ascending eigenvalues w (n) and, with `vectors`, the
 * eigenvectors (columns of v, n x n) of each symmetric (n, n) matrix, read
 * from its lower (or upper) triangle. */
int32_t traced_linalg_eigh(int dtype, const void *a, void *w, void *v,
                           int32_t *info, int64_t batch, int64_t n,
                           int64_t upper, int64_t vectors);

/* trsm: X with op(A) X = B (`left`) or X op(A) = B, A (r, r) triangular
 * (r = m with `left`, else n), B (m, n); op transposes with `transpose`,
 * `unit` takes A's diagonal as ones. */
int32_t traced_linalg_triangular_solve(int dtype, const void *a,
                                       const void *b, void *x, int64_t batch,
                                       int64_t m, int64_t n, int64_t left,
                                       int64_t upper, int64_t transpose,
                                       int64_t unit);

/* gels (driver 0), gelsy (1), gelsd (2) or gelss (3): least squares of
 * each (m, n) A and (m, k) B, as torch calls them. `x` (n, k per matrix)
 * gets the solution, `res` (k per matrix) the sums of squares of LAPACK's
 * residual terms (rows n to m of its overwritten right-hand side), `rank`
 * (int64, one per matrix; may be null) the effective rank (not gels) and
 * `s` (min(m, n) per matrix; may be null) the singular values (gelsd,
 * gelss). `rcond` as torch passes it. `expect` 1 (2) returns -2 when a
 * matrix lacks rank n (every matrix has it): torch returns the residuals
 * of gelsd and gelss only when every rank is n, a shape compiled code
 * fixed when it was traced; 0 checks nothing. */
int32_t traced_linalg_lstsq(int dtype, const void *a, const void *b, void *x,
                            void *res, int64_t *rank, void *s, int32_t *info,
                            int64_t batch, int64_t m, int64_t n, int64_t k,
                            int64_t driver, double rcond, int64_t expect);

/* sytrf on the lower triangle of each symmetric (n, n) matrix (torch's
 * ldl_factor: the upper triangle of `ld` is zero); `pivots` are LAPACK's
 * (1-based, negative for 2 x 2 blocks), n per matrix. */
int32_t traced_linalg_ldl_factor(int dtype, const void *a, void *ld,
                                 int32_t *pivots, int32_t *info,
                                 int64_t batch, int64_t n);

/* sytrs: X with A X = B from ldl_factor's factors and pivots of each A and
 * each (n, k) B. Returns -1 (and leaves that X) for a pivot out of
 * [-n, n] or 0. */
int32_t traced_linalg_ldl_solve(int dtype, const void *ld,
                                const int32_t *pivots, const void *b, void *x,
                                int64_t batch, int64_t n, int64_t k);

/* The exponential of each (n, n) matrix, as torch 1.13's matrix_exp: a
 * Taylor polynomial of degree 1 to 18 chosen by the 1-norm, with scaling
 * and squaring for the largest norms (matrix products as torch's: BLAS's
 * gemm, or a plain loop below 400 multiply-adds). */
int32_t traced_linalg_matrix_exp(int dtype, const void *a, void *out,
                                 int64_t batch, int64_t n);

/* torch.mode of each of `outer` runs of `k` elements, as torch 1.13's CPU
 * kernel picks it (libstdc++'s std::sort of (value, index) by value, then
 * the first longest run of equal values: its value and its last index);
 * the values widened to double or int64 (StatsRuntime.cpp). */
int32_t traced_stats_mode_f64(const double *a, double *values,
                              int64_t *indices, int64_t outer, int64_t k);
int32_t traced_stats_mode_i64(const int64_t *a, int64_t *values,
                              int64_t *indices, int64_t outer, int64_t k);

/* The entry points of compiled code (`traced_linalg_<routine>_f32/_f64`,
 * the buffers as memref<?xT> descriptors) by name, for a JIT to define. */
const TracedRuntimeSymbol *traced_linalg_runtime_symbols(int64_t *count);
/* The same for torch.mode's entry points (`traced_linalg_mode_f64/_i64`:
 * the values widened to double or int64, StatsRuntime.cpp). */
const TracedRuntimeSymbol *traced_stats_runtime_symbols(int64_t *count);

#ifdef __cplusplus
}
#endif

#endif /* TRACEDIR_RUNTIME_LINALGRUNTIME_H */
