// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/search/points.hpp>

#include <cstdint>

/// \file
/// \brief How corrections enter the operators (ref-operators.md §3.6, decisions C1, O4): CRK
/// corrects the kernel value and gradient, renormalization left-multiplies the gradient, grad-h
/// divides the field values. Each is a type; the `No*` types compile to nothing. The states are
/// views of per-particle arrays the caller (or the corrections layer) computed.

namespace sphad::ops {

/// No CRK: Ŵ = W, ∇Ŵ = ∇W.
struct NoCRK {
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto value(const P& p) const {
    return p.w();
  }
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto gradient(const P& p) const {
    return p.gradient();
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE static constexpr std::int64_t size() { return -1; }
};

/// CRK factors of the query particles (ref-corrections §2.4 with decision C1):
///   Ŵ_ij = A_i (1 + B_i·x_ij) W_ij,
///   ∇Ŵ_ij = A_i W_ij B_i + A_i (1 + B_i·x_ij) ∇W_ij + (1 + B_i·x_ij) W_ij ∇A_i
///           + A_i W_ij (∇B_i x_ij),
/// with ∇B stored derivative-first (∇B[γ][c] = ∂B_c/∂x_γ), so (∇B x)_γ = Σ_c ∇B[γ][c] x_c.
template <int D, class T>
struct CRK {
  Span<const T> a;                 ///< [Nq]
  Span<const Vec<T, D>> b;         ///< [Nq]
  Span<const Vec<T, D>> grad_a;    ///< [Nq]
  Span<const Mat<T, D, D>> grad_b; ///< [Nq], derivative axis first

  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE T value(const P& p) const {
    return a[p.i] * (T(1) + dot(b[p.i], p.x_ij)) * p.w();
  }
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE Vec<T, D> gradient(const P& p) const {
    const T w = p.w();
    const T a_i = a[p.i];
    const T linear = T(1) + dot(b[p.i], p.x_ij);
    return b[p.i] * (a_i * w) + p.gradient() * (a_i * linear) + grad_a[p.i] * (linear * w) +
           (grad_b[p.i] * p.x_ij) * (a_i * w);
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE std::int64_t size() const { return a.size; }
};

/// No renormalization.
struct NoRenormalization {
  template <class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE G apply(const G& g, std::int64_t) const {
    return g;
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE static constexpr std::int64_t size() { return -1; }
};

/// Gradient renormalization: Ĝ_ij ← L_i Ĝ_ij after CRK (ref-corrections §3.4), in Gradient,
/// Divergence, Curl, the non-Naive Laplacians and Covariance.
template <int D, class T>
struct Renormalization {
  Span<const Mat<T, D, D>> matrices; ///< L_i, [Nq]
  SPHAD_HOST_DEVICE SPHAD_INLINE Vec<T, D> apply(const Vec<T, D>& g, std::int64_t i) const {
    return matrices[i] * g;
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE std::int64_t size() const { return matrices.size; }
};

/// No grad-h terms.
struct NoGradH {
  template <class F>
  SPHAD_HOST_DEVICE SPHAD_INLINE F query(const F& f, std::int64_t) const {
    return f;
  }
  template <class F>
  SPHAD_HOST_DEVICE SPHAD_INLINE F reference(const F& f, std::int64_t) const {
    return f;
  }
};

/// Grad-h: Gradient, Divergence, Curl and Laplacian divide f_i by Ω_i and f_j by Ω_j
/// (decision O4; Interpolate, Density and Covariance ignore it).
template <class T>
struct GradH {
  Span<const T> query_omegas;     ///< [Nq]
  Span<const T> reference_omegas; ///< [Nr]
  template <class F>
  SPHAD_HOST_DEVICE SPHAD_INLINE F query(const F& f, std::int64_t i) const {
    return f / query_omegas[i];
  }
  template <class F>
  SPHAD_HOST_DEVICE SPHAD_INLINE F reference(const F& f, std::int64_t j) const {
    return f / reference_omegas[j];
  }
};

/// The corrections of one operator call, one type per correction.
template <class CRKType = NoCRK,
          class RenormalizationType = NoRenormalization,
          class GradHType = NoGradH>
struct Corrections {
  CRKType crk{};
  RenormalizationType renormalization{};
  GradHType grad_h{};
};

/// No corrections at all (the default).
using Uncorrected = Corrections<>;

} // namespace sphad::ops
