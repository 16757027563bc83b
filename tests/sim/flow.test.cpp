// SPDX-License-Identifier: MIT
// A rollout through the optimize_flow example's WCSPH step (examples/optimize_flow/flow.hpp):
// Density, grad-h Ω, a Symmetric pressure gradient corrected by Ω and a viscous Laplacian per
// step, over a Verlet list rebuilt mid-way when particles have moved. Its gradient against
// central differences, and the same bits for every number of checkpoints.
#include <catch2/catch.hpp>
#include <optimize_flow/flow.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace sphad;
using flow::V2;

namespace {

using Stored = sim::Stored<exec::host>;

template <class T>
Buffer<T, exec::host> buffer_of(const std::vector<T>& v) {
  Buffer<T, exec::host> out(exec::host{}, std::int64_t(v.size()));
  std::copy(v.begin(), v.end(), out.data());
  return out;
}

struct FlowCase {
  int side = 6;
  std::int64_t n = 36;
  std::vector<V2> x0, v0;
  std::vector<double> h, m, target;
  std::vector<std::int32_t> kinds;
  flow::Constants constants;

  FlowCase() {
    const double dx = 1.0 / side;
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int j = 0; j < side; ++j) {
      for (int i = 0; i < side; ++i) {
        x0.push_back({(i + 0.5 + 0.1 * u(rng)) * dx, (j + 0.5 + 0.1 * u(rng)) * dx});
        v0.push_back({0.3 * u(rng), 0.3 * u(rng)});
        target.push_back(1 + 0.05 * u(rng));
      }
    }
    h.assign(x0.size(), kernels::support_from_volume(dx * dx, 20, 2));
    m.assign(x0.size(), dx * dx);
    kinds.assign(x0.size(), std::int32_t(ParticleKind::Fluid));
    constants.supports = {h.data(), n};
    constants.masses = {m.data(), n};
    constants.kinds = {kinds.data(), n};
    constants.domain = Domain<2, double>{{0, 0}, {1, 1}, {true, true}};
    constants.c = 1;
    constants.dt = 0.005;
    constants.nu = 0.01;
    constants.skin = 0.05 * h[0]; // moved more than skin/2 = 0.01 after a few steps: rebuilt
  }

  struct Run {
    double loss;
    std::vector<double> dx, dv, dx_ref;
    std::int64_t rebuilds;
  };
  Run run(const std::vector<V2>& x,
          const std::vector<V2>& v,
          std::int64_t steps,
          std::int64_t checkpoints) const {
    const exec::host exec;
    const flow::Fluid<Stored> s0{buffer_of(x), buffer_of(v), buffer_of(x0)};
    auto ds0 = sim::clone(exec, s0);
    sim::NoParams<Stored> none, dnone;
    const flow::FlowStep<exec::host> step{constants};
    const auto result =
        sim::rollout_gradient(exec, steps, s0, none, step,
                              flow::DensityMismatch<exec::host>{constants, {target.data(), n}}, ds0,
                              dnone, {checkpoints});
    Run out{result.loss.data()[0], {}, {}, {}, *step.rebuilds};
    for (std::int64_t i = 0; i < n; ++i) {
      for (int c = 0; c < 2; ++c) {
        out.dx.push_back(ds0.x.data()[i][c]);
        out.dv.push_back(ds0.v.data()[i][c]);
        out.dx_ref.push_back(ds0.x_ref.data()[i][c]);
      }
    }
    return out;
  }
};

} // namespace

TEST_CASE("rollout_gradient: 20 WCSPH steps with grad-h and a Verlet list rebuilt mid-way, "
          "against central differences; the same bits for every number of checkpoints",
          "[sim][flow]") {
  const FlowCase c;
  const std::int64_t steps = 20;
  // The plain rollout rebuilds the list after the first build: the rebuild happens mid-way.
  {
    flow::Fluid<Stored> s{buffer_of(c.x0), buffer_of(c.v0), buffer_of(c.x0)};
    const flow::FlowStep<exec::host> step{c.constants};
    sim::rollout(exec::host{}, steps, s, sim::NoParams<Stored>{}, step);
    CHECK(*step.rebuilds >= 2);
    CHECK(*step.rebuilds < steps);
  }
  const auto all = c.run(c.x0, c.v0, steps, 0);
  for (const std::int64_t budget : {1, 2, 5}) {
    CAPTURE(budget);
    const auto few = c.run(c.x0, c.v0, steps, budget);
    CHECK(few.loss == all.loss);
    CHECK(few.dx == all.dx);
    CHECK(few.dv == all.dv);
  }
  // The list's reference positions take no gradient: the rebuild is not differentiated.
  CHECK(std::all_of(all.dx_ref.begin(), all.dx_ref.end(), [](double g) { return g == 0; }));

  double scale = 0;
  for (const auto* g : {&all.dx, &all.dv}) {
    for (const double e : *g) {
      scale = std::max(scale, std::abs(e));
    }
  }
  REQUIRE(scale > 0);
  const double step = 1e-6;
  double worst = 0;
  for (const std::int64_t i : {std::int64_t(0), std::int64_t(14), std::int64_t(35)}) {
    for (int k = 0; k < 2; ++k) {
      for (const bool position : {true, false}) {
        auto x = c.x0, v = c.v0;
        auto& e = (position ? x : v)[std::size_t(i)][k];
        const double keep = e;
        e = keep + step;
        const double plus = c.run(x, v, steps, 0).loss;
        e = keep - step;
        const double minus = c.run(x, v, steps, 0).loss;
        const double fd = (plus - minus) / (2 * step);
        const double g = (position ? all.dx : all.dv)[std::size_t(2 * i + k)];
        worst = std::max(worst, std::abs(fd - g) / scale);
      }
    }
  }
  CHECK(worst < 1e-6);
}

TEST_CASE("a correction state over const Variables records as over Variables", "[sim][flow]") {
  // decltype of a `const auto` Variable names `const Variable<E>`; the tape must see it too.
  const FlowCase c;
  const ParticleSet<2, double> plain{
      {c.x0.data(), c.n}, c.constants.supports, c.constants.masses, c.constants.kinds};
  const auto list = build_neighbor_list<SupportScheme::Gather>(
      exec::host{}, plain.search_points(), plain.search_points(), c.constants.domain);
  const auto gradient = [&](auto constness) {
    Tape<exec::host> tape;
    const Variable<V2> x(c.x0.data(), c.n);
    const auto set = plain.with_positions(x);
    const auto rho = record<ops::Density<flow::Kernel>>(tape, set, set, c.constants.domain, list);
    const auto with_rho = set.with_densities(rho);
    const auto omega =
        corrections::record_omegas<flow::Kernel>(tape, with_rho, c.constants.domain, list);
    using Omega = std::conditional_t<decltype(constness)::value, decltype(omega), Variable<double>>;
    const auto g = record<ops::Gradient<flow::Kernel, GradientScheme::Symmetric>>(
        tape, with_rho, with_rho, c.constants.domain, list, rho, rho, ApplyOptions<double>{},
        ops::Corrections{ops::NoCRK{}, ops::NoRenormalization{},
                         ops::GradH<double, Omega, Omega>{omega, omega}});
    tape.backward(record_squared_norm(tape, g));
    const auto dx = tape.gradient(x);
    return std::vector<V2>(dx.data(), dx.data() + dx.size());
  };
  const auto plain_omega = gradient(std::false_type{});
  const auto const_omega = gradient(std::true_type{});
  CHECK(const_omega == plain_omega);
}
