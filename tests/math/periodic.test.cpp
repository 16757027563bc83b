// SPDX-License-Identifier: MIT
#include <sphad/ad/dual.hpp>
#include <sphad/math/periodic.hpp>

#include "support/random.hpp"

#include <catch2/catch.hpp>

using namespace sphad;

TEST_CASE("math::minimum_image: periodic axes wrap into [-L/2, L/2), others pass through",
          "[math][periodic]") {
  const Vec<double, 3> period{2.0, 0.5, 10.0};
  const Vec<bool, 3> periodic{true, true, false};
  auto rng = test::rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    // A true small separation, then each position unwrapped by up to ±3 periods.
    const Vec<double, 3> x_i{test::uniform(rng, -1, 1), test::uniform(rng, 0, 0.5),
                             test::uniform(rng, -5, 5)};
    Vec<double, 3> separation{test::uniform(rng, -0.9, 0.9), test::uniform(rng, -0.2, 0.2),
                              test::uniform(rng, -3, 3)};
    Vec<double, 3> x_j = x_i - separation;
    for (int a = 0; a < 2; ++a) {
      const int shift_i = int(std::floor(test::uniform(rng, -3, 4)));
      const int shift_j = int(std::floor(test::uniform(rng, -3, 4)));
      x_j[a] += shift_j * period[a];
      const auto shifted_i = x_i[a] + shift_i * period[a];
      auto single_axis = Vec<double, 3>{};
      single_axis[a] = shifted_i - x_j[a];
      const auto d = minimum_image(single_axis, period, periodic);
      CHECK(d[a] == Approx(separation[a]).margin(1e-12));
    }
    const auto d = minimum_image(x_i - x_j, period, periodic);
    for (int a = 0; a < 2; ++a) {
      CHECK(d[a] >= -period[a] / 2);
      CHECK(d[a] < period[a] / 2);
      CHECK(d[a] == Approx(separation[a]).margin(1e-12));
    }
    CHECK(d[2] == x_i[2] - x_j[2]); // non-periodic: untouched, bitwise
  }
}

TEST_CASE("math::minimum_image: a separation of exactly half a period maps to -L/2",
          "[math][periodic]") {
  const auto d = minimum_image(Vec<double, 1>{0.5}, Vec<double, 1>{1.0}, Vec<bool, 1>{true});
  CHECK(d[0] == -0.5);
  const auto e = minimum_image(Vec<double, 1>{-0.5}, Vec<double, 1>{1.0}, Vec<bool, 1>{true});
  CHECK(e[0] == -0.5);
}

TEST_CASE("math::minimum_image: the tangent is the plain difference's tangent",
          "[math][periodic]") {
  using D2 = Dual<double, 2>;
  const Vec<D2, 2> x_ij{D2(3.7, {1.0, 0.5}), D2(-0.2, {-2.0, 4.0})};
  const auto d = minimum_image(x_ij, Vec<double, 2>{1.0, 1.0}, Vec<bool, 2>{true, true});
  CHECK(d[0].value == Approx(-0.3).margin(1e-12));
  CHECK(d[0].tangent[0] == 1.0);
  CHECK(d[0].tangent[1] == 0.5);
  CHECK(d[1].value == -0.2);
  CHECK(d[1].tangent[1] == 4.0);
}
