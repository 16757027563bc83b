// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/safe.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/pair/schemes.hpp>
#include <sphad/scalar_traits.hpp>

#include <type_traits>

namespace sphad::ops::detail {

template <class F>
struct dependent_false : std::false_type {};

/// The values a scheme whose coefficient is linear in them multiplies by the volume: f_j
/// (Naive), f_j − f_i (Difference), f_j + f_i (Summation).
template <GradientScheme G, class P>
SPHAD_HOST_DEVICE SPHAD_INLINE auto volume_weighted_values(const P& p) {
  if constexpr (G == GradientScheme::Naive) {
    return p.f_j;
  } else if constexpr (G == GradientScheme::Difference) {
    return p.f_j - p.f_i;
  } else {
    static_assert(G == GradientScheme::Summation, "sphad::ops: unknown GradientScheme");
    return p.f_j + p.f_i;
  }
}

/// The gradient-family coefficient c_ij of a scheme, field-shaped, with the reference volume
/// `volume` (V_j, or consistentDivergence's V_j ρ_j/ρ_i).
template <GradientScheme G, class P, class V>
SPHAD_HOST_DEVICE SPHAD_INLINE auto coefficient(const P& p, const V& volume) {
  if constexpr (G == GradientScheme::Symmetric) {
    return (safe_divide(p.f_i, p.rho_i * p.rho_i) + safe_divide(p.f_j, p.rho_j * p.rho_j)) *
           (p.m_j * p.rho_i);
  } else {
    return volume_weighted_values<G>(p) * volume;
  }
}
template <GradientScheme G, class P>
SPHAD_HOST_DEVICE SPHAD_INLINE auto coefficient(const P& p) {
  return coefficient<G>(p, p.volume_j);
}

/// c ⊗ G with the derivative axis last: scalar → [D], vector [K] → [K, D].
template <class C, class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE auto outer_with(const C& c, const Vec<T, D>& g) {
  if constexpr (is_vec_v<C>) {
    return outer(c, g);
  } else if constexpr (is_mat_v<C>) {
    // [R, C] → [R, C, D]: a matrix of gradient vectors, contiguous as row-major R×C×D.
    return sphad::detail::generate_mat<C::rows, C::cols>([&](int r, int k) { return g * c(r, k); });
  } else {
    return g * c;
  }
}

/// Σ a_k b_k over the scalars of two elements of one shape (a scalar, `Vec` or `Mat`).
template <class A, class B>
SPHAD_HOST_DEVICE SPHAD_INLINE auto inner(const A& a, const B& b) {
  if constexpr (is_vec_v<A>) {
    auto sum = inner(a[0], b[0]);
    for (int k = 1; k < A::dim; ++k) {
      sum += inner(a[k], b[k]);
    }
    return sum;
  } else if constexpr (is_mat_v<A>) {
    auto sum = inner(a(0, 0), b(0, 0));
    for (int r = 0; r < A::rows; ++r) {
      for (int c = 0; c < A::cols; ++c) {
        if (r + c > 0) {
          sum += inner(a(r, c), b(r, c));
        }
      }
    }
    return sum;
  } else {
    return a * b;
  }
}

/// c ⊗ G (`outer_with`) transposed for the cotangent ȳ of its result: c̄ (shaped like c) and
/// Ḡ, each component the sum over the other factor's.
template <class C, class T, int D>
struct OuterAdjoint {
  C c;
  Vec<T, D> g;
};
template <class C, class T, int D, class Y>
SPHAD_HOST_DEVICE SPHAD_INLINE OuterAdjoint<C, T, D>
outer_with_adjoint(const C& c, const Vec<T, D>& g, const Y& ybar) {
  OuterAdjoint<C, T, D> out{};
  if constexpr (is_vec_v<C>) {
    // ȳ [K, D]
    for (int r = 0; r < C::dim; ++r) {
      T sum = ybar(r, 0) * g[0];
      for (int a = 1; a < D; ++a) {
        sum += ybar(r, a) * g[a];
      }
      out.c[r] = sum;
      for (int a = 0; a < D; ++a) {
        out.g[a] += ybar(r, a) * c[r];
      }
    }
  } else if constexpr (is_mat_v<C>) {
    // ȳ [R, C] of vectors [D]
    for (int r = 0; r < C::rows; ++r) {
      for (int k = 0; k < C::cols; ++k) {
        out.c(r, k) = dot(ybar(r, k), g);
        out.g += ybar(r, k) * c(r, k);
      }
    }
  } else {
    out.c = dot(ybar, g);
    out.g = ybar * c;
  }
  return out;
}

/// Whether `contract<M>` accepts a field of type C in D dimensions (the runtime front end's
/// test; the compile-time path states the same rules as static_asserts below).
template <DivergenceMode M, class C, int D>
constexpr bool contractible() {
  if constexpr (is_vec_v<C>) {
    return C::dim == D;
  } else if constexpr (is_mat_v<C>) {
    return (M == DivergenceMode::Standard ? C::rows : C::cols) == D;
  } else {
    return D == 1;
  }
}

/// The divergence contraction: Standard contracts the first field axis, Dot the
/// last; the contracted axis must have extent D.
template <DivergenceMode M, class C, class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE auto contract(const C& c, const Vec<T, D>& g) {
  if constexpr (is_vec_v<C>) {
    static_assert(C::dim == D,
                  "sphad::ops::Divergence: the vector field's extent must equal the dimension D");
    return dot(c, g);
  } else if constexpr (is_mat_v<C>) {
    if constexpr (M == DivergenceMode::Standard) {
      static_assert(C::rows == D, "sphad::ops::Divergence: standard mode contracts the first "
                                  "field axis, whose extent must equal D");
      return transpose(c) * g;
    } else {
      static_assert(C::cols == D, "sphad::ops::Divergence: dot mode contracts the last field "
                                  "axis, whose extent must equal D");
      return c * g;
    }
  } else {
    static_assert(D == 1 && !is_vec_v<C>,
                  "sphad::ops::Divergence: a scalar field has no divergence for D > 1 (the "
                  "contracted axis must have extent D); pass a vector field");
    return c * g[0];
  }
}

/// Whether `curl_term` accepts a field of type C in D dimensions.
template <class C, int D>
constexpr bool curlable() {
  if constexpr (is_vec_v<C>) {
    return D >= 2 && C::dim == D;
  } else if constexpr (is_mat_v<C>) {
    return D >= 2 && C::rows == D;
  } else {
    return false;
  }
}

/// The curl pair term G × c on the first field axis: 3D vector → vector, 2D
/// vector → its z component.
template <class C, class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE auto curl_term(const C& c, const Vec<T, D>& g) {
  static_assert(
      D >= 2, "sphad::ops::Curl: there is no curl in 1D (2D gives the z component, 3D the vector)");
  if constexpr (is_mat_v<C>) {
    // [D, m]: the curl of each column (the first field axis is the vector axis).
    static_assert(C::rows == D, "sphad::ops::Curl: the first field axis must have extent D");
    if constexpr (D == 3) {
      return sphad::detail::generate_mat<3, C::cols>([&](int a, int s) {
        const int b = (a + 1) % 3, e = (a + 2) % 3;
        return g[b] * c(e, s) - g[e] * c(b, s);
      });
    } else {
      return sphad::detail::generate_vec<C::cols>(
          [&](int s) { return g[0] * c(1, s) - g[1] * c(0, s); });
    }
  } else {
    static_assert(is_vec_v<C>, "sphad::ops::Curl: the field must be a vector or a matrix whose "
                               "first axis has extent D");
    static_assert(C::dim == D, "sphad::ops::Curl: the field must be a vector of extent D");
    return cross(g, c);
  }
}

/// Components of a field as an array view: scalars count as one component.
template <class F>
struct Components {
  static constexpr int count = 1;
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto& at(F& f, int) { return f; }
  SPHAD_HOST_DEVICE SPHAD_INLINE static const auto& at(const F& f, int) { return f; }
};
template <class T, int K>
struct Components<Vec<T, K>> {
  static constexpr int count = K;
  SPHAD_HOST_DEVICE SPHAD_INLINE static T& at(Vec<T, K>& f, int k) { return f[k]; }
  SPHAD_HOST_DEVICE SPHAD_INLINE static const T& at(const Vec<T, K>& f, int k) { return f[k]; }
};

} // namespace sphad::ops::detail
