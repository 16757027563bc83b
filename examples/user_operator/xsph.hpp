// SPDX-License-Identifier: MIT
// An operator the library has never heard of: XSPH velocity smoothing (Monaghan 1989),
//   Δv_i = Σ_j 2 m_j/(ρ_i + ρ_j) (v_j − v_i) Ŵ_ij,   v̂_i = v_i + ε Δv_i,
// written in the split form: its kernel part is the kernel quantity Ŵ_ij (deriving from
// `ops::KernelQuantity` says so, and reverse mode then uses the library's hand-written kernel
// adjoints), and `combine` joins it with the particle inputs it sees (masses, densities, values;
// no geometry). That is everything `apply`, `jvp`, `record` and the Hessian-vector product need:
// no derivative code is written for it. `ops::check_operator<XSPH<...>>()` states the contract.
#pragma once

#include <sphad/sphad.hpp>

namespace user {

template <class Kernel, sphad::SupportScheme Support = sphad::SupportScheme::Gather>
struct XSPH : sphad::ops::KernelQuantity<sphad::ops::KernelPart::corrected_value> {
  using kernel_type = Kernel;
  static constexpr sphad::SupportScheme support = Support;
  static constexpr bool needs_densities = true; // reads ρ_i and ρ_j
  static constexpr bool needs_values = true;    // reads v_i and v_j
  static constexpr bool uses_grad_h = false;    // grad-h does not divide the velocities
  /// One velocity correction per particle, shaped like the field.
  template <int D, class T, class F>
  using output_t = F;

  /// The pair term from the particle inputs p and the kernel part w = Ŵ_ij.
  template <class P, class W>
  SPHAD_HOST_DEVICE static auto combine(const P& p, const W& w) {
    const auto weight = p.m_j * w / (p.rho_i + p.rho_j);
    return (p.f_j - p.f_i) * (weight + weight);
  }
};

static_assert(sphad::ops::check_operator<XSPH<sphad::kernels::Wendland4>>());

} // namespace user
