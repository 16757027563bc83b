// SPDX-License-Identifier: MIT
// The Taylor–Green example's solver (examples/taylor_green/taylor_green.hpp) differentiated
// through a whole run: dE(t_end)/dν by a checkpointed rollout gradient against central
// differences of plain rollouts, across Verlet-list rebuilds; and the same bits for 2
// checkpoints as for every state kept.
#include "taylor_green/taylor_green.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace tgv;

namespace {
using Stored = sim::Stored<exec::host>;

Setup small() {
  Setup s;
  s.side = 12;
  return s;
}

/// E(T) after `steps` steps from the start with viscosity ν, in scalar T.
template <class T = double>
double final_energy(double nu, std::int64_t steps, double dt) {
  Case<exec::host, T> c{small(), exec::host{}};
  std::fill(c.params.nu.data(), c.params.nu.data() + c.n, T(nu));
  sim::rollout(c.exec, steps, c.state, c.params, c.step(dt));
  return c.energy();
}

struct Gradient {
  double loss, dnu;
  std::int64_t rebuilds;
};

/// (E(T), dE/dν) by `rollout_gradient` keeping `checkpoints` states, in scalar T.
template <class T = double>
Gradient rollout_gradient(std::int64_t steps, double dt, std::int64_t checkpoints) {
  Case<exec::host, T> c{small(), exec::host{}};
  auto ds0 = sim::clone(c.exec, c.state);
  auto dparams = sim::clone(c.exec, c.params);
  const auto step = c.step(dt);
  const auto result = sim::rollout_gradient(c.exec, steps, c.state, c.params, step,
                                            FinalEnergy<exec::host, T>{{c.masses.data(), c.n}}, ds0,
                                            dparams, {checkpoints});
  double dnu = 0;
  for (std::int64_t i = 0; i < c.n; ++i) {
    dnu += dparams.nu.data()[i];
  }
  return {result.loss.data()[0], dnu, step.cache->rebuilds()};
}
} // namespace

TEST_CASE("Taylor-Green: dE(T)/dν through 60 steps against central differences",
          "[solver][taylor_green][long]") {
  const Setup s = small();
  const double dt = s.dt();
  const std::int64_t steps = 60;
  const Gradient all = rollout_gradient(steps, dt, 0);
  CHECK(all.rebuilds >= 2); // the list was rebuilt along the way
  const double nu = s.nu(), e = 1e-5;
  const double fd = (final_energy(nu + e, steps, dt) - final_energy(nu - e, steps, dt)) / (2 * e);
  CHECK(all.loss == Approx(final_energy(nu, steps, dt)).epsilon(1e-14));
  CHECK(all.dnu < 0); // more viscosity, less energy
  CHECK(std::abs(all.dnu - fd) <= 1e-6 * std::abs(fd));
  const Gradient two = rollout_gradient(steps, dt, 2);
  CHECK(two.loss == all.loss);
  CHECK(two.dnu == all.dnu);
}

TEST_CASE("Taylor-Green in float: the run and its gradient follow the double ones",
          "[solver][taylor_green][float]") {
  // The state, the parameter, the solver's integrator and the rollout gradient in float (a
  // float loss; the result's loss widened to double): E(T) within 1e-6 of the double run's,
  // dE/dν within 1e-4 of the double gradient (both about 1e-8 and 2e-7 when written).
  const Setup s = small();
  const double dt = s.dt();
  const std::int64_t steps = 20;
  const double e64 = final_energy<double>(s.nu(), steps, dt);
  const double e32 = final_energy<float>(s.nu(), steps, dt);
  CHECK(std::abs(e32 - e64) <= 1e-6 * e64);
  const Gradient g64 = rollout_gradient<double>(steps, dt, 5);
  const Gradient g32 = rollout_gradient<float>(steps, dt, 5);
  CHECK(std::abs(g32.loss - e32) <= 1e-6 * e32); // the recorded run is the plain one's
  CHECK(g32.dnu < 0);
  CHECK(std::abs(g32.dnu - g64.dnu) <= 1e-4 * std::abs(g64.dnu));
}
