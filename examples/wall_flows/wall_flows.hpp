// SPDX-License-Identifier: MIT
// Free-surface flows in a tank of Adami walls from sphad's solver blocks, one source for every
// execution space: the hydrostatic tank and the dam break share it.
// One particle set holds the fluid (kind Fluid) and the walls (kind Boundary, fixed, at rest).
// The state is (x, u, ρ, x_ref) of every particle; one step is the symplectic
// predictor–corrector over the rates
//   u̇ = PressureForce(p) [fluid ← all] + α ArtificialViscosity [fluid ← fluid] + g,
//   ρ̇ = ContinuityRate(u) [fluid ← all] + δℓc₀ DensityDiffusion [fluid ← fluid]
//   (Molteni & Colagrossi's, or with `Setup::antuono` Antuono et al.'s renormalized correction),
// with p = Tait(ρ) on the fluid and, on the walls, Adami's extrapolation
//   p_w = [Σ_f p_f W + g·Σ_f ρ_f r_wf W] / Σ_f W,  ρ_w = Tait⁻¹(p_w),
// recomputed at every rate evaluation. Free-slip walls: the viscous term skips them; no-slip
// walls (`Setup::no_slip`): it acts between fluid and walls against Adami's 2u_w − û_w. The
// walls' velocity 0 enters the continuity equation. Gravity ramps up over t_damp (Adami's
// Eq. 13), on the clock t = kΔt of the rollout's step index k.
#pragma once

#include <sphad/sphad.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

namespace wall_flows {

using namespace sphad;
using V2 = Vec<double, 2>;
/// The default kernel (support h = 3Δx; the papers' length ℓ = h/2); `Case`, `Step` and
/// `sensor_pressure` take another as a template argument.
using Kernel = kernels::Wendland4;
constexpr int kappa = 2;

/// The state of every particle (fluid and walls): positions, velocities, densities, and the
/// positions the Verlet list was built from.
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

/// The parameter a rollout can differentiate: the artificial-viscosity coefficient α, one
/// value per particle (all equal).
template <class Kind>
struct Params {
  sim::Array<Kind, double> alpha;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.alpha);
  }
};

/// The case's numbers: a fluid block in a tank open at the top.
struct Setup {
  V2 fluid_lower{0, 0}, fluid_upper{1, 1}; ///< the fluid block
  V2 tank_lower{0, 0}, tank_upper{1, 1};   ///< the tank's inside
  double dx = 0.02;                        ///< particle spacing
  double g = 1;                            ///< gravity (along −y)
  double rho0 = 1000;                      ///< reference density
  double c0 = 10;                          ///< sound speed
  double gamma = 7;                        ///< Tait exponent
  double alpha = 0.1;                      ///< artificial viscosity
  double delta = 0.1;                      ///< δ-SPH coefficient (0: no density diffusion)
  double t_damp = 0;                       ///< gravity ramp time (0: none)
  double max_speed = 0;                    ///< U_max for the acoustic time-step rule
  double h_over_dx = 3;                    ///< support radius in spacings
  double cfl = 0.25;                       ///< of the acoustic rule
  bool clamp_walls = false;                ///< floor the walls' pressure at 0
  bool no_slip = false;                    ///< viscous term against the walls (Adami no-slip)
  bool hydrostatic = false; ///< start the fluid at ρ(p = ρ₀g(H − y)) instead of ρ₀
  bool antuono = false;     ///< δ-SPH with Antuono's correction (else Molteni & Colagrossi's)

  double length() const { return h_over_dx * dx / kappa; }
  int layers() const { return int(std::ceil(h_over_dx - 1e-9)); }
  solver::Tait<> eos() const { return {rho0, c0, gamma, 0.0}; }
  double dt() const {
    const double nu_av = alpha * length() * c0 / 8; // αℓc₀/(2(D + 2))
    return solver::time_step_limits({length(), c0, max_speed, g, nu_av}, {cfl, 0.125, 0.25}).step();
  }
};

/// The hydrostatic tank (Adami et al. 2012 §6 as PySPH sets it up): tank 2 × 1, depth 0.9,
/// g = 1, ρ₀ = 1000, c₀ = 10 sqrt(gH), γ = 1, α = 0.24, gravity ramped over t_damp = 1.
inline Setup hydrostatic_tank(double dx) {
  constexpr double depth = 0.9;
  Setup s;
  s.fluid_upper = {2, depth};
  s.tank_upper = {2, 1};
  s.dx = dx;
  s.g = 1;
  s.rho0 = 1000;
  s.c0 = 10 * std::sqrt(s.g * depth);
  s.gamma = 1;
  s.alpha = 0.24;
  s.delta = 0;
  s.t_damp = 1;
  return s;
}

/// Martin & Moyce's dam break: a column a = 1 wide and 2a high in the corner of a tank 5a long
/// (3a high, open: the front runs free to the experiment's last point, Z = 4.11), g = 9.81,
/// ρ₀ = 1000, γ = 7, c₀ = 10 sqrt(2g·2a), α = 0.02 with no-slip walls, δ = 0.1, walls' pressure
/// floored at 0; `across` particles across the column.
inline Setup dam_break(int across) {
  Setup s;
  s.dx = 1.0 / across;
  s.fluid_upper = {1, 2};
  s.tank_upper = {5, 3};
  s.g = 9.81;
  s.rho0 = 1000;
  s.max_speed = std::sqrt(2 * s.g * 2);
  s.c0 = 10 * s.max_speed;
  s.gamma = 7;
  s.alpha = 0.02;
  s.delta = 0.1;
  s.clamp_walls = true;
  s.no_slip = true;
  return s;
}

/// The dam break of Colagrossi & Landrini (2003) and Marrone et al. (2011), in the geometry of
/// Buchner's (2002) experiment: a column H = 0.6 high and 2H wide in the corner of a tank
/// 5.366H long (rounded down to whole spacings) and 3H high, g = 9.81, ρ₀ = 1000, γ = 7,
/// c₀ = 20 sqrt(gH) (Marrone et al.'s cheaper choice, which they found to match 40 sqrt(gH)),
/// α = 0.02, δ-SPH with Antuono's correction and δ = 0.1 (Marrone et al.'s scheme), free-slip
/// walls whose pressure is not floored; `per_height` particles across H.
inline Setup marrone_dam_break(int per_height) {
  constexpr double height = 0.6;
  Setup s;
  s.dx = height / per_height;
  s.fluid_upper = {2 * height, height};
  s.tank_upper = {std::floor(5.366 * per_height + 1e-9) * s.dx, 3 * height};
  s.g = 9.81;
  s.rho0 = 1000;
  s.max_speed = std::sqrt(2 * s.g * height);
  s.c0 = 20 * std::sqrt(s.g * height);
  s.gamma = 7;
  s.alpha = 0.02;
  s.delta = 0.1;
  s.antuono = true;
  return s;
}

/// Particle data on the host: the fluid first, then the walls.
struct Initial {
  std::vector<V2> x, v;
  std::vector<double> rho, m, h;
  std::vector<std::int32_t> kinds;
  std::int64_t fluid = 0; ///< the number of fluid particles (they come first)
};

/// The fluid block at rest at ρ₀ (or, with `Setup::hydrostatic`, at the density of the
/// hydrostatic pressure ρ₀g(H − y) under the block's top H) and the walls' layers (⌈h/Δx⌉ of
/// them), masses ρ₀Δx².
inline Initial initial(const Setup& s) {
  Initial out;
  const auto fluid = sampling::box_block<2>(s.fluid_lower, s.fluid_upper, s.dx);
  const auto walls =
      sampling::box_walls<2>(s.tank_lower, s.tank_upper, s.dx, s.layers(), {false, true});
  out.fluid = std::int64_t(fluid.size());
  const auto add = [&](const std::vector<V2>& points, ParticleKind kind) {
    for (const V2& x : points) {
      out.x.push_back(x);
      out.v.push_back({0, 0});
      const bool resting = s.hydrostatic && kind == ParticleKind::Fluid;
      out.rho.push_back(resting ? s.eos().density(s.rho0 * s.g * (s.fluid_upper[1] - x[1]))
                                : s.rho0);
      out.m.push_back(s.rho0 * s.dx * s.dx);
      out.h.push_back(s.h_over_dx * s.dx);
      out.kinds.push_back(static_cast<std::int32_t>(kind));
    }
  };
  add(fluid, ParticleKind::Fluid);
  add(walls, ParticleKind::Boundary);
  return out;
}

/// What a step holds fixed, in the execution space's memory.
struct Constants {
  Span<const double> supports, masses;
  Span<const std::int32_t> kinds;
  Domain<2, double> domain; ///< the tank with its walls, twice as high (splashes)
  Setup setup;
  double dt = 0;
};

/// a = a_p + α a_av + g on the fluid; 0 on the walls.
struct Acceleration {
  double g = 1;
  template <class P, class V, class A>
  SPHAD_HOST_DEVICE auto
  operator()(const P& a_p, const V& a_av, const A& alpha, std::int32_t kind) const {
    auto a = a_p + a_av * alpha;
    if (kind != static_cast<std::int32_t>(ParticleKind::Fluid)) {
      return decltype(a){};
    }
    a[1] = a[1] - g;
    return a;
  }
};
/// ρ̇ = continuity + δℓc₀ D.
struct DensityRate {
  double scale = 0; ///< δℓc₀
  template <class C, class D>
  SPHAD_HOST_DEVICE auto operator()(const C& continuity, const D& diffusion) const {
    return continuity + diffusion * scale;
  }
};

/// The pressure force and the continuity rate, which share Ĝ_ij and their pairs (fluid ← all).
template <class K>
using PressureAndContinuity = ops::Fused<ops::Slot<solver::PressureForce<K>, 0, 1>,
                                         ops::Slot<solver::ContinuityRate<K>, 1, 2>>;

/// (a_p, ρ̇) in one pass over the pairs (`ops::Fused`: the bits of the two terms' own calls),
/// then split; recorded, its reverse sweep is the two terms' transposes summed, one pass too.
template <class K, class T, class Pairs, class P, class U>
auto pressure_and_continuity(T& tape, const Pairs& pairs, const P& p, const U& u) {
  using Fused = PressureAndContinuity<K>;
  const std::int64_t n = u.size();
  const auto rates = record<Fused>(tape, pairs, record_map(tape, n, ops::PackFields{}, p, u));
  return std::make_pair(record_map(tape, n, ops::PartOf<Fused, 0, 2>{}, rates),
                        record_map(tape, n, ops::PartOf<Fused, 1, 2>{}, rates));
}

/// Antuono et al.'s δ-SPH diffusion over `pairs` (fluid ← fluid): Molteni & Colagrossi's
/// 2(ρ_i − ρ_j) x_ij/r² less the renormalized density gradients ⟨∇ρ⟩^L_i + ⟨∇ρ⟩^L_j, so that a
/// hydrostatic column is not diffused.
template <class K, class T, class Pairs, class Rho>
auto antuono_diffusion(T& tape, const Pairs& pairs, const Rho& rho) {
  const auto l = corrections::record_renormalization<K>(
      tape, pairs.queries, pairs.references, pairs.domain, *pairs.adjacency, pairs.options);
  const ops::Corrections<ops::NoCRK, ops::Renormalization<2, double, decltype(l)>> renormalized{
      {}, {l}};
  const auto gradient =
      record<ops::Gradient<K, GradientScheme::Difference>>(tape, pairs, rho, renormalized);
  return record<solver::DensityDiffusion<K, solver::DiffusionForm::Antuono>>(tape, pairs, gradient);
}

/// The rates of (x, u, ρ, x_ref) over one neighbour list, gravity scaled by `ramp`; recorded on
/// a `Tape`, evaluated only on a `PlainTape`.
template <class Exec, class ParamKind, class K>
struct Rates {
  const Constants& k;
  const NeighborList<Exec>& list;
  const Params<ParamKind>& params;
  double ramp = 1;
  template <class T, class Kind>
  Fluid<sim::Tracked> operator()(T& tape, const Fluid<Kind>& s) const {
    const std::int64_t n = s.x.size();
    const auto& d = k.domain;
    const Setup& c = k.setup;
    const solver::Tait<> eos = c.eos();
    const double g = c.g * ramp;
    const ApplyOptions<double> walls{OperationDirection::FluidToBoundary};
    const ApplyOptions<double> onto_fluid{OperationDirection::AllToFluid};
    const ApplyOptions<double> fluid_only{OperationDirection::FluidToFluid};
    const ParticleSet<2, double> plain{primal_view(s.x), k.supports, k.masses, k.kinds};
    // Walls: pressure and density extrapolated from the fluid.
    const auto p_fluid = record_map(tape, n, eos, s.rho);
    const auto packed = record_map(tape, n, solver::PackPressureVelocity{}, p_fluid, s.v);
    const auto by_density = plain.with_positions(s.x).with_densities(s.rho);
    const auto sums =
        record<solver::WallSums<K>>(tape, ops::pairs(by_density, d, list, walls), packed);
    const auto p = record_map(tape, n, solver::WallPressure<2>{{0.0, -g}, c.clamp_walls}, sums,
                              p_fluid, k.kinds);
    const auto rho =
        record_map(tape, n, solver::WallDensity<solver::Tait<>>{eos}, p, s.rho, k.kinds);
    // The fluid's rates.
    const auto set = plain.with_positions(s.x).with_densities(rho);
    const auto pairs = ops::pairs(set, d, list, onto_fluid); // fluid ← all
    const auto fluid_pairs = pairs.with_options(fluid_only); // fluid ← fluid
    auto [a_p, continuity] = pressure_and_continuity<K>(tape, pairs, p, s.v);
    const auto sound =
        record_map(tape, n, solver::Of<solver::StateMap::sound_speed, solver::Tait<>>{eos}, rho);
    const auto with_sound = [&](const auto& u) {
      return record_map(tape, n, solver::PackVelocitySoundSpeed{}, u, sound);
    };
    // No-slip walls: the viscous term sees 2u_w − û_w on the walls; free-slip: no wall pairs.
    const auto uc =
        c.no_slip ? with_sound(record_map(tape, n, solver::NoSlipVelocity<2>{}, sums, s.v, k.kinds))
                  : with_sound(s.v);
    const auto a_av =
        record<solver::ArtificialViscosity<K, kappa>>(tape, c.no_slip ? pairs : fluid_pairs, uc);
    const auto accel = record_map(tape, n, Acceleration{g}, a_p, a_av, params.alpha, k.kinds);
    auto drho = std::move(continuity);
    if (c.delta > 0) {
      const auto diffusion = c.antuono
                                 ? antuono_diffusion<K>(tape, fluid_pairs, rho)
                                 : record<solver::DensityDiffusion<K>>(tape, fluid_pairs, rho);
      drho = record_map(tape, n, DensityRate{c.delta * c.length() * c.c0}, drho, diffusion);
    }
    return {Variable<V2>(), accel, drho, Variable<V2>()};
  }
};

/// One step, the list kept as in `NeighborCache::update_from`; `K` the kernel.
template <class Exec, class K = Kernel>
struct Step {
  Constants k;
  std::shared_ptr<NeighborCache<SupportScheme::Gather, 2, double, Exec>> cache;

  template <class T, class Kind, class ParamKind>
  Fluid<sim::Tracked> operator()(T& tape,
                                 const Fluid<Kind>& s,
                                 const Params<ParamKind>& params,
                                 std::int64_t step) const {
    const SearchPoints<2, double> points{primal_view(s.x), k.supports};
    const auto& list = cache->update_from(tape.exec(), points, primal_view(s.x_ref), k.domain);
    const bool rebuilt = cache->last() == NeighborUpdate::rebuilt;
    const double t = double(step) * k.dt; // the rollout's step index k: t = kΔt
    const double ramp = solver::gravity_ramp(t, k.setup.t_damp);
    auto next = solver::predictor_corrector(tape, s, k.dt,
                                            Rates<Exec, ParamKind, K>{k, list, params, ramp});
    next.x_ref = record_map(tape, s.x.size(), sim::Identity{}, rebuilt ? s.x : s.x_ref);
    return next;
  }
};

/// Everything a run holds: the fixed particle data, the state, the parameter; `K` the kernel
/// its steps use.
template <class Exec, class K = Kernel>
struct Case {
  Setup setup;
  Exec exec;
  Initial start = initial(setup);
  Buffer<double, Exec> masses = sphad::exec::to_buffer(exec, start.m),
                       supports = sphad::exec::to_buffer(exec, start.h);
  Buffer<std::int32_t, Exec> kinds = sphad::exec::to_buffer(exec, start.kinds);
  std::int64_t n = masses.size();
  Fluid<sim::Stored<Exec>> state{
      sphad::exec::to_buffer(exec, start.x), sphad::exec::to_buffer(exec, start.v),
      sphad::exec::to_buffer(exec, start.rho), sphad::exec::to_buffer(exec, start.x)};
  Params<sim::Stored<Exec>> params{
      sphad::exec::to_buffer(exec, std::vector<double>(n, setup.alpha))};

  /// The step for a time step dt.
  Step<Exec, K> step(double dt) const {
    Constants k;
    k.supports = {supports.data(), n};
    k.masses = {masses.data(), n};
    k.kinds = {kinds.data(), n};
    const double margin = (setup.layers() + 1) * setup.dx;
    const V2 lower = setup.tank_lower - V2{margin, margin};
    const V2 upper = setup.tank_upper + V2{margin, setup.tank_upper[1] - setup.tank_lower[1]};
    k.domain = Domain<2, double>{lower, upper, {false, false}};
    k.setup = setup;
    k.dt = dt;
    return {
        k, std::make_shared<NeighborCache<SupportScheme::Gather, 2, double, Exec>>(0.5 * setup.dx)};
  }
};

/// The fluid's pressures p = Tait(ρ) (read back to the host).
template <class Exec>
std::vector<double> fluid_pressures(const Case<Exec>& c) {
  const auto rho = exec::to_host(c.exec, c.state.rho.data(), c.start.fluid);
  std::vector<double> p(rho.size());
  const auto eos = c.setup.eos();
  for (std::size_t i = 0; i < rho.size(); ++i) {
    p[i] = eos.pressure(rho[i]);
  }
  return p;
}

} // namespace wall_flows
