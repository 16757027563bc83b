// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/scalar_traits.hpp>

#include <type_traits>

/// \file
/// \brief `Dual<T, N>`: forward-mode dual numbers (a value and N tangents), nestable, usable
/// on host and device. This header also brings the math functions (<sphad/ad/dual_math.hpp>).

namespace sphad {

namespace detail {
/// `S` mixes with `Dual<T, N>` as a scalar: it converts to `T` and is not that dual type.
template <class S, class T, int N>
inline constexpr bool is_scalar_of_v =
    !std::is_same_v<std::remove_cv_t<std::remove_reference_t<S>>, Dual<T, N>> &&
    std::is_convertible_v<const S&, T>;
} // namespace detail

/// A dual number x = value + Σ_k tangent[k]·ε_k with ε_j ε_k = 0: arithmetic on it carries N
/// directional derivatives along with the value (forward-mode AD).
/// Nestable: `Dual<Dual<double, 1>, 3>` carries second derivatives.
/// @tparam T  the value type: float, double, or a `Dual` (nesting); on the host also a SIMD
///            pack of them (`simd::Pack`: W lanes' duals at once, each lane the bits of the
///            scalar dual's arithmetic).
/// @tparam N  number of tangent directions, at least 1.
template <class T, int N>
struct Dual {
  static_assert(std::is_floating_point_v<primal_t<T>>,
                "sphad::Dual: T must be float, double, a Dual or a SIMD pack of float or double; "
                "integer duals have no derivative");
  static_assert(N >= 1, "sphad::Dual: N (the number of tangent directions) must be at least 1");
  using value_type = T;
  static constexpr int tangent_count = N;

  T value;
  T tangent[N];

  /// Zero value, zero tangents.
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual() : value(0), tangent{} {}
  /// A constant: the value `v` with zero tangents. Implicit, so `Dual x = 2.0` works.
  template <class S, std::enable_if_t<detail::is_scalar_of_v<S, T, N>, int> = 0>
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual(const S& v) : value(v), tangent{} {}
  /// The value `v` with the given tangents: `Dual<double, 2>(1.0, {0.5, 0.0})`.
  SPHAD_HOST_DEVICE constexpr Dual(const T& v, const T (&t)[N]) : value(v), tangent{} {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < N; ++k) {
      tangent[k] = t[k];
    }
  }

  /// An independent variable: value `v`, tangent 1 in direction `direction`, 0 elsewhere.
  SPHAD_HOST_DEVICE static constexpr Dual variable(const T& v, int direction) {
    Dual x(v);
    x.tangent[direction] = T(1);
    return x;
  }

  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual& operator+=(const Dual& b) {
    value += b.value;
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < N; ++k) {
      tangent[k] += b.tangent[k];
    }
    return *this;
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual& operator-=(const Dual& b) {
    value -= b.value;
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < N; ++k) {
      tangent[k] -= b.tangent[k];
    }
    return *this;
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual& operator*=(const Dual& b) {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < N; ++k) {
      tangent[k] = tangent[k] * b.value + value * b.tangent[k];
    }
    value *= b.value;
    return *this;
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual& operator/=(const Dual& b) {
    // tangent (a' − q b') / b, as products with 1/b: one division for all N tangents (a
    // division costs many multiplications); safe when &b == this.
    const T quotient = value / b.value;
    const T inverse = T(1) / b.value;
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < N; ++k) {
      tangent[k] = (tangent[k] - quotient * b.tangent[k]) * inverse;
    }
    value = quotient;
    return *this;
  }
  // Scalars only touch what they must: + and − leave the tangents, * and / scale them.
  template <class S, std::enable_if_t<detail::is_scalar_of_v<S, T, N>, int> = 0>
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual& operator+=(const S& s) {
    value += T(s);
    return *this;
  }
  template <class S, std::enable_if_t<detail::is_scalar_of_v<S, T, N>, int> = 0>
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual& operator-=(const S& s) {
    value -= T(s);
    return *this;
  }
  template <class S, std::enable_if_t<detail::is_scalar_of_v<S, T, N>, int> = 0>
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual& operator*=(const S& s) {
    const T factor(s);
    value *= factor;
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < N; ++k) {
      tangent[k] *= factor;
    }
    return *this;
  }
  template <class S, std::enable_if_t<detail::is_scalar_of_v<S, T, N>, int> = 0>
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual& operator/=(const S& s) {
    const T divisor(s);
    value /= divisor;
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < N; ++k) {
      tangent[k] /= divisor; // a division each: the tangent of f / s is f' / s, bitwise
    }
    return *this;
  }
};

/// The primal value under all dual layers: `value_of(Dual<Dual<double,1>,3>)` is a `double`
/// (a SIMD pack for duals over packs: every lane's).
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr decltype(auto) value_of(const Dual<T, N>& x) {
  return value_of(x.value);
}

/// Tangent `K` of the outermost layer (a `T`).
template <int K, class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr const T& tangent(const Dual<T, N>& x) {
  static_assert(K >= 0 && K < N, "sphad::tangent: direction K is out of range [0, N)");
  return x.tangent[K];
}

// ---------------------------------------------------------------------------------------------
// Arithmetic: Dual ∘ Dual, Dual ∘ scalar, scalar ∘ Dual, where a scalar is anything that
// converts to T (plain numbers, and the inner layers of a nested dual).

template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual<T, N> operator+(const Dual<T, N>& a) {
  return a;
}
template <class T, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual<T, N> operator-(const Dual<T, N>& a) {
  Dual<T, N> r;
  r.value = -a.value;
  SPHAD_PRAGMA_UNROLL
  for (int k = 0; k < N; ++k) {
    r.tangent[k] = -a.tangent[k];
  }
  return r;
}

#define SPHAD_DETAIL_DUAL_BINARY(op)                                                               \
  template <class T, int N>                                                                        \
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual<T, N> operator op(Dual<T, N> a,                    \
                                                                  const Dual<T, N>& b) {           \
    return a op## = b;                                                                             \
  }                                                                                                \
  template <class T, int N, class S, std::enable_if_t<detail::is_scalar_of_v<S, T, N>, int> = 0>   \
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual<T, N> operator op(Dual<T, N> a, const S& s) {      \
    return a op## = s;                                                                             \
  }
SPHAD_DETAIL_DUAL_BINARY(+)
SPHAD_DETAIL_DUAL_BINARY(-)
SPHAD_DETAIL_DUAL_BINARY(*)
SPHAD_DETAIL_DUAL_BINARY(/)
#undef SPHAD_DETAIL_DUAL_BINARY

template <class T, int N, class S, std::enable_if_t<detail::is_scalar_of_v<S, T, N>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual<T, N> operator+(const S& s, Dual<T, N> a) {
  return a += s;
}
template <class T, int N, class S, std::enable_if_t<detail::is_scalar_of_v<S, T, N>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual<T, N> operator-(const S& s, const Dual<T, N>& a) {
  return -a + s;
}
template <class T, int N, class S, std::enable_if_t<detail::is_scalar_of_v<S, T, N>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual<T, N> operator*(const S& s, Dual<T, N> a) {
  return a *= s;
}
template <class T, int N, class S, std::enable_if_t<detail::is_scalar_of_v<S, T, N>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Dual<T, N> operator/(const S& s, const Dual<T, N>& a) {
  Dual<T, N> r;
  r.value = T(s) / a.value;            // (s / a)' = −(s / a) a' / a
  const T factor = -r.value / a.value; // one division for all N tangents
  SPHAD_PRAGMA_UNROLL
  for (int k = 0; k < N; ++k) {
    r.tangent[k] = factor * a.tangent[k];
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Comparisons look at primal values only; one side may be a plain scalar.

namespace detail {
template <class A, class B>
inline constexpr bool dual_comparison_v =
    std::conjunction_v<is_scalar<A>, is_scalar<B>, std::disjunction<is_dual<A>, is_dual<B>>>;
} // namespace detail

#define SPHAD_DETAIL_DUAL_COMPARISON(op)                                                           \
  template <class A, class B, std::enable_if_t<detail::dual_comparison_v<A, B>, int> = 0>          \
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr bool operator op(const A& a, const B& b) {              \
    return value_of(a) op value_of(b);                                                             \
  }
SPHAD_DETAIL_DUAL_COMPARISON(==)
SPHAD_DETAIL_DUAL_COMPARISON(!=)
SPHAD_DETAIL_DUAL_COMPARISON(<)
SPHAD_DETAIL_DUAL_COMPARISON(<=)
SPHAD_DETAIL_DUAL_COMPARISON(>)
SPHAD_DETAIL_DUAL_COMPARISON(>=)
#undef SPHAD_DETAIL_DUAL_COMPARISON

} // namespace sphad

#include <sphad/ad/dual_math.hpp>
