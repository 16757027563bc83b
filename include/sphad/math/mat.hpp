// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/math/vec.hpp>

#include <type_traits>

/// \file
/// \brief `Mat<T, R, C>`: a fixed-size row-major matrix and the small dense algebra on it.

namespace sphad {

/// An R×C matrix stored row-major, an aggregate: `Mat<double, 2, 2> m{1, 2, 3, 4}` is
/// [[1, 2], [3, 4]]; `Mat<T, R, C>{}` is zero. Elements may be plain or dual scalars.
template <class T, int R, int C>
struct Mat {
  static_assert(R >= 1 && C >= 1, "sphad::Mat: the extents R and C must be at least 1");
  using value_type = T;
  static constexpr int rows = R;
  static constexpr int cols = C;

  T elements[R][C];

  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr T& operator()(int i, int j) { return elements[i][j]; }
  SPHAD_HOST_DEVICE SPHAD_INLINE constexpr const T& operator()(int i, int j) const {
    return elements[i][j];
  }

  /// The identity (square matrices only).
  SPHAD_HOST_DEVICE static constexpr Mat identity() {
    static_assert(R == C, "sphad::Mat::identity: the matrix must be square");
    Mat m{};
    SPHAD_PRAGMA_UNROLL
    for (int i = 0; i < R; ++i) {
      m(i, i) = T(1);
    }
    return m;
  }
};

template <class T>
struct is_mat : std::false_type {};
template <class T, int R, int C>
struct is_mat<Mat<T, R, C>> : std::true_type {};
template <class T>
inline constexpr bool is_mat_v = is_mat<std::remove_cv_t<std::remove_reference_t<T>>>::value;

namespace detail {
/// Builds an R×C matrix whose element (i, j) is f(i, j).
template <int R, int C, class F>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto generate_mat(F&& f) {
  Mat<decltype(f(0, 0)), R, C> out{};
  SPHAD_PRAGMA_UNROLL
  for (int i = 0; i < R; ++i) {
    SPHAD_PRAGMA_UNROLL
    for (int j = 0; j < C; ++j) {
      out(i, j) = f(i, j);
    }
  }
  return out;
}
} // namespace detail

template <class T, class U, int R, int C>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator+(const Mat<T, R, C>& a,
                                                        const Mat<U, R, C>& b) {
  return detail::generate_mat<R, C>([&](int i, int j) { return a(i, j) + b(i, j); });
}
template <class T, class U, int R, int C>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator-(const Mat<T, R, C>& a,
                                                        const Mat<U, R, C>& b) {
  return detail::generate_mat<R, C>([&](int i, int j) { return a(i, j) - b(i, j); });
}
template <class T, int R, int C>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Mat<T, R, C> operator-(const Mat<T, R, C>& a) {
  return detail::generate_mat<R, C>([&](int i, int j) { return T(-a(i, j)); });
}
template <class T, int R, int C, class S, std::enable_if_t<!is_vec_v<S> && !is_mat_v<S>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator*(const Mat<T, R, C>& a, const S& s) {
  return detail::generate_mat<R, C>([&](int i, int j) { return a(i, j) * s; });
}
template <class T, int R, int C, class S, std::enable_if_t<!is_vec_v<S> && !is_mat_v<S>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator*(const S& s, const Mat<T, R, C>& a) {
  return detail::generate_mat<R, C>([&](int i, int j) { return s * a(i, j); });
}
template <class T, int R, int C, class S, std::enable_if_t<!is_vec_v<S> && !is_mat_v<S>, int> = 0>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator/(const Mat<T, R, C>& a, const S& s) {
  return detail::generate_mat<R, C>([&](int i, int j) { return a(i, j) / s; });
}
template <class T, class U, int R, int C>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Mat<T, R, C>& operator+=(Mat<T, R, C>& a,
                                                                  const Mat<U, R, C>& b) {
  SPHAD_PRAGMA_UNROLL
  for (int i = 0; i < R; ++i) {
    SPHAD_PRAGMA_UNROLL
    for (int j = 0; j < C; ++j) {
      a(i, j) += b(i, j);
    }
  }
  return a;
}

/// Exact elementwise equality (tests, bitwise checks).
template <class T, class U, int R, int C>
SPHAD_HOST_DEVICE constexpr bool operator==(const Mat<T, R, C>& a, const Mat<U, R, C>& b) {
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < C; ++j) {
      if (!(a(i, j) == b(i, j))) {
        return false;
      }
    }
  }
  return true;
}
template <class T, class U, int R, int C>
SPHAD_HOST_DEVICE constexpr bool operator!=(const Mat<T, R, C>& a, const Mat<U, R, C>& b) {
  return !(a == b);
}

/// Matrix product a·b ([R×K]·[K×C] → [R×C]).
template <class T, class U, int R, int K, int C>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator*(const Mat<T, R, K>& a,
                                                        const Mat<U, K, C>& b) {
  return detail::generate_mat<R, C>([&](int i, int j) {
    auto sum = a(i, 0) * b(0, j);
    SPHAD_PRAGMA_UNROLL
    for (int k = 1; k < K; ++k) {
      sum += a(i, k) * b(k, j);
    }
    return sum;
  });
}

/// Matrix times column vector ([R×C]·[C] → [R]).
template <class T, class U, int R, int C>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto operator*(const Mat<T, R, C>& a, const Vec<U, C>& v) {
  return detail::generate_vec<R>([&](int i) {
    auto sum = a(i, 0) * v[0];
    SPHAD_PRAGMA_UNROLL
    for (int k = 1; k < C; ++k) {
      sum += a(i, k) * v[k];
    }
    return sum;
  });
}

/// Transpose.
template <class T, int R, int C>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Mat<T, C, R> transpose(const Mat<T, R, C>& a) {
  return detail::generate_mat<C, R>([&](int i, int j) { return a(j, i); });
}

/// Outer product a bᵀ ([R] ⊗ [C] → [R×C]).
template <class T, class U, int R, int C>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr auto outer(const Vec<T, R>& a, const Vec<U, C>& b) {
  return detail::generate_mat<R, C>([&](int i, int j) { return a[i] * b[j]; });
}

/// Sum of the diagonal.
template <class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr T trace(const Mat<T, D, D>& a) {
  T sum = a(0, 0);
  SPHAD_PRAGMA_UNROLL
  for (int i = 1; i < D; ++i) {
    sum += a(i, i);
  }
  return sum;
}

/// Determinant, D = 1, 2, 3 (cofactor expansion).
template <class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr T determinant(const Mat<T, D, D>& a) {
  static_assert(D >= 1 && D <= 3, "sphad::determinant: only 1x1, 2x2 and 3x3 matrices");
  if constexpr (D == 1) {
    return a(0, 0);
  } else if constexpr (D == 2) {
    return a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
  } else {
    return a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) -
           a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
           a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
  }
}

/// Adjugate (transposed cofactor matrix), D = 1, 2, 3: a · adjugate(a) = det(a) I.
template <class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Mat<T, D, D> adjugate(const Mat<T, D, D>& a) {
  static_assert(D >= 1 && D <= 3, "sphad::adjugate: only 1x1, 2x2 and 3x3 matrices");
  if constexpr (D == 1) {
    return Mat<T, 1, 1>{{{T(1)}}};
  } else if constexpr (D == 2) {
    return Mat<T, 2, 2>{{{a(1, 1), -a(0, 1)}, {-a(1, 0), a(0, 0)}}};
  } else {
    // Cofactor of (j, i) with cyclic indices, which carries the sign itself.
    return detail::generate_mat<3, 3>([&](int i, int j) {
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
      return T(a(j1, i1) * a(j2, i2) - a(j1, i2) * a(j2, i1));
    });
  }
}

/// Inverse by adjugate over determinant, D = 1, 2, 3. The caller ensures det(a) != 0; for
/// matrices that may be singular use `pinv` (<sphad/math/pinv.hpp>).
template <class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr Mat<T, D, D> inverse(const Mat<T, D, D>& a) {
  return adjugate(a) / determinant(a);
}

} // namespace sphad
