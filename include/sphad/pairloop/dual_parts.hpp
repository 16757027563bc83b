// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/ad/dual_view.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/pair/leaves.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/scalar_traits.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

/// \file
/// \brief A dual-number result taken apart: its primal part (`value_part`), its tangent k
/// (`tangent_part`), both stored per query (`StoreSplit`) — what forward mode writes out and
/// the reverse pass contracts.

namespace sphad::pairloop {

/// The primal part of an output (the outer dual layer's values; a struct keeps its other
/// members, e.g. a Covariance count).
template <class X>
SPHAD_HOST_DEVICE SPHAD_INLINE auto value_part(const X& x) {
  if constexpr (is_vec_v<X>) {
    return sphad::detail::generate_vec<X::dim>([&](int k) { return value_part(x[k]); });
  } else if constexpr (is_mat_v<X>) {
    return sphad::detail::generate_mat<X::rows, X::cols>(
        [&](int r, int c) { return value_part(x(r, c)); });
  } else if constexpr (is_dual_v<X>) {
    return x.value;
  } else if constexpr (std::is_floating_point_v<X>) {
    return x; // a call without tangents (rejected by jvp_into's assertion, after overloading)
  } else {
    using L = Leaves<X>;
    typename L::template rebind<decltype(value_part(std::declval<scalar_of_t<X>>()))> out{};
    L::zip([&](auto& to, const auto& from) { to = value_part(from); }, out, x);
    L::copy_rest(out, x);
    return out;
  }
}

/// Tangent k of an output, shaped like its primal part (a struct's other members are zero: a
/// Covariance tangent's count is 0).
template <class X>
SPHAD_HOST_DEVICE SPHAD_INLINE auto tangent_part(const X& x, int k) {
  if constexpr (is_vec_v<X>) {
    return sphad::detail::generate_vec<X::dim>([&](int c) { return tangent_part(x[c], k); });
  } else if constexpr (is_mat_v<X>) {
    return sphad::detail::generate_mat<X::rows, X::cols>(
        [&](int r, int c) { return tangent_part(x(r, c), k); });
  } else if constexpr (is_dual_v<X>) {
    return x.tangent[k];
  } else {
    using L = Leaves<X>;
    typename L::template rebind<decltype(tangent_part(std::declval<scalar_of_t<X>>(), k))> out{};
    L::zip([&](auto& to, const auto& from) { to = tangent_part(from, k); }, out, x);
    return out;
  }
}

/// Stores query i's primal at primal[i] and its tangent k at tangents[k · n + i].
template <class Out, int N>
struct StoreSplit {
  using Primal = decltype(value_part(std::declval<Out>()));
  Primal* primal;
  Primal* tangents;
  std::int64_t n;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i, const Out& value) const {
    primal[i] = value_part(value);
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < N; ++k) {
      tangents[k * n + i] = tangent_part(value, k);
    }
  }
};

} // namespace sphad::pairloop
