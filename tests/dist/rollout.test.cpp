// SPDX-License-Identifier: MIT
// A differentiable rollout across ranks: 20 steps of the weakly compressible flow of
// examples/distributed (drift.hpp) drifting through a periodic box, the particles migrating
// between the ranks' regions and the halo and the neighbour list rebuilt in every step. Its
// gradient with respect to the initial state equals one rank's per particle (1e-10) and central
// differences (1e-6), with every state kept and with 3 checkpoints (the same bits: the state's size
// changes as particles migrate).
#include <sphad/sim.hpp>

#include "dist/dist_cases.hpp"
#include "distributed/drift.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

namespace sphad::test {
namespace {

using V2 = Vec<double, 2>;
using Stored = sim::Stored<exec::host>;

template <class E>
Buffer<E, exec::host> buffer_of(const std::vector<E>& v) {
  return exec::to_buffer(exec::host{}, v);
}

struct DriftRun {
  double loss;
  std::vector<std::vector<double>> gradient; ///< per particle of s_0: ∂L/∂x, ∂L/∂v
  std::int64_t moved;
};

DriftRun run_drift(const dist::Communicator& comm,
                   const dist::Decomposition<2, double>& decomposition,
                   const std::vector<V2>& x,
                   const std::vector<V2>& v,
                   std::int64_t checkpoints) {
  const exec::host exec;
  const drift::State<Stored> s0{buffer_of(x), buffer_of(v)};
  auto ds0 = sim::clone(exec, s0);
  sim::NoParams<Stored> none, dnone;
  const drift::Step step(comm, decomposition, 16, 0.01);
  const auto result =
      sim::rollout_gradient(exec, 20, s0, none, step, drift::Loss{comm}, ds0, dnone, {checkpoints});
  DriftRun out{result.loss.data()[0], {}, step.traffic->migrated};
  REQUIRE(ds0.x.size() == std::int64_t(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    out.gradient.emplace_back();
    append_scalars(ds0.x.data()[i], out.gradient.back());
    append_scalars(ds0.v.data()[i], out.gradient.back());
  }
  return out;
}

/// L after a plain rollout from (x, v).
double loss_of(const dist::Communicator& comm,
               const dist::Decomposition<2, double>& decomposition,
               const std::vector<V2>& x,
               const std::vector<V2>& v) {
  drift::State<Stored> s{buffer_of(x), buffer_of(v)};
  sim::rollout(exec::host{}, 20, s, sim::NoParams<Stored>{},
               drift::Step(comm, decomposition, 16, 0.01));
  Tape<exec::host> tape;
  return drift::Loss{comm}(tape, sim::track(s), sim::NoParams<sim::Tracked>{}).data()[0];
}

} // namespace

TEST_CASE("dist: a 20-step rollout with migrations and list rebuilds has one rank's gradient, "
          "central differences' and the same bits for every checkpoint budget",
          "[dist][rollout]") {
  const dist::Communicator world;
  const dist::Communicator self(MPI_COMM_SELF);
  const Domain<2, double> domain{V2::filled(0.0), V2::filled(1.0), {true, true}};
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> jitter(-0.15, 0.15);
  std::vector<V2> x, v, dx, dv;
  const double k = 2 * 3.141592653589793;
  for (int j = 0; j < 16; ++j) {
    for (int i = 0; i < 16; ++i) {
      const V2 p{(i + 0.5 + jitter(rng)) / 16, (j + 0.5 + jitter(rng)) / 16};
      x.push_back(p);
      v.push_back({1.0 + 0.05 * std::sin(k * p[1]), 0.05 * std::cos(k * p[0])});
      dx.push_back({jitter(rng) / 16, jitter(rng) / 16});
      dv.push_back({jitter(rng), jitter(rng)});
    }
  }
  std::vector<std::int64_t> all(x.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    all[i] = std::int64_t(i);
  }
  const auto one = run_drift(self, dist::slabs(domain, 1), x, v, 0);
  const auto decomposition = dist::slabs(domain, world.size());
  const auto ids = owned_ids(world, decomposition, x);
  const auto many = run_drift(world, decomposition, rows(x, ids), rows(v, ids), 0);
  if (world.size() > 1) {
    CHECK(rank_sum(world, double(many.moved)) > 0); // particles changed ranks
  }
  const auto [error, scale] = row_error(many.gradient, one.gradient, ids);
  INFO("gradient against one rank: " << rank_max(world, error) << " of " << scale);
  CHECK(rank_max(world, error) <= 1e-10 * scale);
  CHECK(std::abs(many.loss - one.loss) <= 1e-12 * std::abs(one.loss));
  // Three checkpoints: the same bits.
  const auto few = run_drift(world, decomposition, rows(x, ids), rows(v, ids), 3);
  CHECK(rank_max(world, few.gradient == many.gradient ? 0.0 : 1.0) == 0);
  CHECK(few.loss == many.loss);
  // Central differences along (dx, dv).
  double directional = 0;
  for (std::size_t r = 0; r < ids.size(); ++r) {
    const auto id = std::size_t(ids[r]);
    const auto& g = many.gradient[r];
    directional += g[0] * dx[id][0] + g[1] * dx[id][1] + g[2] * dv[id][0] + g[3] * dv[id][1];
  }
  directional = rank_sum(world, directional);
  const double eps = 1e-6;
  const auto moved = [&](double sign) {
    std::vector<V2> xs = rows(x, ids), vs = rows(v, ids);
    for (std::size_t r = 0; r < ids.size(); ++r) {
      xs[r] = xs[r] + dx[std::size_t(ids[r])] * (sign * eps);
      vs[r] = vs[r] + dv[std::size_t(ids[r])] * (sign * eps);
    }
    return loss_of(world, decomposition, xs, vs);
  };
  const double fd = (moved(1) - moved(-1)) / (2 * eps);
  INFO("directional derivative " << directional << ", central differences " << fd);
  CHECK(std::abs(directional - fd) <= 1e-6 * std::abs(fd));
}

} // namespace sphad::test
