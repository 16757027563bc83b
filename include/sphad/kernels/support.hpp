// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/kernels/evaluate.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/scalar_traits.hpp>

#include <type_traits>

/// \file
/// \brief Support schemes: how a pair (i, j) with supports h_i, h_j is evaluated.

namespace sphad {

/// How the support of a pair is formed; the integer values are the reference's.
enum class SupportScheme : int {
  Gather = 11,              ///< h_ij = h_i
  Scatter = 12,             ///< h_ij = h_j
  MeanSymmetric = 13,       ///< h_ij = (h_i + h_j)/2
  KernelMeanSymmetric = 14, ///< every kernel quantity is ½[f(h_i) + f(h_j)]
  SuperSymmetric = 15,      ///< as KernelMeanSymmetric for kernel quantities
  PartialSymmetric = 16,    ///< h_ij = max(h_i, h_j)
};

namespace kernels {

/// True when the scheme averages two single-support evaluations instead of using one h_ij.
template <SupportScheme S>
inline constexpr bool averages_evaluations_v =
    S == SupportScheme::KernelMeanSymmetric || S == SupportScheme::SuperSymmetric;

/// The pair support h_ij of a scheme that uses one: Gather h_i, Scatter h_j, MeanSymmetric
/// (h_i + h_j)/2, otherwise max(h_i, h_j). Tangents follow the same rule; max takes h_i's on a
/// tie.
template <SupportScheme S, class A, class B>
SPHAD_HOST_DEVICE SPHAD_INLINE promote_t<A, B> pair_support(const A& h_i, const B& h_j) {
  using R = promote_t<A, B>;
  if constexpr (S == SupportScheme::Gather) {
    return R(h_i);
  } else if constexpr (S == SupportScheme::Scatter) {
    return R(h_j);
  } else if constexpr (S == SupportScheme::MeanSymmetric) {
    return (R(h_i) + R(h_j)) * primal_t<R>(0.5);
  } else {
    return sphad::max(h_i, h_j);
  }
}

/// Evaluates a single-support quantity `f(h)` for a pair under scheme S: ½[f(h_i) + f(h_j)]
/// for the averaging schemes (so every kernel quantity, its derivatives included, is the
/// derivative of the averaged W), f(h_ij) otherwise. The one place schemes are told apart.
template <SupportScheme S, class A, class B, class F>
SPHAD_HOST_DEVICE SPHAD_INLINE auto evaluate_pair(const A& h_i, const B& h_j, const F& f) {
  if constexpr (averages_evaluations_v<S>) {
    using R = promote_t<A, B>;
    return (f(R(h_i)) + f(R(h_j))) * primal_t<R>(0.5);
  } else {
    return f(pair_support<S>(h_i, h_j));
  }
}

/// A pair's supports as their reciprocals 1/h_i, 1/h_j and 1/h_ij (`InverseSupport`; the
/// host's pair blocks form them once per row or block); what the scheme does not read may be
/// left unset.
template <class T>
struct InverseSupports {
  T i, j, ij;
};

/// `evaluate_pair` with the supports as reciprocals: f(1/h_ij), or the mean of f(1/h_i) and
/// f(1/h_j) for the averaging schemes.
template <SupportScheme S, class T, class F>
SPHAD_HOST_DEVICE SPHAD_INLINE auto evaluate_pair(const InverseSupports<T>& s, const F& f) {
  if constexpr (averages_evaluations_v<S>) {
    return (f(InverseSupport<T>{s.i}) + f(InverseSupport<T>{s.j})) * primal_t<T>(0.5);
  } else {
    return f(InverseSupport<T>{s.ij});
  }
}

/// W_ij under scheme S; the supports h_i, h_j, or their reciprocals (`InverseSupports`).
template <class K, SupportScheme S, class T, int D, class... H>
SPHAD_HOST_DEVICE SPHAD_INLINE auto pair_value(const Vec<T, D>& x_ij, const H&... supports) {
  return evaluate_pair<S>(supports...,
                          [&](const auto& h) SPHAD_LAMBDA_INLINE { return value<K>(x_ij, h); });
}
/// ∇_i W_ij under scheme S; the supports h_i, h_j, or their reciprocals (`InverseSupports`).
template <class K, SupportScheme S, class T, int D, class... H>
SPHAD_HOST_DEVICE SPHAD_INLINE auto pair_gradient(const Vec<T, D>& x_ij, const H&... supports) {
  return evaluate_pair<S>(supports...,
                          [&](const auto& h) SPHAD_LAMBDA_INLINE { return gradient<K>(x_ij, h); });
}
/// The Hessian of W_ij with respect to x_i under scheme S.
template <class K, SupportScheme S, class T, int D, class A, class B>
SPHAD_HOST_DEVICE SPHAD_INLINE auto
pair_hessian(const Vec<T, D>& x_ij, const A& h_i, const B& h_j) {
  return evaluate_pair<S>(h_i, h_j,
                          [&](const auto& h) SPHAD_LAMBDA_INLINE { return hessian<K>(x_ij, h); });
}
/// The naive kernel Laplacian of W_ij under scheme S.
template <class K, SupportScheme S, class T, int D, class A, class B>
SPHAD_HOST_DEVICE SPHAD_INLINE auto
pair_laplacian(const Vec<T, D>& x_ij, const A& h_i, const B& h_j) {
  return evaluate_pair<S>(h_i, h_j,
                          [&](const auto& h) SPHAD_LAMBDA_INLINE { return laplacian<K>(x_ij, h); });
}

/// The adjoints of h_i and h_j.
template <class T>
struct SupportAdjoint {
  T h_i{};
  T h_j{};
};

/// h̄_i and h̄_j from h_ij's adjoint h̄ under a scheme S that uses one (the transpose of
/// `pair_support`): Gather h_i, Scatter h_j, MeanSymmetric half each, max the larger, h_i on a
/// tie (lane by lane on SIMD packs).
template <SupportScheme S, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE SupportAdjoint<T>
pair_support_adjoint(const T& h_i, const T& h_j, const T& hbar) {
  static_assert(!averages_evaluations_v<S>, "the averaging schemes use no h_ij");
  SupportAdjoint<T> out;
  if constexpr (S == SupportScheme::MeanSymmetric) {
    out.h_i = hbar * primal_t<T>(0.5);
    out.h_j = hbar * primal_t<T>(0.5);
  } else if constexpr (S == SupportScheme::Gather) {
    out.h_i = hbar;
  } else if constexpr (S == SupportScheme::Scatter) {
    out.h_j = hbar;
  } else {
    out.h_i = cut(value_of(h_i) >= value_of(h_j), hbar);
    out.h_j = cut(value_of(h_j) > value_of(h_i), hbar);
  }
  return out;
}

/// The adjoints of a pair quantity: its pair vector's and both supports'.
template <class T, int D>
struct PairAdjoint {
  Vec<T, D> x{};
  T h_i{};
  T h_j{};
};

/// No second linearization: the schemes that evaluate the kernel once (at h_ij).
struct NoSecondLinearization {};

/// W_ij and ∇_i W_ij under scheme S evaluated once with what their adjoints need, from the
/// single-support `KernelLinearization`s: the averaging schemes hold h_i's and h_j's, the
/// others h_ij's alone, whose h̄ goes where h_ij came from (`pair_support_adjoint`) — the
/// transpose of `evaluate_pair`'s tangents. Built in one expression, with no member left to
/// zero and overwrite: a struct filled by parts is copied with other widths than it was written
/// in under some targets' tuning (a 64-byte reload of 8- and 32-byte stores), and the reverse
/// sweep stalled on it (docs/performance.md).
template <SupportScheme S, class T, int D>
struct PairLinearization {
  KernelLinearization<T, D> first; ///< at h_ij, or at h_i for the averaging schemes
  /// At h_j for the averaging schemes (nothing for the others).
  std::conditional_t<averages_evaluations_v<S>, KernelLinearization<T, D>, NoSecondLinearization>
      second;
  T h_i, h_j;

  /// W_ij, bitwise as `pair_value` computes it for plain scalars.
  SPHAD_HOST_DEVICE SPHAD_INLINE T w() const {
    if constexpr (averages_evaluations_v<S>) {
      return (first.w + second.w) * primal_t<T>(0.5);
    } else {
      return first.w;
    }
  }
  /// ∇_i W_ij, bitwise as `pair_gradient` computes it for plain scalars.
  SPHAD_HOST_DEVICE SPHAD_INLINE Vec<T, D> gradient() const {
    if constexpr (averages_evaluations_v<S>) {
      return (first.grad + second.grad) * primal_t<T>(0.5);
    } else {
      return first.grad;
    }
  }
  /// r = |x_ij| where the pair is inside a support it is evaluated at, 0 outside all of them.
  SPHAD_HOST_DEVICE SPHAD_INLINE T distance() const {
    if constexpr (averages_evaluations_v<S>) {
      return select(value_of(first.r) > 0, first.r, second.r);
    } else {
      return first.r;
    }
  }
  /// The pair vector's adjoint x̄ alone for W_ij's cotangent, ∇W_ij's, or both.
  template <class... Cotangents>
  SPHAD_HOST_DEVICE SPHAD_INLINE Vec<T, D> position_adjoint(const Cotangents&... bars) const {
    if constexpr (averages_evaluations_v<S>) {
      return (first.adjoint(bars...).x + second.adjoint(bars...).x) * primal_t<T>(0.5);
    } else {
      return first.adjoint(bars...).x;
    }
  }
  /// The adjoints for W_ij's cotangent, ∇W_ij's, or both (`KernelLinearization::adjoint`).
  template <class... Cotangents>
  SPHAD_HOST_DEVICE SPHAD_INLINE PairAdjoint<T, D> adjoint(const Cotangents&... bars) const {
    const KernelAdjoint<T, D> a = first.adjoint(bars...);
    if constexpr (averages_evaluations_v<S>) {
      const KernelAdjoint<T, D> b = second.adjoint(bars...);
      return {(a.x + b.x) * primal_t<T>(0.5), a.h * primal_t<T>(0.5), b.h * primal_t<T>(0.5)};
    } else {
      const SupportAdjoint<T> h = pair_support_adjoint<S>(h_i, h_j, a.h);
      return {a.x, h.h_i, h.h_j};
    }
  }
};

/// W_ij and ∇_i W_ij of kernel K under scheme S, linearized (`PairLinearization`); the kernel
/// evaluated at the supports, or at their reciprocals where `inverse` is given.
template <class K, SupportScheme S, class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE PairLinearization<S, T, D>
pair_linearization(const Vec<T, D>& x_ij, const T& h_i, const T& h_j) {
  if constexpr (averages_evaluations_v<S>) {
    return {linearize<K>(x_ij, h_i), linearize<K>(x_ij, h_j), h_i, h_j};
  } else {
    return {linearize<K>(x_ij, pair_support<S>(h_i, h_j)), {}, h_i, h_j};
  }
}
template <class K, SupportScheme S, class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE PairLinearization<S, T, D> pair_linearization(
    const Vec<T, D>& x_ij, const T& h_i, const T& h_j, const InverseSupports<T>& inverse) {
  if constexpr (averages_evaluations_v<S>) {
    return {linearize<K>(x_ij, InverseSupport<T>{inverse.i}),
            linearize<K>(x_ij, InverseSupport<T>{inverse.j}), h_i, h_j};
  } else {
    return {linearize<K>(x_ij, InverseSupport<T>{inverse.ij}), {}, h_i, h_j};
  }
}

} // namespace kernels
} // namespace sphad
