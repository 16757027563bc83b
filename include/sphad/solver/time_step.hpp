// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/exec/reduce.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/span.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

/// \file
/// \brief Time-step rules of explicit weakly-compressible SPH (Morris et al. 1997, Adami et al.
/// 2012): the acoustic (CFL) limit C ℓ/(c₀ + U), the viscous limit C ℓ²/ν and the force limit
/// C sqrt(ℓ/|a|), their minimum, and the largest speed and acceleration of a particle set. The
/// step is a host number, not differentiated: a differentiable run fixes Δt.

namespace sphad::solver {

/// The coefficients of the three rules (Morris, Adami; PySPH's examples).
struct TimeStepRules {
  double acoustic = 0.25; ///< C of C ℓ/(c₀ + U_max)
  double viscous = 0.125; ///< C of C ℓ²/ν
  double force = 0.25;    ///< C of C sqrt(ℓ/|a|_max)
};

/// What the rules read: the paper length ℓ, the sound speed, the largest speed and
/// acceleration, the kinematic viscosity (0: none; an artificial viscosity's equivalent
/// ν = αℓc₀/(2(D + 2)) when that is the only one).
struct TimeStepInputs {
  double length = 0;           ///< ℓ
  double sound_speed = 0;      ///< c₀
  double max_speed = 0;        ///< U_max
  double max_acceleration = 0; ///< |a|_max
  double viscosity = 0;        ///< ν
};

/// The three limits and their minimum (a rule whose input is 0 gives +∞).
struct TimeStepLimits {
  double acoustic = 0, viscous = 0, force = 0;
  /// The step: the smallest limit.
  double step() const { return std::min(acoustic, std::min(viscous, force)); }
};

/// The limits for `in` under `rules`. Throws `InvalidArgument` naming `inputs` (and the field)
/// when ℓ is not positive, c₀ + U_max is not positive or overflows, an input is negative or not
/// finite (a NaN speed or acceleration from `max_norm` means a particle's velocity is NaN), or
/// the limits underflow to a zero step; and naming `rules` when a coefficient is not finite and
/// positive. A step it returns is always positive.
inline TimeStepLimits time_step_limits(const TimeStepInputs& in, const TimeStepRules& rules = {}) {
  constexpr const char* function = "solver::time_step_limits";
  const std::pair<const char*, double> inputs[] = {{"length", in.length},
                                                   {"sound_speed", in.sound_speed},
                                                   {"max_speed", in.max_speed},
                                                   {"max_acceleration", in.max_acceleration},
                                                   {"viscosity", in.viscosity}};
  for (const auto& [name, v] : inputs) {
    SPHAD_REQUIRE(std::isfinite(v) && v >= 0, function, "inputs",
                  sphad::detail::concat(name, " is negative or not finite (got ", v, ")"));
  }
  const std::pair<const char*, double> coefficients[] = {
      {"acoustic", rules.acoustic}, {"viscous", rules.viscous}, {"force", rules.force}};
  for (const auto& [name, c] : coefficients) {
    SPHAD_REQUIRE(std::isfinite(c) && c > 0, function, "rules",
                  sphad::detail::concat(name, " must be finite and positive (got ", c, ")"));
  }
  SPHAD_REQUIRE(in.length > 0, function, "inputs",
                sphad::detail::concat("length must be positive (got ", in.length, ")"));
  SPHAD_REQUIRE(in.sound_speed + in.max_speed > 0, function, "inputs",
                "sound_speed + max_speed must be positive");
  SPHAD_REQUIRE(std::isfinite(in.sound_speed + in.max_speed), function, "inputs",
                "sound_speed + max_speed overflows");
  constexpr double none = std::numeric_limits<double>::infinity();
  TimeStepLimits out;
  out.acoustic = rules.acoustic * in.length / (in.sound_speed + in.max_speed);
  out.viscous = in.viscosity > 0 ? rules.viscous * in.length * in.length / in.viscosity : none;
  out.force =
      in.max_acceleration > 0 ? rules.force * std::sqrt(in.length / in.max_acceleration) : none;
  SPHAD_REQUIRE(out.step() > 0, function, "inputs",
                sphad::detail::concat("give a step that underflows to 0 (acoustic ", out.acoustic,
                                      ", viscous ", out.viscous, ", force ", out.force,
                                      "): the inputs' scales are out of range"));
  return out;
}

namespace detail {
/// |v_i| (a row function for the reduction).
template <int D, class T>
struct Norms {
  const Vec<T, D>* v;
  T* out;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    T s = 0;
    for (int e = 0; e < D; ++e) {
      s += v[i][e] * v[i][e];
    }
    using std::sqrt;
    out[i] = sqrt(s);
  }
};
} // namespace detail

/// max_i |v_i| (0 for no rows): a speed or an acceleration for the rules; NaN when any |v_i| is
/// NaN, wherever it sits (`time_step_limits` then throws). Reads the maximum back to the host
/// (synchronizes on CUDA).
template <int D, class T, class Exec>
T max_norm(const Exec& exec, Span<const Vec<T, D>> v) {
  Buffer<T, Exec> norms(exec, v.size());
  exec::for_each_index(exec, v.size(), detail::Norms<D, T>{v.data(), norms.data()});
  return exec::reduce_max(exec, norms.data(), v.size(), T(0)); // host sync: inside reduce_max
}

} // namespace sphad::solver
