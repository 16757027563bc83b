// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/kernels/kernel_traits.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/pair/operator_base.hpp>
#include <sphad/scalar_traits.hpp>

#include <ratio>

/// \file
/// \brief What the solver's pair terms share: their base (on the operators' `OperatorBase`), and
/// the paper length ℓ = h_ij/κ with the regularizer η² = εℓ² (Morris: ε = 0.01).

namespace sphad::solver::detail {

/// A solver term's base: the operators' one base (`ops::OperatorBase`: the kernel and support
/// scheme), and no grad-h (the solver's terms do not divide by Ω).
template <class Kernel, SupportScheme Support>
struct TermBase : ops::OperatorBase<Kernel, Support> {
  static constexpr bool uses_grad_h = false;
};

/// The pair's paper length ℓ = h_ij/κ (sphad's h is the support radius; papers tune their
/// constants with a smoothing length whose support is κℓ).
template <int Kappa, class P>
SPHAD_HOST_DEVICE SPHAD_INLINE auto paper_length(const P& p) {
  static_assert(Kappa >= 1, "sphad::solver: the support-to-length ratio Kappa is at least 1");
  using T = typename P::scalar;
  return T(p.support()) / primal_t<T>(Kappa);
}

/// x_ij in the pair's one scalar type.
template <class P>
SPHAD_HOST_DEVICE SPHAD_INLINE auto pair_vector(const P& p) {
  return sphad::detail::convert_scalars<Vec<typename P::scalar, P::dim>>(p.x_ij);
}

/// Ĝ_ij in the pair's one scalar type.
template <class P>
SPHAD_HOST_DEVICE SPHAD_INLINE auto pair_gradient(const P& p) {
  return sphad::detail::convert_scalars<Vec<typename P::scalar, P::dim>>(p.corrected_gradient());
}

/// Morris' regularizer η² = 0.01ℓ² as a fraction of ℓ².
using MorrisEta2 = std::ratio<1, 100>;

/// x_ij / (r² + η²) with η² = εℓ², ε = `Eta2` (a `std::ratio`), for the pair's paper length ℓ
/// (the regularized inverse distance of the viscous terms). With ε = 0 the pair at r = 0 (the
/// particle itself) gives 0.
template <class Eta2 = MorrisEta2, class P, class L>
SPHAD_HOST_DEVICE SPHAD_INLINE auto regularized_direction(const P& p, const L& l) {
  static_assert(Eta2::num >= 0, "sphad::solver: the regularizer fraction Eta2 is not negative");
  const auto x = pair_vector(p);
  if constexpr (Eta2::num == 0) {
    const auto r2 = dot(x, x);
    return value_of(r2) > 0 ? x / r2 : decltype(x / r2){};
  } else {
    return x / (dot(x, x) + primal_t<L>(double(Eta2::num) / double(Eta2::den)) * l * l);
  }
}

} // namespace sphad::solver::detail
