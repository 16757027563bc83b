// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/math/detail/jacobi_svd.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/scalar_traits.hpp>

#include <type_traits>

/// \file
/// \brief Moore–Penrose pseudo-inverse of small square matrices.

namespace sphad {

/// Moore–Penrose pseudo-inverse of a D×D matrix, D = 1, 2, 3, by a one-sided Jacobi SVD:
/// pinv(A) = Σ_k v_k u_kᵀ / σ_k over the singular values σ_k > D·eps·σ_max (eps of the primal
/// type); the others are dropped. No symmetrization. pinv(0) = 0.
///
/// Dual scalars: the primal is the pseudo-inverse of the primal matrix; tangents follow the
/// constant-rank derivative (Golub & Pereyra)
///   dP = −P dA P + P Pᵀ dAᵀ (I − A P) + (I − P A) dAᵀ Pᵀ P,
/// which is exact wherever the rank is locally constant and, at full rank, reduces to
/// −A⁻¹ dA A⁻¹. Nested duals recurse, so second derivatives are exact too.
template <class T, int D>
SPHAD_HOST_DEVICE Mat<T, D, D> pinv(const Mat<T, D, D>& a) {
  static_assert(D >= 1 && D <= 3, "sphad::pinv: only 1x1, 2x2 and 3x3 matrices");
  if constexpr (is_dual_v<T>) {
    using Inner = typename T::value_type;
    constexpr int N = T::tangent_count;
    const auto a0 = detail::generate_mat<D, D>([&](int i, int j) { return a(i, j).value; });
    const Mat<Inner, D, D> p = pinv(a0);
    const auto eye = Mat<Inner, D, D>::identity();
    const auto left = eye - p * a0;    // I − P A
    const auto right = eye - a0 * p;   // I − A P
    const auto ppt = p * transpose(p); // P Pᵀ
    const auto ptp = transpose(p) * p; // Pᵀ P
    Mat<T, D, D> out{};
    for (int i = 0; i < D; ++i) {
      for (int j = 0; j < D; ++j) {
        out(i, j).value = p(i, j);
      }
    }
    for (int k = 0; k < N; ++k) {
      const auto da = detail::generate_mat<D, D>([&](int i, int j) { return a(i, j).tangent[k]; });
      const auto dat = transpose(da);
      const auto dp = -(p * da * p) + ppt * dat * right + left * dat * ptp;
      for (int i = 0; i < D; ++i) {
        for (int j = 0; j < D; ++j) {
          out(i, j).tangent[k] = dp(i, j);
        }
      }
    }
    return out;
  } else {
    static_assert(std::is_floating_point_v<T>,
                  "sphad::pinv: the element type must be a floating-point type or a Dual over one");
    const auto svd = detail::jacobi_svd(a);
    T sigma_max = T(0);
    for (int k = 0; k < D; ++k) {
      sigma_max = svd.sigma[k] > sigma_max ? svd.sigma[k] : sigma_max;
    }
    const T cutoff = T(D) * machine_epsilon_v<T> * sigma_max;
    Mat<T, D, D> out{};
    for (int k = 0; k < D; ++k) {
      if (svd.sigma[k] > cutoff) {
        // v_k u_kᵀ / σ_k with u_k = (A v_k)/σ_k, i.e. v_k (A v_k)ᵀ / σ_k².
        const T inv_sigma_sq = T(1) / (svd.sigma[k] * svd.sigma[k]);
        for (int i = 0; i < D; ++i) {
          for (int j = 0; j < D; ++j) {
            out(i, j) += svd.v(i, k) * svd.av(j, k) * inv_sigma_sq;
          }
        }
      }
    }
    return out;
  }
}

/// Singular values of a D×D matrix (D = 1, 2, 3), unordered, by the same one-sided Jacobi SVD
/// as `pinv`. Plain floating-point elements only.
template <class T, int D>
SPHAD_HOST_DEVICE Vec<T, D> singular_values(const Mat<T, D, D>& a) {
  static_assert(std::is_floating_point_v<T>,
                "sphad::singular_values: the element type must be a floating-point type");
  return detail::jacobi_svd(a).sigma;
}

} // namespace sphad
