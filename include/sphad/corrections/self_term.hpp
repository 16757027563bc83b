// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_math.hpp>
#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/plain_tape.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/kernels/kernel_traits.hpp>
#include <sphad/kernels/properties.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/ops/apply.hpp>
#include <sphad/ops/record.hpp>

#include <cmath>
#include <cstdint>

/// \file
/// \brief The Dehnen & Aly (2012) density self-term correction: a per-particle remap of a
/// finished summation density,
///   ρ_i ← ρ̂_i − ε_i m_i W(0, h_i),   ε_i = ε₁₀₀ (N_H,i/100)^(−α),   N_H,i = V_d h_i^d ρ̂_i/m_i,
/// with W(0, h) = C_d k(0)/h^d at the support radius h and V_d the unit-ball volume. Kernels
/// that over-estimate the density on a lattice (the Wendlands) carry a self-contribution bias
/// that falls as a power of the neighbour count; the correction removes the fitted fraction ε
/// of the self term. It is a different correction from lattice calibration (a constant factor
/// on every kernel value): do not combine the two without refitting ε.

namespace sphad::corrections {

/// ε(N_H) = ε₁₀₀ (N_H/100)^(−α), fitted over neighbour counts [min_neighbours, max_neighbours].
/// ε₁₀₀ = 0 turns the correction into the identity.
struct SelfTermFit {
  double eps_100 = 0;
  double alpha = 0;
  double min_neighbours = 40;  ///< where the fit starts (informative; not enforced)
  double max_neighbours = 400; ///< where the fit ends (informative; not enforced)
};

namespace detail {
/// The shipped fits: the Wendland kernels in 2D and 3D, refitted by the reference on the
/// densest lattice (2D hexagonal, 3D FCC) at ρ = 1 over 40 ≤ N_H ≤ 400.
inline bool shipped_self_term_fit(KernelId kernel, int dim, SelfTermFit& fit) {
  struct Row {
    KernelId kernel;
    int dim;
    double eps_100, alpha;
  };
  static constexpr Row rows[] = {
      {KernelId::Wendland2, 2, 0.0030233012061203278, 1.5016297296462702},
      {KernelId::Wendland4, 2, 0.00035064837551512925, 2.4815365353197136},
      {KernelId::Wendland6, 2, 8.005994569170169e-05, 3.4708508575608708},
      {KernelId::Wendland2, 3, 0.029488222560940334, 0.9989656162766523},
      {KernelId::Wendland4, 3, 0.013611521340766316, 1.6332544351850704},
      {KernelId::Wendland6, 3, 0.011308235376902351, 2.218472363304362},
  };
  for (const Row& row : rows) {
    if (row.kernel == kernel && row.dim == dim) {
      fit = SelfTermFit{row.eps_100, row.alpha, 40, 400};
      return true;
    }
  }
  return false;
}

/// ρ − ε m C_d k(0)/h^d on any scalars (their promotion): the primal, its JVP (dual inputs) and
/// the tape's backward (`record_map`) share it. Where N_H is not positive (no mass or no
/// density) the density is returned unchanged. Its constants are the call's, made once on the
/// host by `check_self_term`.
template <int D>
struct SelfTermCorrection {
  double eps_100;
  double alpha;
  double ball;    ///< V_d, the unit-ball volume
  double central; ///< C_d k(0), W(0, h) h^d
  template <class Rho, class H, class M>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto operator()(const Rho& rho, const H& h, const M& m) const {
    using T = promote_all_t<Rho, H, M>;
    using S = primal_t<T>;
    const T density = T(rho), mass = T(m);
    const T volume = ipow<D>(T(h));
    const T neighbours = S(ball) * volume * density / mass;
    if (!(value_of(neighbours) > 0)) {
      return density;
    }
    using std::pow;
    const T eps = S(eps_100) * pow(T(neighbours / S(100)), -S(alpha));
    return T(density - eps * mass * S(central) / volume);
  }
};

template <class Correction, class T, class Rho, class H, class M>
struct StoreSelfTerm {
  Correction correction;
  T* out;
  Rho densities;
  H supports;
  M masses;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i) const {
    out[i] = T(correction(densities[i], supports[i], masses[i]));
  }
};

/// The checks every entry point makes, before any work (densities present, a finite fit, a
/// kernel with a finite central value), and the correction they admit.
template <class Kernel, class Set>
SelfTermCorrection<Set::dim>
check_self_term(const Set& particles, const SelfTermFit& fit, const char* function) {
  SPHAD_REQUIRE(particles.densities.size() == particles.size(), function, "particles",
                sphad::detail::concat("needs densities, the raw estimate to correct (got ",
                                      particles.densities.size(), " for ", particles.size(), ")"));
  SPHAD_REQUIRE(std::isfinite(fit.eps_100) && fit.eps_100 >= 0, function, "fit.eps_100",
                sphad::detail::concat("must be finite and >= 0 (got ", fit.eps_100, ")"));
  SPHAD_REQUIRE(std::isfinite(fit.alpha), function, "fit.alpha",
                sphad::detail::concat("must be finite (got ", fit.alpha, ")"));
  const double central = Kernel::template normalization<Set::dim, double>() *
                         double(Kernel::template k<Set::dim>(0.0));
  SPHAD_REQUIRE(std::isfinite(central), function, "Kernel",
                sphad::detail::concat(kernels::kernel_name_v<Kernel>(),
                                      " has no finite central value W(0, h) to correct with"));
  return {fit.eps_100, fit.alpha, kernels::unit_ball_volume(Set::dim), central};
}
} // namespace detail

/// The shipped fit for `kernel` in `dim` dimensions: the Wendland kernels in 2D and 3D. Throws
/// `InvalidArgument` for any other kernel or dimension: in 1D the raw density is already exact
/// to about 1e-6 on a lattice, and the B-splines' lattice bias changes sign with N_H, so no
/// power law fits it. Pass a `SelfTermFit` of your own for those.
inline SelfTermFit self_term_fit(KernelId kernel, int dim) {
  kernels::check_dimension("corrections::self_term_fit", dim);
  SelfTermFit fit;
  SPHAD_REQUIRE(detail::shipped_self_term_fit(kernel, dim, fit), "corrections::self_term_fit",
                "kernel",
                sphad::detail::concat("has no shipped self-term fit in ", dim, "D (got kernel id ",
                                      static_cast<int>(kernel),
                                      "; fits exist for Wendland2, 4 and 6 in 2D and 3D)"));
  return fit;
}

/// The self-term corrected densities of one set ([N]) from its `densities` (the raw summation
/// estimate ρ̂, e.g. a Density's output), supports and masses. Inputs with tangents (dual views)
/// give dual densities: their JVP. Throws `InvalidArgument` when the set has no densities, the
/// fit is not finite (or ε₁₀₀ < 0), or the kernel has no finite W(0, h).
template <class Kernel,
          class Exec,
          class Set,
          class T = promote_all_t<view_scalar_t<decltype(Set::densities)>,
                                  view_scalar_t<decltype(Set::supports)>,
                                  view_scalar_t<decltype(Set::masses)>>>
Buffer<T, Exec>
self_term_corrected_densities(const Exec& exec, const Set& particles, const SelfTermFit& fit) {
  constexpr const char* function = "corrections::self_term_corrected_densities";
  const auto correction = detail::check_self_term<Kernel>(particles, fit, function);
  Buffer<T, Exec> out(exec, particles.size());
  exec::for_each_index(
      exec, particles.size(),
      detail::StoreSelfTerm<decltype(correction), T, decltype(particles.densities),
                            decltype(particles.supports), decltype(particles.masses)>{
          correction, out.data(), particles.densities, particles.supports, particles.masses});
  return out;
}

/// Reverse mode: the corrected densities recorded on `tape` as a `record_map`, so gradients
/// flow to the set's densities (e.g. a recorded Density's output), supports and masses where
/// they are `Variable`s. Returns a tape-owned `Variable` [N]. Throws like
/// `self_term_corrected_densities`, before the tape changes.
template <class Kernel,
          template <class>
          class TapeT,
          class Exec,
          class Set,
          std::enable_if_t<is_tape_v<TapeT<Exec>>, int> = 0>
auto record_self_term_corrected_densities(TapeT<Exec>& tape,
                                          const Set& particles,
                                          const SelfTermFit& fit) {
  const auto correction = detail::check_self_term<Kernel>(
      particles, fit, "corrections::record_self_term_corrected_densities");
  return record_map(tape, particles.size(), correction, particles.densities, particles.supports,
                    particles.masses);
}

} // namespace sphad::corrections
