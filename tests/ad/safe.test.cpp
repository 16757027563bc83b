// SPDX-License-Identifier: MIT
#include <sphad/ad/safe.hpp>

#include "support/tolerance.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace sphad;
using D2 = Dual<double, 2>;

namespace {
/// A 2D vector of duals whose tangent k is the unit vector e_k: d/dx of anything built on it
/// is the gradient with respect to the vector.
Vec<D2, 2> seeded(double x, double y) {
  return {D2::variable(x, 0), D2::variable(y, 1)};
}
} // namespace

TEST_CASE("ad::safe_norm: derivative at the zero vector is zero, not NaN", "[ad][safe]") {
  const D2 r = safe_norm(seeded(0.0, 0.0));
  CHECK(r.value == 0.0);
  CHECK(r.tangent[0] == 0.0);
  CHECK(r.tangent[1] == 0.0);
  // The plain norm is what the guard is for: its tangent there is NaN.
  CHECK_FALSE(all_finite(norm(seeded(0.0, 0.0))));

  using Nested = Dual<D2, 2>;
  Vec<Nested, 2> zero{};
  zero[0].value = D2::variable(0.0, 0);
  zero[0].tangent[0] = D2(1.0);
  zero[1].value = D2::variable(0.0, 1);
  zero[1].tangent[1] = D2(1.0);
  const Nested r2 = safe_norm(zero);
  CHECK(all_finite(r2));
  CHECK(r2.tangent[0].tangent[0] == 0.0);
}

TEST_CASE("ad::safe_norm: away from zero it is the plain norm, bitwise", "[ad][safe]") {
  const auto x = seeded(0.3, -0.4);
  const D2 safe = safe_norm(x);
  const D2 plain = norm(x);
  CHECK(safe.value == plain.value);
  CHECK(safe.tangent[0] == plain.tangent[0]);
  CHECK(safe.tangent[1] == plain.tangent[1]);
  CHECK(test::close(safe.value, 0.5, 1e-15));
  CHECK(test::close(safe.tangent[0], 0.6, 1e-14)); // x/r
  CHECK(test::close(safe.tangent[1], -0.8, 1e-14));
  CHECK(safe_norm(Vec<double, 3>{1.0, 2.0, 2.0}) == 3.0);
}

TEST_CASE("ad::safe_normalize: the zero vector maps to zero with zero tangents", "[ad][safe]") {
  const auto n0 = safe_normalize(seeded(0.0, 0.0));
  for (int a = 0; a < 2; ++a) {
    CHECK(n0[a].value == 0.0);
    CHECK(n0[a].tangent[0] == 0.0);
    CHECK(n0[a].tangent[1] == 0.0);
  }
  const auto n = safe_normalize(seeded(3.0, 4.0));
  CHECK(test::close(n[0].value, 0.6, 1e-15));
  // d(x/r)/dx = 1/r − x²/r³ = 0.2 − 9/125
  CHECK(test::close(n[0].tangent[0], 0.2 - 9.0 / 125.0, 1e-14));
}

TEST_CASE("ad::safe_divide: division by exact zero gives zero value and tangent", "[ad][safe]") {
  const D2 a = D2::variable(2.0, 0);
  const D2 zero = D2(0.0, {1.0, 1.0});
  const D2 q0 = safe_divide(a, zero);
  CHECK(q0.value == 0.0);
  CHECK(q0.tangent[0] == 0.0);
  CHECK(q0.tangent[1] == 0.0);
  const D2 q = safe_divide(a, 4.0);
  CHECK(q.value == 0.5);
  CHECK(q.tangent[0] == 0.25);
  CHECK(safe_divide(1.0, 0.0) == 0.0);
  CHECK(safe_divide(1.0, 2.0) == 0.5);
}

TEST_CASE("ad::select: a NaN or Inf in the branch not taken never reaches the result",
          "[ad][safe]") {
  const double inf = std::numeric_limits<double>::infinity();
  const D2 bad(std::nan(""), {inf, std::nan("")});
  const D2 good(1.0, {2.0, 3.0});
  const D2 picked = select(false, bad, good);
  CHECK(all_finite(picked));
  CHECK(picked.tangent[1] == 3.0);
  CHECK(all_finite(select(true, good, bad)));
  // Mixed plain/dual branches promote to the dual type.
  const D2 zero = select(false, bad, 0.0);
  CHECK(all_finite(zero));
  CHECK(zero.value == 0.0);
}

TEST_CASE("ad::evaluate_if: the discarded branch is never computed", "[ad][safe]") {
  int calls = 0;
  const auto singular = [&] {
    ++calls;
    return D2(1.0) / D2(0.0);
  };
  const D2 fallback(1.0);
  const D2 r = evaluate_if(false, singular, fallback);
  CHECK(calls == 0);
  CHECK(r.value == 1.0);
  const D2 s = evaluate_if(
      true, [] { return D2::variable(5.0, 1); }, fallback);
  CHECK(s.tangent[1] == 1.0);
}

TEST_CASE("ad::safe_sqrt: zero and negative arguments give exact zeros", "[ad][safe]") {
  const D2 z = safe_sqrt(D2(0.0, {1.0, -1.0}));
  CHECK(z.value == 0.0);
  CHECK(z.tangent[0] == 0.0);
  CHECK(safe_sqrt(-4.0) == 0.0);
  CHECK(safe_sqrt(4.0) == 2.0);
}
