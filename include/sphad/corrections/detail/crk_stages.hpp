// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/safe.hpp>
#include <sphad/corrections/crk_factors.hpp>
#include <sphad/corrections/detail/stage.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/scalar_traits.hpp>

#include <cstdint>

/// \file
/// \brief The CRK pipeline's stages as operators with whole pair terms (the kernel sum, the
/// Scatter moments, the CRK density's sums) and their stores.

namespace sphad::corrections {

namespace detail {

/// Stage 1: Σ_j W(x_ij, h_i), self included (Gather).
template <class Kernel>
struct KernelSum : Stage<Kernel, SupportScheme::Gather> {
  template <int D, class T, class F>
  using output_t = T;
  template <class P>
  SPHAD_HOST_DEVICE static auto term(const P& p) {
    return p.w();
  }
};

/// V_i = 1/S_i, and 0 where S_i = 0 (a masked query or one without accepted neighbours).
struct ReciprocalOf {
  template <class T>
  SPHAD_HOST_DEVICE SPHAD_INLINE T operator()(const T& sum) const {
    return safe_divide(T(1), sum);
  }
};
template <class T>
struct StoreReciprocal {
  T* out;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i, const T& sum) const {
    out[i] = ReciprocalOf{}(sum);
  }
};

/// Stage 2: the moments of W(x_ij, h_j) (Scatter) weighted by V_j (the references' volumes).
template <class Kernel>
struct MomentSum : Stage<Kernel, SupportScheme::Scatter> {
  template <int D, class T, class F>
  using output_t = Moments<D, T>;
  template <class P>
  SPHAD_HOST_DEVICE static auto term(const P& p) {
    using T = typename P::scalar;
    constexpr int D = decltype(p.x_ij)::dim;
    using sphad::detail::convert_scalars;
    const T w = p.w();
    const auto g = convert_scalars<Vec<T, D>>(p.gradient());
    const auto x = convert_scalars<Vec<T, D>>(p.x_ij);
    const T v = p.volume_j;
    const T vw = v * w;
    Moments<D, T> m;
    m.m0 = vw;
    m.m1 = x * vw;
    m.m2 = outer(x, x) * vw;
    m.dm0 = g * v;
    m.dm1 = outer(x, g) * v + Mat<T, D, D>::identity() * vw;
    for (int c = 0; c < D; ++c) {
      for (int a = 0; a < D; ++a) {
        for (int b = 0; b < D; ++b) {
          m.dm2[c](a, b) =
              v * (x[a] * x[b] * g[c]) + vw * ((b == c ? x[a] : T(0)) + (a == c ? x[b] : T(0)));
        }
      }
    }
    m.count = value_of(w) > 0 ? 1 : 0;
    return m;
  }
};

/// Stage 3 in the store: solves each query's moments into its factors.
template <int D, class T>
struct StoreCRKFactors {
  T* a;
  Vec<T, D>* b;
  Vec<T, D>* grad_a;
  Mat<T, D, D>* grad_b;
  primal_t<T> tau;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i, const Moments<D, T>& m) const {
    const CRKRow<D, T> row = solve_crk(m, tau);
    a[i] = row.a;
    b[i] = row.b;
    grad_a[i] = row.grad_a;
    grad_b[i] = row.grad_b;
  }
};

/// Stage 4: (Σ_j m_j V_j Ŵ_ij, Σ_j V_j² Ŵ_ij) with the CRK-corrected Scatter kernel.
template <class Kernel>
struct CRKDensitySums : Stage<Kernel, SupportScheme::Scatter> {
  template <int D, class T, class F>
  using output_t = Vec<T, 2>;
  template <class P>
  SPHAD_HOST_DEVICE static auto term(const P& p) {
    using T = typename P::scalar;
    const T vw = p.volume_j * p.corrected_value();
    return Vec<T, 2>{p.m_j * vw, p.volume_j * vw};
  }
};

/// ρ_i = num/den, and 0 where den = 0.
struct QuotientOf {
  template <class T>
  SPHAD_HOST_DEVICE SPHAD_INLINE T operator()(const Vec<T, 2>& sums) const {
    return safe_divide(sums[0], sums[1]);
  }
};
template <class T>
struct StoreQuotient {
  T* out;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i, const Vec<T, 2>& sums) const {
    out[i] = QuotientOf{}(sums);
  }
};

/// One of the factors solve_crk gives (0: A, 1: B, 2: ∇A, 3: ∇B), for the recorded pipeline.
template <int Part>
struct CRKPartOf {
  double tau;
  template <int D, class T>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto operator()(const Moments<D, T>& m) const {
    const CRKRow<D, T> row = solve_crk(m, primal_t<T>(tau));
    if constexpr (Part == 0) {
      return row.a;
    } else if constexpr (Part == 1) {
      return row.b;
    } else if constexpr (Part == 2) {
      return row.grad_a;
    } else {
      return row.grad_b;
    }
  }
};

} // namespace detail

} // namespace sphad::corrections
