// SPDX-License-Identifier: MIT
#include <sphad/ad/dual.hpp>
#include <sphad/math/pinv.hpp>

#include "support/random.hpp"
#include "support/tolerance.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace sphad;

namespace {

/// The four Moore–Penrose conditions, each as a residual relative to the matrices' scale:
/// A P A = A, P A P = P, (A P)ᵀ = A P, (P A)ᵀ = P A.
template <int D>
void check_moore_penrose(const Mat<double, D, D>& a, const Mat<double, D, D>& p) {
  const double scale_a = std::max(test::max_abs(a), 1e-300);
  const double scale_p = std::max(test::max_abs(p), 1e-300);
  const auto ap = a * p;
  const auto pa = p * a;
  CHECK(test::max_abs(a * p * a - a) <= test::tol<double>::algebra * scale_a);
  CHECK(test::max_abs(p * a * p - p) <= test::tol<double>::algebra * scale_p);
  CHECK(test::max_abs(transpose(ap) - ap) <= test::tol<double>::algebra);
  CHECK(test::max_abs(transpose(pa) - pa) <= test::tol<double>::algebra);
}

/// A random D×D matrix of the given rank: a sum of `rank` random outer products.
template <int D>
Mat<double, D, D> random_of_rank(std::mt19937_64& rng, int rank) {
  Mat<double, D, D> m{};
  for (int k = 0; k < rank; ++k) {
    m += outer(test::random_vec<D>(rng), test::random_vec<D>(rng));
  }
  return m;
}

} // namespace

TEMPLATE_TEST_CASE_SIG("math::pinv: Moore-Penrose conditions hold for full-rank matrices",
                       "[math][pinv]",
                       ((int D), D),
                       1,
                       2,
                       3) {
  auto rng = test::rng(11 + D);
  for (int trial = 0; trial < 200; ++trial) {
    const auto a = test::random_mat<D>(rng);
    if (test::condition_bound(a) > 1e3) {
      continue; // keep the residual bound meaningful
    }
    const auto p = pinv(a);
    check_moore_penrose(a, p);
    CHECK(test::max_abs(p - inverse(a)) <= 1e-12 * test::max_abs(p));
  }
}

TEMPLATE_TEST_CASE_SIG("math::pinv: Moore-Penrose conditions hold for rank-deficient matrices",
                       "[math][pinv]",
                       ((int D), D),
                       1,
                       2,
                       3) {
  auto rng = test::rng(23 + D);
  for (int rank = 0; rank < D; ++rank) {
    for (int trial = 0; trial < 200; ++trial) {
      const auto a = random_of_rank<D>(rng, rank);
      INFO("rank " << rank << " trial " << trial);
      check_moore_penrose(a, pinv(a));
    }
  }
}

TEST_CASE("math::pinv: known cases, including the relative cutoff", "[math][pinv]") {
  CHECK(pinv(Mat<double, 1, 1>{2.0})(0, 0) == 0.5);
  CHECK(pinv(Mat<double, 1, 1>{-4.0})(0, 0) == -0.25); // no sign test
  CHECK(pinv(Mat<double, 1, 1>{0.0})(0, 0) == 0.0);
  CHECK(pinv(Mat<double, 1, 1>{1e-11})(0, 0) == Approx(1e11)); // relative cutoff only
  CHECK(pinv(Mat<double, 2, 2>{}) == Mat<double, 2, 2>{});
  CHECK(pinv(Mat<double, 3, 3>{}) == Mat<double, 3, 3>{});

  const auto ones = pinv(Mat<double, 2, 2>{1, 1, 1, 1});
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      CHECK(ones(i, j) == Approx(0.25).epsilon(1e-14));
    }
  }
  // No symmetrization: the plain inverse of the non-symmetric matrix.
  const auto ns = pinv(Mat<double, 2, 2>{3, 0.4, 0.6, 1});
  CHECK(ns(0, 0) == Approx(1.0 / 2.76).epsilon(1e-14));
  CHECK(ns(0, 1) == Approx(-0.4 / 2.76).epsilon(1e-14));
  CHECK(ns(1, 0) == Approx(-0.6 / 2.76).epsilon(1e-14));
  // diag(1, 1e-7) keeps its small singular value (1e-7 > 2 eps), diag(1, 1e-17) drops it.
  CHECK(pinv(Mat<double, 2, 2>{1, 0, 0, 1e-7})(1, 1) == Approx(1e7).epsilon(1e-14));
  CHECK(pinv(Mat<double, 2, 2>{1, 0, 0, 1e-17})(1, 1) == 0.0);
  const auto third = pinv(Mat<double, 3, 3>::identity() * 3.0);
  CHECK(test::max_abs(third - Mat<double, 3, 3>::identity() / 3.0) <= 1e-15);
  const auto sv = singular_values(Mat<double, 2, 2>{0, 2, -3, 0});
  CHECK(std::min(sv[0], sv[1]) == Approx(2.0));
  CHECK(std::max(sv[0], sv[1]) == Approx(3.0));
}

TEMPLATE_TEST_CASE_SIG("math::pinv: dual tangents match central differences at constant rank",
                       "[math][pinv][grad]",
                       ((int D), D),
                       1,
                       2,
                       3) {
  using D1 = Dual<double, 1>;
  auto rng = test::rng(31 + D);
  for (int rank = 1; rank <= D; ++rank) {
    // A(t) = Σ_k (u_k + t du_k)(v_k + t dv_k)ᵀ keeps its rank along the path.
    Vec<double, D> u[3], v[3], du[3], dv[3];
    for (int k = 0; k < rank; ++k) {
      u[k] = test::random_vec<D>(rng);
      v[k] = test::random_vec<D>(rng);
      du[k] = test::random_vec<D>(rng);
      dv[k] = test::random_vec<D>(rng);
    }
    const auto path = [&](auto t) {
      using S = decltype(t);
      Mat<S, D, D> a{};
      for (int k = 0; k < rank; ++k) {
        a += outer(u[k] + du[k] * t, v[k] + dv[k] * t);
      }
      return a;
    };
    const auto p = pinv(path(D1::variable(0.0, 0)));
    const auto plain = pinv(path(0.0));
    const double h = 1e-6;
    const auto fd = (pinv(path(h)) - pinv(path(-h))) / (2 * h);
    const double scale = std::max(1.0, test::max_abs(fd));
    for (int i = 0; i < D; ++i) {
      for (int j = 0; j < D; ++j) {
        INFO("rank " << rank << " element " << i << ", " << j);
        CHECK(p(i, j).value == plain(i, j));
        CHECK(std::abs(p(i, j).tangent[0] - fd(i, j)) <= 1e-6 * scale);
      }
    }
    // Second derivative along the path: nested duals against differences of first derivatives.
    using DD = Dual<D1, 1>;
    DD t;
    t.value = D1::variable(0.0, 0);
    t.tangent[0] = D1(1.0);
    const auto p2 = pinv(path(t));
    const auto first = [&](double s) { return pinv(path(D1::variable(s, 0))); };
    for (int i = 0; i < D; ++i) {
      for (int j = 0; j < D; ++j) {
        const double fd2 = (first(h)(i, j).tangent[0] - first(-h)(i, j).tangent[0]) / (2 * h);
        CHECK(std::abs(p2(i, j).tangent[0].tangent[0] - fd2) <=
              1e-5 * std::max(1.0, std::abs(fd2)));
      }
    }
  }
}
