// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/ops/detail/fused_pair_terms.hpp>
#include <sphad/ops/detail/scalars.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/scalar_traits.hpp>

#include <tuple>
#include <type_traits>
#include <utility>

/// \file
/// \brief `Fused`: several pair terms evaluated in one pass over the pairs, as one operator of
/// the public operator concept (`Slot`: which term reads which components of the one field).

namespace sphad::ops {

/// Term `Op` of a `Fused` operator, reading components [Offset, Offset + Width) of the fused
/// field: no field (Width 0), a scalar (1) or a `Vec` of Width components. Slots may read the
/// same components (the continuity rate and the velocity gradient both read u).
template <class Op, int Offset, int Width>
struct Slot {
  static_assert(Offset >= 0 && Width >= 0,
                "sphad::ops::Slot: the offset and width of a field slice are not negative");
  using op = Op;
  static constexpr int offset = Offset, width = Width;
  /// The slice's type for fused-field components of type E.
  template <class E>
  using field_t =
      std::conditional_t<Width == 0, NoField, std::conditional_t<Width == 1, E, Vec<E, Width>>>;
  /// The slice of fused field value f.
  template <class F>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto take(const F& f) {
    using E = typename F::value_type;
    if constexpr (Width == 0) {
      return NoField{};
    } else if constexpr (Width == 1) {
      return E(f[Offset]);
    } else {
      return sphad::detail::generate_vec<Width>(
          [&](int e) SPHAD_LAMBDA_INLINE { return E(f[Offset + e]); });
    }
  }
};

/// Its arguments' scalars side by side as one `Vec` (scalars, vectors and matrices, row-major),
/// in argument order: the fused field of a `Fused` call, as a record-map functor.
struct PackFields {
  template <class... X>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto operator()(const X&... x) const {
    return detail::concat_scalars(x...);
  }
};

namespace detail {
template <class First, class...>
struct first_slot {
  using type = First;
};

/// What both forms of a `Fused` operator share: the slots' kernel and support scheme, what they
/// read, the fused field's and output's layout, and a slot's slice of a pair's particle inputs.
template <class... Slots>
struct FusedSlots {
  static_assert(sizeof...(Slots) >= 1, "sphad::ops::Fused: fuse at least one term");
  using First = typename first_slot<Slots...>::type::op;
  using kernel_type = typename First::kernel_type;
  static constexpr SupportScheme support = First::support;
  static_assert((std::is_same_v<typename Slots::op::kernel_type, kernel_type> && ...),
                "sphad::ops::Fused: the fused terms share one kernel");
  static_assert(((Slots::op::support == support) && ...),
                "sphad::ops::Fused: the fused terms share one support scheme");
  template <int K>
  using slot_t = std::tuple_element_t<K, std::tuple<Slots...>>;
  template <int K, class E>
  using slot_field_t = typename slot_t<K>::template field_t<E>;
  static constexpr bool needs_densities = (Slots::op::needs_densities || ...);
  static constexpr bool needs_values = true;
  /// Grad-h divides the whole fused field by Ω: applied when every term uses it; a call with
  /// grad-h corrections is refused when only some do.
  static constexpr bool uses_grad_h = (Slots::op::uses_grad_h && ...);
  static constexpr bool rejects_grad_h = !uses_grad_h && (Slots::op::uses_grad_h || ...);
  /// The number of fused-field components the slots read.
  static constexpr int field_width = [] {
    int width = 0;
    ((width = Slots::offset + Slots::width > width ? Slots::offset + Slots::width : width), ...);
    return width;
  }();
  template <int D, class F, class E = typename F::value_type>
  static constexpr bool slots_accept() {
    return (Slots::op::template accepts_field<D, typename Slots::template field_t<E>> && ...);
  }
  /// A `Vec` with at least `field_width` components, each slice one its term accepts.
  template <int D, class F>
  static constexpr bool accepts_field = [] {
    if constexpr (is_vec_v<F>) {
      if constexpr (F::dim >= field_width) {
        return slots_accept<D, F>();
      }
    }
    return false;
  }();

  /// Term K's output type (in D dimensions, scalar T).
  template <int K, int D, class T>
  using part_t = typename slot_t<K>::op::template output_t<D, T, slot_field_t<K, T>>;
  template <int D, class T, class F>
  using output_t =
      Vec<T,
          (detail::scalar_count<
               typename Slots::op::template output_t<D, T, typename Slots::template field_t<T>>>() +
           ...)>;
  /// Where term K's scalars start in the output.
  template <int K, int D>
  SPHAD_HOST_DEVICE static constexpr int part_offset() {
    constexpr int counts[] = {detail::scalar_count<typename Slots::op::template output_t<
        D, double, typename Slots::template field_t<double>>>()...};
    int at = 0;
    for (int k = 0; k < K; ++k) {
      at += counts[k];
    }
    return at;
  }
  /// Term K's output from a fused output `y` (in a record-map functor, say).
  template <int K, int D, class T, int N>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto part(const Vec<T, N>& y) {
    return detail::load_scalars<part_t<K, D, T>>(&y[part_offset<K, D>()]);
  }

  /// The pair's particle inputs with the slot's slice of the fused field.
  template <class Slot, int D, class S, class F>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto slice_of(const ParticlePair<D, S, F>& p) {
    using FK = decltype(Slot::take(p.f_i));
    return ParticlePair<D, S, FK>{
        p.i, p.j, p.m_j, p.rho_i, p.rho_j, p.volume_j, Slot::take(p.f_i), Slot::take(p.f_j)};
  }
  /// A slice's adjoint `bar` added into the fused adjoint `pbar`, its field where it was read.
  template <class Slot, int D, class S, class F, class FK>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void add_slice_adjoint(const ParticlePair<D, S, FK>& bar,
                                                               ParticlePair<D, S, F>& pbar) {
    pbar.m_j += bar.m_j;
    pbar.rho_i += bar.rho_i;
    pbar.rho_j += bar.rho_j;
    pbar.volume_j += bar.volume_j;
    if constexpr (Slot::width == 1) {
      pbar.f_i[Slot::offset] += bar.f_i;
      pbar.f_j[Slot::offset] += bar.f_j;
    } else if constexpr (Slot::width > 1) {
      for (int e = 0; e < Slot::width; ++e) {
        pbar.f_i[Slot::offset + e] += bar.f_i[e];
        pbar.f_j[Slot::offset + e] += bar.f_j[e];
      }
    }
  }
};

/// Terms that all share the kernel part Ĝ_ij: one split operator, Ĝ_ij evaluated once per pair
/// (on the host's SIMD blocks) and each term's combination with it.
template <class... Slots>
struct SharedGradientTerms : FusedSlots<Slots...>, KernelQuantity<KernelPart::corrected_gradient> {
  using Base = FusedSlots<Slots...>;
  /// Each term's combination of its slice with Ĝ_ij, flattened in slot order.
  template <int D, class S, class F, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const ParticlePair<D, S, F>& p, const G& g) {
    return detail::concat_scalars(
        ops::combine<typename Slots::op>(Base::template slice_of<Slots>(p), g)...);
  }

  /// Whether every term's combination is transposed by hand (`transposed_combine_v`): then so
  /// is the fused one, the terms' transposes summed (`combine_adjoint`), and the reverse pass
  /// takes no dual number over the fused field's many directions.
  static constexpr bool transposed_combine = (transposed_combine_v<typename Slots::op> && ...);
  /// `combine` transposed: each term's transpose at its slice for its part of ȳ, the slices'
  /// adjoints added into `pbar`'s fused field where they were read, the Ĝ̄ summed.
  template <int D, class S, class F, class G, class Y>
  SPHAD_HOST_DEVICE SPHAD_INLINE static G combine_adjoint(const ParticlePair<D, S, F>& p,
                                                          const G& g,
                                                          const Y& ybar,
                                                          ParticlePair<D, S, F>& pbar) {
    G gbar{};
    slot_adjoints(p, g, ybar, pbar, gbar, std::index_sequence_for<Slots...>{});
    return gbar;
  }

private:
  template <int D, class S, class F, class G, class Y, std::size_t... K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void slot_adjoints(const ParticlePair<D, S, F>& p,
                                                           const G& g,
                                                           const Y& ybar,
                                                           ParticlePair<D, S, F>& pbar,
                                                           G& gbar,
                                                           std::index_sequence<K...>) {
    (slot_adjoint<int(K)>(p, g, ybar, pbar, gbar), ...);
  }
  /// Term K's transpose, added into the fused adjoints.
  template <int K, int D, class S, class F, class G, class Y>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void slot_adjoint(const ParticlePair<D, S, F>& p,
                                                          const G& g,
                                                          const Y& ybar,
                                                          ParticlePair<D, S, F>& pbar,
                                                          G& gbar) {
    using Slot = typename Base::template slot_t<K>;
    const auto slice = Base::template slice_of<Slot>(p);
    auto bar = zero_adjoint(slice);
    const auto ybar_k = Base::template part<K, D>(ybar); // term K's part of ȳ
    const G gk = Slot::op::combine_adjoint(slice, g, ybar_k, bar);
    for (int a = 0; a < D; ++a) {
      gbar[a] += gk[a];
    }
    Base::template add_slice_adjoint<Slot>(bar, pbar);
  }
};

/// Whether every slot's kernel part is Ĝ_ij (then the fused operator is split, Ĝ_ij shared).
template <class... Slots>
inline constexpr bool share_gradient_v =
    ((kernel_part_v<typename Slots::op> == KernelPart::corrected_gradient) && ...);
} // namespace detail

/// The pair terms `Slot<Op, Offset, Width>...` in one pass over the pairs:
///   y_i = (Σ_j term_1(i, j), …, Σ_j term_n(i, j)),
/// each term its operator's own pair term on its slice of the pair's particle inputs. The field
/// is the terms' fields side by side, a `Vec` (a record-map functor packs it); the output is
/// every term's output flattened in slot order (`part<K, D>` reads term K's back). The terms
/// share the kernel and support scheme. Each term's sums are the bits of its own call where the
/// host's path takes its pairs in the same order. Forward and reverse mode differentiate it as
/// any operator.
/// - When every term's kernel part is Ĝ_ij (`KernelQuantity<KernelPart::corrected_gradient>`),
///   the fused operator is split: Ĝ_ij once per pair for all the terms (on the host's SIMD
///   blocks, combined lane by lane), and the reverse pass linearizes a pair's kernel once.
/// - Otherwise (a gradient form, a kernel part of its own, a whole term among them) it is one
///   whole term: each term's kernel part or term of the same pair, their common work (x_ij,
///   W_ij, ∇W_ij) left to the compiler to share; on the host's SIMD blocks where every term can
///   be (`FusedPairTerms`), and transposed by hand where every term is. On the host this form
///   was not faster than separate calls (docs/fused.md).
template <class... Slots>
struct Fused : std::conditional_t<detail::share_gradient_v<Slots...>,
                                  detail::SharedGradientTerms<Slots...>,
                                  detail::FusedPairTerms<detail::FusedSlots<Slots...>, Slots...>> {
};

/// Term K's output (in D dimensions) of a `Fused` operator's output, as a record-map functor:
/// `record_map(tape, n, PartOf<F, K, D>{}, y)` gives term K's outputs as a `Variable` of their
/// own type.
template <class FusedOp, int K, int D>
struct PartOf {
  template <class Y>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto operator()(const Y& y) const {
    return FusedOp::template part<K, D>(y);
  }
};

} // namespace sphad::ops
