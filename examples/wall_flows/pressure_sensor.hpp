// SPDX-License-Identifier: MIT
// A pressure sensor on a tank's wall, read the way experiments' sensors are compared with SPH:
// the fluid's pressure interpolated at points along the sensor's face and averaged. At each
// point y_k, the Shepard-normalized kernel interpolation over the fluid particles,
//   p̃(y_k) = Σ_f V_f p_f W(y_k − x_f) / Σ_f V_f W(y_k − x_f),   V_f = m_f/ρ_f,
// negatives clipped to 0 (the sensor reads no suction) and 0 where no fluid is in reach; the
// sensor reads p̄ = (1/n) Σ_k p̃(y_k) over n points spread evenly from its bottom to its top
// (ends included). The walls' own (Adami-extrapolated) pressures are not used. Written once over
// the tape type: on a `PlainTape` it evaluates, on a `Tape` it records, so a rollout's loss can
// be a sensor's reading and its gradient flows through positions and densities.
#pragma once

#include "wall_flows.hpp"

#include <cstdint>
#include <vector>

namespace wall_flows {

/// A sensor: the segment from `bottom` to `top` (on the wall's face), read at `points` points.
struct Sensor {
  V2 bottom, top;
  int points = 10;
};

/// Buchner's P1 in `marrone_dam_break`'s tank: 0.009 high, centred 0.2H above the floor (0.12 m,
/// where Adami et al.'s group's SPHinXsys and PySPH read it), on the right wall's face.
inline Sensor buchner_p1(const Setup& s) {
  const double centre = 0.2 * (s.fluid_upper[1] - s.fluid_lower[1]), height = 0.009;
  return {{s.tank_upper[0], centre - height / 2}, {s.tank_upper[0], centre + height / 2}, 10};
}

/// (p, 1): the interpolation of both gives p̃'s numerator and its Shepard weight in one pass.
struct WithOne {
  template <class P>
  SPHAD_HOST_DEVICE auto operator()(const P& p) const {
    return Vec<P, 2>{p, P(1)};
  }
};

/// max(Σ V p W / Σ V W, 0) · weight, 0 without fluid in reach.
struct ClippedRatio {
  double weight = 1;
  template <class S>
  SPHAD_HOST_DEVICE auto operator()(const S& sums) const {
    using T = decltype(sums[0] / sums[1]);
    if (!(value_of(sums[1]) > 0)) {
      return T(sums[0] * 0);
    }
    const T p = sums[0] / sums[1];
    return value_of(p) > 0 ? T(p * weight) : T(p * 0);
  }
};

/// The sensor's points as a particle set (kind fluid, so that a fluid-to-fluid direction keeps
/// the walls out of the sums), with the case's support.
class SensorProbes {
public:
  SensorProbes(const Sensor& sensor, const Setup& setup) {
    const int n = sensor.points;
    for (int k = 0; k < n; ++k) {
      const double w = n > 1 ? double(k) / double(n - 1) : 0.5;
      x_.push_back(sensor.bottom + (sensor.top - sensor.bottom) * w);
    }
    h_.assign(x_.size(), setup.h_over_dx * setup.dx);
    m_.assign(x_.size(), 0.0);
    rho_.assign(x_.size(), setup.rho0);
    kinds_.assign(x_.size(), static_cast<std::int32_t>(ParticleKind::Fluid));
    zeros_.assign(x_.size(), V2{0, 0});
  }
  std::int64_t size() const { return std::int64_t(x_.size()); }
  /// The points (massless, at ρ₀: the operators require densities of queries too).
  auto set() const {
    const std::int64_t n = size();
    const ParticleSet<2, double> points{
        {x_.data(), n}, {h_.data(), n}, {m_.data(), n}, {kinds_.data(), n}};
    return points.with_densities(Span<const double>{rho_.data(), n});
  }
  /// The query values Interpolate takes beside the references' (unused by it).
  Span<const V2> zeros() const { return {zeros_.data(), size()}; }

private:
  std::vector<V2> x_;
  std::vector<double> h_, m_, rho_;
  std::vector<std::int32_t> kinds_;
  std::vector<V2> zeros_;
};

/// The sensor's reading p̄ (in pascals) from particles `x`, densities `rho` (the case's masses,
/// supports and kinds in `k`; only the fluid is read), on `tape`: a `Variable` of one element.
/// `x` and `rho` are the state's fields (`Variable`s on a `Tape`; on a `PlainTape` also `Span`s);
/// `K` the kernel of the interpolation.
template <class K = Kernel, class T, class X, class Rho>
Variable<double> sensor_pressure(
    T& tape, const Constants& k, const SensorProbes& probes, const X& x, const Rho& rho) {
  const std::int64_t n = x.size();
  const ParticleSet<2, double> all{primal_view(x), k.supports, k.masses, k.kinds};
  const auto at = probes.set();
  const auto list = build_neighbor_list<SupportScheme::Gather>(tape.exec(), at.search_points(),
                                                               all.search_points(), k.domain);
  const solver::Tait<> eos = k.setup.eos();
  const auto p = record_map(tape, n, WithOne{}, record_map(tape, n, eos, rho));
  const ApplyOptions<double> fluid_only{OperationDirection::FluidToFluid};
  const auto sums = record<ops::Interpolate<K>>(
      tape, ops::pairs(at, all.with_positions(x).with_densities(rho), k.domain, list, fluid_only),
      probes.zeros(), p);
  return record_reduce(tape, probes.size(), ClippedRatio{1.0 / double(probes.size())}, sums);
}

} // namespace wall_flows
