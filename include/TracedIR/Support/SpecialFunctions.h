//===- SpecialFunctions.h - torch.special's algorithms, written once ------===//
//
// The special functions of the op library (lgamma, digamma, polygamma,
// zeta, the Bessel functions of torch.special, ndtri, erfcx, airy_ai, the
// orthogonal polynomials, entr, xlog1py), each written once as a template
// over a numeric backend `M`,
// so that the interpreter's kernels (M over float or double) and the CPU
// lowering (M building arith and math ops in a linalg.generic body) compute
// the same algorithm. The algorithms are those of PyTorch 1.13's CPU
// kernels where they matter for agreement (the Cephes-derived digamma,
// trigamma, zeta, Chebyshev series of i0/i1 and ndtri, in the precision
// torch computes them in); lgamma (libm's in torch) is a Lanczos
// approximation in double and erfcx (a table of 100 Chebyshev fits in
// torch) is exp(x^2) erfc(x) below 26 and its asymptotic series above.
//
// Branches are selects: both sides are evaluated and one is kept, so
// every loop either has a fixed trip count (masked steps) or goes
// through `M::whileLoop`.
//
// A backend provides: `V` (a float value of the compute type) and `B` (a
// truth value), arithmetic and comparisons on V (with doubles on either
// side), `&&`, `||`, `!` on B, and the members c(double), select(B, V, V),
// exp, log, log1p, sqrt, abs, floor, trunc, sin, cos, tan, acos, erfc,
// pow, isDouble(), whileLoop, and wide()/toWide/fromWide (a double backend,
// for what torch computes in double); libmErf, libmExp and libmLog are
// erf, exp and log as glibc computes them in the compute type (float's
// correctly rounded: the IR backend computes an f32 one in f64 and rounds),
// for algorithms whose result turns on their last bit (erfinv's Newton
// steps).
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_SUPPORT_SPECIALFUNCTIONS_H
#define TRACEDIR_SUPPORT_SPECIALFUNCTIONS_H

#include <array>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <type_traits>

namespace mlir::traced::special {

constexpr double kPi = 3.14159265358979323846264338327950288;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A C++ number that computes in T: float arithmetic stays float (as
/// torch's float kernels compute), a double operand is converted first.
template <typename T> struct Num {
  T v;
  Num() = default;
  Num(T v) : v(v) {}
  template <typename U,
            typename = std::enable_if_t<std::is_arithmetic_v<U> &&
                                        !std::is_same_v<U, T>>>
  explicit Num(U u) : v(static_cast<T>(u)) {}
  Num operator-() const { return Num(-v); }
};
#define TRACED_NUM_OP(OP)                                                      \
  template <typename T> Num<T> operator OP(Num<T> x, Num<T> y) {               \
    return Num<T>(static_cast<T>(x.v OP y.v));                                 \
  }                                                                            \
  template <typename T> Num<T> operator OP(Num<T> x, double y) {               \
    return Num<T>(static_cast<T>(x.v OP static_cast<T>(y)));                   \
  }                                                                            \
  template <typename T> Num<T> operator OP(double x, Num<T> y) {               \
    return Num<T>(static_cast<T>(static_cast<T>(x) OP y.v));                   \
  }
TRACED_NUM_OP(+)
TRACED_NUM_OP(-)
TRACED_NUM_OP(*)
TRACED_NUM_OP(/)
#undef TRACED_NUM_OP
#define TRACED_NUM_CMP(OP)                                                     \
  template <typename T> bool operator OP(Num<T> x, Num<T> y) {                 \
    return x.v OP y.v;                                                         \
  }                                                                            \
  template <typename T> bool operator OP(Num<T> x, double y) {                 \
    return x.v OP static_cast<T>(y);                                           \
  }                                                                            \
  template <typename T> bool operator OP(double x, Num<T> y) {                 \
    return static_cast<T>(x) OP y.v;                                           \
  }
TRACED_NUM_CMP(<)
TRACED_NUM_CMP(<=)
TRACED_NUM_CMP(>)
TRACED_NUM_CMP(>=)
TRACED_NUM_CMP(==)
TRACED_NUM_CMP(!=)
#undef TRACED_NUM_CMP

/// The backend for plain C++ numbers (the interpreter): T is float or
/// double, the precision torch's kernel computes in; `wide()` is the
/// double backend, for the parts torch computes in double.
template <typename T> struct Scalar {
  using V = Num<T>;
  using B = bool;
  static constexpr bool isDouble() { return sizeof(T) == 8; }
  V c(double v) const { return V(static_cast<T>(v)); }
  V select(B p, V a, V b) const { return p ? a : b; }
  Scalar<double> wide() const { return {}; }
  Num<double> toWide(V x) const { return Num<double>(static_cast<double>(x.v)); }
  V fromWide(Num<double> x) const { return V(static_cast<T>(x.v)); }
  V exp(V x) const { return V(std::exp(x.v)); }
  V log(V x) const { return V(std::log(x.v)); }
  V log1p(V x) const { return V(std::log1p(x.v)); }
  V sqrt(V x) const { return V(std::sqrt(x.v)); }
  V abs(V x) const { return V(std::fabs(x.v)); }
  V floor(V x) const { return V(std::floor(x.v)); }
  V trunc(V x) const { return V(std::trunc(x.v)); }
  V sin(V x) const { return V(std::sin(x.v)); }
  V tan(V x) const { return V(std::tan(x.v)); }
  V cos(V x) const { return V(std::cos(x.v)); }
  V acos(V x) const { return V(std::acos(x.v)); }
  V erfc(V x) const { return V(std::erfc(x.v)); }
  V pow(V x, V y) const { return V(std::pow(x.v, y.v)); }
  V libmErf(V x) const { return V(std::erf(x.v)); }
  V libmExp(V x) const { return V(std::exp(x.v)); }
  V libmLog(V x) const { return V(std::log(x.v)); }
  /// Runs `step` on `state` while `cond(state)` holds.
  template <size_t N, typename Cond, typename Step>
  std::array<V, N> whileLoop(std::array<V, N> state, Cond cond,
                             Step step) const {
    while (cond(state))
      state = step(state);
    return state;
  }
};

/// Horner's rule over `coeffs`, highest power first (Cephes' polevl).
template <class M, class V = typename M::V>
V polevl(const M &m, V x, std::initializer_list<double> coeffs) {
  V r = m.c(0);
  for (double k : coeffs)
    r = r * x + k;
  return r;
}

/// Cephes' chbevl: the Chebyshev series `coeffs` (zero-order term last)
/// at x / 2.
template <class M, class V = typename M::V>
V chbevl(const M &m, V x, const double *coeffs, size_t len) {
  V b0 = m.c(coeffs[0]), b1 = m.c(0), b2 = m.c(0);
  for (size_t i = 1; i < len; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = x * b1 - b2 + coeffs[i];
  }
  return (b0 - b2) * 0.5;
}

/// |sin(pi x)|, exactly 0 at the integers (the argument is reduced to
/// [0, 1/2] first).
template <class M, class V = typename M::V> V sinPiAbs(const M &m, V x) {
  V y = m.abs(x);
  V f = y - m.floor(y);
  V r = m.select(f > 0.5, 1.0 - f, f);
  return m.sin(r * kPi);
}

/// log |Gamma(x)|: Lanczos (g = 7, 9 terms) for x >= 1/2, the reflection
/// formula below; +inf at the poles and at +-inf.
template <class M, class V = typename M::V> V lgamma(const M &m, V x) {
  static constexpr double p[] = {
      0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
      771.32342877765313,   -176.61502916214059,   12.507343278686905,
      -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  auto reflect = x < 0.5;
  V y = m.select(reflect, 1.0 - x, x);
  V z = y - 1.0;
  V a = m.c(p[0]);
  for (int i = 1; i < 9; ++i)
    a = a + p[i] / (z + static_cast<double>(i));
  V t = z + 7.5;
  V lanczos = (z + 0.5) * m.log(t) - t + m.log(a) +
              0.91893853320467274178; // log(sqrt(2 pi))
  V reflected = m.c(1.1447298858494002) - m.log(sinPiAbs(m, x)) - lanczos;
  V r = m.select(reflect, reflected, lanczos);
  return m.select(m.abs(x) == kInf, m.c(kInf), r);
}

/// torch's calc_digamma: the recurrence up to 10, then the asymptotic
/// series; the reflection formula below 0, NaN at the negative integers,
/// -+inf at +-0.
template <class M, class V = typename M::V> V digamma(const M &m, V x) {
  auto negative = x < 0.0;
  V y = m.select(negative, 1.0 - x, x);
  V acc = m.c(0);
  for (int i = 0; i < 10; ++i) {
    auto below = y < 10.0;
    acc = m.select(below, acc - 1.0 / y, acc);
    y = m.select(below, y + 1.0, y);
  }
  V z = 1.0 / (y * y);
  V series =
      z * polevl(m, z,
                 {8.33333333333333333333E-2, -2.10927960927960927961E-2,
                  7.57575757575757575758E-3, -4.16666666666666666667E-3,
                  3.96825396825396825397E-3, -8.33333333333333333333E-3,
                  8.33333333333333333333E-2});
  series = m.select(y < 1.0e17, series, m.c(0));
  V core = acc + m.log(y) - 0.5 / y - series;
  core = m.select(y == 10.0, acc + 2.25175258906672110764, core);
  // (torch computes pi / tan(pi r) in double, r = x - trunc(x).)
  auto w = m.wide();
  auto fraction = m.toWide(x - m.trunc(x));
  V reflected = core - m.fromWide(kPi / w.tan(fraction * kPi));
  V r = m.select(negative, reflected, core);
  r = m.select(negative && x == m.trunc(x), m.c(kNaN), r);
  // (copysign(inf, -x) at a zero: -1 / x.)
  return m.select(x == 0.0, -1.0 / x, r);
}

/// torch's trigamma (polygamma(1, x)).
template <class M, class V = typename M::V> V trigamma(const M &m, V x) {
  auto reflect = x < 0.5;
  V s = m.sin(x * m.c(kPi));
  V acc = m.select(reflect, m.c(-kPi * kPi) / (s * s), m.c(0));
  V y = m.select(reflect, 1.0 - x, x);
  for (int i = 0; i < 6; ++i) {
    acc = acc + 1.0 / (y * y);
    y = y + 1.0;
  }
  V ixx = 1.0 / (y * y);
  acc = acc +
        (1.0 + 1.0 / (y * 2.0) +
         ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) /
            y;
  return m.select(reflect, -acc, acc);
}

/// The Hurwitz zeta function sum_k (k + q)^-x, torch's (Cephes') zeta: a
/// direct sum until the terms are small or a > 9, then Euler-Maclaurin.
/// In the backend's precision (torch computes it in double for float).
template <class M, class V = typename M::V> V zeta(const M &m, V x, V q) {
  static constexpr double A[] = {12.0,
                                 -720.0,
                                 30240.0,
                                 -1209600.0,
                                 47900160.0,
                                 -1.8924375803183791606e9,
                                 7.47242496e10,
                                 -2.950130727918164224e12,
                                 1.1646782814350067249e14,
                                 -4.5979787224074726105e15,
                                 1.8152105401943546773e17,
                                 -7.1661652561756670113e18};
  const double machep = 1.11022302462515654042E-16;
  // The direct sum; state: a, b, s, i, done.
  std::array<V, 5> init = {q, m.c(0), m.pow(q, -x), m.c(0), m.c(0)};
  auto sum = m.whileLoop(
      init,
      [&](const std::array<V, 5> &st) {
        return st[4] == 0.0 && (st[3] < 9.0 || st[0] <= 9.0);
      },
      [&](const std::array<V, 5> &st) {
        V a = st[0] + 1.0;
        V b = m.pow(a, -x);
        V s = st[2] + b;
        auto small = (-machep * s < b) && (b < machep * s);
        return std::array<V, 5>{a, b, s, st[3] + 1.0,
                                m.select(small, m.c(1), m.c(0))};
      });
  V a = sum[0], b = sum[1], s = sum[2];
  auto done = sum[4] == 1.0;
  V w = a;
  s = s + b * w / (x - 1.0);
  s = s - b * 0.5;
  V f = m.c(1), k = m.c(0);
  for (int i = 0; i < 12; ++i) {
    f = f * (x + k);
    b = b / w;
    V t = f * b / A[i];
    V next = s + t;
    auto converged = m.abs(t / next) < machep;
    s = m.select(done, s, next);
    done = done || converged;
    k = k + 1.0;
    f = f * (x + k);
    b = b / w;
    k = k + 1.0;
  }
  V r = m.select(sum[4] == 1.0, sum[2], s);
  // The early returns.
  auto qBad = q <= 0.0;
  r = m.select(qBad && x != m.floor(x), m.c(kNaN), r);
  r = m.select(qBad && q == m.floor(q), m.c(kInf), r);
  r = m.select(x < 1.0, m.c(kNaN), r);
  return m.select(x == 1.0, m.c(kInf), r);
}

/// The early-return conditions of zeta, under which its loop need not run
/// (it would not end for a q = -inf): the loop's x and q are replaced by 2
/// and 1 there.
template <class M, class V = typename M::V>
auto zetaSkipsLoop(const M &m, V x, V q) {
  // (A NaN operand ends the loop after 9 steps: it needs no guard.)
  return x <= 1.0 || (q <= 0.0 && (q == m.floor(q) || x != m.floor(x)));
}

/// zeta with the loop guarded (see zetaSkipsLoop).
template <class M, class V = typename M::V> V zetaGuarded(const M &m, V x, V q) {
  auto skip = zetaSkipsLoop(m, x, q);
  V r = zeta(m, m.select(skip, m.c(2), x), m.select(skip, m.c(1), q));
  // The early returns, on the real operands.
  auto qBad = q <= 0.0;
  r = m.select(qBad && x != m.floor(x), m.c(kNaN), r);
  r = m.select(qBad && q == m.floor(q), m.c(kInf), r);
  r = m.select(x < 1.0, m.c(kNaN), r);
  return m.select(x == 1.0, m.c(kInf), r);
}

/// polygamma(n, x) for n >= 2: (-1)^(n+1) n! zeta(n + 1, x).
template <class M, class V = typename M::V>
V polygammaHigh(const M &m, int64_t n, V x) {
  double factorial = std::exp(std::lgamma(static_cast<double>(n) + 1.0));
  V z = zetaGuarded(m, m.c(static_cast<double>(n + 1)), x);
  return z * ((n % 2 ? 1.0 : -1.0) * factorial);
}

namespace detail {
inline constexpr double kI0eA[] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17,
    -2.43127984654795469359E-16, 1.71539128555513303061E-15,
    -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12,
    -1.72682629144155570723E-11, 9.67580903537323691224E-11,
    -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8,  6.04699502254191894932E-8,
    -2.67079385394061173391E-7,  1.11738753912010371815E-6,
    -4.41673835845875056359E-6,  1.64484480707288970893E-5,
    -5.75419501008210370398E-5,  1.88502885095841655729E-4,
    -5.76375574538582365885E-4,  1.63947561694133579842E-3,
    -4.32430999505057594430E-3,  1.05464603945949983183E-2,
    -2.37374148058994688156E-2,  4.93052842396707084878E-2,
    -9.49010970480476444210E-2,  1.71620901522208775349E-1,
    -3.04682672343198398683E-1,  6.76795274409476084995E-1};
inline constexpr double kI0eB[] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18,
    4.46562142029675999901E-17,  3.46122286769746109310E-17,
    -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15,  3.81168066935262242075E-15,
    -9.55484669882830764870E-15, -4.15056934728722208663E-14,
    1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12,
    -1.32158118404477131188E-11, -3.14991652796324136454E-11,
    1.18891471078464383424E-11,  4.94060238822496958910E-10,
    3.39623202570838634515E-9,   2.26666899049817806459E-8,
    2.04891858946906374183E-7,   2.89137052083475648297E-6,
    6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1};
// (torch's float kernels use the last 17 and 7 of the i1e tables.)
inline constexpr double kI1eA[] = {
    2.77791411276104639959E-18, -2.11142121435816608115E-17,
    1.55363195773620046921E-16, -1.10559694773538630805E-15,
    7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12,
    1.17361862988909016308E-11, -6.66348972350202774223E-11,
    3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9,  -4.44505912879632808065E-8,
    2.00329475355213526229E-7,  -8.56872026469545474066E-7,
    3.47025130813767847674E-6,  -1.32731636560394358279E-5,
    4.78156510755005422638E-5,  -1.61760815825896745588E-4,
    5.12285956168575772895E-4,  -1.51357245063125314899E-3,
    4.15642294431288815669E-3,  -1.05640848946261981558E-2,
    2.47264490306265168283E-2,  -5.29459812080949914269E-2,
    1.02643658689847095384E-1,  -1.76416518357834055153E-1,
    2.52587186443633654823E-1};
inline constexpr double kI1eB[] = {
    7.51729631084210481353E-18,  4.41434832307170791151E-18,
    -4.65030536848935832153E-17, -3.20952592199342395980E-17,
    2.96262899764595013876E-16,  3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15,
    1.04202769841288027642E-14,  4.27244001671195135429E-14,
    -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12,
    1.41258074366137813316E-11,  3.25260358301548823856E-11,
    -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9,  -2.63146884688951950684E-8,
    -2.51223623787020892529E-7,  -3.88256480887769039346E-6,
    -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
    7.78576235018280120474E-1};
} // namespace detail

/// The modified Bessel functions of the first kind, orders 0 and 1, and
/// their exponentially scaled forms (`scaled`: times exp(-|x|)), as
/// torch's calc_i0/i0e/i1/i1e.
template <class M, class V = typename M::V>
V besselI(const M &m, V input, int order, bool scaled,
          bool fullTables = false) {
  using namespace detail;
  V x = m.abs(input);
  auto small = x <= 8.0;
  // (The other interval's argument, kept finite where it is not used.)
  V ySmall = m.select(small, x, m.c(8)) * 0.5 - 2.0;
  V yLarge = 32.0 / m.select(small, m.c(8), x) - 2.0;
  V lo, hi;
  if (order == 0) {
    lo = chbevl(m, ySmall, kI0eA, 30);
    hi = chbevl(m, yLarge, kI0eB, 25);
  } else {
    bool full = fullTables || m.isDouble();
    lo = x * (full ? chbevl(m, ySmall, kI1eA, 29)
                   : chbevl(m, ySmall, kI1eA + 12, 17));
    hi = full ? chbevl(m, yLarge, kI1eB, 25) : chbevl(m, yLarge, kI1eB + 18, 7);
  }
  V r;
  if (scaled)
    r = m.select(small, lo, hi / m.sqrt(x));
  else
    r = m.select(small, m.exp(x) * lo, m.exp(x) * hi / m.sqrt(x));
  if (order == 1)
    r = m.select(input < 0.0, -r, r);
  return r;
}

/// torch's calc_ndtri (Cephes): the normal quantile function.
template <class M, class V = typename M::V> V ndtri(const M &m, V y0) {
  const double expm2 = 0.13533528323661269189;
  auto upper = y0 > 1.0 - expm2;
  V y = m.select(upper, 1.0 - y0, y0);
  // The central interval.
  V yc = y - 0.5;
  V y2 = yc * yc;
  V central =
      (yc + yc * (y2 *
                  polevl(m, y2,
                         {-5.99633501014107895267E1, 9.80010754185999661536E1,
                          -5.66762857469070293439E1, 1.39312609387279679503E1,
                          -1.23916583867381258016E0}) /
                  polevl(m, y2,
                         {1.00000000000000000000E0, 1.95448858338141759834E0,
                          4.67627912898881538453E0, 8.63602421390890590575E1,
                          -2.25462687854119370527E2, 2.00260212380060660359E2,
                          -8.20372256168333339912E1, 1.59056225126211695515E1,
                          -1.18331621121330003142E0}))) *
      2.50662827463100050242E0;
  // The tails.
  auto inTail = !(y > expm2);
  V yt = m.select(inTail && y > 0.0, y, m.c(expm2));
  V x = m.sqrt(m.log(yt) * -2.0);
  V x0 = x - m.log(x) / x;
  V z = 1.0 / x;
  V near = z *
           polevl(m, z,
                  {4.05544892305962419923E0, 3.15251094599893866154E1,
                   5.71628192246421288162E1, 4.40805073893200834700E1,
                   1.46849561928858024014E1, 2.18663306850790267539E0,
                   -1.40256079171354495875E-1, -3.50424626827848203418E-2,
                   -8.57456785154685413611E-4}) /
           polevl(m, z,
                  {1.00000000000000000000E0, 1.57799883256466749731E1,
                   4.53907635128879210584E1, 4.13172038254672030440E1,
                   1.50425385692907503408E1, 2.50464946208309415979E0,
                   -1.42182922854787788574E-1, -3.80806407691578277194E-2,
                   -9.33259480895457427372E-4});
  V far = z *
          polevl(m, z,
                 {3.23774891776946035970E0, 6.91522889068984211695E0,
                  3.93881025292474443415E0, 1.33303460815807542389E0,
                  2.01485389549179081538E-1, 1.23716634817820021358E-2,
                  3.01581553508235416007E-4, 2.65806974686737550832E-6,
                  6.23974539184983293730E-9}) /
          polevl(m, z,
                 {1.00000000000000000000E0, 6.02427039364742014255E0,
                  3.67983563856160859403E0, 1.37702099489081330271E0,
                  2.16236993594496635890E-1, 1.34204006088543189037E-2,
                  3.28014464682127739104E-4, 2.89247864745380683936E-6,
                  6.79019408009981274425E-9});
  V tail = x0 - m.select(x < 8.0, near, far);
  tail = m.select(upper, tail, -tail);
  V r = m.select(inTail, tail, central);
  r = m.select(y0 < 0.0 || y0 > 1.0 || y0 != y0, m.c(kNaN), r);
  r = m.select(y0 == 1.0, m.c(kInf), r);
  return m.select(y0 == 0.0, m.c(-kInf), r);
}

/// erfcx(x) = exp(x^2) erfc(x) for x >= 0 (+inf and NaN too): the product
/// itself up to 26 (its relative error is about x^2 ulp), beyond it the
/// asymptotic series 1 / (x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k.
template <class M, class V = typename M::V> V erfcxPositive(const M &m, V x) {
  auto far = x > 26.0;
  V near = m.select(far, m.c(26), x);
  V product = m.exp(near * near) * m.erfc(near);
  V big = m.select(far, x, m.c(26));
  V u = 1.0 / (big * big * 2.0);
  V series = m.c(1), term = m.c(1);
  for (int k = 1; k <= 10; ++k) {
    term = term * (u * -static_cast<double>(2 * k - 1));
    series = series + term;
  }
  series = series / (big * 1.7724538509055160273);
  V r = m.select(far, series, product);
  return m.select(x == kInf, m.c(0), r);
}

/// erfcx: erfcxPositive in double for x >= 0; below 0, torch's
/// 2 exp(x^2) - erfcx(-x) in the input's precision (2 exp(x^2) alone below
/// -6.1, +inf below -26.7).
template <class M, class V = typename M::V> V erfcx(const M &m, V x) {
  V positive = m.fromWide(erfcxPositive(m.wide(), m.toWide(m.abs(x))));
  V xn = m.select(x < -26.7, m.c(0), x);
  V twice = m.exp(xn * xn) * 2.0;
  V negative = m.select(x < -6.1, twice, twice - positive);
  negative = m.select(x < -26.7, m.c(kInf), negative);
  return m.select(x < 0.0, negative, positive);
}

/// torch's calc_log_ndtr: log of the normal distribution function.
template <class M, class V = typename M::V> V logNdtr(const M &m, V x) {
  V t = x * 0.70710678118654752440;
  V low = m.log(erfcx(m, -t) * 0.5) - t * t;
  V high = m.log1p(m.erfc(t) * -0.5);
  return m.select(x < -1.0, low, high);
}

/// torch's calc_ndtr: the normal distribution function.
template <class M, class V = typename M::V> V ndtr(const M &m, V x) {
  return m.erfc(x * -0.70710678118654752440) * 0.5;
}

/// torch.special's orthogonal polynomials of (x, n).
enum class Polynomial {
  ChebyshevT,
  ChebyshevU,
  ChebyshevV,
  ChebyshevW,
  ShiftedT,
  ShiftedU,
  ShiftedV,
  ShiftedW,
  HermiteH,
  HermiteHe,
  Laguerre,
  Legendre
};

/// torch's *_polynomial_*_forward(x, n): n truncated to an integer (NaN
/// and values beyond int64 are INT64_MIN, as x86 converts them, so 0),
/// the values at the interval's ends, the trigonometric closed forms of
/// the Chebyshev kinds for larger n inside it, else the three-term
/// recurrence (an M::whileLoop of n - 1 steps).
template <class M, class V = typename M::V>
V orthogonalPolynomial(const M &m, Polynomial kind, V x, V nIn) {
  using P = Polynomial;
  V n = m.select(m.abs(nIn) < 9.2e18, m.trunc(nIn), m.c(-1));
  auto even = m.trunc(n * 0.5) * 2.0 == n;
  bool shifted = kind == P::ShiftedT || kind == P::ShiftedU ||
                 kind == P::ShiftedV || kind == P::ShiftedW;
  bool chebyshev = shifted || kind == P::ChebyshevT ||
                   kind == P::ChebyshevU || kind == P::ChebyshevV ||
                   kind == P::ChebyshevW;
  V y = shifted ? x + x - 1.0 : x;
  V odd2n1 = n + n + 1.0;
  V one = m.c(1), minusOne = m.c(-1);
  // The value for n == 1, the ends' values, the closed form.
  V first = y;
  auto atEnd = m.abs(y) == 1.0; // (shifted: x == 1 or x == 0)
  auto upper = y > 0.0;
  V endValue = m.select(upper || even, one, minusOne);
  auto never = x != x && x == x;
  auto closedUsed = never;
  V closed = m.c(0);
  if (chebyshev) {
    V theta = m.acos(m.select(m.abs(y) < 1.0, y, m.c(0)));
    if (kind == P::ChebyshevT || kind == P::ShiftedT) {
      closedUsed = m.abs(y) < 1.0 && n > 6.0;
      closed = m.cos(n * theta);
    } else if (kind == P::ChebyshevU || kind == P::ShiftedU) {
      first = y + y;
      endValue = m.select(upper || even, n + 1.0, -(n + 1.0));
      closedUsed = m.abs(y) < 1.0 && n > (shifted ? 6.0 : 8.0);
      V s = m.sin(theta);
      closed = m.select(s != 0.0, m.sin((n + 1.0) * theta) / s,
                        (n + 1.0) * m.cos((n + 1.0) * theta) / y);
    } else if (kind == P::ChebyshevV || kind == P::ShiftedV) {
      first = y + y - 1.0;
      V parity = m.select(even, odd2n1, -odd2n1);
      endValue = m.select(upper, one, parity);
      closedUsed = m.abs(y) < 1.0 && n > (shifted ? 6.0 : 8.0);
      closed = m.select(m.sin(theta / 2.0) != 1.0,
                        m.cos((n + 0.5) * theta) / m.cos(theta / 2.0), parity);
    } else {
      first = y + y + 1.0;
      V parity = m.select(even, one, minusOne);
      endValue = m.select(upper, odd2n1, parity);
      closedUsed = m.abs(y) < 1.0 && n > (shifted ? 4.0 : 8.0);
      V fallback = shifted ? parity : m.select(upper, odd2n1, parity);
      closed = m.select(m.cos(theta / 2.0) != 1.0,
                        m.sin((n + 0.5) * theta) / m.sin(theta / 2.0),
                        fallback);
    }
  } else if (kind == P::HermiteH) {
    first = x + x;
    atEnd = never; // (no special points)
  } else if (kind == P::HermiteHe) {
    atEnd = never;
  } else if (kind == P::Laguerre) {
    first = 1.0 - x;
    atEnd = m.abs(x) == 0.0;
    endValue = one;
  }
  // The recurrence, for the steps i = 1 .. n - 1 where it is used. torch
  // counts them in int64; here i = hi * 4096 + lo, both parts exact in
  // float32 (a float32 counter stops growing at 2^24: n = 1.8e7 looped
  // forever), up to 2^36 steps (torch takes minutes for more). The loop
  // stops early once the value is NaN, which it then stays.
  auto recurs = n >= 2.0 && !atEnd && !closedUsed;
  V steps = m.select(recurs, n, m.c(1));
  V stepsHi = m.floor(steps / 4096.0), stepsLo = steps - stepsHi * 4096.0;
  std::array<V, 4> init = {m.c(1), m.c(0), one, first};
  auto done = m.whileLoop(
      init,
      [&](const std::array<V, 4> &st) {
        V lo = st[0], hi = st[1], q = st[3];
        return (hi < stepsHi || (hi == stepsHi && lo < stepsLo)) &&
               hi < 16777216.0 && q == q;
      },
      [&](const std::array<V, 4> &st) {
        V lo = st[0], hi = st[1], p = st[2], q = st[3], r;
        V i = hi * 4096.0 + lo;
        switch (kind) {
        case P::HermiteH:
          r = (x + x) * q - (i + i) * p;
          break;
        case P::HermiteHe:
          r = x * q - i * p;
          break;
        case P::Laguerre:
          r = (((i + i) + (1.0 - x)) * q - i * p) / (i + 1.0);
          break;
        case P::Legendre:
          r = ((i + i + 1.0) * x * q - i * p) / (i + 1.0);
          break;
        default:
          r = (y + y) * q - p;
          break;
        }
        V next = lo + 1.0;
        auto wrap = next == 4096.0;
        return std::array<V, 4>{m.select(wrap, m.c(0), next),
                                m.select(wrap, hi + 1.0, hi), q, r};
      });
  V r = done[3];
  r = m.select(n == 1.0, first, r);
  r = m.select(n == 0.0, one, r);
  r = m.select(closedUsed, closed, r);
  r = m.select(atEnd, endValue, r);
  return m.select(n < 0.0, m.c(0), r);
}

/// torch.special.spherical_bessel_j0: sin(x) / x, its series below 1/2.
template <class M, class V = typename M::V>
V sphericalBesselJ0(const M &m, V x) {
  V x2 = x * x;
  V series =
      1.0 + x2 * (-1.0 / 6.0 +
                  x2 * (1.0 / 120.0 +
                        x2 * (-1.0 / 5040.0 +
                              x2 * (1.0 / 362880.0 +
                                    x2 * (-1.0 / 39916800.0 +
                                          x2 * (1.0 / 6227020800.0))))));
  V r = m.select(m.abs(x) < 0.5, series, m.sin(x) / x);
  return m.select(m.abs(x) == kInf, m.c(0), r);
}

namespace detail {
// torch's bessel_j0/y0 (Cephes j0.c) asymptotic coefficients, shared.
#define TRACED_J0_PP                                                           \
  {7.96936729297347051624e-04, 8.28352392107440799803e-02,                     \
   1.23953371646414299388e+00, 5.44725003058768775090e+00,                     \
   8.74716500199817011941e+00, 5.30324038235394892183e+00,                     \
   9.99999999999999997821e-01}
#define TRACED_J0_PQ                                                           \
  {9.24408810558863637013e-04, 8.56288474354474431428e-02,                     \
   1.25352743901058953537e+00, 5.47097740330417105182e+00,                     \
   8.76190883237069594232e+00, 5.30605288235394617618e+00,                     \
   1.00000000000000000218e+00}
#define TRACED_J0_QP                                                           \
  {-1.13663838898469149931e-02, -1.28252718670509318512e+00,                   \
   -1.95539544257735972385e+01, -9.32060152123768231369e+01,                   \
   -1.77681167980488050595e+02, -1.47077505154951170175e+02,                   \
   -5.14105326766599330220e+01, -6.05014350600728481186e+00}
#define TRACED_J0_QQ                                                           \
  {6.43178256118178023184e+01, 8.56430025976980587198e+02,                     \
   3.88240183605401609683e+03, 7.24046774195652478189e+03,                     \
   5.93072701187316984827e+03, 2.06209331660327847417e+03,                     \
   2.42005740240291393179e+02}
#define TRACED_J1_PP                                                           \
  {7.62125616208173112003e-04, 7.31397056940917570436e-02,                     \
   1.12719608129684925192e+00, 5.11207951146807644818e+00,                     \
   8.42404590141772420927e+00, 5.21451598682361504063e+00,                     \
   1.00000000000000000254e+00}
#define TRACED_J1_PQ                                                           \
  {5.71323128072548699714e-04, 6.88455908754495404082e-02,                     \
   1.10514232634061696926e+00, 5.07386386128601488557e+00,                     \
   8.39985554327604159757e+00, 5.20982848682361821619e+00,                     \
   9.99999999999999997461e-01}
#define TRACED_J1_QP                                                           \
  {5.10862594750176621635e-02, 4.98213872951233449420e+00,                     \
   7.58238284132545283818e+01, 3.66779609360150777800e+02,                     \
   7.10856304998926107277e+02, 5.97489612400613639965e+02,                     \
   2.11688757100572135698e+02, 2.52070205858023719784e+01}
#define TRACED_J1_QQ                                                           \
  {7.42373277035675149943e+01, 1.05644886038262816351e+03,                     \
   4.98641058337653607651e+03, 9.56231892404756170795e+03,                     \
   7.99704160447350683650e+03, 2.82619278517639096600e+03,                     \
   3.36093607810698293419e+02}

/// The asymptotic form of J0/Y0 (`order` 0) or J1/Y1 (1) beyond x = 5:
/// (P cos(x - phase) - 5/x Q sin(x - phase)) sqrt(2 / pi) / sqrt(x) for J,
/// sin and cos swapped and the sign flipped for Y.
template <class M, class V = typename M::V>
V besselAsymptotic(const M &m, V x, int order, bool y) {
  V z = order == 0 ? 25.0 / (x * x) : 5.0 / x * (5.0 / x);
  V pp = order == 0 ? polevl(m, z, TRACED_J0_PP) : polevl(m, z, TRACED_J1_PP);
  V pq = order == 0 ? polevl(m, z, TRACED_J0_PQ) : polevl(m, z, TRACED_J1_PQ);
  V qp = order == 0 ? polevl(m, z, TRACED_J0_QP) : polevl(m, z, TRACED_J1_QP);
  V qq = order == 0 ? polevl(m, z, TRACED_J0_QQ) : polevl(m, z, TRACED_J1_QQ);
  V arg = x - (order == 0 ? 0.785398163397448309615660845819875721
                          : 2.356194490192344928846982537459627163);
  V r = y ? pp / pq * m.sin(arg) + 5.0 / x * (qp / qq) * m.cos(arg)
          : pp / pq * m.cos(arg) - 5.0 / x * (qp / qq) * m.sin(arg);
  return r * 0.797884560802865355879892119868763737 / m.sqrt(x);
}
#undef TRACED_J0_PP
#undef TRACED_J0_PQ
#undef TRACED_J0_QP
#undef TRACED_J0_QQ
#undef TRACED_J1_PP
#undef TRACED_J1_PQ
#undef TRACED_J1_QP
#undef TRACED_J1_QQ

inline constexpr double kK0A[] = {
    1.37446543561352307156e-16, 4.25981614279661018399e-14,
    1.03496952576338420167e-11, 1.90451637722020886025e-09,
    2.53479107902614945675e-07, 2.28621210311945178607e-05,
    1.26461541144692592338e-03, 3.59799365153615016266e-02,
    3.44289899924628486886e-01, -5.35327393233902768720e-01};
inline constexpr double kK0B[] = {
    5.30043377268626276149e-18,  -1.64758043015242134646e-17,
    5.21039150503902756861e-17,  -1.67823109680541210385e-16,
    5.51205597852431940784e-16,  -1.84859337734377901440e-15,
    6.34007647740507060557e-15,  -2.22751332699166985548e-14,
    8.03289077536357521100e-14,  -2.98009692317273043925e-13,
    1.14034058820847496303e-12,  -4.51459788337394416547e-12,
    1.85594911495471785253e-11,  -7.95748924447710747776e-11,
    3.57739728140030116597e-10,  -1.69753450938905987466e-09,
    8.57403401741422608519e-09,  -4.66048989768794782956e-08,
    2.76681363944501510342e-07,  -1.83175552271911948767e-06,
    1.39498137188764993662e-05,  -1.28495495816278026384e-04,
    1.56988388573005337491e-03,  -3.14481013119645005427e-02,
    2.44030308206595545468e+00};
inline constexpr double kK1A[] = {
    -7.02386347938628759343e-18, -2.42744985051936593393e-15,
    -6.66690169419932900609e-13, -1.41148839263352776110e-10,
    -2.21338763073472585583e-08, -2.43340614156596823496e-06,
    -1.73028895751305206302e-04, -6.97572385963986435018e-03,
    -1.22611180822657148235e-01, -3.53155960776544875667e-01,
    1.52530022733894777053e+00};
inline constexpr double kK1B[] = {
    -5.75674448366501715755e-18, 1.79405087314755922667e-17,
    -5.68946255844285935196e-17, 1.83809354436663880070e-16,
    -6.05704724837331885336e-16, 2.03870316562433424052e-15,
    -7.01983709041831346144e-15, 2.47715442448130437068e-14,
    -8.97670518232499435011e-14, 3.34841966607842919884e-13,
    -1.28917396095102890680e-12, 5.13963967348173025100e-12,
    -2.12996783842756842877e-11, 9.21831518760500529508e-11,
    -4.19035475934189648750e-10, 2.01504975519703286596e-09,
    -1.03457624656780970260e-08, 5.74108412545004946722e-08,
    -3.50196060308781257119e-07, 2.40648494783721712015e-06,
    -1.93619797416608296024e-05, 1.95215518471351631108e-04,
    -2.85781685962277938680e-03, 1.03923736576817238437e-01,
    2.72062619048444266945e+00};
} // namespace detail

/// torch.special.bessel_j0 (Cephes j0.c): a rational function of x^2 up to
/// 5 (1 - x^2/4 below 1e-5), the asymptotic form beyond.
template <class M, class V = typename M::V> V besselJ0(const M &m, V input) {
  V x = m.abs(input);
  V z = x * x;
  V rp = polevl(m, z,
                {-4.79443220978201773821e+09, 1.95617491946556577543e+12,
                 -2.49248344360967716204e+14, 9.70862251047306323952e+15});
  V rq = polevl(m, z,
                {4.99563147152651017219e+02, 1.73785401676374683123e+05,
                 4.84409658339962045305e+07, 1.11855537045356834862e+10,
                 2.11277520115489217587e+12, 3.10518229857422583814e+14,
                 3.18121955943204943306e+16, 1.71086294081043136091e+18});
  V small = (z - 5.78318596294678452118e+00) *
            (z - 3.04712623436620863991e+01) * rp / rq;
  small = m.select(x < 0.00001, 1.0 - z / 4.0, small);
  return m.select(x <= 5.0, small, detail::besselAsymptotic(m, x, 0, false));
}

/// torch.special.bessel_j1 (Cephes j1.c), odd.
template <class M, class V = typename M::V> V besselJ1(const M &m, V input) {
  V x = m.abs(input);
  V z = x * x;
  V rp = polevl(m, z,
                {-8.99971225705559398224e+08, 4.52228297998194034323e+11,
                 -7.27494245221818276015e+13, 3.68295732863852883286e+15});
  V rq = polevl(m, z,
                {6.20836478118054335476e+02, 2.56987256757748830383e+05,
                 8.35146791431949253037e+07, 2.21511595479792499675e+10,
                 4.74914122079991414898e+12, 7.84369607876235854894e+14,
                 8.95222336184627338078e+16, 5.32278620332680085395e+18});
  V small = rp / rq * x * (z - 1.46819706421238932572e+01) *
            (z - 4.92184563216946036703e+01);
  V r = m.select(x <= 5.0, small, detail::besselAsymptotic(m, x, 1, false));
  return m.select(input < 0.0, -r, r);
}

/// torch.special.bessel_y0: -inf at 0, NaN below.
template <class M, class V = typename M::V> V besselY0(const M &m, V x) {
  V z = x * x;
  V yp = polevl(m, z,
                {1.55924367855235737965e+04, -1.46639295903971606143e+07,
                 5.43526477051876500413e+09, -9.82136065717911466409e+11,
                 8.75906394395366999549e+13, -3.46628303384729719441e+15,
                 4.42733268572569800351e+16, -1.84950800436986690637e+16});
  V yq = polevl(m, z,
                {1.04128353664259848412e+03, 6.26107330137134956842e+05,
                 2.68919633393814121987e+08, 8.64002487103935000337e+10,
                 2.02979612750105546709e+13, 3.17157752842975028269e+15,
                 2.50596256172653059228e+17});
  V small =
      yp / yq + (0.636619772367581343075535053490057448 * m.log(x) *
                 besselJ0(m, x));
  small = m.select(x == 0.0, m.c(-kInf), small);
  return m.select(x <= 5.0, small, detail::besselAsymptotic(m, x, 0, true));
}

/// torch.special.bessel_y1: -inf at 0, NaN below.
template <class M, class V = typename M::V> V besselY1(const M &m, V x) {
  V z = x * x;
  V yp = polevl(m, z,
                {1.26320474790178026440e+09, -6.47355876379160291031e+11,
                 1.14509511541823727583e+14, -8.12770255501325109621e+15,
                 2.02439475713594898196e+17, -7.78877196265950026825e+17});
  V yq = polevl(m, z,
                {5.94301592346128195359e+02, 2.35564092943068577943e+05,
                 7.34811944459721705660e+07, 1.87601316108706159478e+10,
                 3.88231277496238566008e+12, 6.20557727146953693363e+14,
                 6.87141087355300489866e+16, 3.97270608116560655612e+18});
  V small = x * (yp / yq) + (0.636619772367581343075535053490057448 *
                             (besselJ1(m, x) * m.log(x) - 1.0 / x));
  small = m.select(x < 0.0, m.c(kNaN), small);
  small = m.select(x == 0.0, m.c(-kInf), small);
  return m.select(x <= 5.0, small, detail::besselAsymptotic(m, x, 1, true));
}

/// torch.special.modified_bessel_k0/k1 (`order`), exponentially scaled
/// (times exp(x)) with `scaled`: Chebyshev series in x^2 - 2 with the
/// logarithmic term up to 2, in 8/x - 2 beyond; +inf at 0, NaN below.
template <class M, class V = typename M::V>
V besselK(const M &m, V x, int order, bool scaled) {
  using namespace detail;
  V y = x * x - 2.0;
  V logHalf = m.log(x * 0.5);
  V small =
      order == 0
          ? chbevl(m, y, kK0A, 10) - logHalf * besselI(m, x, 0, false, true)
          : logHalf * besselI(m, x, 1, false, true) +
                chbevl(m, y, kK1A, 11) / x;
  V large = order == 0 ? chbevl(m, 8.0 / x - 2.0, kK0B, 25)
                       : chbevl(m, 8.0 / x - 2.0, kK1B, 25);
  if (scaled) {
    small = small * m.exp(x);
    large = large / m.sqrt(x);
  } else {
    large = m.exp(-x) * large / m.sqrt(x);
  }
  V r = m.select(x <= 2.0, small, large);
  r = m.select(x < 0.0, m.c(kNaN), r);
  return m.select(x == 0.0, m.c(kInf), r);
}

/// torch.special.airy_ai (Cephes airy.c as torch has it): the oscillating
/// asymptotic form below -2.09, the decaying one from 2.09, the power
/// series between (an M::whileLoop to machine precision); 0 past 103.892,
/// NaN at +-inf.
template <class M, class V = typename M::V> V airyAi(const M &m, V x) {
  // Below -2.09 (x kept in range elsewhere).
  V xn = m.select(x < -2.09, x, m.c(-3));
  V root = m.sqrt(-xn);
  V z = 1.0 / (-2.0 * xn * root / 3.0);
  V z2 = z * z;
  V afn = polevl(m, z2,
                 {-1.31696323418331795333e-01, -6.26456544431912369773e-01,
                  -6.93158036036933542233e-01, -2.79779981545119124951e-01,
                  -4.91900132609500318020e-02, -4.06265923594885404393e-03,
                  -1.59276496239262096340e-04, -2.77649108155232920844e-06,
                  -1.67787698489114633780e-08});
  V afd = polevl(m, z2,
                 {1.33560420706553243746e+01, 3.26825032795224613948e+01,
                  2.67367040941499554804e+01, 9.18707402907259625840e+00,
                  1.47529146771666414581e+00, 1.15687173795188044134e-01,
                  4.40291641615211203805e-03, 7.54720348287414296618e-05,
                  4.51850092970580378464e-07});
  V agn = polevl(m, z2,
                 {1.97339932091685679179e-02, 3.91103029615688277255e-01,
                  1.06579897599595591108e+00, 9.39169229816650230044e-01,
                  3.51465656105547619242e-01, 6.33888919628925490927e-02,
                  5.85804113048388458567e-03, 2.82851600836737019778e-04,
                  6.98793669997260967291e-06, 8.11789239554389293311e-08,
                  3.41551784765923618484e-10});
  V agd = polevl(m, z2,
                 {9.30892908077441974853e+00, 1.98352928718312140417e+01,
                  1.55646628932864612953e+01, 5.47686069422975497931e+00,
                  9.54293611618961883998e-01, 8.64580826352392193095e-02,
                  4.12656523824222607191e-03, 1.01259085116509135510e-04,
                  1.17166733214413521882e-06, 4.91834570062930015649e-09});
  V t = -2.0 * xn * root / 3.0 + m.c(0.25) * m.c(kPi);
  V negative = 5.64189583547756286948e-01 / m.sqrt(root) *
               (m.sin(t) * (1.0 + z * z * afn / afd) - m.cos(t) * (z * agn / agd));
  // From 2.09.
  V xp = m.select(x >= 2.09, x, m.c(3));
  V zeta = 2.0 * xp * m.sqrt(xp) / 3.0;
  V an = polevl(m, 1.0 / zeta,
                {3.46538101525629032477e-01, 1.20075952739645805542e+01,
                 7.62796053615234516538e+01, 1.68089224934630576269e+02,
                 1.59756391350164413639e+02, 7.05360906840444183113e+01,
                 1.40264691163389668864e+01, 9.99999999999999995305e-01});
  V ad = polevl(m, 1.0 / zeta,
                {5.67594532638770212846e-01, 1.47562562584847203173e+01,
                 8.45138970141474626562e+01, 1.77318088145400459522e+02,
                 1.64234692871529701831e+02, 7.14778400825575695274e+01,
                 1.40959135607834029598e+01, 1.00000000000000000470e+00});
  V ai = 5.64189583547756286948e-01 * (an / ad) /
         (2.0 * m.sqrt(m.sqrt(xp)) * m.exp(zeta));
  // The power series in between (on 0 elsewhere, where it ends at once).
  V xs = m.select(x >= -2.09 && x < 2.09, x, m.c(0));
  V cube = xs * xs * xs;
  // state: f, g, k, term of f, term of g, |term / f|
  std::array<V, 6> init = {m.c(1), xs, m.c(1), m.c(1), xs, m.c(1)};
  auto st = m.whileLoop(
      init,
      [&](const std::array<V, 6> &v) {
        return v[5] > 1.11022302462515654042e-16;
      },
      [&](const std::array<V, 6> &v) {
        V f = v[0], g = v[1], k = v[2], a = v[3], b = v[4];
        a = a * cube;
        k = k + 1.0;
        a = a / k;
        b = b * cube;
        k = k + 1.0;
        b = b / k;
        a = a / k;
        f = f + a;
        k = k + 1.0;
        b = b / k;
        g = g + b;
        return std::array<V, 6>{f, g, k, a, b, m.abs(a / f)};
      });
  V series = 0.355028053887817239260 * st[0] - 0.258819403792806798405 * st[1];
  V r = m.select(x >= 2.09, ai, series);
  r = m.select(x < -2.09, negative, r);
  r = m.select(x > 103.892, m.c(0), r);
  return m.select(m.abs(x) == kInf || x != x, m.c(kNaN), r);
}

/// torch.special.entr: -x log(x), 0 at 0, -inf below 0, NaN kept.
template <class M, class V = typename M::V> V entr(const M &m, V x) {
  V r = -x * m.log(x);
  r = m.select(x == 0.0, m.c(0), r);
  return m.select(x < 0.0, m.c(-kInf), r);
}

/// torch.special.xlog1py: x log1p(y), 0 where x is 0 and y is not NaN.
template <class M, class V = typename M::V> V xlog1py(const M &m, V x, V y) {
  V r = x * m.log1p(y);
  return m.select(x == 0.0 && y == y, m.c(0), r);
}

/// erfinv as torch 1.13's calc_erfinv (Pavlis' rational approximation,
/// central for |y| <= 0.7, then two Newton steps on erf), in the compute
/// type: near |y| = 1 a float result turns on erf's last bit, so the libm
/// functions are glibc's. +-1 give +-inf, |y| > 1 NaN.
template <class M, class V = typename M::V> V erfinv(const M &m, V y) {
  V ay = m.abs(y);
  V z = y * y;
  V num = ((m.c(-0.140543331) * z + m.c(0.914624893)) * z + m.c(-1.645349621)) * z +
          m.c(0.886226899);
  V dem = (((m.c(0.012229801) * z + m.c(-0.329097515)) * z + m.c(1.442710462)) * z +
           m.c(-2.118377725)) * z + m.c(1.0);
  V central = y * num / dem;
  V t = m.sqrt(-m.libmLog((m.c(1.0) - ay) / m.c(2.0)));
  V tnum = ((m.c(1.641345311) * t + m.c(3.429567803)) * t + m.c(-1.624906493)) * t +
           m.c(-1.970840454);
  V tdem = (m.c(1.6370678) * t + m.c(3.5438892)) * t + m.c(1.0);
  V signedNum = m.select(y < 0.0, -m.abs(tnum), m.abs(tnum));
  V x = m.select(ay <= 0.7, central, signedNum / tdem);
  V k = m.c(2.0) / m.c(std::sqrt(kPi));
  for (int i = 0; i < 2; ++i)
    x = x - (m.libmErf(x) - y) / (k * m.libmExp(-x * x));
  V inf = m.select(y < 0.0, m.c(-kInf), m.c(kInf));
  x = m.select(ay == 1.0, inf, x);
  return m.select(ay > 1.0, m.c(kNaN), x);
}

} // namespace mlir::traced::special

#endif // TRACEDIR_SUPPORT_SPECIALFUNCTIONS_H
