// SPDX-License-Identifier: MIT
#include <sphad/ad/dual.hpp>
#include <sphad/kernels.hpp>

#include "kernels/golden_values.hpp"
#include "kernels/kernel_cases.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace sphad;
using test::near;

namespace {
/// The ladder k, k', k'', k''' of a kernel in dimension `dim` at q, by runtime dispatch.
struct Ladder {
  double k, dk, d2k, d3k;
};
template <class K>
Ladder ladder(int dim, double q) {
  const auto at = [&](auto d) {
    constexpr int D = decltype(d)::value;
    return Ladder{K::template k<D>(q), K::template dk<D>(q), K::template d2k<D>(q),
                  K::template d3k<D>(q)};
  };
  return dim == 1   ? at(std::integral_constant<int, 1>{})
         : dim == 2 ? at(std::integral_constant<int, 2>{})
                    : at(std::integral_constant<int, 3>{});
}
} // namespace

TEST_CASE("kernels: shape ladders reproduce the golden values", "[kernels][golden]") {
  for (const auto& row : test::golden::ladder) {
    const int dims[2] = {row.dim == 0 ? 1 : row.dim, row.dim == 2 ? 3 : row.dim == 0 ? 3 : row.dim};
    for (const int dim : dims) {
      const Ladder got =
          kernels::dispatch(row.kernel, [&](auto k) { return ladder<decltype(k)>(dim, row.q); });
      INFO(kernels::kernel_name(row.kernel) << " d = " << dim << " q = " << row.q);
      // Entries that are mathematically 0 evaluate to round-off (≤ 1e-13 at q = 0).
      CHECK(near(got.k, row.k, 1e-12, 1e-13));
      CHECK(near(got.dk, row.dk, 1e-12, 1e-13));
      CHECK(near(got.d2k, row.d2k, 1e-12, 1e-13));
      CHECK(near(got.d3k, row.d3k, 1e-12, 1e-12));
    }
  }
}

TEST_CASE("kernels: W(0, h = 1) and the properties match the constants table",
          "[kernels][golden]") {
  for (const auto& row : test::golden::constants) {
    INFO(kernels::kernel_name(row.kernel) << " d = " << row.dim);
    const double w0 = kernels::dispatch(row.kernel, [&](auto k) {
      using K = decltype(k);
      return row.dim == 1   ? kernels::value<K>(Vec<double, 1>{}, 1.0)
             : row.dim == 2 ? kernels::value<K>(Vec<double, 2>{}, 1.0)
                            : kernels::value<K>(Vec<double, 3>{}, 1.0);
    });
    if (row.kernel == KernelId::ViscosityKernel) {
      CHECK(w0 == 0.0); // singular centre: defined as 0 (docs/kernels.md)
    } else {
      CHECK(near(w0, row.w0, 1e-12, 1e-15));
    }
    CHECK(near(kernels::kernel_scale(row.kernel, row.dim), row.kernel_scale, 1e-12));
    CHECK(near(kernels::packing_ratio(row.kernel), row.packing_ratio, 1e-6));
    CHECK(near(kernels::support_in_spacings(row.kernel, row.dim), row.xi, 1e-6));
    CHECK(near(kernels::neighbours_per_support(row.kernel, row.dim), row.n_h, 1e-5));
  }
}

TEST_CASE("kernels: every normalized kernel integrates to 1 in 1D, 2D and 3D",
          "[kernels][normalization]") {
  test::for_each_kernel([](auto kernel) {
    using K = decltype(kernel);
    test::for_each_dim([&](auto d) {
      constexpr int D = decltype(d)::value;
      if (!K::normalized && !(K::id == KernelId::ViscosityKernel && D > 1)) {
        return;
      }
      const double c = K::template normalization<D, double>();
      const auto integrand = [&](double q) { return K::template k<D>(q) * std::pow(q, D - 1); };
      const double integral = c * test::sphere_measure(D) * test::integrate(integrand, 0.0, 1.0);
      INFO(K::name << " d = " << D << ": ∫W dV = " << integral);
      CHECK(std::abs(integral - 1.0) <= 1e-10);
    });
  });
}

TEST_CASE("kernels: the special kernels' integrals are the reference's",
          "[kernels][normalization]") {
  const double cohesion[3] = {0.0591, 0.1866, 0.2351};
  const double adhesion[3] = {0.00433, 0.01019, 0.01578};
  test::for_each_dim([&](auto d) {
    constexpr int D = decltype(d)::value;
    const auto integral = [&](auto kernel) {
      using K = decltype(kernel);
      const auto integrand = [&](double q) { return K::template k<D>(q) * std::pow(q, D - 1); };
      return K::template normalization<D, double>() * test::sphere_measure(D) *
             (test::integrate(integrand, 0.0, 0.5, 1e-9) +
              test::integrate(integrand, 0.5, 1.0, 1e-9));
    };
    CHECK(near(integral(kernels::CohesionKernel{}), cohesion[D - 1], 2e-3));
    CHECK(near(integral(kernels::AdhesionKernel{}), adhesion[D - 1], 2e-3));
  });
}

TEST_CASE("kernels: kernelScale is 1/(2σ/H) from the second moment", "[kernels][properties]") {
  test::for_each_kernel([](auto kernel) {
    using K = decltype(kernel);
    if (K::kernel_scale[0] == 1.0) {
      return; // Poly6, Spiky and the special kernels carry scale 1 by convention
    }
    test::for_each_dim([&](auto d) {
      constexpr int D = decltype(d)::value;
      const auto integrand = [&](double q) { return K::template k<D>(q) * std::pow(q, D + 1); };
      const double sigma2 = K::template normalization<D, double>() * test::sphere_measure(D) / D *
                            test::integrate(integrand, 0.0, 1.0);
      INFO(K::name << " d = " << D);
      CHECK(near(K::kernel_scale[D - 1], 1 / (2 * std::sqrt(sigma2)), 1e-6));
    });
  });
}

TEST_CASE("kernels: a kernel's own polynomials are their quotients: k'(q)/q (k''(0) at 0) and "
          "(k''(q) − k'(q)/q)/q²",
          "[kernels][grad]") {
  int with_dk_over_q = 0, with_hessian_radial = 0;
  test::for_each_kernel([&](auto kernel) {
    using K = decltype(kernel);
    constexpr bool dk_over_q = kernels::detail::has_dk_over_q_v<K>;
    constexpr bool hessian_radial = kernels::detail::has_hessian_radial_v<K>;
    with_dk_over_q += dk_over_q;
    with_hessian_radial += hessian_radial;
    test::for_each_dim([&](auto d) {
      constexpr int D = decltype(d)::value;
      INFO(K::name << " d = " << D);
      if constexpr (dk_over_q) {
        CHECK(near(K::template dk_over_q<D>(0.0), K::template d2k<D>(0.0), 1e-15, 0));
      }
      for (int i = 0; i < 50; ++i) {
        const double q = 0.01 + 0.02 * i;
        if constexpr (dk_over_q) {
          CHECK(near(K::template dk_over_q<D>(q) * q, K::template dk<D>(q), 1e-14, 1e-16));
        }
        if constexpr (hessian_radial) {
          const double expected = K::template d2k<D>(q) - K::template dk<D>(q) / q;
          CHECK(near(K::template hessian_radial<D>(q) * q * q, expected, 1e-13, 1e-12));
        }
      }
    });
  });
  CHECK(with_dk_over_q == 4);      // Wendland2, 4, 6 and Gaussian
  CHECK(with_hessian_radial == 3); // Wendland4, 6 and Gaussian (Wendland2's has a 1/q)
}

TEST_CASE("kernels: k', k'', k''' are the dual-number and finite-difference derivatives",
          "[kernels][grad]") {
  using D1 = Dual<double, 1>;
  test::for_each_kernel([](auto kernel) {
    using K = decltype(kernel);
    test::for_each_dim([&](auto d) {
      constexpr int D = decltype(d)::value;
      for (int i = 0; i < 49; ++i) {
        const double q = 0.02 + 0.02 * i;
        if (test::near_kink(q) || (K::id == KernelId::AdhesionKernel && q < 0.52)) {
          continue;
        }
        INFO(K::name << " d = " << D << " q = " << q);
        const D1 x = D1::variable(q, 0);
        const double h = 1e-6;
        // The scale of the ladder at q bounds the round-off of the closed forms.
        const double scale = std::abs(K::template d2k<D>(q)) + std::abs(K::template dk<D>(q));
        CHECK(near(K::template dk<D>(q), K::template k<D>(x).tangent[0], 1e-13, 1e-14 * scale));
        CHECK(near(K::template d2k<D>(q), K::template dk<D>(x).tangent[0], 1e-13, 1e-14 * scale));
        CHECK(near(K::template d3k<D>(q), K::template d2k<D>(x).tangent[0], 1e-13,
                   1e-14 * (scale + std::abs(K::template d3k<D>(q)))));
        const double fd = (K::template k<D>(q + h) - K::template k<D>(q - h)) / (2 * h);
        CHECK(near(K::template dk<D>(q), fd, 1e-7, 1e-8));
        const double fd3 = (K::template d2k<D>(q + h) - K::template d2k<D>(q - h)) / (2 * h);
        CHECK(near(K::template d3k<D>(q), fd3, 1e-6, 1e-6));
      }
    });
  });
}
