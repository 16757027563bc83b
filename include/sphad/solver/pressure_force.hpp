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
};

} // namespace sphad::solver
