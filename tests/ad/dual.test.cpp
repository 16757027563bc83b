// SPDX-License-Identifier: MIT
#include <sphad/ad/dual.hpp>

#include "support/tolerance.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace sphad;
using test::close;
using D1 = Dual<double, 1>;
using DD = Dual<Dual<double, 1>, 1>; // second derivatives in one direction

namespace {

/// A function of one variable with its first and second derivatives in closed form, the
/// points to test it at, and whether its dual value must equal the plain value bitwise.
struct Case {
  std::string name;
  double (*f)(double);
  D1 (*f1)(D1);
  DD (*f2)(DD);
  double (*df)(double);
  double (*d2f)(double);
  std::vector<double> points;
  bool bitwise_primal = true;
};

// One generic body per case, instantiated for double, D1 and DD.
#define SPHAD_CASE(name, body, df, d2f, points, bitwise)                                           \
  Case {                                                                                           \
    name, [](double x) -> double { body }, [](D1 x) -> D1 { body }, [](DD x) -> DD { body },       \
        []([[maybe_unused]] double x) -> double { return df; },                                    \
        []([[maybe_unused]] double x) -> double { return d2f; }, points, bitwise                   \
  }

std::vector<Case> cases() {
  using std::cbrt;
  using std::exp;
  using std::log;
  using std::pow;
  using std::sqrt;
  const std::vector<double> positive{0.3, 1.7, 4.2};
  const std::vector<double> any{-2.3, -0.4, 0.7, 3.1};
  return {
    SPHAD_CASE("sqrt", using std::sqrt; return sqrt(x);
               , 0.5 / sqrt(x), -0.25 * pow(x, -1.5), positive, true),
        SPHAD_CASE("cbrt", using std::cbrt; return cbrt(x);, 1.0 / (3.0 * cbrt(x) * cbrt(x)),
                                                           -2.0 / 9.0 * pow(cbrt(x), -5.0),
                                                           positive, true),
        SPHAD_CASE("exp", using std::exp; return exp(x);, exp(x), exp(x), any, true),
        SPHAD_CASE("sin", using std::sin; return sin(x);, std::cos(x), -std::sin(x), any, true),
        SPHAD_CASE("cos", using std::cos; return cos(x);, -std::sin(x), -std::cos(x), any, true),
        SPHAD_CASE("log", using std::log; return log(x);, 1.0 / x, -1.0 / (x * x), positive, true),
        SPHAD_CASE("pow int 3", return pow(x, 3);, 3.0 * x * x, 6.0 * x, any, false),
        SPHAD_CASE("pow int -2", return pow(x, -2);
                   , -2.0 * pow(x, -3.0), 6.0 * pow(x, -4.0), any, false),
        SPHAD_CASE("pow int 0", return pow(x, 0);, 0.0, 0.0, any, true),
        SPHAD_CASE("pow real 2.5", using std::pow; return pow(x, 2.5);
                   , 2.5 * pow(x, 1.5), 3.75 * pow(x, 0.5), positive, true),
        SPHAD_CASE("pow real base", using std::pow; return pow(2.0, x);
                   , pow(2.0, x) * log(2.0), pow(2.0, x) * log(2.0) * log(2.0), any, true),
        SPHAD_CASE("abs", using std::abs; return abs(x);, x >= 0 ? 1.0 : -1.0, 0.0, any, true),
        SPHAD_CASE("product", return x * x * x;, 3.0 * x * x, 6.0 * x, any, true),
        SPHAD_CASE("scalar over dual", return 2.0 / x;
                   , -2.0 / (x * x), 4.0 / (x * x * x), any, true),
        SPHAD_CASE("quotient", return x / (1.0 + x * x);
                   , (1.0 - x * x) / ((1.0 + x * x) * (1.0 + x * x)),
                   (2.0 * x * x * x - 6.0 * x) / pow(1.0 + x * x, 3.0), any, true),
        SPHAD_CASE("mixed scalars", return (x - 3.0) * (2.0 - x) + x / 2.0 - 1 * x + 4;
                   , 5.0 - 2.0 * x + 0.5 - 1.0, -2.0, any, true),
        SPHAD_CASE("fma", using std::fma; return fma(x, x, 3.0);, 2.0 * x, 2.0, any, true),
        SPHAD_CASE("max", return sphad::max(x, 1.0) * x;
                   , x >= 1.0 ? 2.0 * x : 1.0, x >= 1.0 ? 2.0 : 0.0, any, true),
        SPHAD_CASE("min", return sphad::min(x, 1.0) * x;
                   , x <= 1.0 ? 2.0 * x : 1.0, x <= 1.0 ? 2.0 : 0.0, any, true),
        SPHAD_CASE("floor", using std::floor; return floor(x) * x;, std::floor(x), 0.0, any, true),
        SPHAD_CASE("compound", auto y = x; y *= x; y += 1.0; y /= x; y -= x; y *= 3; y /= 2;
                   return y;, -1.5 / (x * x), 3.0 / (x * x * x), any, true),
  };
}
#undef SPHAD_CASE

} // namespace

TEST_CASE("ad::Dual: every function's tangent is its analytic derivative", "[ad][dual]") {
  for (const auto& c : cases()) {
    for (const double x : c.points) {
      INFO(c.name << " at x = " << x);
      const D1 y = c.f1(D1::variable(x, 0));
      CHECK(close(y.tangent[0], c.df(x), test::tol<double>::analytic));
      if (c.bitwise_primal) {
        CHECK(y.value == c.f(x));
      } else {
        CHECK(close(y.value, c.f(x), test::tol<double>::analytic));
      }
    }
  }
}

TEST_CASE("ad::Dual: every function's tangent matches central differences", "[ad][dual]") {
  for (const auto& c : cases()) {
    for (const double x : c.points) {
      INFO(c.name << " at x = " << x);
      const D1 y = c.f1(D1::variable(x, 0));
      CHECK(close(y.tangent[0], test::central_difference(c.f, x), test::tol<double>::finite_diff));
    }
  }
}

TEST_CASE("ad::Dual: nested duals give second derivatives", "[ad][dual]") {
  for (const auto& c : cases()) {
    for (const double x : c.points) {
      INFO(c.name << " at x = " << x);
      DD v;
      v.value = D1::variable(x, 0);
      v.tangent[0] = D1(1.0);
      const DD y = c.f2(v);
      CHECK(close(y.tangent[0].value, c.df(x), test::tol<double>::analytic));
      CHECK(close(y.value.tangent[0], c.df(x), test::tol<double>::analytic));
      CHECK(close(y.tangent[0].tangent[0], c.d2f(x), 1e-13));
    }
  }
}

TEST_CASE("ad::Dual: N directions give the gradient and nested N give the Hessian", "[ad][dual]") {
  // f(x, y, z) = x y + √z x − y/z
  const auto f = [](auto x, auto y, auto z) {
    using std::sqrt;
    return x * y + sqrt(z) * x - y / z;
  };
  const double x = 0.7, y = -1.3, z = 2.2;
  using D3 = Dual<double, 3>;
  const D3 g = f(D3::variable(x, 0), D3::variable(y, 1), D3::variable(z, 2));
  const double grad[3] = {y + std::sqrt(z), x - 1 / z, 0.5 * x / std::sqrt(z) + y / (z * z)};
  for (int k = 0; k < 3; ++k) {
    CHECK(close(g.tangent[k], grad[k], test::tol<double>::analytic));
  }
  using H = Dual<D3, 3>;
  const auto variable = [](double v, int k) {
    H out;
    out.value = D3::variable(v, k);
    out.tangent[k] = D3(1.0);
    return out;
  };
  const H h = f(variable(x, 0), variable(y, 1), variable(z, 2));
  const double hessian[3][3] = {
      {0, 1, 0.5 / std::sqrt(z)},
      {1, 0, 1 / (z * z)},
      {0.5 / std::sqrt(z), 1 / (z * z), -0.25 * x * std::pow(z, -1.5) - 2 * y / (z * z * z)}};
  for (int i = 0; i < 3; ++i) {
    CHECK(close(h.value.tangent[i], grad[i], test::tol<double>::analytic));
    for (int j = 0; j < 3; ++j) {
      INFO("H(" << i << ", " << j << ")");
      CHECK(close(h.tangent[i].tangent[j], hessian[i][j], test::tol<double>::analytic));
    }
  }
}

TEST_CASE("ad::Dual: traits classify, strip and promote scalar types", "[ad][dual]") {
  using D2 = Dual<double, 2>;
  using Nested = Dual<D2, 3>;
  STATIC_REQUIRE(is_dual_v<D2>);
  STATIC_REQUIRE(is_dual_v<const Nested&>);
  STATIC_REQUIRE(!is_dual_v<double>);
  STATIC_REQUIRE(std::is_same_v<primal_t<Nested>, double>);
  STATIC_REQUIRE(std::is_same_v<primal_t<float>, float>);
  STATIC_REQUIRE(tangent_count_v<Nested> == 3);
  STATIC_REQUIRE(tangent_count_v<double> == 0);
  STATIC_REQUIRE(std::is_same_v<promote_t<double, D2>, D2>);
  STATIC_REQUIRE(std::is_same_v<promote_t<D2, int>, D2>);
  STATIC_REQUIRE(std::is_same_v<promote_t<D2, Nested>, Nested>);
  STATIC_REQUIRE(std::is_same_v<promote_t<float, double>, double>);
  STATIC_REQUIRE(std::is_same_v<decltype(2.0 + D2{}), D2>);
  STATIC_REQUIRE(std::is_same_v<decltype(D2{} * Nested{}), Nested>);
  STATIC_REQUIRE(std::is_trivially_copyable_v<Nested>);

  Nested n(D2(1.5, {2.0, 3.0}));
  n.tangent[1] = D2(4.0, {5.0, 6.0});
  CHECK(value_of(n) == 1.5);
  CHECK(value_of(2.5) == 2.5);
  CHECK(tangent<1>(n).value == 4.0);
  CHECK(tangent<0>(n).value == 0.0);
  CHECK(tangent<1>(n.value) == 3.0);
  CHECK(tangent<0>(7.0) == 0.0);
}

TEST_CASE("ad::Dual: comparisons look at values only", "[ad][dual]") {
  const D1 a(1.0, {5.0});
  const D1 b(1.0, {-5.0});
  CHECK(a == b);
  CHECK_FALSE(a != b);
  CHECK(a <= b);
  CHECK(a >= 1.0);
  CHECK(0.5 < a);
  CHECK(a > 0.5);
  CHECK_FALSE(a < b);
  CHECK(DD(D1(2.0)) > 1);
}

TEST_CASE("ad::Dual: max and min take the first argument's tangent on ties", "[ad][dual]") {
  const D1 h_i(0.3, {1.0});
  const D1 h_j(0.3, {2.0});
  CHECK(sphad::max(h_i, h_j).tangent[0] == 1.0);
  CHECK(sphad::max(h_j, h_i).tangent[0] == 2.0);
  CHECK(sphad::min(h_i, h_j).tangent[0] == 1.0);
  CHECK(sphad::max(h_i, 0.3).tangent[0] == 1.0);
  CHECK(sphad::max(0.3, h_i).tangent[0] == 0.0);
}

TEST_CASE("ad::Dual: compound assignment with itself is correct", "[ad][dual]") {
  D1 x = D1::variable(3.0, 0);
  const D1& same = x; // the same object under another name (no self-assignment warning)
  x /= same;          // x/x = 1, derivative 0
  CHECK(x.value == 1.0);
  CHECK(x.tangent[0] == 0.0);
  D1 y = D1::variable(3.0, 0);
  y *= y; // y², derivative 2y
  CHECK(y.value == 9.0);
  CHECK(y.tangent[0] == 6.0);
}

TEST_CASE("ad::Dual: float duals differentiate within float tolerance", "[ad][dual]") {
  using F1 = Dual<float, 1>;
  using std::sqrt;
  const F1 x = F1::variable(2.0f, 0);
  const F1 y = sqrt(x) * x + 1.0f / x;
  const float expected = 1.5f * std::sqrt(2.0f) - 0.25f;
  CHECK(close(y.tangent[0], expected, test::tol<float>::analytic));
  CHECK(all_finite(y));
}

TEST_CASE("ad::Dual: all_finite inspects every layer", "[ad][dual]") {
  DD v;
  CHECK(all_finite(v));
  v.tangent[0].tangent[0] = std::nan("");
  CHECK_FALSE(all_finite(v));
  CHECK_FALSE(all_finite(D1(1.0, {INFINITY})));
  CHECK(all_finite(1.0));
}
