// SPDX-License-Identifier: MIT
// Test bodies shared by the host (sim.test.cpp) and CUDA (sim.test.cu) executables: the tape's
// array algebra — sums, dots, norms, gathers, scatter-adds — with their values and gradients
// pinned analytically, and the primitives under them (`exec::transform_reduce`,
// `exec::group_by_key`). The including file defines SPHAD_TEST_EXEC as the execution space.
#pragma once

#include <sphad/ad.hpp>
#include <sphad/exec.hpp>
#include <sphad/sim.hpp>

#include "support/space_arrays.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#ifndef SPHAD_TEST_EXEC
#error "define SPHAD_TEST_EXEC before including sim.cases.hpp"
#endif

namespace sphad::test {

using SimExec = SPHAD_TEST_EXEC;
using V2 = Vec<double, 2>;

/// f(i) = i as a double.
struct IndexAsDouble {
  SPHAD_HOST_DEVICE double operator()(std::int64_t i) const { return double(i); }
};

/// 0.5, 1.5, 2.5, ... and (i, −2i).
inline std::vector<double> ramp(std::int64_t n) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < n; ++i) {
    out.push_back(double(i) + 0.5);
  }
  return out;
}
inline std::vector<V2> ramp2(std::int64_t n) {
  std::vector<V2> out;
  for (std::int64_t i = 0; i < n; ++i) {
    out.push_back({double(i), -2.0 * double(i)});
  }
  return out;
}

} // namespace sphad::test

TEST_CASE("transform_reduce: the sum of f(i), exact for integers, zero for none", "[sim]") {
  using namespace sphad;
  const test::SimExec exec{};
  for (const std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(4097),
                               std::int64_t(3 * exec::reduce_chunk + 5)}) {
    Buffer<double, test::SimExec> out(exec, 1);
    exec::transform_reduce(exec, n, test::IndexAsDouble{}, out.data());
    CHECK(exec::to_host(exec, out.data(), 1)[0] == double(n * (n - 1) / 2));
  }
}

TEST_CASE("group_by_key: positions grouped by key, increasing in each group", "[sim]") {
  using namespace sphad;
  const test::SimExec exec{};
  const auto keys = test::upload(exec, std::vector<std::int32_t>{2, 0, 2, 3, 0, 2});
  Buffer<std::int64_t, test::SimExec> offsets(exec, 5), entries(exec, 6);
  exec::group_by_key(exec, keys.data(), 6, 4, offsets.data(), entries.data());
  CHECK(exec::to_host(exec, offsets.data(), 5) == std::vector<std::int64_t>{0, 2, 2, 5, 6});
  CHECK(exec::to_host(exec, entries.data(), 6) == std::vector<std::int64_t>{1, 4, 0, 2, 5, 3});
}

TEST_CASE("record_sum and record_squared_norm: values and gradients, seeded by the loss alone",
          "[sim]") {
  using namespace sphad;
  const test::SimExec exec{};
  Tape<test::SimExec> tape(exec);
  const std::int64_t n = 5000;
  const auto xs = test::upload(exec, test::ramp(n));
  const auto ps = test::upload(exec, test::ramp2(n));
  const Variable<double> x(xs.data(), n);
  const Variable<test::V2> p(ps.data(), n);

  const auto sum = record_sum(tape, x);
  CHECK(test::download(exec, sum.span())[0] == 0.5 * double(n * n)); // Σ (i + ½) = n²/2
  tape.backward(sum);
  for (const double g : test::download(exec, tape.gradient(x))) {
    REQUIRE(g == 1.0);
  }

  const auto norm = record_squared_norm(tape, p); // Σ 5 i²
  CHECK(test::download(exec, norm.span())[0] == 5.0 * double((n - 1) * n * (2 * n - 1) / 6));
  tape.backward(norm);
  const auto gp = test::download(exec, tape.gradient(p));
  CHECK(gp[7][0] == 14.0);
  CHECK(gp[7][1] == -28.0);
}

TEST_CASE("record_dot and record_weighted_sum: each factor's gradient is the other", "[sim]") {
  using namespace sphad;
  const test::SimExec exec{};
  Tape<test::SimExec> tape(exec);
  const std::int64_t n = 100;
  const auto ws = test::upload(exec, test::ramp(n));
  const auto ps = test::upload(exec, test::ramp2(n));
  const Variable<double> w(ws.data(), n);
  const Variable<test::V2> p(ps.data(), n);

  const auto dot = record_dot(tape, p, p);
  tape.backward(dot);
  CHECK(test::download(exec, tape.gradient(p))[3][1] == -12.0); // 2 · (−6)

  const auto weighted = record_weighted_sum(tape, w, p); // Σ w_i p_i, a Vec
  const auto seed = test::upload(exec, std::vector<test::V2>{{1.0, 3.0}});
  tape.backward(weighted, Span<const test::V2>{seed.data(), 1});
  CHECK(test::download(exec, tape.gradient(w))[4] == 4.0 - 24.0); // ⟨(1, 3), (4, −8)⟩
  CHECK(test::download(exec, tape.gradient(p))[4][1] == 3.0 * 4.5);
}

TEST_CASE("record_gather and record_scatter_add: values, and adjoints summed over repeats",
          "[sim]") {
  using namespace sphad;
  const test::SimExec exec{};
  Tape<test::SimExec> tape(exec);
  const auto xs = test::upload(exec, std::vector<double>{1, 2, 3, 4});
  const Variable<double> x(xs.data(), 4);
  const auto index = test::upload(exec, std::vector<std::int32_t>{3, 0, 3, 3, 1});

  const auto y = record_gather(tape, x, Span<const std::int32_t>{index.data(), 5});
  CHECK(test::download(exec, y.span()) == std::vector<double>{4, 1, 4, 4, 2});
  tape.backward(record_sum(tape, y));
  CHECK(test::download(exec, tape.gradient(x)) == std::vector<double>{1, 1, 0, 3});

  const auto ys = test::upload(exec, std::vector<double>{1, 2, 3, 4, 5});
  const Variable<double> v(ys.data(), 5);
  const auto z = record_scatter_add(tape, v, Span<const std::int32_t>{index.data(), 5}, 4);
  CHECK(test::download(exec, z.span()) == std::vector<double>{2, 5, 0, 8}); // 3: 1 + 3 + 4
  const auto weights = test::upload(exec, std::vector<double>{10, 20, 30, 40});
  tape.backward(z, Span<const double>{weights.data(), 4});
  CHECK(test::download(exec, tape.gradient(v)) == std::vector<double>{40, 10, 40, 40, 20});
}

namespace sphad::test {
/// A state declared once: positions and densities.
template <class Kind>
struct Fluid {
  sim::Array<Kind, V2> x;
  sim::Array<Kind, double> rho;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.x, s.rho);
  }
};

/// One step's row function: x + (ρ, ρ²) and 2ρ.
struct Drift {
  template <class X, class R>
  SPHAD_HOST_DEVICE auto operator()(const X& x, const R& rho) const {
    X out = x;
    out[0] = out[0] + rho;
    out[1] = out[1] + rho * rho;
    return out;
  }
};
struct Add {
  template <class A, class B>
  SPHAD_HOST_DEVICE auto operator()(const A& a, const B& b) const {
    return a + b;
  }
};
struct Twice {
  template <class R>
  SPHAD_HOST_DEVICE R operator()(const R& rho) const {
    return rho + rho;
  }
};

/// A step over whole states: recorded when the state is tracked.
template <class Tape, class Kind>
Fluid<sim::Tracked> step(Tape& tape, const Fluid<Kind>& s) {
  return {record_map(tape, s.x.size(), Drift{}, s.x, s.rho),
          record_map(tape, s.rho.size(), Twice{}, s.rho)};
}
} // namespace sphad::test

TEST_CASE("sim states: declared once, viewed, tracked, cloned, restored; a step over whole "
          "states and its gradients",
          "[sim]") {
  using namespace sphad;
  using Stored = sim::Stored<test::SimExec>;
  const test::SimExec exec{};
  test::Fluid<Stored> state{test::upload(exec, std::vector<test::V2>{{1, 2}, {3, 4}}),
                            test::upload(exec, std::vector<double>{0.5, 2})};
  const auto saved = sim::clone(exec, state);
  const test::Fluid<sim::Views> views = sim::views(saved);
  CHECK(test::download(exec, views.rho) == std::vector<double>{0.5, 2});

  Tape<test::SimExec> tape(exec);
  const auto in = sim::track(state);
  const auto out = test::step(tape, in);
  const auto next = sim::clone(exec, out); // the next state, owned by the caller
  CHECK(test::download(exec, sim::views(next).x)[1][1] == 8.0);
  CHECK(test::download(exec, sim::views(next).rho)[1] == 4.0);

  // L = Σ ⟨x', x'⟩ + Σ ρ': ∂L/∂ρ_i = 2 x'_i0 + 4 ρ_i x'_i1 + 2.
  tape.backward(record_map(tape, 1, test::Add{}, record_squared_norm(tape, out.x),
                           record_sum(tape, out.rho)));
  Buffer<double, test::SimExec> owned(exec, 2);
  tape.copy_gradient(in.rho, Span<double>{owned.data(), 2});
  tape.clear(); // the owned copy stays
  CHECK(test::download(exec, owned) ==
        std::vector<double>{2 * 1.5 + 4 * 0.5 * 2.25 + 2, 2 * 5.0 + 4 * 2.0 * 8.0 + 2});

  // Restoring the checkpoint: the state's arrays hold the saved values again.
  sim::copy_into(exec, saved, state);
  CHECK(test::download(exec, state.x)[1][0] == 3.0);
  test::Fluid<Stored> shorter{test::upload(exec, std::vector<test::V2>{{1, 2}}),
                              test::upload(exec, std::vector<double>{0.5})};
  CHECK_THROWS_WITH(sim::copy_into(exec, saved, shorter),
                    Catch::Contains("argument `to`: an array has another size"));
}

TEST_CASE("Tape::add_gradient accumulates into caller memory; copy_gradient checks its sizes",
          "[sim]") {
  using namespace sphad;
  const test::SimExec exec{};
  const auto xs = test::upload(exec, std::vector<double>{1, 2, 3});
  const Variable<double> x(xs.data(), 3);
  auto sum = test::upload(exec, std::vector<double>{10, 10, 10});
  for (int sweep = 0; sweep < 2; ++sweep) {
    Tape<test::SimExec> tape(exec);
    tape.backward(record_squared_norm(tape, x));
    tape.add_gradient(x, Span<double>{sum.data(), 3});
  }
  CHECK(test::download(exec, sum) == std::vector<double>{14, 18, 22});
  Tape<test::SimExec> tape(exec);
  tape.backward(record_sum(tape, x));
  CHECK_THROWS_WITH(tape.copy_gradient(x, Span<double>{sum.data(), 2}),
                    Catch::Contains("argument `out`: has 2 elements for a variable of 3"));
  const Variable<double> other(xs.data(), 3);
  CHECK_THROWS_WITH(tape.add_gradient(other, Span<double>{sum.data(), 3}),
                    Catch::Contains("argument `v`: was not recorded on this tape"));
}

namespace sphad::test {
/// A rollout's state (positions, velocities) and its parameters (a force per particle).
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

/// v' = v + dt (f − x |x|²) and x' = x + dt v' (symplectic Euler in a quartic well).
struct Kick {
  double dt;
  template <class X, class V, class F>
  SPHAD_HOST_DEVICE auto operator()(const X& x, const V& v, const F& f) const {
    const auto r2 = x[0] * x[0] + x[1] * x[1];
    using R = decltype(v[0] + dt * (f[0] - x[0] * r2));
    return Vec<R, 2>{v[0] + dt * (f[0] - x[0] * r2), v[1] + dt * (f[1] - x[1] * r2)};
  }
};
struct Drift2 {
  double dt;
  template <class X, class V>
  SPHAD_HOST_DEVICE auto operator()(const X& x, const V& v) const {
    using R = decltype(x[0] + dt * v[0]);
    return Vec<R, 2>{x[0] + dt * v[0], x[1] + dt * v[1]};
  }
};
struct MotionStep {
  template <class Tape, class Kind, class ParamKind>
  Motion<sim::Tracked>
  operator()(Tape& tape, const Motion<Kind>& s, const Force<ParamKind>& p, std::int64_t) const {
    const auto v = record_map(tape, s.v.size(), Kick{0.05}, s.x, s.v, p.f);
    return {record_map(tape, s.x.size(), Drift2{0.05}, s.x, v), v};
  }
};
/// L = Σ |x_T|² + Σ ⟨v_T, f⟩.
struct MotionLoss {
  template <class Tape>
  Variable<double>
  operator()(Tape& tape, const Motion<sim::Tracked>& s, const Force<sim::Tracked>& p) const {
    return record_map(tape, 1, Add{}, record_squared_norm(tape, s.x), record_dot(tape, s.v, p.f));
  }
};

/// n particles on a ring with tangential velocities, and a small force field.
inline std::vector<V2> ring(std::int64_t n, double radius, double turn) {
  std::vector<V2> out;
  for (std::int64_t i = 0; i < n; ++i) {
    const double a = 2 * 3.141592653589793 * double(i) / double(n) + turn;
    out.push_back({radius * std::cos(a), radius * std::sin(a)});
  }
  return out;
}

/// The rollout's gradients (∂L/∂x_0, ∂L/∂v_0, ∂L/∂f flattened) and its counts.
struct RolloutRun {
  std::vector<double> gradients;
  double loss;
  std::int64_t advances, recordings, peak;
};
inline RolloutRun run_rollout(std::int64_t steps, std::int64_t checkpoints) {
  const SimExec exec{};
  const std::int64_t n = 6;
  const Motion<sim::Stored<SimExec>> initial{upload(exec, ring(n, 1.0, 0.0)),
                                             upload(exec, ring(n, 0.3, 1.0))};
  const Force<sim::Stored<SimExec>> force{upload(exec, ring(n, 0.1, 0.5))};
  auto g0 = sim::clone(exec, initial);
  auto gf = sim::clone(exec, force);
  const auto result = sim::rollout_gradient(exec, steps, initial, force, MotionStep{}, MotionLoss{},
                                            g0, gf, {checkpoints});
  RolloutRun run{{},
                 exec::to_host(exec, result.loss.data(), 1)[0],
                 result.advances,
                 result.recordings,
                 result.peak_checkpoints};
  for (const auto* b : {&g0.x, &g0.v, &gf.f}) {
    for (const V2& e : download(exec, *b)) {
      run.gradients.push_back(e[0]);
      run.gradients.push_back(e[1]);
    }
  }
  return run;
}
} // namespace sphad::test

TEST_CASE("rollout_gradient: the same bits for every number of checkpoints, the binomial "
          "schedule's advances",
          "[sim]") {
  using namespace sphad;
  for (const std::int64_t steps : {1, 2, 7, 64}) {
    const auto all = test::run_rollout(steps, 0);
    CHECK(all.recordings == steps);
    CHECK(all.advances == steps - 1);
    CHECK(all.peak == steps);
    std::vector<std::int64_t> budgets{1, 2, 5};
    if (steps != 1 && steps != 2 && steps != 5) {
      budgets.push_back(steps); // T: every state kept, through the checkpoint argument
    }
    for (const std::int64_t c : budgets) {
      if (c > steps) {
        continue;
      }
      const auto run = test::run_rollout(steps, c);
      CAPTURE(steps, c);
      CHECK(run.gradients == all.gradients); // doubles compared exactly
      CHECK(run.loss == all.loss);
      CHECK(run.recordings == steps);
      CHECK(run.advances ==
            (c == steps ? steps - 1 : sim::detail::minimal_advances(steps, c))); // T: all kept
      CHECK(run.peak <= c);
    }
  }
}
