// SPDX-License-Identifier: MIT
#include <sphad/ad/dual.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>

#include "support/random.hpp"
#include "support/tolerance.hpp"

#include <catch2/catch.hpp>

using namespace sphad;
using test::close;

TEST_CASE("math::Vec: arithmetic, dot and norms", "[math][vec]") {
  const Vec<double, 3> a{1.0, -2.0, 0.5};
  const Vec<double, 3> b{0.25, 4.0, -1.0};
  CHECK(a + b == Vec<double, 3>{1.25, 2.0, -0.5});
  CHECK(a - b == Vec<double, 3>{0.75, -6.0, 1.5});
  CHECK(2.0 * a == a * 2.0);
  CHECK(a / 2.0 == Vec<double, 3>{0.5, -1.0, 0.25});
  CHECK(-a == Vec<double, 3>{-1.0, 2.0, -0.5});
  CHECK(dot(a, b) == dot(b, a));
  CHECK(dot(a, b) == 0.25 - 8.0 - 0.5);
  CHECK(norm_squared(a) == 5.25);
  CHECK(norm(Vec<double, 2>{3.0, 4.0}) == 5.0);
  CHECK(Vec<double, 2>{} == Vec<double, 2>{0.0, 0.0});
  CHECK(Vec<double, 3>::unit(1) == Vec<double, 3>{0.0, 1.0, 0.0});
  CHECK(Vec<float, 2>::filled(2.0f) == Vec<float, 2>{2.0f, 2.0f});
  auto c = a;
  c += b;
  c -= b;
  c *= 3.0;
  c /= 3.0;
  CHECK(c == a);
}

TEST_CASE("math::cross: orthogonal in 3D, the z component in 2D", "[math][vec]") {
  auto rng = test::rng(1);
  for (int trial = 0; trial < 20; ++trial) {
    const auto a = test::random_vec<3>(rng);
    const auto b = test::random_vec<3>(rng);
    const auto c = cross(a, b);
    CHECK(std::abs(dot(c, a)) <= 1e-14);
    CHECK(std::abs(dot(c, b)) <= 1e-14);
    CHECK(close(norm_squared(c), norm_squared(a) * norm_squared(b) - dot(a, b) * dot(a, b), 1e-13));
    const Vec<double, 3> a2{a[0], a[1], 0.0}, b2{b[0], b[1], 0.0};
    CHECK(cross(Vec<double, 2>{a[0], a[1]}, Vec<double, 2>{b[0], b[1]}) == cross(a2, b2)[2]);
  }
}

TEMPLATE_TEST_CASE_SIG("math::Mat: product, transpose, determinant and inverse identities",
                       "[math][mat]",
                       ((int D), D),
                       1,
                       2,
                       3) {
  auto rng = test::rng(7 + D);
  for (int trial = 0; trial < 20; ++trial) {
    const auto a = test::random_mat<D>(rng);
    const auto b = test::random_mat<D>(rng);
    const auto v = test::random_vec<D>(rng);
    const auto eye = Mat<double, D, D>::identity();
    CHECK(test::max_abs(transpose(a * b) - transpose(b) * transpose(a)) <= 1e-14);
    CHECK(close(determinant(a * b), determinant(a) * determinant(b), 1e-13));
    CHECK(close(determinant(transpose(a)), determinant(a), 1e-14));
    CHECK(test::max_abs(a * adjugate(a) - eye * determinant(a)) <= 1e-14);
    CHECK(test::max_abs(a * inverse(a) - eye) <= 1e-12 * test::condition_bound(a));
    CHECK(test::max_abs(Vec<double, D>((a * b) * v - a * (b * v))) <= 1e-13);
    CHECK(close(trace(outer(v, v)), norm_squared(v), 1e-15));
    CHECK(test::max_abs(a + b - b - a) <= 1e-15);
    CHECK(a * eye == a);
  }
}

TEST_CASE("math::Mat: element access and layout are row-major", "[math][mat]") {
  const Mat<double, 2, 3> m{1, 2, 3, 4, 5, 6};
  CHECK(m(0, 2) == 3);
  CHECK(m(1, 0) == 4);
  const Mat<double, 3, 2> t = transpose(m);
  CHECK(t(2, 1) == 6);
  const auto p = m * t; // 2×2
  CHECK(p(0, 0) == 14);
  CHECK(p(0, 1) == 32);
  CHECK(m * Vec<double, 3>{1, 0, -1} == Vec<double, 2>{-2, -2});
  CHECK(outer(Vec<double, 2>{1, 2}, Vec<double, 3>{1, 0, 1}) ==
        Mat<double, 2, 3>{1, 0, 1, 2, 0, 2});
}

TEST_CASE("math::Vec and Mat: dual elements mix with plain ones", "[math][vec][mat]") {
  using D1 = Dual<double, 1>;
  const Vec<D1, 2> x{D1::variable(2.0, 0), D1(1.0)};
  const Vec<double, 2> w{3.0, -1.0};
  const auto s = dot(x, w); // 3 x0 − x1
  STATIC_REQUIRE(std::is_same_v<decltype(s), const D1>);
  CHECK(s.value == 5.0);
  CHECK(s.tangent[0] == 3.0);
  const Mat<double, 2, 2> a{1, 2, 3, 4};
  const auto y = a * x;
  STATIC_REQUIRE(std::is_same_v<decltype(y), const Vec<D1, 2>>);
  CHECK(y[1].tangent[0] == 3.0);
  const Mat<D1, 2, 2> ad{x[0], D1(0.0), D1(0.0), x[0]};
  const D1 det = determinant(ad); // x0²
  CHECK(det.tangent[0] == 4.0);
  const auto inv = inverse(ad); // diag(1/x0): derivative −1/x0²
  CHECK(inv(0, 0).tangent[0] == -0.25);
}
