// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/safe.hpp>
#include <sphad/ad/scalar_traits.hpp>
#include <sphad/math/vec.hpp>
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
  /// m_j c̄ μ/ρ̄ Ĝ for approaching pairs.
  template <class P, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const K& k) {
    constexpr int D = P::dim;
    auto mu = (p.f_i[0] - p.f_j[0]) * k[0];
    for (int e = 1; e < D; ++e) {
      mu += (p.f_i[e] - p.f_j[e]) * k[e];
    }
    const auto scale = safe_divide(p.m_j * (p.f_i[D] + p.f_j[D]) * mu, p.rho_i + p.rho_j);
    using S = decltype(scale * k[D]);
    Vec<S, D> out{};
    if (value_of(mu) < 0) {
      for (int e = 0; e < D; ++e) {
        out[e] = scale * k[D + e];
      }
    }
    return out;
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
template <class Kernel,
          int Kappa = 2,
          SupportScheme Support = SupportScheme::Gather,
          class Eta2 = detail::MorrisEta2>
struct LaminarViscosity : detail::TermBase<Kernel, Support> {
  static constexpr bool needs_densities = true, needs_values = true;
  template <int D, class T, class F>
  using output_t = F;
  /// (x_ij·Ĝ_ij)/(r² + η²).
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part(const P& p) {
    using T = typename P::scalar;
    const auto g = detail::pair_gradient(p);
    return T(dot(detail::regularized_direction<Eta2>(p, detail::paper_length<Kappa>(p)), g));
  }
  /// 4 m_j k/(ρ_i + ρ_j) u_ij.
  template <class P, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const K& k) {
    return (p.f_i - p.f_j) * safe_divide(4 * p.m_j * k, p.rho_i + p.rho_j);
  }
};

} // namespace sphad::solver
