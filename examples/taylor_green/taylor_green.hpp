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
/// The case runs in scalar T (double by default; float too: the sphad float32 rollouts).
template <class T>
using Vec2 = Vec<T, 2>;
using V2 = Vec2<double>;
using M2 = Mat<double, 2, 2>;
using Kernel = kernels::Wendland4; // support h = 3Δx; papers' length ℓ = h/2
constexpr int kappa = 2;
/// Morris' laminar viscosity without the regularizer η² (its 1 % bias at the nearest neighbours
/// would show in the decay rate).
using Viscous = solver::LaminarViscosity<Kernel, kappa, SupportScheme::Gather, std::ratio<0>>;
constexpr double two_pi = 2 * pi_v<double>;

/// The state and parameter types in scalar T (each a template over its arrays' kind alone, as
/// the rollouts take them).
template <class T>
struct In {
  /// The flow's state: positions, velocities, densities, and the positions the Verlet list was
  /// built from.
  template <class Kind>
  struct Fluid {
    sim::Array<Kind, Vec2<T>> x, v;
    sim::Array<Kind, T> rho;
    sim::Array<Kind, Vec2<T>> x_ref;
    template <class Self>
    static constexpr auto fields(Self& s) {
      return std::tie(s.x, s.v, s.rho, s.x_ref);
    }
  };

  /// The differentiated parameter: the kinematic viscosity, one value per particle (all equal;
  /// its gradient is the sum of theirs).
  template <class Kind>
  struct Viscosity {
    sim::Array<Kind, T> nu;
    template <class Self>
    static constexpr auto fields(Self& s) {
      return std::tie(s.nu);
    }
  };
};
template <class Kind>
using Fluid = In<double>::Fluid<Kind>;
template <class Kind>
using Viscosity = In<double>::Viscosity<Kind>;

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
template <class T = double>
struct Initial {
  std::vector<Vec2<T>> x, v;
  std::vector<T> rho, m, h;
  std::vector<std::int32_t> kinds;
  std::vector<Vec2<T>> clumping; ///< (Δx, R) for the anti-clumping term
};

/// The lattice start: analytic velocities, densities ρ(p_exact), masses ρ Δx² (computed in
/// double, stored in T).
template <class T = double>
Initial<T> initial(const Setup& s) {
  Initial<T> out;
  const double dx = s.dx();
  solver::LinearEOS<> eos;
  eos.c0 = s.c0;
  for (int j = 0; j < s.side; ++j) {
    for (int i = 0; i < s.side; ++i) {
      const double x = (i + 0.5) * dx, y = (j + 0.5) * dx;
      out.x.push_back({T(x), T(y)});
      out.v.push_back({T(-std::cos(two_pi * x) * std::sin(two_pi * y)),
                       T(std::sin(two_pi * x) * std::cos(two_pi * y))});
      const double p = -0.25 * (std::cos(2 * two_pi * x) + std::cos(2 * two_pi * y));
      const double rho = eos.density(p);
      out.rho.push_back(T(rho));
      out.m.push_back(T(rho * dx * dx));
      out.h.push_back(T(s.h_over_dx * dx));
      out.kinds.push_back(0);
      out.clumping.push_back({T(dx), T(s.clumping)});
    }
  }
  return out;
}

/// What a step holds fixed, in the execution space's memory.
template <class T = double>
struct Constants {
  Span<const T> supports, masses;
  Span<const std::int32_t> kinds;
  Span<const Vec2<T>> clumping;
  Domain<2, T> domain{{0, 0}, {1, 1}, {true, true}};
  T dt = 0;
  solver::LinearEOS<T> eos;           ///< p = c₀² (ρ − ρ₀)
  solver::FickianShift<T> shifting{}; ///< the shifting velocity (its Δt 1: a velocity)
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
template <class Exec, class Params, class T = double>
struct Rates {
  const Constants<T>& k;
  const NeighborList<Exec>& list;
  const Params& params;
  template <class TapeT, class State>
  typename In<T>::template Fluid<sim::Tracked> operator()(TapeT& tape, const State& s) const {
    const std::int64_t n = s.x.size();
    const ParticleSet<2, T> plain{primal_view(s.x), k.supports, k.masses, k.kinds};
    const auto set = plain.with_positions(s.x).with_densities(s.rho);
    const auto pairs = ops::pairs(set, k.domain, list); // every term below sums over these
    const auto p = record_map(tape, n, k.eos, s.rho);
    const auto [a_p, drho, grad_v, grad_rho] = shared_gradient_rates(tape, pairs, p, s.v, s.rho);
    const auto a_nu = record<Viscous>(tape, pairs, s.v);
    const auto grad_c = record<solver::AntiClumpingGradient<Kernel>>(tape, pairs, k.clumping);
    const auto shift = record_map(tape, n, k.shifting, grad_c, s.v);
    return {shift, record_map(tape, n, Acceleration{}, a_p, a_nu, params.nu, grad_v, shift),
            record_map(tape, n, DensityRate{}, drho, grad_rho, shift), Variable<Vec2<T>>()};
  }
};

/// One step, the list kept as in `NeighborCache::update_from` (the predictor–corrector's
/// second rate evaluation, at the midpoint, uses the same list: pairs entering the support
/// within half a step are left out there).
template <class Exec, class T = double>
struct Step {
  Constants<T> k;
  std::shared_ptr<NeighborCache<SupportScheme::Gather, 2, T, Exec>> cache;

  template <class TapeT, class State, class Params>
  typename In<T>::template Fluid<sim::Tracked>
  operator()(TapeT& tape, const State& s, const Params& params, std::int64_t) const {
    const SearchPoints<2, T> points{primal_view(s.x), k.supports};
    const auto& list = cache->update_from(tape.exec(), points, primal_view(s.x_ref), k.domain);
    const bool rebuilt = cache->last() == NeighborUpdate::rebuilt;
    auto next = solver::predictor_corrector(tape, s, k.dt, Rates<Exec, Params, T>{k, list, params});
    next.x_ref = record_map(tape, s.x.size(), sim::Identity{}, rebuilt ? s.x : s.x_ref);
    return next;
  }
};

/// ½ m |v|².
struct KineticEnergy {
  template <class M, class V>
  SPHAD_HOST_DEVICE auto operator()(const M& m, const V& v) const {
    return m * (v[0] * v[0] + v[1] * v[1]) / 2; // in m's and v's scalar (float or double)
  }
};

/// L = E(s_T) = ½ Σ m |v|².
template <class Exec, class T = double>
struct FinalEnergy {
  Span<const T> masses;
  template <class Params>
  Variable<T> operator()(Tape<Exec>& tape,
                         const typename In<T>::template Fluid<sim::Tracked>& s,
                         const Params&) const {
    return record_reduce(tape, s.x.size(), KineticEnergy{}, masses, s.v);
  }
};

/// Everything a run holds: the fixed particle data, the state, the parameter and the step, with
/// Δt chosen so that `steps` steps end at `t_end`; in scalar T.
template <class Exec, class T = double>
struct Case {
  Setup setup;
  Exec exec;
  Initial<T> start = initial<T>(setup);
  Buffer<T, Exec> masses = sphad::exec::to_buffer(exec, start.m),
                  supports = sphad::exec::to_buffer(exec, start.h);
  Buffer<std::int32_t, Exec> kinds = sphad::exec::to_buffer(exec, start.kinds);
  Buffer<Vec2<T>, Exec> clumping = sphad::exec::to_buffer(exec, start.clumping);
  std::int64_t n = masses.size();
  typename In<T>::template Fluid<sim::Stored<Exec>> state{
      sphad::exec::to_buffer(exec, start.x), sphad::exec::to_buffer(exec, start.v),
      sphad::exec::to_buffer(exec, start.rho), sphad::exec::to_buffer(exec, start.x)};
  typename In<T>::template Viscosity<sim::Stored<Exec>> params{
      sphad::exec::to_buffer(exec, std::vector<T>(n, T(setup.nu())))};

  /// The step for a time step dt.
  Step<Exec, T> step(double dt) const {
    Constants<T> k;
    k.supports = {supports.data(), n};
    k.masses = {masses.data(), n};
    k.kinds = {kinds.data(), n};
    k.clumping = {clumping.data(), n};
    k.dt = T(dt);
    k.eos.c0 = T(setup.c0);
    k.shifting.coefficient = T(setup.shift);
    k.shifting.length = T(setup.length());
    k.shifting.dt = T(1);
    k.shifting.cap = T(0.1 * setup.dx() / dt); // DualSPHysics' 0.1Δx per step, as a velocity
    k.shifting.speed = T(1);                   // U: shifting where the flow stagnates too
    return {
        k, std::make_shared<NeighborCache<SupportScheme::Gather, 2, T, Exec>>(T(0.5 * setup.dx()))};
  }
  /// E = ½ Σ m |v|² now.
  double energy() const;
};

/// E = ½ Σ m |v|² of a state's velocities (read back to the host).
template <class Exec, class T>
double kinetic_energy(const Exec& exec, Span<const T> masses, Span<const Vec2<T>> v) {
  Tape<Exec> tape(exec);
  const auto e = record_reduce(tape, v.size(), KineticEnergy{}, masses, v);
  return double(exec::to_host(exec, e.data(), 1)[0]); // host sync: a reported number
}

template <class Exec, class T>
double Case<Exec, T>::energy() const {
  return kinetic_energy(exec, Span<const T>{masses.data(), n},
                        Span<const Vec2<T>>{state.v.data(), n});
}

} // namespace tgv
