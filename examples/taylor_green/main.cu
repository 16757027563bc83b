// SPDX-License-Identifier: MIT
// The Taylor–Green vortex on CUDA, from the same source as the host build (taylor_green.hpp):
// `steps` steps of a side × side case, then the kinetic-energy error against e^{2bt} and the
// steps per second. Exits non-zero when the error exceeds 5 %.
// Usage: taylor_green_cuda [side=100] [steps=300]
#include "taylor_green.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  using namespace tgv;
  Setup setup;
  setup.side = argc > 1 ? std::atoi(argv[1]) : 100;
  const std::int64_t steps = argc > 2 ? std::atol(argv[2]) : 300;
  Case<exec::cuda> c{setup, exec::cuda{}};
  const double dt = setup.dt();
  const auto step = c.step(dt);
  const double e0 = c.energy();
  sim::rollout(c.exec, 1, c.state, c.params, step); // warm-up: first list, allocations
  const auto started = std::chrono::steady_clock::now();
  sim::rollout(c.exec, steps - 1, c.state, c.params, step, 1);
  const double ratio = c.energy() / e0; // reads back: the steps have finished
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double exact = setup.energy_ratio(double(steps) * dt);
  const double error = std::abs(ratio - exact) / exact;
  std::printf("taylor_green_cuda %d x %d, %lld steps to t = %.4f: E/E0 = %.6f (analytic %.6f, "
              "error %.2e), %.1f steps/s, %lld Verlet rebuilds\n",
              setup.side, setup.side, static_cast<long long>(steps), double(steps) * dt, ratio,
              exact, error, double(steps - 1) / seconds,
              static_cast<long long>(step.cache->rebuilds()));
  return error <= 0.05 ? 0 : 1;
}
