// SPDX-License-Identifier: MIT
// A flow on N ranks, differentiated through them: the drifting weakly compressible flow of
// drift.hpp on side × side particles in a periodic unit box. Rank 0 creates every particle and
// the first migration hands them to the ranks of a recursive bisection; then `steps` steps run
// (migration, halo, list, density, pressure gradient, kick, drift in each), printing the same
// diagnostics on any number of ranks, and a checkpointed rollout gradient of
// L = Σ |v|² + 0.1 sin 2πx cos 2πy with respect to the initial state.
//   mpiexec -n 4 ./distributed [side=64] [steps=50]
#include "drift.hpp"

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using namespace sphad;
using Stored = sim::Stored<exec::host>;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Σ over the ranks in rank order (the same bits on every rank).
double rank_sum(const dist::Communicator& comm, double value) {
  double sum = 0;
  for (const double v : comm.all_gather(value)) {
    sum += v;
  }
  return sum;
}

int run(int side, int steps) {
  const dist::Communicator comm;
  const exec::host exec;
  const Domain<2, double> domain{drift::V2::filled(0.0), drift::V2::filled(1.0), {true, true}};
  std::vector<drift::V2> x, v;
  if (comm.rank() == 0) {
    drift::initial_flow(side, x, v);
  }
  const auto decomposition =
      dist::bisection(comm, domain, Span<const drift::V2>{x.data(), std::int64_t(x.size())});
  const double dt = 0.2 / side; // a fifth of a spacing per step at the drift speed
  const drift::Step step(comm, decomposition, side, dt);
  drift::State<Stored> s{exec::to_buffer(exec, x), exec::to_buffer(exec, v)};
  const auto report = [&](int k) {
    double kinetic = 0, drift_x = 0;
    for (std::int64_t i = 0; i < s.v.size(); ++i) {
      kinetic += 0.5 * step.mass * dot(s.v[i], s.v[i]);
      drift_x += step.mass * s.v[i][0];
    }
    const double particles = rank_sum(comm, double(s.x.size()));
    kinetic = rank_sum(comm, kinetic);
    drift_x = rank_sum(comm, drift_x);
    if (comm.rank() == 0) {
      std::printf("step %4d  particles %8.0f  kinetic energy %.10f  momentum x %.10f\n", k,
                  particles, kinetic, drift_x);
    }
  };
  if (comm.rank() == 0) {
    std::printf("distributed: %d x %d particles on %d ranks (recursive bisection), %d steps\n",
                side, side, comm.size(), steps);
  }
  report(0);
  const auto start = Clock::now();
  for (int k = 0; k < steps; k += 10) {
    const int chunk = std::min(10, steps - k);
    sim::rollout(exec, chunk, s, sim::NoParams<Stored>{}, step, k);
    report(k + chunk);
  }
  const double advance = seconds_since(start);
  // Exchange statistics of the plain steps, summed over the ranks.
  const drift::Traffic t = *step.traffic; // the plain steps' (the gradient's steps add more)
  const double owned = rank_sum(comm, double(t.owned));
  const double ghosts = rank_sum(comm, double(t.ghosts));
  const double migrated = rank_sum(comm, double(t.migrated));
  // Per ghost and step the halo moves x (16 B), ρ and p (8 B each) forward.
  const double bytes = ghosts * 32 / double(t.steps);
  // The gradient: checkpointed (⌈√T⌉ states), every exchange reversed.
  const drift::State<Stored> s0{exec::to_buffer(exec, x), exec::to_buffer(exec, v)};
  auto ds0 = sim::clone(exec, s0);
  const auto checkpoints = std::int64_t(std::ceil(std::sqrt(double(steps))));
  const auto gradient_start = Clock::now();
  const auto result = sim::rollout_gradient(exec, steps, sim::problem(s0, step, drift::Loss{comm}),
                                            sim::gradients(ds0), {checkpoints});
  const double gradient_time = seconds_since(gradient_start);
  double norm_x = 0, norm_v = 0;
  for (std::int64_t i = 0; i < ds0.x.size(); ++i) {
    norm_x += dot(ds0.x[i], ds0.x[i]);
    norm_v += dot(ds0.v[i], ds0.v[i]);
  }
  norm_x = std::sqrt(rank_sum(comm, norm_x));
  norm_v = std::sqrt(rank_sum(comm, norm_v));
  const double slowest = comm.all_max(advance);
  const double slowest_gradient = comm.all_max(gradient_time);
  if (comm.rank() == 0) {
    std::printf("loss %.10f  |dL/dx0| %.10f  |dL/dv0| %.10f  (%lld checkpoints)\n",
                result.loss.data()[0], norm_x, norm_v, static_cast<long long>(checkpoints));
    std::printf("halo: %.1f ghosts per step for %.0f particles (%.2f %%), %.0f bytes per step, "
                "%.1f migrations per step\n",
                ghosts / double(t.steps), owned / double(t.steps), 100 * ghosts / owned, bytes,
                migrated / double(t.steps));
    std::printf("time: %.3f ms per step, gradient %.3f s (%.2f steps' time)\n",
                1e3 * slowest / steps, slowest_gradient, slowest_gradient / (slowest / steps));
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int side = argc > 1 ? std::atoi(argv[1]) : 64;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 50;
  int status = 0;
  try {
    status = run(side, steps);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distributed: %s\n", e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
