// SPDX-License-Identifier: MIT
#include <sphad/kernels.hpp>

#include "kernels/golden_values.hpp"
#include "kernels/kernel_cases.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace sphad;
using test::near;

TEST_CASE("kernels::lattice_density: reproduces the golden L(n_h) table", "[kernels][lattice]") {
  for (const auto& row : test::golden::lattice) {
    for (int i = 0; i < 6; ++i) {
      const double n_h = test::golden::lattice_n_h[i];
      INFO(kernels::kernel_name(row.kernel) << " d = " << row.dim << " n_h = " << n_h);
      CHECK(std::abs(kernels::lattice_density(row.kernel, n_h, row.dim) - row.l[i]) <= 1e-11);
    }
  }
}

namespace {
/// The summation density at the centre node of a perfect lattice with spacing s, masses s^D
/// and h = n_h s, by brute force over the lattice (Gather), times `factor`.
template <class K, int D>
double lattice_node_density(double n_h, double factor) {
  const double s = 0.05;
  const double h =
      kernels::support_from_volume(std::pow(s, D), kernels::neighbours_from_n_h(n_h, D), D);
  const int extent = int(std::ceil(n_h)) + 1;
  double rho = 0;
  for (int a = -extent; a <= extent; ++a) {
    for (int b = (D >= 2 ? -extent : 0); b <= (D >= 2 ? extent : 0); ++b) {
      for (int c = (D >= 3 ? -extent : 0); c <= (D >= 3 ? extent : 0); ++c) {
        Vec<double, D> x{};
        x[0] = a * s;
        if constexpr (D >= 2) {
          x[1] = b * s;
        }
        if constexpr (D >= 3) {
          x[2] = c * s;
        }
        rho += std::pow(s, D) * factor * kernels::value<K>(x, h);
      }
    }
  }
  return rho;
}
} // namespace

TEST_CASE("kernels::lattice_density_factor: a calibrated lattice density is exactly 1",
          "[kernels][lattice]") {
  const auto check = [](auto kernel, auto d) {
    using K = decltype(kernel);
    constexpr int D = decltype(d)::value;
    for (const double n_h : {3.0, 4.0, 4.7}) {
      INFO(K::name << " d = " << D << " n_h = " << n_h);
      const double factor = kernels::lattice_density_factor(K::id, n_h, D);
      CHECK(near(factor, 1 / kernels::lattice_density(K::id, n_h, D), 1e-15));
      CHECK(std::abs(lattice_node_density<K, D>(n_h, factor) - 1.0) <= 1e-12);
      CHECK(std::abs(lattice_node_density<K, D>(n_h, 1.0) -
                     kernels::lattice_density(K::id, n_h, D)) <= 1e-12);
    }
  };
  test::for_each_dim([&](auto d) {
    if (decltype(d)::value == 1) {
      return;
    }
    check(kernels::Wendland2{}, d);
    check(kernels::Wendland4{}, d);
    check(kernels::CubicSpline{}, d);
  });
}

TEST_CASE("kernels::lattice_density_factor: bad n_h and degenerate lattices are rejected",
          "[kernels][lattice][errors]") {
  for (const double bad : {0.0, -2.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    INFO("n_h = " << bad);
    CHECK_THROWS_AS(kernels::lattice_density_factor(KernelId::Wendland4, bad, 2), InvalidArgument);
    CHECK_THROWS_WITH(kernels::lattice_density_factor(KernelId::Wendland4, bad, 2),
                      Catch::Matchers::Contains("sphad::kernels::lattice_density: argument `n_h`"));
  }
  CHECK_THROWS_WITH(kernels::lattice_density(KernelId::Wendland4, 3.0, 0),
                    Catch::Matchers::Contains("argument `dim`"));
  CHECK_THROWS_WITH(kernels::lattice_density(static_cast<KernelId>(99), 3.0, 2),
                    Catch::Matchers::Contains("argument `kernel`"));
  // The adhesion kernel is zero at the only lattice node inside n_h = 1: no factor exists.
  CHECK_THROWS_WITH(kernels::lattice_density_factor(KernelId::AdhesionKernel, 1.0, 1),
                    Catch::Matchers::Contains(
                        "sphad::kernels::lattice_density_factor: argument `n_h`: gives no finite"));
}
