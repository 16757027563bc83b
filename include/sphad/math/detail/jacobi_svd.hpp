// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/math/mat.hpp>
#include <sphad/math/scalar.hpp>

#include <cmath>

namespace sphad::detail {

/// Result of `jacobi_svd`: A V = [A v_0 | A v_1 | ...] with orthogonal columns, |A v_k| = σ_k.
template <class T, int D>
struct JacobiSvd {
  Vec<T, D> sigma; // singular values, unordered
  Mat<T, D, D> v;  // right singular vectors as columns
  Mat<T, D, D> av; // A V: column k is σ_k u_k
};

/// One-sided (Hestenes) Jacobi SVD of a small square matrix of plain floating-point scalars:
/// rotates pairs of columns of A V until they are mutually orthogonal to machine precision.
/// It computes small singular values to high relative accuracy, which the rank cutoff of
/// `pinv` relies on. At most 12 sweeps (D ≤ 3 converges in 3–5).
template <class T, int D>
SPHAD_HOST_DEVICE JacobiSvd<T, D> jacobi_svd(const Mat<T, D, D>& a) {
  using std::abs;
  using std::sqrt;
  JacobiSvd<T, D> out{};
  out.av = a;
  out.v = Mat<T, D, D>::identity();
  constexpr T eps = machine_epsilon_v<T>;
  for (int sweep = 0; sweep < 12; ++sweep) {
    bool rotated = false;
    for (int p = 0; p < D - 1; ++p) {
      for (int q = p + 1; q < D; ++q) {
        T alpha(0), beta(0), gamma(0);
        for (int i = 0; i < D; ++i) {
          alpha += out.av(i, p) * out.av(i, p);
          beta += out.av(i, q) * out.av(i, q);
          gamma += out.av(i, p) * out.av(i, q);
        }
        if (gamma == T(0) || abs(gamma) <= eps * sqrt(alpha * beta)) {
          continue;
        }
        rotated = true;
        const T zeta = (beta - alpha) / (T(2) * gamma);
        const T t = (zeta >= T(0) ? T(1) : T(-1)) / (abs(zeta) + sqrt(T(1) + zeta * zeta));
        const T c = T(1) / sqrt(T(1) + t * t);
        const T s = c * t;
        for (int i = 0; i < D; ++i) {
          const T ap = out.av(i, p), aq = out.av(i, q);
          out.av(i, p) = c * ap - s * aq;
          out.av(i, q) = s * ap + c * aq;
          const T vp = out.v(i, p), vq = out.v(i, q);
          out.v(i, p) = c * vp - s * vq;
          out.v(i, q) = s * vp + c * vq;
        }
      }
    }
    if (!rotated) {
      break;
    }
  }
  for (int k = 0; k < D; ++k) {
    T sum(0);
    for (int i = 0; i < D; ++i) {
      sum += out.av(i, k) * out.av(i, k);
    }
    out.sigma[k] = sqrt(sum);
  }
  return out;
}

} // namespace sphad::detail
