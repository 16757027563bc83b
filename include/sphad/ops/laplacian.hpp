// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/safe.hpp>
#include <sphad/ops/detail/field_algebra.hpp>
#include <sphad/ops/detail/operator_base.hpp>
#include <sphad/ops/families.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/pair/properties.hpp>
#include <sphad/pair/schemes.hpp>

#include <type_traits>

/// \file
/// \brief `ops::Laplacian`: the SPH Laplacian in the reference's four schemes, with its kernel
/// part's hand-written transpose for the Brookshaw and Default schemes.

namespace sphad::ops {

namespace detail {
/// The Laplacian's combination without positiveDivergence: form(particle_part(p), k).
struct FactoredLaplacian {};

/// The Laplacian's combination with positiveDivergence: form(q_ij, k) with k the scheme's
/// kernel part, kept in its first D components when x_ij·q_ij ≥ 0 (x_ij ends the kernel part).
template <class Op>
struct PositiveDivergenceCombine {
  template <class P, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const K& k) {
    constexpr int D = P::dim;
    constexpr int KN = K::dim - D; // the scheme's kernel part: 1 or D + 1 scalars
    using T = scalar_of_t<K>;
    using Scheme = std::conditional_t<KN == 1, T, Vec<T, KN>>;
    Scheme scheme{};
    for (int e = 0; e < KN; ++e) {
      Components<Scheme>::at(scheme, e) = k[e];
    }
    const auto q = Op::particle_part(p);
    const auto out = Op::form(q, scheme);
    // Only the components along the pair vector that do not point inwards survive.
    using F = std::remove_cv_t<decltype(out)>;
    using Parts = Components<F>;
    static_assert(Parts::count >= D, "sphad::ops::Laplacian: positiveDivergence needs a field "
                                     "of at least D components");
    auto along = value_of(k[KN]) * value_of(Components<std::decay_t<decltype(q)>>::at(q, 0));
    for (int e = 1; e < D; ++e) {
      along += value_of(k[KN + e]) * value_of(Components<std::decay_t<decltype(q)>>::at(q, e));
    }
    F kept{};
    if (along >= 0) {
      for (int e = 0; e < D; ++e) {
        Parts::at(kept, e) = Parts::at(out, e);
      }
    }
    return kept;
  }
};
} // namespace detail

/// ∇²f_i: q_ij = (f_j − f_i) V_j, or (f_j − f_i) m_j ρ_i/ρ_j² for the
/// Symmetric gradient scheme; n = x_ij/(r + 1e-8 h_ij). Naive q ∇²W; Brookshaw
/// −2q(G·n)/(r + 1e-8 h_ij); Default −2q(G·n)/(r + 1e-12 h_ij); Dot F(q_k − (D+2)(q_b·n) n_k),
/// F = (n·G)/(r + 1e-8 h_ij), per block b of D components. Zero at r = 0. With
/// `PositiveDivergence` a term counts only when x_ij·q_ij ≥ 0 (first D components), and only
/// those components are kept.
template <class Kernel,
          LaplacianScheme Scheme = LaplacianScheme::Brookshaw,
          GradientScheme Difference = GradientScheme::Naive,
          SupportScheme Support = SupportScheme::Gather,
          bool PositiveDivergence = false>
struct Laplacian
    : detail::FieldDerivative<Kernel, Support>,
      std::conditional_t<PositiveDivergence,
                         detail::PositiveDivergenceCombine<
                             Laplacian<Kernel, Scheme, Difference, Support, PositiveDivergence>>,
                         detail::FactoredLaplacian> {
  static constexpr OperationProperties properties = Laplacian::describe(
      Operation::Laplacian,
      Difference == GradientScheme::Symmetric ? GradientScheme::Symmetric : GradientScheme::Naive,
      Scheme,
      DivergenceMode::Standard,
      false,
      PositiveDivergence);
  /// Dot and positiveDivergence read the field's components in blocks of D.
  template <int D, class F>
  static constexpr bool accepts_field = detail::is_field_v<F> &&
                                        (Scheme != LaplacianScheme::Dot ||
                                         (!is_mat_v<F> && detail::Components<F>::count % D == 0)) &&
                                        (!PositiveDivergence ||
                                         (!is_mat_v<F> && detail::Components<F>::count >= D));
  template <int D, class T, class F>
  using output_t = F;

  /// The kernel side of the pair term (geometry and corrections): ∇²W (Naive), −2 (G·n)/(r + ε
  /// h_ij) (Brookshaw, Default), (F, n) as a [D + 1] vector (Dot); zero at r = 0. With
  /// `PositiveDivergence` x_ij follows, for the combination's sign test: [1 + D] or [2D + 1].
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part(const P& p) {
    const auto k = scheme_kernel_part(p);
    if constexpr (PositiveDivergence) {
      using T = typename P::scalar;
      constexpr int D = decltype(p.x_ij)::dim;
      constexpr int KN = detail::Components<std::remove_cv_t<decltype(k)>>::count;
      Vec<T, KN + D> out;
      for (int e = 0; e < KN; ++e) {
        out[e] = detail::Components<std::remove_cv_t<decltype(k)>>::at(k, e);
      }
      for (int e = 0; e < D; ++e) {
        out[KN + e] = T(p.x_ij[e]);
      }
      return out;
    } else {
      return k;
    }
  }

  /// The scheme's kernel part (without the pair vector of `PositiveDivergence`).
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto scheme_kernel_part(const P& p) {
    using T = typename P::scalar; // one scalar for everything (dual when any input is)
    using sphad::detail::convert_scalars;
    constexpr int D = decltype(p.x_ij)::dim;
    if constexpr (Scheme == LaplacianScheme::Naive) {
      return T(p.laplacian());
    } else {
      using G = std::conditional_t<Scheme == LaplacianScheme::Dot, Vec<T, D + 1>, T>;
      const T r = safe_norm(p.x_ij);
      if (!(value_of(r) > 0)) {
        return G{}; // the reference's explicit r = 0 guard
      }
      const T h_ij = p.support();
      const auto x = convert_scalars<Vec<T, D>>(p.x_ij);
      const auto g = convert_scalars<Vec<T, D>>(p.corrected_gradient());
      if constexpr (Scheme == LaplacianScheme::Brookshaw || Scheme == LaplacianScheme::Default) {
        return G(gradient_form(g, x, r, h_ij));
      } else {
        static_assert(Scheme == LaplacianScheme::Dot, "sphad::ops::Laplacian: unknown scheme");
        const T inv_d1 = T(1) / (r + primal_t<T>(1e-8) * h_ij);
        const auto n = x * inv_d1;
        G out;
        out[0] = dot(n, g) * inv_d1;
        for (int e = 0; e < D; ++e) {
          out[e + 1] = n[e];
        }
        return out;
      }
    }
  }

  /// The combination q_ij k is arithmetic alone (no branch) but for the Symmetric difference's
  /// quotient, the Dot scheme's blocks and positiveDivergence's test: the host evaluates it on
  /// SIMD lanes.
  static constexpr bool lanewise_combine = Difference != GradientScheme::Symmetric &&
                                           Scheme != LaplacianScheme::Dot && !PositiveDivergence;

  static constexpr KernelPart kernel_part_kind =
      (Scheme == LaplacianScheme::Brookshaw || Scheme == LaplacianScheme::Default) &&
              !PositiveDivergence
          ? KernelPart::gradient_form
          : KernelPart::other;

  /// The Brookshaw and Default kernel part of a pair with x_ij = x, r = |x| > 0, h_ij and Ĝ = g:
  /// n = x/d1 with d1 = r + 10⁻⁸ h_ij by one reciprocal (its D + 1 uses multiply), then
  /// `form_value`. Arithmetic alone, in any scalar: plain, dual, or the host's SIMD packs (the
  /// pair blocks, which take r = 0 to 0 themselves).
  template <class T, int D>
  SPHAD_HOST_DEVICE SPHAD_INLINE static T
  gradient_form(const Vec<T, D>& g, const Vec<T, D>& x, const T& r, const T& h_ij) {
    const T inv_d1 = T(1) / (r + primal_t<T>(1e-8) * h_ij);
    return form_value(g, x * inv_d1, inv_d1, r, h_ij);
  }

  /// The Brookshaw and Default kernel parts from Ĝ, n = x/d1, 1/d1 (d1 = r + 10⁻⁸ h), r and h:
  /// −2 (Ĝ·n)/d1 or −2 (n·Ĝ)/(r + 10⁻¹² h).
  template <class T, int D>
  SPHAD_HOST_DEVICE SPHAD_INLINE static T
  form_value(const Vec<T, D>& g, const Vec<T, D>& n, const T& inv_d1, const T& r, const T& h_ij) {
    if constexpr (Scheme == LaplacianScheme::Brookshaw) {
      return T(-2) * dot(g, n) * inv_d1;
    } else {
      return T(-2) * dot(n, g) / (r + primal_t<T>(1e-12) * h_ij);
    }
  }

  /// A form's adjoints and linearization (pair/concept.hpp).
  template <class T, int D>
  using FormAdjoint = ops::FormAdjoint<T, D>;
  template <class T, int D>
  using FormLinearization = ops::FormLinearization<T, D>;

  /// The Brookshaw and Default kernel part of pair vector x (r = |x| > 0, from the kernel's own
  /// linearization), pair support h and Ĝ, linearized: with m = Ĝ·x, d1 = r + 10⁻⁸ h and d2 = r +
  /// 10⁻¹² h the part is −2 m/d1² (Brookshaw) or −2 m/(d1 d2) (Default), so per unit cotangent
  /// Ĝ̄ = c x and x̄ = c Ĝ + (d̄1 + d̄2) x/r with c = −2/d1² or −2/(d1 d2), d̄1 = 4 m/d1³
  /// (Brookshaw) or 2 m/(d1² d2), d̄2 = 2 m/(d1 d2²) (Default), and h̄ = 10⁻⁸ d̄1 + 10⁻¹² d̄2.
  /// Arithmetic alone, in plain scalars or the host's SIMD packs; zero at r = 0 through
  /// `ops::gradient_form_linearization`.
  template <class T, int D>
  SPHAD_HOST_DEVICE SPHAD_INLINE static FormLinearization<T, D>
  form_linearization(const Vec<T, D>& x, const T& r, const T& h_ij, const Vec<T, D>& g) {
    static_assert(kernel_part_kind == KernelPart::gradient_form,
                  "sphad::ops::Laplacian: the Brookshaw and Default kernel parts have a transpose");
    const T inv_d1 = T(1) / (r + primal_t<T>(1e-8) * h_ij);
    const T m = dot(g, x);
    FormLinearization<T, D> out;
    out.value = form_value(g, x * inv_d1, inv_d1, r, h_ij);
    T c, d1bar, d2bar(0);
    if constexpr (Scheme == LaplacianScheme::Brookshaw) {
      c = T(-2) * inv_d1 * inv_d1;
      d1bar = T(4) * m * inv_d1 * inv_d1 * inv_d1;
    } else {
      const T inv_d2 = T(1) / (r + primal_t<T>(1e-12) * h_ij);
      c = T(-2) * inv_d1 * inv_d2;
      d1bar = T(2) * m * inv_d1 * inv_d1 * inv_d2;
      d2bar = T(2) * m * inv_d1 * inv_d2 * inv_d2;
    }
    out.unit.gradient = x * c;
    out.unit.x = g * c + x * ((d1bar + d2bar) / r);
    out.unit.support = primal_t<T>(1e-8) * d1bar + primal_t<T>(1e-12) * d2bar;
    return out;
  }

  /// q_ij: the field difference scaled by the scheme's particle weights.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto particle_part(const P& p) {
    using Field = std::decay_t<decltype(p.f_j)>;
    using F = rebind_scalar_t<Field, promote_t<typename P::scalar, scalar_of_t<Field>>>;
    using sphad::detail::convert_scalars;
    if constexpr (Difference == GradientScheme::Symmetric) {
      return convert_scalars<F>((p.f_j - p.f_i) * safe_divide(p.m_j * p.rho_i, p.rho_j * p.rho_j));
    } else {
      return convert_scalars<F>((p.f_j - p.f_i) * p.volume_j);
    }
  }

  /// q_ij joined with the kernel side k: q_ij times k, or Price's per-block projection for Dot.
  template <class Q, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto form(const Q& q_in, const K& k) {
    using T = scalar_of_t<K>;
    using S = promote_t<T, scalar_of_t<Q>>;
    using F = rebind_scalar_t<Q, S>;
    using Parts = detail::Components<F>;
    using sphad::detail::convert_scalars;
    const F q = convert_scalars<F>(q_in);
    F out{};
    if constexpr (Scheme != LaplacianScheme::Dot) {
      out = convert_scalars<F>(q * k);
    } else {
      constexpr int D = K::dim - 1;
      static_assert(Parts::count % D == 0,
                    "sphad::ops::Laplacian: the Dot scheme needs a field whose size is a "
                    "multiple of D; use Naive, Brookshaw or Default for scalars");
      const T f = k[0];
      for (int b = 0; b < Parts::count / D; ++b) {
        S projection(0);
        for (int e = 0; e < D; ++e) {
          projection += Parts::at(q, b * D + e) * k[e + 1];
        }
        for (int e = 0; e < D; ++e) {
          Parts::at(out, b * D + e) =
              f * (Parts::at(q, b * D + e) - T(D + 2) * projection * k[e + 1]);
        }
      }
    }
    return out;
  }
};

namespace detail {
/// The Laplacian reads only whether its gradient scheme is Symmetric (`canonical`).
template <>
struct OperatorFamily<Operation::Laplacian> {
  template <class K, SupportScheme S, class F>
  static decltype(auto) with_type(const OperationProperties& c, F&& f) {
    return dispatch_value(
        c.laplacian_scheme, "properties.laplacian_scheme",
        [&](auto scheme) -> decltype(auto) {
          return dispatch_value(
              c.gradient_scheme, "properties.gradient_scheme",
              [&](auto g) -> decltype(auto) {
                return dispatch_value(
                    c.positive_divergence, "properties.positive_divergence",
                    [&](auto positive) -> decltype(auto) {
                      return f(Laplacian<K, decltype(scheme)::value, decltype(g)::value, S,
                                         decltype(positive)::value>{});
                    },
                    Flags{});
              },
              ValueList<GradientScheme::Naive, GradientScheme::Symmetric>{});
        },
        ValueList<LaplacianScheme::Naive, LaplacianScheme::Brookshaw, LaplacianScheme::Dot,
                  LaplacianScheme::Default>{});
  }
};
} // namespace detail

} // namespace sphad::ops
