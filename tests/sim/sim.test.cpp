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
