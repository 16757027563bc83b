// SPDX-License-Identifier: MIT
// The linearized pair of every kernel and support scheme in one dimension: CMake compiles this
// file once per SPHAD_KERNELS_DIM (1, 2, 3), each a part of sphad_test_kernels (15 kernels x 6
// support schemes in dual numbers per part).
#include <sphad/ad/dual.hpp>
#include <sphad/kernels.hpp>

#include "kernels/kernel_cases.hpp"
#include "support/part.hpp"
#include "support/random.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace sphad;
using S = SupportScheme;

#ifndef SPHAD_KERNELS_DIM
#error "define SPHAD_KERNELS_DIM (1, 2, 3)"
#endif
constexpr int D = SPHAD_KERNELS_DIM;

TEST_CASE(
    "kernels: a linearized pair has the plain W_ij and grad W_ij, its adjoints are the "
    "transposed dual Jacobians, under every scheme (" SPHAD_TEST_STRING(SPHAD_KERNELS_DIM) "D)",
    "[kernels][support][grad]") {
  // Directions x_ij (D), h_i, h_j; cotangents w̄ and Ḡ random. Pairs inside one or both
  // supports, outside both, and coincident (r = 0).
  auto rng = test::rng(29);
  test::for_each_kernel([&](auto kernel) {
    using K = decltype(kernel);
    using DX = Dual<double, D + 2>;
    const auto check = [&](auto scheme) {
      constexpr S Scheme = decltype(scheme)::value;
      for (int trial = 0; trial < 8; ++trial) {
        const double hi = test::uniform(rng, 0.5, 1.5), hj = test::uniform(rng, 0.5, 1.5);
        auto x = test::random_vec<D>(rng);
        const double q = trial == 0 ? 0.0 : test::uniform(rng, 0.05, 1.3);
        x = x * (q * hi / norm(x));
        if (test::near_kink(q) || (K::id == KernelId::AdhesionKernel && q < 0.53)) {
          continue;
        }
        INFO(K::name << " d = " << D << " scheme " << int(Scheme) << " q = " << q);
        const auto linear = kernels::pair_linearization<K, Scheme>(x, hi, hj);
        CHECK(linear.w() == kernels::pair_value<K, Scheme>(x, hi, hj)); // bitwise
        CHECK(linear.gradient() == kernels::pair_gradient<K, Scheme>(x, hi, hj));
        // r where a support it is evaluated at holds the pair (the gradient forms reuse it).
        const auto holds = [&](double h) {
          return kernels::detail::inside<K>(kernels::detail::geometry(x, h).q);
        };
        const bool inside = [&] {
          if constexpr (kernels::averages_evaluations_v<Scheme>) {
            return holds(hi) || holds(hj);
          } else {
            return holds(kernels::pair_support<Scheme>(hi, hj));
          }
        }();
        CHECK(linear.distance() == (inside ? safe_norm(x) : 0.0));

        const auto xd = test::seeded<D + 2>(x);
        const DX hid = DX::variable(hi, D), hjd = DX::variable(hj, D + 1);
        const double wbar = test::uniform(rng);
        const auto gbar = test::random_vec<D>(rng);
        const DX w = kernels::pair_value<K, Scheme>(xd, hid, hjd);
        const auto g = kernels::pair_gradient<K, Scheme>(xd, hid, hjd);
        const auto w_adjoint = linear.adjoint(wbar);
        const auto g_adjoint = linear.adjoint(gbar);
        const auto both = linear.adjoint(wbar, gbar);
        // ⟨Ḡ, ∂G/∂ direction k⟩ from the duals, and the largest terms as the scales.
        double expected[D + 2] = {}, scale = 0, w_scale = 0;
        for (int k = 0; k < D + 2; ++k) {
          w_scale = std::fmax(w_scale, std::abs(wbar * w.tangent[k]));
          for (int a = 0; a < D; ++a) {
            expected[k] += gbar[a] * g[a].tangent[k];
            scale = std::fmax(scale, std::abs(gbar[a] * g[a].tangent[k]));
          }
        }
        for (int a = 0; a < D; ++a) {
          CHECK(test::near(w_adjoint.x[a], wbar * w.tangent[a], 1e-13, 1e-13 * w_scale));
          CHECK(test::near(g_adjoint.x[a], expected[a], 1e-13, 1e-13 * scale));
        }
        CHECK(test::near(w_adjoint.h_i, wbar * w.tangent[D], 1e-13, 1e-13 * w_scale));
        CHECK(test::near(w_adjoint.h_j, wbar * w.tangent[D + 1], 1e-13, 1e-13 * w_scale));
        CHECK(test::near(g_adjoint.h_i, expected[D], 1e-13, 1e-13 * scale));
        CHECK(test::near(g_adjoint.h_j, expected[D + 1], 1e-13, 1e-13 * scale));
        const double both_scale = 1e-14 * (w_scale + scale);
        for (int a = 0; a < D; ++a) {
          CHECK(test::near(both.x[a], w_adjoint.x[a] + g_adjoint.x[a], 1e-14, both_scale));
        }
        CHECK(test::near(both.h_i, w_adjoint.h_i + g_adjoint.h_i, 1e-14, both_scale));
        CHECK(test::near(both.h_j, w_adjoint.h_j + g_adjoint.h_j, 1e-14, both_scale));
      }
    };
    test::for_each_scheme(check);
  });
}
