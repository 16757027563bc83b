// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/lanewise.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/ops/detail/field_algebra.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/scalar_traits.hpp>
#include <sphad/solver/detail/term_base.hpp>

/// \file
/// \brief The viscous accelerations of weakly-compressible SPH as operators of the public
/// operator concept: Monaghan's artificial viscosity (`ArtificialViscosity`) and the laminar
/// viscosity of constant kinematic viscosity (`LaminarViscosity`, Lo & Shao's form of Morris).
/// Both are linear in their coefficient (α, ν), which the caller multiplies in (so it can be a
/// tracked parameter); both regularize 1/r² with η² = 0.01ℓ², ℓ = h_ij/κ (the laminar term takes
/// another fraction, or none, as a template argument).

namespace sphad::solver {

/// Monaghan's artificial viscosity for α = 1, β = 0:
///   a_i = Σ_j m_j c̄_ij μ_ij / ρ̄_ij Ĝ_ij  where u_ij·x_ij < 0 (else 0),
///   μ_ij = ℓ u_ij·x_ij/(r² + η²), η² = 0.01ℓ², ℓ = h_ij/κ, c̄ and ρ̄ the pair means.
/// The acceleration for a coefficient α is α times this (the quadratic β term, zero for water
/// with a free surface, is not provided). The field is (u, c) packed per particle as a
/// `Vec<T, D + 1>`: velocity, then sound speed; `pack_velocity_sound_speed` makes it. The
/// equivalent kinematic viscosity is ν = αℓc₀/(2(D + 2)). The switch at u_ij·x_ij = 0 follows
/// the primal branch (off at 0), so the α term has a kink there.
template <class Kernel, int Kappa = 2, SupportScheme Support = SupportScheme::Gather>
struct ArtificialViscosity : detail::TermBase<Kernel, Support> {
  static constexpr bool needs_densities = true, needs_values = true;
  /// Kernel part and combination written for SIMD packs too: the host's plain calls evaluate L
  /// pairs at once.
  static constexpr bool lanewise_term = true;
  /// (u, c): D + 1 components.
  template <int D, class F>
  static constexpr bool accepts_field = is_vec_v<F>&& F::dim == D + 1;
  template <int D, class T, class F>
  using output_t = Vec<T, D>;
  /// (ℓ x_ij/(r² + η²), Ĝ_ij) as one vector of 2D components.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part(const P& p) {
    using T = typename P::scalar;
    constexpr int D = P::dim;
    const T l = detail::paper_length<Kappa>(p);
    const auto q = detail::regularized_direction(p, l) * l;
    const auto g = detail::pair_gradient(p);
    Vec<T, 2 * D> out;
    for (int e = 0; e < D; ++e) {
      out[e] = q[e];
      out[D + e] = g[e];
    }
    return out;
  }
  /// The combination factors as form(particle_part(p), k), which reverse mode differentiates
  /// in two narrow dual numbers instead of one wide one (the particle inputs' eight directions
  /// and the kernel part's 2D apart): c = (u_ij, m_j (c_i + c_j), ρ_i + ρ_j).
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto particle_part(const P& p) {
    constexpr int D = P::dim;
    using S = decltype((p.f_i[0] - p.f_j[0]) + p.m_j * (p.f_i[D] + p.f_j[D]) + (p.rho_i + p.rho_j));
    Vec<S, D + 2> c;
    for (int e = 0; e < D; ++e) {
      c[e] = p.f_i[e] - p.f_j[e];
    }
    c[D] = p.m_j * (p.f_i[D] + p.f_j[D]);
    c[D + 1] = p.rho_i + p.rho_j;
    return c;
  }
  /// m_j c̄ μ/ρ̄ Ĝ for approaching pairs (μ = u_ij·k's first D components, Ĝ its last D).
  template <class C, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto form(const C& c, const K& k) {
    constexpr int D = C::dim - 2;
    auto mu = c[0] * k[0];
    for (int e = 1; e < D; ++e) {
      mu += c[e] * k[e];
    }
    const auto scale = safe_divide(c[D] * mu, c[D + 1]);
    using S = decltype(scale * k[D]);
    const auto approaching = value_of(mu) < 0; // lane by lane on packs
    return sphad::detail::generate_vec<D>(
        [&](int e) SPHAD_LAMBDA_INLINE { return cut(approaching, S(scale * k[D + e])); });
  }
  /// form(particle_part(p), k) transposed by hand (reverse mode's combination, in plain
  /// scalars): zero for receding pairs (μ ≥ 0); else, with s = m_j c̄ μ/ρ̄, Ĝ̄ = s ȳ,
  /// s̄ = ȳ·Ĝ, and s's quotient (0, with zero derivatives, where ρ_i + ρ_j = 0), μ = u_ij·q and
  /// c̄ = c_i + c_j transposed; returns k̄ = (q̄, Ĝ̄).
  static constexpr bool transposed_combine = true;
  template <class P, class K, class Y>
  SPHAD_HOST_DEVICE SPHAD_INLINE static K
  combine_adjoint(const P& p, const K& k, const Y& ybar, P& pbar) {
    constexpr int D = P::dim;
    const auto c = particle_part(p);
    auto mu = c[0] * k[0];
    for (int e = 1; e < D; ++e) {
      mu += c[e] * k[e];
    }
    K kbar{};
    if (!(mu < 0)) {
      return kbar; // a receding pair: no term, zero derivatives
    }
    const auto scale = safe_divide(c[D] * mu, c[D + 1]);
    auto sbar = ybar[0] * k[D];
    for (int e = 0; e < D; ++e) {
      kbar[D + e] = scale * ybar[e];
      if (e > 0) {
        sbar += ybar[e] * k[D + e];
      }
    }
    const auto nbar = safe_divide(sbar, c[D + 1]); // of n = c_D μ
    const auto dbar = -nbar * scale;
    const auto mubar = nbar * c[D];
    const auto cbar = nbar * mu; // of c_D = m_j (c_i + c_j)
    for (int e = 0; e < D; ++e) {
      kbar[e] = mubar * c[e];
      pbar.f_i[e] += mubar * k[e];
      pbar.f_j[e] -= mubar * k[e];
    }
    pbar.m_j += cbar * (p.f_i[D] + p.f_j[D]);
    pbar.f_i[D] += cbar * p.m_j;
    pbar.f_j[D] += cbar * p.m_j;
    pbar.rho_i += dbar;
    pbar.rho_j += dbar;
    return kbar;
  }
};

/// (u, c) packed per particle for `ArtificialViscosity`: a record-map functor of a velocity and
/// a sound speed.
struct PackVelocitySoundSpeed {
  /// (u_0, …, u_{D−1}, c).
  template <class U, class C>
  SPHAD_HOST_DEVICE auto operator()(const U& u, const C& c) const {
    constexpr int D = U::dim;
    using S = decltype(u[0] + c);
    Vec<S, D + 1> out;
    for (int e = 0; e < D; ++e) {
      out[e] = u[e];
    }
    out[D] = c;
    return out;
  }
};

/// Laminar viscosity of constant kinematic viscosity for ν = 1 (Lo & Shao 2002; DualSPHysics):
///   a_i = Σ_j m_j 4 (x_ij·Ĝ_ij) / ((ρ_i + ρ_j)(r² + η²)) u_ij,
/// η² = εℓ², ℓ = h_ij/κ, ε = `Eta2` (a `std::ratio`; 0.01 as in Morris' paper). The acceleration
/// for ν is ν times this. The field is the velocity (or any field to diffuse); the output is
/// shaped like it. The regularizer biases the Laplacian low by about ε(ℓ/Δx)² at the nearest
/// neighbours (1 % for ℓ = 1.5Δx); with `std::ratio<0>` it is exact, and pairs at r = 0 (the
/// particle itself) are skipped, as x·Ĝ/r² = W'(r)/r stays finite for the kernels sphad ships.
/// The kernel part (x_ij·Ĝ_ij)/(r² + η²) is a gradient form, as the Laplacian's: reverse mode
/// differentiates it by its own transpose (`form_linearization`), and on the host L pairs
/// at once where the kernel is lanewise.
template <class Kernel,
          int Kappa = 2,
          SupportScheme Support = SupportScheme::Gather,
          class Eta2 = detail::MorrisEta2>
struct LaminarViscosity : detail::TermBase<Kernel, Support> {
  static_assert(Kappa >= 1, "sphad::solver: the support-to-length ratio Kappa is at least 1");
  static_assert(Eta2::num >= 0, "sphad::solver: the regularizer fraction Eta2 is not negative");
  static constexpr bool needs_densities = true, needs_values = true;
  template <int D, class T, class F>
  using output_t = F;
  static constexpr ops::KernelPart kernel_part_kind = ops::KernelPart::gradient_form;
  /// Arithmetic alone (`safe_divide` a lane select on packs).
  static constexpr bool lanewise_combine = true;

  /// (x_ij·Ĝ_ij)/(r² + η²); 0 at r = 0 (the particle itself: x_ij = 0, and 0/0 if η = 0 or
  /// h = 0), as the SIMD path and the transpose give it.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part(const P& p) {
    using T = typename P::scalar;
    const auto x = detail::pair_vector(p);
    if (!(value_of(dot(x, x)) > 0)) {
      return T(0);
    }
    return gradient_form(detail::pair_gradient(p), x, T(0), T(p.support()));
  }

  /// r² + η² of pair vector x and pair support h (η² = ε (h/κ)²).
  template <class T, int D>
  SPHAD_HOST_DEVICE SPHAD_INLINE static T denominator(const Vec<T, D>& x, const T& h_ij) {
    if constexpr (Eta2::num == 0) {
      (void)h_ij;
      return dot(x, x);
    } else {
      const T l = h_ij / primal_t<T>(Kappa);
      return dot(x, x) + primal_t<T>(double(Eta2::num) / double(Eta2::den)) * l * l;
    }
  }
  /// The kernel part of a pair with x_ij = x (r = |x| > 0, unread), h_ij and Ĝ = g: (x·g)/(r² +
  /// η²). Arithmetic alone, in any scalar: plain, dual, or the host's SIMD packs (the pair
  /// blocks, which take r = 0 to 0 themselves).
  template <class T, int D>
  SPHAD_HOST_DEVICE SPHAD_INLINE static T
  gradient_form(const Vec<T, D>& g, const Vec<T, D>& x, const T& r, const T& h_ij) {
    (void)r;
    return T(dot(x / denominator(x, h_ij), g));
  }
  /// The kernel part linearized (r > 0): with m = x·g and d = r² + η², per unit cotangent
  /// Ĝ̄ = x/d, x̄ = g/d − 2m x/d², h̄ = −m/d² · 2εℓ/κ. Arithmetic alone, in plain scalars or the
  /// host's SIMD packs; zero at r = 0 (where x and, for the kernels sphad ships, Ĝ vanish)
  /// through `ops::gradient_form_linearization`.
  template <class T, int D>
  SPHAD_HOST_DEVICE SPHAD_INLINE static ops::FormLinearization<T, D>
  form_linearization(const Vec<T, D>& x, const T& r, const T& h_ij, const Vec<T, D>& g) {
    const T d = denominator(x, h_ij);
    const T inv = T(1) / d;
    const T m = dot(x, g);
    ops::FormLinearization<T, D> out;
    out.value = gradient_form(g, x, r, h_ij);
    out.unit.gradient = x * inv;
    out.unit.x = g * inv - x * (T(2) * m * inv * inv);
    if constexpr (Eta2::num != 0) {
      const T l = h_ij / primal_t<T>(Kappa);
      const T eps = primal_t<T>(double(Eta2::num) / double(Eta2::den));
      out.unit.support = -(m * inv * inv) * (T(2) * eps * l / primal_t<T>(Kappa));
    }
    return out;
  }

  /// 4 m_j k/(ρ_i + ρ_j) u_ij.
  template <class P, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const K& k) {
    return (p.f_i - p.f_j) * safe_divide(4 * p.m_j * k, p.rho_i + p.rho_j);
  }
  /// `combine` transposed by hand (reverse mode's combination, in plain scalars): with
  /// w = 4 m_j k/(ρ_i + ρ_j), ū_i = w ȳ = −ū_j, w̄ = ȳ·u_ij, and w's quotient (0, with zero
  /// derivatives, where ρ_i + ρ_j = 0) transposed; returns k̄.
  static constexpr bool transposed_combine = true;
  template <class P, class K, class Y>
  SPHAD_HOST_DEVICE SPHAD_INLINE static K
  combine_adjoint(const P& p, const K& k, const Y& ybar, P& pbar) {
    const auto d = p.rho_i + p.rho_j;
    const K n = 4 * p.m_j * k;
    const K w = safe_divide(n, d);
    pbar.f_i += ybar * w;
    pbar.f_j -= ybar * w;
    const K nbar = safe_divide(ops::detail::inner(ybar, p.f_i - p.f_j), d); // w̄/d
    const K dbar = -nbar * w;
    pbar.rho_i += dbar;
    pbar.rho_j += dbar;
    pbar.m_j += nbar * 4 * k;
    return nbar * 4 * p.m_j;
  }
};

} // namespace sphad::solver
