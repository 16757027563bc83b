// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/scalar_traits.hpp>

#include <cfloat>

/// \file
/// \brief Scalar helpers that work for plain and dual scalars alike: integer powers, min/max
/// with a fixed tie rule, machine epsilon.

namespace sphad {

/// x^n for an integer n by repeated squaring (n = 0 gives 1, negative n gives 1/x^|n|); exact
/// for negative x. Works for dual scalars (their product rule gives the tangent).
template <class T>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr T ipow(const T& x, int n) {
  // Not recursive, so that calls with a constant n inline and unroll.
  const bool negative = n < 0;
  unsigned m = negative ? 0u - unsigned(n) : unsigned(n);
  T result(1);
  T base = x;
  while (m > 0) {
    if (m & 1u) {
      result *= base;
    }
    m >>= 1;
    if (m > 0) {
      base *= base;
    }
  }
  return negative ? T(1) / result : result;
}

namespace detail {
template <unsigned M, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr T ipow_steps(T result, T base) {
  if constexpr (M == 0) {
    return result;
  } else {
    if constexpr ((M & 1u) != 0) {
      result *= base;
    }
    if constexpr ((M >> 1) > 0) {
      base *= base;
    }
    return ipow_steps<(M >> 1)>(result, base);
  }
}
} // namespace detail

/// x^N for a compile-time N: the same operations as `ipow(x, N)` (so the same bits), unrolled.
template <int N, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr T ipow(const T& x) {
  if constexpr (N < 0) {
    return T(1) / detail::ipow_steps<0u - unsigned(N)>(T(1), x);
  } else {
    return detail::ipow_steps<unsigned(N)>(T(1), x);
  }
}

/// The larger of `a` and `b` in the promoted type; on a tie, `a` (so max(h_i, h_j)
/// takes the tangent of h_i on ties). Compares primal values only.
template <class A, class B>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr promote_t<A, B> max(const A& a, const B& b) {
  using R = promote_t<A, B>;
  return value_of(a) >= value_of(b) ? R(a) : R(b);
}

/// The smaller of `a` and `b` in the promoted type; on a tie, `a`.
template <class A, class B>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr promote_t<A, B> min(const A& a, const B& b) {
  using R = promote_t<A, B>;
  return value_of(a) <= value_of(b) ? R(a) : R(b);
}

/// π in the primal type of T.
template <class T>
inline constexpr primal_t<T> pi_v = primal_t<T>(3.141592653589793238462643383279502884L);

/// Machine epsilon of the primal type (2^-23 for float, 2^-52 for double), usable in device code.
template <class T>
inline constexpr primal_t<T> machine_epsilon_v = std::is_same_v<primal_t<T>, float>
                                                     ? primal_t<T>(FLT_EPSILON)
                                                     : primal_t<T>(DBL_EPSILON);

} // namespace sphad
