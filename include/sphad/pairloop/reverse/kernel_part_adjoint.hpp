// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pairloop/reverse/direction_layout.hpp>
#include <sphad/pairloop/reverse/leaf_algebra.hpp>
#include <sphad/pairloop/vocabulary.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

/// \file
/// \brief `KernelPartAdjoint`: the reverse pass's hand-written adjoint of a kernel part that is
/// a kernel quantity or a gradient form, in plain scalars instead of dual numbers.

namespace sphad::pairloop {

/// The kernel part of a pair when it is a kernel quantity (W_ij, Ŵ_ij, Ĝ_ij: `KernelQuantity`)
/// or a form around Ĝ_ij with its own transpose (`KernelPart::gradient_form`), differentiated by
/// hand instead of in dual numbers: the kernel's W_ij and ∇W_ij linearized once
/// (`kernels::pair_linearization`), then the form, renormalization and CRK transposed by their
/// own adjoints (`ops::gradient_form_linearization`, `Renormalization::adjoint`,
/// `CRK::gradient_adjoint`).
/// Its directions are the pass's kernel directions as `Directions` orders them: x_ij; the query's
/// support, CRK's A, B, ∇A, ∇B and renormalization's L (each where a `Variable`, as `Corr` has
/// them); the reference's support.
template <class Op, class Dirs, class Corr, class S>
struct KernelPartAdjoint {
  using CRKType = decltype(Corr::crk);
  using RenormalizationType = decltype(Corr::renormalization);
  using Layout = CRKLeaves<CRKType>;
  static constexpr bool has_crk = !std::is_same_v<CRKType, NoCRK>;
  static constexpr bool has_renormalization =
      !std::is_same_v<RenormalizationType, NoRenormalization>;
  /// The directions CRK's and renormalization's query-side arrays take (constants here, so
  /// that device code never calls the host-side counting functions).
  static constexpr int crk_leaves = query_side_leaves(static_cast<const CRKType*>(nullptr));
  static constexpr int renormalization_leaves =
      query_side_leaves(static_cast<const RenormalizationType*>(nullptr));
  static constexpr int crk_at =
      Dirs::position + Dirs::kernel_query - crk_leaves - renormalization_leaves;
  static constexpr int support_leaves = crk_at - Dirs::position;
  static_assert(support_leaves <= 1 && Dirs::kernel_reference <= 1, "one support per side");
  /// The same adjoint in scalar S2 (the host's SIMD packs: `SplitTermDirections::block_directions`
  /// gives a block's directions by this chain rule).
  template <class S2>
  using with_scalar = KernelPartAdjoint<Op, Dirs, Corr, S2>;

  /// The pair as the kernel part reads it, in S, its kernel linearized: the operator's own
  /// `kernel_part` evaluates on it (W, Ĝ, the support through the pair's own rules).
  template <class Pair>
  struct Linear {
    using scalar = S;
    using K = typename Op::kernel_type;
    static constexpr int D = decltype(Pair::x_ij)::dim;
    static constexpr SupportScheme support_scheme = Pair::support_scheme;
    std::int64_t i;
    Vec<S, D> x_ij;
    kernels::PairLinearization<Op::support, S, D> kernel; ///< holds h_i and h_j too
    primal_t<S> factor;
    const std::remove_reference_t<decltype(std::declval<const Pair&>().corrections)>& corrections;
    SPHAD_HOST_DEVICE SPHAD_INLINE S w() const { return kernel.w() * factor; }
    SPHAD_HOST_DEVICE SPHAD_INLINE Vec<S, D> gradient() const { return kernel.gradient() * factor; }
    SPHAD_HOST_DEVICE SPHAD_INLINE auto corrected_value() const {
      return corrections.crk.value(*this);
    }
    SPHAD_HOST_DEVICE SPHAD_INLINE auto corrected_gradient() const {
      return corrections.renormalization.apply(corrections.crk.gradient(*this), i);
    }
    SPHAD_HOST_DEVICE SPHAD_INLINE S support() const {
      return kernels::pair_support<Pair::support_scheme>(kernel.h_i, kernel.h_j);
    }
  };
  template <class Pair>
  SPHAD_HOST_DEVICE SPHAD_INLINE static Linear<Pair> linearize(const Pair& p) {
    using L = Linear<Pair>;
    const auto x = sphad::detail::convert_scalars<Vec<S, L::D>>(p.x_ij);
    return {p.i, x, kernels::pair_linearization<typename L::K, Op::support>(x, S(p.h_i), S(p.h_j)),
            p.factor, p.corrections};
  }

  /// A kernel part's value.
  template <class V>
  struct Value {
    V value;
  };
  /// The kernel part of the linearized pair: its `value` and, for a gradient form, the
  /// linearization its adjoint reuses (the distance from the kernel's: no second square root).
  template <class L>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto part(const L& linear) {
    if constexpr (kernel_part_v<Op> == KernelPart::gradient_form) {
      return ops::gradient_form_linearization<Op>(linear.x_ij, linear.kernel.distance(),
                                                  linear.support(), linear.corrected_gradient());
    } else {
      return Value<decltype(Op::kernel_part(linear))>{Op::kernel_part(linear)};
    }
  }

  /// What a kernel part adds to the kernel's adjoints directly (a correction or a form reading
  /// x_ij or the supports themselves).
  template <int D>
  struct Direct {
    Vec<S, D> x{};
    S h_i{};
    S h_j{};
  };

  /// g[0, Dirs::kernel): the kernel part's directions for its cotangent `bar` (shaped like it;
  /// `part`: what `part` returned).
  template <class L, class Part, class Bar>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void
  directions(S* g, const L& linear, const Part& part, const Bar& bar) {
    SPHAD_PRAGMA_UNROLL
    for (int k = 0; k < Dirs::kernel; ++k) {
      g[k] = S(0); // a correction state the kernel part does not read (Density's CRK)
    }
    if constexpr (kernel_part_v<Op> == KernelPart::corrected_gradient) {
      gradient_directions(g, linear, bar, nullptr);
    } else if constexpr (kernel_part_v<Op> == KernelPart::gradient_form) {
      const auto form = part.unit.times(bar);
      const auto h = kernels::pair_support_adjoint<L::support_scheme>(
          linear.kernel.h_i, linear.kernel.h_j, form.support);
      gradient_directions(g, linear, form.gradient, Direct<L::D>{form.x, h.h_i, h.h_j});
    } else if constexpr (kernel_part_v<Op> == KernelPart::corrected_value && has_crk) {
      const auto crk = linear.corrections.crk.value_adjoint(linear.i, linear.x_ij, linear.w(), bar);
      put_crk(g, crk);
      put_kernel(g, linear, Direct<L::D>{crk.x}, crk.w * linear.factor);
    } else {
      put_kernel(g, linear, nullptr, bar * linear.factor);
    }
  }

  /// The directions of Ĝ_ij for its cotangent `gbar`, plus `direct`'s (a `Direct`, or
  /// nullptr for none).
  template <class L, class Extra>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void
  gradient_directions(S* g, const L& linear, Vec<S, L::D> gbar, const Extra& direct) {
    const auto& corrections = linear.corrections;
    if constexpr (has_renormalization) {
      const auto adjoint =
          corrections.renormalization.adjoint(linear.i, corrections.crk.gradient(linear), gbar);
      put_leaves<renormalization_leaves>(g, crk_at + crk_leaves, adjoint.matrix);
      gbar = adjoint.gradient;
    }
    if constexpr (has_crk) {
      const auto crk = corrections.crk.gradient_adjoint(linear.i, linear.x_ij, linear.w(),
                                                        linear.gradient(), gbar);
      put_crk(g, crk);
      Direct<L::D> total{crk.x};
      if constexpr (!std::is_same_v<Extra, std::nullptr_t>) {
        total = {direct.x + crk.x, direct.h_i, direct.h_j};
      }
      put_kernel(g, linear, total, crk.w * linear.factor, crk.gradient * linear.factor);
    } else {
      (void)corrections;
      put_kernel(g, linear, direct, gbar * linear.factor);
    }
  }

  template <class Adjoint>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void put_crk(S* g, const Adjoint& crk) {
    put_leaves<Layout::a>(g, crk_at, crk.a);
    put_leaves<Layout::b>(g, crk_at + Layout::a, crk.b);
    put_leaves<Layout::grad_a>(g, crk_at + Layout::a + Layout::b, crk.grad_a);
    put_leaves<Layout::grad_b>(g, crk_at + Layout::a + Layout::b + Layout::grad_a, crk.grad_b);
  }
  /// x_ij's, h_i's and h_j's directions: the kernel's adjoints for its cotangents `bars` (W's,
  /// ∇W's or both: `kernels::PairLinearization::adjoint`) plus `direct`'s (a `Direct`, or nullptr
  /// for none). With no support tracked, x̄ alone (`position_adjoint`: the supports' adjoints are
  /// never formed).
  template <class L, class Extra, class... Bars>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void
  put_kernel(S* g, const L& linear, const Extra& direct, const Bars&... bars) {
    constexpr bool direct_none = std::is_same_v<Extra, std::nullptr_t>;
    if constexpr (support_leaves == 0 && Dirs::kernel_reference == 0) {
      const auto x = linear.kernel.position_adjoint(bars...);
      if constexpr (direct_none) {
        put_leaves<Dirs::position>(g, 0, x);
      } else {
        put_leaves<Dirs::position>(g, 0, x + direct.x);
      }
    } else {
      const auto kernel = linear.kernel.adjoint(bars...);
      if constexpr (direct_none) {
        put_leaves<Dirs::position>(g, 0, kernel.x);
        put_leaves<support_leaves>(g, Dirs::position, kernel.h_i);
        put_leaves<Dirs::kernel_reference>(g, Dirs::kernel_reference_begin, kernel.h_j);
      } else {
        put_leaves<Dirs::position>(g, 0, kernel.x + direct.x);
        put_leaves<support_leaves>(g, Dirs::position, kernel.h_i + direct.h_i);
        put_leaves<Dirs::kernel_reference>(g, Dirs::kernel_reference_begin,
                                           kernel.h_j + direct.h_j);
      }
    }
  }
};

} // namespace sphad::pairloop
