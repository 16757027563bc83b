// SPDX-License-Identifier: MIT
#include <sphad/ad/dual.hpp>
#include <sphad/kernels.hpp>

#include "kernels/golden_values.hpp"
#include "kernels/kernel_cases.hpp"
#include "support/random.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace sphad;
using test::near;

namespace {
template <int D>
Vec<double, D> golden_x() {
  Vec<double, D> x{};
  for (int a = 0; a < D; ++a) {
    x[a] = test::golden::point_x[D - 1][a];
  }
  return x;
}
} // namespace

TEST_CASE("kernels: W, gradient, dh terms, Laplacian and Hessian at the golden points",
          "[kernels][golden]") {
  for (const auto& row : test::golden::points) {
    INFO(kernels::kernel_name(row.kernel) << " d = " << row.dim);
    kernels::dispatch(row.kernel, [&](auto kernel) {
      using K = decltype(kernel);
      test::for_each_dim([&](auto d) {
        constexpr int D = decltype(d)::value;
        if (D != row.dim) {
          return;
        }
        const auto x = golden_x<D>();
        const double h = test::golden::point_h[D - 1];
        // The table carries 12 significant digits: each value must round to it.
        using test::matches_printed;
        CHECK(matches_printed(kernels::value<K>(x, h), row.w));
        CHECK(matches_printed(kernels::value_dh<K>(x, h), row.w_dh));
        CHECK(matches_printed(kernels::laplacian<K>(x, h), row.laplacian));
        const auto g = kernels::gradient<K>(x, h);
        const auto g_dh = kernels::gradient_dh<K>(x, h);
        const auto hess = kernels::hessian<K>(x, h);
        for (int a = 0; a < D; ++a) {
          CHECK(matches_printed(g[a], row.gradient[a]));
          CHECK(matches_printed(g_dh[a], row.gradient_dh[a]));
          for (int b = 0; b < D; ++b) {
            CHECK(matches_printed(hess(a, b), row.hessian[a * D + b]));
          }
        }
      });
    });
  }
}

TEST_CASE("kernels: every derivative equals the dual-number derivative of W", "[kernels][grad]") {
  auto rng = test::rng(17);
  test::for_each_kernel([&](auto kernel) {
    using K = decltype(kernel);
    test::for_each_dim([&](auto d) {
      constexpr int D = decltype(d)::value;
      using DX = Dual<double, D + 1>; // directions: x_0..x_{D-1}, h
      for (int trial = 0; trial < 20; ++trial) {
        const double h = test::uniform(rng, 0.5, 2.0);
        auto x = test::random_vec<D>(rng);
        const double q_target = test::uniform(rng, 0.05, 0.97);
        x = x * (q_target * h / norm(x));
        if (test::near_kink(q_target) || (K::id == KernelId::AdhesionKernel && q_target < 0.53)) {
          continue;
        }
        INFO(K::name << " d = " << D << " q = " << q_target);
        const auto xd = test::seeded<D + 1>(x);
        const DX hd = DX::variable(h, D);
        const DX w = kernels::value<K>(xd, hd);
        const auto g = kernels::gradient<K>(x, h);
        const auto hess = kernels::hessian<K>(x, h);
        const auto gd = kernels::gradient<K>(xd, hd);
        const auto g_dh = kernels::gradient_dh<K>(x, h);
        const double g_scale = norm(g) + 1e-300;
        const double g_dh_scale = norm(g_dh) + 1e-300;
        // The Hessian is g I + (k'' − g) x̂ x̂ᵀ-like terms of size |∇W|/r that cancel where it
        // vanishes (HOCT4's linear core in 1D): its round-off is relative to that size.
        double h_scale = g_scale / norm(x);
        for (int a = 0; a < D; ++a) {
          for (int b = 0; b < D; ++b) {
            h_scale = std::fmax(h_scale, std::abs(hess(a, b)));
          }
        }
        CHECK(w.value == kernels::value<K>(x, h)); // dual primal equals plain primal bitwise
        CHECK(near(w.tangent[D], kernels::value_dh<K>(x, h), 1e-13, 1e-15 * std::abs(w.value)));
        double trace = 0;
        for (int a = 0; a < D; ++a) {
          CHECK(near(w.tangent[a], g[a], 1e-13, 1e-13 * g_scale));
          CHECK(near(gd[a].tangent[D], g_dh[a], 1e-13, 1e-13 * g_dh_scale));
          for (int b = 0; b < D; ++b) {
            CHECK(near(gd[a].tangent[b], hess(a, b), 1e-13, 1e-13 * h_scale));
          }
          trace += hess(a, a);
        }
        if (q_target > 0.1) { // the reference's ε regularization moves it by O(ε/q²)
          CHECK(near(kernels::laplacian<K>(x, h), trace, 1e-13, 1e-13 * h_scale));
        }

        // Nested duals: the second derivative of W along a direction u is uᵀ H u.
        using D1 = Dual<double, 1>;
        using DD = Dual<D1, 1>;
        const auto u = test::random_vec<D>(rng);
        Vec<DD, D> xs{};
        for (int a = 0; a < D; ++a) {
          xs[a].value = D1(x[a], {u[a]});
          xs[a].tangent[0] = D1(u[a]);
        }
        const DD w2 = kernels::value<K>(xs, DD(h));
        CHECK(near(w2.tangent[0].tangent[0], dot(u, hess * u), 1e-13,
                   1e-13 * h_scale * norm_squared(u)));

        // Central differences in x and h.
        const double step = 1e-6;
        for (int a = 0; a < D; ++a) {
          auto xp = x, xm = x;
          xp[a] += step;
          xm[a] -= step;
          const double fd = (kernels::value<K>(xp, h) - kernels::value<K>(xm, h)) / (2 * step);
          CHECK(near(g[a], fd, 1e-6, 1e-7 * g_scale));
        }
        const double fd_h =
            (kernels::value<K>(x, h + step) - kernels::value<K>(x, h - step)) / (2 * step);
        CHECK(near(kernels::value_dh<K>(x, h), fd_h, 1e-6, 1e-7 * std::abs(w.value) / h));
      }
    });
  });
}

TEST_CASE("kernels: at r = 0 the gradient vanishes and the Hessian is C_d k''(0) h^-(D+2) I",
          "[kernels][self]") {
  // Self-pair values (h = 1): W2 −15 / −44.5633840657307 / −66.8450760985961, etc.
  const double expected[3][3] = {{-15, -44.5633840657307, -66.8450760985961},
                                 {-16, -21.8269636240314, -30.5577490736439},
                                 {-6.5625, -7.63943726841098, -9.40008882636507}};
  test::for_each_dim([&](auto d) {
    constexpr int D = decltype(d)::value;
    const Vec<double, D> zero{};
    CHECK(near(kernels::hessian<kernels::Wendland2>(zero, 1.0)(0, 0), expected[0][D - 1], 1e-12));
    CHECK(near(kernels::hessian<kernels::CubicSpline>(zero, 1.0)(D - 1, D - 1), expected[1][D - 1],
               1e-12));
    CHECK(near(kernels::hessian<kernels::Poly6>(zero, 1.0)(0, 0), expected[2][D - 1], 1e-12));
    // ∂W/∂h at the self pair is −D W(0)/h.
    CHECK(near(kernels::value_dh<kernels::Wendland2>(zero, 1.0),
               -D * kernels::value<kernels::Wendland2>(zero, 1.0), 1e-14));
    test::for_each_kernel([&](auto kernel) {
      using K = decltype(kernel);
      const double h = 0.7;
      INFO(K::name << " d = " << D);
      CHECK(kernels::gradient<K>(zero, h) == Vec<double, D>{});
      CHECK(kernels::gradient_dh<K>(zero, h) == Vec<double, D>{});
      CHECK(kernels::laplacian<K>(zero, h) == 0.0); // the reference's q < ε rule
      const auto hess = kernels::hessian<K>(zero, h);
      const double diagonal = K::center == kernels::Center::smooth
                                  ? K::template normalization<D, double>() *
                                        K::template d2k<D>(0.0) / std::pow(h, D + 2)
                                  : 0.0; // 0: a cusp or singular centre has no finite Hessian
      for (int a = 0; a < D; ++a) {
        for (int b = 0; b < D; ++b) {
          CHECK(near(hess(a, b), a == b ? diagonal : 0.0, 1e-14));
        }
      }
      // Coincident distinct particles: the tangent of ∇W is H(0) applied to the tangent.
      Vec<Dual<double, 1>, D> moving{};
      for (int a = 0; a < D; ++a) {
        moving[a] = Dual<double, 1>(0.0, {0.25 * (a + 1)});
      }
      const auto g = kernels::gradient<K>(moving, h);
      for (int a = 0; a < D; ++a) {
        CHECK(g[a].value == 0.0);
        CHECK(near(g[a].tangent[0], diagonal * 0.25 * (a + 1), 1e-14));
      }
    });
  });
}

TEST_CASE("kernels: no NaN or Inf for q in [0, 2] and h in [1e-4, 1e4], tangents included",
          "[kernels][self]") {
  test::for_each_kernel([](auto kernel) {
    using K = decltype(kernel);
    test::for_each_dim([&](auto d) {
      constexpr int D = decltype(d)::value;
      using DX = Dual<double, D + 1>;
      bool finite = true;
      for (const double h : {1e-4, 3e-2, 1.0, 40.0, 1e4}) {
        for (int i = 0; i <= 200; ++i) {
          const double q = 0.01 * i;
          Vec<double, D> x{}; // |x| = q h
          x[0] = (D == 1 ? 1.0 : 0.6) * q * h;
          x[D - 1] += (D == 1 ? 0.0 : 0.8) * q * h;
          const auto xd = test::seeded<D + 1>(x);
          const DX hd = DX::variable(h, D);
          finite = finite && all_finite(kernels::value<K>(xd, hd)) &&
                   all_finite(kernels::laplacian<K>(xd, hd)) &&
                   all_finite(kernels::value_dh<K>(xd, hd));
          const auto g = kernels::gradient<K>(xd, hd);
          const auto g_dh = kernels::gradient_dh<K>(xd, hd);
          const auto hess = kernels::hessian<K>(xd, hd);
          for (int a = 0; a < D; ++a) {
            finite = finite && all_finite(g[a]) && all_finite(g_dh[a]);
            for (int b = 0; b < D; ++b) {
              finite = finite && all_finite(hess(a, b));
            }
          }
        }
      }
      INFO(K::name << " d = " << D);
      CHECK(finite);
    });
  });
}

TEST_CASE("kernels: outside the support every value and tangent is exactly zero",
          "[kernels][support]") {
  using D3 = Dual<double, 3>;
  const Vec<D3, 2> x{D3::variable(0.6, 0), D3::variable(0.8, 1)}; // r = 1
  for (const double h : {1.0, 0.999, 0.5}) {
    test::for_each_kernel([&](auto kernel) {
      using K = decltype(kernel);
      const D3 hd = D3::variable(h, 2);
      const D3 w = kernels::value<K>(x, hd);
      const D3 l = kernels::laplacian<K>(x, hd);
      const auto g = kernels::gradient<K>(x, hd);
      const auto hess = kernels::hessian<K>(x, hd);
      INFO(K::name << " h = " << h);
      for (int k = 0; k < 3; ++k) {
        CHECK(w.tangent[k] == 0.0);
        CHECK(l.tangent[k] == 0.0);
        CHECK(g[0].tangent[k] == 0.0);
        CHECK(hess(0, 1).tangent[k] == 0.0);
      }
      CHECK(w.value == 0.0);
      CHECK(g[1].value == 0.0);
      CHECK(kernels::value_dh<K>(x, hd).value == 0.0);
    });
  }
}

TEST_CASE("kernels: the scaling identity W(x, h) = h^-D W(x/h, 1)", "[kernels]") {
  const Vec<double, 3> x{0.1, -0.2, 0.15};
  for (const double h : {0.4, 1.7}) {
    const double w = kernels::value<kernels::Wendland4>(x, h);
    const double scaled = kernels::value<kernels::Wendland4>(x / h, 1.0) / std::pow(h, 3);
    CHECK(near(w, scaled, 1e-14));
    const auto g = kernels::gradient<kernels::QuinticSpline>(x, h);
    const auto gs = kernels::gradient<kernels::QuinticSpline>(x / h, 1.0) / std::pow(h, 4);
    CHECK(near(g[1], gs[1], 1e-14));
  }
}

TEST_CASE("kernels: float evaluations agree with double", "[kernels][float]") {
  const Vec<float, 2> xf{0.3f, 0.4f};
  const Vec<double, 2> x{0.3f, 0.4f}; // the same (float) inputs
  test::for_each_kernel([&](auto kernel) {
    using K = decltype(kernel);
    INFO(K::name);
    const float wf = kernels::value<K>(xf, 0.9f);
    const double w = kernels::value<K>(x, double(0.9f));
    CHECK(near(wf, w, 5e-6, 1e-7));
    const auto gf = kernels::gradient<K>(xf, 0.9f);
    const auto g = kernels::gradient<K>(x, double(0.9f));
    CHECK(near(gf[1], g[1], 5e-6, 1e-6));
  });
}
