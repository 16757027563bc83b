// SPDX-License-Identifier: MIT
// Adami walls: the record-map functors that turn the wall sums into a wall's pressure,
// density and no-slip velocity (values, tangents, the empty-neighbourhood and clamp cases),
// the gravity ramp; and the wall-bounded example solver (examples/wall_flows/wall_flows.hpp)
// differentiated through a dam-break run: dE(t)/dα by a checkpointed rollout gradient
// against central differences, across Verlet-list rebuilds; and the validated Buchner dam break
// (examples/dam_break/pressure.cpp) differentiated: d(P1 at its peak)/dα the same way.
#include "wall_flows/pressure_sensor.hpp"
#include "wall_flows/wall_flows.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace wall_flows;

namespace {
using D1 = Dual<double, 1>;
using S6 = Vec<D1, 6>;
constexpr std::int32_t fluid_kind = 0, wall_kind = 1;

/// Sums (Σ p W, Σ ρ r W, Σ u W, Σ W) with a tangent seeded on every entry.
S6 seeded_sums(const std::array<double, 6>& values) {
  S6 s;
  for (int k = 0; k < 6; ++k) {
    s[k] = D1(values[std::size_t(k)], {1.0});
  }
  return s;
}
} // namespace

TEST_CASE("WallPressure, WallDensity, NoSlipVelocity: values and tangents", "[solver][walls]") {
  const solver::WallPressure<2> pressure{{0.0, -2.0}};
  const S6 sums = seeded_sums({3.0, 0.5, -1.5, 0.2, 0.4, 2.0});
  const D1 p_fluid(7.0, {0.25});
  // Wall: (Σ pW + g·Σ ρrW)/ΣW = (3 + (−2)(−1.5))/2 = 3; tangent (1 − 2·1)/2 − 3·1/2 = −2.
  const D1 pw = pressure(sums, p_fluid, wall_kind);
  CHECK(pw.value == Approx(3.0).epsilon(1e-15));
  CHECK(pw.tangent[0] == Approx(-2.0).epsilon(1e-15));
  // Fluid: its own pressure and tangent.
  const D1 pf = pressure(sums, p_fluid, fluid_kind);
  CHECK(pf.value == 7.0);
  CHECK(pf.tangent[0] == 0.25);
  // No fluid in reach: zero with a zero tangent.
  const D1 lonely = pressure(seeded_sums({0, 0, 0, 0, 0, 0}), p_fluid, wall_kind);
  CHECK(lonely.value == 0);
  CHECK(lonely.tangent[0] == 0);
  // The clamp floors a negative wall pressure (zero tangent there) and leaves a positive one.
  const solver::WallPressure<2> clamped{{0.0, -2.0}, true};
  const D1 negative = clamped(seeded_sums({-3.0, 0, 0, 0, 0, 1.0}), p_fluid, wall_kind);
  CHECK(negative.value == 0);
  CHECK(negative.tangent[0] == 0);
  CHECK(clamped(sums, p_fluid, wall_kind).value == Approx(3.0).epsilon(1e-15));

  // Density: the inverse equation of state on walls, the fluid's own density elsewhere.
  const solver::Tait<> eos{1000.0, 20.0, 7.0, 0.0};
  const solver::WallDensity<solver::Tait<>> density{eos};
  const D1 rho_w = density(pw, D1(999.0), wall_kind);
  CHECK(rho_w.value == Approx(eos.density(3.0)).epsilon(1e-15));
  CHECK(eos.pressure(rho_w.value) == Approx(3.0).epsilon(1e-9));
  // dρ/dp = 1/(dp/dρ) = 1/c² at that density.
  const double c = eos.sound_speed(rho_w.value);
  CHECK(rho_w.tangent[0] == Approx(-2.0 / (c * c)).epsilon(1e-12));
  CHECK(density(pw, D1(999.0), fluid_kind).value == 999.0);

  // No-slip velocity: 2u_w − Σ uW/ΣW on walls, u elsewhere; u_w kept without fluid in reach.
  const solver::NoSlipVelocity<2> no_slip;
  const Vec<D1, 2> u_w{D1(1.0), D1(0.0)};
  const auto uw = no_slip(sums, u_w, wall_kind);
  CHECK(uw[0].value == Approx(2 - 0.1).epsilon(1e-15)); // û = (0.2, 0.4)/2
  CHECK(uw[1].value == Approx(0 - 0.2).epsilon(1e-15));
  CHECK(uw[0].tangent[0] == Approx(-(1.0 / 2 - 0.2 / 4)).epsilon(1e-15));
  CHECK(no_slip(sums, u_w, fluid_kind)[0].value == 1.0);
  CHECK(no_slip(seeded_sums({0, 0, 0, 0, 0, 0}), u_w, wall_kind)[0].value == 1.0);
}

TEST_CASE("gravity_ramp: Adami's sine ramp from 0 to 1 over t_damp", "[solver][walls]") {
  CHECK(solver::gravity_ramp(0.0, 1.0) == Approx(0.0).margin(1e-15));
  CHECK(solver::gravity_ramp(0.5, 1.0) == Approx(0.5).epsilon(1e-15));
  CHECK(solver::gravity_ramp(0.25, 1.0) == Approx(0.5 * (1 - std::sqrt(0.5))).epsilon(1e-14));
  CHECK(solver::gravity_ramp(1.0, 1.0) == 1.0);
  CHECK(solver::gravity_ramp(3.0, 1.0) == 1.0);
  CHECK(solver::gravity_ramp(0.1, 0.0) == 1.0); // no ramp
}

namespace {
using Stored = sim::Stored<exec::host>;

/// A small dam break: 6 × 12 fluid particles, α = 0.05.
Setup small() {
  Setup s = dam_break(6);
  s.alpha = 0.05;
  return s;
}

/// ½ m |v|² of the fluid (walls have v = 0).
struct KineticEnergy {
  template <class M, class V>
  SPHAD_HOST_DEVICE auto operator()(const M& m, const V& v) const {
    return 0.5 * m * (v[0] * v[0] + v[1] * v[1]);
  }
};
struct FinalEnergy {
  Span<const double> masses;
  template <class ParamKind>
  Variable<double>
  operator()(Tape<exec::host>& tape, const Fluid<sim::Tracked>& s, const Params<ParamKind>&) const {
    return record_reduce(tape, s.x.size(), KineticEnergy{}, masses, s.v);
  }
};

double final_energy(double alpha, std::int64_t steps, double dt) {
  Case<exec::host> c{small(), exec::host{}};
  std::fill(c.params.alpha.data(), c.params.alpha.data() + c.n, alpha);
  sim::rollout(c.exec, steps, c.state, c.params, c.step(dt));
  double e = 0;
  for (std::int64_t i = 0; i < c.n; ++i) {
    e += KineticEnergy{}(c.masses.data()[i], c.state.v.data()[i]);
  }
  return e;
}
} // namespace

TEST_CASE("dam break: dE(T)/dα through 150 steps against central differences",
          "[solver][walls][rollout][long]") {
  const Setup s = small();
  const double dt = s.dt();
  const std::int64_t steps = 150;
  Case<exec::host> c{s, exec::host{}};
  auto ds0 = sim::clone(c.exec, c.state);
  auto dparams = sim::clone(c.exec, c.params);
  const auto step = c.step(dt);
  const auto result = sim::rollout_gradient(c.exec, steps, c.state, c.params, step,
                                            FinalEnergy{{c.masses.data(), c.n}}, ds0, dparams, {3});
  double dalpha = 0;
  for (std::int64_t i = 0; i < c.n; ++i) {
    dalpha += dparams.alpha.data()[i];
  }
  CHECK(step.cache->rebuilds() >= 2); // the list was rebuilt along the way
  const double e = 1e-6;
  const double fd =
      (final_energy(s.alpha + e, steps, dt) - final_energy(s.alpha - e, steps, dt)) / (2 * e);
  CHECK(result.loss.data()[0] == Approx(final_energy(s.alpha, steps, dt)).epsilon(1e-13));
  CHECK(dalpha < 0); // more viscosity, less energy
  CHECK(std::abs(dalpha - fd) <= 1e-5 * std::abs(fd));
}

namespace {
/// P1's reading of the final state, recorded.
struct P1Reading {
  const Constants* k;
  const SensorProbes* probes;
  template <class ParamKind>
  Variable<double>
  operator()(Tape<exec::host>& tape, const Fluid<sim::Tracked>& s, const Params<ParamKind>&) const {
    return sensor_pressure(tape, *k, *probes, s.x, s.rho);
  }
};

/// P1 after `steps` steps of a run with α = `alpha`, and every `every` steps on the way.
std::vector<double>
p1_history(const Setup& s, double alpha, std::int64_t steps, std::int64_t every, double dt) {
  Case<exec::host> c{s, exec::host{}};
  std::fill(c.params.alpha.data(), c.params.alpha.data() + c.n, alpha);
  const auto step = c.step(dt);
  const SensorProbes probes(buchner_p1(s), s);
  PlainTape<exec::host> tape(c.exec);
  std::vector<double> out;
  for (std::int64_t done = 0; done < steps; done += every) {
    sim::rollout(c.exec, every, c.state, c.params, step, done);
    tape.reset();
    const Span<const V2> x{c.state.x.data(), c.n};
    const Span<const double> rho{c.state.rho.data(), c.n};
    out.push_back(sensor_pressure(tape, step.k, probes, x, rho).data()[0]);
  }
  return out;
}
} // namespace

TEST_CASE("Buchner dam break: dP1/dα at the impact's peak through a rollout against central "
          "differences",
          "[solver][walls][rollout][long]") {
  // 10 particles per H (200 fluid particles), Antuono's δ-SPH; P1 read every 20 steps from the
  // release to t sqrt(g/H) = 3.2, past the front's arrival (2.5); the loss is P1 at the sample
  // where it peaks (its derivative is the peak's, the sample fixed).
  Setup s = marrone_dam_break(10);
  s.alpha = 0.05;
  const double dt = s.dt();
  const std::int64_t every = 20;
  const auto samples = std::int64_t(std::ceil(3.2 * std::sqrt(0.6 / s.g) / dt / double(every)));
  const auto history = p1_history(s, s.alpha, samples * every, every, dt);
  const auto peak = std::max_element(history.begin(), history.end()) - history.begin();
  const std::int64_t steps = (peak + 1) * every;
  REQUIRE(history[std::size_t(peak)] > 0.1 * s.rho0 * s.g * 0.6); // the front has arrived
  Case<exec::host> c{s, exec::host{}};
  auto ds0 = sim::clone(c.exec, c.state);
  auto dparams = sim::clone(c.exec, c.params);
  const auto step = c.step(dt);
  const SensorProbes probes(buchner_p1(s), s);
  const auto result = sim::rollout_gradient(c.exec, steps, c.state, c.params, step,
                                            P1Reading{&step.k, &probes}, ds0, dparams, {16});
  double dalpha = 0;
  for (std::int64_t i = 0; i < c.n; ++i) {
    dalpha += dparams.alpha.data()[i];
  }
  CHECK(result.loss.data()[0] == Approx(history[std::size_t(peak)]).epsilon(1e-13));
  // Central differences at e = 1e-6. They agree with the rollout gradient to 1e-5 relative (2e-6
  // measured): the differences themselves scatter by that much between e = 1e-5 and 1e-6
  // (550920 and 550918), their rounding through 1500 steps of an impact.
  const double e = 1e-6;
  const double fd = (p1_history(s, s.alpha + e, steps, steps, dt).back() -
                     p1_history(s, s.alpha - e, steps, steps, dt).back()) /
                    (2 * e);
  INFO("dP1/dalpha " << dalpha << ", central differences " << fd << ", peak at step " << steps);
  CHECK(std::abs(dalpha) > 0);
  CHECK(std::abs(dalpha - fd) <= 1e-5 * std::abs(fd));
}
