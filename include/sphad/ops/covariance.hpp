// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/math/mat.hpp>
#include <sphad/ops/detail/operator_base.hpp>
#include <sphad/ops/families.hpp>
#include <sphad/pair/leaves.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/pair/properties.hpp>
#include <sphad/scalar_traits.hpp>

#include <cstdint>

/// \file
/// \brief `ops::Covariance`: C_i = Σ_j V_j (x_j − x_i) ⊗ ∇W_ij with the count of pairs with
/// Ŵ_ij > 0, the matrix gradient renormalization inverts.

namespace sphad::ops {

/// C_i = Σ_j V_j (x_j − x_i) ⊗ ∇W_ij and the count of pairs with W_ij > 0.
template <class T, int D>
struct CovarianceResult {
  Mat<T, D, D> matrix{};
  std::int32_t neighbors = 0;

  SPHAD_HOST_DEVICE SPHAD_INLINE CovarianceResult& operator+=(const CovarianceResult& other) {
    matrix += other.matrix;
    neighbors += other.neighbors;
    return *this;
  }
};

} // namespace sphad::ops

namespace sphad {
/// A Covariance result's scalar is its matrix's.
template <class T, int D>
struct scalar_of<ops::CovarianceResult<T, D>, void> {
  using type = T;
};
} // namespace sphad

namespace sphad::ops {

template <class Kernel, SupportScheme Support = SupportScheme::Gather>
struct Covariance : OperatorBase<Kernel, Support> {
  static constexpr OperationProperties properties = Covariance::describe(Operation::Covariance);
  template <int D, class F>
  static constexpr bool accepts_field = true; // values are not read
  static constexpr bool uses_grad_h = false;
  static constexpr bool needs_densities = true;
  static constexpr bool needs_values = false;
  template <int D, class T, class F>
  using output_t = CovarianceResult<T, D>;
  /// The kernel side: −x_ij ⊗ Ĝ_ij and whether Ŵ_ij > 0.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part(const P& p) {
    using T = typename P::scalar;
    constexpr int D = decltype(p.x_ij)::dim;
    CovarianceResult<T, D> out;
    out.matrix =
        sphad::detail::convert_scalars<Mat<T, D, D>>(outer(-p.x_ij, p.corrected_gradient()));
    out.neighbors = value_of(p.corrected_value()) > 0 ? 1 : 0;
    return out;
  }
  template <class P, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const K& k) {
    using T = promote_t<typename P::scalar, scalar_of_t<K>>;
    constexpr int D = P::dim;
    CovarianceResult<T, D> out;
    out.matrix = sphad::detail::convert_scalars<Mat<T, D, D>>(k.matrix * p.volume_j);
    out.neighbors = k.neighbors;
    return out;
  }
};

/// The Covariance result's scalars: its matrix (the count is not one).
template <class T, int D>
struct Leaves<CovarianceResult<T, D>> {
  template <class S>
  using rebind = CovarianceResult<S, D>;
  static constexpr int count = D * D;
  template <class F, class... Xs>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void zip(F&& f, Xs&... xs) {
    f(xs.matrix...);
  }
  template <class A, class B>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void copy_rest(A& to, const B& from) {
    to.neighbors = from.neighbors;
  }
};

namespace detail {
template <>
struct OperatorFamily<Operation::Covariance> : KernelSupportFamily<Covariance> {};
} // namespace detail

} // namespace sphad::ops
