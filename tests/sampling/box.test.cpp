// SPDX-License-Identifier: MIT
// Box samplers: a block filling a box and the wall layers around it — counts, positions on one
// lattice across the faces, the open face, and the error paths.
#include <sphad/sampling.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace sphad;
using Catch::Matchers::Contains;
using V2 = Vec<double, 2>;

TEST_CASE("box_block and box_walls: one lattice across the faces, open top", "[sampling][box]") {
  const V2 lower{0, 0}, upper{2, 1};
  const double dx = 0.1;
  const auto block = sampling::box_block<2>(lower, upper, dx);
  REQUIRE(block.size() == 20u * 10u);
  CHECK(block.front()[0] == Approx(0.05));
  CHECK(block.front()[1] == Approx(0.05));
  CHECK(block[1][0] == Approx(0.15)); // x fastest
  CHECK(block.back()[0] == Approx(1.95));
  CHECK(block.back()[1] == Approx(0.95));

  const int layers = 3;
  const auto closed = sampling::box_walls<2>(lower, upper, dx, layers);
  CHECK(closed.size() == std::size_t((20 + 6) * (10 + 6) - 20 * 10));
  const auto open = sampling::box_walls<2>(lower, upper, dx, layers, {false, true});
  CHECK(open.size() == std::size_t((20 + 6) * (10 + 3) - 20 * 10));
  for (const V2& w : open) {
    const bool outside = w[0] < 0 || w[0] > 2 || w[1] < 0;
    CHECK(outside);             // never inside the box
    CHECK(w[1] < 1);            // nothing above the open top
    CHECK(w[0] > -layers * dx); // within the layers
    CHECK(w[1] > -layers * dx);
    // On the block's lattice: (coordinate − ½Δx)/Δx is a whole number.
    for (int a = 0; a < 2; ++a) {
      const double k = (w[a] - 0.5 * dx) / dx;
      CHECK(std::abs(k - std::round(k)) < 1e-9);
    }
  }
  // The nearest wall particle of the fluid's corner particle is Δx away.
  double nearest = 1e9;
  for (const V2& w : open) {
    nearest = std::min(nearest, norm(w - block.front()));
  }
  CHECK(nearest == Approx(dx).epsilon(1e-12));
  const auto line = sampling::box_walls<1>(Vec<double, 1>{0}, Vec<double, 1>{1}, 0.25, 2);
  CHECK(line.size() == 4u);
}

TEST_CASE("box_block and box_walls: bad input", "[sampling][box][errors]") {
  const V2 lower{0, 0}, upper{1, 1};
  CHECK_THROWS_WITH(sampling::box_block<2>(lower, upper, 0.3),
                    Contains("spacing") && Contains("divide"));
  CHECK_THROWS_WITH(sampling::box_block<2>(lower, upper, -0.1), Contains("spacing"));
  CHECK_THROWS_WITH(sampling::box_block<2>(upper, lower, 0.1), Contains("upper"));
  CHECK_THROWS_WITH(sampling::box_walls<2>(lower, upper, 0.1, 0), Contains("layers"));
  CHECK_THROWS_WITH(sampling::box_walls<2>(lower, upper, std::nan(""), 2), Contains("spacing"));
}
