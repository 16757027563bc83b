// SPDX-License-Identifier: MIT
// The correction pipelines: CRK factors, renormalization matrices and Ω, and the operators they
// correct.
#include <sphad/corrections.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "kernels/kernel_cases.hpp" // near
#include "ops/ops_cases.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace sphad;
using test::near;
using test::span;
using K = kernels::Wendland4;
using S = SupportScheme;
using G = GradientScheme;

namespace {

/// A jittered lattice in an open box (boundary particles included) with supports varying by
/// ±10 % and densities from its Density; the list holds every pair within max(h_i, h_j).
template <int D>
struct Open {
  test::Particles<D, double> p;
  Domain<D, double> domain{};
  NeighborList<exec::host> list;

  Open(int nx, double neighbours, unsigned seed = 5) : p(test::lattice<D, double>(nx, neighbours)) {
    for (int a = 0; a < D; ++a) {
      domain.min[a] = -1.5;
      domain.max[a] = 1.5;
      domain.periodic[a] = false;
    }
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    const double dx = 2.0 / nx;
    for (std::size_t i = 0; i < p.x.size(); ++i) {
      for (int a = 0; a < D; ++a) {
        p.x[i][a] += 0.15 * dx * u(rng);
      }
      p.h[i] *= 1 + 0.1 * u(rng);
    }
    list = test::all_pairs_list(p, domain);
    const auto rho = apply<ops::Density<K>>(exec::host{}, p.view(), p.view(), domain, list);
    for (std::size_t i = 0; i < p.x.size(); ++i) {
      p.rho[i] = rho[std::int64_t(i)];
    }
  }
  ParticleSet<D, double> view() const { return p.view(); }
};

template <int D>
Vec<double, D> slope() {
  Vec<double, D> g{};
  for (int a = 0; a < D; ++a) {
    g[a] = 1.3 * (a + 1) - 3.1 * (a % 2);
  }
  return g;
}

/// The CRK-corrected operators with the pipeline's volumes reproduce constants and linear
/// fields, and the gradients of linear fields, at every particle.
template <int D>
void check_crk_reproduces_linear_fields(int nx) {
  const Open<D> c(nx, D == 3 ? 50 : 30);
  const exec::host ex;
  const auto factors = corrections::compute_crk_factors<K>(ex, c.view(), c.domain, c.list);
  const auto s = c.view().with_volumes(factors.volume_span());
  const ops::Corrections<ops::CRK<D, double>> crk{factors.state(), {}, {}};
  const auto g = slope<D>();
  std::vector<double> one(c.p.x.size(), 1.0), f;
  std::vector<Vec<double, D>> x;
  for (const auto& xi : c.p.x) {
    f.push_back(dot(g, xi) + 0.7);
    x.push_back(xi);
  }
  // Scatter: the moments' own kernel, as exactness with varying supports requires.
  const auto unity = apply<ops::Interpolate<K, S::Scatter>>(ex, s, s, c.domain, c.list, span(one),
                                                            span(one), {}, crk);
  const auto position =
      apply<ops::Interpolate<K, S::Scatter>>(ex, s, s, c.domain, c.list, span(x), span(x), {}, crk);
  double worst_unity = 0, worst_position = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    worst_unity = std::fmax(worst_unity, std::fabs(unity[std::int64_t(i)] - 1));
    worst_position = std::fmax(worst_position, norm(position[std::int64_t(i)] - x[i]));
  }
  CHECK(worst_unity <= 1e-13);
  CHECK(worst_position <= 1e-13);
  const auto check_gradient = [&](auto op, const char* name) {
    using Op = decltype(op);
    const auto grad = apply<Op>(ex, s, s, c.domain, c.list, span(f), span(f), {}, crk);
    double worst = 0;
    for (std::int64_t i = 0; i < grad.size(); ++i) {
      worst = std::fmax(worst, norm(grad[i] - g));
    }
    INFO(D << "D " << name << " gradient: worst error " << worst);
    CHECK(worst <= 1e-12 * norm(g));
  };
  check_gradient(ops::Gradient<K, G::Naive, S::Scatter>{}, "Naive");
  check_gradient(ops::Gradient<K, G::Difference, S::Scatter>{}, "Difference");
  check_gradient(ops::Gradient<K, G::Summation, S::Scatter>{}, "Summation");
}
} // namespace

TEST_CASE("corrections: CRK reproduces constants, linear fields and their gradients "
          "everywhere",
          "[corrections][crk]") {
  check_crk_reproduces_linear_fields<1>(40);
  check_crk_reproduces_linear_fields<2>(16);
  check_crk_reproduces_linear_fields<3>(8);
}

TEST_CASE("corrections: grad A and grad B are the query-position derivatives of A and B "
          "(derivative-first)",
          "[corrections][crk]") {
  const Open<2> c(12, 30);
  const exec::host ex;
  const auto factors = corrections::compute_crk_factors<K>(ex, c.view(), c.domain, c.list);
  const auto references = c.view().with_volumes(factors.volume_span());
  const auto n = std::int64_t(c.p.x.size());
  // The corner's ∇B is far from symmetric, so the layout (derivative axis first) is tested.
  const auto& corner = factors.grad_b[0];
  CHECK(std::fabs(corner(0, 1) - corner(1, 0)) > 1e-3 * std::fabs(corner(0, 0)));
  // A corner particle and an interior one: move only the query copy of particle k.
  for (const std::int64_t k : {std::int64_t(0), n / 2 + 5}) {
    for (int gamma = 0; gamma < 2; ++gamma) {
      const double eps = 1e-6;
      const auto at = [&](double shift) {
        auto moved = c.p;
        moved.x[std::size_t(k)][gamma] += shift;
        const auto queries = moved.view().with_volumes(factors.volume_span());
        const auto list = build_neighbor_list<S::SuperSymmetric>(
            ex, queries.search_points(), references.search_points(), c.domain);
        std::vector<double> a(static_cast<std::size_t>(n));
        std::vector<Vec<double, 2>> b(static_cast<std::size_t>(n)),
            grad_a(static_cast<std::size_t>(n));
        std::vector<Mat<double, 2, 2>> grad_b(static_cast<std::size_t>(n));
        corrections::crk_factors_into<K>(
            ex, queries, references, c.domain, list,
            corrections::CRKStateSpans<2, double>{
                {a.data(), n}, {b.data(), n}, {grad_a.data(), n}, {grad_b.data(), n}});
        return std::make_pair(a[std::size_t(k)], b[std::size_t(k)]);
      };
      const auto plus = at(eps);
      const auto minus = at(-eps);
      const double da = (plus.first - minus.first) / (2 * eps);
      CHECK(near(factors.grad_a[k][gamma], da, 1e-6, 1e-6));
      for (int comp = 0; comp < 2; ++comp) {
        const double db = (plus.second[comp] - minus.second[comp]) / (2 * eps);
        INFO("particle " << k << " gradB[" << gamma << "][" << comp
                         << "] = " << factors.grad_b[k](gamma, comp) << ", FD " << db);
        CHECK(near(factors.grad_b[k](gamma, comp), db, 1e-6, 1e-6 * 100));
      }
    }
  }
}

TEST_CASE("corrections: on a uniform periodic lattice CRK is the identity and its density the "
          "SPH density",
          "[corrections][crk]") {
  const auto p = test::lattice<2, double>(20, 30);
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {true, true}};
  const auto list = test::all_pairs_list(p, domain);
  const exec::host ex;
  const auto f = corrections::compute_crk_factors<K>(ex, p.view(), domain, list);
  const auto rho = apply<ops::Density<K>>(ex, p.view(), p.view(), domain, list);
  bool ok = true;
  for (std::int64_t i = 0; i < f.a.size(); ++i) {
    ok = ok && near(f.volumes[i], f.volumes[0], 1e-13) && near(f.a[i], 1.0, 1e-12) &&
         norm(f.b[i]) < 1e-10 && norm(f.grad_a[i]) < 1e-9 && near(f.density[i], rho[i], 1e-12);
  }
  CHECK(ok);
}

TEST_CASE("corrections: the limiter gives the identity, finite, for isolated and collinear "
          "particles, and is scale-free",
          "[corrections][crk]") {
  const exec::host ex;
  SECTION("an isolated 1D particle") {
    test::Particles<1, double> p;
    p.add({0.0}, 1.0, 2.0);
    const Domain<1, double> domain{{-5}, {5}, {false}};
    const auto f = corrections::compute_crk_factors<kernels::Wendland2>(
        ex, p.view(), domain, test::all_pairs_list(p, domain));
    CHECK(f.volumes[0] == Approx(0.8).epsilon(1e-15)); // h / C_1, C_1 = 5/4
    CHECK(f.a[0] == 1.0);
    CHECK(f.b[0][0] == 0.0);
    CHECK(f.grad_a[0][0] == 0.0);
    CHECK(f.grad_b[0](0, 0) == 0.0);
    CHECK(f.density[0] == Approx(2.0 / 0.8).epsilon(1e-15));
  }
  SECTION("a collinear row in 2D and a lattice, at three scales") {
    std::vector<std::vector<bool>> decisions;
    for (const double scale : {1e-4, 1.0, 1e4}) {
      auto p = test::lattice<2, double>(10, 30);
      const double h = p.h[0];
      for (int k = 0; k < 6; ++k) { // a line far from the lattice: M is singular there
        p.add({3.0 + 0.1 * k, 3.0 + 0.05 * k}, h, p.m[0]);
      }
      for (std::size_t i = 0; i < p.x.size(); ++i) {
        p.x[i] = p.x[i] * scale;
        p.h[i] *= scale;
        p.m[i] *= scale * scale;
      }
      const Domain<2, double> domain{
          {-5 * scale, -5 * scale}, {5 * scale, 5 * scale}, {false, false}};
      const auto f = corrections::compute_crk_factors<K>(ex, p.view(), domain,
                                                         test::all_pairs_list(p, domain));
      std::vector<bool> rejected;
      bool finite = true;
      for (std::int64_t i = 0; i < f.a.size(); ++i) {
        const bool identity = f.a[i] == 1.0 && f.b[i][0] == 0.0 && f.b[i][1] == 0.0 &&
                              f.grad_a[i][0] == 0.0 && f.grad_b[i](1, 1) == 0.0;
        rejected.push_back(identity);
        finite = finite && all_finite(f.a[i]) && all_finite(f.b[i][0]) &&
                 all_finite(f.grad_b[i](0, 1)) && all_finite(f.density[i]);
      }
      CHECK(finite);
      for (std::size_t k = p.x.size() - 6; k < p.x.size(); ++k) {
        CHECK(rejected[k]);
      }
      CHECK_FALSE(rejected[45]); // inside the lattice
      decisions.push_back(rejected);
    }
    CHECK(decisions[0] == decisions[1]);
    CHECK(decisions[2] == decisions[1]);
  }
}

TEST_CASE("corrections: a ghost-only neighbourhood has volume 0 and CRK density 0",
          "[corrections][crk]") {
  test::Particles<2, double> p;
  p.add({0.0, 0.0}, 0.5, 1.0, 1.0, std::int32_t(ParticleKind::Ghost));
  p.add({0.1, 0.0}, 0.5, 1.0, 1.0, std::int32_t(ParticleKind::Ghost));
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  const auto f = corrections::compute_crk_factors<K>(exec::host{}, p.view(), domain,
                                                     test::all_pairs_list(p, domain));
  for (std::int64_t i = 0; i < 2; ++i) {
    CHECK(f.volumes[i] == 0.0);
    CHECK(f.density[i] == 0.0);
    CHECK(f.a[i] == 1.0);
  }
}

TEST_CASE("corrections: renormalized Difference gradients of linear fields are exact, with and "
          "without CRK",
          "[corrections][renormalization]") {
  const Open<2> c(16, 30);
  const exec::host ex;
  const auto s = c.view();
  const auto g = slope<2>();
  std::vector<double> f;
  for (const auto& x : c.p.x) {
    f.push_back(dot(g, x) - 0.4);
  }
  const auto worst_error = [&](const auto& grad) {
    double worst = 0;
    for (std::int64_t i = 0; i < grad.size(); ++i) {
      worst = std::fmax(worst, norm(grad[i] - g));
    }
    return worst;
  };
  using Renormalized = ops::Corrections<ops::NoCRK, ops::Renormalization<2, double>>;
  const auto r = corrections::compute_renormalization<K>(ex, s, s, c.domain, c.list);
  const auto plain =
      apply<ops::Gradient<K, G::Difference>>(ex, s, s, c.domain, c.list, span(f), span(f));
  const auto renormalized = apply<ops::Gradient<K, G::Difference>>(
      ex, s, s, c.domain, c.list, span(f), span(f), {}, Renormalized{{}, r.state(), {}});
  CHECK(worst_error(plain) > 1e-3);
  CHECK(worst_error(renormalized) <= 1e-12 * norm(g));
  // With CRK the covariance is not symmetric; L = C^-T keeps the gradient exact.
  const auto factors = corrections::compute_crk_factors<K>(ex, s, c.domain, c.list);
  using Both = ops::Corrections<ops::CRK<2, double>, ops::Renormalization<2, double>>;
  const ops::Corrections<ops::CRK<2, double>> crk{factors.state(), {}, {}};
  const auto r_crk = corrections::compute_renormalization<K>(ex, s, s, c.domain, c.list, {}, crk);
  const auto both = apply<ops::Gradient<K, G::Difference>>(
      ex, s, s, c.domain, c.list, span(f), span(f), {}, Both{factors.state(), r_crk.state(), {}});
  CHECK(worst_error(both) <= 1e-12 * norm(g));
  double asymmetry = 0;
  for (std::int64_t i = 0; i < r_crk.covariances.size(); ++i) {
    const auto& m = r_crk.covariances[i];
    asymmetry = std::fmax(asymmetry, std::fabs(m(0, 1) - m(1, 0)));
  }
  CHECK(asymmetry > 1e-6);
}

TEST_CASE("corrections: renormalization falls back to the identity below D + 2 neighbours",
          "[corrections][renormalization]") {
  using C = ops::CovarianceResult<double, 2>;
  const Mat<double, 2, 2> m{2.0, 0.5, 0.25, 1.0};
  for (const std::int32_t count : {0, 1, 3}) {
    CHECK_FALSE(corrections::renormalization_accepted(C{m, count}));
  }
  for (const std::int32_t count : {4, 50}) {
    CHECK(corrections::renormalization_accepted(C{m, count}));
  }
  CHECK_FALSE(corrections::renormalization_accepted(C{Mat<double, 2, 2>{1, 2, 2, 4}, 9}));
  // Through the pipeline: a pair of particles alone gets C = L = I exactly.
  test::Particles<2, double> p;
  p.add({0.0, 0.0}, 0.5, 1.0);
  p.add({0.2, 0.1}, 0.5, 1.0);
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  const auto r = corrections::compute_renormalization<K>(exec::host{}, p.view(), p.view(), domain,
                                                         test::all_pairs_list(p, domain));
  for (std::int64_t i = 0; i < 2; ++i) {
    CHECK(r.matrices[i](0, 0) == 1.0);
    CHECK(r.matrices[i](0, 1) == 0.0);
    CHECK(r.covariances[i](1, 1) == 1.0);
  }
}

TEST_CASE("corrections: Omega equals its brute-force sum, and the sum is dρ/dh",
          "[corrections][grad_h]") {
  const Open<2> c(12, 30);
  const exec::host ex;
  const auto s = c.view();
  const auto omega = corrections::compute_omegas<K>(ex, s, c.domain, c.list);
  const auto n = c.p.x.size();
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      sum += c.p.m[j] * kernels::value_dh<K>(c.domain.difference(c.p.x[i], c.p.x[j]), c.p.h[i]);
    }
    ok = ok && near(omega[std::int64_t(i)], 1 + c.p.h[i] / (2 * c.p.rho[i]) * sum, 1e-12);
  }
  CHECK(ok);
  // Σ_j m_j ∂W/∂h_i from Ω against central differences of the Gather density under h_i.
  for (const std::size_t i : {std::size_t(0), n / 2}) {
    const double eps = 1e-6 * c.p.h[i];
    const auto density_at = [&](double shift) {
      auto q = c.p;
      q.h[i] += shift;
      return apply<ops::Density<K>>(ex, q.view(), s, c.domain, c.list)[std::int64_t(i)];
    };
    const double fd = (density_at(eps) - density_at(-eps)) / (2 * eps);
    const double sum = (omega[std::int64_t(i)] - 1) * 2 * c.p.rho[i] / c.p.h[i];
    CHECK(near(sum, fd, 1e-7, 1e-7));
  }
}

TEST_CASE("corrections: grid traversal equals the list bitwise, and runtime kernels equal the "
          "compile-time ones",
          "[corrections]") {
  // 7 equispaced particles on [−1, 1], h = 2.5 spacings: no rejected rows.
  test::Particles<1, double> p;
  for (int k = 0; k < 7; ++k) {
    p.add({-1.0 + k / 3.0}, 2.5 / 3.0, 1.0 / 3.0);
  }
  const Domain<1, double> domain{{-2}, {2}, {false}};
  const exec::host ex;
  const auto list = test::all_pairs_list(p, domain);
  const auto grid = search::build_search_grid<S::SuperSymmetric>(ex, p.view().search_points(),
                                                                 p.view().search_points(), domain);
  const auto by_list = corrections::compute_crk_factors<K>(ex, p.view(), domain, list);
  const auto by_grid = corrections::compute_crk_factors<K>(ex, p.view(), domain, grid);
  const auto by_id = corrections::compute_crk_factors<kernels::KernelList<K>>(
      ex, KernelId::Wendland4, p.view(), domain, list);
  for (std::int64_t i = 0; i < 7; ++i) {
    CHECK(by_list.a[i] != 1.0); // not rejected
    CHECK(by_grid.a[i] == by_list.a[i]);
    CHECK(by_grid.grad_b[i](0, 0) == by_list.grad_b[i](0, 0));
    CHECK(by_grid.density[i] == by_list.density[i]);
    CHECK(by_id.grad_a[i][0] == by_list.grad_a[i][0]);
  }
  OperationProperties properties;
  properties.kernel = KernelId::Wendland4;
  properties.support = S::Scatter;
  properties.operation = Operation::Gradient;
  const auto r_id =
      corrections::compute_renormalization<kernels::KernelList<K>, ops::SupportList<S::Scatter>>(
          ex, properties, p.view(), p.view(), domain, list);
  const auto r =
      corrections::compute_renormalization<K, S::Scatter>(ex, p.view(), p.view(), domain, list);
  CHECK(properties.operation == Operation::Gradient);
  for (std::int64_t i = 0; i < 7; ++i) {
    CHECK(r_id.matrices[i](0, 0) == r.matrices[i](0, 0));
  }
  const auto omega_id = corrections::compute_omegas<kernels::KernelList<K>>(ex, KernelId::Wendland4,
                                                                            p.view(), domain, list);
  CHECK(omega_id[3] == corrections::compute_omegas<K>(ex, p.view(), domain, list)[3]);
}

TEST_CASE("corrections: bad calls are rejected before any work, naming the argument",
          "[corrections][errors]") {
  const Open<2> c(6, 20);
  const exec::host ex;
  const auto s = c.view();
  const auto n = std::int64_t(c.p.x.size());
  std::vector<double> out(static_cast<std::size_t>(n), 7.0);
  CHECK_THROWS_WITH(corrections::apparent_volumes_into<K>(ex, s, c.domain, c.list,
                                                          Span<double>{out.data(), n - 1}),
                    Catch::Contains("corrections::apparent_volumes: argument `volumes`: has"));
  std::vector<Vec<double, 2>> v(static_cast<std::size_t>(n));
  std::vector<Mat<double, 2, 2>> m(static_cast<std::size_t>(n));
  const corrections::CRKStateSpans<2, double> state{
      {out.data(), n}, {v.data(), n}, {v.data(), n}, {m.data(), n}};
  CHECK_THROWS_WITH(corrections::crk_factors_into<K>(ex, s, s, c.domain, c.list, state),
                    Catch::Contains("argument `references`: needs volumes"));
  const auto weighted = s.with_volumes(span(out));
  corrections::CRKOptions<double> options;
  options.tau = -1;
  CHECK_THROWS_WITH(
      corrections::crk_factors_into<K>(ex, weighted, weighted, c.domain, c.list, state, options),
      Catch::Contains("argument `options.tau`"));
  CHECK_THROWS_WITH(corrections::crk_density_into<K>(ex, s, c.domain, c.list, ops::CRK<2, double>{},
                                                     Span<double>{out.data(), n}),
                    Catch::Contains("argument `particles`: needs volumes"));
  auto no_density = s;
  no_density.densities = {};
  CHECK_THROWS_WITH(corrections::compute_omegas<K>(ex, no_density, c.domain, c.list),
                    Catch::Contains("corrections::grad_h_omegas: argument `particles`: needs "
                                    "densities"));
  CHECK_THROWS_WITH(
      corrections::compute_renormalization<K>(ex, s, s, c.domain, c.list,
                                              ApplyOptions<double>{OperationDirection(99), 0}),
      Catch::Contains("argument `options.direction`"));
  CHECK_THROWS_WITH(corrections::compute_crk_factors<kernels::KernelList<K>>(ex, KernelId::Poly6, s,
                                                                             c.domain, c.list),
                    Catch::Contains("corrections::compute_crk_factors: argument `kernel`: Poly6 is "
                                    "not in the kernel list"));
  // A CRK state of one set used against another set needs the references' volumes.
  const auto factors = corrections::compute_crk_factors<K>(ex, s, c.domain, c.list);
  const auto other = c.p;
  std::vector<double> f(static_cast<std::size_t>(n), 1.0);
  const ops::Corrections<ops::CRK<2, double>> crk{factors.state(), {}, {}};
  CHECK_THROWS_WITH(
      apply<ops::Interpolate<K>>(ex, s, other.view(), c.domain, c.list, span(f), span(f), {}, crk),
      Catch::Contains("argument `corrections.crk`: CRK factors describe one particle "
                      "set"));
  CHECK_NOTHROW(apply<ops::Interpolate<K>>(ex, s, other.view().with_volumes(factors.volume_span()),
                                           c.domain, c.list, span(f), span(f), {}, crk));
  for (const double x : out) {
    REQUIRE(x == 7.0);
  }
}

TEST_CASE("corrections: the pipelines differentiate with Dual<double, 1> geometry",
          "[corrections][grad]") {
  // Scalar genericity: positions, supports and masses moved along one direction; every output
  // of the three pipelines against central differences of the plain pipelines.
  const Open<2> c(10, 30);
  const exec::host ex;
  using D1 = Dual<double, 1>;
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> unit(-1, 1);
  const std::size_t n = c.p.x.size();
  std::vector<Vec<double, 2>> dx(n);
  std::vector<double> dh(n), dm(n);
  for (std::size_t i = 0; i < n; ++i) {
    dx[i] = {unit(rng), unit(rng)};
    dh[i] = 0.1 * unit(rng);
    dm[i] = 0.01 * unit(rng);
  }
  const auto evaluate = [&](auto t) {
    using T = decltype(t);
    test::Particles<2, T> q;
    for (std::size_t i = 0; i < n; ++i) {
      q.add({T(c.p.x[i][0]) + t * dx[i][0], T(c.p.x[i][1]) + t * dx[i][1]}, T(c.p.h[i]) + t * dh[i],
            T(c.p.m[i]) + t * dm[i], T(c.p.rho[i]));
    }
    const auto s = q.view();
    const auto f = corrections::compute_crk_factors<K>(ex, s, c.domain, c.list);
    const ops::Corrections<ops::CRK<2, T>> crk{f.state(), {}, {}};
    const auto r = corrections::compute_renormalization<K>(ex, s, s, c.domain, c.list, {}, crk);
    const auto omega = corrections::compute_omegas<K>(ex, s, c.domain, c.list);
    std::vector<double> flat;
    const auto push = [&](const T& value) {
      if constexpr (is_dual_v<T>) {
        flat.push_back(tangent<0>(value));
      } else {
        flat.push_back(value);
      }
    };
    for (std::int64_t i = 0; i < f.a.size(); ++i) {
      push(f.volumes[i]);
      push(f.density[i]);
      push(f.a[i]);
      push(omega[i]);
      for (int a = 0; a < 2; ++a) {
        push(f.b[i][a]);
        push(f.grad_a[i][a]);
        for (int b = 0; b < 2; ++b) {
          push(f.grad_b[i](a, b));
          push(r.matrices[i](a, b));
        }
      }
    }
    return flat;
  };
  const auto tangents = evaluate(D1(0.0, {1.0}));
  const auto plus = evaluate(1e-6);
  const auto minus = evaluate(-1e-6);
  double worst = 0, scale = 0;
  for (std::size_t k = 0; k < tangents.size(); ++k) {
    const double fd = (plus[k] - minus[k]) / 2e-6;
    worst = std::fmax(worst, std::abs(tangents[k] - fd));
    scale = std::fmax(scale, std::abs(fd));
  }
  INFO("max |JVP − FD| = " << worst << ", max |FD| = " << scale);
  CHECK(worst <= 1e-6 * scale);
  CHECK(scale > 0);
}

TEST_CASE("corrections: empty sets give empty outputs", "[corrections]") {
  const test::Particles<2, double> p;
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};
  const exec::host ex;
  const auto list = test::all_pairs_list(p, domain);
  CHECK(corrections::compute_crk_factors<K>(ex, p.view(), domain, list).a.size() == 0);
  CHECK(corrections::compute_renormalization<K>(ex, p.view(), p.view(), domain, list)
            .matrices.size() == 0);
  CHECK(corrections::compute_omegas<K>(ex, p.view(), domain, list).size() == 0);
}
