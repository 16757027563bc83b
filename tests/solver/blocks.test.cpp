// SPDX-License-Identifier: MIT
// The solver's blocks that are not pair terms: equations of state (values, inverse, the
// derivative with respect to γ), time-step rules, the integrators over a user state (order of
// convergence; their recorded gradient against central differences), and the neighbour cache
// (the same pairs as a fresh search; which updates rebuilt).
#include <sphad/sphad.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

using namespace sphad;

namespace {
using V2 = Vec<double, 2>;
using D1 = Dual<double, 1>;

template <class E>
Span<const E> view(const std::vector<E>& v) {
  return {v.data(), std::int64_t(v.size())};
}
} // namespace

TEST_CASE("Tait: values, sound speed, inverse, and ∂p/∂γ", "[solver][eos]") {
  const solver::Tait<> eos{1000.0, 20.0, 7.0, 5.0};
  CHECK(eos.pressure(1000.0) == Approx(5.0).epsilon(1e-15));
  CHECK(eos.stiffness() == Approx(1000.0 * 400 / 7));
  const double rho = 1012.0;
  CHECK(eos.pressure(rho) == Approx(eos.stiffness() * (std::pow(1.012, 7) - 1) + 5));
  CHECK(eos.sound_speed(rho) == Approx(20 * std::pow(1.012, 3)));
  CHECK(eos.density(eos.pressure(rho)) == Approx(rho).epsilon(1e-14));
  // dp/dρ = c²: the sound speed is the slope of the equation of state.
  const auto slope = eos.pressure(D1(rho, {1.0})).tangent[0];
  CHECK(slope == Approx(eos.sound_speed(rho) * eos.sound_speed(rho)).epsilon(1e-13));
  // ∂p/∂γ = (B/γ)[γ x^γ ln x − (x^γ − 1)] with B = ρ₀c₀²/γ (a real power when γ is a variable).
  const solver::Tait<D1> by_gamma{D1(1000.0), D1(20.0), D1(7.0, {1.0}), D1(5.0)};
  const double x = rho / 1000, b = eos.stiffness();
  const double expected = b / 7 * (7 * std::pow(x, 7) * std::log(x) - (std::pow(x, 7) - 1));
  CHECK(by_gamma.pressure(rho).tangent[0] == Approx(expected).epsilon(1e-12));
  CHECK(by_gamma.pressure(rho).value == Approx(eos.pressure(rho)).epsilon(1e-14));

  const solver::LinearEOS<> linear{1.0, 10.0, 0.0};
  CHECK(linear.pressure(1.01) == Approx(1.0));
  CHECK(linear.density(linear.pressure(1.03)) == Approx(1.03));
  const solver::Tait<> gamma1{1.0, 10.0, 1.0, 0.0};
  CHECK(gamma1.pressure(1.03) == Approx(linear.pressure(1.03)).epsilon(1e-14));
  CHECK(linear.sound_speed(1.2) == 10.0);
}

TEST_CASE("time_step_limits: the three rules, their minimum, and bad inputs", "[solver][dt]") {
  const auto limits = solver::time_step_limits({0.01, 10.0, 1.0, 4.0, 0.01});
  CHECK(limits.acoustic == Approx(0.25 * 0.01 / 11));
  CHECK(limits.viscous == Approx(0.125 * 1e-4 / 0.01));
  CHECK(limits.force == Approx(0.25 * std::sqrt(0.01 / 4)));
  CHECK(limits.step() == limits.acoustic);
  const auto inviscid = solver::time_step_limits({0.01, 10.0, 0.0, 0.0, 0.0});
  CHECK(std::isinf(inviscid.viscous));
  CHECK(std::isinf(inviscid.force));
  CHECK(inviscid.step() == Approx(0.25 * 0.01 / 10));
  CHECK_THROWS_WITH(solver::time_step_limits({0.0, 10.0, 1.0, 0.0, 0.0}),
                    Catch::Contains("inputs") && Catch::Contains("length"));
  CHECK_THROWS_WITH(solver::time_step_limits({0.01, -1.0, 1.0, 0.0, 0.0}),
                    Catch::Contains("inputs") && Catch::Contains("negative"));
  const std::vector<V2> v{{3, 4}, {0, 1}, {-6, 8}};
  CHECK(solver::max_norm(exec::host{}, view(v)) == 10.0);
  CHECK(solver::max_norm(exec::host{}, Span<const V2>{}) == 0.0);
}

namespace {
/// A user state: positions, velocities and one more rated field (an "energy" e).
template <class Kind>
struct Particle {
  sim::Array<Kind, V2> x, v;
  sim::Array<Kind, double> e;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.x, s.v, s.e);
  }
};
/// a = −k x, ė = |v|² (a spring; e integrates the kinetic energy's rate).
struct SpringAcceleration {
  double k;
  template <class X>
  SPHAD_HOST_DEVICE auto operator()(const X& x) const {
    return x * (-k);
  }
};
struct SpeedSquared {
  template <class V>
  SPHAD_HOST_DEVICE auto operator()(const V& v) const {
    return v[0] * v[0] + v[1] * v[1];
  }
};
struct SpringRates {
  double k;
  template <class Kind>
  Particle<sim::Tracked> operator()(Tape<exec::host>& tape, const Particle<Kind>& s) const {
    const std::int64_t n = s.x.size();
    return {Variable<V2>(), record_map(tape, n, SpringAcceleration{k}, s.x),
            record_map(tape, n, SpeedSquared{}, s.v)};
  }
};

/// Rates with a constant extra position rate (1, 2) and no force; e has no rate.
struct ConstantDrift {
  template <class X>
  SPHAD_HOST_DEVICE V2 operator()(const X&) const {
    return V2{1, 2};
  }
};
struct ShiftedRates {
  template <class Kind>
  Particle<sim::Tracked> operator()(Tape<exec::host>& t, const Particle<Kind>& s) const {
    const std::int64_t n = s.x.size();
    return {record_map(t, n, ConstantDrift{}, s.x), record_map(t, n, SpringAcceleration{0.0}, s.x),
            Variable<double>()};
  }
};

/// A field integrated like a density: v̇ = (−e, 0), ė = v_0 (an oscillation of v and e).
struct Exchange {
  template <class V>
  SPHAD_HOST_DEVICE auto operator()(const V& v) const {
    return v[0];
  }
};
struct NegatedAlongX {
  template <class E>
  SPHAD_HOST_DEVICE auto operator()(const E& e) const {
    using S = decltype(-e);
    return Vec<S, 2>{-e, S(0)};
  }
};
struct ExchangeRates {
  template <class Kind>
  Particle<sim::Tracked> operator()(Tape<exec::host>& t, const Particle<Kind>& s) const {
    const std::int64_t n = s.x.size();
    return {Variable<V2>(), record_map(t, n, NegatedAlongX{}, s.e),
            record_map(t, n, Exchange{}, s.v)};
  }
};

/// |x(T) − x_exact(T)| after `steps` steps of `integrate` from x = (1, 0), v = (0, 0) (ω = 1).
template <class Integrate>
double final_error(int steps, double t_end, const Integrate& integrate) {
  std::vector<V2> x{{1, 0}}, v{{0, 0}};
  std::vector<double> e{0};
  for (int k = 0; k < steps; ++k) {
    Tape<exec::host> tape;
    const Particle<sim::Views> s{view(x), view(v), view(e)};
    const auto next = integrate(tape, s, t_end / steps);
    x = {next.x[0]};
    v = {next.v[0]};
    e = {next.e[0]};
  }
  return std::abs(x[0][0] - std::cos(t_end)) + std::abs(v[0][0] + std::sin(t_end));
}
} // namespace

TEST_CASE("integrators: order of convergence on a spring", "[solver][integrators]") {
  const SpringRates rates{1.0};
  const auto euler = [&](Tape<exec::host>& tape, const auto& s, double dt) {
    return solver::symplectic_euler(tape, s, dt, rates);
  };
  const auto kdk = [&](Tape<exec::host>& tape, const auto& s, double dt) {
    return solver::kick_drift_kick(tape, s, dt, rates);
  };
  const double e1 = final_error(100, 2.0, euler), e2 = final_error(200, 2.0, euler);
  const double k1 = final_error(100, 2.0, kdk), k2 = final_error(200, 2.0, kdk);
  CHECK(e1 / e2 == Approx(2).epsilon(0.1));  // first order
  CHECK(k1 / k2 == Approx(4).epsilon(0.05)); // second order
  CHECK(k2 < e2);
}

TEST_CASE("integrators: a field integrated like a density stays bounded under the "
          "predictor-corrector, grows under symplectic Euler",
          "[solver][integrators]") {
  const auto amplitude = [](const auto& integrate) {
    std::vector<V2> x{{0, 0}}, v{{1, 0}};
    std::vector<double> e{0};
    for (int k = 0; k < 1000; ++k) {
      Tape<exec::host> tape;
      const auto next = integrate(tape, Particle<sim::Views>{view(x), view(v), view(e)}, 0.1);
      x = {next.x[0]};
      v = {next.v[0]};
      e = {next.e[0]};
    }
    return std::sqrt(v[0][0] * v[0][0] + e[0] * e[0]);
  };
  const double euler = amplitude([](Tape<exec::host>& t, const auto& s, double dt) {
    return solver::symplectic_euler(t, s, dt, ExchangeRates{});
  });
  const double pc = amplitude([](Tape<exec::host>& t, const auto& s, double dt) {
    return solver::predictor_corrector(t, s, dt, ExchangeRates{});
  });
  CHECK(euler == Approx(std::pow(1 + 0.01, 500)).epsilon(1e-12)); // forward Euler for the pair
  // Explicit midpoint: each step multiplies the amplitude by sqrt(1 + Δt⁴/4) exactly.
  CHECK(pc == Approx(std::pow(1 + 1e-4 / 4, 500)).epsilon(1e-12));
  const SpringRates rates{1.0};
  const auto midpoint = [&](Tape<exec::host>& tape, const auto& s, double dt) {
    return solver::predictor_corrector(tape, s, dt, rates);
  };
  CHECK(final_error(100, 2.0, midpoint) / final_error(200, 2.0, midpoint) ==
        Approx(4).epsilon(0.05)); // second order
}

TEST_CASE("integrators: the recorded step's gradient against central differences, and an "
          "extra position rate",
          "[solver][integrators]") {
  // L = Σ ⟨x', x'⟩ + Σ e' after one KDK step of two particles in a spring, over (x, v, e).
  const SpringRates rates{2.0};
  const double dt = 0.1;
  const auto loss = [&](const std::vector<V2>& x, const std::vector<V2>& v,
                        const std::vector<double>& e) {
    Tape<exec::host> tape;
    const auto next =
        solver::kick_drift_kick(tape, Particle<sim::Views>{view(x), view(v), view(e)}, dt, rates);
    double s = 0;
    for (std::int64_t i = 0; i < 2; ++i) {
      s += dot(next.x[i], next.x[i]) + next.e[i];
    }
    return s;
  };
  std::vector<V2> x{{1, 0.5}, {-0.3, 0.2}}, v{{0.1, -0.4}, {0.7, 0.0}};
  std::vector<double> e{0.5, 1.0};
  Tape<exec::host> tape;
  const Variable<V2> xv(x.data(), 2), vv(v.data(), 2);
  const Variable<double> ev(e.data(), 2);
  const auto next = solver::kick_drift_kick(tape, Particle<sim::Tracked>{xv, vv, ev}, dt, rates);
  tape.backward(record_map(
      tape, 1, [] SPHAD_HOST_DEVICE(auto a, auto b) { return a + b; },
      record_squared_norm(tape, next.x), record_sum(tape, next.e)));
  const double step = 1e-6;
  for (int i = 0; i < 2; ++i) {
    for (int c = 0; c < 2; ++c) {
      auto xp = x, xm = x, vp = v, vm = v;
      xp[std::size_t(i)][c] += step;
      xm[std::size_t(i)][c] -= step;
      vp[std::size_t(i)][c] += step;
      vm[std::size_t(i)][c] -= step;
      CHECK(tape.gradient(xv)[i][c] ==
            Approx((loss(xp, v, e) - loss(xm, v, e)) / (2 * step)).epsilon(1e-7));
      CHECK(tape.gradient(vv)[i][c] ==
            Approx((loss(x, vp, e) - loss(x, vm, e)) / (2 * step)).epsilon(1e-7));
    }
    CHECK(tape.gradient(ev)[i] == Approx(1.0));
  }

  // A rate for x adds to the drift: x' = x + Δt (v' + r_x).
  Tape<exec::host> plain;
  const auto moved = solver::symplectic_euler(
      plain, Particle<sim::Views>{view(x), view(v), view(e)}, dt, ShiftedRates{});
  CHECK(moved.x[0][0] == Approx(x[0][0] + dt * (v[0][0] + 1)));
  CHECK(moved.x[1][1] == Approx(x[1][1] + dt * (v[1][1] + 2)));
  CHECK(moved.e[1] == e[1]); // no rate: carried on
}

namespace {
std::set<std::pair<std::int64_t, std::int32_t>> pairs_of(const NeighborList<exec::host>& list) {
  std::set<std::pair<std::int64_t, std::int32_t>> out;
  for (std::int64_t i = 0; i < list.num_queries; ++i) {
    for (std::int64_t k = list.offsets[i]; k < list.offsets[i + 1]; ++k) {
      out.insert({i, list.neighbors[k]});
    }
  }
  return out;
}
} // namespace

TEST_CASE("NeighborCache: the pairs of a fresh search each step; rebuilds only past the skin",
          "[solver][neighbors]") {
  const exec::host ex;
  auto lattice = sampling::cubic_lattice<2>(16, V2{1, 1});
  const Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};
  const double dx = lattice.spacing;
  std::vector<V2> x = lattice.positions;
  const std::vector<double> h(x.size(), 3 * dx);
  NeighborCache<SupportScheme::Gather, 2, double, exec::host> cache(0.5 * dx);
  CHECK_THROWS_WITH((NeighborCache<SupportScheme::Gather, 2, double, exec::host>(-1.0)),
                    Catch::Contains("skin"));
  std::vector<NeighborUpdate> actions;
  for (int step = 0; step < 12; ++step) {
    const SearchPoints<2, double> points{view(x), view(h)};
    const auto& list = cache.update(ex, points, domain);
    actions.push_back(cache.last());
    CHECK(pairs_of(list) ==
          pairs_of(build_neighbor_list<SupportScheme::Gather>(ex, points, points, domain)));
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i][0] += (i % 2 ? 0.05 : -0.05) * dx; // 0.1 dx apart per step: past the skin in 3
    }
  }
  CHECK(actions[0] == NeighborUpdate::rebuilt);
  CHECK(actions[1] == NeighborUpdate::refiltered);
  CHECK(cache.rebuilds() >= 3);
  CHECK(cache.rebuilds() + cache.refilters() == 12);
  CHECK(cache.refilters() >= 6);

  // update_from: the list built from a reference; a cache holding another is restored.
  NeighborCache<SupportScheme::Gather, 2, double, exec::host> other(0.5 * dx);
  const std::vector<V2> reference = lattice.positions;
  std::vector<V2> near = reference;
  near[0][0] += 0.1 * dx;
  const SearchPoints<2, double> points{view(near), view(h)};
  other.update_from(ex, points, view(reference), domain);
  CHECK(other.last() == NeighborUpdate::refiltered);
  CHECK(other.rebuilds() == 0);
  CHECK(pairs_of(other.list()) ==
        pairs_of(build_neighbor_list<SupportScheme::Gather>(ex, points, points, domain)));
  std::vector<V2> far = reference;
  far[0][0] += 0.4 * dx;
  other.update_from(ex, {view(far), view(h)}, view(reference), domain);
  CHECK(other.last() == NeighborUpdate::rebuilt);
  CHECK_THROWS_WITH(other.update_from(ex, points, Span<const V2>{}, domain),
                    Catch::Contains("reference"));
}

TEST_CASE("Of: an equation of state's maps recorded over an array", "[solver][eos]") {
  const solver::Tait<> eos{1.0, 10.0, 7.0, 0.0};
  const std::vector<double> rho{0.99, 1.0, 1.02};
  Tape<exec::host> tape;
  const Variable<double> r(rho.data(), 3);
  const auto c =
      record_map(tape, 3, solver::Of<solver::StateMap::sound_speed, solver::Tait<>>{eos}, r);
  const auto p = record_map(tape, 3, eos, r);
  const auto back =
      record_map(tape, 3, solver::Of<solver::StateMap::density, solver::Tait<>>{eos}, p);
  for (std::int64_t i = 0; i < 3; ++i) {
    CHECK(c[i] == Approx(eos.sound_speed(rho[std::size_t(i)])));
    CHECK(back[i] == Approx(rho[std::size_t(i)]).epsilon(1e-14));
  }
  // d(ρ(p(ρ)))/dρ = 1 through the tape.
  tape.backward(record_sum(tape, back));
  CHECK(tape.gradient(r)[1] == Approx(1.0).epsilon(1e-12));
}
