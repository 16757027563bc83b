// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <type_traits>

/// \file
/// \brief Traits over the scalar types sphad computes with: plain arithmetic types and
/// (possibly nested) `Dual<T, N>`. They let generic code ask "is this a dual number", "what is
/// its primal value", "which type results from mixing these two".

namespace sphad {

template <class T, int N>
struct Dual;

namespace simd {
template <class T, int W>
struct Pack;
} // namespace simd

/// True for `Dual<T, N>` (any cv/ref qualification), false for everything else.
template <class T>
struct is_dual : std::false_type {};
template <class T, int N>
struct is_dual<Dual<T, N>> : std::true_type {};
template <class T>
inline constexpr bool is_dual_v = is_dual<std::remove_cv_t<std::remove_reference_t<T>>>::value;

/// The arithmetic type under all dual layers: `primal_t<Dual<Dual<double,1>,3>>` is `double`.
template <class T>
struct primal {
  using type = T;
};
template <class T, int N>
struct primal<Dual<T, N>> {
  using type = typename primal<T>::type;
};
/// A SIMD pack's (<sphad/simd/pack.hpp>) is its lanes' scalar: generic arithmetic's constants
/// (`primal_t<T>(c)`) broadcast, and dual numbers over packs carry W lanes' tangents.
template <class T, int W>
struct primal<simd::Pack<T, W>> {
  using type = T;
};
template <class T>
using primal_t = typename primal<std::remove_cv_t<std::remove_reference_t<T>>>::type;

/// Number of tangent directions of the outermost layer: N for `Dual<T, N>`, 0 for plain types.
template <class T>
inline constexpr int tangent_count_v = 0;
template <class T, int N>
inline constexpr int tangent_count_v<Dual<T, N>> = N;

/// A scalar sphad computes with: an arithmetic type or a dual number over one.
template <class T>
struct is_scalar : std::bool_constant<std::is_arithmetic_v<std::remove_cv_t<T>> ||
                                      is_dual<std::remove_cv_t<T>>::value> {};
template <class T>
inline constexpr bool is_scalar_v = is_scalar<std::remove_reference_t<T>>::value;

namespace detail {
template <class A, class B, class = void>
struct promote_impl {};
// Two plain arithmetic types: the usual arithmetic conversions.
template <class A, class B>
struct promote_impl<A, B, std::enable_if_t<!is_dual_v<A> && !is_dual_v<B>>> {
  using type = std::common_type_t<A, B>;
};
// A dual type absorbs anything that converts to it (its own layers and plain scalars).
template <class A, class B>
struct promote_impl<A, B, std::enable_if_t<is_dual_v<A> && std::is_convertible_v<B, A>>> {
  using type = A;
};
template <class A, class B>
struct promote_impl<
    A,
    B,
    std::enable_if_t<is_dual_v<B> && !std::is_same_v<A, B> && std::is_convertible_v<A, B>>> {
  using type = B;
};
} // namespace detail

/// The scalar type that results from combining an `A` and a `B`:
/// `promote_t<double, Dual<double,2>>` is `Dual<double,2>`. Duals with different tangent counts
/// do not mix (no `type`, a compile error at the use).
template <class A, class B>
struct promote : detail::promote_impl<std::remove_cv_t<std::remove_reference_t<A>>,
                                      std::remove_cv_t<std::remove_reference_t<B>>> {};
template <class A, class B>
using promote_t = typename promote<A, B>::type;

/// The primal value of a plain scalar: the scalar itself.
template <class T, std::enable_if_t<!is_dual_v<T>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr const T& value_of(const T& x) {
  return x;
}

/// Tangent `k` of a plain scalar: always zero (plain scalars carry no tangent).
template <int K, class T, std::enable_if_t<!is_dual_v<T>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr T tangent(const T&) {
  return T(0);
}

} // namespace sphad
