// SPDX-License-Identifier: MIT
// The lattice samplers: counts, spacings, boxes and orderings of the simple and densest
// lattices (the reference sampler's assertions), minimum distances and symmetry, the seeded
// jitter, and the error paths.
#include <sphad/sampling.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <vector>

using namespace sphad;
using Catch::Matchers::Contains;

namespace {

/// The minimum-image distance in the periodic box.
template <int D>
double
periodic_distance(const Vec<double, D>& a, const Vec<double, D>& b, const Vec<double, D>& box) {
  double sum = 0;
  for (int k = 0; k < D; ++k) {
    double d = a[k] - b[k];
    d -= box[k] * std::round(d / box[k]);
    sum += d * d;
  }
  return std::sqrt(sum);
}

template <int D>
double minimum_distance(const sampling::Lattice<D>& l) {
  double best = INFINITY;
  for (std::size_t i = 0; i < l.positions.size(); ++i) {
    for (std::size_t j = i + 1; j < l.positions.size(); ++j) {
      best = std::min(best, periodic_distance(l.positions[i], l.positions[j], l.box));
    }
  }
  return best;
}

template <int D>
bool inside(const sampling::Lattice<D>& l) {
  for (const auto& x : l.positions) {
    for (int k = 0; k < D; ++k) {
      if (!(x[k] >= 0 && x[k] < l.box[k])) {
        return false;
      }
    }
  }
  return true;
}

} // namespace

TEST_CASE("sampling::densest_lattice: 1D is uniform", "[sampling]") {
  const auto l = sampling::densest_lattice<1>(100, 2.0);
  CHECK(l.positions.size() == 100);
  CHECK(l.spacing == Approx(0.02).epsilon(1e-14));
  CHECK(l.exact);
  CHECK(l.cells[0] == 100);
  for (std::size_t i = 0; i < 100; ++i) {
    CHECK(l.positions[i][0] == Approx((double(i) + 0.5) * 0.02).epsilon(1e-14));
  }
  CHECK(inside(l));
  const auto boxed = sampling::densest_lattice<1>(10, Vec<double, 1>{4.0});
  CHECK(boxed.spacing == Approx(0.4).epsilon(1e-15));
  CHECK(boxed.box[0] == 4.0);
  CHECK(boxed.exact);
}

TEST_CASE("sampling::densest_lattice: 2D is hexagonal", "[sampling]") {
  const auto l = sampling::densest_lattice<2>(16, 1.0);
  CHECK(l.positions.size() == 16);
  CHECK(l.spacing == Approx(0.25).epsilon(1e-15));
  CHECK(l.exact); // only the first edge was asked for
  CHECK(l.box[0] == 1.0);
  CHECK(l.box[1] == Approx(std::sqrt(3.0) * 0.25 * 2).epsilon(1e-15));
  CHECK(l.cells[0] == 2);
  CHECK(l.cells[1] == 2);
  CHECK(inside(l));
  CHECK(minimum_distance(l) == Approx(l.spacing).epsilon(1e-12));
  for (const auto& x : l.positions) {
    int close = 0;
    for (const auto& y : l.positions) {
      close += std::abs(periodic_distance(x, y, l.box) - l.spacing) <= 1e-11 ? 1 : 0;
    }
    CHECK(close == 6); // every particle has six nearest neighbours
  }
  // Ordering: supercell i outer, then j, then the four basis points.
  CHECK(l.positions[1][0] == Approx(0.25));
  CHECK(l.positions[2][1] == Approx(std::sqrt(3.0) * 0.125));
  CHECK(l.positions[4][1] == Approx(std::sqrt(3.0) * 0.25));

  const auto wide = sampling::densest_lattice<2>(1000, Vec<double, 2>{1.0, 1.0});
  CHECK(wide.box[0] == 1.0);
  CHECK_FALSE(wide.exact);
  CHECK(std::abs(wide.box[1] - 1.0) > 1e-3);
  CHECK(wide.box[1] / wide.box[0] ==
        Approx(std::sqrt(3.0) * double(wide.cells[1]) / (2.0 * double(wide.cells[0])))
            .epsilon(1e-14));
  CHECK(wide.positions.size() % 4 == 0);
  CHECK(std::int64_t(wide.positions.size()) == 4 * wide.cells[0] * wide.cells[1]);
}

TEST_CASE("sampling::densest_lattice: 3D is face-centred cubic", "[sampling]") {
  const auto l = sampling::densest_lattice<3>(32, 1.0);
  CHECK(l.positions.size() == 32);
  CHECK(l.spacing == Approx(0.5 / std::sqrt(2.0)).epsilon(1e-15));
  CHECK(l.exact);
  CHECK(l.box[2] == 1.0);
  CHECK(inside(l));
  CHECK(minimum_distance(l) == Approx(l.spacing).epsilon(1e-10));
  // The volume per particle is b³/4.
  CHECK(1.0 / double(l.positions.size()) == Approx(std::pow(0.5, 3) / 4).epsilon(1e-14));
  // A shift by one conventional cell maps the set onto itself.
  const auto key = [](const Vec<double, 3>& x) {
    const auto r = [](double v) { return std::llround(std::fmod(v + 1.0, 1.0) * 1e12); };
    return std::make_tuple(r(x[0]), r(x[1]), r(x[2]));
  };
  std::set<std::tuple<long long, long long, long long>> original, shifted;
  for (const auto& x : l.positions) {
    original.insert(key(x));
    shifted.insert(key(Vec<double, 3>{x[0] + 0.5, x[1], x[2]}));
  }
  CHECK(original == shifted);

  const auto large = sampling::densest_lattice<3>(4096, 1.0);
  CHECK(large.positions.size() == 4000);
  CHECK(large.spacing == Approx(0.1 / std::sqrt(2.0)).epsilon(1e-14));

  const auto box = sampling::densest_lattice<3>(32, Vec<double, 3>{1.0, 2.0, 2.0});
  CHECK_FALSE(box.exact);
  CHECK(box.box[1] == 1.0);
  CHECK(box.box[2] == 1.0);
}

TEST_CASE("sampling::cubic_lattice: cell centres of a simple lattice", "[sampling]") {
  const auto l = sampling::cubic_lattice<2>(4, Vec<double, 2>{1.0, 2.0});
  CHECK(l.positions.size() == 16);
  CHECK(l.spacing == 0.25);
  CHECK(l.exact);
  CHECK(l.positions[1][0] == 0.375); // x varies fastest
  CHECK(l.positions[1][1] == 0.25);
  CHECK(l.positions[4][1] == 0.75);
  CHECK(inside(l));
  const auto cube = sampling::cubic_lattice<3>(3, Vec<double, 3>{1.5, 1.5, 1.5});
  CHECK(cube.positions.size() == 27);
  CHECK(minimum_distance(cube) == Approx(0.5).epsilon(1e-14));
}

TEST_CASE("sampling::jitter: reproducible, bounded and zero at amount 0", "[sampling]") {
  const auto base = sampling::densest_lattice<3>(32, 1.0);
  auto a = base, b = base, c = base, still = base;
  sampling::jitter(a, 0.1, 42);
  sampling::jitter(b, 0.1, 42);
  sampling::jitter(c, 0.1, 43);
  sampling::jitter(still, 0.0, 42);
  CHECK(a.positions == b.positions);
  CHECK(a.positions != c.positions);
  CHECK(still.positions == base.positions);
  for (std::size_t i = 0; i < base.positions.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      CHECK(std::abs(a.positions[i][k] - base.positions[i][k]) <= 0.5 * 0.1 * base.spacing + 1e-15);
    }
  }
}

TEST_CASE("sampling: bad arguments are rejected, naming the argument", "[sampling][errors]") {
  CHECK_THROWS_WITH(sampling::densest_lattice<2>(0, 1.0), Contains("argument `n`"));
  CHECK_THROWS_WITH(sampling::densest_lattice<2>(10, 0.0), Contains("argument `length`"));
  CHECK_THROWS_WITH(sampling::densest_lattice<3>(10, -1.0), Contains("argument `length`"));
  CHECK_THROWS_WITH(sampling::densest_lattice<2>(10, Vec<double, 2>{1.0, 0.0}),
                    Contains("argument `box`"));
  CHECK_THROWS_WITH(sampling::cubic_lattice<2>(0, Vec<double, 2>{1.0, 1.0}),
                    Contains("argument `per_axis`"));
  auto l = sampling::densest_lattice<1>(4, 1.0);
  CHECK_THROWS_WITH(sampling::jitter(l, -0.5, 1), Contains("argument `amount`"));
  CHECK_THROWS_WITH(sampling::jitter(l, NAN, 1), Contains("argument `amount`"));
}
