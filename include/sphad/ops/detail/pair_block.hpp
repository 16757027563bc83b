// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/kernels/evaluate.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/kernels/wendland.hpp>
#include <sphad/math/pack.hpp>
#include <sphad/ops/corrections.hpp>
#include <sphad/ops/operator_concept.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

/// \file
/// \brief A row's sum in lanes (`LaneSums`: entry k of a row adds into lane k mod L, the lanes
/// meet in a fixed tree), and on the host the kernel of L pairs at once (`KernelPacks`): the
/// geometry, W_ij or ∇W_ij of a block of neighbours as SIMD lanes, no branch per pair.

namespace sphad::ops::detail {

/// The lanes of a row's sum for primal scalar P: on the host as many as one SIMD register holds
/// (16 bytes with SSE2 — two doubles, four floats —, 32 with AVX), 1 on the device (a thread's
/// pairs in order). Every host path — the blocks, the pair-at-a-time loop of the dual and
/// corrected calls, grid traversal — sums a row in the same lanes, so their results are the
/// same bits.
template <class P>
constexpr int row_lanes() {
#if SPHAD_DEVICE_PASS
  return 1;
#elif defined(__AVX__)
  return sizeof(P) == 4 ? 8 : 4;
#else
  return sizeof(P) == 4 ? 4 : 2;
#endif
}

/// A row's partial sums: entry k (counting every entry of the row, accepted or not) adds into
/// lane k mod L; `total` adds the lanes in a fixed tree.
template <class Out, int L>
struct LaneSums {
  Out lanes[L] = {};
  SPHAD_HOST_DEVICE SPHAD_INLINE void add(int lane, const Out& term) { lanes[lane] += term; }
  SPHAD_HOST_DEVICE SPHAD_INLINE Out total() const {
    static_assert(L == 1 || L == 2 || L == 4 || L == 8, "row lanes: 1, 2, 4 or 8");
    return pair_sum<0, L>(); // outputs offer += (CovarianceResult no +)
  }
  /// The sum of lanes [First, First + N) as a balanced tree.
  template <int First, int N>
  SPHAD_HOST_DEVICE SPHAD_INLINE Out pair_sum() const {
    if constexpr (N == 1) {
      return lanes[First];
    } else {
      Out left = pair_sum<First, N / 2>();
      left += pair_sum<First + N / 2, N / 2>();
      return left;
    }
  }
};

/// Calls f(std::integral_constant<int, l>{}) for l = 0, ..., L − 1: each lane's code with its
/// index a constant, so that per-lane arrays (the row's sums among them) stay in registers.
template <class F, int... Lanes>
SPHAD_HOST_DEVICE SPHAD_INLINE void each_lane_of(F&& f, std::integer_sequence<int, Lanes...>) {
  (f(std::integral_constant<int, Lanes>{}), ...);
}
template <int L, class F>
SPHAD_HOST_DEVICE SPHAD_INLINE void each_lane(F&& f) {
  each_lane_of(f, std::make_integer_sequence<int, L>{});
}

/// Whether kernel K's shape is one polynomial on [0, 1] (no branch in `k`, `dk_over_q`), so
/// that it evaluates on packs as written.
template <class K>
inline constexpr bool polynomial_shape_v =
    std::is_same_v<K, kernels::Wendland2> || std::is_same_v<K, kernels::Wendland4> ||
    std::is_same_v<K, kernels::Wendland6>;

/// Whether Op's combination is arithmetic alone (`static constexpr bool lanewise_combine =
/// true`): then the host evaluates it on packs, each lane the bits of the scalar evaluation.
template <class Op, class = void>
inline constexpr bool lanewise_combine_v = false;
template <class Op>
inline constexpr bool lanewise_combine_v<Op, std::void_t<decltype(Op::lanewise_combine)>> =
    Op::lanewise_combine;

/// The position directions a pair block carries: 0 for plain positions, N for `Dual<V, N>`
/// (one layer of tangents: a JVP), −1 for anything else (nested duals: not in blocks).
template <class X>
inline constexpr int position_tangents_v = std::is_floating_point_v<X> ? 0 : -1;
template <class V, int N>
inline constexpr int position_tangents_v<Dual<V, N>> = std::is_floating_point_v<V> ? N : -1;

/// Whether a call's pairs take the host's blocks: a list, a polynomial kernel, a kernel part
/// that is W_ij or ∇W_ij itself (no CRK, no renormalization), plain supports, masses, densities
/// and volumes, and positions plain or with one layer of tangents (`S`: the call's
/// `PairScalars`; the field may carry tangents of its own).
template <class Op, class Corr, class S, bool IsList>
constexpr bool takes_pair_blocks() {
#if SPHAD_HAS_PACKS
  using V = primal_t<typename S::scalar>;
  if constexpr (IsList && std::is_floating_point_v<V> && splits_term_v<Op> &&
                polynomial_shape_v<typename Op::kernel_type> &&
                position_tangents_v<typename S::position> >= 0 &&
                std::is_same_v<typename S::support, V> && std::is_same_v<typename S::mass, V> &&
                std::is_same_v<typename S::density, V> && std::is_same_v<typename S::volume, V>) {
    using CRK = std::remove_cv_t<decltype(Corr::crk)>;
    using Ren = std::remove_cv_t<decltype(Corr::renormalization)>;
    constexpr KernelPart part = kernel_part_v<Op>;
    return (part == KernelPart::value || part == KernelPart::corrected_value ||
            (part == KernelPart::corrected_gradient && std::is_same_v<Ren, NoRenormalization>)) &&
           std::is_same_v<CRK, NoCRK>;
  }
#endif
  return false;
}

#if SPHAD_HAS_PACKS
/// The packs of a pair block's combination: the scalar Out (or a `Vec` of them) as packs, and a
/// lane of them back.
template <class Out, class P>
struct PackedOutput {
  using type = void; // not packed: the block combines lane by lane
};
template <class P>
struct PackedOutput<typename P::scalar_type, P> {
  using type = P;
  SPHAD_INLINE static typename P::scalar_type lane(const P& v, int l) { return v[l]; }
};
template <class P, int D>
struct PackedOutput<Vec<typename P::scalar_type, D>, P> {
  using type = Vec<P, D>;
  SPHAD_INLINE static Vec<typename P::scalar_type, D> lane(const Vec<P, D>& v, int l) {
    Vec<typename P::scalar_type, D> out;
    for (int a = 0; a < D; ++a) {
      out[a] = v[a][l];
    }
    return out;
  }
};

/// A pack of kernel quantities with N position directions: the values and each direction's
/// tangents as packs, with `Dual`'s arithmetic — against packs without tangents too — each
/// operation formed as `Dual` forms it (the same bits, lane by lane), so that an operator's
/// lanewise combination takes it as it takes dual numbers.
template <class P, int N>
struct PackDual {
  P value;
  P tangent[N];

  /// f(tangent k of a, tangent k of b...) for each k, into a copy of `a`'s layout.
  template <class F>
  SPHAD_INLINE static PackDual with_tangents(P value, const F& f) {
    PackDual out;
    out.value = value;
    for (int k = 0; k < N; ++k) {
      out.tangent[k] = f(k);
    }
    return out;
  }
  SPHAD_INLINE friend PackDual operator-(const PackDual& a) {
    return with_tangents(-a.value, [&](int k) { return -a.tangent[k]; });
  }
  SPHAD_INLINE friend PackDual operator+(const PackDual& a, const PackDual& b) {
    return with_tangents(a.value + b.value, [&](int k) { return a.tangent[k] + b.tangent[k]; });
  }
  SPHAD_INLINE friend PackDual operator-(const PackDual& a, const PackDual& b) {
    return with_tangents(a.value - b.value, [&](int k) { return a.tangent[k] - b.tangent[k]; });
  }
  SPHAD_INLINE friend PackDual operator*(const PackDual& a, const PackDual& b) {
    return with_tangents(a.value * b.value,
                         [&](int k) { return a.tangent[k] * b.value + a.value * b.tangent[k]; });
  }
  SPHAD_INLINE friend PackDual operator/(const PackDual& a, const PackDual& b) {
    const P quotient = a.value / b.value, inverse = P(1) / b.value; // as `Dual::operator/=`
    return with_tangents(quotient,
                         [&](int k) { return (a.tangent[k] - quotient * b.tangent[k]) * inverse; });
  }
  // With a pack without tangents: + and − leave the tangents, * and / scale them.
  SPHAD_INLINE friend PackDual operator+(PackDual a, P s) {
    a.value = a.value + s;
    return a;
  }
  SPHAD_INLINE friend PackDual operator+(P s, const PackDual& a) { return a + s; }
  SPHAD_INLINE friend PackDual operator-(PackDual a, P s) {
    a.value = a.value - s;
    return a;
  }
  SPHAD_INLINE friend PackDual operator-(P s, const PackDual& a) { return -a + s; }
  SPHAD_INLINE friend PackDual operator*(const PackDual& a, P s) {
    return with_tangents(a.value * s, [&](int k) { return a.tangent[k] * s; });
  }
  SPHAD_INLINE friend PackDual operator*(P s, const PackDual& a) { return a * s; }
  SPHAD_INLINE friend PackDual operator/(const PackDual& a, P s) {
    return with_tangents(a.value / s, [&](int k) { return a.tangent[k] / s; });
  }
  SPHAD_INLINE friend PackDual operator/(P s, const PackDual& a) {
    const P value = s / a.value, factor = -value / a.value; // as `Dual`'s s / a
    return with_tangents(value, [&](int k) { return factor * a.tangent[k]; });
  }
  SPHAD_INLINE PackDual& operator+=(const PackDual& b) { return *this = *this + b; }

  /// Lane l as the scalar path's `Dual`.
  SPHAD_INLINE Dual<typename P::scalar_type, N> lane(int l) const {
    Dual<typename P::scalar_type, N> out;
    out.value = value[l];
    for (int k = 0; k < N; ++k) {
      out.tangent[k] = tangent[k][l];
    }
    return out;
  }
};

/// Tangent k of a position component with one layer of tangents (0 for a plain one).
template <class X>
SPHAD_INLINE primal_t<X> tangent_of(const X& x, int k) {
  if constexpr (is_dual_v<X>) {
    return x.tangent[k];
  } else {
    (void)x;
    (void)k;
    return primal_t<X>(0);
  }
}

/// The lanes of a packed term that `keep` holds, +0 (value and tangents) in the others.
template <class T, int W>
SPHAD_INLINE simd::Pack<T, W> keep_lanes(simd::PackMask<T, W> keep, simd::Pack<T, W> term) {
  return select(keep, term, simd::Pack<T, W>(T(0)));
}
template <class P, int N>
SPHAD_INLINE PackDual<P, N> keep_lanes(typename P::mask keep, PackDual<P, N> term) {
  term.value = keep_lanes(keep, term.value);
  for (int k = 0; k < N; ++k) {
    term.tangent[k] = keep_lanes(keep, term.tangent[k]);
  }
  return term;
}
template <class M, class X, int D>
SPHAD_INLINE Vec<X, D> keep_lanes(M keep, Vec<X, D> term) {
  for (int a = 0; a < D; ++a) {
    term[a] = keep_lanes(keep, term[a]);
  }
  return term;
}

/// Lane l of a kernel quantity's pack (plain or with tangents).
template <class P>
SPHAD_INLINE typename P::scalar_type lane_of(const P& v, int l) {
  return v[l];
}
template <class P, int N>
SPHAD_INLINE Dual<typename P::scalar_type, N> lane_of(const PackDual<P, N>& v, int l) {
  return v.lane(l);
}

/// A JVP's scalar (`Dual<V, N>`) and vector outputs as `PackDual`s.
template <class P, int N>
struct PackedOutput<Dual<typename P::scalar_type, N>, P> {
  using type = PackDual<P, N>;
  SPHAD_INLINE static Dual<typename P::scalar_type, N> lane(const type& v, int l) {
    return v.lane(l);
  }
};
template <class P, int N, int D>
struct PackedOutput<Vec<Dual<typename P::scalar_type, N>, D>, P> {
  using type = Vec<PackDual<P, N>, D>;
  SPHAD_INLINE static Vec<Dual<typename P::scalar_type, N>, D> lane(const type& v, int l) {
    Vec<Dual<typename P::scalar_type, N>, D> out;
    for (int a = 0; a < D; ++a) {
      out[a] = v[a].lane(l);
    }
    return out;
  }
};

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

} // namespace sphad::ops::detail
