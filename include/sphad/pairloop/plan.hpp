// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/kernels/kernel_traits.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/simd/pack.hpp>

#include <type_traits>

/// \file
/// \brief Which path a call's pairs take on the host, decided in one place (`PairPlan`): one
/// pair at a time, or L pairs at once on SIMD packs (the blocks) — in the primal and JVP, in the
/// reverse sweep's kernel linearizations, and for the sweep's whole directions.

namespace sphad::pairloop {

/// Whether Op's combination is arithmetic alone (`static constexpr bool lanewise_combine =
/// true`): then the host evaluates it on packs, each lane the bits of the scalar evaluation.
template <class Op, class = void>
inline constexpr bool lanewise_combine_v = false;
template <class Op>
inline constexpr bool lanewise_combine_v<Op, std::void_t<decltype(Op::lanewise_combine)>> =
    Op::lanewise_combine;

/// Whether Op, a whole pair term, evaluates on packs as written (`static constexpr bool
/// lanewise_term = true`: arithmetic, the pair's kernel quantities and lane selects alone, and
/// no read of the indices i and j): then the host evaluates L pairs' terms at once, each lane the
/// bits of the scalar evaluation.
template <class Op, class = void>
inline constexpr bool lanewise_term_v = false;
template <class Op>
inline constexpr bool lanewise_term_v<Op, std::void_t<decltype(Op::lanewise_term)>> =
    Op::lanewise_term;

/// Whether field element F is plain in primal V: none, a V, or a `Vec` of V.
template <class F, class V>
inline constexpr bool plain_field_v = std::is_same_v<F, ops::NoField> || std::is_same_v<F, V>;
template <class V, int N>
inline constexpr bool plain_field_v<Vec<V, N>, V> = true;

/// The position directions a pair block carries: 0 for plain positions, N for `Dual<V, N>`
/// (one layer of tangents: a JVP), −1 for anything else (nested duals: not in blocks).
template <class X>
inline constexpr int position_tangents_v = std::is_floating_point_v<X> ? 0 : -1;
template <class V, int N>
inline constexpr int position_tangents_v<Dual<V, N>> = std::is_floating_point_v<V> ? N : -1;

/// The host's plan for the pairs of operator Op under corrections Corr. Every path gives each
/// pair's term the bits of the one-pair evaluation; the plan only says which runs.
/// - `kernel_on_packs`: Op's kernel part can be evaluated for L pairs at once: its kernel
///   declares its shape lanewise (`kernels::lanewise_shape_v`) and the part is a kernel
///   quantity (W_ij, Ŵ_ij, Ĝ_ij) or a gradient form of Ĝ_ij (the Laplacian's Brookshaw and
///   Default).
/// - `term_on_packs`: Op's pair term is written for packs (`lanewise_term_v`: a whole term, or a
///   split one whose kernel part is none of the above) and its kernel declares its shape
///   lanewise.
/// - `forward_blocks<S, IsList, F>()`: the primal and the JVP over a list take the blocks: no
///   CRK, plain supports, masses, densities and volumes (`S`: the call's `PairScalars`), and
///   either the kernel part on packs, no renormalization of a gradient part, positions plain or
///   with one layer of tangents (the field may carry tangents of its own); or the whole term on
///   packs, no renormalization, plain positions and a plain field (`F`).
/// - `reverse_blocks<S, T>(linearized)`: the reverse sweep linearizes L kernels at once: the
///   kernel on packs, differentiated by its hand-written adjoint (`linearized`), plain positions
///   and supports on the kernel side (`S`, `T`: its pair scalars and scalar); any correction
///   after the kernel.
/// - `reverse_packed<S, T, Dirs>(linearized, packed_combine)`: a block's whole directions on
///   packs: reverse blocks, a combination on packs (`packed_combine`), the positions the only
///   input tracked (`Dirs`), no CRK, no renormalization.
template <class Op, class Corr>
struct PairPlan {
  using CRK = std::remove_cv_t<decltype(Corr::crk)>;
  using Renormalization = std::remove_cv_t<decltype(Corr::renormalization)>;
  static constexpr bool no_crk = std::is_same_v<CRK, NoCRK>;
  static constexpr bool no_renormalization = std::is_same_v<Renormalization, NoRenormalization>;

  static constexpr bool kernel_on_packs = [] {
    if constexpr (SPHAD_HAS_PACKS && splits_term_v<Op>) {
      constexpr KernelPart part = kernel_part_v<Op>;
      return kernels::lanewise_shape_v<typename Op::kernel_type> &&
             (part == KernelPart::value || part == KernelPart::corrected_value ||
              part == KernelPart::corrected_gradient || part == KernelPart::gradient_form);
    } else {
      return false;
    }
  }();
  static constexpr bool term_on_packs = [] {
    if constexpr (SPHAD_HAS_PACKS && !kernel_on_packs) {
      return lanewise_term_v<Op> && kernels::lanewise_shape_v<typename Op::kernel_type>;
    } else {
      return false;
    }
  }();
  /// Whether the kernel part reads a gradient (which renormalization corrects).
  static constexpr bool gradient_part = kernel_part_v<Op> == KernelPart::corrected_gradient ||
                                        kernel_part_v<Op> == KernelPart::gradient_form;

  template <class S, bool IsList, class F = ops::NoField>
  static constexpr bool forward_blocks() {
    using V = primal_t<typename S::scalar>;
    constexpr bool plain_particles =
        IsList && no_crk && std::is_floating_point_v<V> && std::is_same_v<typename S::support, V> &&
        std::is_same_v<typename S::mass, V> && std::is_same_v<typename S::density, V> &&
        std::is_same_v<typename S::volume, V>;
    if constexpr (term_on_packs) {
      return plain_particles && no_renormalization &&
             position_tangents_v<typename S::position> == 0 && plain_field_v<F, V>;
    } else {
      return plain_particles && kernel_on_packs && (no_renormalization || !gradient_part) &&
             position_tangents_v<typename S::position> >= 0;
    }
  }

  template <class S, class T>
  static constexpr bool reverse_blocks(bool linearized) {
    return linearized && kernel_on_packs && std::is_floating_point_v<T> &&
           std::is_same_v<typename S::position, T> && std::is_same_v<typename S::support, T>;
  }

  template <class S, class T, class Dirs>
  static constexpr bool reverse_packed(bool linearized, bool packed_combine) {
    return reverse_blocks<S, T>(linearized) && packed_combine && Dirs::particle == 0 &&
           Dirs::kernel == Dirs::position && no_crk && no_renormalization;
  }
};

} // namespace sphad::pairloop
