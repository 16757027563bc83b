// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/safe.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/solver/detail/term_base.hpp>

/// \file
/// \brief `solver::PressureForce`: the symmetric SPH pressure acceleration, antisymmetric in
/// i and j so that linear momentum is conserved, as an operator of the public operator concept.

namespace sphad::solver {

/// How the pair's pressures are averaged in `PressureForce`.
enum class PressureForm {
  Monaghan, ///< m_j (p_i/ρ_i² + p_j/ρ_j²) (Monaghan 1992)
  Averaged  ///< m_j (p_i + p_j)/(ρ_i ρ_j) (DualSPHysics, δ-SPH)
};

/// a_i = −Σ_j m_j (p_i/ρ_i² + p_j/ρ_j²) Ĝ_ij (`Monaghan`) or −Σ_j m_j (p_i + p_j)/(ρ_i ρ_j) Ĝ_ij
/// (`Averaged`), Ĝ_ij = ∇_i W_ij with the call's corrections. The field is the pressure p
/// (scalars), the densities are required; the output is a vector per particle. A uniform
/// pressure still pushes where Σ_j Ĝ_ij ≠ 0 (disordered particles, free surfaces): the
/// background pressure p_b of the equation of state acts as a repulsion against clumping. A
/// quotient by a zero density is 0 (zero derivatives), as in the operators.
template <class Kernel,
          PressureForm Form = PressureForm::Monaghan,
          SupportScheme Support = SupportScheme::Gather>
struct PressureForce : detail::TermBase<Kernel, Support>,
                       ops::KernelQuantity<ops::KernelPart::corrected_gradient> {
  static constexpr bool needs_densities = true, needs_values = true;
  /// Pressures are scalars.
  template <int D, class F>
  static constexpr bool accepts_field = is_scalar_v<F>;
  template <int D, class T, class F>
  using output_t = Vec<T, D>;
  /// Arithmetic alone (`safe_divide` a lane select on packs): the host's blocks combine it.
  static constexpr bool lanewise_combine = true;
  /// c_ij = −m_j (p_i/ρ_i² + p_j/ρ_j²) or −m_j (p_i + p_j)/(ρ_i ρ_j).
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto particle_part(const P& p) {
    if constexpr (Form == PressureForm::Monaghan) {
      return -p.m_j *
             (safe_divide(p.f_i, p.rho_i * p.rho_i) + safe_divide(p.f_j, p.rho_j * p.rho_j));
    } else {
      return safe_divide(-p.m_j * (p.f_i + p.f_j), p.rho_i * p.rho_j);
    }
  }
  /// c_ij Ĝ_ij.
  template <class C, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto form(const C& c, const G& g) {
    return g * c;
  }
  /// form(particle_part(p), Ĝ) transposed by hand (reverse mode's combination, in plain
  /// scalars): c̄ = ȳ·Ĝ, Ḡ = c ȳ, and c's quotients (0, with zero derivatives, by a zero
  /// density) transposed.
  static constexpr bool transposed_combine = true;
  template <class P, class G, class Y>
  SPHAD_HOST_DEVICE SPHAD_INLINE static G
  combine_adjoint(const P& p, const G& g, const Y& ybar, P& pbar) {
    const auto c = particle_part(p);
    const auto cbar = dot(ybar, g);
    if constexpr (Form == PressureForm::Monaghan) {
      // c = −m_j (a_i + a_j), a = p/ρ²: ā = −m_j c̄, p̄ = ā/ρ², ρ̄ = −2 ā a/ρ.
      const auto a_i = safe_divide(p.f_i, p.rho_i * p.rho_i);
      const auto a_j = safe_divide(p.f_j, p.rho_j * p.rho_j);
      const auto abar = -p.m_j * cbar;
      pbar.m_j += -(a_i + a_j) * cbar;
      pbar.f_i += safe_divide(abar, p.rho_i * p.rho_i);
      pbar.f_j += safe_divide(abar, p.rho_j * p.rho_j);
      pbar.rho_i += -2 * safe_divide(abar * a_i, p.rho_i);
      pbar.rho_j += -2 * safe_divide(abar * a_j, p.rho_j);
    } else {
      // c = n/d, n = −m_j (p_i + p_j), d = ρ_i ρ_j: n̄ = c̄/d, d̄ = −c̄ c/d.
      const auto d = p.rho_i * p.rho_j;
      const auto nbar = safe_divide(cbar, d);
      const auto dbar = -nbar * c;
      pbar.m_j += -nbar * (p.f_i + p.f_j);
      pbar.f_i += -nbar * p.m_j;
      pbar.f_j += -nbar * p.m_j;
      pbar.rho_i += dbar * p.rho_j;
      pbar.rho_j += dbar * p.rho_i;
    }
    return ybar * c;
  }
};

} // namespace sphad::solver
