// SPDX-License-Identifier: MIT
#include <sphad/ad/dual.hpp>
#include <sphad/kernels.hpp>

#include "kernels/kernel_cases.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace sphad;
using test::near;
using K = kernels::Wendland2;
using S = SupportScheme;

namespace {
// The worked example of the schemes: Wendland2, 2D, x_ij = (0.3, 0.4), h_i = 0.8, h_j = 1.2.
const Vec<double, 2> x_ij{0.3, 0.4};
constexpr double h_i = 0.8, h_j = 1.2;

struct Expected {
  double w, gradient[2], laplacian, hessian[3]; // hessian: (0,0), (0,1), (1,1)
  double dw, dgradient[2], dlaplacian;          // along dx = (0.01, −0.02), dh = (0.1, −0.05)
};

// The example's rows. Under KernelMeanSymmetric every kernel quantity is averaged: its Laplacian
// and Hessian are the averages (the SuperSymmetric values), not the reference's max-h ones.
constexpr Expected gather{0.240969073918, {-1.72120767084, -2.29494356112},
                          17.2120767084,  {4.58988712225, 13.7696613667, 12.6221895862},
                          0.147736991747, {-0.444645314968, -0.401615123197},
                          -7.2195099527};
constexpr Expected scatter{0.477772978207,  {-1.27974904877, -1.70633206502},
                           0.609404308937,  {-0.975046894299, 4.38771102435, 1.58445120324},
                           0.0167078348034, {-0.196532889632, -0.119849514091},
                           0.412798871173};
constexpr Expected mean{0.417781725616,  {-1.67112690246, -2.22816920329},
                        5.57042300822,   {0.445633840657, 8.02140913183, 5.12478916756},
                        0.0417781725616, {-0.114193671668, 0.0334225380493},
                        -1.30904940693};
constexpr Expected averaged{0.359371026062,  {-1.50047835981, -2.00063781307},
                            8.91074050868,   {1.80742011397, 9.07868619555, 7.10332039471},
                            0.0822224132754, {-0.3205891023, -0.260732318644},
                            -3.40335554077};

template <S Scheme>
void check_scheme(const Expected& e) {
  INFO("scheme " << int(Scheme));
  // The table carries 12 significant digits: each value must round to it.
  using test::matches_printed;
  CHECK(matches_printed(kernels::pair_value<K, Scheme>(x_ij, h_i, h_j), e.w));
  CHECK(matches_printed(kernels::pair_laplacian<K, Scheme>(x_ij, h_i, h_j), e.laplacian));
  const auto g = kernels::pair_gradient<K, Scheme>(x_ij, h_i, h_j);
  const auto hess = kernels::pair_hessian<K, Scheme>(x_ij, h_i, h_j);
  CHECK(matches_printed(g[0], e.gradient[0]));
  CHECK(matches_printed(g[1], e.gradient[1]));
  CHECK(matches_printed(hess(0, 0), e.hessian[0]));
  CHECK(matches_printed(hess(0, 1), e.hessian[1]));
  CHECK(matches_printed(hess(1, 0), e.hessian[1]));
  CHECK(matches_printed(hess(1, 1), e.hessian[2]));

  // Tangents through dual numbers: dx_ij = (0.01, −0.02), dh_i = 0.1, dh_j = −0.05.
  using D1 = Dual<double, 1>;
  const Vec<D1, 2> xd{D1(0.3, {0.01}), D1(0.4, {-0.02})};
  const D1 hi(h_i, {0.1}), hj(h_j, {-0.05});
  CHECK(matches_printed(kernels::pair_value<K, Scheme>(xd, hi, hj).tangent[0], e.dw));
  const auto gd = kernels::pair_gradient<K, Scheme>(xd, hi, hj);
  CHECK(matches_printed(gd[0].tangent[0], e.dgradient[0]));
  CHECK(matches_printed(gd[1].tangent[0], e.dgradient[1]));
  CHECK(matches_printed(kernels::pair_laplacian<K, Scheme>(xd, hi, hj).tangent[0], e.dlaplacian));
}
} // namespace

TEST_CASE("kernels: every support scheme reproduces the worked example",
          "[kernels][support][golden]") {
  check_scheme<S::Gather>(gather);
  check_scheme<S::Scatter>(scatter);
  check_scheme<S::MeanSymmetric>(mean);
  check_scheme<S::KernelMeanSymmetric>(averaged);
  check_scheme<S::SuperSymmetric>(averaged);
  check_scheme<S::PartialSymmetric>(scatter); // max(h_i, h_j) = h_j here
}

TEST_CASE("kernels: pair support rules and the max tie rule", "[kernels][support]") {
  CHECK(kernels::pair_support<S::Gather>(0.8, 1.2) == 0.8);
  CHECK(kernels::pair_support<S::Scatter>(0.8, 1.2) == 1.2);
  CHECK(kernels::pair_support<S::MeanSymmetric>(0.8, 1.2) == 1.0);
  CHECK(kernels::pair_support<S::PartialSymmetric>(0.8, 1.2) == 1.2);
  CHECK(kernels::pair_support<S::KernelMeanSymmetric>(1.5, 1.2) == 1.5);
  using D2 = Dual<double, 2>;
  const D2 a = D2::variable(1.0, 0), b = D2::variable(1.0, 1);
  const D2 tie = kernels::pair_support<S::PartialSymmetric>(a, b);
  CHECK(tie.tangent[0] == 1.0); // h_i's tangent on a tie
  CHECK(tie.tangent[1] == 0.0);
  const D2 m = kernels::pair_support<S::MeanSymmetric>(a, b);
  CHECK(m.tangent[0] == 0.5);
  CHECK(m.tangent[1] == 0.5);
  STATIC_REQUIRE(kernels::averages_evaluations_v<S::KernelMeanSymmetric>);
  STATIC_REQUIRE(kernels::averages_evaluations_v<S::SuperSymmetric>);
  STATIC_REQUIRE(!kernels::averages_evaluations_v<S::PartialSymmetric>);
}

TEST_CASE("kernels: under every scheme the gradient and Hessian are derivatives of W_ij",
          "[kernels][support][grad]") {
  using D3 = Dual<double, 3>;
  const auto check = [](auto scheme) {
    constexpr S Scheme = decltype(scheme)::value;
    INFO("scheme " << int(Scheme));
    const Vec<D3, 3> x{D3::variable(0.2, 0), D3::variable(-0.3, 1), D3::variable(0.1, 2)};
    const Vec<double, 3> xp{0.2, -0.3, 0.1};
    const D3 w = kernels::pair_value<kernels::CubicSpline, Scheme>(x, 0.5, 0.7);
    const auto g = kernels::pair_gradient<kernels::CubicSpline, Scheme>(xp, 0.5, 0.7);
    const auto gd = kernels::pair_gradient<kernels::CubicSpline, Scheme>(x, 0.5, 0.7);
    const auto hess = kernels::pair_hessian<kernels::CubicSpline, Scheme>(xp, 0.5, 0.7);
    double trace = 0;
    for (int a = 0; a < 3; ++a) {
      CHECK(near(w.tangent[a], g[a], 1e-13));
      for (int b = 0; b < 3; ++b) {
        CHECK(near(gd[a].tangent[b], hess(a, b), 1e-12, 1e-12));
      }
      trace += hess(a, a);
    }
    CHECK(near(kernels::pair_laplacian<kernels::CubicSpline, Scheme>(xp, 0.5, 0.7), trace, 1e-12));
  };
  test::for_each_scheme(check);
}
