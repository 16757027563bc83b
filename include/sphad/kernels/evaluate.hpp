// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/ad/lanewise.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/kernels/kernel_traits.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/math/vec.hpp>

/// \file
/// \brief Single-support kernel evaluations: W, ∇W, the Hessian, the naive Laplacian, ∂W/∂h
/// and ∂∇W/∂h at a pair vector x = x_i − x_j and support radius h.
///
/// Every function takes plain or dual scalars (the result is `promote_t` of the position and
/// support types) and is exactly zero, value and tangents, for q = |x|/h ≥ 1 (at
/// q = 1 every shipped kernel is zero anyway, and the cut keeps the adhesion kernel's infinite
/// derivatives out). Gradients are written as g(q)·x with g = C_d k'(q)/(q h^(D+2)), whose
/// limit at q = 0 is C_d k''(0)/h^(D+2) for kernels with k'(0) = 0: so ∇W(0) = 0, the Hessian
/// at 0 is that limit times I, and the tangent of ∇W at coincident particles is the Hessian
/// applied to the tangent. The lattice calibration factor is not applied here; operators
/// multiply by it.
///
/// On the host the same functions evaluate W lanes at once: positions as `Vec`s of SIMD packs
/// (with a JVP's tangents, `Dual`s over packs) and the support given as its reciprocal
/// (`InverseSupport`); each lane has the bits of the scalar evaluation (the cut at the support
/// a lane select, <sphad/ad/lanewise.hpp>). A kernel takes this path when its shape functions
/// take packs as written (`lanewise_shape_v`).

namespace sphad::kernels {

/// A support given as its reciprocal 1/h (the host's pair blocks form a row's 1/h_i once, not
/// once per pair), in place of h; it carries no tangents.
template <class T>
struct InverseSupport {
  T value;
};

/// The scalar of a support argument: H itself, or the reciprocal's.
template <class H>
struct support_scalar {
  using type = H;
};
template <class T>
struct support_scalar<InverseSupport<T>> {
  using type = T;
};
template <class H>
using support_scalar_t = typename support_scalar<H>::type;

/// The scalar a kernel evaluation at a pair vector of `T`s and support `H` gives.
template <class T, class H>
using kernel_scalar_t = promote_t<T, support_scalar_t<H>>;

namespace detail {

/// r = |x|, 1/h and q = r/h (as r · 1/h: one division, which the kernel's powers of 1/h
/// share) in the promoted scalar type of a kernel evaluation.
template <class T, int D, class H>
struct PairGeometry {
  using scalar_type = promote_t<T, H>;
  scalar_type r;
  scalar_type q;
  scalar_type inv_h;
};

template <class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE PairGeometry<T, D, H> geometry(const Vec<T, D>& x, const H& h) {
  using R = promote_t<T, H>;
  const R r = safe_norm(x);
  const R inv_h = R(1) / R(h);
  return {r, r * inv_h, inv_h};
}
template <class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE PairGeometry<T, D, H> geometry(const Vec<T, D>& x,
                                                              const InverseSupport<H>& h) {
  using R = promote_t<T, H>;
  const R r = safe_norm(x);
  return {r, r * h.value, R(h.value)};
}

/// Whether the kernel contributes at q: inside the support, and not at a singular centre (a
/// `bool`, or a pack's mask).
template <class K, class R>
SPHAD_HOST_DEVICE SPHAD_INLINE auto inside(const R& q) {
  if constexpr (K::center == Center::singular) {
    return both(value_of(q) < 1, value_of(q) > 0);
  } else {
    return value_of(q) < 1;
  }
}

/// C_d in the primal type of R.
template <class K, int D, class R>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr primal_t<R> normalization() {
  return K::template normalization<D, primal_t<R>>();
}

/// Whether K has its own k'(q)/q (`K::dk_over_q<D>`, a polynomial: no division).
template <class K, class = void>
inline constexpr bool has_dk_over_q_v = false;
template <class K>
inline constexpr bool
    has_dk_over_q_v<K, std::void_t<decltype(K::template dk_over_q<1>(double(0)))>> = true;

/// k'(q)/q: K's own division-free polynomial where it has one (the Wendlands; k''(0) at 0), else
/// the quotient, continued at q = 0 by k''(0) (smooth centre) or 0 (cusp, by definition).
template <class K, int D, class R>
SPHAD_HOST_DEVICE SPHAD_INLINE R dk_over_q(const R& q) {
  if constexpr (has_dk_over_q_v<K>) {
    return K::template dk_over_q<D>(q);
  } else {
    const R at_zero =
        K::center == Center::smooth ? R(K::template d2k<D>(primal_t<R>(0))) : R(primal_t<R>(0));
    return when(
        value_of(q) > 0, [&] { return R(K::template dk<D>(q) / q); }, at_zero);
  }
}

/// Whether K has its own (k''(q) − k'(q)/q)/q² (`K::hessian_radial<D>`, a polynomial).
template <class K, class = void>
inline constexpr bool has_hessian_radial_v = false;
template <class K>
inline constexpr bool
    has_hessian_radial_v<K, std::void_t<decltype(K::template hessian_radial<1>(double(0)))>> = true;

/// (k''(q) − g)/r² with g = k'(q)/q and r = q h, given 1/h: the radial part of the Hessian
/// (times C_d/h^(D+2)) over r². K's own polynomial times 1/h² where it has one (Wendland4, 6:
/// no division), else the quotient; 0 at r = 0 (where x x̂ᵀ vanishes anyway).
template <class K, int D, class P>
SPHAD_HOST_DEVICE SPHAD_INLINE P
hessian_radial(const P& r, const P& q, const P& g, const P& inv_h) {
  if constexpr (has_hessian_radial_v<K>) {
    (void)r;
    (void)g;
    return K::template hessian_radial<D>(q) * (inv_h * inv_h);
  } else {
    (void)inv_h;
    return when(
        value_of(r) > 0, [&] { return P((K::template d2k<D>(q) - g) / (r * r)); },
        P(primal_t<P>(0)));
  }
}

/// The outer dual layer of a pair vector or support, split: its values and its tangent k;
/// `outer` says whether X carries the outer layer R at all (else X is already inner-typed and its
/// outer tangents are zero).
template <class R, class X>
inline constexpr bool outer_v = std::is_same_v<X, R>;

template <class R, class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE auto outer_values(const Vec<T, D>& x) {
  if constexpr (outer_v<R, T>) {
    return sphad::detail::generate_vec<D>([&](int c) { return x[c].value; });
  } else {
    return x;
  }
}
template <class R, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE auto outer_value(const H& h) {
  if constexpr (outer_v<R, H>) {
    return h.value;
  } else {
    return h;
  }
}
template <class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE auto outer_tangent(const Vec<T, D>& x, int k) {
  return sphad::detail::generate_vec<D>([&](int c) { return x[c].tangent[k]; });
}

} // namespace detail

// Declared ahead: the dual paths of `value` and `gradient` use them.
template <class K, class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE Vec<kernel_scalar_t<T, H>, D> gradient(const Vec<T, D>& x,
                                                                      const H& h);
template <class K, class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE Mat<promote_t<T, H>, D, D> hessian(const Vec<T, D>& x, const H& h);
template <class K, class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE promote_t<T, H> value_dh(const Vec<T, D>& x, const H& h);
template <class K, class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE Vec<promote_t<T, H>, D> gradient_dh(const Vec<T, D>& x, const H& h);

/// W(x, h) = C_d k(q) / h^D.
template <class K, class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE kernel_scalar_t<T, H> value(const Vec<T, D>& x, const H& h) {
  check_kernel<K, D>();
  using R = kernel_scalar_t<T, H>;
  if constexpr (is_dual_v<R>) {
    // First order by the chain rule around one evaluation of the layer below (cheaper than dual
    // arithmetic through k(q); inner layers differentiate that evaluation): the tangent is
    // ∇W·ẋ + ∂W/∂h ḣ, each term only for an input that carries the outer layer. ∇W·ẋ =
    // g (x·ẋ) with the gradient's scalar g, sharing r and q with W.
    const auto xv = detail::outer_values<R>(x);
    const auto hv = detail::outer_value<R>(h);
    const auto [r, q, inv_h] = detail::geometry(xv, hv);
    using P = std::decay_t<decltype(q)>;
    const auto in = detail::inside<K>(q);
    if (stops(in)) {
      return R(0);
    }
    const P c = detail::normalization<K, D, P>();
    R out(c * K::template k<D>(q) * ipow<D>(inv_h)); // the plain path's operations
    // ∇W = g x, and ∂W/∂h = −C_d/h^(D+1) (D k + q k') = −(D W + g r²)/h from the same q.
    const P g = c * detail::dk_over_q<K, D>(q) * ipow<D + 2>(inv_h);
    if constexpr (detail::outer_v<R, T>) {
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < R::tangent_count; ++k) {
        out.tangent[k] += g * dot(xv, detail::outer_tangent(x, k));
      }
    }
    if constexpr (detail::outer_v<R, H>) {
      const P dh = -(P(D) * out.value + g * (r * r)) * inv_h;
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < R::tangent_count; ++k) {
        out.tangent[k] += dh * h.tangent[k];
      }
    }
    return cut(in, out);
  } else {
    const auto [r, q, inv_h] = detail::geometry(x, h);
    (void)r;
    const auto in = detail::inside<K>(q);
    if (stops(in)) {
      return R(0);
    }
    return cut(in, R(detail::normalization<K, D, R>() * K::template k<D>(q) * ipow<D>(inv_h)));
  }
}

/// ∇W(x, h) with respect to x (that is, to x_i): C_d k'(q)/h^(D+1) x̂ = g(q) x.
template <class K, class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE Vec<kernel_scalar_t<T, H>, D> gradient(const Vec<T, D>& x,
                                                                      const H& h) {
  check_kernel<K, D>();
  using R = kernel_scalar_t<T, H>;
  if constexpr (is_dual_v<R>) {
    // The chain rule as in `value`: the tangent is H ẋ + ∂∇W/∂h ḣ, with H ẋ =
    // C/h^(D+2) [g ẋ + (k''(q) − g)(x·ẋ) x/r²], g = k'(q)/q (the Hessian; at r = 0 only g ẋ
    // remains: the finite limit at coincident particles).
    const auto xv = detail::outer_values<R>(x);
    const auto hv = detail::outer_value<R>(h);
    const auto [r, q, inv_h] = detail::geometry(xv, hv);
    using P = std::decay_t<decltype(q)>;
    const auto in = detail::inside<K>(q);
    if (stops(in)) {
      return Vec<R, D>{};
    }
    const P c = detail::normalization<K, D, P>();
    const P g = detail::dk_over_q<K, D>(q);
    const P scalar = c * g * ipow<D + 2>(inv_h); // the plain path's operations
    Vec<R, D> out{};
    SPHAD_PRAGMA_UNROLL
    for (int a = 0; a < D; ++a) {
      out[a] = R(xv[a] * scalar);
    }
    if constexpr (detail::outer_v<R, T>) {
      const P scale = c * ipow<D + 2>(inv_h);
      const P radial = detail::hessian_radial<K, D>(r, q, g, inv_h);
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < R::tangent_count; ++k) {
        const auto t = detail::outer_tangent(x, k);
        const P along = radial * dot(xv, t);
        SPHAD_PRAGMA_UNROLL
        for (int a = 0; a < D; ++a) {
          out[a].tangent[k] += scale * (g * t[a] + along * xv[a]);
        }
      }
    }
    if constexpr (detail::outer_v<R, H>) {
      // ∂∇W/∂h = −C_d/h^(D+3) (k''(q) + (D + 1) g) x, from the same q.
      const P d2k =
          value_of(r) > 0 || K::center == Center::smooth ? P(K::template d2k<D>(q)) : P(0);
      const P dh = -(c * ipow<D + 3>(inv_h)) * (d2k + P(D + 1) * g);
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < R::tangent_count; ++k) {
        SPHAD_PRAGMA_UNROLL
        for (int a = 0; a < D; ++a) {
          out[a].tangent[k] += dh * xv[a] * h.tangent[k];
        }
      }
    }
    return cut(in, out);
  } else {
    const auto [r, q, inv_h] = detail::geometry(x, h);
    (void)r;
    const auto in = detail::inside<K>(q);
    if (stops(in)) {
      return Vec<R, D>{};
    }
    const R g = detail::normalization<K, D, R>() * detail::dk_over_q<K, D>(q) * ipow<D + 2>(inv_h);
    return cut(in, Vec<R, D>(x * g));
  }
}

/// The Hessian ∂²W/∂x∂x = C_d/h^(D+2) [g I + (k''(q) − g) x̂ x̂ᵀ], g = k'(q)/q; exact (no ε) and
/// equal to C_d k''(0)/h^(D+2) I at x = 0 for kernels with k'(0) = 0, 0 for a cusp (by definition).
template <class K, class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE Mat<promote_t<T, H>, D, D> hessian(const Vec<T, D>& x, const H& h) {
  check_kernel<K, D>();
  using R = promote_t<T, H>;
  const auto [r, q, inv_h] = detail::geometry(x, h);
  if (!detail::inside<K>(q)) {
    return Mat<R, D, D>{};
  }
  const R scale = detail::normalization<K, D, R>() * ipow<D + 2>(inv_h);
  const R g = detail::dk_over_q<K, D>(q);
  const auto xr = sphad::detail::generate_vec<D>([&](int a) { return R(x[a]); });
  Mat<R, D, D> out = outer(xr, xr * detail::hessian_radial<K, D>(r, q, g, inv_h));
  for (int a = 0; a < D; ++a) {
    out(a, a) += g;
  }
  return out * scale;
}

/// The reference's naive kernel Laplacian, ε-regularized: with r_ε = r + εh,
/// ∇²W = s k₂ + t k₁, s = r²/r_ε², t = D/r_ε − r²/r_ε³, k₁ = C_d k'(q)/h^(D+1),
/// k₂ = C_d k''(q)/h^(D+2); zero for q < ε (so 0 at the self pair, not trace H(0)) and q ≥ 1.
/// Away from r = 0 it equals the trace of the Hessian to O(ε).
template <class K, class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE promote_t<T, H> laplacian(const Vec<T, D>& x, const H& h) {
  check_kernel<K, D>();
  using R = promote_t<T, H>;
  const auto [r, q, inv_h] = detail::geometry(x, h);
  constexpr primal_t<R> eps = kernel_epsilon_v<R>;
  if (!detail::inside<K>(q) || value_of(q) < eps) {
    return R(0);
  }
  const R c = detail::normalization<K, D, R>();
  const R k1 = c * K::template dk<D>(q) * ipow<D + 1>(inv_h);
  const R k2 = c * K::template d2k<D>(q) * ipow<D + 2>(inv_h);
  const R r_eps = r + eps * h;
  const R r2 = norm_squared(x);
  const R s = r2 / (r_eps * r_eps);
  const R t = D / r_eps - r2 / (r_eps * r_eps * r_eps);
  return s * k2 + t * k1;
}

/// ∂W/∂h = −C_d/h^(D+1) (D k(q) + q k'(q)).
template <class K, class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE promote_t<T, H> value_dh(const Vec<T, D>& x, const H& h) {
  check_kernel<K, D>();
  using R = promote_t<T, H>;
  const auto [r, q, inv_h] = detail::geometry(x, h);
  (void)r;
  if (!detail::inside<K>(q)) {
    return R(0);
  }
  return -detail::normalization<K, D, R>() * (D * K::template k<D>(q) + q * K::template dk<D>(q)) *
         ipow<D + 1>(inv_h);
}

/// ∂∇W/∂h = −C_d/h^(D+3) (k''(q) + (D + 1) k'(q)/q) x.
template <class K, class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE Vec<promote_t<T, H>, D> gradient_dh(const Vec<T, D>& x, const H& h) {
  check_kernel<K, D>();
  using R = promote_t<T, H>;
  const auto [r, q, inv_h] = detail::geometry(x, h);
  if (!detail::inside<K>(q)) {
    return Vec<R, D>{};
  }
  const R d2k = value_of(r) > 0 || K::center == Center::smooth ? R(K::template d2k<D>(q)) : R(0);
  const R g = -detail::normalization<K, D, R>() * (d2k + (D + 1) * detail::dk_over_q<K, D>(q)) *
              ipow<D + 3>(inv_h);
  return x * g;
}

/// The adjoints x̄, h̄ of a kernel quantity's pair vector and support for one cotangent.
template <class T, int D>
struct KernelAdjoint {
  Vec<T, D> x{};
  T h{};
};

/// W(x, h) and ∇W(x, h) evaluated once with what their adjoints need (the reverse pass's
/// kernel parts): ∇W = s g x and its Hessian H = s [g I + ρ x xᵀ] (s = C_d/h^(D+2), g =
/// k'(q)/q, ρ = (k''(q) − g)/r²), ∂W/∂h = −(D W + s g r²)/h and ∂∇W/∂h = −s/h (k''(q) +
/// (D + 1) g) x. All zero outside the support (r too); what a caller leaves unused the compiler
/// drops.
template <class T, int D>
struct KernelLinearization {
  T w{};            ///< W, bitwise as `value` computes it for plain scalars
  Vec<T, D> grad{}; ///< ∇W, bitwise as `gradient` computes it for plain scalars
  Vec<T, D> x{};
  T scale{};   ///< s
  T g{};       ///< g
  T radial{};  ///< ρ
  T w_dh{};    ///< ∂W/∂h
  T grad_dh{}; ///< −s/h (k''(q) + (D + 1) g)
  T r{};       ///< |x|, bitwise as `safe_norm` computes it

  /// x̄ = ∇W w̄, h̄ = ∂W/∂h w̄ for W's cotangent w̄.
  SPHAD_HOST_DEVICE SPHAD_INLINE KernelAdjoint<T, D> adjoint(const T& wbar) const {
    return {x * ((scale * g) * wbar), w_dh * wbar};
  }
  /// x̄ = H Ḡ, h̄ = ∂∇W/∂h · Ḡ for ∇W's cotangent Ḡ (at r = 0, x̄ = s k''(0) Ḡ: the finite limit).
  SPHAD_HOST_DEVICE SPHAD_INLINE KernelAdjoint<T, D> adjoint(const Vec<T, D>& gbar) const {
    const T along = dot(x, gbar);
    return {(gbar * g + x * (radial * along)) * scale, grad_dh * along};
  }
  /// Both: W's cotangent w̄ and ∇W's Ḡ.
  SPHAD_HOST_DEVICE SPHAD_INLINE KernelAdjoint<T, D> adjoint(const T& wbar,
                                                             const Vec<T, D>& gbar) const {
    const KernelAdjoint<T, D> a = adjoint(wbar), b = adjoint(gbar);
    return {a.x + b.x, a.h + b.h};
  }
};

/// K at (x, h), linearized: the formulas of `value`, `gradient` and their chain rules, kept for
/// the adjoints (the tests hold them to those, bitwise for W and ∇W). `h` is T, or its
/// reciprocal (`InverseSupport<T>`).
template <class K, class T, int D, class H>
SPHAD_HOST_DEVICE SPHAD_INLINE KernelLinearization<T, D> linearize(const Vec<T, D>& x, const H& h) {
  check_kernel<K, D>();
  static_assert(std::is_same_v<support_scalar_t<H>, T>, "the support in the positions' scalar");
  const auto geometry = detail::geometry(x, h);
  const T r = geometry.r, q = geometry.q, inv_h = geometry.inv_h; // (lambdas capture them)
  const auto in = detail::inside<K>(q);
  if (stops(in)) {
    return {};
  }
  const T c = detail::normalization<K, D, T>();
  const T w = c * K::template k<D>(q) * ipow<D>(inv_h);
  const T g = detail::dk_over_q<K, D>(q);
  const T grad_scalar = c * g * ipow<D + 2>(inv_h); // as `gradient` forms it
  const T d2k = K::center == Center::smooth
                    ? T(K::template d2k<D>(q))
                    : when(
                          value_of(r) > 0, [&] { return T(K::template d2k<D>(q)); }, T(0));
  const T scale = c * ipow<D + 2>(inv_h);
  return {cut(in, w),
          cut(in, Vec<T, D>(x * grad_scalar)),
          cut(in, x),
          cut(in, scale),
          cut(in, g),
          cut(in, detail::hessian_radial<K, D>(r, q, g, inv_h)),
          cut(in, T(-(T(D) * w + grad_scalar * (r * r)) * inv_h)),
          cut(in, T(-(scale * inv_h) * (d2k + T(D + 1) * g))),
          cut(in, r)};
}

} // namespace sphad::kernels
