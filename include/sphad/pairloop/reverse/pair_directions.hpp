// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pairloop/block_rows.hpp>
#include <sphad/pairloop/lane_sums.hpp>
#include <sphad/pairloop/pack_lanes.hpp>
#include <sphad/pairloop/plan.hpp>
#include <sphad/pairloop/reverse/leaf_algebra.hpp>
#include <sphad/pairloop/reverse/particle_adjoints.hpp>
#include <sphad/pairloop/vocabulary.hpp>

#include <cstdint>
#include <type_traits>

/// \file
/// \brief A pair's directions in the reverse pass: `WholeTermDirections` (the whole term in one
/// dual evaluation) and `SplitTermDirections` (the kernel part and the combination apart).

namespace sphad::pairloop {

/// A pair's directions from its whole term evaluated once in `Dual<S, K>` (every input seeded):
/// for operators that do not split into a kernel part and a combination (the correction
/// pipelines' sums). A term with its own transpose (`transposed_term_v`), where neither a
/// support nor a correction is tracked, is differentiated by it instead, at the pair's plain
/// inputs (`Plain`: the same views untracked).
template <class Dirs, class S, class OutPrimal, class Eval, class Plain>
struct WholeTermDirections {
  static constexpr int K = Dirs::total;
  using Op = typename Eval::Operator;
  Eval evaluate;
  Plain plain;
  static constexpr bool transposed = [] {
    if constexpr (transposed_term_v<Op> && std::is_floating_point_v<S>) {
      using Corr = typename Eval::Corrections;
      return Dirs::kernel == Dirs::position && std::is_same_v<Corr, Uncorrected>;
    } else {
      return false;
    }
  }();
  using Row =
      std::conditional_t<transposed, typename Plain::QueryInputs, typename Eval::QueryInputs>;
  SPHAD_HOST_DEVICE SPHAD_INLINE const Eval& filtering() const { return evaluate; }
  SPHAD_HOST_DEVICE SPHAD_INLINE void prefetch(std::int32_t j) const {
    evaluate.prefetch_reference(j);
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE Row row(std::int64_t i) const {
    if constexpr (transposed) {
      return plain.query_inputs(i);
    } else {
      return evaluate.query_inputs(i);
    }
  }
  static constexpr bool blocks = false; // the whole term in duals, pair by pair
  static constexpr bool packed = false;
  static constexpr bool compact = false; // (long code per pair)
  SPHAD_HOST_DEVICE SPHAD_INLINE void
  operator()(S* g, std::int64_t i, std::int32_t j, const Row& q, const OutPrimal& ybar_i) const {
    if constexpr (transposed) {
      const auto pair = plain.make_pair(i, j, q);
      auto pbar = zero_adjoint(pair.particles());
      const auto x = Op::term_adjoint(pair, ybar_i, pbar);
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < K; ++k) {
        g[k] = S(0);
      }
      put_leaves<Dirs::position>(g, 0, x);
      add_particle_directions<Dirs, Dirs::kernel, K, K>(g, evaluate, pbar, i, j);
    } else {
      contract_directions<K>(g, ybar_i, evaluate.pair_term(i, j, q));
    }
  }
};

/// Whether the reverse pass differentiates Op's combination as form(particle_part(p), G): when
/// Op's combination factors (`factored_combine_v`) and some particle input is tracked.
template <class Op, class Dirs>
inline constexpr bool uses_factored_v = factored_combine_v<Op> && (Dirs::particle > 0);

/// A pair's directions by the operator's split term = combine(p, kernel_part(p)): the kernel
/// part G (geometry, supports, CRK, renormalization) in `Dual<S, Dirs::kernel>` — or, when it
/// is a kernel quantity (`Linearized`: `KernelPartAdjoint`), in S with a hand-written adjoint;
/// the combination with the particle inputs (masses, densities, volumes, values, Ω) and G's
/// scalars seeded, in `Dual<S, Dirs::particle + |G|>`, contracted with ȳ; then G's adjoint Ḡ
/// contracted with G's tangents (or passed to the hand-written adjoint). Two narrow evaluations
/// instead of one wide one.
template <class Op,
          class Dirs,
          class S,
          class OutPrimal,
          class KernelEval,
          class ParticleEval,
          class Linearized>
struct SplitTermDirections {
  static constexpr int KK = Dirs::kernel;
  static constexpr int KP = Dirs::particle;
  KernelEval kernel;
  ParticleEval particles;
  /// Whether a pair's code is short: the kernel part's adjoint by hand (`Linearized`), not in
  /// dual numbers (the reverse sweep then unrolls a row's entries by its lanes).
  static constexpr bool compact = !std::is_void_v<Linearized>;
  struct Row {
    typename KernelEval::QueryInputs kernel;
    typename ParticleEval::QueryInputs particles;
  };
  SPHAD_HOST_DEVICE SPHAD_INLINE const KernelEval& filtering() const { return kernel; }
  SPHAD_HOST_DEVICE SPHAD_INLINE void prefetch(std::int32_t j) const {
    particles.prefetch_reference(j); // the same arrays as the kernel side's
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE Row row(std::int64_t i) const {
    return {kernel.query_inputs(i), particles.query_inputs(i)};
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE void
  operator()(S* g, std::int64_t i, std::int32_t j, const Row& q, const OutPrimal& ybar_i) const {
    const auto pair = kernel.make_pair(i, j, q.kernel);
    if constexpr (!std::is_void_v<Linearized>) {
      (*this)(g, i, j, q, ybar_i, Linearized::linearize(pair));
    } else {
      const auto part = Op::kernel_part(pair);
      const auto value = primal_part<Dual<S, KK>>(part);
      constexpr int KG = leaf_count<std::remove_cv_t<decltype(value)>>();
      S gbar[KG];
      particle_directions(g, gbar, i, j, q, ybar_i, value);
      tangent_dots<KK>(g, gbar, part);
    }
  }

  /// Pair (i, j)'s directions with its kernel linearized already (`linear`: what
  /// `Linearized::linearize` gives, or the host's blocks give lane by lane, the same bits).
  template <class Linear>
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(S* g,
                                                 std::int64_t i,
                                                 std::int32_t j,
                                                 const Row& q,
                                                 const OutPrimal& ybar_i,
                                                 const Linear& linear) const {
    const auto part = Linearized::part(linear);
    const auto& value = part.value; // the plain pair's kernel part, for plain scalars
    constexpr int KG = leaf_count<std::remove_cv_t<std::remove_reference_t<decltype(value)>>>();
    S gbar[KG];
    particle_directions(g, gbar, i, j, q, ybar_i, value);
    Linearized::directions(g, linear, part, shaped_like(value, gbar));
  }

#if SPHAD_HAS_PACKS
  /// The call's corrections and its host plan (plan.hpp).
  using Corr = std::remove_cv_t<decltype(std::declval<const KernelEval&>().corrections)>;
  using Plan = PairPlan<Op, Corr>;
  /// Whether the host linearizes the kernels of a row's pairs in blocks of L (`linear_block`).
  static constexpr bool blocks =
      Plan::template reverse_blocks<typename KernelEval::S, typename KernelEval::T>(
          !std::is_void_v<Linearized>);
  static constexpr int lanes = KernelEval::L;

  using Pack = simd::Pack<S, lanes>;
  using PackLinearization = kernels::PairLinearization<Op::support, Pack, KernelEval::D>;

  /// The kernels of the L entries at `js` of row i linearized at once on packs (`BlockRow`,
  /// `kernels::pair_linearization`); `lane(l)` gives entry l's as `Linearized::linearize`
  /// forms it.
  struct LinearBlock {
    const SplitTermDirections& pairs;
    std::int64_t i;
    typename BlockRow<KernelEval>::Block block;
    PackLinearization kernels;
    SPHAD_INLINE auto lane(int l) const {
      using Pair = decltype(pairs.kernel.make_pair(0, 0, {}));
      using Linear = typename Linearized::template Linear<Pair>;
      Vec<S, KernelEval::D> x;
      for (int a = 0; a < KernelEval::D; ++a) {
        x[a] = block.x[a][l];
      }
      return Linear{i, x, lane_of(kernels, l), pairs.kernel.factor, pairs.kernel.corrections};
    }
  };
  /// Row q's constants for its blocks (`BlockRow`: once per row).
  SPHAD_INLINE BlockRow<KernelEval> block_row(const Row& q) const {
    return {kernel, q.kernel};
  }
  /// The kernels of a block linearized on packs.
  SPHAD_INLINE static PackLinearization
  linearize_block(const BlockRow<KernelEval>& row, const typename BlockRow<KernelEval>::Block& b) {
    return kernels::pair_linearization<typename Op::kernel_type, Op::support>(
        b.x, Pack(row.q.h), b.h, row.inverse_supports(b));
  }
  SPHAD_INLINE LinearBlock linear_block(const BlockRow<KernelEval>& row,
                                        std::int64_t i,
                                        const std::int32_t* js) const {
    const auto b = row.load(js);
    return {*this, i, b, linearize_block(row, b)};
  }

  /// Whether the host gives the directions of a block's L entries at once on packs
  /// (`block_directions`).
  static constexpr bool packed =
      Plan::template reverse_packed<typename KernelEval::S, typename KernelEval::T, Dirs>(
          !std::is_void_v<Linearized>, BlockRow<KernelEval>::packed_combine);

  /// The directions of the L entries at `js` of row i (`row`: its constants; ȳ_i: `ybar_i`) as
  /// packs, lane l entry l's, by the pair-at-a-time path's chain rule in packs: the kernel
  /// linearized on packs, the kernel part (`Linearized::part`), the combination on `Dual`s over
  /// packs with the kernel part's scalars seeded, contracted with ȳ_i (Ḡ), then the kernel
  /// part's adjoint for Ḡ (`Linearized::directions`: x̄, the directions of x_ij).
  SPHAD_INLINE void block_directions(Pack (&g)[Dirs::total],
                                     const BlockRow<KernelEval>& row,
                                     std::int64_t i,
                                     const std::int32_t* js,
                                     const OutPrimal& ybar_i) const {
    static_assert(packed && Dirs::total == KernelEval::D, "the positions' directions alone");
    using Adjoint = typename Linearized::template with_scalar<Pack>;
    using Pair = decltype(kernel.make_pair(0, 0, {}));
    const auto b = row.load(js);
    const typename Adjoint::template Linear<Pair> linear{i, b.x, linearize_block(row, b),
                                                         kernel.factor, kernel.corrections};
    const auto part = Adjoint::part(linear);
    const auto& value = part.value;
    constexpr int KG = leaf_count<std::remove_cv_t<std::remove_reference_t<decltype(value)>>>();
    Pack gbar[KG];
    const auto particles_of_block = row.particles(i, js, b, row.volumes(js, b));
    if constexpr (transposed) {
      // The combination's own transpose on packs (ȳ_i in every lane); p̄ is unread.
      auto pbar = zero_adjoint(particles_of_block);
      const auto ybar = sphad::detail::convert_scalars<rebind_scalar_t<OutPrimal, Pack>>(ybar_i);
      put_leaves<KG>(gbar, 0, Op::combine_adjoint(particles_of_block, value, ybar, pbar));
    } else {
      contract_directions<KG>(gbar, ybar_i,
                              ops::combine<Op>(particles_of_block, seed<KG>(value, 0)));
    }
    Adjoint::directions(g, linear, part, shaped_like(value, gbar));
  }

#else
  static constexpr bool blocks = false;
  static constexpr bool packed = false;
#endif

  /// Whether the combination is differentiated by its own transpose (`transposed_combine_v`):
  /// a plain tape's scalar, no grad-h (which divides the values), and every particle input's
  /// view plain, a `SeedView` or an array of duals (the volumes made once).
  static constexpr bool transposed = [] {
    if constexpr (transposed_combine_v<Op> && std::is_floating_point_v<S>) {
      using Corr = std::remove_cv_t<decltype(std::declval<const KernelEval&>().corrections)>;
      return std::is_same_v<std::remove_cv_t<decltype(Corr::grad_h)>, NoGradH>;
    } else {
      return false;
    }
  }();

  /// The particle directions (g[KK, KK + KP)) and Ḡ (G's adjoint, flat) of pair (i, j) whose
  /// kernel part has the value G.
  template <class G, int KG>
  SPHAD_HOST_DEVICE SPHAD_INLINE void particle_directions(S* g,
                                                          S (&gbar)[KG],
                                                          std::int64_t i,
                                                          std::int32_t j,
                                                          const Row& q,
                                                          const OutPrimal& ybar_i,
                                                          const G& value) const {
    if constexpr (transposed) {
      // The combination's own transpose at the pair's primal inputs (read untracked, as the
      // kernel side reads them): p̄ and Ḡ in S; the directions are ⟨p̄, ∂p⟩ over the views'
      // seeded tangents. No seeded input is formed per pair.
      const auto primal = kernel.make_particles(i, j, q.kernel);
      auto pbar = zero_adjoint(primal);
      const G gb = Op::combine_adjoint(primal, value, ybar_i, pbar);
      S* const pg = g + KK;
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < KP; ++k) {
        pg[k] = S(0);
      }
      // (The views are seeded in Dual<S, KC>: the particle directions, then G's scalars unless
      // the combination factors, as `OperatorRecord::backward` seeds them.)
      constexpr int KC = uses_factored_v<Op, Dirs> ? KP : KP + KG;
      add_particle_directions<Dirs, 0, KC, KP>(pg, particles, pbar, i, j);
      put_leaves<KG>(gbar, 0, gb);
    } else if constexpr (uses_factored_v<Op, Dirs>) {
      // The coefficient c in Dual<S, KP> (the particle inputs seeded), then form(c, G) with c's
      // and G's scalars seeded, contracted with ȳ: c̄ and Ḡ; the directions are ⟨c̄, ∂c⟩ and
      // ⟨Ḡ, ∂G⟩.
      const auto c = Op::particle_part(particles.make_particles(i, j, q.particles));
      const auto cv = primal_part<Dual<S, KP>>(c);
      constexpr int KCV = leaf_count<std::remove_cv_t<decltype(cv)>>();
      constexpr int KF = KCV + KG;
      S b[KF];
      contract_directions<KF>(b, ybar_i, Op::form(seed<KF>(cv, 0), seed<KF>(value, KCV)));
      tangent_dots<KP>(g + KK, b, c);
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < KG; ++k) {
        gbar[k] = b[KCV + k];
      }
    } else {
      constexpr int KC = KP + KG;
      S a[KC];
      contract_directions<KC>(
          a, ybar_i,
          ops::combine<Op>(particles.make_particles(i, j, q.particles), seed<KC>(value, KP)));
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < KP; ++k) {
        g[KK + k] = a[k];
      }
      SPHAD_PRAGMA_UNROLL
      for (int k = 0; k < KG; ++k) {
        gbar[k] = a[KP + k];
      }
    }
  }

  /// A flat adjoint as an element shaped like G (a scalar or a vector; plain or packs).
  template <class G, class F, int KG>
  SPHAD_HOST_DEVICE SPHAD_INLINE static G shaped_like(const G&, const F (&flat)[KG]) {
    if constexpr (is_vec_v<G>) {
      G out;
      SPHAD_PRAGMA_UNROLL
      for (int a = 0; a < KG; ++a) {
        out[a] = flat[a];
      }
      return out;
    } else {
      return flat[0];
    }
  }
};

} // namespace sphad::pairloop
