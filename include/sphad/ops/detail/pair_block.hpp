// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

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

/// Whether a call's pairs take the host's blocks: a list, plain scalars, a polynomial kernel,
/// and a kernel part that is W_ij or ∇W_ij itself (no CRK, no renormalization).
template <class Op, class Corr, class T, bool IsList>
constexpr bool takes_pair_blocks() {
#if SPHAD_HAS_PACKS
  if constexpr (IsList && std::is_floating_point_v<T> && splits_term_v<Op> &&
                polynomial_shape_v<typename Op::kernel_type>) {
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
  SPHAD_INLINE static P value(const P (&x)[D], P inv_h_i, P inv_h_j, P inv_h_ij, P factor) {
    if constexpr (kernels::averages_evaluations_v<S>) {
      (void)inv_h_ij;
      return (KP::value(x, inv_h_i) + KP::value(x, inv_h_j)) * P(T(0.5)) * factor;
    } else {
      (void)inv_h_i;
      (void)inv_h_j;
      return KP::value(x, inv_h_ij) * factor;
    }
  }
  SPHAD_INLINE static void
  gradient(const P (&x)[D], P inv_h_i, P inv_h_j, P inv_h_ij, P factor, P (&out)[D]) {
    if constexpr (kernels::averages_evaluations_v<S>) {
      (void)inv_h_ij;
      P a[D], b[D];
      KP::gradient(x, inv_h_i, a);
      KP::gradient(x, inv_h_j, b);
      for (int d = 0; d < D; ++d) {
        out[d] = (a[d] + b[d]) * P(T(0.5)) * factor;
      }
    } else {
      (void)inv_h_i;
      (void)inv_h_j;
      KP::gradient(x, inv_h_ij, out);
      for (int d = 0; d < D; ++d) {
        out[d] = out[d] * factor;
      }
    }
  }
};
#endif

} // namespace sphad::ops::detail
