// SPDX-License-Identifier: MIT
// The 2D Taylor–Green vortex at Re = 100 from sphad's solver blocks, one source for every
// execution space. Periodic unit box, U = ρ₀ = 1, ν = UL/Re, c₀ = 10U:
//   u = −U e^{bt} cos 2πx sin 2πy,  v = U e^{bt} sin 2πx cos 2πy,  b = −8π²ν,
//   E(t)/E(0) = e^{2bt}.
// The state is (x, u, ρ, x_ref); one step is the symplectic predictor–corrector over the rates
//   ρ̇ = ContinuityRate(u) + s·∇ρ,   u̇ = PressureForce(p) + ν LaminarViscosity(u) + (s·∇)u,
//   ẋ = u + s,   s = −A ℓ U ∇C  (Fickian shifting with the anti-clumping term, as a velocity),
// with p = c₀²(ρ − ρ₀). The (s·∇) terms carry the density and the velocity to where shifting
// moves a particle. Particles start on a lattice with the analytic velocities and densities ρ(p)
// of the analytic pressure (SPHERIC Test 22's start without acoustic noise). The Verlet list is
// rebuilt from the positions kept in the state (x_ref), so a step recomputed from a checkpoint
// meets the same list: the rollout gradient with respect to ν is exact through every rebuild.
#pragma once

#include <sphad/sphad.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <ratio>
#include <tuple>
#include <vector>

namespace tgv {

using namespace sphad;
using V2 = Vec<double, 2>;
using M2 = Mat<double, 2, 2>;
using Kernel = kernels::Wendland4; // support h = 3Δx; papers' length ℓ = h/2
constexpr int kappa = 2;
/// Morris' laminar viscosity without the regularizer η² (its 1 % bias at the nearest neighbours
/// would show in the decay rate).
using Viscous = solver::LaminarViscosity<Kernel, kappa, SupportScheme::Gather, std::ratio<0>>;
constexpr double two_pi = 2 * pi_v<double>;

/// The flow's state: positions, velocities, densities, and the positions the Verlet list was
/// built from.
template <class Kind>
struct Fluid {
  sim::Array<Kind, V2> x, v;
  sim::Array<Kind, double> rho;
  sim::Array<Kind, V2> x_ref;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.x, s.v, s.rho, s.x_ref);
  }
};

/// The differentiated parameter: the kinematic viscosity, one value per particle (all equal; its
/// gradient is the sum of theirs).
template <class Kind>
struct Viscosity {
  sim::Array<Kind, double> nu;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.nu);
  }
};

/// The case's numbers.
struct Setup {
  int side = 50;        ///< particles per axis
  double re = 100;      ///< Reynolds number UL/ν
  double c0 = 10;       ///< sound speed (10U)
  double shift = 2;     ///< Fickian shifting coefficient A (0: no shifting)
  double clumping = 1;  ///< anti-clumping coefficient R
  double h_over_dx = 3; ///< support radius in spacings
  double cfl = 0.25;    ///< of the acoustic rule Δt = C ℓ/(c₀ + U)

  double dx() const { return 1.0 / side; }
  double nu() const { return 1.0 / re; }
  double length() const { return h_over_dx * dx() / kappa; }
  double dt() const {
    solver::TimeStepInputs in;
    in.length = length();
    in.sound_speed = c0;
    in.max_speed = 1.0;
    in.viscosity = nu();
    solver::TimeStepRules rules;
    rules.acoustic = cfl;
    return solver::time_step_limits(in, rules).step();
  }
  /// b = −8π²ν: u ∝ e^{bt}, E ∝ e^{2bt}.
  double decay() const { return -2 * two_pi * two_pi * nu(); }
  double energy_ratio(double t) const { return std::exp(2 * decay() * t); }
};

/// Particle data on the host.
struct Initial {
  std::vector<V2> x, v;
  std::vector<double> rho, m, h;
  std::vector<std::int32_t> kinds;
  std::vector<V2> clumping; ///< (Δx, R) for the anti-clumping term
};

/// The lattice start: analytic velocities, densities ρ(p_exact), masses ρ Δx².
inline Initial initial(const Setup& s) {
  Initial out;
  const double dx = s.dx();
  solver::LinearEOS<> eos;
  eos.c0 = s.c0;
  for (int j = 0; j < s.side; ++j) {
    for (int i = 0; i < s.side; ++i) {
      const double x = (i + 0.5) * dx, y = (j + 0.5) * dx;
      out.x.push_back({x, y});
      out.v.push_back({-std::cos(two_pi * x) * std::sin(two_pi * y),
                       std::sin(two_pi * x) * std::cos(two_pi * y)});
      const double p = -0.25 * (std::cos(2 * two_pi * x) + std::cos(2 * two_pi * y));
      out.rho.push_back(eos.density(p));
      out.m.push_back(out.rho.back() * dx * dx);
      out.h.push_back(s.h_over_dx * dx);
      out.kinds.push_back(0);
      out.clumping.push_back({dx, s.clumping});
    }
  }
  return out;
}

/// What a step holds fixed, in the execution space's memory.
struct Constants {
  Span<const double> supports, masses;
  Span<const std::int32_t> kinds;
  Span<const V2> clumping;
  Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};
  double dt = 0;
  solver::LinearEOS<> eos;           ///< p = c₀² (ρ − ρ₀)
  solver::FickianShift<> shifting{}; ///< the shifting velocity (its Δt 1: a velocity)
};

/// a = a_p + ν a_ν + G s (G = ∇u: the velocity carried along the shift s).
struct Acceleration {
  template <class P, class L, class N, class G, class S>
  SPHAD_HOST_DEVICE auto
  operator()(const P& a_p, const L& a_nu, const N& nu, const G& g, const S& s) const {
    return a_p + a_nu * nu + g * s;
  }
};
/// ρ̇ + s·∇ρ.
struct DensityRate {
  template <class R, class G, class S>
  SPHAD_HOST_DEVICE auto operator()(const R& rate, const G& g, const S& s) const {
    return rate + g[0] * s[0] + g[1] * s[1];
  }
};

using Difference = ops::Gradient<Kernel, GradientScheme::Difference>;
/// The rates that share Ĝ_ij in one pass over the field (p, v, ρ): the pressure force, the
/// continuity rate, ∇v and ∇ρ.
using SharedGradientRates = ops::Fused<ops::Slot<solver::PressureForce<Kernel>, 0, 1>,
                                       ops::Slot<solver::ContinuityRate<Kernel>, 1, 2>,
                                       ops::Slot<Difference, 1, 2>,
                                       ops::Slot<Difference, 3, 1>>;
/// (a_p, ρ̇, ∇v, ∇ρ) in one pass over the pairs (`ops::Fused`: the bits of the four terms' own
/// calls), then split; recorded, its reverse sweep is the four terms' transposes summed, one pass
/// too.
template <class T, class Pairs, class P, class U, class R>
auto shared_gradient_rates(T& tape, const Pairs& pairs, const P& p, const U& v, const R& rho) {
  const std::int64_t n = v.size();
  const auto rates =
      record<SharedGradientRates>(tape, pairs, record_map(tape, n, ops::PackFields{}, p, v, rho));
  const auto part = [&](auto k) {
    return record_map(tape, n, ops::PartOf<SharedGradientRates, decltype(k)::value, 2>{}, rates);
  };
  return std::make_tuple(
      part(std::integral_constant<int, 0>{}), part(std::integral_constant<int, 1>{}),
      part(std::integral_constant<int, 2>{}), part(std::integral_constant<int, 3>{}));
}

/// The rates of (x, v, ρ, x_ref) over one neighbour list: the shifting velocity, the
/// acceleration, the density rate, nothing for x_ref. Written once over the tape type: recorded
/// on a `Tape`, evaluated only on a `PlainTape` (a plain rollout's advances); the four terms
/// that share Ĝ_ij fused on both (`shared_gradient_rates`).
template <class Exec, class ParamKind>
struct Rates {
  const Constants& k;
  const NeighborList<Exec>& list;
  const Viscosity<ParamKind>& params;
  template <class T, class Kind>
  Fluid<sim::Tracked> operator()(T& tape, const Fluid<Kind>& s) const {
    const std::int64_t n = s.x.size();
    const ParticleSet<2, double> plain{primal_view(s.x), k.supports, k.masses, k.kinds};
    const auto set = plain.with_positions(s.x).with_densities(s.rho);
    const auto pairs = ops::pairs(set, k.domain, list); // every term below sums over these
    const auto p = record_map(tape, n, k.eos, s.rho);
    const auto [a_p, drho, grad_v, grad_rho] = shared_gradient_rates(tape, pairs, p, s.v, s.rho);
    const auto a_nu = record<Viscous>(tape, pairs, s.v);
    const auto grad_c = record<solver::AntiClumpingGradient<Kernel>>(tape, pairs, k.clumping);
    const auto shift = record_map(tape, n, k.shifting, grad_c, s.v);
    return {shift, record_map(tape, n, Acceleration{}, a_p, a_nu, params.nu, grad_v, shift),
            record_map(tape, n, DensityRate{}, drho, grad_rho, shift), Variable<V2>()};
  }
};

/// One step, the list kept as in `NeighborCache::update_from` (the predictor–corrector's
/// second rate evaluation, at the midpoint, uses the same list: pairs entering the support
/// within half a step are left out there).
template <class Exec>
struct Step {
  Constants k;
  std::shared_ptr<NeighborCache<SupportScheme::Gather, 2, double, Exec>> cache;

  template <class T, class Kind, class ParamKind>
  Fluid<sim::Tracked> operator()(T& tape,
                                 const Fluid<Kind>& s,
                                 const Viscosity<ParamKind>& params,
                                 std::int64_t) const {
    const SearchPoints<2, double> points{primal_view(s.x), k.supports};
    const auto& list = cache->update_from(tape.exec(), points, primal_view(s.x_ref), k.domain);
    const bool rebuilt = cache->last() == NeighborUpdate::rebuilt;
    auto next = solver::predictor_corrector(tape, s, k.dt, Rates<Exec, ParamKind>{k, list, params});
    next.x_ref = record_map(tape, s.x.size(), sim::Identity{}, rebuilt ? s.x : s.x_ref);
    return next;
  }
};

/// ½ m |v|².
struct KineticEnergy {
  template <class M, class V>
  SPHAD_HOST_DEVICE auto operator()(const M& m, const V& v) const {
    return 0.5 * m * (v[0] * v[0] + v[1] * v[1]);
  }
};

/// L = E(s_T) = ½ Σ m |v|².
template <class Exec>
struct FinalEnergy {
  Span<const double> masses;
  template <class ParamKind>
  Variable<double>
  operator()(Tape<Exec>& tape, const Fluid<sim::Tracked>& s, const Viscosity<ParamKind>&) const {
    return record_reduce(tape, s.x.size(), KineticEnergy{}, masses, s.v);
  }
};

/// Everything a run holds: the fixed particle data, the state, the parameter and the step, with
/// Δt chosen so that `steps` steps end at `t_end`.
template <class Exec>
struct Case {
  Setup setup;
  Exec exec;
  Initial start = initial(setup);
  Buffer<double, Exec> masses = sphad::exec::to_buffer(exec, start.m),
                       supports = sphad::exec::to_buffer(exec, start.h);
  Buffer<std::int32_t, Exec> kinds = sphad::exec::to_buffer(exec, start.kinds);
  Buffer<V2, Exec> clumping = sphad::exec::to_buffer(exec, start.clumping);
  std::int64_t n = masses.size();
  Fluid<sim::Stored<Exec>> state{
      sphad::exec::to_buffer(exec, start.x), sphad::exec::to_buffer(exec, start.v),
      sphad::exec::to_buffer(exec, start.rho), sphad::exec::to_buffer(exec, start.x)};
  Viscosity<sim::Stored<Exec>> params{
      sphad::exec::to_buffer(exec, std::vector<double>(n, setup.nu()))};

  /// The step for a time step dt.
  Step<Exec> step(double dt) const {
    Constants k;
    k.supports = {supports.data(), n};
    k.masses = {masses.data(), n};
    k.kinds = {kinds.data(), n};
    k.clumping = {clumping.data(), n};
    k.dt = dt;
    k.eos.c0 = setup.c0;
    k.shifting.coefficient = setup.shift;
    k.shifting.length = setup.length();
    k.shifting.dt = 1.0;
    k.shifting.cap = 0.1 * setup.dx() / dt; // DualSPHysics' 0.1Δx per step, as a velocity
    k.shifting.speed = 1.0;                 // U: shifting where the flow stagnates too
    return {k, std::make_shared<NeighborCache<SupportScheme::Gather, 2, double, Exec>>(0.5 *
                                                                                       setup.dx())};
  }
  /// E = ½ Σ m |v|² now.
  double energy() const;
};

/// E = ½ Σ m |v|² of a state's velocities (read back to the host).
template <class Exec>
double kinetic_energy(const Exec& exec, Span<const double> masses, Span<const V2> v) {
  Tape<Exec> tape(exec);
  const auto e = record_reduce(tape, v.size(), KineticEnergy{}, masses, v);
  return exec::to_host(exec, e.data(), 1)[0]; // host sync: a reported number
}

template <class Exec>
double Case<Exec>::energy() const {
  return kinetic_energy(exec, {masses.data(), n}, {state.v.data(), n});
}

} // namespace tgv
