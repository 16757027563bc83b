// SPDX-License-Identifier: MIT
#include <sphad/ad/dual.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "kernels/kernel_cases.hpp" // near, matches_printed
#include "ops/ops_cases.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace sphad;
using test::matches_printed;
using test::near;
using test::span;
using K2 = kernels::Wendland2;
using G = GradientScheme;
using L = LaplacianScheme;

namespace {
template <class Op>
struct OpTag {
  using type = Op;
};

} // namespace

TEST_CASE("ops: the 1D two-particle case reproduces the hand-checked table", "[ops][golden]") {
  // Hand-checked: Wendland2 1D, x = {0, 0.5}, h = 1, m = ρ = 1, f = {1, 3}, Gather.
  test::Particles<1, double> p;
  p.add({0.0}, 1, 1);
  p.add({0.5}, 1, 1);
  const Domain<1, double> domain{{-5}, {5}, {false}};
  const auto list = test::all_pairs_list(p, domain);
  const exec::host ex;
  const auto s = p.view();
  const std::vector<double> f{1, 3};
  const std::vector<Vec<double, 1>> fv{{1.0}, {3.0}};
  const auto rho = apply<ops::Density<K2>>(ex, s, s, domain, list);
  const auto interp = apply<ops::Interpolate<K2>>(ex, s, s, domain, list, span(f), span(f));
  const auto naive = apply<ops::Gradient<K2, G::Naive>>(ex, s, s, domain, list, span(f), span(f));
  const auto diff =
      apply<ops::Gradient<K2, G::Difference>>(ex, s, s, domain, list, span(f), span(f));
  const auto sym = apply<ops::Gradient<K2, G::Symmetric>>(ex, s, s, domain, list, span(f), span(f));
  const auto sum = apply<ops::Gradient<K2, G::Summation>>(ex, s, s, domain, list, span(f), span(f));
  const auto brookshaw = apply<ops::Laplacian<K2, L::Brookshaw, G::Difference>>(
      ex, s, s, domain, list, span(f), span(f));
  const auto fallback =
      apply<ops::Laplacian<K2, L::Default>>(ex, s, s, domain, list, span(f), span(f));
  const auto naive_lap =
      apply<ops::Laplacian<K2, L::Naive>>(ex, s, s, domain, list, span(f), span(f));
  const auto cov = apply<ops::Covariance<K2>>(ex, s, s, domain, list);
  const auto div = apply<ops::Divergence<K2, G::Naive>>(ex, s, s, domain, list, span(fv), span(fv));
  for (int i = 0; i < 2; ++i) {
    const double sign = i == 0 ? 1 : -1;
    CHECK(near(rho[i], 1.640625, 1e-15));
    CHECK(near(interp[i], i == 0 ? 2.421875 : 4.140625, 1e-15));
    CHECK(near(naive[i][0], i == 0 ? 5.625 : -1.875, 1e-15));
    CHECK(near(diff[i][0], 3.75, 1e-15));
    CHECK(near(sym[i][0], sign * 7.5, 1e-15));
    CHECK(near(sum[i][0], sign * 7.5, 1e-15));
    CHECK(matches_printed(brookshaw[i], sign * 14.9999994, 9));
    CHECK(matches_printed(fallback[i], sign * 14.9999997, 9));
    CHECK(near(naive_lap[i], sign * 7.5, 1e-14));
    CHECK(near(cov[i].matrix(0, 0), 0.9375, 1e-15));
    CHECK(cov[i].neighbors == 2);
    CHECK(div[i] == naive[i][0]); // the divergence of an [N, 1] field is its gradient
  }
}

TEST_CASE("ops: the curl has the right-hand sign in 2D and 3D", "[ops][golden]") {
  // Hand-checked: points (0,0), (0.5,0), (0,0.5), h = 1, m = ρ = 1, v = (−y, x), Difference.
  const exec::host ex;
  {
    test::Particles<2, double> p;
    p.add({0, 0}, 1, 1);
    p.add({0.5, 0}, 1, 1);
    p.add({0, 0.5}, 1, 1);
    const Domain<2, double> domain{{-2, -2}, {2, 2}, {false, false}};
    const auto list = test::all_pairs_list(p, domain);
    std::vector<Vec<double, 2>> v;
    for (const auto& x : p.x) {
      v.push_back({-x[1], x[0]});
    }
    const auto s = p.view();
    const auto curl = apply<ops::Curl<K2, G::Difference>>(ex, s, s, domain, list, span(v), span(v));
    const auto div =
        apply<ops::Divergence<K2, G::Difference>>(ex, s, s, domain, list, span(v), span(v));
    CHECK(near(curl[0], 8.75 / pi_v<double>, 1e-14));
    CHECK(std::abs(div[0]) <= 1e-15);
  }
  {
    test::Particles<3, double> p;
    p.add({0, 0, 0}, 1, 1);
    p.add({0.5, 0, 0}, 1, 1);
    p.add({0, 0.5, 0}, 1, 1);
    const Domain<3, double> domain{{-2, -2, -2}, {2, 2, 2}, {false, false, false}};
    const auto list = test::all_pairs_list(p, domain);
    std::vector<Vec<double, 3>> v;
    for (const auto& x : p.x) {
      v.push_back({-x[1], x[0], 0});
    }
    const auto s = p.view();
    const auto curl = apply<ops::Curl<K2, G::Difference>>(ex, s, s, domain, list, span(v), span(v));
    CHECK(std::abs(curl[0][0]) <= 1e-15);
    CHECK(std::abs(curl[0][1]) <= 1e-15);
    CHECK(near(curl[0][2], 1.25 * 21 / (2 * pi_v<double>), 1e-14));
  }
}

TEST_CASE("ops: the 32x32 periodic fixture has the golden density and covariance, and grid "
          "traversal equals the list bitwise",
          "[ops][golden]") {
  // Reference lattice: density 1.0010562289, covariance 0.99835676 I at every particle.
  auto p = test::lattice<2, double>(32, 55);
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {true, true}};
  const exec::host ex;
  const auto list = test::all_pairs_list(p, domain);
  const auto rho = apply<ops::Density<K2>>(ex, p.view(), p.view(), domain, list);
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    p.rho[i] = rho[std::int64_t(i)];
  }
  const auto cov = apply<ops::Covariance<K2>>(ex, p.view(), p.view(), domain, list);
  bool golden = true;
  for (std::int64_t i = 0; i < rho.size(); ++i) {
    golden = golden && matches_printed(rho[i], 1.0010562289, 11) &&
             matches_printed(cov[i].matrix(0, 0), 0.99835676, 8) &&
             matches_printed(cov[i].matrix(1, 1), 0.99835676, 8) &&
             std::abs(cov[i].matrix(0, 1)) < 1e-14 && cov[i].neighbors == 57;
  }
  CHECK(golden);

  // Grid traversal visits the same pairs in the same order: bitwise equal results.
  std::vector<double> f;
  std::vector<Vec<double, 2>> v;
  for (const auto& x : p.x) {
    f.push_back(5 * x[0] + 3 * x[1]);
    v.push_back({2 * x[0] - x[1], 4 * x[0] + 3 * x[1]});
  }
  const auto s = p.view();
  const auto grid = search::build_search_grid<SupportScheme::Gather>(ex, s.search_points(),
                                                                     s.search_points(), domain);
  const auto gather_list =
      build_neighbor_list<SupportScheme::Gather>(ex, s.search_points(), s.search_points(), domain);
  const auto a =
      apply<ops::Gradient<K2, G::Difference>>(ex, s, s, domain, gather_list, span(f), span(f));
  const auto b = apply<ops::Gradient<K2, G::Difference>>(ex, s, s, domain, grid, span(f), span(f));
  const auto c = apply<ops::Laplacian<K2, L::Dot>>(ex, s, s, domain, gather_list, span(v), span(v));
  const auto d = apply<ops::Laplacian<K2, L::Dot>>(ex, s, s, domain, grid, span(v), span(v));
  bool bitwise = true;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    bitwise = bitwise && a[i] == b[i] && c[i] == d[i];
  }
  CHECK(bitwise);
}

TEMPLATE_TEST_CASE("ops: linear fields are reproduced in the lattice interior",
                   "[ops]",
                   float,
                   double) {
  // A 2D non-periodic lattice (24 per axis, ~50 neighbours); f = c·x + 0.7, v = A x.
  using T = TestType;
  auto p = test::lattice<2, T>(24, 50);
  const Domain<2, T> domain{{-1, -1}, {1, 1}, {false, false}};
  const exec::host ex;
  const auto list = test::all_pairs_list(p, domain);
  const auto rho = apply<ops::Density<K2>>(ex, p.view(), p.view(), domain, list);
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    p.rho[i] = rho[std::int64_t(i)];
  }
  const double c[2] = {0.9, 2.2};
  const double A[2][2] = {{2 - 0.0, 0.6}, {-0.9, 2 - 0.3}};
  std::vector<T> f;
  std::vector<Vec<T, 2>> v;
  for (const auto& x : p.x) {
    f.push_back(T(c[0] * x[0] + c[1] * x[1] + 0.7));
    v.push_back({T(A[0][0] * x[0] + A[0][1] * x[1]), T(A[1][0] * x[0] + A[1][1] * x[1])});
  }
  const auto s = p.view();
  const auto interp = apply<ops::Interpolate<K2>>(ex, s, s, domain, list, span(f), span(f));
  const auto grad =
      apply<ops::Gradient<K2, G::Difference>>(ex, s, s, domain, list, span(f), span(f));
  const auto jac =
      apply<ops::Gradient<K2, G::Difference>>(ex, s, s, domain, list, span(v), span(v));
  const auto div =
      apply<ops::Divergence<K2, G::Difference>>(ex, s, s, domain, list, span(v), span(v));
  const auto curl = apply<ops::Curl<K2, G::Difference>>(ex, s, s, domain, list, span(v), span(v));
  const auto lap = apply<ops::Laplacian<K2>>(ex, s, s, domain, list, span(f), span(f));
  double worst[6] = {};
  const double band = double(p.h[0]) + 2.0 / 24; // the support stays inside the lattice
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    const auto& x = p.x[i];
    if (std::abs(x[0]) > 1 - band || std::abs(x[1]) > 1 - band) {
      continue;
    }
    const auto k = std::int64_t(i);
    worst[0] = std::fmax(worst[0], std::abs(interp[k] - f[i]));
    worst[1] = std::fmax(worst[1], std::abs(grad[k][0] - c[0]) + std::abs(grad[k][1] - c[1]));
    worst[2] =
        std::fmax(worst[2], std::abs(jac[k](1, 0) - A[1][0]) + std::abs(jac[k](0, 1) - A[0][1]));
    worst[3] = std::fmax(worst[3], std::abs(div[k] - (A[0][0] + A[1][1])));
    worst[4] = std::fmax(worst[4], std::abs(curl[k] - (A[1][0] - A[0][1])));
    worst[5] = std::fmax(worst[5], std::abs(lap[k]));
  }
  INFO("interp " << worst[0] << " grad " << worst[1] << " jacobian " << worst[2] << " div "
                 << worst[3] << " curl " << worst[4] << " laplacian " << worst[5]);
  // Lattice discretization errors (the reference gate is 0.4; these are ~100× tighter).
  CHECK(worst[0] < 5e-4);
  CHECK(worst[1] < 0.02);
  CHECK(worst[2] < 0.02);
  CHECK(worst[3] < 0.02);
  CHECK(worst[4] < 0.02);
  CHECK(worst[5] < 0.02);
}

TEST_CASE("ops: kinds and every direction filter pairs like a brute-force sum", "[ops]") {
  // Every kind present, and sets missing some (the call then tests fewer kinds: same sums).
  const std::uint32_t present = GENERATE(15u, 1u | 2u, 1u | 8u, 4u, 1u);
  std::vector<std::int32_t> among;
  for (std::int32_t k = 0; k < 4; ++k) {
    if ((present >> k) & 1u) {
      among.push_back(k);
    }
  }
  auto p = test::lattice<2, double>(12, 30);
  std::mt19937 rng(3);
  for (auto& kind : p.kinds) {
    kind = among[rng() % among.size()];
  }
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {true, false}};
  const exec::host ex;
  const auto list = test::all_pairs_list(p, domain);
  INFO("kinds present (bits) " << present);
  for (int mode = 0; mode < 15; ++mode) {
    ApplyOptions<double> options;
    options.direction = static_cast<OperationDirection>(mode);
    const auto rho = apply<ops::Density<K2>>(ex, p.view(), p.view(), domain, list, options);
    const KindFilter filter = kind_filter(options.direction);
    bool ok = true;
    for (std::size_t i = 0; i < p.x.size(); ++i) {
      double expected = 0;
      if (filter.accepts_query(p.kinds[i])) {
        for (std::size_t j = 0; j < p.x.size(); ++j) {
          if (filter.accepts_reference(p.kinds[j])) {
            expected += p.m[j] * kernels::value<K2>(domain.difference(p.x[i], p.x[j]), p.h[i]);
          }
        }
      }
      ok = ok && (filter.accepts_query(p.kinds[i]) ? near(rho[std::int64_t(i)], expected, 1e-13)
                                                   : rho[std::int64_t(i)] == 0.0);
    }
    INFO("direction " << mode);
    CHECK(ok);
  }
  // The table itself: AllToAll keeps ghost queries and drops ghost sources.
  const auto all = kind_filter(OperationDirection::AllToAll);
  CHECK(all.accepts_query(2));
  CHECK_FALSE(all.accepts_reference(2));
  CHECK(all.accepts_reference(3));
  CHECK(kind_filter(OperationDirection::TrueAllToAll).accepts_reference(2));
  CHECK_FALSE(kind_filter(OperationDirection::FluidToBoundary).accepts_query(0));
  CHECK(kind_filter(OperationDirection::FluidToBoundary).accepts_query(1));
  // Widened to the kinds present: no ghost reference, nothing dropped, no test at all...
  CHECK(all.for_kinds_present(15u, 1u | 2u | 8u).everything);
  CHECK(kind_filter(OperationDirection::FluidToFluid).for_kinds_present(1u, 1u).everything);
  // ...a ghost present is still dropped, and kinds not known (device memory) change nothing.
  const auto ghosts = all.for_kinds_present(15u, 15u);
  CHECK_FALSE(ghosts.everything);
  CHECK_FALSE(ghosts.accepts_reference(2));
  CHECK_FALSE(ghosts.accepts_every_kind());
  const auto unknown = kind_filter(OperationDirection::FluidToFluid).for_kinds_present(~0u, ~0u);
  CHECK(unknown.query == 1u);
  CHECK(unknown.reference == 1u);
  CHECK_FALSE(unknown.everything);
  // (FluidToBoundary: fluid sources, boundary targets; the absent ghost and other kinds join.)
  CHECK(
      kind_filter(OperationDirection::FluidToBoundary).for_kinds_present(15u, 1u | 2u).reference ==
      (1u | 4u | 8u));
}

TEST_CASE("ops: self and coincident pairs are summed with the kernel's values at r = 0", "[ops]") {
  // Query 0 sits on reference 0 (a distinct particle of another set); reference 1 is out of
  // reach. Without corrections the kernel gradient vanishes at r = 0.
  test::Particles<2, double> q, r;
  q.add({0.25, -0.5}, 0.4, 2.0, 1.5);
  r.add({0.25, -0.5}, 0.4, 3.0, 1.2);
  r.add({0.9, 0.9}, 0.4, 1.0, 1.0);
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  const auto list = build_neighbor_list<SupportScheme::Gather>(
      exec::host{}, q.view().search_points(), r.view().search_points(), domain);
  REQUIRE(list.offsets.data()[1] == 1);
  const exec::host ex;
  const auto a = q.view();
  const auto b = r.view();
  const std::vector<double> fq{2.0}, fr{5.0, 7.0};
  const std::vector<Vec<double, 2>> vq{{1.0, 2.0}}, vr{{3.0, -1.0}, {0.0, 4.0}};
  const double w0 = kernels::value<K2>(Vec<double, 2>{}, 0.4);
  CHECK(apply<ops::Density<K2>>(ex, a, b, domain, list)[0] == 3.0 * w0);
  CHECK(near(apply<ops::Interpolate<K2>>(ex, a, b, domain, list, span(fq), span(fr))[0],
             5.0 * (3.0 / 1.2) * w0, 1e-15));
  const auto zero_vector = [](const Vec<double, 2>& g) { return g[0] == 0.0 && g[1] == 0.0; };
  CHECK(zero_vector(
      apply<ops::Gradient<K2, G::Naive>>(ex, a, b, domain, list, span(fq), span(fr))[0]));
  CHECK(zero_vector(
      apply<ops::Gradient<K2, G::Symmetric>>(ex, a, b, domain, list, span(fq), span(fr))[0]));
  CHECK(apply<ops::Divergence<K2, G::Summation>>(ex, a, b, domain, list, span(vq), span(vr))[0] ==
        0.0);
  CHECK(apply<ops::Curl<K2, G::Naive>>(ex, a, b, domain, list, span(vq), span(vr))[0] == 0.0);
  // Every Laplacian scheme is exactly 0: the r > 0 guard, and ∇²W = 0 for q < ε (Naive).
  CHECK(apply<ops::Laplacian<K2, L::Naive>>(ex, a, b, domain, list, span(fq), span(fr))[0] == 0.0);
  CHECK(apply<ops::Laplacian<K2, L::Brookshaw>>(ex, a, b, domain, list, span(fq), span(fr))[0] ==
        0.0);
  CHECK(apply<ops::Laplacian<K2, L::Default>>(ex, a, b, domain, list, span(fq), span(fr))[0] ==
        0.0);
  CHECK(zero_vector(
      apply<ops::Laplacian<K2, L::Dot>>(ex, a, b, domain, list, span(vq), span(vr))[0]));
  const auto cov = apply<ops::Covariance<K2>>(ex, a, b, domain, list)[0];
  CHECK(cov.matrix(0, 0) == 0.0);
  CHECK(cov.matrix(0, 1) == 0.0);
  CHECK(cov.matrix(1, 1) == 0.0);
  CHECK(cov.neighbors == 1);
}

TEST_CASE("ops: positions shifted by whole periods give the same results", "[ops]") {
  auto p = test::lattice<2, double>(10, 25);
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> jitter(-0.02, 0.02);
  for (auto& x : p.x) {
    x[0] += jitter(rng);
    x[1] += jitter(rng);
  }
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {true, true}};
  const exec::host ex;
  std::vector<double> f;
  for (const auto& x : p.x) {
    f.push_back(std::sin(3 * x[0]) + x[1]);
  }
  const auto list = test::all_pairs_list(p, domain);
  const auto a = apply<ops::Gradient<K2, G::Difference, SupportScheme::MeanSymmetric>>(
      ex, p.view(), p.view(), domain, list, span(f), span(f));
  auto shifted = p;
  for (std::size_t i = 0; i < shifted.x.size(); ++i) {
    shifted.x[i][0] += 2.0 * double(int(i % 7) - 3);
    shifted.x[i][1] -= 2.0 * double(int(i % 5) - 2);
  }
  const auto list2 = test::all_pairs_list(shifted, domain);
  const auto b = apply<ops::Gradient<K2, G::Difference, SupportScheme::MeanSymmetric>>(
      ex, shifted.view(), shifted.view(), domain, list2, span(f), span(f));
  double worst = 0;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    worst = std::fmax(worst, norm(a[i] - b[i]) / (norm(a[i]) + 1e-300));
  }
  CHECK(worst <= 1e-10);
}

TEST_CASE("ops: dual positions give directional derivatives of Density", "[ops][grad]") {
  // Scalar genericity: the same operator with Dual<double, 1> scalars differentiates.
  auto p = test::lattice<2, double>(8, 20);
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  const auto list = test::all_pairs_list(p, domain);
  using D1 = Dual<double, 1>;
  std::vector<Vec<double, 2>> direction;
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> unit(-1, 1);
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    direction.push_back({unit(rng), unit(rng)});
  }
  test::Particles<2, D1> dual;
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    dual.add({D1(p.x[i][0], {direction[i][0]}), D1(p.x[i][1], {direction[i][1]})}, D1(p.h[i]),
             D1(p.m[i]));
  }
  const exec::host ex;
  const auto rho = apply<ops::Density<K2>>(ex, dual.view(), dual.view(), domain, list);
  const auto at = [&](double t) {
    auto moved = p;
    for (std::size_t i = 0; i < p.x.size(); ++i) {
      moved.x[i] += direction[i] * t;
    }
    return apply<ops::Density<K2>>(ex, moved.view(), moved.view(), domain, list);
  };
  const auto plus = at(1e-6), minus = at(-1e-6), plain = at(0.0);
  double worst = 0, scale = 0;
  for (std::int64_t i = 0; i < rho.size(); ++i) {
    CHECK(rho[i].value == plain[i]); // the primal of a dual call equals the plain call
    const double fd = (plus[i] - minus[i]) / 2e-6;
    worst = std::fmax(worst, std::abs(rho[i].tangent[0] - fd));
    scale = std::fmax(scale, std::abs(fd));
  }
  CHECK(worst <= 1e-6 * scale);
}

TEST_CASE("ops: lattice calibration makes the lattice density exactly 1", "[ops]") {
  auto p = test::lattice<2, double>(20, kernels::neighbours_from_n_h(4.0, 2));
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {true, true}};
  const auto list = test::all_pairs_list(p, domain);
  ApplyOptions<double> options;
  options.calibration_n_h = 4.0;
  const auto rho = apply<ops::Density<K2>>(exec::host{}, p.view(), p.view(), domain, list, options);
  CHECK(std::abs(rho[0] - 1.0) <= 1e-12);
  CHECK(std::abs(rho[137] - 1.0) <= 1e-12);
}

TEST_CASE("ops: empty sets give empty or zero outputs", "[ops]") {
  auto p = test::lattice<2, double>(4, 10);
  const test::Particles<2, double> none;
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  const exec::host ex;
  const auto no_queries = build_neighbor_list<SupportScheme::Gather>(
      ex, none.view().search_points(), p.view().search_points(), domain);
  CHECK(apply<ops::Density<K2>>(ex, none.view(), p.view(), domain, no_queries).size() == 0);
  const auto no_references = build_neighbor_list<SupportScheme::Gather>(
      ex, p.view().search_points(), none.view().search_points(), domain);
  const auto rho = apply<ops::Density<K2>>(ex, p.view(), none.view(), domain, no_references);
  CHECK(rho.size() == 16);
  CHECK(rho[5] == 0.0);
}

TEST_CASE("ops: bad calls are rejected before any work, naming the argument", "[ops][errors]") {
  auto p = test::lattice<2, double>(4, 10);
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  const exec::host ex;
  const auto list = test::all_pairs_list(p, domain);
  const std::vector<double> f(16, 1.0), short_f(15, 1.0);
  auto no_density = p;
  no_density.rho.clear();
  CHECK_THROWS_WITH(apply<ops::Interpolate<K2>>(ex, no_density.view(), no_density.view(), domain,
                                                list, span(f), span(f)),
                    Catch::Matchers::Contains("argument `queries`: densities are required"));
  CHECK_NOTHROW(apply<ops::Density<K2>>(ex, no_density.view(), no_density.view(), domain, list));
  auto no_kinds = p;
  no_kinds.kinds.clear();
  CHECK_THROWS_WITH(apply<ops::Density<K2>>(ex, no_kinds.view(), no_kinds.view(), domain, list),
                    Catch::Matchers::Contains("kinds (required) has 0 entries"));
  auto short_masses = p;
  short_masses.m.pop_back();
  CHECK_THROWS_WITH(
      apply<ops::Density<K2>>(ex, p.view(), short_masses.view(), domain, list),
      Catch::Matchers::Contains("sphad::apply: argument `references`: masses has 15 entries"));
  CHECK_THROWS_WITH(
      apply<ops::Interpolate<K2>>(ex, p.view(), p.view(), domain, list, span(f), span(short_f)),
      Catch::Matchers::Contains("argument `reference_values`"));
  CHECK_THROWS_WITH(
      apply<ops::Gradient<K2>>(ex, p.view(), p.view(), domain, list, span(short_f), span(f)),
      Catch::Matchers::Contains("argument `query_values`"));
  const auto other = test::lattice<2, double>(3, 8);
  const auto wrong_list = test::all_pairs_list(other, domain);
  CHECK_THROWS_WITH(apply<ops::Density<K2>>(ex, p.view(), p.view(), domain, wrong_list),
                    Catch::Matchers::Contains("argument `neighbors`: has 9 rows for 16 queries"));
  ApplyOptions<double> bad_direction;
  bad_direction.direction = static_cast<OperationDirection>(15);
  CHECK_THROWS_WITH(
      apply<ops::Density<K2>>(ex, p.view(), p.view(), domain, list, bad_direction),
      Catch::Matchers::Contains("argument `options.direction`: unknown OperationDirection"));
  ApplyOptions<double> bad_calibration;
  bad_calibration.calibration_n_h = -1;
  CHECK_THROWS_WITH(apply<ops::Density<K2>>(ex, p.view(), p.view(), domain, list, bad_calibration),
                    Catch::Matchers::Contains("argument `options.calibration_n_h`"));
  std::vector<double> too_short(15);
  CHECK_THROWS_WITH(apply_into<ops::Density<K2>>(ex, p.view(), p.view(), domain, list,
                                                 Span<double>{too_short.data(), 15}),
                    Catch::Matchers::Contains("argument `out`: has 15 entries for 16 queries"));
  auto inverted = domain;
  inverted.min[0] = 3;
  CHECK_THROWS_WITH(apply<ops::Density<K2>>(ex, p.view(), p.view(), inverted, list),
                    Catch::Matchers::Contains("argument `domain`"));
  // A negative size everywhere (sizes that agree) names the set, not an internal function.
  auto negative = p.view();
  const auto resize = [](auto& view) { view = {view.data(), -3}; };
  resize(negative.positions);
  resize(negative.supports);
  resize(negative.masses);
  resize(negative.kinds);
  resize(negative.densities);
  CHECK_THROWS_WITH(apply<ops::Density<K2>>(ex, negative, p.view(), domain, list),
                    Catch::Matchers::Contains("sphad::apply: argument `queries`: has a negative "
                                              "size (got -3 positions)"));
}

TEST_CASE("ops: matrix fields — gradient [K, C, D] and the curl of each column", "[ops]") {
  auto p = test::lattice<3, double>(8, 60);
  const Domain<3, double> domain{{-1, -1, -1}, {1, 1, 1}, {true, true, true}};
  const exec::host ex;
  const auto list = test::all_pairs_list(p, domain);
  const auto rho = apply<ops::Density<K2>>(ex, p.view(), p.view(), domain, list);
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    p.rho[i] = rho[std::int64_t(i)];
  }
  const auto s = p.view();
  std::vector<Mat<double, 3, 2>> m;
  std::vector<Vec<double, 3>> column0, column1;
  for (const auto& x : p.x) {
    const Vec<double, 3> a{std::sin(3.1 * x[1]), x[2] * x[0], std::cos(2.0 * x[0])};
    const Vec<double, 3> b{x[1] * x[2], std::sin(x[0] + x[2]), x[1]};
    m.push_back(Mat<double, 3, 2>{a[0], b[0], a[1], b[1], a[2], b[2]});
    column0.push_back(a);
    column1.push_back(b);
  }
  using Gr = ops::Gradient<K2, G::Difference>;
  const auto grad_m = apply<Gr>(ex, s, s, domain, list, span(m), span(m));
  const auto grad_a = apply<Gr>(ex, s, s, domain, list, span(column0), span(column0));
  const auto curl_m = apply<ops::Curl<K2, G::Difference>>(ex, s, s, domain, list, span(m), span(m));
  const auto curl_a =
      apply<ops::Curl<K2, G::Difference>>(ex, s, s, domain, list, span(column0), span(column0));
  const auto curl_b =
      apply<ops::Curl<K2, G::Difference>>(ex, s, s, domain, list, span(column1), span(column1));
  STATIC_REQUIRE(std::is_same_v<std::decay_t<decltype(grad_m[0])>, Mat<Vec<double, 3>, 3, 2>>);
  bool equal = true;
  for (std::int64_t i = 0; i < grad_m.size(); ++i) {
    for (int r = 0; r < 3; ++r) {
      for (int d = 0; d < 3; ++d) {
        equal = equal && near(grad_m[i](r, 0)[d], grad_a[i](r, d), 1e-14, 1e-14);
      }
      equal = equal && near(curl_m[i](r, 0), curl_a[i][r], 1e-14, 1e-14) &&
              near(curl_m[i](r, 1), curl_b[i][r], 1e-14, 1e-14);
    }
  }
  CHECK(equal);
}

TEST_CASE("ops: the trace of the gradient of a vector field is its divergence", "[ops]") {
  auto p = test::lattice<3, double>(7, 40);
  const Domain<3, double> domain{{-1, -1, -1}, {1, 1, 1}, {true, false, true}};
  const exec::host ex;
  const auto list = test::all_pairs_list(p, domain);
  std::vector<Vec<double, 3>> v;
  for (const auto& x : p.x) {
    v.push_back({std::sin(2 * x[1]), x[0] * x[2], x[1] - x[0]});
  }
  const auto s = p.view();
  {
    const auto jac =
        apply<ops::Gradient<K2, G::Summation>>(ex, s, s, domain, list, span(v), span(v));
    const auto div =
        apply<ops::Divergence<K2, G::Summation>>(ex, s, s, domain, list, span(v), span(v));
    double worst = 0, scale = 0;
    for (std::int64_t i = 0; i < div.size(); ++i) {
      worst = std::fmax(worst, std::abs(trace(jac[i]) - div[i]));
      scale = std::fmax(scale, std::abs(div[i]));
    }
    CHECK(worst <= 1e-13 * scale);
  }
}

TEST_CASE("ops: every operator differentiates with Dual<double, 1> positions and values",
          "[ops][grad]") {
  // Scalar genericity: one directional derivative per operator against central differences.
  auto p = test::lattice<2, double>(8, 20);
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  const auto list = test::all_pairs_list(p, domain);
  const exec::host ex;
  const auto rho = apply<ops::Density<K2>>(ex, p.view(), p.view(), domain, list);
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    p.rho[i] = rho[std::int64_t(i)];
  }
  using D1 = Dual<double, 1>;
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::vector<Vec<double, 2>> dx(p.x.size());
  std::vector<double> df(p.x.size());
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    dx[i] = {unit(rng), unit(rng)};
    df[i] = unit(rng);
  }
  // The set moved by t along (dx, df), as plain numbers or as duals seeded with the direction.
  const auto at = [&](auto t) {
    using S = decltype(t);
    test::Particles<2, S> q;
    std::vector<S> f;
    std::vector<Vec<S, 2>> v;
    for (std::size_t i = 0; i < p.x.size(); ++i) {
      const Vec<S, 2> x{S(p.x[i][0]) + t * dx[i][0], S(p.x[i][1]) + t * dx[i][1]};
      q.add(x, S(p.h[i]), S(p.m[i]), S(p.rho[i]));
      f.push_back(S(std::cos(p.x[i][0])) + t * df[i]);
      v.push_back({x[1] * x[0], S(p.x[i][1]) + t * df[i]});
    }
    return std::make_tuple(q, f, v);
  };
  const auto evaluate = [&](auto t, auto op_tag, auto vector_field) {
    using Op = typename decltype(op_tag)::type;
    auto [q, f, v] = at(t);
    const auto s = q.view();
    std::vector<double> flat;
    const auto push = [&](const auto& out) {
      for (std::int64_t i = 0; i < out.size(); ++i) {
        const auto& o = out[i];
        using O = std::decay_t<decltype(o)>;
        if constexpr (is_vec_v<O>) {
          for (int k = 0; k < O::dim; ++k) {
            flat.push_back(is_dual_v<typename O::value_type> ? double(tangent<0>(o[k]))
                                                             : double(value_of(o[k])));
          }
        } else if constexpr (is_mat_v<O>) {
          for (int r = 0; r < O::rows; ++r) {
            for (int c = 0; c < O::cols; ++c) {
              flat.push_back(is_dual_v<typename O::value_type> ? double(tangent<0>(o(r, c)))
                                                               : double(value_of(o(r, c))));
            }
          }
        } else if constexpr (is_dual_v<O>) {
          flat.push_back(tangent<0>(o));
        } else if constexpr (std::is_arithmetic_v<O>) {
          flat.push_back(o);
        } else { // CovarianceResult
          for (int r = 0; r < 2; ++r) {
            for (int c = 0; c < 2; ++c) {
              using E = std::decay_t<decltype(o.matrix(0, 0))>;
              flat.push_back(is_dual_v<E> ? double(tangent<0>(o.matrix(r, c)))
                                          : double(value_of(o.matrix(r, c))));
            }
          }
        }
      }
    };
    if constexpr (decltype(vector_field)::value) {
      push(apply<Op>(ex, s, s, domain, list, span(v), span(v)));
    } else {
      push(apply<Op>(ex, s, s, domain, list, span(f), span(f)));
    }
    return flat;
  };
  const auto check = [&](auto op_tag, auto vector_field, const char* name) {
    const auto tangents = evaluate(D1(0.0, {1.0}), op_tag, vector_field);
    const auto plus = evaluate(1e-6, op_tag, vector_field);
    const auto minus = evaluate(-1e-6, op_tag, vector_field);
    double worst = 0, scale = 0;
    for (std::size_t k = 0; k < tangents.size(); ++k) {
      const double fd = (plus[k] - minus[k]) / 2e-6;
      worst = std::fmax(worst, std::abs(tangents[k] - fd));
      scale = std::fmax(scale, std::abs(fd));
    }
    INFO(name << ": max |JVP − FD| = " << worst << ", max |FD| = " << scale);
    CHECK(worst <= 1e-6 * scale);
  };
  check(OpTag<ops::Density<K2>>{}, std::false_type{}, "Density");
  check(OpTag<ops::Interpolate<K2>>{}, std::false_type{}, "Interpolate");
  check(OpTag<ops::Gradient<K2, G::Symmetric>>{}, std::false_type{}, "Gradient");
  check(OpTag<ops::Divergence<K2, G::Difference>>{}, std::true_type{}, "Divergence");
  check(OpTag<ops::Curl<K2, G::Naive>>{}, std::true_type{}, "Curl");
  check(OpTag<ops::Laplacian<K2, L::Brookshaw>>{}, std::false_type{}, "Laplacian Brookshaw");
  check(OpTag<ops::Laplacian<K2, L::Dot>>{}, std::true_type{}, "Laplacian Dot");
  check(OpTag<ops::Covariance<K2>>{}, std::false_type{}, "Covariance");
}

TEST_CASE("ops: a zero density gives zero quotients in every scheme, not NaN", "[ops][errors]") {
  // One particle of a 6x6 lattice has ρ = 0 (or the mass that would make its term vanish). A
  // quotient by a zero density is 0 with zero derivatives: the Symmetric gradient, the
  // Symmetric-weighted Laplacian and the consistent divergence drop that particle's quotient,
  // as the volume m/ρ already did, instead of turning every neighbour NaN.
  using D1 = Dual<double, 1>;
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {true, true}};
  const exec::host ex;
  const auto base = test::lattice<2, double>(6, 20);
  const auto list = test::all_pairs_list(base, domain);
  const std::size_t empty = 14;
  // The set with particle `empty` given (ρ, m, f), positions moved by t along a fixed direction.
  const auto run = [&](auto t, double rho, double mass, double f_empty) {
    using S = decltype(t);
    test::Particles<2, S> q;
    std::vector<S> f;
    std::vector<Vec<S, 2>> v;
    for (std::size_t i = 0; i < base.x.size(); ++i) {
      const double k = double(i);
      const Vec<S, 2> x{S(base.x[i][0]) + t * std::sin(k), S(base.x[i][1]) + t * std::cos(k)};
      const bool e = i == empty;
      q.add(x, S(base.h[i]), S(e ? mass : base.m[i]), S(e ? rho : 1.0 + 0.1 * std::sin(3 * k)));
      f.push_back(S(e ? f_empty : std::cos(3 * k)));
      v.push_back({f.back(), S(std::sin(2 * k))});
    }
    const auto s = q.view();
    return std::make_tuple(
        apply<ops::Gradient<K2, G::Symmetric>>(ex, s, s, domain, list, span(f), span(f)),
        apply<ops::Laplacian<K2, L::Brookshaw, G::Symmetric>>(ex, s, s, domain, list, span(f),
                                                              span(f)),
        apply<ops::Divergence<K2, G::Naive, SupportScheme::Gather, DivergenceMode::Standard, true>>(
            ex, s, s, domain, list, span(v), span(v)));
  };
  const auto [grad, lap, div] = run(D1(0.0, {1.0}), 0.0, 0.01, 2.0);
  // The same set where the particle's terms vanish by its values instead: f = 0 for the
  // gradient's f_j/ρ_j², m = 0 for the Laplacian's m_j/ρ_j² and the divergence's V_j = m_j/ρ_j.
  const auto [grad_f0, unused_lap, unused_div] = run(D1(0.0, {1.0}), 1.0, 0.01, 0.0);
  const auto [unused_grad, lap_m0, div_m0] = run(D1(0.0, {1.0}), 1.0, 0.0, 2.0);
  const auto same = [](const auto& a, const auto& b) {
    return near(value_of(a), value_of(b), 1e-12, 1e-12) &&
           near(tangent<0>(a), tangent<0>(b), 1e-12, 1e-12);
  };
  for (std::int64_t i = 0; i < grad.size(); ++i) {
    INFO("particle " << i);
    for (int d = 0; d < 2; ++d) {
      CHECK(std::isfinite(value_of(grad[i][d])));
      CHECK(std::isfinite(tangent<0>(grad[i][d])));
      CHECK((i == std::int64_t(empty) ? value_of(grad[i][d]) == 0 && tangent<0>(grad[i][d]) == 0
                                      : same(grad[i][d], grad_f0[i][d])));
    }
    CHECK(std::isfinite(value_of(lap[i])));
    CHECK(std::isfinite(tangent<0>(lap[i])));
    CHECK(std::isfinite(value_of(div[i])));
    CHECK(std::isfinite(tangent<0>(div[i])));
    if (i == std::int64_t(empty)) {
      CHECK((value_of(lap[i]) == 0 && tangent<0>(lap[i]) == 0));
      CHECK((value_of(div[i]) == 0 && tangent<0>(div[i]) == 0));
    } else {
      CHECK(same(lap[i], lap_m0[i]));
      CHECK(same(div[i], div_m0[i]));
    }
  }
}
