// SPDX-License-Identifier: MIT
// Whole solver steps and where their time goes (issue #50): the examples' Taylor–Green and
// dam-break steps (examples/taylor_green, examples/wall_flows) at about N particles, 2D double,
// on the machine's threads.
//   BM_step<case, plain>:   one step on a kept `PlainTape` (list upkeep, two rate evaluations,
//                           the integrator's maps; nothing recorded), the state advancing.
//   BM_step<case, reverse>: the same step recorded on a fresh tape and swept backward from a unit
//                           adjoint on every output (one reverse step of a rollout gradient).
//   BM_term<term, mode>:    one Taylor–Green term of one rate evaluation alone at the initial
//                           state over a list built once: plain (on a plain tape) or reverse
//                           (recorded and swept from a unit adjoint); `upkeep` is the list's
//                           refilter. BM_dam_term likewise for the dam break's terms (each with
//                           the maps that make its field).
//   BM_solver_rollout<case, plain|gradient>: 50 steps from the initial state, plain or the
//                           gradient of the final kinetic energy with ⌈√50⌉ = 8 checkpoints.
// N: 1 024 (the smoke run), 10⁴, 10⁵ (rollouts: 256, 1 024, 10⁴) (Taylor–Green side ⌊√N⌉; dam break
// ⌊√(N/2)⌉ across the column, walls added).
#include "taylor_green/taylor_green.hpp"
#include "wall_flows/wall_flows.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

using namespace sphad;

namespace {

using Host = exec::host;

enum class Mode { plain, reverse };
enum class Which { taylor_green, dam_break, taylor_green_float };

tgv::Setup tgv_setup(std::int64_t n) {
  tgv::Setup s;
  s.side = int(std::lround(std::sqrt(double(n))));
  return s;
}
wall_flows::Setup dam_setup(std::int64_t n) {
  return wall_flows::dam_break(int(std::lround(std::sqrt(double(n) / 2))));
}

/// An element of E (a double, `Vec` or `Mat` of doubles) with every scalar 1.
template <class E>
E ones_like() {
  static_assert(sizeof(E) % sizeof(double) == 0);
  E e{};
  double scalars[sizeof(E) / sizeof(double)];
  for (double& x : scalars) {
    x = 1.0;
  }
  std::memcpy(static_cast<void*>(&e), scalars, sizeof(E));
  return e;
}

/// A vector of n elements with every scalar 1.
template <class E>
std::vector<E> ones(std::int64_t n) {
  return std::vector<E>(std::size_t(n), ones_like<E>());
}

/// Sweeps `tape` backward from a unit adjoint on every element of one output.
template <class E>
void sweep_from_ones(Tape<Host>& tape, const Variable<E>& out) {
  const std::vector<E> seed = ones<E>(out.size());
  tape.backward(out, Span<const E>(seed));
}

/// Sweeps `tape` backward from a unit adjoint on every array of a solver's state (x, v, ρ, x_ref).
template <class Fluid>
void sweep_from_ones(Tape<Host>& tape, const Fluid& out) {
  using V2 = Vec<double, 2>;
  const auto x = ones<V2>(out.x.size()), v = ones<V2>(out.v.size()),
             x_ref = ones<V2>(out.x_ref.size());
  const auto rho = ones<double>(out.rho.size());
  tape.backward(BackwardOptions{}, Seed<V2>{out.x, Span<const V2>(x)},
                Seed<V2>{out.v, Span<const V2>(v)}, Seed<double>{out.rho, Span<const double>(rho)},
                Seed<V2>{out.x_ref, Span<const V2>(x_ref)});
}

template <Which W>
struct Solver;
template <>
struct Solver<Which::taylor_green> {
  using Case = tgv::Case<Host>;
  using scalar = double;
  static tgv::Setup setup(std::int64_t n) { return tgv_setup(n); }
};
/// The Taylor–Green case in float32 (sphad's float column beside JAX-SPH's).
template <>
struct Solver<Which::taylor_green_float> {
  using Case = tgv::Case<Host, float>;
  using scalar = float;
  static tgv::Setup setup(std::int64_t n) { return tgv_setup(n); }
};
template <>
struct Solver<Which::dam_break> {
  using Case = wall_flows::Case<Host>;
  using scalar = double;
  static wall_flows::Setup setup(std::int64_t n) { return dam_setup(n); }
};

template <Which W, Mode M>
void BM_step(benchmark::State& state) {
  const auto setup = Solver<W>::setup(state.range(0));
  typename Solver<W>::Case c{setup, Host{}};
  const auto step = c.step(setup.dt());
  PlainTape<Host> plain(c.exec);
  std::int64_t k = 0;
  for (auto _ : state) {
    if constexpr (M == Mode::plain) {
      sim::rollout(plain, 1, c.state, c.params, step, k++);
    } else {
      Tape<Host> tape(c.exec);
      const auto out = step(tape, sim::track(c.state), sim::track(c.params), 0);
      sweep_from_ones(tape, out);
      benchmark::DoNotOptimize(tape.gradient(out.v).data());
    }
  }
  state.counters["particles"] = double(c.n);
  state.counters["rebuilds"] = double(step.cache->rebuilds());
}

/// The Taylor–Green rate evaluation's terms.
enum class Term {
  upkeep,
  pressure,
  viscosity,
  continuity,
  clumping,
  grad_v,
  grad_rho,
  maps,
  fused, ///< pressure, continuity, ∇v and ∇ρ in one pass (`ops::Fused`), their field packed
  all,   ///< the six pair terms in one pass (`ops::Fused`, one whole term), their field packed
};

/// Runs term `T` of the Taylor–Green rates on `tape` over the initial state.
template <Term T, class TapeT, class S, class P>
auto tgv_term(TapeT& tape,
              const tgv::Constants<>& k,
              const NeighborList<Host>& list,
              const S& s,
              const P& params,
              Span<const tgv::M2> grad_v) {
  using namespace tgv;
  const std::int64_t n = s.x.size();
  const ParticleSet<2, double> plain{primal_view(s.x), k.supports, k.masses, k.kinds};
  const auto set = plain.with_positions(s.x).with_densities(s.rho);
  const auto pairs = ops::pairs(set, k.domain, list);
  using Difference = ops::Gradient<Kernel, GradientScheme::Difference>;
  if constexpr (T == Term::pressure) {
    return record<solver::PressureForce<Kernel>>(tape, pairs, s.rho);
  } else if constexpr (T == Term::viscosity) {
    return record<Viscous>(tape, pairs, s.v);
  } else if constexpr (T == Term::continuity) {
    return record<solver::ContinuityRate<Kernel>>(tape, pairs, s.v);
  } else if constexpr (T == Term::clumping) {
    return record<solver::AntiClumpingGradient<Kernel>>(tape, pairs, k.clumping);
  } else if constexpr (T == Term::grad_v) {
    return record<Difference>(tape, pairs, s.v);
  } else if constexpr (T == Term::grad_rho) {
    return record<Difference>(tape, pairs, s.rho);
  } else if constexpr (T == Term::fused) {
    // The pressure term's field is ρ here, as in `Term::pressure`: (ρ, v) packed, ρ read twice.
    using Fused = ops::Fused<ops::Slot<solver::PressureForce<Kernel>, 0, 1>,
                             ops::Slot<solver::ContinuityRate<Kernel>, 1, 2>,
                             ops::Slot<Difference, 1, 2>, ops::Slot<Difference, 0, 1>>;
    return record<Fused>(tape, pairs, record_map(tape, n, ops::PackFields{}, s.rho, s.v));
  } else if constexpr (T == Term::all) {
    // Every pair term of the rates as one whole term (the field (ρ, v, ρ, Δx, R)).
    using All =
        ops::Fused<ops::Slot<solver::PressureForce<Kernel>, 0, 1>,
                   ops::Slot<solver::ContinuityRate<Kernel>, 1, 2>, ops::Slot<Difference, 1, 2>,
                   ops::Slot<Difference, 3, 1>, ops::Slot<Viscous, 1, 2>,
                   ops::Slot<solver::AntiClumpingGradient<Kernel>, 4, 2>>;
    return record<All>(tape, pairs,
                       record_map(tape, n, ops::PackFields{}, s.rho, s.v, s.rho, k.clumping));
  } else {
    // the rates' four maps: p, the shift, the acceleration, the density rate
    const auto p = record_map(tape, n, k.eos, s.rho);
    const auto shift = record_map(tape, n, k.shifting, s.v, s.v);
    const auto a = record_map(tape, n, Acceleration{}, s.v, s.v, params.nu, grad_v, shift);
    const auto drho = record_map(tape, n, DensityRate{}, p, s.v, shift);
    return record_map(tape, n, sim::Weighted{}, drho, a);
  }
}

template <Term T, Mode M>
void BM_term(benchmark::State& state) {
  const auto setup = tgv_setup(state.range(0));
  tgv::Case<Host> c{setup, Host{}};
  const auto step = c.step(setup.dt());
  const auto points = SearchPoints<2, double>{{c.state.x.data(), c.n}, step.k.supports};
  const auto& list = step.cache->update_from(
      c.exec, points, Span<const tgv::V2>{c.state.x_ref.data(), c.n}, step.k.domain);
  const std::vector<tgv::M2> zeros(std::size_t(c.n), tgv::M2{});
  const Span<const tgv::M2> grad_v(zeros);
  PlainTape<Host> plain(c.exec);
  for (auto _ : state) {
    if constexpr (T == Term::upkeep) {
      benchmark::DoNotOptimize(&step.cache->update_from(
          c.exec, points, Span<const tgv::V2>{c.state.x_ref.data(), c.n}, step.k.domain));
    } else if constexpr (M == Mode::plain) {
      plain.reset();
      benchmark::DoNotOptimize(
          tgv_term<T>(plain, step.k, list, sim::views(c.state), sim::views(c.params), grad_v)
              .data());
    } else {
      Tape<Host> tape(c.exec);
      sweep_from_ones(
          tape, tgv_term<T>(tape, step.k, list, sim::track(c.state), sim::track(c.params), grad_v));
    }
  }
  state.counters["particles"] = double(c.n);
  state.counters["pairs"] = double(list.num_pairs);
}

/// The dam-break rate evaluation's terms, each from the state's arrays (the maps it needs first).
enum class DamTerm {
  wall_sums,
  pressure,
  artificial_viscosity,
  continuity,
  diffusion,
  fused,    ///< pressure and continuity fused (`ops::Fused`, Ĝ shared), as the example runs them
  fused_av, ///< pressure, continuity and artificial viscosity as one whole fused term
};

/// Runs term `T` of the dam-break rates on `tape` over the initial state.
template <DamTerm T, class TapeT, class S>
auto dam_term(TapeT& tape,
              const wall_flows::Constants& k,
              const NeighborList<Host>& list,
              const S& s) {
  using namespace wall_flows;
  const std::int64_t n = s.x.size();
  const auto eos = k.setup.eos();
  const ParticleSet<2, double> plain{primal_view(s.x), k.supports, k.masses, k.kinds};
  const auto set = plain.with_positions(s.x).with_densities(s.rho);
  const auto pairs = ops::pairs(set, k.domain, list, {OperationDirection::AllToFluid});
  if constexpr (T == DamTerm::wall_sums) {
    const auto p = record_map(tape, n, eos, s.rho);
    const auto packed = record_map(tape, n, solver::PackPressureVelocity{}, p, s.v);
    return record<solver::WallSums<Kernel>>(
        tape, ops::pairs(set, k.domain, list, {OperationDirection::FluidToBoundary}), packed);
  } else if constexpr (T == DamTerm::pressure) {
    return record<solver::PressureForce<Kernel>>(tape, pairs, record_map(tape, n, eos, s.rho));
  } else if constexpr (T == DamTerm::artificial_viscosity) {
    const auto sound =
        record_map(tape, n, solver::Of<solver::StateMap::sound_speed, solver::Tait<>>{eos}, s.rho);
    return record<solver::ArtificialViscosity<Kernel, kappa>>(
        tape, pairs, record_map(tape, n, solver::PackVelocitySoundSpeed{}, s.v, sound));
  } else if constexpr (T == DamTerm::fused) {
    return record<PressureAndContinuity<Kernel>>(
        tape, pairs, record_map(tape, n, ops::PackFields{}, record_map(tape, n, eos, s.rho), s.v));
  } else if constexpr (T == DamTerm::fused_av) {
    const auto sound =
        record_map(tape, n, solver::Of<solver::StateMap::sound_speed, solver::Tait<>>{eos}, s.rho);
    using All = ops::Fused<ops::Slot<solver::PressureForce<Kernel>, 0, 1>,
                           ops::Slot<solver::ContinuityRate<Kernel>, 1, 2>,
                           ops::Slot<solver::ArtificialViscosity<Kernel, kappa>, 3, 3>>;
    return record<All>(
        tape, pairs,
        record_map(tape, n, ops::PackFields{}, record_map(tape, n, eos, s.rho), s.v, s.v, sound));
  } else if constexpr (T == DamTerm::continuity) {
    return record<solver::ContinuityRate<Kernel>>(tape, pairs, s.v);
  } else {
    return record<solver::DensityDiffusion<Kernel>>(
        tape, pairs.with_options({OperationDirection::FluidToFluid}), s.rho);
  }
}

template <DamTerm T, Mode M>
void BM_dam_term(benchmark::State& state) {
  const auto setup = dam_setup(state.range(0));
  wall_flows::Case<Host> c{setup, Host{}};
  const auto step = c.step(setup.dt());
  const auto points = SearchPoints<2, double>{{c.state.x.data(), c.n}, step.k.supports};
  const auto& list = step.cache->update_from(
      c.exec, points, Span<const wall_flows::V2>{c.state.x_ref.data(), c.n}, step.k.domain);
  PlainTape<Host> plain(c.exec);
  for (auto _ : state) {
    if constexpr (M == Mode::plain) {
      plain.reset();
      benchmark::DoNotOptimize(dam_term<T>(plain, step.k, list, sim::views(c.state)).data());
    } else {
      Tape<Host> tape(c.exec);
      sweep_from_ones(tape, dam_term<T>(tape, step.k, list, sim::track(c.state)));
    }
  }
  state.counters["particles"] = double(c.n);
  state.counters["pairs"] = double(list.num_pairs);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(1024)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
}

/// L = ½ Σ m |v|² of a solver's state (either example's: velocities `v`), in scalar T.
template <class T>
struct KineticEnergyLoss {
  Span<const T> masses;
  template <class S, class P>
  Variable<T> operator()(Tape<Host>& tape, const S& s, const P&) const {
    return record_reduce(tape, s.x.size(), tgv::KineticEnergy{}, masses, s.v);
  }
};

enum class Rollout { plain, gradient };

/// A 50-step rollout of either example's step from its initial state: plain (`sim::rollout` on a
/// plain tape), or the gradient of the final kinetic energy with respect to the initial state and
/// the parameter by `rollout_gradient` with ⌈√50⌉ = 8 checkpoints (its plain advances included).
/// The case is made afresh, untimed, before every rollout.
template <Which W, Rollout R>
void BM_solver_rollout(benchmark::State& state) {
  constexpr std::int64_t steps = 50, checkpoints = 8;
  const auto setup = Solver<W>::setup(state.range(0));
  std::int64_t n = 0;
  for (auto _ : state) {
    state.PauseTiming();
    typename Solver<W>::Case c{setup, Host{}};
    const auto step = c.step(setup.dt());
    auto d_state = sim::clone(c.exec, c.state);
    auto d_params = sim::clone(c.exec, c.params);
    n = c.n;
    state.ResumeTiming();
    if constexpr (R == Rollout::plain) {
      sim::rollout(c.exec, steps, c.state, c.params, step);
    } else {
      const auto result = sim::rollout_gradient(
          c.exec, steps, c.state, c.params, step,
          KineticEnergyLoss<typename Solver<W>::scalar>{{c.masses.data(), c.n}}, d_state, d_params,
          {checkpoints});
      benchmark::DoNotOptimize(result.loss.data());
    }
  }
  state.counters["particles"] = double(n);
}

} // namespace

BENCHMARK_TEMPLATE(BM_step, Which::taylor_green, Mode::plain)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_step, Which::taylor_green, Mode::reverse)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_step, Which::dam_break, Mode::plain)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_step, Which::dam_break, Mode::reverse)->Apply(sizes);

void rollout_sizes(benchmark::internal::Benchmark* b) {
  b->Arg(256)->Arg(1024)->Arg(10'000)->Unit(benchmark::kMillisecond);
}
BENCHMARK_TEMPLATE(BM_solver_rollout, Which::taylor_green, Rollout::plain)->Apply(rollout_sizes);
BENCHMARK_TEMPLATE(BM_solver_rollout, Which::taylor_green, Rollout::gradient)->Apply(rollout_sizes);
BENCHMARK_TEMPLATE(BM_solver_rollout, Which::taylor_green_float, Rollout::plain)
    ->Apply(rollout_sizes);
BENCHMARK_TEMPLATE(BM_solver_rollout, Which::taylor_green_float, Rollout::gradient)
    ->Apply(rollout_sizes);
BENCHMARK_TEMPLATE(BM_solver_rollout, Which::dam_break, Rollout::plain)->Apply(rollout_sizes);
BENCHMARK_TEMPLATE(BM_solver_rollout, Which::dam_break, Rollout::gradient)->Apply(rollout_sizes);

#define SPHAD_TERM_BENCH(T)                                                                        \
  BENCHMARK_TEMPLATE(BM_term, Term::T, Mode::plain)->Apply(sizes);                                 \
  BENCHMARK_TEMPLATE(BM_term, Term::T, Mode::reverse)->Apply(sizes)
BENCHMARK_TEMPLATE(BM_term, Term::upkeep, Mode::plain)->Apply(sizes);
SPHAD_TERM_BENCH(pressure);
SPHAD_TERM_BENCH(viscosity);
SPHAD_TERM_BENCH(continuity);
SPHAD_TERM_BENCH(clumping);
SPHAD_TERM_BENCH(grad_v);
SPHAD_TERM_BENCH(grad_rho);
SPHAD_TERM_BENCH(maps);
SPHAD_TERM_BENCH(fused);
SPHAD_TERM_BENCH(all);

#define SPHAD_DAM_TERM_BENCH(T)                                                                    \
  BENCHMARK_TEMPLATE(BM_dam_term, DamTerm::T, Mode::plain)->Apply(sizes);                          \
  BENCHMARK_TEMPLATE(BM_dam_term, DamTerm::T, Mode::reverse)->Apply(sizes)
SPHAD_DAM_TERM_BENCH(wall_sums);
SPHAD_DAM_TERM_BENCH(pressure);
SPHAD_DAM_TERM_BENCH(artificial_viscosity);
SPHAD_DAM_TERM_BENCH(continuity);
SPHAD_DAM_TERM_BENCH(diffusion);
SPHAD_DAM_TERM_BENCH(fused);
SPHAD_DAM_TERM_BENCH(fused_av);
