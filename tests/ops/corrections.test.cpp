// SPDX-License-Identifier: MIT
// The correction hooks of the operators: the states are supplied here by hand; computing them is
// the corrections layer's job.
#include <sphad/math/pinv.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "kernels/kernel_cases.hpp" // near
#include "ops/ops_cases.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace sphad;
using test::near;
using test::span;
using K = kernels::Wendland4;

namespace {

/// A jittered, non-periodic 2D lattice with densities from its own Density.
test::Particles<2, double> jittered_lattice(const Domain<2, double>& domain,
                                            NeighborList<exec::host>& list) {
  auto p = test::lattice<2, double>(14, 40);
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> jitter(-0.02, 0.02);
  for (auto& x : p.x) {
    x[0] += jitter(rng);
    x[1] += jitter(rng);
  }
  list = test::all_pairs_list(p, domain);
  const auto rho = apply<ops::Density<K>>(exec::host{}, p.view(), p.view(), domain, list);
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    p.rho[i] = rho[std::int64_t(i)];
  }
  return p;
}
} // namespace

TEST_CASE("ops: renormalization with L = C^-T makes linear gradients exact everywhere",
          "[ops][corrections]") {
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  NeighborList<exec::host> list;
  const auto p = jittered_lattice(domain, list);
  const exec::host ex;
  const auto s = p.view();
  const auto cov = apply<ops::Covariance<K>>(ex, s, s, domain, list);
  std::vector<Mat<double, 2, 2>> l;
  for (std::int64_t i = 0; i < cov.size(); ++i) {
    l.push_back(pinv(transpose(cov[i].matrix)));
  }
  const Vec<double, 2> g{0.7, -1.9};
  std::vector<double> f;
  for (const auto& x : p.x) {
    f.push_back(dot(g, x) + 3.0);
  }
  const ops::Corrections<ops::NoCRK, ops::Renormalization<2, double>> renormalized{
      {}, {span(l)}, {}};
  const auto grad = apply<ops::Gradient<K, GradientScheme::Difference>>(
      ex, s, s, domain, list, span(f), span(f), {}, renormalized);
  double worst = 0;
  for (std::int64_t i = 0; i < grad.size(); ++i) { // boundary particles included
    worst = std::fmax(worst, norm(grad[i] - g));
  }
  CHECK(worst <= 1e-12 * norm(g));
}

TEST_CASE("ops: the identity CRK state leaves every operator unchanged", "[ops][corrections]") {
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  NeighborList<exec::host> list;
  const auto p = jittered_lattice(domain, list);
  const exec::host ex;
  const auto s = p.view();
  const auto n = std::size_t(s.size());
  const std::vector<double> a(n, 1.0);
  const std::vector<Vec<double, 2>> b(n, Vec<double, 2>{}), grad_a(n, Vec<double, 2>{});
  const std::vector<Mat<double, 2, 2>> grad_b(n, Mat<double, 2, 2>{});
  const ops::Corrections<ops::CRK<2, double>> crk{{span(a), span(b), span(grad_a), span(grad_b)}};
  std::vector<double> f;
  for (const auto& x : p.x) {
    f.push_back(x[0] * x[1]);
  }
  const auto g0 = apply<ops::Gradient<K>>(ex, s, s, domain, list, span(f), span(f));
  const auto g1 = apply<ops::Gradient<K>>(ex, s, s, domain, list, span(f), span(f), {}, crk);
  const auto i0 = apply<ops::Interpolate<K>>(ex, s, s, domain, list, span(f), span(f));
  const auto i1 = apply<ops::Interpolate<K>>(ex, s, s, domain, list, span(f), span(f), {}, crk);
  bool equal = true;
  for (std::int64_t i = 0; i < g0.size(); ++i) {
    equal = equal && g0[i] == g1[i] && i0[i] == i1[i];
  }
  CHECK(equal);
}

TEST_CASE("ops: with CRK the self pair's gradient term is A W(0) B + W(0) grad A",
          "[ops][corrections]") {
  test::Particles<2, double> p;
  p.add({0.1, 0.2}, 0.5, 2.0, 4.0); // one isolated particle: only the self pair
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  const auto list = test::all_pairs_list(p, domain);
  const std::vector<double> a{1.5}, f{3.0};
  const std::vector<Vec<double, 2>> b{{0.2, -0.4}}, grad_a{{0.3, 0.1}};
  const std::vector<Mat<double, 2, 2>> grad_b{Mat<double, 2, 2>{1, 2, 3, 4}};
  const ops::Corrections<ops::CRK<2, double>> crk{{span(a), span(b), span(grad_a), span(grad_b)}};
  const exec::host ex;
  const auto s = p.view();
  const double w0 = kernels::value<K>(Vec<double, 2>{}, 0.5);
  const auto naive = apply<ops::Gradient<K>>(ex, s, s, domain, list, span(f), span(f), {}, crk);
  const auto expected = (b[0] * (a[0] * w0) + grad_a[0] * w0) * (f[0] * 2.0 / 4.0); // f V_i
  CHECK(near(naive[0][0], expected[0], 1e-14));
  CHECK(near(naive[0][1], expected[1], 1e-14));
  const auto difference = apply<ops::Gradient<K, GradientScheme::Difference>>(
      ex, s, s, domain, list, span(f), span(f), {}, crk);
  CHECK(difference[0] == Vec<double, 2>{}); // f_i − f_i = 0
}

TEST_CASE("ops: grad-h divides the fields of Gradient, Divergence and Laplacian only",
          "[ops][corrections]") {
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  NeighborList<exec::host> list;
  const auto p = jittered_lattice(domain, list);
  const exec::host ex;
  const auto s = p.view();
  const std::vector<double> omega(std::size_t(s.size()), 2.0);
  const ops::Corrections<ops::NoCRK, ops::NoRenormalization, ops::GradH<double>> grad_h{
      {}, {}, {span(omega), span(omega)}};
  std::vector<double> f;
  std::vector<Vec<double, 2>> v;
  for (const auto& x : p.x) {
    f.push_back(x[0] * x[0] - x[1]);
    v.push_back({x[1], x[0] * x[1]});
  }
  const auto check_half = [](const auto& plain, const auto& scaled) {
    bool half = true;
    for (std::int64_t i = 0; i < plain.size(); ++i) {
      half = half && plain[i] * 0.5 == scaled[i];
    }
    CHECK(half);
  };
  using G = GradientScheme;
  check_half(
      apply<ops::Gradient<K, G::Difference>>(ex, s, s, domain, list, span(f), span(f)),
      apply<ops::Gradient<K, G::Difference>>(ex, s, s, domain, list, span(f), span(f), {}, grad_h));
  check_half(apply<ops::Divergence<K>>(ex, s, s, domain, list, span(v), span(v)),
             apply<ops::Divergence<K>>(ex, s, s, domain, list, span(v), span(v), {}, grad_h));
  check_half(apply<ops::Laplacian<K>>(ex, s, s, domain, list, span(f), span(f)),
             apply<ops::Laplacian<K>>(ex, s, s, domain, list, span(f), span(f), {}, grad_h));
  const auto i0 = apply<ops::Interpolate<K>>(ex, s, s, domain, list, span(f), span(f));
  const auto i1 = apply<ops::Interpolate<K>>(ex, s, s, domain, list, span(f), span(f), {}, grad_h);
  CHECK(i0[7] == i1[7]);
}

TEST_CASE("ops: correction states of the wrong size are rejected", "[ops][corrections][errors]") {
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  NeighborList<exec::host> list;
  const auto p = jittered_lattice(domain, list);
  const exec::host ex;
  const auto s = p.view();
  const std::vector<double> f(std::size_t(s.size()), 1.0), short_omega(3, 1.0);
  const std::vector<Mat<double, 2, 2>> few(5, Mat<double, 2, 2>::identity());
  const ops::Corrections<ops::NoCRK, ops::Renormalization<2, double>> renormalized{
      {}, {span(few)}, {}};
  CHECK_THROWS_WITH(
      apply<ops::Gradient<K>>(ex, s, s, domain, list, span(f), span(f), {}, renormalized),
      Catch::Matchers::Contains("argument `corrections.renormalization`"));
  const ops::Corrections<ops::NoCRK, ops::NoRenormalization, ops::GradH<double>> grad_h{
      {}, {}, {span(short_omega), span(f)}};
  CHECK_THROWS_WITH(apply<ops::Gradient<K>>(ex, s, s, domain, list, span(f), span(f), {}, grad_h),
                    Catch::Matchers::Contains("argument `corrections.grad_h`"));
  const ops::Corrections<ops::CRK<2, double>> crk{{span(f), {}, {}, {}}};
  CHECK_THROWS_WITH(apply<ops::Gradient<K>>(ex, s, s, domain, list, span(f), span(f), {}, crk),
                    Catch::Matchers::Contains("argument `corrections.crk`"));
}
