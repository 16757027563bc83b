// SPDX-License-Identifier: MIT
// Differentiable rollouts (issue #24): T = 32 SPH steps — a list rebuilt from the step's
// positions (over the step's own list memory), Density, a Symmetric gradient of ρ, a
// pressure-and-force kick and a drift (record and record_map) — run plain (`plain`), differentiated
// with every state kept (`all_states`) and with 6 checkpoints (`checkpointed`, 2.0 plain advances
// per step by the binomial schedule). 2D double, Wendland4, the operator benchmarks' particles
// sorted by cell; one thread or the machine's. Counters: plain advances and recorded steps per
// rollout. `BM_rollout_memory`: the peak memory of one gradient of T steps at N particles —
// everything on one tape (`one_tape`), `rollout_gradient` with every state kept (`every_state`) and
// with ⌈√T⌉ checkpoints (`sqrt_checkpoints`) — as the process's peak resident memory above what it
// held before (Linux: VmHWM, reset through /proc/self/clear_refs after glibc's malloc_trim
// returned the memory freed before), with the bytes of one
// state and of one recorded step's tape for comparison.
#include <sphad/ops.hpp>
#include <sphad/search.hpp>
#include <sphad/sim.hpp>

#include "ops/ops.bench.hpp" // OperatorCase

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h> // malloc_trim
#endif

using namespace sphad;

namespace {

using V2 = Vec<double, 2>;
using Stored = sim::Stored<exec::host>;
constexpr std::int64_t steps = 32;

template <class Kind>
struct Motion {
  sim::Array<Kind, V2> x, v;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.x, s.v);
  }
};
template <class Kind>
struct Force {
  sim::Array<Kind, V2> f;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.f);
  }
};

struct Kick {
  double dt, c2;
  template <class V, class G, class R, class F>
  SPHAD_HOST_DEVICE auto operator()(const V& v, const G& grad, const R& rho, const F& f) const {
    using S = decltype(v[0] + dt * (f[0] - c2 * grad[0] / rho));
    return Vec<S, 2>{v[0] + dt * (f[0] - c2 * grad[0] / rho),
                     v[1] + dt * (f[1] - c2 * grad[1] / rho)};
  }
};
struct Drift {
  double dt;
  template <class X, class V>
  SPHAD_HOST_DEVICE auto operator()(const X& x, const V& v) const {
    using S = decltype(x[0] + dt * v[0]);
    return Vec<S, 2>{x[0] + dt * v[0], x[1] + dt * v[1]};
  }
};
struct Add {
  template <class A, class B>
  SPHAD_HOST_DEVICE auto operator()(const A& a, const B& b) const {
    return a + b;
  }
};

struct Step {
  const bench::OperatorCase<2, double>* c;
  /// The step's list, rebuilt in every step over its own memory (a record keeps its own copy).
  std::shared_ptr<NeighborList<exec::host>> list = std::make_shared<NeighborList<exec::host>>();
  template <class Tape, class Kind, class ParamKind>
  Motion<sim::Tracked>
  operator()(Tape& tape, const Motion<Kind>& s, const Force<ParamKind>& p, std::int64_t) const {
    const std::int64_t n = s.x.size();
    ParticleSet<2, double> plain = c->set;
    plain.positions = primal_view(s.x);
    plain.densities = {};
    rebuild_neighbor_list<SupportScheme::Gather>(exec::host{}, *list, plain.search_points(),
                                                 plain.search_points(), c->cloud.domain);
    const auto set = plain.with_positions(s.x);
    const auto rho =
        record<ops::Density<kernels::Wendland4>>(tape, ops::pairs(set, c->cloud.domain, *list));
    const auto with_rho = set.with_densities(rho);
    const auto grad = record<ops::Gradient<kernels::Wendland4, GradientScheme::Symmetric>>(
        tape, ops::pairs(with_rho, c->cloud.domain, *list), rho);
    const auto v = record_map(tape, n, Kick{1e-4, 0.01}, s.v, grad, rho, p.f);
    return {record_map(tape, n, Drift{1e-4}, s.x, v), v};
  }
};
struct Loss {
  template <class Tape>
  Variable<double>
  operator()(Tape& tape, const Motion<sim::Tracked>& s, const Force<sim::Tracked>& p) const {
    return record_map(tape, 1, Add{}, record_squared_norm(tape, s.x), record_dot(tape, s.v, p.f));
  }
};

/// The particles (sorted by cell), s_0 (at rest), a swirling force field, and the gradients'
/// states.
struct RolloutCase {
  bench::OperatorCase<2, double> c;
  Motion<Stored> initial;
  Force<Stored> force;
  Motion<Stored> g0;
  Force<Stored> gf;
  explicit RolloutCase(std::int64_t n)
      : c(n, bench::Order::cells), initial(start(c)), force(swirl(c)),
        g0(sim::clone(exec::host{}, initial)), gf(sim::clone(exec::host{}, force)) {}
  static Motion<Stored> start(const bench::OperatorCase<2, double>& c) {
    const std::int64_t n = c.set.size();
    const std::vector<V2> v(static_cast<std::size_t>(n), V2{0.0, 0.0});
    return sim::clone(exec::host{}, Motion<sim::Views>{c.set.positions, {v.data(), n}});
  }
  static Force<Stored> swirl(const bench::OperatorCase<2, double>& c) {
    std::vector<V2> f;
    for (std::int64_t i = 0; i < c.set.size(); ++i) {
      const V2 x = c.set.positions[i];
      f.push_back({0.01 * x[1], -0.01 * x[0]});
    }
    return sim::clone(exec::host{}, Force<sim::Views>{{f.data(), c.set.size()}});
  }
};

enum Mode { plain, all_states, checkpointed };

template <Mode M>
void BM_rollout(benchmark::State& state) {
  const exec::host exec;
  const std::int64_t n = state.range(0);
  RolloutCase r(n);
  const Step step{&r.c};
  std::int64_t advances = 0, recordings = 0;
  for (auto _ : state) {
    if constexpr (M == plain) {
      auto s = sim::clone(exec, r.initial);
      sim::rollout(exec, steps, s, r.force, step);
      benchmark::DoNotOptimize(s.x.data());
      advances = steps;
    } else {
      const auto result = sim::rollout_gradient(exec, steps, r.initial, r.force, step, Loss{}, r.g0,
                                                r.gf, {M == all_states ? 0 : 6});
      benchmark::DoNotOptimize(result.loss.data());
      advances = result.advances;
      recordings = result.recordings;
    }
  }
  state.counters["advances"] = double(advances);
  state.counters["recordings"] = double(recordings);
  state.counters["particles"] = double(n);
}

/// A line of /proc/self/status in bytes (0 where there is none).
std::int64_t status_bytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      return std::stoll(line.substr(key.size() + 1)) * 1024;
    }
  }
  return 0;
}

enum MemoryMode { one_tape, every_state, sqrt_checkpoints };

template <MemoryMode M>
void BM_rollout_memory(benchmark::State& state) {
  const exec::host exec;
  const std::int64_t n = state.range(0), steps_here = state.range(1);
  RolloutCase r(n);
  const Step step{&r.c};
  std::int64_t step_tape = 0;
  {
    Tape<exec::host> tape(exec);
    step(tape, sim::track(r.initial), sim::track(r.force), 0);
    step_tape = tape.bytes();
  }
  std::int64_t peak = 0, kept = 0;
  for (auto _ : state) {
#if defined(__GLIBC__)
    malloc_trim(0); // memory freed earlier goes back to the system, so new use shows as growth
#endif
    std::ofstream("/proc/self/clear_refs") << "5"; // the peak restarts from the current use
    const std::int64_t before = status_bytes("VmRSS");
    if constexpr (M == one_tape) {
      Tape<exec::host> tape(exec);
      const Motion<sim::Tracked> s0 = sim::track(r.initial);
      const Force<sim::Tracked> theta = sim::track(r.force);
      Motion<sim::Tracked> s = s0;
      for (std::int64_t k = 0; k < steps_here; ++k) {
        s = step(tape, s, theta, k);
      }
      tape.backward(Loss{}(tape, s, theta));
      benchmark::DoNotOptimize(tape.gradient(s0.x).data());
      kept = steps_here + 1;
    } else {
      const std::int64_t budget =
          M == every_state ? 0 : std::int64_t(std::ceil(std::sqrt(double(steps_here))));
      const auto result = sim::rollout_gradient(exec, steps_here, r.initial, r.force, step, Loss{},
                                                r.g0, r.gf, {budget});
      benchmark::DoNotOptimize(result.loss.data());
      kept = result.peak_checkpoints;
    }
    peak = status_bytes("VmHWM") - before;
  }
  state.counters["steps"] = double(steps_here);
  state.counters["peak_MB"] = double(peak) / 1e6;
  state.counters["states_kept"] = double(kept);
  state.counters["state_MB"] = double(n) * double(sizeof(V2)) * 2 / 1e6;
  state.counters["step_tape_MB"] = double(step_tape) / 1e6;
}

} // namespace

#define SPHAD_ROLLOUT_BENCH(M)                                                                     \
  BENCHMARK_TEMPLATE(BM_rollout, M)                                                                \
      ->Arg(100)                                                                                   \
      ->Arg(1 << 10)                                                                               \
      ->Arg(10'000)                                                                                \
      ->Unit(benchmark::kMillisecond)
SPHAD_ROLLOUT_BENCH(plain);
SPHAD_ROLLOUT_BENCH(all_states);
SPHAD_ROLLOUT_BENCH(checkpointed);

// {N, T}. The smoke test (N = 1024) runs 8 steps; the one-tape rollout stops at T = 1,000
// (10,000 steps of 10⁴ particles on one tape need more memory than the benchmark machine has:
// T times one step's tape).
void memory_sizes(benchmark::internal::Benchmark* b, std::int64_t longest) {
  b->Args({1 << 10, 8});
  for (std::int64_t t = 100; t <= longest; t *= 10) {
    b->Args({10'000, t});
  }
  b->Iterations(1)->Unit(benchmark::kSecond);
}
BENCHMARK_TEMPLATE(BM_rollout_memory, one_tape)->Apply([](auto* b) { memory_sizes(b, 1000); });
BENCHMARK_TEMPLATE(BM_rollout_memory, every_state)->Apply([](auto* b) { memory_sizes(b, 10'000); });
BENCHMARK_TEMPLATE(BM_rollout_memory, sqrt_checkpoints)->Apply([](auto* b) {
  memory_sizes(b, 10'000);
});
