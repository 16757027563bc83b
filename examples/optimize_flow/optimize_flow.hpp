// SPDX-License-Identifier: MIT
// The optimize_flow example's driver, one source for every execution space (main.cpp runs it on
// the host, main.cu on CUDA). A twin experiment: the flow of flow.hpp started from a known
// initial velocity field v★ gives the target densities ρ* after T steps; starting from rest,
// gradient descent on the initial velocity field v₀ then drives
//   L(v₀) = (1/N) Σ_i (ρ_i(T; v₀) − ρ*_i)²
// down, each gradient one checkpointed `sim::rollout_gradient` (⌈√T⌉ states kept). Before
// descending it checks, on a short horizon, that the rollout gradient matches central
// differences and that the checkpointed gradient is the same bits as the one with every state
// kept. Prints the loss per iteration; returns non-zero when a check fails or L does not fall by
// the stated factor.
#pragma once

#include "flow.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace flow {

/// Sizes and tolerances (command line: side steps iterations).
struct Config {
  int side = 24;                  ///< particles per axis on the unit square
  std::int64_t steps = 1000;      ///< of each rollout
  double duration = 0.75;         ///< simulated time of a rollout (c = 1, box 1: sound crossings)
  int iterations = 25;            ///< of the descent
  double amplitude = 0.1;         ///< of the velocity field v★ that made the target
  double required_reduction = 20; ///< the descent must reduce L at least this much
  std::int64_t check_steps = 20;  ///< horizon of the gradient checks
  double check_tolerance = 1e-6;  ///< max relative error against central differences
  double first_step = 0.001;      ///< rms change of v₀ in the first step, in units of c
  double max_step = 0.02;         ///< rms change of v₀ in one step at most, in units of c
  int memory = 8;                 ///< (s, y) pairs kept by L-BFGS
};

template <class Exec>
class Problem {
public:
  Problem(const Exec& exec, const Config& config) : exec_(exec), config_(config) {
    const int side = config.side;
    const double dx = 1.0 / side;
    const double h = kernels::support_from_volume(dx * dx, 20, 2);
    std::vector<V2> x;
    for (int j = 0; j < side; ++j) {
      for (int i = 0; i < side; ++i) {
        x.push_back({(i + 0.5) * dx, (j + 0.5) * dx});
      }
    }
    n_ = std::int64_t(x.size());
    supports_ = sphad::exec::to_buffer(exec, std::vector<double>(x.size(), h));
    masses_ = sphad::exec::to_buffer(exec, std::vector<double>(x.size(), dx * dx));
    kinds_ = sphad::exec::to_buffer(
        exec, std::vector<std::int32_t>(x.size(), std::int32_t(ParticleKind::Fluid)));
    constants_.supports = {supports_.data(), n_};
    constants_.masses = {masses_.data(), n_};
    constants_.kinds = {kinds_.data(), n_};
    constants_.domain = Domain<2, double>{{0, 0}, {1, 1}, {true, true}};
    constants_.c = 1;
    constants_.dt = config.duration / double(config.steps);
    constants_.nu = 0.002;
    constants_.skin = 0.2 * h;
    positions_ = x;
    // The velocity field that makes the target: compressive, one wavelength per axis.
    const double k = 2 * pi_v<double>;
    for (const auto& p : x) {
      true_velocity_.push_back(
          {config.amplitude * std::sin(k * p[0]), config.amplitude * std::sin(k * p[1])});
    }
  }

  const Exec& exec() const { return exec_; }
  std::int64_t size() const { return n_; }
  const Constants& constants() const { return constants_; }
  const std::vector<V2>& true_velocity() const { return true_velocity_; }

  /// The initial state for initial velocities `v` (x_ref = x).
  Fluid<sim::Stored<Exec>> initial(const std::vector<V2>& v) const {
    return {sphad::exec::to_buffer(exec_, positions_), sphad::exec::to_buffer(exec_, v),
            sphad::exec::to_buffer(exec_, positions_)};
  }

  /// ρ of a state, plain.
  Buffer<double, Exec> densities(const Fluid<sim::Stored<Exec>>& s) const {
    const ParticleSet<2, double> set{
        {s.x.data(), n_}, constants_.supports, constants_.masses, constants_.kinds};
    const auto list = build_neighbor_list<SupportScheme::Gather>(
        exec_, set.search_points(), set.search_points(), constants_.domain);
    return apply<ops::Density<Kernel>>(exec_, ops::pairs(set, constants_.domain, list));
  }

  /// Sets the target ρ* to the densities after `steps` from v★.
  void make_target(std::int64_t steps) {
    auto s = initial(true_velocity_);
    sim::rollout(exec_, steps, s, sim::NoParams<sim::Stored<Exec>>{}, FlowStep<Exec>{constants_});
    target_ = densities(s);
  }

  struct Gradient {
    double loss;
    std::vector<V2> dv; ///< ∂L/∂v₀ on the host
    std::vector<V2> dx; ///< ∂L/∂x₀ on the host
    sim::RolloutResult<Exec> result;
  };
  /// L and ∂L/∂v₀ through `steps` steps from initial velocities `v`, keeping `checkpoints`
  /// states (0: every state).
  Gradient gradient(const Buffer<V2, Exec>& v, std::int64_t steps, std::int64_t checkpoints) const {
    Fluid<sim::Stored<Exec>> s0 = initial(std::vector<V2>(std::size_t(n_)));
    exec::copy(exec_, v.data(), s0.v.data(), n_);
    auto ds0 = sim::clone(exec_, s0);
    auto result = sim::rollout_gradient(
        exec_, steps,
        sim::problem(s0, FlowStep<Exec>{constants_}, DensityMismatch<Exec>{constants_, target()}),
        sim::gradients(ds0), {checkpoints});
    Gradient out{exec::to_host(exec_, result.loss.data(), 1)[0], // host sync: printed
                 exec::to_host(exec_, ds0.v.data(), n_), exec::to_host(exec_, ds0.x.data(), n_),
                 std::move(result)};
    return out;
  }
  /// L alone (a plain rollout and the loss on one tape).
  double loss(const std::vector<V2>& v, std::int64_t steps) const {
    auto s = initial(v);
    sim::rollout(exec_, steps, s, sim::NoParams<sim::Stored<Exec>>{}, FlowStep<Exec>{constants_});
    Tape<Exec> tape(exec_);
    const auto l = DensityMismatch<Exec>{constants_, target()}(tape, sim::track(s),
                                                               sim::NoParams<sim::Tracked>{});
    return exec::to_host(exec_, l.data(), 1)[0]; // host sync: compared on the host
  }

private:
  Span<const double> target() const { return {target_.data(), target_.size()}; }

  Exec exec_;
  Config config_;
  std::int64_t n_ = 0;
  Buffer<double, Exec> supports_, masses_;
  Buffer<std::int32_t, Exec> kinds_;
  Buffer<double, Exec> target_;
  Constants constants_;
  std::vector<V2> positions_, true_velocity_;
};

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The host side of the descent: v₀ as 2N numbers.
inline std::vector<V2> to_rows(const std::vector<double>& v) {
  std::vector<V2> out(v.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = {v[2 * i], v[2 * i + 1]};
  }
  return out;
}
inline std::vector<double> from_rows(const std::vector<V2>& v) {
  std::vector<double> out;
  for (const auto& e : v) {
    out.push_back(e[0]);
    out.push_back(e[1]);
  }
  return out;
}
inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sum += a[i] * b[i];
  }
  return sum;
}
/// y ← y + t x.
inline void axpy(double t, const std::vector<double>& x, std::vector<double>& y) {
  for (std::size_t i = 0; i < y.size(); ++i) {
    y[i] += t * x[i];
  }
}

/// Limited-memory BFGS directions (Nocedal's two-loop recursion over the last pairs
/// s = Δv₀, y = Δ∇L; steepest descent until the first pair).
class Lbfgs {
public:
  explicit Lbfgs(int memory) : memory_(std::size_t(memory)) {}
  bool empty() const { return s_.empty(); }
  /// −H ∇L.
  std::vector<double> direction(const std::vector<double>& g) const {
    std::vector<double> q = g;
    std::vector<double> a(s_.size());
    for (std::size_t k = s_.size(); k-- > 0;) {
      a[k] = dot(s_[k], q) / dot(y_[k], s_[k]);
      axpy(-a[k], y_[k], q);
    }
    if (!s_.empty()) {
      const double gamma = dot(s_.back(), y_.back()) / dot(y_.back(), y_.back());
      for (auto& e : q) {
        e *= gamma;
      }
    }
    for (std::size_t k = 0; k < s_.size(); ++k) {
      const double b = dot(y_[k], q) / dot(y_[k], s_[k]);
      axpy(a[k] - b, s_[k], q);
    }
    for (auto& e : q) {
      e = -e;
    }
    return q;
  }
  /// Keeps the pair from (v, g) to (v_new, g_new) when it has positive curvature.
  void remember(const std::vector<double>& v_new,
                const std::vector<double>& v,
                const std::vector<double>& g_new,
                const std::vector<double>& g) {
    std::vector<double> s = v_new, y = g_new;
    axpy(-1, v, s);
    axpy(-1, g, y);
    if (dot(s, y) <= 0) {
      return;
    }
    s_.push_back(std::move(s));
    y_.push_back(std::move(y));
    if (s_.size() > memory_) {
      s_.erase(s_.begin());
      y_.erase(y_.begin());
    }
  }

private:
  std::size_t memory_;
  std::vector<std::vector<double>> s_, y_;
};

/// The short-horizon checks: central differences, and checkpointed == every state kept.
template <class Exec>
bool check_gradient(Problem<Exec>& problem, const Config& config) {
  const std::int64_t steps = config.check_steps;
  problem.make_target(steps);
  std::vector<V2> v = problem.true_velocity();
  for (auto& e : v) { // somewhere between rest and v★, moving
    e = {0.5 * e[0] + 0.01, 0.5 * e[1] - 0.02};
  }
  const Buffer<V2, Exec> v_device = sphad::exec::to_buffer(problem.exec(), v);
  const auto all = problem.gradient(v_device, steps, 0);
  const auto few = problem.gradient(v_device, steps, 3);
  const bool same_bits = all.dv == few.dv && all.dx == few.dx && all.loss == few.loss;
  double scale = 0;
  for (const auto& g : all.dv) {
    scale = std::max({scale, std::abs(g[0]), std::abs(g[1])});
  }
  double worst = 0;
  const double step = 1e-6;
  for (const std::int64_t i : {std::int64_t(0), problem.size() / 3, problem.size() - 1}) {
    for (int c = 0; c < 2; ++c) {
      auto plus = v, minus = v;
      plus[std::size_t(i)][c] += step;
      minus[std::size_t(i)][c] -= step;
      const double fd = (problem.loss(plus, steps) - problem.loss(minus, steps)) / (2 * step);
      worst = std::max(worst, std::abs(fd - all.dv[std::size_t(i)][c]) / scale);
    }
  }
  std::printf("gradient check over %lld steps: max error %.2e of max |dL/dv0| (tolerance %.0e); "
              "3 checkpoints %s every state kept (%lld advances instead of %lld)\n",
              static_cast<long long>(steps), worst, config.check_tolerance,
              same_bits ? "give the same bits as" : "DIFFER from",
              static_cast<long long>(few.result.advances),
              static_cast<long long>(all.result.advances));
  return same_bits && worst <= config.check_tolerance;
}

/// The whole example; returns the process's exit status.
template <class Exec>
int optimize_flow(const Exec& exec, int argc, char** argv) {
  Config config;
  if (argc > 1) {
    config.side = std::atoi(argv[1]);
  }
  if (argc > 2) {
    config.steps = std::atoll(argv[2]);
  }
  if (argc > 3) {
    config.iterations = std::atoi(argv[3]);
  }
  Problem<Exec> problem(exec, config);
  std::printf("optimize_flow: %lld particles, %lld steps of dt = %.4g (c = %g, nu = %g)\n",
              static_cast<long long>(problem.size()), static_cast<long long>(config.steps),
              problem.constants().dt, problem.constants().c, problem.constants().nu);
  if (!check_gradient(problem, config)) {
    std::printf("FAILED: the rollout gradient check\n");
    return 1;
  }

  problem.make_target(config.steps);
  const auto checkpoints = std::int64_t(std::ceil(std::sqrt(double(config.steps))));
  // L-BFGS on the host over v₀'s 2N numbers (the rollouts run in the space): a direction from
  // the last `memory` changes of v₀ and of the gradient, then backtracking until L falls
  // enough (Armijo); every trial is one checkpointed gradient rollout, printed as an iteration.
  Lbfgs descent(config.memory);
  std::vector<double> v(std::size_t(2 * problem.size()), 0.0); // start at rest
  struct Trial {
    double loss;
    std::vector<double> g;
  };
  const auto evaluate = [&](const std::vector<double>& at, int it) {
    const auto start = std::chrono::steady_clock::now();
    const auto grad =
        problem.gradient(sphad::exec::to_buffer(exec, to_rows(at)), config.steps, checkpoints);
    std::printf("iteration %2d: L = %.6e  %lld advances + %lld recorded steps, %lld states kept, "
                "%.2f s\n",
                it, grad.loss, static_cast<long long>(grad.result.advances),
                static_cast<long long>(grad.result.recordings),
                static_cast<long long>(grad.result.peak_checkpoints), seconds_since(start));
    return Trial{grad.loss, from_rows(grad.dv)};
  };
  Trial at = evaluate(v, 0);
  const double first = at.loss;
  const double step =
      config.first_step * problem.constants().c * std::sqrt(double(at.g.size()) / dot(at.g, at.g));
  for (int it = 1; it <= config.iterations;) {
    const std::vector<double> d = descent.direction(at.g);
    const double slope = dot(at.g, d);
    // A step changes v₀ by at most `max_step` (rms, in units of c): far from the last pairs
    // the quasi-Newton model is not to be trusted.
    const double longest = config.max_step * problem.constants().c *
                           std::sqrt(double(d.size()) / std::max(dot(d, d), 1e-300));
    for (double t = descent.empty() ? step : std::min(1.0, longest); it <= config.iterations;
         t *= 0.5) {
      std::vector<double> next = v;
      axpy(t, d, next);
      Trial trial = evaluate(next, it++);
      if (trial.loss <= at.loss + 1e-4 * t * slope) {
        descent.remember(next, v, trial.g, at.g);
        v = std::move(next);
        at = std::move(trial);
        break;
      }
      std::printf("              (not enough decrease: the step is halved)\n");
    }
  }
  const double loss = at.loss;
  const double reduction = first / loss;
  std::printf("L fell by %.1fx over %d iterations (required: %gx)\n", reduction, config.iterations,
              config.required_reduction);
  if (!(reduction >= config.required_reduction)) {
    std::printf("FAILED: the loss did not fall far enough\n");
    return 1;
  }
  return 0;
}

} // namespace flow
