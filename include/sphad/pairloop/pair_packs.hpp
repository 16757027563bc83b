// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/kernels/evaluate.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/pairloop/pack_dual.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/simd/pack.hpp>

/// \file
/// \brief The kernel of L pairs at once on the host: `KernelPacks` (W, ∇W, their tangents and
/// linearizations of kernel K on SIMD packs, the operations of the scalar kernels lane by lane,
/// no branch per pair) and `PairPacks` (the kernel part of a support scheme: at h_ij, or the mean
/// of the evaluations at h_i and h_j).

namespace sphad::pairloop {

#if SPHAD_HAS_PACKS
/// Kernel K in dimension D on a pack of pairs: the operations of `kernels::value` and
/// `kernels::gradient` for plain scalars, lane by lane (the same bits), with `select` where
/// they branch (outside the support: exactly 0).
template <class K, int D, class T, int W>
struct KernelPacks {
  using P = simd::Pack<T, W>;
  using M = simd::PackMask<T, W>;

  /// r, 1/h and q = r/h as `kernels::detail::geometry` forms them.
  struct Geometry {
    P r, q, inv_h;
  };
  SPHAD_INLINE static Geometry geometry(const P (&x)[D], P inv_h) {
    P r2 = x[0] * x[0];
    for (int a = 1; a < D; ++a) {
      r2 += x[a] * x[a];
    }
    const P r = simd::sqrt(r2); // r2 ≥ 0 and finite here: `safe_sqrt`'s bits without its test
    return {r, r * inv_h, inv_h};
  }
  SPHAD_INLINE static M inside(P q) {
    if constexpr (K::center == kernels::Center::singular) {
      return (q < P(T(1))) & (q > P(T(0)));
    } else {
      return q < P(T(1));
    }
  }
  /// W at each lane's x and support (given as 1/h, which `geometry` forms as 1/h too).
  SPHAD_INLINE static P value(const P (&x)[D], P inv_h) {
    const Geometry g = geometry(x, inv_h);
    const P w = P(K::template normalization<D, T>()) * K::template k<D>(g.q) * ipow<D>(g.inv_h);
    return select(inside(g.q), w, P(T(0)));
  }
  /// ∇W at each lane's x and support (given as 1/h), into `out`.
  SPHAD_INLINE static void gradient(const P (&x)[D], P inv_h, P (&out)[D]) {
    const Geometry g = geometry(x, inv_h);
    const P s =
        P(K::template normalization<D, T>()) * K::template dk_over_q<D>(g.q) * ipow<D + 2>(g.inv_h);
    const M in = inside(g.q);
    for (int a = 0; a < D; ++a) {
      out[a] = select(in, x[a] * s, P(T(0)));
    }
  }

  /// (k''(q) − g)/r² (times 1/h² from K's polynomial where it has one), as
  /// `kernels::detail::hessian_radial` forms it: 0 at r = 0.
  SPHAD_INLINE static P hessian_radial(const Geometry& g, P dk_over_q) {
    if constexpr (kernels::detail::has_hessian_radial_v<K>) {
      (void)dk_over_q;
      return K::template hessian_radial<D>(g.q) * (g.inv_h * g.inv_h);
    } else {
      return select(g.r > P(T(0)), (K::template d2k<D>(g.q) - dk_over_q) / (g.r * g.r), P(T(0)));
    }
  }

  /// `kernels::KernelLinearization` of L pairs: each member a pack, lane l the bits
  /// `kernels::linearize` gives pair l (every member 0 outside the support).
  struct Linearization {
    P w, grad[D], x[D], scale, g, radial, w_dh, grad_dh, r;
    SPHAD_INLINE kernels::KernelLinearization<T, D> lane(int l) const {
      kernels::KernelLinearization<T, D> out;
      out.w = w[l];
      for (int a = 0; a < D; ++a) {
        out.grad[a] = grad[a][l];
        out.x[a] = x[a][l];
      }
      out.scale = scale[l];
      out.g = g[l];
      out.radial = radial[l];
      out.w_dh = w_dh[l];
      out.grad_dh = grad_dh[l];
      out.r = r[l];
      return out;
    }
    /// Every lane at once: the scalar linearization's formulas (its `adjoint`) on packs.
    SPHAD_INLINE kernels::KernelLinearization<P, D> packed() const {
      kernels::KernelLinearization<P, D> out;
      out.w = w;
      for (int a = 0; a < D; ++a) {
        out.grad[a] = grad[a];
        out.x[a] = x[a];
      }
      out.scale = scale;
      out.g = g;
      out.radial = radial;
      out.w_dh = w_dh;
      out.grad_dh = grad_dh;
      out.r = r;
      return out;
    }
  };
  /// K at each lane's x and support (given as 1/h), linearized as `kernels::linearize` does.
  SPHAD_INLINE static Linearization linearize(const P (&x)[D], P inv_h) {
    const Geometry ge = geometry(x, inv_h);
    const M in = inside(ge.q);
    const P zero(T(0));
    const P c(K::template normalization<D, T>());
    const P w = c * K::template k<D>(ge.q) * ipow<D>(ge.inv_h);
    const P g = K::template dk_over_q<D>(ge.q);
    const P grad_scalar = c * g * ipow<D + 2>(ge.inv_h);
    P d2k = K::template d2k<D>(ge.q);
    if constexpr (K::center != kernels::Center::smooth) {
      d2k = select(ge.r > zero, d2k, zero);
    }
    const P scale = c * ipow<D + 2>(ge.inv_h);
    Linearization out;
    out.w = select(in, w, zero);
    for (int a = 0; a < D; ++a) {
      out.grad[a] = select(in, x[a] * grad_scalar, zero);
      out.x[a] = select(in, x[a], zero);
    }
    out.scale = select(in, scale, zero);
    out.g = select(in, g, zero);
    out.radial = select(in, hessian_radial(ge, g), zero);
    const P dimension = P(T(D)), dimension_plus_one = P(T(D + 1));
    out.w_dh = select(in, -(dimension * w + grad_scalar * (ge.r * ge.r)) * ge.inv_h, zero);
    out.grad_dh = select(in, -(scale * ge.inv_h) * (d2k + dimension_plus_one * g), zero);
    out.r = select(in, ge.r, zero);
    return out;
  }

  /// a · b, summed as `dot` sums.
  SPHAD_INLINE static P dot(const P (&a)[D], const P (&b)[D]) {
    P sum = a[0] * b[0];
    for (int c = 1; c < D; ++c) {
      sum += a[c] * b[c];
    }
    return sum;
  }
  /// W and its tangents along the pair vector's N directions `t` (the chain rule of
  /// `kernels::value` for dual positions: ∇W·ẋ = g (x·ẋ), g the gradient's scalar).
  template <int N>
  SPHAD_INLINE static PackDual<P, N> value(const P (&x)[D], const P (&t)[N][D], P inv_h) {
    const Geometry g = geometry(x, inv_h);
    const P c(K::template normalization<D, T>());
    const M in = inside(g.q);
    const P s = c * K::template dk_over_q<D>(g.q) * ipow<D + 2>(g.inv_h);
    PackDual<P, N> out;
    out.value = select(in, c * K::template k<D>(g.q) * ipow<D>(g.inv_h), P(T(0)));
    for (int k = 0; k < N; ++k) {
      out.tangent[k] = select(in, P(T(0)) + s * dot(x, t[k]), P(T(0)));
    }
    return out;
  }
  /// ∇W and its tangents along the pair vector's N directions `t` (the Hessian applied, as
  /// `kernels::gradient` forms it for dual positions), into `out`.
  template <int N>
  SPHAD_INLINE static void
  gradient(const P (&x)[D], const P (&t)[N][D], P inv_h, PackDual<P, N> (&out)[D]) {
    const Geometry g = geometry(x, inv_h);
    const P c(K::template normalization<D, T>());
    const M in = inside(g.q);
    const P dk = K::template dk_over_q<D>(g.q);
    const P s = c * dk * ipow<D + 2>(g.inv_h);
    const P scale = c * ipow<D + 2>(g.inv_h);
    const P radial = hessian_radial(g, dk);
    for (int a = 0; a < D; ++a) {
      out[a].value = select(in, x[a] * s, P(T(0)));
    }
    for (int k = 0; k < N; ++k) {
      const P along = radial * dot(x, t[k]);
      for (int a = 0; a < D; ++a) {
        out[a].tangent[k] = select(in, P(T(0)) + scale * (dk * t[k][a] + along * x[a]), P(T(0)));
      }
    }
  }
};

/// The kernel part of W pairs under support scheme S (W_ij, or ∇W_ij into `out`), times the
/// calibration `factor` (broadcast), as `Pair::w()` and `Pair::gradient()` form them: one
/// evaluation at the pair support h_ij, or the mean of the evaluations at h_i and h_j for the
/// averaging schemes. The supports come as their reciprocals (1/h, as the scalar path forms them:
/// the same bits), so that a row's own 1/h_i is one division, not one per pair.
template <class K, SupportScheme S, int D, class T, int W>
struct PairPacks {
  using KP = KernelPacks<K, D, T, W>;
  using P = simd::Pack<T, W>;
  /// W_ij (a `PackDual` when the pair vector's tangents `t` are given).
  template <class... Tangents>
  SPHAD_INLINE static auto
  value(const P (&x)[D], P inv_h_i, P inv_h_j, P inv_h_ij, P factor, const Tangents&... t) {
    if constexpr (kernels::averages_evaluations_v<S>) {
      (void)inv_h_ij;
      return (KP::value(x, t..., inv_h_i) + KP::value(x, t..., inv_h_j)) * P(T(0.5)) * factor;
    } else {
      (void)inv_h_i;
      (void)inv_h_j;
      return KP::value(x, t..., inv_h_ij) * factor;
    }
  }
  /// The kernel linearizations of `kernels::pair_linearization`: at h_ij, or at h_i and h_j
  /// for the averaging schemes (`lane` assembles pair l's, given its supports).
  struct Linearization {
    typename KP::Linearization first;
    std::conditional_t<kernels::averages_evaluations_v<S>,
                       typename KP::Linearization,
                       kernels::NoSecondLinearization>
        second;
    SPHAD_INLINE kernels::PairLinearization<S, T, D> lane(int l, T h_i, T h_j) const {
      if constexpr (kernels::averages_evaluations_v<S>) {
        return {first.lane(l), second.lane(l), h_i, h_j};
      } else {
        return {first.lane(l), {}, h_i, h_j};
      }
    }
  };
  /// W_ij, ∇W_ij and the pair vector's adjoint x̄ for W_ij's or ∇W_ij's cotangent, every lane
  /// as `kernels::PairLinearization` forms its pair's.
  SPHAD_INLINE static P w(const Linearization& l) {
    if constexpr (kernels::averages_evaluations_v<S>) {
      return (l.first.w + l.second.w) * P(T(0.5));
    } else {
      return l.first.w;
    }
  }
  SPHAD_INLINE static Vec<P, D> gradient(const Linearization& l) {
    Vec<P, D> out;
    for (int a = 0; a < D; ++a) {
      if constexpr (kernels::averages_evaluations_v<S>) {
        out[a] = (l.first.grad[a] + l.second.grad[a]) * P(T(0.5));
      } else {
        out[a] = l.first.grad[a];
      }
    }
    return out;
  }
  /// |x_ij| as `kernels::PairLinearization::distance` gives it (0 outside the support).
  SPHAD_INLINE static P distance(const Linearization& l) {
    if constexpr (kernels::averages_evaluations_v<S>) {
      return select(l.first.r > P(T(0)), l.first.r, l.second.r);
    } else {
      return l.first.r;
    }
  }
  template <class Bar>
  SPHAD_INLINE static Vec<P, D> position_adjoint(const Linearization& l, const Bar& bar) {
    if constexpr (kernels::averages_evaluations_v<S>) {
      return (l.first.packed().adjoint(bar).x + l.second.packed().adjoint(bar).x) * P(T(0.5));
    } else {
      return l.first.packed().adjoint(bar).x;
    }
  }
  SPHAD_INLINE static Linearization linearize(const P (&x)[D], P inv_h_i, P inv_h_j, P inv_h_ij) {
    if constexpr (kernels::averages_evaluations_v<S>) {
      (void)inv_h_ij;
      return {KP::linearize(x, inv_h_i), KP::linearize(x, inv_h_j)};
    } else {
      (void)inv_h_i;
      (void)inv_h_j;
      return {KP::linearize(x, inv_h_ij), {}};
    }
  }

  /// ∇W_ij into `out` (`PackDual`s when the pair vector's tangents `t` are given).
  template <class G, class... Tangents>
  SPHAD_INLINE static void gradient(const P (&x)[D],
                                    P inv_h_i,
                                    P inv_h_j,
                                    P inv_h_ij,
                                    P factor,
                                    G (&out)[D],
                                    const Tangents&... t) {
    if constexpr (kernels::averages_evaluations_v<S>) {
      (void)inv_h_ij;
      G a[D], b[D];
      KP::gradient(x, t..., inv_h_i, a);
      KP::gradient(x, t..., inv_h_j, b);
      for (int d = 0; d < D; ++d) {
        out[d] = (a[d] + b[d]) * P(T(0.5)) * factor;
      }
    } else {
      (void)inv_h_i;
      (void)inv_h_j;
      KP::gradient(x, t..., inv_h_ij, out);
      for (int d = 0; d < D; ++d) {
        out[d] = out[d] * factor;
      }
    }
  }
};
#endif

} // namespace sphad::pairloop
