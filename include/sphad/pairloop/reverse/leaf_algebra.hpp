// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/pairloop/dual_parts.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/scalar_traits.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

/// \file
/// \brief The reverse pass's arithmetic on an element's scalars ("leaves"): how many a
/// scalar, vector, matrix or struct holds, seeding them as dual directions, dotting them with an
/// adjoint, contracting an adjoint with a seeded result's tangents, and taking a seeded result's
/// primal part.

namespace sphad::pairloop {

/// The number of scalars in an element E (1 for a scalar, K for `Vec<T, K>`, R·C for a `Mat`,
/// `Leaves<E>::count` for a struct: they come first in its memory, its other members after).
template <class E>
SPHAD_HOST_DEVICE constexpr int leaf_count() {
  if constexpr (is_vec_v<E>) {
    return E::dim * leaf_count<typename E::value_type>();
  } else if constexpr (is_mat_v<E>) {
    return E::rows * E::cols * leaf_count<typename E::value_type>();
  } else if constexpr (has_leaves_v<E>) {
    return Leaves<E>::count;
  } else {
    return 1;
  }
}

/// The directions a view takes in a reverse pass: one per scalar of a `Variable`'s element,
/// none for anything else.
template <class View>
constexpr int seeded_leaves() {
  if constexpr (is_variable_v<View>) {
    return leaf_count<view_element_t<View>>();
  } else {
    return 0;
  }
}

/// e with scalar number c (in memory order) replaced by `Dual<S, K>` with tangent 1 in
/// direction offset + c: K independent variables, one per scalar.
template <int K, class E>
SPHAD_HOST_DEVICE SPHAD_INLINE auto seed(const E& e, int offset) {
  if constexpr (is_vec_v<E>) {
    constexpr int step = leaf_count<typename E::value_type>();
    return sphad::detail::generate_vec<E::dim>(
        [&](int k) { return seed<K>(e[k], offset + k * step); });
  } else if constexpr (is_mat_v<E>) {
    constexpr int step = leaf_count<typename E::value_type>();
    return sphad::detail::generate_mat<E::rows, E::cols>(
        [&](int r, int c) { return seed<K>(e(r, c), offset + (r * E::cols + c) * step); });
  } else if constexpr (has_leaves_v<E>) {
    using L = Leaves<E>;
    typename L::template rebind<Dual<scalar_of_t<E>, K>> out{};
    int next = offset;
    L::zip(
        [&](auto& to, const auto& from) {
          to = seed<K>(from, next);
          next += leaf_count<std::remove_cv_t<std::remove_reference_t<decltype(from)>>>();
        },
        out, e);
    L::copy_rest(out, e);
    return out;
  } else {
    Dual<E, K> out(e);
    out.tangent[offset] = E(1);
    return out;
  }
}

/// `unit` (a seeded element, `seed`) with its values replaced by e's scalars, its tangents kept.
template <class U, class E>
SPHAD_HOST_DEVICE SPHAD_INLINE U with_values(U unit, const E& e) {
  if constexpr (is_vec_v<E>) {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < E::dim; ++k) {
      unit[k] = with_values(unit[k], e[k]);
    }
  } else if constexpr (is_mat_v<E>) {
    SPHAD_PRAGMA_UNROLL
    for (int r = 0; r < E::rows; ++r) {
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < E::cols; ++c) {
        unit(r, c) = with_values(unit(r, c), e(r, c));
      }
    }
  } else if constexpr (has_leaves_v<E>) {
    Leaves<E>::zip([&](auto& to, const auto& from) { to = with_values(to, from); }, unit, e);
    Leaves<E>::copy_rest(unit, e);
  } else {
    unit.value = e;
  }
  return unit;
}

/// An array read with every scalar seeded (`seed`): element i is a function of K directions,
/// of which this array's scalars own [offset, offset + leaf_count<E>()). The view keeps the
/// seeded tangents (`unit`) and copies them: a tangent set at a runtime index instead is a
/// store read back whole, which stalls store forwarding on a CPU and puts the dual in local
/// memory on a GPU.
template <class E, int K>
struct SeedView {
  using Seeded = decltype(seed<K>(std::declval<const E&>(), 0));
  Seeded unit{};
  SeedView() = default;
  SeedView(const E* array, std::int64_t n, int offset)
      : unit(seed<K>(E{}, offset)), data_(array), size_(n) {}
  SPHAD_HOST_DEVICE SPHAD_INLINE const E* data() const { return data_; }
  SPHAD_HOST_DEVICE SPHAD_INLINE std::int64_t size() const { return size_; }
  SPHAD_HOST_DEVICE SPHAD_INLINE Seeded operator[](std::int64_t i) const {
    return with_values(unit, data_[i]);
  }

private:
  const E* data_ = nullptr;
  std::int64_t size_ = 0;
};

/// Σ over the scalars of a and b (same shape; a struct's other members, a count, are not
/// scalars).
template <class A, class B>
SPHAD_HOST_DEVICE SPHAD_INLINE auto leaf_dot(const A& a, const B& b) {
  if constexpr (is_vec_v<A>) {
    auto sum = leaf_dot(a[0], b[0]);
    SPHAD_PRAGMA_UNROLL
    for (int k = 1; k < A::dim; ++k) {
      sum += leaf_dot(a[k], b[k]);
    }
    return sum;
  } else if constexpr (is_mat_v<A>) {
    auto sum = leaf_dot(a(0, 0), b(0, 0));
    SPHAD_PRAGMA_UNROLL
    for (int r = 0; r < A::rows; ++r) {
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < A::cols; ++c) {
        if (r + c > 0) {
          sum += leaf_dot(a(r, c), b(r, c));
        }
      }
    }
    return sum;
  } else if constexpr (is_scalar_v<A>) {
    return a * b;
  } else {
    decltype(std::declval<scalar_of_t<A>>() * std::declval<scalar_of_t<B>>()) sum(0);
    Leaves<A>::zip([&](const auto& x, const auto& y) { sum += leaf_dot(x, y); }, a, b);
    return sum;
  }
}

/// g[k] += ⟨ȳ, tangent k of y⟩ for the K directions of a seeded evaluation (nothing when y does
/// not depend on them).
template <int K, class S, class OutPrimal, class Y>
SPHAD_HOST_DEVICE SPHAD_INLINE void add_directions(S (&g)[K], const OutPrimal& ybar, const Y& y) {
  if constexpr (std::is_same_v<scalar_of_t<Y>, Dual<S, K>>) {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < K; ++k) {
      g[k] += leaf_dot(ybar, tangent_part(y, k));
    }
  }
}

/// Σ_l flat[l] · (scalar l of x, in memory order): a flat array of x's shape dotted with x.
template <class S, class X>
SPHAD_HOST_DEVICE SPHAD_INLINE S dot_flat(const S* flat, const X& x) {
  if constexpr (is_vec_v<X> || is_mat_v<X>) {
    constexpr int step = leaf_count<typename X::value_type>();
    S sum(0);
    if constexpr (is_vec_v<X>) {
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < X::dim; ++k) {
        sum += dot_flat(flat + k * step, x[k]);
      }
    } else {
      SPHAD_PRAGMA_UNROLL
      for (int r = 0; r < X::rows; ++r) {
        SPHAD_PRAGMA_UNROLL
        for (int c = 0; c < X::cols; ++c) {
          sum += dot_flat(flat + (r * X::cols + c) * step, x(r, c));
        }
      }
    }
    return sum;
  } else if constexpr (has_leaves_v<X>) {
    S sum(0);
    int next = 0;
    Leaves<X>::zip(
        [&](const auto& leaf) {
          sum += dot_flat(flat + next, leaf);
          next += leaf_count<std::remove_cv_t<std::remove_reference_t<decltype(leaf)>>>();
        },
        x);
    return sum;
  } else {
    return flat[0] * x;
  }
}

/// g[k] = ⟨ȳ, tangent k of y⟩ for the K directions of a seeded evaluation; 0 when y does not
/// depend on them.
template <int K, class S, class OutPrimal, class Y>
SPHAD_HOST_DEVICE SPHAD_INLINE void contract_directions(S* g, const OutPrimal& ybar, const Y& y) {
  if constexpr (std::is_same_v<scalar_of_t<Y>, Dual<S, K>>) {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < K; ++k) {
      g[k] = leaf_dot(ybar, tangent_part(y, k));
    }
  } else {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < K; ++k) {
      g[k] = S(0);
    }
  }
}

/// X's primal element when its scalar is the dual D (the kernel part of a seeded pair), X
/// itself otherwise.
template <class X, class D, class = void>
struct primal_of {
  using type = X;
};
template <class X, class D>
struct primal_of<X, D, std::enable_if_t<std::is_same_v<scalar_of_t<X>, D>>> {
  using type = std::remove_cv_t<decltype(value_part(std::declval<X>()))>;
};
template <class X, class D>
using primal_of_t = typename primal_of<std::remove_cv_t<X>, D>::type;

/// x's primal element when its scalar is the dual D (a seeded evaluation), x itself otherwise.
template <class D, class X>
SPHAD_HOST_DEVICE SPHAD_INLINE primal_of_t<X, D> primal_part(const X& x) {
  if constexpr (std::is_same_v<scalar_of_t<X>, D>) {
    return value_part(x);
  } else {
    return x;
  }
}

/// out[k] = ⟨flat, tangent k of x⟩ (flat: an adjoint of x's shape) for the K directions of
/// `Dual<S, K>`; 0 when x is not seeded.
template <int K, class S, class X>
SPHAD_HOST_DEVICE SPHAD_INLINE void tangent_dots(S* out, const S* flat, const X& x) {
  SPHAD_PRAGMA_UNROLL
  for (int k = 0; k < K; ++k) {
    if constexpr (std::is_same_v<scalar_of_t<X>, Dual<S, K>>) {
      out[k] = dot_flat(flat, tangent_part(x, k));
    } else {
      out[k] = S(0);
    }
  }
}

/// x's scalars (in memory order) at g[at, at + leaf_count), when `Leaves` > 0.
template <int Leaves, class S, class X>
SPHAD_HOST_DEVICE SPHAD_INLINE void put_leaves(S* g, int at, const X& x) {
  if constexpr (Leaves > 0) {
    if constexpr (is_vec_v<X>) {
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < X::dim; ++k) {
        g[at + k] = x[k];
      }
    } else if constexpr (is_mat_v<X>) {
      SPHAD_PRAGMA_UNROLL
      for (int r = 0; r < X::rows; ++r) {
        SPHAD_PRAGMA_UNROLL
        for (int c = 0; c < X::cols; ++c) {
          g[at + r * X::cols + c] = x(r, c);
        }
      }
    } else {
      g[at] = x;
    }
  }
}

} // namespace sphad::pairloop
