// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_math.hpp>
#include <sphad/scalar_traits.hpp>

#include <cmath>

/// \file
/// \brief Equations of state of weakly-compressible SPH: Tait/Cole p = B[(ρ/ρ₀)^γ − 1] + p_b
/// with B = ρ₀c₀²/γ, its linear member (γ = 1), the sound speed and the inverse. Functors
/// generic over the scalar (plain or dual, every parameter too), so they run in `record_map`,
/// on dual numbers and in CUDA.

namespace sphad::solver {

/// Tait/Cole: p(ρ) = B[(ρ/ρ₀)^γ − 1] + p_b, B = ρ₀c₀²/γ; c(ρ) = c₀(ρ/ρ₀)^((γ−1)/2);
/// ρ(p) = ρ₀[1 + (p − p_b)/B]^(1/γ). γ = 7 for water; γ = 1 is the linear equation
/// p = c₀²(ρ − ρ₀) + p_b. The background pressure p_b must be 0 with a free surface.
/// `R` is the parameters' scalar: `double`, or a dual number to differentiate with respect to
/// ρ₀, c₀, γ or p_b (then the powers are exp(γ log x), defined for x = ρ/ρ₀ > 0).
template <class R = double>
struct Tait {
  R rho0 = R(1);  ///< reference density ρ₀
  R c0 = R(1);    ///< reference sound speed c₀
  R gamma = R(7); ///< exponent γ
  R p_b = R(0);   ///< background pressure

  /// B = ρ₀c₀²/γ.
  SPHAD_HOST_DEVICE R stiffness() const { return rho0 * c0 * c0 / gamma; }

  /// p(ρ) = B[(ρ/ρ₀)^γ − 1] + p_b.
  template <class T>
  SPHAD_HOST_DEVICE auto pressure(const T& rho) const {
    return stiffness() * (power(rho / rho0, gamma) - 1) + p_b;
  }
  /// p(ρ), so that `record_map(tape, n, eos, rho)` records the pressures.
  template <class T>
  SPHAD_HOST_DEVICE auto operator()(const T& rho) const {
    return pressure(rho);
  }
  /// c(ρ) = c₀ (ρ/ρ₀)^((γ − 1)/2).
  template <class T>
  SPHAD_HOST_DEVICE auto sound_speed(const T& rho) const {
    return c0 * power(rho / rho0, (gamma - 1) / 2);
  }
  /// ρ(p) = ρ₀ [1 + (p − p_b)/B]^(1/γ), the inverse of `pressure`; defined for p − p_b > −B
  /// (NaN below, as the power of a negative number).
  template <class T>
  SPHAD_HOST_DEVICE auto density(const T& p) const {
    return rho0 * power(1 + (p - p_b) / stiffness(), 1 / gamma);
  }

  /// x^e for x > 0: `pow` with a plain exponent (exact for whole numbers), exp(e log x) when the
  /// exponent carries tangents.
  template <class X, class E>
  SPHAD_HOST_DEVICE static auto power(const X& x, const E& e) {
    using std::exp;
    using std::log;
    using std::pow;
    if constexpr (is_dual_v<E>) {
      return exp(e * log(x));
    } else if constexpr (is_dual_v<X>) {
      return pow(x, e);
    } else {
      return X(pow(x, e));
    }
  }
};

/// The linear equation of state p = c₀²(ρ − ρ₀) + p_b (Tait with γ = 1), written without powers.
template <class R = double>
struct LinearEOS {
  R rho0 = R(1); ///< reference density ρ₀
  R c0 = R(1);   ///< sound speed c₀ (constant)
  R p_b = R(0);  ///< background pressure

  /// p(ρ) = c₀²(ρ − ρ₀) + p_b.
  template <class T>
  SPHAD_HOST_DEVICE auto pressure(const T& rho) const {
    return c0 * c0 * (rho - rho0) + p_b;
  }
  /// p(ρ), for `record_map`.
  template <class T>
  SPHAD_HOST_DEVICE auto operator()(const T& rho) const {
    return pressure(rho);
  }
  /// c(ρ) = c₀.
  template <class T>
  SPHAD_HOST_DEVICE auto sound_speed(const T& rho) const {
    return rho * 0 + c0;
  }
  /// ρ(p) = ρ₀ + (p − p_b)/c₀².
  template <class T>
  SPHAD_HOST_DEVICE auto density(const T& p) const {
    return rho0 + (p - p_b) / (c0 * c0);
  }
};

/// What `Of` maps: the pressure p(ρ), the sound speed c(ρ), or the density ρ(p).
enum class StateMap { pressure, sound_speed, density };

/// One map of an equation of state as a record-map functor: `record_map(tape, n,
/// Of<StateMap::sound_speed, EOS>{eos}, rho)` records the sound speeds (the equation of state
/// itself maps to pressures).
template <StateMap M, class EOS>
struct Of {
  EOS eos; ///< the equation of state
  /// p(x), c(x) or ρ(x).
  template <class T>
  SPHAD_HOST_DEVICE auto operator()(const T& x) const {
    if constexpr (M == StateMap::pressure) {
      return eos.pressure(x);
    } else if constexpr (M == StateMap::sound_speed) {
      return eos.sound_speed(x);
    } else {
      return eos.density(x);
    }
  }
};

} // namespace sphad::solver
