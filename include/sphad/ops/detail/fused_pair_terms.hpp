// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/lanewise.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/ops/detail/scalars.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/pairloop/plan.hpp>
#include <sphad/scalar_traits.hpp>
#include <sphad/simd/pack.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

/// \file
/// \brief `FusedPairTerms`: the form of `ops::Fused` whose terms do not all share Ĝ_ij — one
/// whole pair term made of every term's own kernel part and combination (or whole term) of the
/// same pair, on the host's SIMD packs where each term can be, transposed by hand where each
/// term is.

namespace sphad::ops::detail {

/// Whether T is one of the host's SIMD packs.
template <class T>
inline constexpr bool is_pack_v = false;
#if SPHAD_HAS_PACKS
template <class T, int W>
inline constexpr bool is_pack_v<simd::Pack<T, W>> = true;
#endif

/// Whether term Op evaluates on the host's SIMD packs inside a fused whole term: a whole term or
/// a kernel part of its own written for packs (`lanewise_term`), or a kernel quantity or gradient
/// form with a combination of arithmetic alone (`lanewise_combine`).
template <class Op>
constexpr bool fused_on_packs() {
  if constexpr (splits_term_v<Op> && kernel_part_v<Op> != KernelPart::other) {
    return pairloop::lanewise_combine_v<Op> || pairloop::lanewise_term_v<Op>;
  } else {
    return pairloop::lanewise_term_v<Op>;
  }
}

/// Whether term Op is transposed by hand inside a fused whole term: its combination
/// (`transposed_combine_v`; the kernel part by the kernel's adjoints, or for a kernel part of its
/// own in dual numbers over x_ij alone) or its whole term (`transposed_term_v`).
template <class Op>
constexpr bool fused_transposed() {
  if constexpr (splits_term_v<Op>) {
    return transposed_combine_v<Op>;
  } else {
    return transposed_term_v<Op>;
  }
}

/// The cotangents a fused transpose gathers before the kernel's adjoint: Ĝ's (times the factor:
/// ∇W's), W's, and what the terms add to x̄_ij directly.
template <class T, int D>
struct KernelCotangents {
  Vec<T, D> gradient{};
  T value{};
  Vec<T, D> x{};
};

/// The pair terms `Slots...` (over `Common`, their `FusedSlots`) as one whole pair term:
///   term(p) = (term_1(p), …, term_n(p)) flattened,
/// term_k each slot's operator's kernel part and combination on its slice (or its whole term on
/// a pair with its slice). Written once, the pair's x_ij, r, W_ij and ∇W_ij are common
/// subexpressions of the terms. `term_adjoint` transposes it at plain scalars with the supports
/// and corrections untracked: the kernel linearized once (`kernels::pair_linearization`), each
/// term's transpose adding its Ĝ̄, W̄ or x̄, one adjoint of the kernel for all.
template <class Common, class... Slots>
struct FusedPairTerms : Common {
  /// Every term on the host's SIMD packs (`fused_on_packs`): L pairs' fused terms at once.
  static constexpr bool lanewise_term = (fused_on_packs<typename Slots::op>() && ...);
  /// Every term transposed by hand (`fused_transposed`).
  static constexpr bool transposed_term = (fused_transposed<typename Slots::op>() && ...);

  /// Each term of the pair, flattened in slot order.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto term(const P& p) {
    return concat_scalars(slot_term<Slots>(p)...);
  }

  /// `term` transposed (see the type); adds the particle inputs' adjoints into `pbar` and
  /// returns x̄_ij.
  template <class P, class Y, class PP>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto term_adjoint(const P& p, const Y& ybar, PP& pbar) {
    using T = typename P::scalar;
    constexpr int D = P::dim;
    const auto linear = kernels::pair_linearization<typename Common::kernel_type, Common::support>(
        sphad::detail::convert_scalars<Vec<T, D>>(p.x_ij), T(p.h_i), T(p.h_j));
    KernelCotangents<T, D> bars{};
    slot_adjoints(p, linear, ybar, pbar, bars, std::index_sequence_for<Slots...>{});
    return Vec<T, D>(linear.position_adjoint(bars.value * p.factor, bars.gradient * p.factor) +
                     bars.x);
  }

private:
  /// The pair with its field cut to the slot's slice (a whole term's view of its pair).
  template <class Slot,
            class Kernel,
            SupportScheme Support,
            int D,
            class S,
            class F,
            class Corrections>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto
  slice_pair(const Pair<Kernel, Support, D, S, F, Corrections>& p) {
    using FK = decltype(Slot::take(p.f_i));
    return Pair<Kernel, Support, D, S, FK, Corrections>{
        Common::template slice_of<Slot>(p.particles()),
        p.corrections,
        p.x_ij,
        p.h_i,
        p.h_j,
        p.factor};
  }

  /// Op's kernel part of the pair; a gradient form on packs as the host's blocks form it
  /// (`guarded_gradient_form`: its one-pair guard is a branch).
  template <class Op, class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part_of(const P& p) {
    using T = typename P::scalar;
    if constexpr (kernel_part_v<Op> == KernelPart::gradient_form && is_pack_v<T>) {
      constexpr int D = P::dim;
      return guarded_gradient_form<Op>(
          sphad::detail::convert_scalars<Vec<T, D>>(p.corrected_gradient()),
          sphad::detail::convert_scalars<Vec<T, D>>(p.x_ij), T(p.support()));
    } else {
      return Op::kernel_part(p);
    }
  }

  /// The slot's term of the pair.
  template <class Slot, class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto slot_term(const P& p) {
    using Op = typename Slot::op;
    if constexpr (splits_term_v<Op>) {
      return ops::combine<Op>(Common::template slice_of<Slot>(p.particles()),
                              kernel_part_of<Op>(p));
    } else {
      return Op::term(slice_pair<Slot>(p));
    }
  }

  template <class P, class L, class Y, class PP, class Bars, std::size_t... K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void slot_adjoints(
      const P& p, const L& linear, const Y& ybar, PP& pbar, Bars& bars, std::index_sequence<K...>) {
    (slot_adjoint<int(K)>(p, linear, ybar, pbar, bars), ...);
  }

  /// Term K's transpose for its part of ȳ: its particle inputs' adjoints added into `pbar`, its
  /// kernel part's cotangent into `bars`.
  template <int K, class P, class L, class Y, class PP, class Bars>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void
  slot_adjoint(const P& p, const L& linear, const Y& ybar, PP& pbar, Bars& bars) {
    using Slot = typename Common::template slot_t<K>;
    using Op = typename Slot::op;
    using T = typename P::scalar;
    constexpr int D = P::dim;
    const auto slice = Common::template slice_of<Slot>(p.particles());
    const auto ybar_k = Common::template part<K, D>(ybar);
    auto bar = zero_adjoint(slice);
    if constexpr (!splits_term_v<Op>) {
      bars.x += Op::term_adjoint(slice_pair<Slot>(p), ybar_k, bar);
    } else if constexpr (kernel_part_v<Op> == KernelPart::corrected_gradient) {
      const Vec<T, D> g = linear.gradient() * p.factor; // Ĝ = ∇W uncorrected
      bars.gradient += Op::combine_adjoint(slice, g, ybar_k, bar);
    } else if constexpr (kernel_part_v<Op> == KernelPart::value ||
                         kernel_part_v<Op> == KernelPart::corrected_value) {
      const T w = linear.w() * p.factor;
      bars.value += Op::combine_adjoint(slice, w, ybar_k, bar);
    } else if constexpr (kernel_part_v<Op> == KernelPart::gradient_form) {
      const auto form = gradient_form_linearization<Op>(
          sphad::detail::convert_scalars<Vec<T, D>>(p.x_ij), linear.distance(), T(p.support()),
          Vec<T, D>(linear.gradient() * p.factor));
      const T kbar = Op::combine_adjoint(slice, form.value, ybar_k, bar);
      bars.gradient += form.unit.gradient * kbar;
      bars.x += form.unit.x * kbar;
    } else {
      bars.x += other_part_adjoint<Op>(p, slice, ybar_k, bar);
    }
    Common::template add_slice_adjoint<Slot>(bar, pbar);
  }

  /// A kernel part of Op's own, differentiated in dual numbers over x_ij (the supports are
  /// untracked here), its combination by its transpose; returns x̄_ij.
  template <class Op,
            class Kernel,
            SupportScheme Support,
            int D,
            class S,
            class F,
            class Corrections,
            class Slice,
            class Y>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto
  other_part_adjoint(const Pair<Kernel, Support, D, S, F, Corrections>& p,
                     const Slice& slice,
                     const Y& ybar,
                     Slice& bar) {
    using T = typename S::scalar;
    using DT = Dual<T, D>;
    using DS = PairScalars<DT, typename S::support, typename S::mass, typename S::density,
                           typename S::volume, DT>;
    const auto x = sphad::detail::generate_vec<D>(
        [&](int e) SPHAD_LAMBDA_INLINE { return DT::variable(T(p.x_ij[e]), e); });
    const Pair<Kernel, Support, D, DS, F, Corrections> seeded{
        {p.i, p.j, p.m_j, p.rho_i, p.rho_j, p.volume_j, p.f_i, p.f_j},
        p.corrections,
        x,
        p.h_i,
        p.h_j,
        p.factor};
    const auto k = Op::kernel_part(seeded);
    using KD = std::decay_t<decltype(k)>;
    using KT = rebind_scalar_t<KD, T>;
    constexpr int n = scalar_count<KD>();
    DT flat[n];
    store_scalars(k, flat);
    T values[n];
    for (int c = 0; c < n; ++c) {
      values[c] = flat[c].value;
    }
    const KT kbar = Op::combine_adjoint(slice, load_scalars<KT>(values), ybar, bar);
    T kbar_flat[n];
    store_scalars(kbar, kbar_flat);
    Vec<T, D> xbar{};
    for (int c = 0; c < n; ++c) {
      for (int e = 0; e < D; ++e) {
        xbar[e] += kbar_flat[c] * flat[c].tangent[e];
      }
    }
    return xbar;
  }
};

} // namespace sphad::ops::detail
