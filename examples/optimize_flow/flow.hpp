// SPDX-License-Identifier: MIT
// A 2D weakly-compressible SPH flow in a periodic box, written once for every execution space:
// the state (`Fluid`), one explicit step (`FlowStep`) over a Verlet list rebuilt as particles
// move, and a density-matching loss (`DensityMismatch`). `optimize_flow` runs it on the host
// (main.cpp) and on CUDA (main.cu); tests/sim checks its rollout gradient.
//
// One step, from (x, v) with the list's reference positions x_ref:
//   ρ_i  = Σ_j m_j W_ij                                  (Density)
//   Ω_i  = 1 + h_i/(2ρ_i) Σ_j m_j ∂W_ij/∂h_i             (grad-h)
//   p_i  = c² (ρ_i − ρ₀)
//   v'_i = v_i + Δt (ν ∇²v_i − ∇p_i/ρ_i)                 (Symmetric ∇p with Ω, Brookshaw ∇²v)
//   x'_i = x_i + Δt v'_i
// The list: a Verlet list built from x_ref with a skin, filtered to the exact pairs each step;
// when some particle has moved more than skin/2 from x_ref, x_ref becomes x and the list is
// rebuilt. x_ref is part of the state, so a step recomputed from a checkpoint takes the same
// decision and uses the same list: the recomputed arithmetic is the same bits.
#pragma once

#include <sphad/sphad.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>

namespace flow {

using namespace sphad;
using V2 = Vec<double, 2>;
using Kernel = kernels::Wendland4;

/// The flow's state: positions, velocities, and the positions the neighbour list was built
/// from (not differentiated: the list is a choice, not a function of x).
template <class Kind>
struct Fluid {
  sim::Array<Kind, V2> x, v, x_ref;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.x, s.v, s.x_ref);
  }
};

/// What a step holds fixed, in the execution space's memory.
struct Constants {
  Span<const double> supports, masses;
  Span<const std::int32_t> kinds;
  Domain<2, double> domain;
  double dt = 0, c = 1, rho0 = 1, nu = 0, skin = 0;
};

/// p = c² (ρ − ρ₀).
struct Pressure {
  double c2, rho0;
  template <class R>
  SPHAD_HOST_DEVICE auto operator()(const R& rho) const {
    return c2 * (rho - rho0);
  }
};

/// v' = v + Δt (ν ∇²v − ∇p/ρ).
struct Kick {
  double dt, nu;
  template <class V, class G, class R, class L>
  SPHAD_HOST_DEVICE auto operator()(const V& v, const G& grad_p, const R& rho, const L& lap) const {
    using S = decltype(v[0] + dt * (nu * lap[0] - grad_p[0] / rho));
    return Vec<S, 2>{v[0] + dt * (nu * lap[0] - grad_p[0] / rho),
                     v[1] + dt * (nu * lap[1] - grad_p[1] / rho)};
  }
};

/// x' = x + Δt v' (positions may leave the box: the search and the operators wrap them).
struct Drift {
  double dt;
  template <class X, class V>
  SPHAD_HOST_DEVICE auto operator()(const X& x, const V& v) const {
    using S = decltype(x[0] + dt * v[0]);
    return Vec<S, 2>{x[0] + dt * v[0], x[1] + dt * v[1]};
  }
};

/// 1 where two positions differ in any bit pattern, else 0 (summed: the mismatch count).
struct Differs {
  const V2* a;
  const V2* b;
  SPHAD_HOST_DEVICE double operator()(std::int64_t i) const {
    return a[i][0] != b[i][0] || a[i][1] != b[i][1] ? 1.0 : 0.0;
  }
};

/// Whether `a` and `b` hold the same positions (one reduction, read back).
template <class Exec>
bool same_positions(const Exec& exec, Span<const V2> a, Span<const V2> b) {
  if (a.size() != b.size()) {
    return false;
  }
  Buffer<double, Exec> count(exec, 1);
  exec::transform_reduce(exec, a.size(), Differs{a.data(), b.data()}, count.data());
  return exec::to_host(exec, count.data(), 1)[0] == 0; // host sync: the rebuild is a host branch
}

/// One explicit step (above). The Verlet list over x_ref is cached between calls and rebuilt
/// whenever the state's x_ref is not the one it was built from (after a rebuild, or when the
/// rollout restarts from a checkpoint), so the list is always a function of the state.
template <class Exec>
struct FlowStep {
  Constants k;
  std::shared_ptr<std::optional<VerletList<2, double, Exec>>> verlet =
      std::make_shared<std::optional<VerletList<2, double, Exec>>>();
  std::shared_ptr<std::int64_t> rebuilds = std::make_shared<std::int64_t>(0);

  ParticleSet<2, double> at(Span<const V2> x) const { return {x, k.supports, k.masses, k.kinds}; }
  void build(const Exec& exec, Span<const V2> x) const {
    const auto points = at(x).search_points();
    *verlet = build_verlet_list<SupportScheme::Gather>(exec, points, points, k.domain, k.skin);
    ++*rebuilds;
  }

  template <class Tape, class Kind, class ParamKind>
  Fluid<sim::Tracked> operator()(Tape& tape,
                                 const Fluid<Kind>& s,
                                 const sim::NoParams<ParamKind>&,
                                 std::int64_t) const {
    const Exec& exec = tape.exec();
    const std::int64_t n = s.x.size();
    const auto x_ref = primal_view(s.x_ref);
    if (!*verlet || !same_positions(exec, x_ref, {(*verlet)->query_positions.data(), n})) {
      build(exec, x_ref);
    }
    const auto plain = at(primal_view(s.x));
    const auto points = plain.search_points();
    const bool moved = verlet_needs_rebuild(exec, **verlet, points, points, k.domain);
    if (moved) {
      build(exec, primal_view(s.x));
    }
    const auto list =
        filter_verlet_list<SupportScheme::Gather>(exec, **verlet, points, points, k.domain);

    const auto set = plain.with_positions(s.x);
    const auto rho = record<ops::Density<Kernel>>(tape, ops::pairs(set, k.domain, list));
    const auto with_rho = set.with_densities(rho);
    const auto omega = corrections::record_omegas<Kernel>(tape, with_rho, k.domain, list);
    const auto p = record_map(tape, n, Pressure{k.c * k.c, k.rho0}, rho);
    const auto pairs = ops::pairs(with_rho, k.domain, list); // now with the densities
    const auto grad_p = record<ops::Gradient<Kernel, GradientScheme::Symmetric>>(
        tape, pairs, p,
        ops::Corrections{ops::NoCRK{}, ops::NoRenormalization{},
                         ops::GradH<double, Variable<double>, Variable<double>>{omega, omega}});
    const auto lap_v = record<ops::Laplacian<Kernel>>(tape, pairs, s.v);
    const auto v = record_map(tape, n, Kick{k.dt, k.nu}, s.v, grad_p, rho, lap_v);
    const auto x = record_map(tape, n, Drift{k.dt}, s.x, v);
    // The list's positions carried on: x after a rebuild, else unchanged (a copy either way,
    // so the output never aliases an input array).
    return {x, v, record_map(tape, n, sim::Identity{}, moved ? s.x : s.x_ref)};
  }
};

/// w (ρ_i − ρ*_i)².
struct SquaredResidual {
  double w;
  template <class R, class T>
  SPHAD_HOST_DEVICE auto operator()(const R& rho, const T& target) const {
    return w * (rho - target) * (rho - target);
  }
};

/// L = (1/N) Σ_i (ρ_i(x_T) − ρ*_i)²: the final densities against a target, particle by particle.
template <class Exec>
struct DensityMismatch {
  Constants k;
  Span<const double> target;
  template <class Tape, class ParamKind>
  Variable<double>
  operator()(Tape& tape, const Fluid<sim::Tracked>& s, const sim::NoParams<ParamKind>&) const {
    const std::int64_t n = s.x.size();
    const ParticleSet<2, double> plain{primal_view(s.x), k.supports, k.masses, k.kinds};
    const auto list = build_neighbor_list<SupportScheme::Gather>(tape.exec(), plain.search_points(),
                                                                 plain.search_points(), k.domain);
    const auto set = plain.with_positions(s.x);
    const auto rho = record<ops::Density<Kernel>>(tape, ops::pairs(set, k.domain, list));
    return record_sum(tape, record_map(tape, n, SquaredResidual{1.0 / double(n)}, rho, target));
  }
};

} // namespace flow
