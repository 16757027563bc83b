// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>

#include <algorithm>
#include <cmath>
#include <random>

namespace sphad::test {

/// A seeded generator: tests are repeatable.
inline std::mt19937_64 rng(unsigned seed) {
  return std::mt19937_64(seed);
}

inline double uniform(std::mt19937_64& g, double lo = -1.0, double hi = 1.0) {
  return std::uniform_real_distribution<double>(lo, hi)(g);
}

template <int D>
Vec<double, D> random_vec(std::mt19937_64& g) {
  Vec<double, D> v{};
  for (int i = 0; i < D; ++i) {
    v[i] = uniform(g);
  }
  return v;
}

template <int R, int C = R>
Mat<double, R, C> random_mat(std::mt19937_64& g) {
  Mat<double, R, C> m{};
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < C; ++j) {
      m(i, j) = uniform(g);
    }
  }
  return m;
}

/// Largest |element|.
template <int R, int C>
double max_abs(const Mat<double, R, C>& m) {
  double out = 0;
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < C; ++j) {
      out = std::max(out, std::abs(m(i, j)));
    }
  }
  return out;
}
template <int D>
double max_abs(const Vec<double, D>& v) {
  double out = 0;
  for (int i = 0; i < D; ++i) {
    out = std::max(out, std::abs(v[i]));
  }
  return out;
}

/// An upper bound of the condition number of a square matrix: ‖A‖_F ‖A⁻¹‖_F (at least 1).
template <int D>
double condition_bound(const Mat<double, D, D>& a) {
  const auto inv = inverse(a);
  double fa = 0, fi = 0;
  for (int i = 0; i < D; ++i) {
    for (int j = 0; j < D; ++j) {
      fa += a(i, j) * a(i, j);
      fi += inv(i, j) * inv(i, j);
    }
  }
  return std::max(1.0, std::sqrt(fa * fi));
}

} // namespace sphad::test
