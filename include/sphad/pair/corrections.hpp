// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/search/points.hpp>

#include <cstdint>

/// \file
/// \brief How corrections enter the operators: CRK corrects the kernel value and gradient,
/// renormalization left-multiplies the gradient, grad-h divides the field values. Each is a type;
/// the `No*` types compile to nothing. The states are views of per-particle arrays the caller (or
/// the corrections layer) computed.

namespace sphad::ops {

/// No CRK: Ŵ = W, ∇Ŵ = ∇W.
struct NoCRK {
  using scalar_type = void; ///< no input
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

/// The adjoints of a CRK-corrected kernel quantity's inputs: the kernel's W and ∇W, the pair
/// vector (where it enters directly) and the query's A, B, ∇A, ∇B.
template <class T, int D>
struct CRKAdjoint {
  T w{};
  Vec<T, D> gradient{};
  Vec<T, D> x{};
  T a{};
  Vec<T, D> b{};
  Vec<T, D> grad_a{};
  Mat<T, D, D> grad_b{};
};

/// CRK factors of the query particles:
///   Ŵ_ij = A_i (1 + B_i·x_ij) W_ij,
///   ∇Ŵ_ij = A_i W_ij B_i + A_i (1 + B_i·x_ij) ∇W_ij + (1 + B_i·x_ij) W_ij ∇A_i
///           + A_i W_ij (∇B_i x_ij),
/// with ∇B stored derivative-first (∇B[γ][c] = ∂B_c/∂x_γ), so (∇B x)_γ = Σ_c ∇B[γ][c] x_c.
/// The four arrays are views (`Span` by default; `with_tangents` pairs them with tangent arrays).
template <int D,
          class T,
          class A = Span<const T>,
          class B = Span<const Vec<T, D>>,
          class GradA = Span<const Vec<T, D>>,
          class GradB = Span<const Mat<T, D, D>>>
struct CRK {
  using scalar_type =
      promote_all_t<view_scalar_t<A>, view_scalar_t<B>, view_scalar_t<GradA>, view_scalar_t<GradB>>;
  A a;          ///< [Nq]
  B b;          ///< [Nq]
  GradA grad_a; ///< [Nq]
  GradB grad_b; ///< [Nq], derivative axis first

  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto value(const P& p) const {
    return a[p.i] * (1 + dot(b[p.i], p.x_ij)) * p.w();
  }
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto gradient(const P& p) const {
    const auto w = p.w();
    const auto a_i = a[p.i];
    const auto b_i = b[p.i];
    const auto linear = 1 + dot(b_i, p.x_ij);
    return b_i * (a_i * w) + p.gradient() * (a_i * linear) + grad_a[p.i] * (linear * w) +
           (grad_b[p.i] * p.x_ij) * (a_i * w);
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE std::int64_t size() const { return a.size(); }

  /// `value`'s adjoint at query i, pair vector x and kernel value w for the cotangent v̄ (the
  /// reverse pass's hand-written transpose): w̄ = A ℓ v̄, Ā = ℓ w v̄, B̄ = A w v̄ x, x̄ = A w v̄ B
  /// with ℓ = 1 + B·x.
  template <class S>
  SPHAD_HOST_DEVICE SPHAD_INLINE CRKAdjoint<S, D>
  value_adjoint(std::int64_t i, const Vec<S, D>& x, const S& w, const S& vbar) const {
    using sphad::detail::convert_scalars;
    const S a_i = convert_scalars<S>(a[i]);
    const auto b_i = convert_scalars<Vec<S, D>>(b[i]);
    const S linear = 1 + dot(b_i, x);
    const S awv = a_i * w * vbar;
    CRKAdjoint<S, D> out;
    out.w = a_i * linear * vbar;
    out.a = linear * w * vbar;
    out.b = x * awv;
    out.x = b_i * awv;
    return out;
  }
  /// `gradient`'s adjoint at query i, pair vector x and kernel values w, ∇W for the cotangent
  /// Ḡ: with ℓ = 1 + B·x, u = Ḡ·B, v = Ḡ·∇W, s = Ḡ·∇A, t = Ḡ·(∇B x) and ℓ̄ = A v + w s:
  /// w̄ = A u + ℓ s + A t, ∇W̄ = A ℓ Ḡ, Ā = w u + ℓ v + w t, B̄ = A w Ḡ + ℓ̄ x, ∇Ā = ℓ w Ḡ,
  /// ∇B̄ = A w Ḡ xᵀ, x̄ = ℓ̄ B + A w ∇Bᵀ Ḡ.
  template <class S>
  SPHAD_HOST_DEVICE SPHAD_INLINE CRKAdjoint<S, D> gradient_adjoint(std::int64_t i,
                                                                   const Vec<S, D>& x,
                                                                   const S& w,
                                                                   const Vec<S, D>& grad,
                                                                   const Vec<S, D>& gbar) const {
    using sphad::detail::convert_scalars;
    const S a_i = convert_scalars<S>(a[i]);
    const auto b_i = convert_scalars<Vec<S, D>>(b[i]);
    const auto grad_a_i = convert_scalars<Vec<S, D>>(grad_a[i]);
    const auto grad_b_i = convert_scalars<Mat<S, D, D>>(grad_b[i]);
    const S linear = 1 + dot(b_i, x);
    const S u = dot(gbar, b_i), v = dot(gbar, grad), s = dot(gbar, grad_a_i),
            t = dot(gbar, grad_b_i * x);
    const S aw = a_i * w;
    const S linear_bar = a_i * v + w * s;
    CRKAdjoint<S, D> out;
    out.w = a_i * u + linear * s + a_i * t;
    out.gradient = gbar * (a_i * linear);
    out.a = w * u + linear * v + w * t;
    out.b = gbar * aw + x * linear_bar;
    out.grad_a = gbar * (linear * w);
    out.grad_b = outer(gbar, x) * aw;
    out.x = b_i * linear_bar + (transpose(grad_b_i) * gbar) * aw;
    return out;
  }

  /// This state with N tangent directions of A, B, ∇A and ∇B (each [N · Nq], direction-major).
  template <int N = 1>
  auto with_tangents(Span<const T> da,
                     Span<const Vec<T, D>> db,
                     Span<const Vec<T, D>> dgrad_a,
                     Span<const Mat<T, D, D>> dgrad_b) const {
    return CRK<D, T, DualView<T, N>, DualView<Vec<T, D>, N>, DualView<Vec<T, D>, N>,
               DualView<Mat<T, D, D>, N>>{sphad::with_tangents<N>(primal_view(a), da),
                                          sphad::with_tangents<N>(primal_view(b), db),
                                          sphad::with_tangents<N>(primal_view(grad_a), dgrad_a),
                                          sphad::with_tangents<N>(primal_view(grad_b), dgrad_b)};
  }
};

/// No renormalization.
struct NoRenormalization {
  using scalar_type = void;
  template <class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE G apply(const G& g, std::int64_t) const {
    return g;
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE static constexpr std::int64_t size() { return -1; }
};

/// Gradient renormalization: Ĝ_ij ← L_i Ĝ_ij after CRK, in Gradient,
/// Divergence, Curl, the non-Naive Laplacians and Covariance.
template <int D, class T, class Matrices = Span<const Mat<T, D, D>>>
struct Renormalization {
  using scalar_type = view_scalar_t<Matrices>;
  Matrices matrices; ///< L_i, [Nq]
  template <class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto apply(const G& g, std::int64_t i) const {
    return matrices[i] * g;
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE std::int64_t size() const { return matrices.size(); }

  /// `apply`'s adjoint at query i for the gradient g and the cotangent ḡ of L g: the
  /// gradient's Lᵀ ḡ and L's ḡ gᵀ.
  template <class S>
  struct Adjoint {
    Vec<S, D> gradient;
    Mat<S, D, D> matrix;
  };
  template <class S>
  SPHAD_HOST_DEVICE SPHAD_INLINE Adjoint<S>
  adjoint(std::int64_t i, const Vec<S, D>& g, const Vec<S, D>& gbar) const {
    const auto l = sphad::detail::convert_scalars<Mat<S, D, D>>(matrices[i]);
    return {transpose(l) * gbar, outer(gbar, g)};
  }

  /// This state with N tangent directions of L ([N · Nq], direction-major).
  template <int N = 1>
  auto with_tangents(Span<const Mat<T, D, D>> dmatrices) const {
    return Renormalization<D, T, DualView<Mat<T, D, D>, N>>{
        sphad::with_tangents<N>(primal_view(matrices), dmatrices)};
  }
};

/// No grad-h terms.
struct NoGradH {
  using scalar_type = void;
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
/// (Interpolate, Density and Covariance ignore it).
template <class T, class QueryOmegas = Span<const T>, class ReferenceOmegas = Span<const T>>
struct GradH {
  using scalar_type = promote_all_t<view_scalar_t<QueryOmegas>, view_scalar_t<ReferenceOmegas>>;
  QueryOmegas query_omegas;         ///< [Nq]
  ReferenceOmegas reference_omegas; ///< [Nr]
  template <class F>
  SPHAD_HOST_DEVICE SPHAD_INLINE F query(const F& f, std::int64_t i) const {
    return f / query_omegas[i];
  }
  template <class F>
  SPHAD_HOST_DEVICE SPHAD_INLINE F reference(const F& f, std::int64_t j) const {
    return f / reference_omegas[j];
  }

  /// This state with N tangent directions of the query and reference Ω ([N · Nq], [N · Nr]).
  template <int N = 1>
  auto with_tangents(Span<const T> dquery, Span<const T> dreference) const {
    return GradH<T, DualView<T, N>, DualView<T, N>>{
        sphad::with_tangents<N>(primal_view(query_omegas), dquery),
        sphad::with_tangents<N>(primal_view(reference_omegas), dreference)};
  }
};

/// The corrections of one operator call, one type per correction.
template <class CRKType = NoCRK,
          class RenormalizationType = NoRenormalization,
          class GradHType = NoGradH>
struct Corrections {
  /// The scalar the corrections bring into the pair terms (`void`: none).
  using scalar_type = promote_all_t<typename CRKType::scalar_type,
                                    typename RenormalizationType::scalar_type,
                                    typename GradHType::scalar_type>;
  CRKType crk{};
  RenormalizationType renormalization{};
  GradHType grad_h{};
};

/// `Corrections{crk}`, `Corrections{crk, renormalization}`, `Corrections{crk, renormalization,
/// grad_h}` deduce their types (pass `NoCRK{}` etc. for the ones left out).
template <class C>
Corrections(C) -> Corrections<C>;
template <class C, class R>
Corrections(C, R) -> Corrections<C, R>;
template <class C, class R, class G>
Corrections(C, R, G) -> Corrections<C, R, G>;

/// No corrections at all (the default).
using Uncorrected = Corrections<>;

namespace detail {
template <class T>
inline constexpr bool is_corrections_v = false;
template <class C, class R, class G>
inline constexpr bool is_corrections_v<Corrections<C, R, G>> = true;
} // namespace detail

} // namespace sphad::ops
