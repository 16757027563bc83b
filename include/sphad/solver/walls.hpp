// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/math/scalar.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/particles.hpp>
#include <sphad/scalar_traits.hpp>
#include <sphad/solver/detail/term_base.hpp>

#include <cmath>
#include <cstdint>

/// \file
/// \brief Solid walls of fixed dummy particles (Adami, Hu & Adams 2012): the fluid sums a wall
/// particle extrapolates its pressure and velocity from (`WallSums`, an operator of the public
/// operator concept), and the record-map functors that turn them into the wall's pressure
/// (`WallPressure`), density (`WallDensity`, the inverse equation of state) and no-slip velocity
/// (`NoSlipVelocity`); the gravity ramp of Adami's Eq. 13 (`gravity_ramp`).
///
/// Fluid and walls are one particle set told apart by their kinds (Fluid, Boundary): the wall
/// sums run with `OperationDirection::FluidToBoundary` (wall rows, fluid neighbours), the
/// fluid's rates with `AllToFluid` (fluid rows, every neighbour) — or `FluidToFluid` for a term
/// the walls should not act in, as the viscous term of a free-slip wall.

namespace sphad::solver {

/// The fluid sums of a wall particle w over its fluid neighbours f:
///   (Σ_f p_f W_wf,  Σ_f ρ_f r_wf W_wf,  Σ_f u_f W_wf,  Σ_f W_wf),  r_wf = r_w − r_f,
/// as one `Vec<T, 2D + 2>` (1, D, D and 1 components). The field is (p, u) per particle, a
/// `Vec<T, D + 1>` (`PackPressureVelocity` makes it); the densities are required. Call it with
/// `OperationDirection::FluidToBoundary`: other rows get zeros. Written as a whole pair term
/// (differentiated in dual numbers).
template <class Kernel, SupportScheme Support = SupportScheme::Gather>
struct WallSums : detail::TermBase<Kernel, Support> {
  static constexpr bool needs_densities = true, needs_values = true;
  /// (p, u): D + 1 components.
  template <int D, class F>
  static constexpr bool accepts_field = is_vec_v<F>&& F::dim == D + 1;
  template <int D, class T, class F>
  using output_t = Vec<T, 2 * D + 2>;
  /// (p_f, ρ_f r_wf, u_f, 1) W_wf.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto term(const P& p) {
    using T = typename P::scalar; // the pair's scalar (the field's may differ)
    constexpr int D = P::dim;
    const T w = T(p.w());
    const auto x = detail::pair_vector(p);
    const T rho_w = T(p.rho_j) * w;
    using S = decltype(p.f_j[0] * w + x[0] * rho_w);
    Vec<S, 2 * D + 2> out;
    out[0] = S(p.f_j[0] * w);
    for (int e = 0; e < D; ++e) {
      out[1 + e] = S(x[e] * rho_w);
      out[1 + D + e] = S(p.f_j[1 + e] * w);
    }
    out[2 * D + 1] = S(w);
    return out;
  }
};

/// (p, u) → `Vec<T, D + 1>`, the field of `WallSums`, as a record-map functor.
struct PackPressureVelocity {
  template <class P, class U>
  SPHAD_HOST_DEVICE auto operator()(const P& p, const U& u) const {
    constexpr int D = U::dim;
    using S = decltype(p + u[0]);
    Vec<S, D + 1> out;
    out[0] = S(p);
    for (int e = 0; e < D; ++e) {
      out[1 + e] = S(u[e]);
    }
    return out;
  }
};

namespace detail {
/// Whether a kind is a wall's (Boundary).
SPHAD_HOST_DEVICE SPHAD_INLINE bool is_wall(std::int32_t kind) {
  return kind == static_cast<std::int32_t>(ParticleKind::Boundary);
}
} // namespace detail

/// The pressure of every particle, as a record-map functor of (sums, p, kind): a fluid
/// particle keeps its p; a wall particle takes Adami's Eq. 27
///   p_w = [Σ_f p_f W_wf + (g − a_w)·Σ_f ρ_f r_wf W_wf] / Σ_f W_wf,
/// with `body_force` = g − a_w (a fixed wall: a_w = 0). A wall below the fluid gets more than
/// the fluid above it (the hydrostatic head across the gap). A wall particle without fluid
/// neighbours (Σ W = 0) gets p = 0 with zero tangent. `clamp_negative` floors the wall pressure
/// at 0 (against a free surface sticking to a wall; a kink, with zero tangent where it acts).
/// The body force is a constant of the map (it carries no tangent).
template <int D, class R = double>
struct WallPressure {
  Vec<R, D> body_force{}; ///< g − a_w
  bool clamp_negative = false;

  template <class S, class P>
  SPHAD_HOST_DEVICE auto operator()(const S& sums, const P& p, std::int32_t kind) const {
    using T = decltype(sums[0] + p);
    if (!detail::is_wall(kind)) {
      return T(p);
    }
    const auto& weight = sums[2 * D + 1];
    if (!(value_of(weight) > 0)) {
      return T(sums[0] * 0); // no fluid in reach: zero, with a zero tangent
    }
    T numerator = T(sums[0]);
    for (int e = 0; e < D; ++e) {
      numerator = numerator + body_force[e] * sums[1 + e];
    }
    const T out = numerator / weight;
    if (clamp_negative && value_of(out) < 0) {
      return T(out * 0);
    }
    return out;
  }
};

/// The density of every particle, as a record-map functor of (p, ρ, kind): a fluid particle
/// keeps its ρ; a wall particle takes the inverse equation of state ρ(p_w) (Adami's Eq. 28), so
/// that the pressure force between fluid and wall sees the wall's pressure. `EOS` is one of
/// the equations of state (`Tait`: p_w must stay above p_b − B, see `clamp_negative`).
template <class EOS>
struct WallDensity {
  EOS eos; ///< the fluid's equation of state

  template <class P, class Rho>
  SPHAD_HOST_DEVICE auto operator()(const P& p, const Rho& rho, std::int32_t kind) const {
    using T = decltype(eos.density(p) + rho);
    return detail::is_wall(kind) ? T(eos.density(p)) : T(rho);
  }
};

/// The velocity of every particle as the viscous term should see it, as a record-map functor
/// of (sums, u, kind): a fluid particle keeps its u; a wall particle with prescribed velocity
/// u_w (its entry of u) takes 2u_w − û_w, û_w = Σ_f u_f W_wf / Σ_f W_wf (Adami's Eqs. 22–23:
/// the no-slip condition; the continuity equation keeps the prescribed u_w). Without fluid
/// neighbours a wall keeps u_w.
template <int D>
struct NoSlipVelocity {
  template <class S, class U>
  SPHAD_HOST_DEVICE auto operator()(const S& sums, const U& u, std::int32_t kind) const {
    using T = decltype(sums[0] + u[0]);
    Vec<T, D> out;
    const auto& weight = sums[2 * D + 1];
    const bool extrapolate = detail::is_wall(kind) && value_of(weight) > 0;
    for (int e = 0; e < D; ++e) {
      out[e] = extrapolate ? T(2 * u[e] - sums[1 + D + e] / weight) : T(u[e]);
    }
    return out;
  }
};

/// Adami's gravity ramp (Eq. 13): the factor ½[sin((t/t_damp − ½)π) + 1] for t < t_damp, 1
/// after, so that a column at rest starts without a pressure wave. Host and device.
template <class R>
SPHAD_HOST_DEVICE R gravity_ramp(R t, R t_damp) {
  if (!(t < t_damp) || !(t_damp > 0)) {
    return R(1);
  }
  using std::sin;
  return R(0.5) * (sin((t / t_damp - R(0.5)) * pi_v<R>) + 1);
}

} // namespace sphad::solver
