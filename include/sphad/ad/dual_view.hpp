// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/errors.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/span.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

/// \file
/// \brief `DualView<E, N>`: a primal array paired with N tangent arrays, read as dual numbers
/// (no dual array is materialized), and the element-type traits that let every input view say
/// at compile time whether it carries tangents.

namespace sphad {

/// The scalar under a field element: `Vec<S, K>`, `Mat<S, R, C>` and S itself give S.
template <class E, class = void>
struct scalar_of {
  using type = E;
};
template <class E>
struct scalar_of<E, std::enable_if_t<is_vec_v<E> || is_mat_v<E>>> {
  using type = typename scalar_of<typename E::value_type>::type;
};
template <class E>
using scalar_of_t = typename scalar_of<std::remove_cv_t<E>>::type;

/// E with its scalar replaced by S: `Vec<double, 2>` with `Dual<double, 1>` gives
/// `Vec<Dual<double, 1>, 2>`.
template <class E, class S, class = void>
struct rebind_scalar {
  using type = S;
};
template <class V, class S>
struct rebind_scalar<V, S, std::enable_if_t<is_vec_v<V>>> {
  using type = Vec<typename rebind_scalar<typename V::value_type, S>::type, V::dim>;
};
template <class M, class S>
struct rebind_scalar<M, S, std::enable_if_t<is_mat_v<M>>> {
  using type = Mat<typename rebind_scalar<typename M::value_type, S>::type, M::rows, M::cols>;
};
template <class E, class S>
using rebind_scalar_t = typename rebind_scalar<E, S>::type;

/// What reading a view (a `Span`, a `DualView`, ...) at an index gives, without references.
template <class View>
using view_element_t = std::remove_cv_t<
    std::remove_reference_t<decltype(std::declval<const View&>()[std::int64_t(0)])>>;

/// The scalar of a view's elements: plain for a primal array, `Dual` for one with tangents.
template <class View>
using view_scalar_t = scalar_of_t<view_element_t<View>>;

/// The common scalar of several scalars (`promote_t` over all of them); `void` entries stand
/// for "no input here" and are skipped.
namespace detail {
template <class A, class B>
struct promote_skipping_void {
  using type = promote_t<A, B>;
};
template <class A>
struct promote_skipping_void<A, void> {
  using type = A;
};
template <class B>
struct promote_skipping_void<void, B> {
  using type = B;
};
template <>
struct promote_skipping_void<void, void> {
  using type = void;
};
} // namespace detail

template <class... Ts>
struct promote_all;
template <class T>
struct promote_all<T> {
  using type = T;
};
template <class T, class... Rest>
struct promote_all<T, Rest...> {
  using type = typename detail::promote_skipping_void<T, typename promote_all<Rest...>::type>::type;
};
template <class... Ts>
using promote_all_t = typename promote_all<Ts...>::type;

namespace detail {
/// y converted scalar by scalar to X, an E of the same shape (plain to dual: zero tangents).
template <class X, class Y>
SPHAD_HOST_DEVICE SPHAD_INLINE X convert_scalars(const Y& y) {
  if constexpr (std::is_same_v<X, Y>) {
    return y;
  } else if constexpr (is_vec_v<X>) {
    X out{};
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < X::dim; ++k) {
      out[k] = convert_scalars<typename X::value_type>(y[k]);
    }
    return out;
  } else if constexpr (is_mat_v<X>) {
    X out{};
    SPHAD_PRAGMA_UNROLL
    for (int r = 0; r < X::rows; ++r) {
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < X::cols; ++c) {
        out(r, c) = convert_scalars<typename X::value_type>(y(r, c));
      }
    }
    return out;
  } else {
    return X(y);
  }
}

/// The dual element whose value is `primal` and whose tangent k is `tangents[k · stride]`.
template <int N, class E>
SPHAD_HOST_DEVICE SPHAD_INLINE auto
attach_tangents(const E& primal, const E* tangents, std::int64_t stride) {
  if constexpr (is_vec_v<E>) {
    return sphad::detail::generate_vec<E::dim>(
        [&](int k) { return attach_tangents<N>(primal[k], &(*tangents)[k], stride * E::dim); });
  } else if constexpr (is_mat_v<E>) {
    return sphad::detail::generate_mat<E::rows, E::cols>([&](int r, int c) {
      return attach_tangents<N>(primal(r, c), &(*tangents)(r, c), stride * E::rows * E::cols);
    });
  } else {
    Dual<E, N> out(primal);
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < N; ++k) {
      out.tangent[k] = tangents[k * stride];
    }
    return out;
  }
}
} // namespace detail

/// N tangent directions of an array of E (a scalar, `Vec` or `Mat`) stored beside its primal:
/// element i reads as the E of `Dual<scalar, N>` whose value is `data[i]` and whose tangent k is
/// `tangents[k · size + i]` (direction-major: N arrays of `size` elements, back to back). A
/// view like `Span`: no copy, nothing written; in the memory of the execution space it is used
/// with. Build one with `with_tangents`.
template <class E, int N>
struct DualView {
  static_assert(N >= 1, "sphad::DualView: N (the number of tangent directions) must be >= 1");
  static_assert(std::is_floating_point_v<primal_t<scalar_of_t<E>>>,
                "sphad::DualView: only floating-point arrays carry tangents (kinds and neighbour "
                "indices are never differentiable)");
  using element_type = rebind_scalar_t<E, Dual<scalar_of_t<E>, N>>;

  DualView() = default;
  /// `primal` [n] paired with `tangents` [N · n] (unchecked; `with_tangents` checks).
  SPHAD_HOST_DEVICE DualView(const E* primal, std::int64_t n, const E* tangent_array)
      : data_(primal), size_(n), tangents_(tangent_array) {}

  /// The primal array's first element.
  SPHAD_HOST_DEVICE SPHAD_INLINE const E* data() const { return data_; }
  /// The number of elements.
  SPHAD_HOST_DEVICE SPHAD_INLINE std::int64_t size() const { return size_; }
  /// The tangents [N · size()], direction k at tangents() + k · size().
  SPHAD_HOST_DEVICE SPHAD_INLINE const E* tangents() const { return tangents_; }
  SPHAD_HOST_DEVICE SPHAD_INLINE element_type operator[](std::int64_t i) const {
    return detail::attach_tangents<N>(data_[i], tangents_ + i, size_);
  }
  /// The primal array alone.
  SPHAD_HOST_DEVICE SPHAD_INLINE Span<const E> primal() const { return {data_, size_}; }

private:
  const E* data_ = nullptr;
  std::int64_t size_ = 0;
  const E* tangents_ = nullptr;
};

/// The tangent directions of a view's elements kept in arrays beside them: N for a
/// `DualView<E, N>`, 0 for any other view.
template <class View>
inline constexpr int dual_view_directions_v = 0;
template <class E, int N>
inline constexpr int dual_view_directions_v<DualView<E, N>> = N;

/// Pairs `primal` [n] with `tangents` [N · n] (direction-major) as a `DualView<E, N>`. Throws
/// `InvalidArgument` when the tangents do not hold N · n elements.
template <int N = 1, class E>
DualView<E, N> with_tangents(Span<const E> primal, Span<const E> tangents) {
  SPHAD_REQUIRE(tangents.size() == N * primal.size(), "with_tangents", "tangents",
                sphad::detail::concat("has ", tangents.size(), " elements; ", N,
                                      " direction(s) of ", primal.size(), " need ",
                                      N * primal.size()));
  return {primal.data(), primal.size(), tangents.data()};
}

/// The primal array of a view: itself (read-only) for a `Span`, the paired primal for a
/// `DualView`, the tracked array for a `Variable` (<sphad/ad/variable.hpp>).
template <class E>
SPHAD_HOST_DEVICE SPHAD_INLINE Span<const E> primal_view(Span<E> view) {
  return view;
}
template <class E, int N>
SPHAD_HOST_DEVICE SPHAD_INLINE Span<const E> primal_view(const DualView<E, N>& view) {
  return view.primal();
}

} // namespace sphad
