// SPDX-License-Identifier: MIT
// Helpers shared by the kernel tests: iterate over every kernel type and dimension, seed dual
// vectors, adaptive quadrature, and a relative comparison with an absolute floor.
#pragma once

#include <sphad/ad/dual.hpp>
#include <sphad/kernels.hpp>

#include <cmath>
#include <utility>

namespace sphad::test {

/// Calls f(K{}) for every kernel type.
template <class F, class... Kernels>
void for_each_kernel(const F& f, kernels::KernelList<Kernels...>) {
  (f(Kernels{}), ...);
}
template <class F>
void for_each_kernel(const F& f) {
  for_each_kernel(f, kernels::AllKernels{});
}

/// Calls f(std::integral_constant<int, D>{}) for D = 1, 2, 3.
template <class F>
void for_each_dim(const F& f) {
  f(std::integral_constant<int, 1>{});
  f(std::integral_constant<int, 2>{});
  f(std::integral_constant<int, 3>{});
}

/// Calls f(std::integral_constant<SupportScheme, S>{}) for every support scheme.
template <class F>
void for_each_scheme(const F& f) {
  for (const SupportScheme scheme :
       {SupportScheme::Gather, SupportScheme::Scatter, SupportScheme::MeanSymmetric,
        SupportScheme::KernelMeanSymmetric, SupportScheme::SuperSymmetric,
        SupportScheme::PartialSymmetric}) {
    kernels::dispatch(scheme, f);
  }
}

/// |a − b| ≤ rel·max(|a|, |b|) + abs.
inline bool near(double a, double b, double rel, double abs = 0.0) {
  return std::abs(a - b) <= rel * std::fmax(std::abs(a), std::abs(b)) + abs;
}

/// `a` agrees with the printed golden value `b`, given with `digits` significant digits, to
/// one unit in its last digit: the strictest comparison such a table allows (the tables were
/// computed in float64, so their last digit can itself be off by one where terms cancel).
inline bool matches_printed(double a, double b, int digits = 12) {
  if (b == 0) {
    return std::abs(a) <= 1e-15;
  }
  const double last_digit = std::pow(10.0, std::floor(std::log10(std::abs(b))) - (digits - 1));
  return std::abs(a - b) <= last_digit;
}

/// A position vector whose dual tangent k is the unit vector e_k (directions 0..D−1), leaving
/// further directions (e.g. for h) free.
template <int N, int D>
Vec<Dual<double, N>, D> seeded(const Vec<double, D>& x) {
  Vec<Dual<double, N>, D> out{};
  for (int a = 0; a < D; ++a) {
    out[a] = Dual<double, N>::variable(x[a], a);
  }
  return out;
}

/// ∫_a^b f by adaptive 7-point Gauss–Legendre (never evaluates the end points).
template <class F>
double integrate(const F& f, double a, double b, double tol = 1e-15, int depth = 0) {
  static constexpr double nodes[7] = {0.0,
                                      0.4058451513773971669066,
                                      -0.4058451513773971669066,
                                      0.7415311855993944398639,
                                      -0.7415311855993944398639,
                                      0.9491079123427585245262,
                                      -0.9491079123427585245262};
  static constexpr double weights[7] = {0.4179591836734693877551, 0.3818300505051189449504,
                                        0.3818300505051189449504, 0.2797053914892766679015,
                                        0.2797053914892766679015, 0.1294849661688696932706,
                                        0.1294849661688696932706};
  const auto rule = [&](double lo, double hi) {
    double sum = 0;
    for (int i = 0; i < 7; ++i) {
      sum += weights[i] * f(0.5 * (hi + lo) + 0.5 * (hi - lo) * nodes[i]);
    }
    return 0.5 * (hi - lo) * sum;
  };
  const double mid = 0.5 * (a + b);
  const double whole = rule(a, b);
  const double halves = rule(a, mid) + rule(mid, b);
  if (std::abs(whole - halves) <= tol || depth > 40) {
    return halves;
  }
  return integrate(f, a, mid, tol / 2, depth + 1) + integrate(f, mid, b, tol / 2, depth + 1);
}

/// Surface measure of the unit sphere: 2, 2π, 4π.
inline double sphere_measure(int dim) {
  return dim == 1 ? 2.0 : dim == 2 ? 2 * pi_v<double> : 4 * pi_v<double>;
}

/// The kinks of the piecewise kernels (HOCT4's core radius α included), where derivative checks
/// stay away.
inline bool near_kink(double q) {
  constexpr double kinks[] = {1.0 / 7, 0.2, 0.214108111463, 0.25,    1.0 / 3, 3.0 / 7,
                              0.5,     0.6, 2.0 / 3,        5.0 / 7, 0.75};
  for (const double k : kinks) {
    if (std::abs(q - k) < 1e-3) {
      return true;
    }
  }
  return false;
}

} // namespace sphad::test
