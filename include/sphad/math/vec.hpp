// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <cmath>
#include <type_traits>
#include <utility>

/// \file
/// \brief `Vec<T, D>`: a fixed-size vector of any arithmetic-like scalar (plain or dual).

namespace sphad {

/// A vector of `D` scalars, an aggregate: `Vec<double, 2> x{1.0, 2.0}`; `Vec<T, D>{}` is zero.
/// Arithmetic mixes element types the way the elements do (`Vec<Dual> * double` is a
/// `Vec<Dual>`), so the same expression serves plain and dual scalars.
/// @tparam T  element type: an arithmetic type or `Dual<...>` (anything with + - * /).
/// @tparam D  extent, at least 1 (positions use D = 1..3).
template <class T, int D>
struct Vec {
  static_assert(D >= 1, "sphad::Vec: the extent D must be at least 1");
  using value_type = T;
  static constexpr int dim = D;

  T components[D];

  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr T& operator[](int i) { return components[i]; }
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr const T& operator[](int i) const {
    return components[i];
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE static constexpr int size() { return D; }

  /// Every component equal to `value`.
  SPHAD_HOST_DEVICE static constexpr Vec filled(const T& value) {
    Vec v{};
    SPHAD_PRAGMA_UNROLL
    for (int i = 0; i < D; ++i) {
      v[i] = value;
    }
    return v;
  }
  /// The unit vector along axis `axis`.
  SPHAD_HOST_DEVICE static constexpr Vec unit(int axis) {
    Vec v{};
    v[axis] = T(1);
    return v;
  }
};

template <class T>
struct is_vec : std::false_type {};
template <class T, int D>
struct is_vec<Vec<T, D>> : std::true_type {};
template <class T>
inline constexpr bool is_vec_v = is_vec<std::remove_cv_t<std::remove_reference_t<T>>>::value;

namespace detail {
template <class F, int... I>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto generate_vec(F& f, std::integer_sequence<int, I...>) {
  return Vec<decltype(f(0)), sizeof...(I)>{{f(I)...}}; // in order, left to right
}
/// Builds a Vec whose component i is f(i), called for i = 0, 1, … in order; the element type is
/// what f returns. Each component is made in place (no zero fill first: for a Vec of wide dual
/// numbers that fill is a memset the optimizer keeps).
template <int D, class F>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto generate_vec(F&& f) {
  return generate_vec(f, std::make_integer_sequence<int, D>{});
}
} // namespace detail

// Elementwise arithmetic between vectors of possibly different element types.
template <class T, class U, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator+(const Vec<T, D>& a, const Vec<U, D>& b) {
  return detail::generate_vec<D>([&](int i) { return a[i] + b[i]; });
}
template <class T, class U, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator-(const Vec<T, D>& a, const Vec<U, D>& b) {
  return detail::generate_vec<D>([&](int i) { return a[i] - b[i]; });
}
template <class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Vec<T, D> operator-(const Vec<T, D>& a) {
  return detail::generate_vec<D>([&](int i) { return T(-a[i]); });
}
template <class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Vec<T, D> operator+(const Vec<T, D>& a) {
  return a;
}

/// Vector times scalar (either order) and vector divided by scalar. `S` is any non-vector type
/// the elements multiply with.
template <class T, int D, class S, std::enable_if_t<!is_vec_v<S>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator*(const Vec<T, D>& a, const S& s)
    -> Vec<decltype(a[0] * s), D> {
  return detail::generate_vec<D>([&](int i) { return a[i] * s; });
}
template <class T, int D, class S, std::enable_if_t<!is_vec_v<S>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator*(const S& s, const Vec<T, D>& a)
    -> Vec<decltype(s * a[0]), D> {
  return detail::generate_vec<D>([&](int i) { return s * a[i]; });
}
template <class T, int D, class S, std::enable_if_t<!is_vec_v<S>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator/(const Vec<T, D>& a, const S& s)
    -> Vec<decltype(a[0] / s), D> {
  return detail::generate_vec<D>([&](int i) { return a[i] / s; });
}

template <class T, class U, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Vec<T, D>& operator+=(Vec<T, D>& a, const Vec<U, D>& b) {
  SPHAD_PRAGMA_UNROLL
  for (int i = 0; i < D; ++i) {
    a[i] += b[i];
  }
  return a;
}
template <class T, class U, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Vec<T, D>& operator-=(Vec<T, D>& a, const Vec<U, D>& b) {
  SPHAD_PRAGMA_UNROLL
  for (int i = 0; i < D; ++i) {
    a[i] -= b[i];
  }
  return a;
}
template <class T, int D, class S, std::enable_if_t<!is_vec_v<S>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Vec<T, D>& operator*=(Vec<T, D>& a, const S& s) {
  SPHAD_PRAGMA_UNROLL
  for (int i = 0; i < D; ++i) {
    a[i] *= s;
  }
  return a;
}
template <class T, int D, class S, std::enable_if_t<!is_vec_v<S>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Vec<T, D>& operator/=(Vec<T, D>& a, const S& s) {
  SPHAD_PRAGMA_UNROLL
  for (int i = 0; i < D; ++i) {
    a[i] /= s;
  }
  return a;
}

/// Exact componentwise equality (tests, bitwise checks).
template <class T, class U, int D>
SPHAD_HOST_DEVICE constexpr bool operator==(const Vec<T, D>& a, const Vec<U, D>& b) {
  for (int i = 0; i < D; ++i) {
    if (!(a[i] == b[i])) {
      return false;
    }
  }
  return true;
}
template <class T, class U, int D>
SPHAD_HOST_DEVICE constexpr bool operator!=(const Vec<T, D>& a, const Vec<U, D>& b) {
  return !(a == b);
}

/// a · b
template <class T, class U, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto dot(const Vec<T, D>& a, const Vec<U, D>& b) {
  auto sum = a[0] * b[0];
  SPHAD_PRAGMA_UNROLL
  for (int i = 1; i < D; ++i) {
    sum += a[i] * b[i];
  }
  return sum;
}

/// |a|², no square root (and so no singularity at the zero vector).
template <class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr T norm_squared(const Vec<T, D>& a) {
  return dot(a, a);
}

/// |a| by a plain square root. Its derivative at the zero vector is not finite; pair geometry
/// uses `safe_norm` from <sphad/ad/safe.hpp> instead.
template <class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE T norm(const Vec<T, D>& a) {
  using std::sqrt;
  return sqrt(norm_squared(a));
}

/// 2D cross product: the z component a_x b_y − a_y b_x.
template <class T, class U>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto cross(const Vec<T, 2>& a, const Vec<U, 2>& b) {
  return a[0] * b[1] - a[1] * b[0];
}
/// 3D cross product a × b.
template <class T, class U>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto cross(const Vec<T, 3>& a, const Vec<U, 3>& b) {
  using R = decltype(a[0] * b[0]);
  return Vec<R, 3>{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
/// 1D has no cross product.
template <class T, class U>
void cross(const Vec<T, 1>&, const Vec<U, 1>&) = delete;

} // namespace sphad
