// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/lanewise.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/scalar_traits.hpp>
#include <sphad/solver/detail/term_base.hpp>

/// \file
/// \brief `solver::DensityDiffusion`: the δ-SPH density diffusion term added to the continuity
/// equation, as an operator of the public operator concept.

namespace sphad::solver {

/// Which ψ_ij `DensityDiffusion` uses.
enum class DiffusionForm {
  MolteniColagrossi, ///< ψ_ij = 2(ρ_i − ρ_j) x_ij/r² (Molteni & Colagrossi 2009)
  Antuono ///< ψ_ij = 2(ρ_i − ρ_j) x_ij/r² − (⟨∇ρ⟩_i^L + ⟨∇ρ⟩_j^L) (Antuono et al. 2010)
};

/// D_i = Σ_j ψ_ij·Ĝ_ij V_j, the δ-SPH diffusion for δℓc₀ = 1: dρ_i/dt gets δ ℓ c₀ D_i (δ = 0.1,
/// ℓ the paper length, c₀ the sound speed), which the caller multiplies in. Pairs at r = 0 (the
/// particle itself) are skipped: x_ij/r² is singular there. `MolteniColagrossi` reads only the
/// densities (pass any field); `Antuono` reads the field as ⟨∇ρ⟩^L, the renormalized density
/// gradient Σ_j (ρ_j − ρ_i) L_i Ĝ_ij V_j — `ops::Gradient<K, GradientScheme::Difference>` of the
/// densities with `ops::Renormalization` — and then vanishes for a linear density (a hydrostatic
/// column is not diffused).
template <class Kernel,
          DiffusionForm Form = DiffusionForm::MolteniColagrossi,
          SupportScheme Support = SupportScheme::Gather>
struct DensityDiffusion : detail::TermBase<Kernel, Support> {
  static constexpr bool needs_densities = true;
  /// Kernel part and combination written for SIMD packs too: the host's plain calls evaluate L
  /// pairs at once.
  static constexpr bool lanewise_term = true;
  static constexpr bool needs_values = Form == DiffusionForm::Antuono;
  /// Antuono's field is the density gradient: vectors of D components.
  template <int D, class F>
  static constexpr bool accepts_field = Form == DiffusionForm::MolteniColagrossi ||
                                        (is_vec_v<F> && F::dim == D);
  template <int D, class T, class F>
  using output_t = T;
  /// (2 x_ij·Ĝ_ij/r², Ĝ_ij), zero at r = 0.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part(const P& p) {
    using T = typename P::scalar;
    constexpr int D = P::dim;
    const auto x = detail::pair_vector(p);
    const auto g = detail::pair_gradient(p);
    const T r2 = dot(x, x);
    return when(
        value_of(r2) > 0, // lane by lane on packs
        [&]() SPHAD_LAMBDA_INLINE {
          Vec<T, D + 1> out;
          out[0] = 2 * dot(x, g) / r2;
          for (int e = 0; e < D; ++e) {
            out[1 + e] = g[e];
          }
          return out;
        },
        Vec<T, D + 1>{});
  }
  /// (ρ_i − ρ_j) V_j k_0, minus (⟨∇ρ⟩_i + ⟨∇ρ⟩_j)·Ĝ_ij V_j for `Antuono`.
  template <class P, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const K& k) {
    const auto mc = (p.rho_i - p.rho_j) * k[0];
    if constexpr (Form == DiffusionForm::MolteniColagrossi) {
      return mc * p.volume_j;
    } else {
      constexpr int D = P::dim;
      auto along = (p.f_i[0] + p.f_j[0]) * k[1];
      for (int e = 1; e < D; ++e) {
        along += (p.f_i[e] + p.f_j[e]) * k[1 + e];
      }
      return (mc - along) * p.volume_j;
    }
  }
  /// `combine` transposed by hand (reverse mode's combination, in plain scalars): with t the
  /// bracket, V̄_j = ȳ t, t̄ = ȳ V_j, ρ̄_i = −ρ̄_j = t̄ k_0, k̄_0 = t̄ (ρ_i − ρ_j), and for
  /// `Antuono` ⟨∇ρ⟩̄_i = ⟨∇ρ⟩̄_j = −t̄ Ĝ, Ĝ̄ = −t̄ (⟨∇ρ⟩_i + ⟨∇ρ⟩_j); returns k̄.
  static constexpr bool transposed_combine = true;
  template <class P, class K, class Y>
  SPHAD_HOST_DEVICE SPHAD_INLINE static K
  combine_adjoint(const P& p, const K& k, const Y& ybar, P& pbar) {
    constexpr int D = P::dim;
    auto bracket = (p.rho_i - p.rho_j) * k[0];
    if constexpr (Form == DiffusionForm::Antuono) {
      auto along = (p.f_i[0] + p.f_j[0]) * k[1];
      for (int e = 1; e < D; ++e) {
        along += (p.f_i[e] + p.f_j[e]) * k[1 + e];
      }
      bracket = bracket - along;
    }
    pbar.volume_j += ybar * bracket;
    const auto tbar = ybar * p.volume_j;
    pbar.rho_i += tbar * k[0];
    pbar.rho_j -= tbar * k[0];
    K kbar{};
    kbar[0] = tbar * (p.rho_i - p.rho_j);
    if constexpr (Form == DiffusionForm::Antuono) {
      for (int e = 0; e < D; ++e) {
        pbar.f_i[e] -= tbar * k[1 + e];
        pbar.f_j[e] -= tbar * k[1 + e];
        kbar[1 + e] = -tbar * (p.f_i[e] + p.f_j[e]);
      }
    }
    return kbar;
  }
};

} // namespace sphad::solver
