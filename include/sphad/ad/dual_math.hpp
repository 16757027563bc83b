// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/math/scalar.hpp>

#include <cmath>
#include <type_traits>

/// \file
/// \brief Math functions of dual numbers. Call them unqualified after `using std::sqrt;` (etc.)
/// so that one generic expression serves plain and dual scalars. Each applies the chain rule
/// f(x)' = f'(x)·x' with f and f' evaluated in `T`, so nested duals differentiate again.

namespace sphad {

namespace detail {
/// The dual with value `f` and tangents `slope · x.tangent[k]`.
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual<T, N>
chain(const Dual<T, N>& x, const T& f, const T& slope) {
  Dual<T, N> r(f);
  SPHAD_PRAGMA_UNROLL
  for (int k = 0; k < N; ++k) {
    r.tangent[k] = slope * x.tangent[k];
  }
  return r;
}
} // namespace detail

/// √x; the tangent is x'/(2√x), not finite at x = 0 (use `safe_sqrt` where x may vanish).
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE Dual<T, N> sqrt(const Dual<T, N>& x) {
  using std::sqrt;
  const T f = sqrt(x.value);
  return detail::chain(x, f, T(0.5) / f);
}

/// ∛x (real cube root, negative x allowed); tangent x'/(3 ∛x²).
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE Dual<T, N> cbrt(const Dual<T, N>& x) {
  using std::cbrt;
  const T f = cbrt(x.value);
  return detail::chain(x, f, T(1) / (T(3) * f * f));
}

/// eˣ.
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE Dual<T, N> exp(const Dual<T, N>& x) {
  using std::exp;
  const T f = exp(x.value);
  return detail::chain(x, f, f);
}

/// sin x.
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE Dual<T, N> sin(const Dual<T, N>& x) {
  using std::cos;
  using std::sin;
  return detail::chain(x, T(sin(x.value)), T(cos(x.value)));
}

/// cos x.
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE Dual<T, N> cos(const Dual<T, N>& x) {
  using std::cos;
  using std::sin;
  return detail::chain(x, T(cos(x.value)), T(-sin(x.value)));
}

/// ln x.
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE Dual<T, N> log(const Dual<T, N>& x) {
  using std::log;
  return detail::chain(x, T(log(x.value)), T(1) / x.value);
}

/// xⁿ for an integer n (exact for negative x; x⁰ = 1 with zero tangent); a real p gives
/// x^p = pow(x, p) with tangent p x^(p−1); x^0 = 1 with a zero tangent, at x = 0 too.
template <class T, int N, class P, std::enable_if_t<std::is_arithmetic_v<P>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE Dual<T, N> pow(const Dual<T, N>& x, const P& p) {
  if constexpr (std::is_integral_v<P>) {
    const int n = static_cast<int>(p);
    if (n == 0) {
      return Dual<T, N>(T(1));
    }
    const T below = ipow(x.value, n - 1);
    return detail::chain(x, T(below * x.value), T(T(n) * below));
  } else {
    using std::pow;
    if (primal_t<T>(p) == primal_t<T>(0)) {
      return Dual<T, N>(T(1)); // x^0 = 1 everywhere, its tangent 0 (also at x = 0: not 0·0⁻¹)
    }
    const T f = pow(x.value, primal_t<T>(p));
    return detail::chain(x, f, T(primal_t<T>(p) * pow(x.value, primal_t<T>(p) - primal_t<T>(1))));
  }
}

/// a^x for a plain positive base a: tangent a^x ln(a) x'.
template <class T, int N, class B, std::enable_if_t<std::is_arithmetic_v<B>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE Dual<T, N> pow(const B& a, const Dual<T, N>& x) {
  using std::log;
  using std::pow;
  const T f = pow(primal_t<T>(a), x.value);
  return detail::chain(x, f, T(f * log(primal_t<T>(a))));
}

/// |x|; at x = +0 the tangent is +x' (the right derivative), at −0 it is −x'. Multiplies by
/// the sign bit rather than branching between x and −x, which mispredicts on mixed-sign data.
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE Dual<T, N> abs(const Dual<T, N>& x) {
  using S = primal_t<T>;
  using std::copysign;
  return x * copysign(S(1), value_of(x));
}

/// ⌊x⌋ for non-differentiable use (cell indices, period counts): zero tangent.
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE Dual<T, N> floor(const Dual<T, N>& x) {
  using std::floor;
  return Dual<T, N>(T(floor(x.value)));
}

/// a·b + c with a fused multiply–add on the value. Any argument may be a plain scalar.
template <class A,
          class B,
          class C,
          std::enable_if_t<is_dual_v<A> || is_dual_v<B> || is_dual_v<C>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE auto fma(const A& a, const B& b, const C& c) {
  using std::fma;
  using R = promote_t<promote_t<A, B>, C>;
  const R x(a), y(b), z(c);
  R r;
  r.value = fma(x.value, y.value, z.value);
  SPHAD_PRAGMA_UNROLL
  for (int k = 0; k < R::tangent_count; ++k) {
    r.tangent[k] = x.value * y.tangent[k] + y.value * x.tangent[k] + z.tangent[k];
  }
  return r;
}

/// True when the value and every tangent (at every nesting level) are finite.
template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE bool all_finite(const T& x) {
  using std::isfinite;
  return isfinite(x);
}
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE bool all_finite(const Dual<T, N>& x) {
  bool finite = all_finite(x.value);
  for (int k = 0; k < N; ++k) {
    finite = finite && all_finite(x.tangent[k]);
  }
  return finite;
}

} // namespace sphad
