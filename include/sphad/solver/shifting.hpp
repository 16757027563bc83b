// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_math.hpp>
#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/scalar_traits.hpp>
#include <sphad/solver/detail/term_base.hpp>

/// \file
/// \brief Fickian particle shifting (Lind et al. 2012, coefficient after Skillen et al. 2013):
/// the concentration gradient ∇C (`ConcentrationGradient`, and with the anti-clumping term
/// `AntiClumpingGradient`), the free-surface indicator ∇·r
/// (`PositionDivergence`), both operators of the public operator concept, and the displacement
/// δr = −A ℓ |u| Δt ∇C with DualSPHysics' free-surface scaling and cap (`FickianShift`).

namespace sphad::solver {

/// ∇C_i = Σ_j V_j Ĝ_ij (Lind's concentration gradient without the anti-clumping term). Reads
/// volumes (densities are required), no field; the output is a vector per particle.
template <class Kernel, SupportScheme Support = SupportScheme::Gather>
struct ConcentrationGradient : detail::TermBase<Kernel, Support>,
                               ops::KernelQuantity<ops::KernelPart::corrected_gradient> {
  static constexpr bool needs_densities = true, needs_values = false;
  template <int D, class F>
  static constexpr bool accepts_field = true; // values are not read
  template <int D, class T, class F>
  using output_t = Vec<T, D>;
  static constexpr bool lanewise_combine = true; ///< arithmetic alone
  /// V_j Ĝ_ij.
  template <class P, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const G& g) {
    return g * p.volume_j;
  }
};

/// ∇C_i = Σ_j V_j [1 + R (W_ij/W(Δx))^N] Ĝ_ij: the concentration gradient with Lind's
/// anti-clumping term, which pushes apart pairs closer than the particle spacing Δx (W_ij above
/// W(Δx)) — the lines of particles a Lagrangian flow compresses near its stagnation points,
/// which the plain gradient, symmetric there, does not see (Lind 2012: R = 0.2, N = 4). The
/// field is (Δx_i, R_i) per particle, a `Vec<T, 2>` (so R can be a tracked parameter); W(Δx) is
/// the kernel at distance Δx_i under the pair's support scheme; where Δx_i reaches the support
/// (W(Δx) = 0) the anti-clumping term is 0 (the plain ∇C for that particle, zero derivatives).
/// Reads volumes; a vector per particle. Written as a whole pair term (differentiated in dual
/// numbers), one written for SIMD packs too: the host's plain calls evaluate L pairs at once.
template <class Kernel, int N = 4, SupportScheme Support = SupportScheme::Gather>
struct AntiClumpingGradient : detail::TermBase<Kernel, Support> {
  static_assert(N >= 1, "sphad::solver::AntiClumpingGradient: the exponent N is at least 1");
  static constexpr bool needs_densities = true, needs_values = true;
  static constexpr bool lanewise_term = true; ///< arithmetic, kernel values and a lane select
  /// (Δx, R).
  template <int D, class F>
  static constexpr bool accepts_field = is_vec_v<F>&& F::dim == 2;
  template <int D, class T, class F>
  using output_t = Vec<T, D>;
  /// V_j [1 + R (W_ij/W(Δx))^N] Ĝ_ij.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto term(const P& p) {
    using T = typename P::scalar;
    constexpr int D = P::dim;
    Vec<T, D> at_spacing{};
    at_spacing[0] = T(p.f_i[0]);
    const T w_spacing =
        T(kernels::pair_value<Kernel, Support>(at_spacing, p.h_i, p.h_j) * p.factor);
    // Δx at or past the support (W(Δx) = 0): no anti-clumping term, not a division by zero.
    const T ratio = T(safe_divide(T(p.w()), w_spacing));
    T power = ratio;
    for (int k = 1; k < N; ++k) {
      power = power * ratio;
    }
    const T weight = T(p.volume_j) * (1 + T(p.f_i[1]) * power);
    return detail::pair_gradient(p) * weight;
  }
  /// `term` transposed by hand (reverse mode's term, in plain scalars, the supports and
  /// corrections untracked): with the kernel linearized at x_ij and at the spacing
  /// (`kernels::pair_linearization`), Ĝ̄ = weight ȳ, weight̄ = ȳ·Ĝ, V̄_j and R̄ from the weight,
  /// the ratio's quotient (0, with zero derivatives, where W(Δx) = 0) transposed, then x̄ and
  /// Δx̄ by the kernel's adjoints for W̄ and Ĝ̄; returns x̄_ij.
  static constexpr bool transposed_term = true;
  template <class P, class Y, class PP>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto term_adjoint(const P& p, const Y& ybar, PP& pbar) {
    using T = typename P::scalar;
    constexpr int D = P::dim;
    const auto linear = kernels::pair_linearization<Kernel, Support>(p.x_ij, p.h_i, p.h_j);
    Vec<T, D> at_spacing{};
    at_spacing[0] = p.f_i[0];
    const auto spacing = kernels::pair_linearization<Kernel, Support>(at_spacing, p.h_i, p.h_j);
    const T w_spacing = spacing.w() * p.factor;
    const T ratio = safe_divide(linear.w() * p.factor, w_spacing);
    T below = 1; // ratio^(N−1)
    for (int k = 1; k < N; ++k) {
      below = below * ratio;
    }
    const T power = below * ratio;
    const auto g = linear.gradient() * p.factor;
    const T weight_bar = dot(ybar, g);
    pbar.volume_j += weight_bar * (1 + p.f_i[1] * power);
    pbar.f_i[1] += weight_bar * p.volume_j * power;
    const T ratio_bar = weight_bar * p.volume_j * p.f_i[1] * T(N) * below;
    const T w_bar = safe_divide(ratio_bar, w_spacing);
    const T spacing_bar = -w_bar * ratio;
    pbar.f_i[0] += spacing.position_adjoint(spacing_bar * p.factor)[0];
    const T weight = p.volume_j * (1 + p.f_i[1] * power);
    return linear.position_adjoint(w_bar * p.factor, ybar * (weight * p.factor));
  }
};

/// (Δx, R) per particle for `AntiClumpingGradient`, as a record-map functor of the particle
/// volume V (Δx = V^(1/D)) with a fixed R.
template <int D>
struct SpacingAndClumping {
  double r = 0.2; ///< R
  /// (V^(1/D), R).
  template <class V>
  SPHAD_HOST_DEVICE auto operator()(const V& volume) const {
    using std::cbrt;
    using std::sqrt;
    using S = decltype(volume + r);
    if constexpr (D == 1) {
      return Vec<S, 2>{S(volume), S(r)};
    } else if constexpr (D == 2) {
      return Vec<S, 2>{S(sqrt(volume)), S(r)};
    } else {
      return Vec<S, 2>{S(cbrt(volume)), S(r)};
    }
  }
};

/// ∇·r_i = −Σ_j V_j x_ij·Ĝ_ij: about D in the bulk, smaller near a free surface (DualSPHysics'
/// indicator). Reads volumes, no field; a scalar per particle.
template <class Kernel, SupportScheme Support = SupportScheme::Gather>
struct PositionDivergence : detail::TermBase<Kernel, Support> {
  static constexpr bool needs_densities = true, needs_values = false;
  template <int D, class F>
  static constexpr bool accepts_field = true; // values are not read
  template <int D, class T, class F>
  using output_t = T;
  /// −x_ij·Ĝ_ij.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part(const P& p) {
    using T = typename P::scalar;
    const auto x = detail::pair_vector(p);
    return T(-dot(x, detail::pair_gradient(p)));
  }
  /// V_j k.
  template <class P, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const K& k) {
    return k * p.volume_j;
  }
};

/// The Fickian shift δr_i = −A ℓ |u_i| Δt ∇C_i as a record-map functor of (∇C, u) or, with the
/// free-surface indicator, of (∇C, u, ∇·r). Near a free surface (∇·r < A_FST) the shift is 0;
/// between A_FST and A_FSM it is scaled by (∇·r − A_FST)/(A_FSM − A_FST) (DualSPHysics). Each
/// component is capped at ±`cap` (DualSPHysics: 0.1Δx; 0 for no cap). |u| has zero derivative
/// at u = 0; the surface mask and the cap carry no tangent where they act.
template <class R = double>
struct FickianShift {
  R coefficient = R(2);       ///< A (DualSPHysics 2, PySPH 4; Skillen: 1 to 6)
  R length = R(0);            ///< ℓ, the paper length
  R dt = R(0);                ///< Δt
  R cap = R(0);               ///< per-component cap (0: none)
  R surface_threshold = R(0); ///< A_FST (2D 1.5, 3D 2.75)
  R bulk_value = R(2);        ///< A_FSM: D
  /// A speed to use instead of each particle's |u_i| (0: |u_i|, Skillen's choice). A global
  /// speed such as U_max (δ⁺-SPH's scaling) keeps shifting particles where the flow stagnates,
  /// as at the hyperbolic points of a Taylor–Green vortex, where a lattice stretches fastest.
  R speed = R(0);

  /// δr without a free surface.
  template <class G, class U>
  SPHAD_HOST_DEVICE auto operator()(const G& grad_c, const U& u) const {
    constexpr int D = G::dim;
    const auto magnitude = value_of(speed) > 0 ? decltype(safe_norm(u))(speed) : safe_norm(u);
    const auto scale = -coefficient * length * dt * magnitude;
    using S = decltype(scale * grad_c[0]);
    Vec<S, D> out;
    for (int e = 0; e < D; ++e) {
      out[e] = capped(scale * grad_c[e]);
    }
    return out;
  }
  /// δr scaled by the free-surface indicator ∇·r.
  template <class G, class U, class Q>
  SPHAD_HOST_DEVICE auto operator()(const G& grad_c, const U& u, const Q& div_r) const {
    auto out = (*this)(grad_c, u);
    using S = std::remove_reference_t<decltype(out[0])>;
    if (!(value_of(div_r) >= value_of(surface_threshold))) {
      return decltype(out){};
    }
    if (value_of(div_r) < value_of(bulk_value)) {
      const auto w = (div_r - surface_threshold) / (bulk_value - surface_threshold);
      for (int e = 0; e < G::dim; ++e) {
        out[e] = S(out[e] * w);
      }
    }
    return out;
  }

private:
  template <class S>
  SPHAD_HOST_DEVICE S capped(const S& s) const {
    if (value_of(cap) > 0) {
      if (value_of(s) > value_of(cap)) {
        return S(value_of(cap));
      }
      if (value_of(s) < -value_of(cap)) {
        return S(-value_of(cap));
      }
    }
    return s;
  }
};

} // namespace sphad::solver
