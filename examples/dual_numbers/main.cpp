// SPDX-License-Identifier: MIT
// Forward-mode derivatives of an SPH-like pair term with sphad's dual numbers: the derivative
// of W(|x_i - x_j|, h) with respect to x_i and h in one pass, checked against central
// differences, and its second derivative through nested duals. Exits non-zero if a check fails.
#include <sphad/sphad.hpp>

#include <cmath>
#include <cstdio>

using namespace sphad;

// [snippet:dual_pair_term]
/// A Wendland-C2-shaped pair term in 2D: W = (7/π h²)(1 − q)⁴(1 + 4q), q = |x_ij|/h.
template <class T>
T pair_term(const Vec<T, 2>& x_ij, const T& h) {
  using std::pow;
  constexpr double pi = 3.141592653589793;
  const T q = safe_norm(x_ij) / h;
  const T one_minus_q = sphad::max(1.0 - q, 0.0);
  return 7.0 / (pi * h * h) * pow(one_minus_q, 4) * (1.0 + 4.0 * q);
}

int main() {
  using D3 = Dual<double, 3>; // three directions: x, y, h
  const Vec<D3, 2> x_ij{D3::variable(0.12, 0), D3::variable(-0.05, 1)};
  const D3 h = D3::variable(0.3, 2);
  const D3 w = pair_term(x_ij, h); // value and ∂W/∂x, ∂W/∂y, ∂W/∂h in one evaluation
  // [snippet-end]

  const auto plain = [](double x, double y, double hh) {
    return pair_term(Vec<double, 2>{x, y}, hh);
  };
  const double step = 1e-6;
  const double fd[3] = {
      (plain(0.12 + step, -0.05, 0.3) - plain(0.12 - step, -0.05, 0.3)) / (2 * step),
      (plain(0.12, -0.05 + step, 0.3) - plain(0.12, -0.05 - step, 0.3)) / (2 * step),
      (plain(0.12, -0.05, 0.3 + step) - plain(0.12, -0.05, 0.3 - step)) / (2 * step)};
  const char* names[3] = {"dW/dx", "dW/dy", "dW/dh"};
  std::printf("W = %.15f\n", w.value);
  bool ok = w.value == plain(0.12, -0.05, 0.3);
  for (int k = 0; k < 3; ++k) {
    const double error = std::abs(w.tangent[k] - fd[k]) / std::abs(fd[k]);
    std::printf("%s = %+.12f   central difference %+.12f   relative error %.1e\n", names[k],
                w.tangent[k], fd[k], error);
    ok = ok && error < 1e-7;
  }

  // Second derivative d²W/dx² through a nested dual, against differences of the first.
  using D1 = Dual<double, 1>;
  using DD = Dual<D1, 1>;
  DD x;
  x.value = D1::variable(0.12, 0);
  x.tangent[0] = D1(1.0);
  const DD w2 = pair_term(Vec<DD, 2>{x, DD(-0.05)}, DD(0.3));
  const auto first = [](double xx) {
    return pair_term(Vec<D1, 2>{D1::variable(xx, 0), D1(-0.05)}, D1(0.3)).tangent[0];
  };
  const double fd2 = (first(0.12 + step) - first(0.12 - step)) / (2 * step);
  const double error2 = std::abs(w2.tangent[0].tangent[0] - fd2) / std::abs(fd2);
  std::printf("d2W/dx2 = %+.12f   difference of duals %+.12f   relative error %.1e\n",
              w2.tangent[0].tangent[0], fd2, error2);
  ok = ok && error2 < 1e-6;
  std::printf("%s\n", ok ? "all derivatives agree" : "MISMATCH");
  return ok ? 0 : 1;
}
