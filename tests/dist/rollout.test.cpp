// SPDX-License-Identifier: MIT
// A differentiable rollout across ranks: 20 steps of a weakly compressible flow drifting through
// a periodic box, the particles migrating between the ranks' regions and the halo and the
// neighbour list rebuilt in every step. Its gradient with respect to the initial state equals
// one rank's per particle (1e-10) and central differences (1e-6), with every state kept and with
// 3 checkpoints (the same bits: the state's size changes as particles migrate).
#include <sphad/sim.hpp>

#include "dist/dist_cases.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

namespace sphad::test {
namespace {

using V2 = Vec<double, 2>;
using Stored = sim::Stored<exec::host>;
using K = kernels::Wendland4;

template <class Kind>
struct Drift {
  sim::Array<Kind, V2> x, v;
  template <class Self>
  static auto fields(Self& s) {
    return std::tie(s.x, s.v);
  }
};

struct Pressure { // p = c² (ρ − 1), c = 1
  template <class R>
  SPHAD_HOST_DEVICE auto operator()(const R& rho) const {
    return rho - 1.0;
  }
};

struct Kick { // v' = v − Δt ∇p/ρ
  double dt;
  template <class Vel, class G, class R>
  SPHAD_HOST_DEVICE auto operator()(const Vel& v, const G& grad_p, const R& rho) const {
    return v - grad_p * (dt / rho);
  }
};

struct Move { // x' = x + Δt v'
  double dt;
  template <class X, class Vel>
  SPHAD_HOST_DEVICE auto operator()(const X& x, const Vel& v) const {
    return x + v * dt;
  }
};

struct Wave { // ℓ_i = |v_i|² + 0.1 sin 2πx cos 2πy
  template <class X, class Vel>
  SPHAD_HOST_DEVICE auto operator()(const X& x, const Vel& v) const {
    using std::cos;
    using std::sin;
    const double k = 2 * 3.141592653589793;
    return dot(v, v) + 0.1 * sin(k * x[0]) * cos(k * x[1]);
  }
};

/// One step on this communicator's ranks: migrate, gather the halo, density, pressure gradient,
/// kick and drift; the particles that left for another rank are counted.
struct DriftStep {
  dist::Communicator comm;
  dist::Decomposition<2, double> decomposition;
  std::shared_ptr<std::int64_t> moved = std::make_shared<std::int64_t>(0);
  struct Scratch {
    std::vector<double> supports, masses;
    std::vector<std::int32_t> kinds;
  };
  std::shared_ptr<Scratch> scratch = std::make_shared<Scratch>();
  double h = 3.0 / 16, mass = 1.0 / 256, dt = 0.01;

  template <class Tape, class Kind, class ParamKind>
  Drift<sim::Tracked> operator()(Tape& tape,
                                 const Drift<Kind>& s,
                                 const sim::NoParams<ParamKind>&,
                                 std::int64_t) const {
    const exec::host exec;
    const dist::MigrationPlan<exec::host> migration(comm, exec, decomposition, primal_view(s.x));
    for (int r = 0; r < comm.size(); ++r) {
      *moved += r != comm.rank() ? migration.send_counts()[std::size_t(r)] : 0;
    }
    const auto x = dist::record_migrate(tape, migration, s.x);
    const auto v = dist::record_migrate(tape, migration, s.v);
    const std::int64_t n = x.size();
    const dist::HaloPlan<exec::host> halo(comm, exec, decomposition, primal_view(x), h);
    const std::int64_t ne = halo.extended();
    // The constant arrays live in the step, not on its stack: the tape reads them when it
    // sweeps backward, after this call returns (one step's tape at a time).
    auto& hs = scratch->supports;
    auto& ms = scratch->masses;
    auto& kinds = scratch->kinds;
    hs.assign(std::size_t(ne), h), ms.assign(std::size_t(ne), mass),
        kinds.assign(std::size_t(ne), 0);
    const auto xe = dist::record_halo_gather(tape, halo, x);
    const ParticleSet<2, double> plain_own{
        primal_view(x), {hs.data(), n}, {ms.data(), n}, {kinds.data(), n}};
    const ParticleSet<2, double> plain_ext{
        primal_view(xe), {hs.data(), ne}, {ms.data(), ne}, {kinds.data(), ne}};
    const auto own = plain_own.with_positions(x);
    const auto ext = plain_ext.with_positions(xe);
    const auto list = build_neighbor_list<SupportScheme::Gather>(
        exec, own.search_points(), ext.search_points(), decomposition.domain);
    const auto rho = record<ops::Density<K>>(tape, own, ext, decomposition.domain, list);
    const auto rho_e = dist::record_halo_gather(tape, halo, rho);
    const auto p = record_map(tape, n, Pressure{}, rho);
    const auto grad_p = record<ops::Gradient<K, GradientScheme::Symmetric, SupportScheme::Gather>>(
        tape, own.with_densities(rho), ext.with_densities(rho_e), decomposition.domain, list, p,
        dist::record_halo_gather(tape, halo, p));
    const auto v_next = record_map(tape, n, Kick{dt}, v, grad_p, rho);
    return {record_map(tape, n, Move{dt}, x, v_next), v_next};
  }
};

struct DriftLoss {
  dist::Communicator comm;
  template <class Tape>
  Variable<double>
  operator()(Tape& tape, const Drift<sim::Tracked>& s, const sim::NoParams<sim::Tracked>&) const {
    return dist::record_all_sum(tape, comm, record_reduce(tape, s.x.size(), Wave{}, s.x, s.v));
  }
};

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
  const Drift<Stored> s0{buffer_of(x), buffer_of(v)};
  auto ds0 = sim::clone(exec, s0);
  sim::NoParams<Stored> none, dnone;
  const DriftStep step{comm, decomposition};
  const auto result =
      sim::rollout_gradient(exec, 20, s0, none, step, DriftLoss{comm}, ds0, dnone, {checkpoints});
  DriftRun out{result.loss.data()[0], {}, *step.moved};
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
  Drift<Stored> s{buffer_of(x), buffer_of(v)};
  sim::rollout(exec::host{}, 20, s, sim::NoParams<Stored>{}, DriftStep{comm, decomposition});
  Tape<exec::host> tape;
  return DriftLoss{comm}(tape, sim::track(s), sim::NoParams<sim::Tracked>{}).data()[0];
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
