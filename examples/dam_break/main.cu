// SPDX-License-Identifier: MIT
// The dam break on CUDA, from the same source as the host build (wall_flows.hpp): `steps` steps
// with `across` particles across the column, then the surge front and the steps per second.
// Exits non-zero when the front is not finite or has not left the column.
// Usage: dam_break_cuda [across=224] [steps=300]   (224 across: 10⁵ fluid particles)
#include "../wall_flows/wall_flows.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  using namespace wall_flows;
  const int across = argc > 1 ? std::atoi(argv[1]) : 224;
  const std::int64_t steps = argc > 2 ? std::atol(argv[2]) : 300;
  const Setup setup = dam_break(across);
  Case<exec::cuda> c{setup, exec::cuda{}};
  const double dt = setup.dt();
  const auto step = c.step(dt);
  sim::rollout(c.exec, 1, c.state, c.params, step); // warm-up: first list, allocations
  const auto started = std::chrono::steady_clock::now();
  sim::rollout(c.exec, steps - 1, c.state, c.params, step, 1);
  const auto x = exec::to_host(c.exec, c.state.x.data(), c.start.fluid); // waits for the steps
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  double front = 0;
  for (const V2& r : x) {
    front = std::max(front, r[0]);
  }
  std::printf("dam_break_cuda %d across (%lld particles), %lld steps to T = %.4f: front Z = %.4f, "
              "%.1f steps/s, %lld Verlet rebuilds\n",
              across, static_cast<long long>(c.n), static_cast<long long>(steps),
              double(steps) * dt * std::sqrt(2 * setup.g), front, double(steps - 1) / seconds,
              static_cast<long long>(step.cache->rebuilds()));
  return std::isfinite(front) && front > 1 ? 0 : 1;
}
