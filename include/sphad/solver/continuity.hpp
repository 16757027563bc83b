// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/math/vec.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/scalar_traits.hpp>
#include <sphad/solver/detail/term_base.hpp>

/// \file
/// \brief `solver::ContinuityRate`: the rate of density change dρ_i/dt of the continuity
/// equation, as an operator of the public operator concept.

namespace sphad::solver {

/// Which continuity sum `ContinuityRate` evaluates.
enum class ContinuityForm {
  Mass,  ///< dρ_i/dt = Σ_j m_j u_ij·Ĝ_ij (Monaghan 1992)
  Volume ///< dρ_i/dt = ρ_i Σ_j V_j u_ij·Ĝ_ij (Adami 2012; DualSPHysics, δ-SPH)
};

/// dρ_i/dt = Σ_j m_j u_ij·Ĝ_ij (`Mass`) or ρ_i Σ_j V_j u_ij·Ĝ_ij (`Volume`), u_ij = u_i − u_j.
/// The field is the velocity; the densities are required; the output is a scalar per particle.
/// Free-surface solvers integrate it rather than using the summation density, which
/// under-estimates ρ near the surface.
template <class Kernel,
          ContinuityForm Form = ContinuityForm::Volume,
          SupportScheme Support = SupportScheme::Gather>
struct ContinuityRate : detail::TermBase<Kernel, Support>,
                        ops::KernelQuantity<ops::KernelPart::corrected_gradient> {
  static constexpr bool needs_densities = true, needs_values = true;
  /// Velocities: vectors of D components.
  template <int D, class F>
  static constexpr bool accepts_field = is_vec_v<F>&& F::dim == D;
  template <int D, class T, class F>
  using output_t = T;
  static constexpr bool lanewise_combine = true; ///< arithmetic alone
  /// (weight) u_ij·Ĝ_ij.
  template <class P, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const G& g) {
    constexpr int D = P::dim;
    auto s = (p.f_i[0] - p.f_j[0]) * g[0];
    for (int e = 1; e < D; ++e) {
      s += (p.f_i[e] - p.f_j[e]) * g[e];
    }
    if constexpr (Form == ContinuityForm::Mass) {
      return p.m_j * s;
    } else {
      return p.rho_i * p.volume_j * s;
    }
  }
  /// `combine` transposed by hand (reverse mode's combination: plain scalars instead of dual
  /// numbers over every tracked input): for ȳ, adds the adjoints of the weight's inputs and of
  /// u_i, u_j into `pbar`, returns Ĝ's.
  static constexpr bool transposed_combine = true;
  template <class P, class G, class Y>
  SPHAD_HOST_DEVICE SPHAD_INLINE static G
  combine_adjoint(const P& p, const G& g, const Y& ybar, P& pbar) {
    constexpr int D = P::dim;
    auto s = (p.f_i[0] - p.f_j[0]) * g[0];
    for (int e = 1; e < D; ++e) {
      s += (p.f_i[e] - p.f_j[e]) * g[e];
    }
    auto weight = p.m_j;
    if constexpr (Form == ContinuityForm::Mass) {
      pbar.m_j += ybar * s;
    } else {
      weight = p.rho_i * p.volume_j;
      pbar.rho_i += ybar * s * p.volume_j;
      pbar.volume_j += ybar * s * p.rho_i;
    }
    const auto sbar = ybar * weight;
    G gbar;
    for (int e = 0; e < D; ++e) {
      pbar.f_i[e] += sbar * g[e];
      pbar.f_j[e] -= sbar * g[e];
      gbar[e] = sbar * (p.f_i[e] - p.f_j[e]);
    }
    return gbar;
  }
};

} // namespace sphad::solver
