// SPDX-License-Identifier: MIT
// The tape's array algebra on the host: the shared cases (sim.cases.hpp), then what only the
// host checks — gradients of a composed loss against central differences and the forward mode
// (the same calls on dual-number views) by the dot-product test, the same bits on 1 and 2
// threads, a loss over an operator's output, and the error paths.
#define SPHAD_TEST_EXEC ::sphad::exec::host
#include <sphad/sphad.hpp>

#include "sim/sim.cases.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#if SPHAD_HAS_OPENMP
#include <omp.h>
#endif

using namespace sphad;

namespace {

using V2 = Vec<double, 2>;
using D1 = Dual<double, 1>;
using Host = Tape<exec::host>;

const std::vector<std::int32_t> gather_index{4, 0, 2, 4, 4, 1, 3, 0, 2, 2, 5};
const std::vector<std::int32_t> scatter_index{1, 1, 0, 2, 0, 1, 2, 2, 0, 1, 0};

/// A loss over every primitive: L = ‖s‖² + ⟨w, u⟩ + Σ w_j ⟨u_j, u_j⟩ + Σ_i q_i, with
/// u = x[gather_index] (a gather), s = scatter_add(u, scatter_index, 3), q = the row-wise sum
/// of x and w. Works for plain and dual elements (untracked `Span`s give the forward mode).
template <class XView, class WView>
auto composed_loss(Host& tape, const XView& x, const WView& w) {
  const auto u = record_gather(tape, x, {gather_index.data(), 11});
  const auto s = record_scatter_add(tape, u, {scatter_index.data(), 11}, 3);
  const auto uw = record_gather(tape, w, {gather_index.data(), 11});
  const auto a = record_squared_norm(tape, s);
  const auto b = record_dot(tape, uw, u);
  const auto c = record_weighted_sum(tape, uw, record_map(tape, 11, sim::SquaredNorm{}, u));
  const auto d = record_reduce(tape, 6, sim::Dot{}, x, w);
  return record_map(
      tape, 1, [](auto p, auto q, auto r, auto t) { return p + q + r + t; }, a, b, c, d);
}

std::vector<double> values(std::int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (auto& v : out) {
    v = u(rng);
  }
  return out;
}

double loss_value(std::vector<double> x, std::vector<double> w) {
  Host tape;
  const auto l =
      composed_loss(tape, Span<const double>{x.data(), 6}, Span<const double>{w.data(), 6});
  return l[0];
}

} // namespace

TEST_CASE("sim: a composed loss's gradients match central differences and the forward mode",
          "[sim]") {
  const auto x = values(6, 1), w = values(6, 2), xdot = values(6, 3), wdot = values(6, 4);
  Host tape;
  const Variable<double> xv(x.data(), 6), wv(w.data(), 6);
  const auto loss = composed_loss(tape, xv, wv);
  tape.backward(loss);
  const auto gx = tape.gradient(xv), gw = tape.gradient(wv);

  // Central differences (the loss is a polynomial of degree 4: the steps' error is rounding).
  const double step = 1e-5;
  double worst = 0, scale = 0;
  for (int k = 0; k < 12; ++k) {
    auto xp = x, xm = x, wp = w, wm = w;
    auto& plus = k < 6 ? xp[std::size_t(k)] : wp[std::size_t(k - 6)];
    auto& minus = k < 6 ? xm[std::size_t(k)] : wm[std::size_t(k - 6)];
    plus += step;
    minus -= step;
    const double fd = (loss_value(xp, wp) - loss_value(xm, wm)) / (2 * step);
    const double g = k < 6 ? gx[k] : gw[k - 6];
    worst = std::max(worst, std::abs(fd - g));
    scale = std::max(scale, std::abs(g));
  }
  CHECK(worst / scale < 1e-8);

  // The forward mode: the same calls on dual views give J·ẋ; ⟨∇L, ẋ⟩ must equal it.
  std::vector<D1> xd, wd;
  for (std::size_t i = 0; i < 6; ++i) {
    xd.push_back(D1(x[i], {xdot[i]}));
    wd.push_back(D1(w[i], {wdot[i]}));
  }
  Host forward;
  const auto jvp =
      composed_loss(forward, Span<const D1>{xd.data(), 6}, Span<const D1>{wd.data(), 6});
  double reverse = 0;
  for (std::int64_t i = 0; i < 6; ++i) {
    reverse += gx[i] * xdot[std::size_t(i)] + gw[i] * wdot[std::size_t(i)];
  }
  CHECK(jvp[0].value == loss[0]);
  CHECK(std::abs(jvp[0].tangent[0] - reverse) <= 1e-12 * std::abs(reverse));
}

TEST_CASE("sim: values and gradients are the same bits on 1 and 2 threads", "[sim]") {
  const std::int64_t n = 5 * exec::reduce_chunk + 123;
  const auto x = values(n, 9);
  std::vector<std::int32_t> index(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    index[std::size_t(i)] = std::int32_t((i * 7919) % 1000);
  }
  const auto run = [&](int threads) {
#if SPHAD_HAS_OPENMP
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
#else
    (void)threads;
#endif
    Host tape;
    const Variable<double> xv(x.data(), n);
    const auto s = record_scatter_add(tape, xv, {index.data(), n}, 1000);
    const auto loss = record_squared_norm(tape, record_map(tape, 1000, sim::SquaredNorm{}, s));
    tape.backward(loss);
    std::vector<double> out{loss[0]};
    const auto g = tape.gradient(xv);
    out.insert(out.end(), g.data(), g.data() + g.size());
#if SPHAD_HAS_OPENMP
    omp_set_num_threads(before);
#endif
    return out;
  };
  const auto one = run(1), two = run(2);
  REQUIRE(one.size() == two.size());
  CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(double)) == 0);
}

TEST_CASE("sim: a loss over an operator's output needs no hand-made seed", "[sim]") {
  // L = Σ (ρ_i − 1)² over a jittered periodic lattice, by the tape, against central differences
  // in the positions.
  const int side = 8;
  const double dx = 1.0 / side;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> shake(-0.1 * dx, 0.1 * dx);
  std::vector<V2> x;
  for (int j = 0; j < side; ++j) {
    for (int i = 0; i < side; ++i) {
      x.push_back({(i + 0.5) * dx + shake(rng), (j + 0.5) * dx + shake(rng)});
    }
  }
  const std::int64_t n = std::int64_t(x.size());
  const std::vector<double> h(x.size(), kernels::support_from_volume(dx * dx, 20, 2));
  const std::vector<double> m(x.size(), dx * dx);
  const std::vector<std::int32_t> kinds(x.size(), std::int32_t(ParticleKind::Fluid));
  const Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};
  using Density = ops::Density<kernels::Wendland4>;
  const auto loss_of = [&](const std::vector<V2>& at, Host& tape, const Variable<V2>* tracked) {
    const ParticleSet<2, double> set{
        {at.data(), n}, {h.data(), n}, {m.data(), n}, {kinds.data(), n}};
    const auto list = build_neighbor_list<SupportScheme::Gather>(exec::host{}, set.search_points(),
                                                                 set.search_points(), domain);
    const auto residual = [](auto rho) { return rho - 1.0; };
    if (tracked != nullptr) {
      const auto s = set.with_positions(*tracked);
      const auto rho = record<Density>(tape, s, s, domain, list);
      return record_squared_norm(tape, record_map(tape, n, residual, rho));
    }
    const auto rho = record<Density>(tape, set, set, domain, list);
    return record_squared_norm(tape, record_map(tape, n, residual, rho));
  };
  Host tape;
  const Variable<V2> xv(x.data(), n);
  const auto loss = loss_of(x, tape, &xv);
  tape.backward(loss);
  const auto g = tape.gradient(xv);
  const double step = 1e-6;
  double worst = 0, scale = 0;
  for (const std::int64_t i : {std::int64_t(0), std::int64_t(13), std::int64_t(40)}) {
    for (int c = 0; c < 2; ++c) {
      auto plus = x, minus = x;
      plus[std::size_t(i)][c] += step;
      minus[std::size_t(i)][c] -= step;
      Host a, b;
      const double fd = (loss_of(plus, a, nullptr)[0] - loss_of(minus, b, nullptr)[0]) / (2 * step);
      worst = std::max(worst, std::abs(fd - g[i][c]));
      scale = std::max(scale, std::abs(g[i][c]));
    }
  }
  CHECK(worst / scale < 1e-6);
}

TEST_CASE("sim: bad input throws naming the argument, before the tape changes", "[sim]") {
  Host tape;
  std::vector<double> a{1, 2, 3}, b{1, 2};
  const Variable<double> av(a.data(), 3), bv(b.data(), 2);
  const std::vector<std::int32_t> outside{0, 3};
  const auto throws = [&](auto&& call, const char* text) {
    const auto records = tape.size();
    CHECK_THROWS_WITH(call(), Catch::Contains(text));
    CHECK(tape.size() == records);
  };
  throws([&] { record_dot(tape, av, bv); }, "argument `b`");
  throws([&] { record_weighted_sum(tape, bv, av); }, "argument `w`");
  throws([&] { record_reduce(tape, 3, sim::Identity{}, bv); }, "argument `inputs`");
  throws([&] { record_gather(tape, av, {outside.data(), 2}); }, "entry 1 is 3, outside [0, 3)");
  throws([&] { record_scatter_add(tape, bv, {outside.data(), 2}, 3); }, "argument `index`");
  throws([&] { record_scatter_add(tape, bv, {outside.data(), 2}, -1); }, "argument `n`");
  throws([&] { record_sum(tape, Variable<double>{}); }, "argument `x`: is an empty Variable");
  const auto two = record_map(tape, 2, sim::Identity{}, bv);
  CHECK_THROWS_WITH(tape.backward(two), Catch::Contains("argument `loss`: holds 2 elements"));
}

namespace {

using test::Force;
using test::Motion;
using Stored = sim::Stored<exec::host>;

/// One SPH step: ρ by summation over a list rebuilt from the step's positions, a pressure
/// acceleration −c² ∇ρ/ρ (Symmetric gradient of ρ), a force field, symplectic Euler.
struct PressureKick {
  double dt, c2;
  template <class V, class G, class R, class F>
  auto operator()(const V& v, const G& grad, const R& rho, const F& f) const {
    using S = decltype(v[0] + dt * (f[0] - c2 * grad[0] / rho));
    return Vec<S, 2>{v[0] + dt * (f[0] - c2 * grad[0] / rho),
                     v[1] + dt * (f[1] - c2 * grad[1] / rho)};
  }
};
struct SPHStep {
  const std::vector<double>* h;
  const std::vector<double>* m;
  const std::vector<std::int32_t>* kinds;
  Domain<2, double> domain;
  double dt;
  template <class Tape, class Kind, class ParamKind>
  Motion<sim::Tracked>
  operator()(Tape& tape, const Motion<Kind>& s, const Force<ParamKind>& p, std::int64_t) const {
    const std::int64_t n = s.x.size();
    const ParticleSet<2, double> plain{
        primal_view(s.x), {h->data(), n}, {m->data(), n}, {kinds->data(), n}};
    const auto list = build_neighbor_list<SupportScheme::Gather>(
        exec::host{}, plain.search_points(), plain.search_points(), domain); // rebuilt each step
    const auto set = plain.with_positions(s.x);
    const auto rho = record<ops::Density<kernels::Wendland4>>(tape, set, set, domain, list);
    const auto with_rho = set.with_densities(rho);
    const auto grad = record<ops::Gradient<kernels::Wendland4, GradientScheme::Symmetric>>(
        tape, with_rho, with_rho, domain, list, rho, rho);
    const auto v = record_map(tape, n, PressureKick{dt, 0.5}, s.v, grad, rho, p.f);
    return {record_map(tape, n, test::Drift2{dt}, s.x, v), v};
  }
};

} // namespace

TEST_CASE("rollout_gradient: 20 SPH steps with a list rebuilt in each, against central "
          "differences; checkpointed equals every state kept, bitwise",
          "[sim]") {
  const int side = 6;
  const double dx = 1.0 / side;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<V2> x0, v0, f0;
  for (int j = 0; j < side; ++j) {
    for (int i = 0; i < side; ++i) {
      x0.push_back({(i + 0.5 + 0.15 * u(rng)) * dx, (j + 0.5 + 0.15 * u(rng)) * dx});
      v0.push_back({0.2 * u(rng), 0.2 * u(rng)});
      f0.push_back({0.1 * u(rng), 0.1 * u(rng)});
    }
  }
  const std::int64_t n = std::int64_t(x0.size());
  const std::vector<double> h(x0.size(), kernels::support_from_volume(dx * dx, 20, 2));
  const std::vector<double> m(x0.size(), dx * dx);
  const std::vector<std::int32_t> kinds(x0.size(), std::int32_t(ParticleKind::Fluid));
  const SPHStep step{&h, &m, &kinds, Domain<2, double>{{0, 0}, {1, 1}, {true, true}}, 0.01};
  const exec::host exec;
  const std::int64_t steps = 20;
  struct Run {
    double loss;
    std::vector<double> g;
  };
  const auto run = [&](const std::vector<V2>& x, const std::vector<V2>& v, const std::vector<V2>& f,
                       std::int64_t checkpoints) {
    const Motion<Stored> initial{test::upload(exec, x), test::upload(exec, v)};
    const Force<Stored> force{test::upload(exec, f)};
    auto g0 = sim::clone(exec, initial);
    auto gf = sim::clone(exec, force);
    const auto result = sim::rollout_gradient(exec, steps, initial, force, step, test::MotionLoss{},
                                              g0, gf, {checkpoints});
    Run out{result.loss.data()[0], {}};
    for (const auto* b : {&g0.x, &g0.v, &gf.f}) {
      for (std::int64_t i = 0; i < n; ++i) {
        out.g.push_back((*b).data()[i][0]);
        out.g.push_back((*b).data()[i][1]);
      }
    }
    return out;
  };
  const Run all = run(x0, v0, f0, 0);
  for (const std::int64_t c : {1, 3}) {
    const Run checkpointed = run(x0, v0, f0, c);
    CHECK(checkpointed.g == all.g);
  }
  const double step_size = 1e-6;
  double worst = 0, scale = 0;
  for (const double g : all.g) {
    scale = std::max(scale, std::abs(g));
  }
  for (const std::int64_t i : {std::int64_t(0), std::int64_t(17), std::int64_t(35)}) {
    for (int c = 0; c < 2; ++c) {
      for (int which = 0; which < 3; ++which) {
        auto x = x0, v = v0, f = f0;
        auto& e = (which == 0 ? x : which == 1 ? v : f)[std::size_t(i)][c];
        const double keep = e;
        e = keep + step_size;
        const double plus = run(x, v, f, 0).loss;
        e = keep - step_size;
        const double minus = run(x, v, f, 0).loss;
        const double fd = (plus - minus) / (2 * step_size);
        const double g = all.g[std::size_t(which * 2 * n + 2 * i + c)];
        worst = std::max(worst, std::abs(fd - g));
      }
    }
  }
  CHECK(worst / scale < 1e-6);
}

TEST_CASE("rollout_gradient: equal to the rollout recorded on one tape; bad input throws",
          "[sim]") {
  const exec::host exec;
  const std::int64_t n = 6, steps = 9;
  const auto x = test::ring(n, 1.0, 0.0), v = test::ring(n, 0.3, 1.0), f = test::ring(n, 0.1, 0.5);
  const auto executor = test::run_rollout(steps, 3);
  // Every step on one tape, each step's outputs the next one's inputs.
  Tape<exec::host> tape;
  const Motion<sim::Tracked> s0{Variable<V2>(x.data(), n), Variable<V2>(v.data(), n)};
  const Force<sim::Tracked> theta{Variable<V2>(f.data(), n)};
  Motion<sim::Tracked> s = s0;
  for (std::int64_t k = 0; k < steps; ++k) {
    s = test::MotionStep{}(tape, s, theta, k);
  }
  tape.backward(test::MotionLoss{}(tape, s, theta));
  std::vector<double> one_tape;
  for (const auto* var : {&s0.x, &s0.v, &theta.f}) {
    const auto g = tape.gradient(*var);
    for (std::int64_t i = 0; i < n; ++i) {
      one_tape.push_back(g[i][0]);
      one_tape.push_back(g[i][1]);
    }
  }
  REQUIRE(one_tape.size() == executor.gradients.size());
  // The states' gradients are the same bits; the force's sums its steps' shares in another
  // grouping (one running sum on one tape, a sum per step tape then over the steps).
  for (std::size_t k = 0; k < one_tape.size(); ++k) {
    CAPTURE(k);
    if (k < std::size_t(4 * n)) {
      CHECK(one_tape[k] == executor.gradients[k]);
    } else {
      CHECK(std::abs(one_tape[k] - executor.gradients[k]) <= 1e-13 * std::abs(one_tape[k]));
    }
  }

  const Motion<Stored> initial{test::upload(exec, x), test::upload(exec, v)};
  const Force<Stored> force{test::upload(exec, f)};
  auto g0 = sim::clone(exec, initial);
  auto gf = sim::clone(exec, force);
  CHECK_THROWS_WITH(sim::rollout_gradient(exec, 0, initial, force, test::MotionStep{},
                                          test::MotionLoss{}, g0, gf),
                    Catch::Contains("argument `steps`: must be at least 1"));
  CHECK_THROWS_WITH(sim::rollout_gradient(exec, 3, initial, force, test::MotionStep{},
                                          test::MotionLoss{}, g0, gf, {-1}),
                    Catch::Contains("argument `options`: checkpoints is negative"));
  Force<Stored> short_gradient{test::upload(exec, std::vector<V2>(2))};
  CHECK_THROWS_WITH(sim::rollout_gradient(exec, 3, initial, force, test::MotionStep{},
                                          test::MotionLoss{}, g0, short_gradient),
                    Catch::Contains("argument `params_gradient`: an array has another size"));
}

TEST_CASE("binomial schedule: its splits reach the least advances, which the closed form gives",
          "[sim]") {
  using sim::detail::binomial_split;
  using sim::detail::minimal_advances;
  constexpr std::int64_t max_l = 100, max_c = 10;
  // best[l][c]: the least advances by exhaustive search of the recursion.
  std::vector<std::vector<std::int64_t>> best(max_l, std::vector<std::int64_t>(max_c + 1, 0));
  for (std::int64_t l = 2; l < max_l; ++l) {
    best[l][1] = l * (l - 1) / 2;
    for (std::int64_t c = 2; c <= max_c; ++c) {
      std::int64_t least = best[l][1];
      for (std::int64_t m = 1; m < l; ++m) {
        least = std::min(least, m + best[m][c] + best[l - m][c - 1]);
      }
      best[l][c] = least;
    }
  }
  // The advances the schedule's splits take (as rollout_gradient recurses).
  std::vector<std::vector<std::int64_t>> taken(max_l, std::vector<std::int64_t>(max_c + 1, 0));
  for (std::int64_t l = 2; l < max_l; ++l) {
    taken[l][1] = l * (l - 1) / 2;
    for (std::int64_t c = 2; c <= max_c; ++c) {
      const std::int64_t m = binomial_split(l, c);
      REQUIRE(m >= 1);
      REQUIRE(m < l);
      taken[l][c] = m + taken[m][c] + taken[l - m][c - 1];
    }
  }
  for (std::int64_t l = 1; l < max_l; ++l) {
    for (std::int64_t c = 1; c <= max_c; ++c) {
      CAPTURE(l, c);
      REQUIRE(taken[l][c] == best[l][c]);
      REQUIRE(minimal_advances(l, c) == best[l][c]);
    }
  }
}

namespace {
/// A container shaped like Thrust's vectors: `data()` a fancy pointer whose `get()` is the address.
struct FancyPointer {
  double* address;
  double* get() const { return address; }
};
struct FancyVector {
  std::vector<double> v;
  FancyPointer data() { return {v.data()}; }
  std::size_t size() const { return v.size(); }
};
} // namespace

TEST_CASE("containers with fancy pointers (Thrust's vectors) and vectors are views and Variables",
          "[sim]") {
  FancyVector fancy{{1.0, 2.0, 3.0}};
  const Span<const double> view = fancy;
  CHECK(view.data() == fancy.v.data());
  CHECK(view.size() == 3);
  const Variable<double> writable(fancy);
  CHECK(writable.writable);
  CHECK(writable.data() == fancy.v.data());
  const std::vector<double> constant{4.0, 5.0};
  const Variable<double> read_only(constant);
  CHECK_FALSE(read_only.writable);
  CHECK(read_only.size() == 2);
  Host tape;
  tape.backward(record_sum(tape, writable));
  CHECK(tape.gradient(writable)[2] == 1.0);
}
