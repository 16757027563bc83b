// SPDX-License-Identifier: MIT
// A weakly compressible flow drifting through a periodic box, one step of it on the ranks of a
// communicator: migrate the particles to the ranks whose regions now hold them, gather the halo,
// rebuild the neighbour list, then density, pressure gradient, kick and drift — every exchange
// recorded, so the same step runs plain (advances) and on a tape (rollout gradients). Used by
// examples/distributed and tests/dist/rollout.test.cpp.
#pragma once

#include <sphad/dist.hpp>
#include <sphad/sphad.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace drift {

using sphad::Vec;
using V2 = Vec<double, 2>;
using K = sphad::kernels::Wendland4;

/// The state: positions (unwrapped across the periodic box) and velocities.
template <class Kind>
struct State {
  sphad::sim::Array<Kind, V2> x, v;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.x, s.v);
  }
};

struct Pressure { // p = c² (ρ − ρ₀), c = 1, ρ₀ = 1
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

/// What the steps so far exchanged on this rank (plain and recorded steps alike).
struct Traffic {
  std::int64_t steps = 0, owned = 0, ghosts = 0, migrated = 0;
};

/// One step; `side` particles per side of the unit box set the support (3 spacings) and mass.
struct Step {
  sphad::dist::Communicator comm;
  sphad::dist::Decomposition<2, double> decomposition;
  double h, mass, dt;
  std::shared_ptr<Traffic> traffic = std::make_shared<Traffic>();
  /// The constant arrays live here, not on the call's stack: a tape reads them when it sweeps
  /// backward, after the call returns (rollouts hold one step's tape at a time).
  struct Constants {
    std::vector<double> supports, masses;
    std::vector<std::int32_t> kinds;
  };
  std::shared_ptr<Constants> constants = std::make_shared<Constants>();

  Step(const sphad::dist::Communicator& c,
       const sphad::dist::Decomposition<2, double>& d,
       int side,
       double time_step)
      : comm(c), decomposition(d), h(3.0 / side), mass(1.0 / (double(side) * side)), dt(time_step) {
  }

  template <class Tape, class Kind, class ParamKind>
  State<sphad::sim::Tracked> operator()(Tape& tape,
                                        const State<Kind>& s,
                                        const sphad::sim::NoParams<ParamKind>&,
                                        std::int64_t) const {
    using namespace sphad;
    const exec::host exec;
    const dist::MigrationPlan<exec::host> migration(comm, exec, decomposition, primal_view(s.x));
    const auto x = dist::record_migrate(tape, migration, s.x);
    const auto v = dist::record_migrate(tape, migration, s.v);
    const std::int64_t n = x.size();
    const dist::HaloPlan<exec::host> halo(comm, exec, decomposition, primal_view(x), h);
    const std::int64_t ne = halo.extended();
    traffic->steps += 1;
    traffic->owned += n;
    traffic->ghosts += halo.ghosts();
    traffic->migrated += migration.before() - migration.send_counts()[std::size_t(comm.rank())];
    auto& c = *constants;
    c.supports.assign(std::size_t(ne), h);
    c.masses.assign(std::size_t(ne), mass);
    c.kinds.assign(std::size_t(ne), 0);
    const auto xe = dist::record_halo_gather(tape, halo, x);
    const ParticleSet<2, double> own_plain{
        primal_view(x), {c.supports.data(), n}, {c.masses.data(), n}, {c.kinds.data(), n}};
    const ParticleSet<2, double> ext_plain{
        primal_view(xe), {c.supports.data(), ne}, {c.masses.data(), ne}, {c.kinds.data(), ne}};
    const auto own = own_plain.with_positions(x);
    const auto ext = ext_plain.with_positions(xe);
    const auto& domain = decomposition.domain;
    const auto list = build_neighbor_list<SupportScheme::Gather>(exec, own.search_points(),
                                                                 ext.search_points(), domain);
    const auto rho = record<ops::Density<K>>(tape, ops::pairs(own, ext, domain, list));
    const auto p = record_map(tape, n, Pressure{}, rho);
    // ρ and p over the extended set [owned | ghosts], each ghost's from its owner.
    const auto rho_e = dist::record_halo_gather(tape, halo, rho);
    const auto p_e = dist::record_halo_gather(tape, halo, p);
    const auto grad_p = record<ops::Gradient<K, GradientScheme::Symmetric, SupportScheme::Gather>>(
        tape, ops::pairs(own.with_densities(rho), ext.with_densities(rho_e), domain, list), p, p_e);
    const auto v_next = record_map(tape, n, Kick{dt}, v, grad_p, rho);
    return {record_map(tape, n, Move{dt}, x, v_next), v_next};
  }
};

/// L = Σ over every rank's particles of |v|² + 0.1 sin 2πx cos 2πy.
struct Loss {
  sphad::dist::Communicator comm;
  template <class Tape>
  sphad::Variable<double> operator()(Tape& tape,
                                     const State<sphad::sim::Tracked>& s,
                                     const sphad::sim::NoParams<sphad::sim::Tracked>&) const {
    return sphad::dist::record_all_sum(tape, comm,
                                       sphad::record_reduce(tape, s.x.size(), Wave{}, s.x, s.v));
  }
};

/// A jittered side × side lattice in the unit box drifting along x at speed 1 with a small
/// shear wave; the same particles, in the same order, on every rank that calls it.
inline void initial_flow(int side, std::vector<V2>& x, std::vector<V2>& v) {
  const double k = 2 * 3.141592653589793;
  x.clear();
  v.clear();
  for (int j = 0; j < side; ++j) {
    for (int i = 0; i < side; ++i) {
      // A deterministic jitter of ±0.15 spacing (no random engine: the same on every platform).
      const double a = 0.15 * std::sin(12.9898 * i + 78.233 * j);
      const double b = 0.15 * std::cos(39.3468 * i + 11.135 * j);
      const V2 p{(i + 0.5 + a) / side, (j + 0.5 + b) / side};
      x.push_back(p);
      v.push_back({1.0 + 0.05 * std::sin(k * p[1]), 0.05 * std::cos(k * p[0])});
    }
  }
}

} // namespace drift
