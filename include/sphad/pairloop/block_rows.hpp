// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/pairloop/lane_sums.hpp>
#include <sphad/pairloop/pack_lanes.hpp>
#include <sphad/pairloop/plan.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/scalar_traits.hpp>
#include <sphad/simd/pack.hpp>
#include <sphad/simd/pack_memory.hpp>
#include <sphad/span.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

/// \file
/// \brief A list row's pairs in blocks of L on the host: their geometry gathered into SIMD packs
/// (`BlockRow`, which the reverse sweep's kernel linearization shares), and the primal and JVP
/// sum of a row over them (`row_in_blocks`).

namespace sphad::pairloop {

#if SPHAD_HAS_PACKS
/// The geometry of row i's blocks of L entries on the host (`Eval`: an `Evaluate`, its row's
/// inputs `q`): the query's constants once per row, then for each block (`load`) the
/// references' positions — with a JVP's tangents —, supports, masses and densities gathered
/// lane by lane, x_ij as packs (`Domain::difference` for the lanes a periodic axis wraps),
/// 1/h_j and 1/h_ij, each lane the bits the pair-at-a-time path forms.
template <class Eval>
struct BlockRow {
  using S = typename Eval::S;
  using V = primal_t<typename Eval::T>; // every input's primal
  static constexpr int D = Eval::D;
  static constexpr int L = Eval::L;
  static constexpr int N = position_tangents_v<typename S::position>;
  static constexpr int NT = N > 0 ? N : 1; // the tangent arrays' extent (unused without)
  static constexpr SupportScheme scheme = Eval::Operator::support;
  using X = Vec<typename S::position, D>;
  using P = simd::Pack<V, L>;
  /// Whether a block's positions are gathered axis by axis, each pack built in registers from
  /// the scalars (in 3D, where three lane arrays written 8 bytes at a time and read back as
  /// packs stall AVX's store forwarding), or lane by lane into arrays (2D: fewer
  /// instructions; and with tangents, which sit between the values).
  static constexpr bool per_axis = D == 3 && N == 0;
  using Positions = std::remove_cv_t<
      std::remove_reference_t<decltype(std::declval<const Eval&>().references.positions)>>;
  /// Whether the references' position tangents are N arrays beside the positions (a JVP's
  /// `DualView`), or none (plain positions: zero tangents).
  static constexpr bool tangent_arrays = N > 0 && dual_view_directions_v<Positions> == N;
  /// Whether a block's 2D positions load whole, one vector per lane, and split into packs in
  /// registers (`simd::gather_components2`), their tangents likewise: stored positions of the
  /// primal type, with tangent arrays or none.
  static constexpr bool whole_2d = [] {
    using Stored = std::remove_cv_t<
        std::remove_reference_t<decltype(*std::declval<const Positions&>().data())>>;
    return D == 2 && (L == 2 || L == 4) && std::is_same_v<Stored, Vec<V, D>> &&
           (N == 0 || tangent_arrays || std::is_same_v<Positions, Span<const Vec<V, D>>>);
  }();

  /// The field as packs: none, a pack for a plain scalar, a `Vec` of packs for a plain vector
  /// (`void`: a field with tangents, not packed).
  using PackedField = typename PackedFieldOf<typename Eval::F, P>::type;
  /// Whether the operator's combination evaluates on packs (`lanewise_combine`: arithmetic
  /// alone), its output a scalar or vector of the primal type (with the positions' tangents or
  /// none) and the field plain (a scalar or a vector).
  static constexpr bool packed_combine =
      lanewise_combine_v<typename Eval::Operator> &&
      !std::is_void_v<typename PackedOutput<typename Eval::Out, P>::type> &&
      !std::is_void_v<PackedField>;

  /// The block's pair vectors x_ij: packs, `Dual`s over packs with a JVP's tangents.
  using PairVector = std::conditional_t<(N > 0), Dual<P, NT>, P>;

  /// One block's inputs: x_ij (with its tangents), the references' supports, masses and
  /// densities, 1/h_j and 1/h_ij (h_i's own for Gather).
  struct Block {
    Vec<PairVector, D> x;
    P h, m, rho;
    P inv_h_j, inv_h_ij; ///< 1/h_ij where the scheme forms its own h_ij (`own_pair_support`)
  };
  /// Whether the scheme's h_ij is neither h_i, nor h_j, nor averaged over: (h_i + h_j)/2 or
  /// max(h_i, h_j), one per pair.
  static constexpr bool own_pair_support = scheme != SupportScheme::Gather &&
                                           scheme != SupportScheme::Scatter &&
                                           !kernels::averages_evaluations_v<scheme>;

  const Eval& eval;
  const typename Eval::QueryInputs& q;
  P x_i[D], t_i[NT][D];
  /// L/2 per periodic axis, as `minimum_image` forms it; ±∞ on the others (every finite
  /// difference inside), so that one test covers a block.
  P half[D], minus_half[D];
  P inv_h_i; ///< 1/h_i, as the scalar path forms it for every pair

  SPHAD_INLINE BlockRow(const Eval& e, const typename Eval::QueryInputs& inputs)
      : eval(e), q(inputs), inv_h_i(V(1) / inputs.h) {
    const auto period = e.domain.extent();
    for (int a = 0; a < D; ++a) {
      x_i[a] = P(value_of(q.x[a]));
      for (int k = 0; k < N; ++k) {
        t_i[k][a] = P(tangent_of(q.x[a], k));
      }
      half[a] = P(e.domain.periodic[a] ? V(0.5) * period[a] : std::numeric_limits<V>::infinity());
      minus_half[a] = -half[a];
    }
  }

  /// The block of the L entries at `js`.
  SPHAD_INLINE Block load(const std::int32_t* js) const {
    const auto& references = eval.references;
    Block b;
    // x_ij and its tangents in locals until the periodic test is done (then into `b`).
    P bx[D], bt[NT][D];
    V xs[D][L], ts[NT][D][L];
    each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE {
      if constexpr (!per_axis && !whole_2d) {
        const X x_j = Eval::template read<X>(references.positions, js[l]);
        for (int a = 0; a < D; ++a) {
          xs[a][l] = value_of(x_j[a]);
          for (int c = 0; c < N; ++c) {
            ts[c][a][l] = tangent_of(x_j[a], c);
          }
        }
      }
    });
    // Supports, masses and densities: packs built in registers from the scalars (lane arrays
    // written 8 bytes at a time and read back as packs stall store forwarding where the
    // compiler reads two lanes at once: AVX2 Gradient 1.4× slower).
    b.h = lanes_of<P>([&](auto l) SPHAD_LAMBDA_INLINE {
      return Eval::template read<V>(references.supports, js[l]);
    });
    b.m = lanes_of<P>([&](auto l) SPHAD_LAMBDA_INLINE {
      return Eval::template read<V>(references.masses, js[l]);
    });
    b.rho = lanes_of<P>([&](auto l) SPHAD_LAMBDA_INLINE {
      return Eval::template read_optional<V>(references.densities, js[l]);
    });
    if constexpr (whole_2d) {
      P x_j[2];
      static_assert(sizeof(Vec<V, 2>) == 2 * sizeof(V), "positions are 2 contiguous scalars");
      simd::gather_components2(reinterpret_cast<const V*>(references.positions.data()), js, x_j);
      bx[0] = x_i[0] - x_j[0];
      bx[1] = x_i[1] - x_j[1];
      for (int c = 0; c < N; ++c) {
        // Tangent c of x_i − x_j (dual subtraction: x_j's tangents 0 where it has none).
        P t_j[2] = {P(V(0)), P(V(0))};
        if constexpr (tangent_arrays) {
          const auto& positions = references.positions;
          simd::gather_components2(
              reinterpret_cast<const V*>(positions.tangents() + c * positions.size()), js, t_j);
        }
        bt[c][0] = t_i[c][0] - t_j[0];
        bt[c][1] = t_i[c][1] - t_j[1];
      }
    }
    // (Axes by constant index, here and below: an axis loop the compiler leaves rolled keeps
    // the packs in memory, copied 16 bytes at a time and read back as 32 — a store-forwarding
    // stall that doubled the 3D AVX2 Density.)
    each_lane<D>([&](auto axis) SPHAD_LAMBDA_INLINE {
      constexpr int a = decltype(axis)::value;
      if constexpr (per_axis) {
        bx[a] = x_i[a] - lanes_of<P>([&](auto l) SPHAD_LAMBDA_INLINE {
                  return Eval::template read<X>(references.positions, js[l])[a];
                });
      } else if constexpr (!whole_2d) {
        bx[a] = x_i[a] - simd::pack_of(xs[a]);
        for (int c = 0; c < N; ++c) {
          bt[c][a] = t_i[c][a] - simd::pack_of(ts[c][a]);
        }
      }
    });
    auto inside = (bx[0] >= minus_half[0]) & (bx[0] < half[0]);
    each_lane<D>([&](auto axis) SPHAD_LAMBDA_INLINE {
      constexpr int a = decltype(axis)::value;
      if constexpr (a > 0) {
        inside = inside & (bx[a] >= minus_half[a]) & (bx[a] < half[a]);
      }
    });
    if (!simd::all(inside)) {
      // Every lane again by `Domain::difference`, into arrays read back as whole packs (lanes
      // set one by one would keep the block's packs in memory on the common path too).
      V fixed[D][L], fixed_t[NT][D][L];
      for (int l = 0; l < L; ++l) {
        const X x_ij =
            eval.domain.difference(q.x, Eval::template read<X>(references.positions, js[l]));
        for (int a = 0; a < D; ++a) {
          fixed[a][l] = value_of(x_ij[a]);
          for (int c = 0; c < N; ++c) {
            fixed_t[c][a][l] = tangent_of(x_ij[a], c);
          }
        }
      }
      each_lane<D>([&](auto axis) SPHAD_LAMBDA_INLINE {
        constexpr int a = decltype(axis)::value;
        bx[a] = simd::pack_of(fixed[a]);
        for (int c = 0; c < N; ++c) {
          bt[c][a] = simd::pack_of(fixed_t[c][a]);
        }
      });
    }
    each_lane<D>([&](auto axis) SPHAD_LAMBDA_INLINE {
      constexpr int a = decltype(axis)::value;
      if constexpr (N > 0) {
        b.x[a].value = bx[a];
        for (int c = 0; c < N; ++c) {
          b.x[a].tangent[c] = bt[c][a];
        }
      } else {
        b.x[a] = bx[a];
      }
    });
    b.inv_h_j = P(V(1)) / b.h;
    if constexpr (own_pair_support) {
      V h_ij[L];
      for (int l = 0; l < L; ++l) {
        h_ij[l] = kernels::pair_support<scheme>(q.h, b.h[l]);
      }
      b.inv_h_ij = P(V(1)) / simd::pack_of(h_ij);
    }
    return b;
  }

  /// V_j of every lane: derived from the masses and densities where no volumes are given
  /// (`safe_divide`'s bits: 0 for ρ_j = 0), the given volumes otherwise, as
  /// `reference_volume` forms them. Unread by the operators that take no volumes.
  SPHAD_INLINE P volumes(const std::int32_t* js, const Block& b) const {
    if (eval.references.volumes.size() == 0) {
      return select(b.rho != P(V(0)), b.m / b.rho, P(V(0)));
    }
    return lanes_of<P>([&](auto l) SPHAD_LAMBDA_INLINE { return eval.reference_volume(js[l]); });
  }

  /// The block's particle inputs as packs, each lane what `make_particles` gives its pair (a
  /// plain field's values gathered, the query's broadcast; the index j is the first lane's: no
  /// lanewise combination reads it).
  SPHAD_INLINE auto
  particles(std::int64_t i, const std::int32_t* js, const Block& b, P volumes_j) const {
    using F = typename Eval::F;
    using FP = PackedField;
    FP f_j{}, f_i{};
    if constexpr (std::is_same_v<F, V>) {
      f_j = lanes_of<P>([&](auto l) SPHAD_LAMBDA_INLINE { return eval.reference_value(js[l]); });
      f_i = P(q.f);
    } else if constexpr (!std::is_same_v<F, NoField>) {
      // A vector: the references' values read whole, each component's pack built in registers.
      F values[L];
      each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE { values[l] = eval.reference_value(js[l]); });
      for (int e = 0; e < F::dim; ++e) {
        f_j[e] = lanes_of<P>([&](auto l) SPHAD_LAMBDA_INLINE { return values[l][e]; });
        f_i[e] = P(q.f[e]);
      }
    }
    return ParticlePair<D, PairScalars<P, P, P, P, P, P>, FP>{i,     js[0],     b.m, P(q.rho),
                                                              b.rho, volumes_j, f_i, f_j};
  }

  /// The block's supports as reciprocals: 1/h_i, 1/h_j, 1/h_ij.
  SPHAD_INLINE kernels::InverseSupports<P> inverse_supports(const Block& b) const {
    if constexpr (scheme == SupportScheme::Scatter) {
      return {inv_h_i, b.inv_h_j, b.inv_h_j};
    } else if constexpr (own_pair_support) {
      return {inv_h_i, b.inv_h_j, b.inv_h_ij};
    } else {
      return {inv_h_i, b.inv_h_j, inv_h_i}; // Gather; the averaging schemes read no 1/h_ij
    }
  }

  /// The kernel part of a gradient form (`Op::gradient_form`: the Laplacian's Brookshaw and
  /// Default, the laminar viscosity) of the block's lanes from their pair vectors and ∇W_ij (times
  /// the factor): r = |x_ij| and h_ij as the pair-at-a-time path forms them (`safe_norm`,
  /// `Pair::support`), and exactly 0 (value and tangents) where r = 0, as its guard gives.
  template <class Op>
  SPHAD_INLINE PairVector gradient_form(const Block& b,
                                        const Vec<PairVector, D>& x,
                                        const Vec<PairVector, D>& grad) const {
    return ops::guarded_gradient_form<Op>(grad, x, PairVector(pair_supports(b)));
  }

  /// h_ij of every lane, as `Pair::support` gives it.
  SPHAD_INLINE P pair_supports(const Block& b) const {
    if constexpr (scheme == SupportScheme::Gather) {
      (void)b;
      return P(q.h);
    } else {
      V h_ij[L];
      for (int l = 0; l < L; ++l) {
        h_ij[l] = kernels::pair_support<scheme>(q.h, b.h[l]);
      }
      return simd::pack_of(h_ij);
    }
  }
};

/// Row i of `eval` (an `Evaluate` over a list) on the host in blocks of L entries
/// (`BlockRow`): the kernel part of all L evaluated at once on packs (the kernels' functions;
/// with the position tangents of a JVP as `Dual`s over packs), then the combination with the
/// particle inputs — on packs too where the operator's is arithmetic alone (`lanewise_combine`),
/// the output a scalar or vector (with the positions' tangents or none) and the field plain, else
/// pair by pair; the row's last entries (fewer than L) one at a time. Every pair's term has the
/// bits `pair_term` gives it, and each lane sums its terms in the row's order.
template <class Eval, class Sums>
void row_in_blocks(const Eval& eval,
                   std::int64_t i,
                   const typename Eval::QueryInputs& q,
                   Sums& sums) {
  using Op = typename Eval::Operator;
  using Row = BlockRow<Eval>;
  using V = typename Row::V;
  using P = typename Row::P;
  constexpr int D = Eval::D, L = Eval::L;
  using K = typename Op::kernel_type;
  using Packed = PackedOutput<typename Eval::Out, P>;
  constexpr bool packed_combine = Row::packed_combine;
  constexpr bool gradient_part = kernel_part_v<Op> == KernelPart::corrected_gradient;
  constexpr bool form_part = kernel_part_v<Op> == KernelPart::gradient_form;
  const auto& references = eval.references;
  const auto& filter = eval.filter;
  const std::int64_t begin = eval.neighbors.offsets[i], end = eval.neighbors.offsets[i + 1];
  const Row row(eval, q);
  const P scale(eval.factor);
  // No pair to test: the filter takes every kind and no self pair is skipped; else the kind's
  // bit (the call has checked each kind is one of the four).
  const bool skip_self = eval.skip_self_pairs;
  const bool every = filter.accepts_every_kind() && !skip_self;
  const auto takes = [&](std::int32_t j) SPHAD_LAMBDA_INLINE {
    return ((filter.reference >> unsigned(references.kinds[j])) & 1u) != 0 &&
           !(skip_self && j == i);
  };
  // A term written for packs (`lanewise_term`): each block's L terms at once, on a `Pair` of
  // packs.
  constexpr bool term_on_packs = PairPlan<Op, typename Eval::Corrections>::term_on_packs;
  static_assert(!term_on_packs || (!std::is_void_v<typename Packed::type> &&
                                   !std::is_void_v<typename Row::PackedField>),
                "a term on packs: its output and field are plain scalars or vectors");
  using Acc = std::conditional_t<packed_combine || term_on_packs, typename Packed::type, char>;
  Acc acc{}; // the lanes' sums of the packed combinations
  std::int64_t k = begin;
  for (; k + L <= end; k += L) {
    const std::int32_t* js = eval.neighbors.neighbors + k;
    const typename Row::Block b = row.load(js);
    const P volumes = row.volumes(js, b);
    // Whether every pair of the block is summed (one test of its kinds), else each's own.
    const auto taken = [&]() SPHAD_LAMBDA_INLINE {
      if (every || skip_self) {
        return every;
      }
      // (The kinds' bits ORed, then one test: every kind of the block in the filter.)
      std::uint32_t kinds = 0;
      each_lane<L>([&](auto l)
                       SPHAD_LAMBDA_INLINE { kinds |= 1u << unsigned(references.kinds[js[l]]); });
      return (kinds & ~filter.reference) == 0;
    };
    // The block's sum: its lanes' terms cut to the pairs taken, added to each lane's sum.
    const auto add_packed = [&](auto term) SPHAD_LAMBDA_INLINE {
      if (!taken()) {
        bool flags[L];
        each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE { flags[l] = takes(js[l]); });
        term = cut(simd::mask_of<V>(flags), term);
      }
      acc += term; // a dropped pair adds +0: the lane's sum is never −0, so the same bits
    };
    if constexpr (term_on_packs) {
      using PairP = ops::Pair<K, Op::support, D, ops::PairScalars<P, P, P, P, P, P>,
                              typename Row::PackedField, typename Eval::Corrections>;
      const PairP pair{
          row.particles(i, js, b, volumes), eval.corrections, b.x, P(q.h), b.h, eval.factor};
      add_packed(ops::pair_term<Op>(pair));
    } else {
      // The kernel part of the block: W_ij, ∇W_ij, or a form of ∇W_ij.
      using Part = typename Row::PairVector;
      const Vec<Part, D>& x = b.x;
      const auto part = [&]() SPHAD_LAMBDA_INLINE {
        if constexpr (gradient_part) {
          return Vec<Part, D>(kernels::pair_gradient<K, Op::support>(x, row.inverse_supports(b)) *
                              scale);
        } else if constexpr (form_part) {
          const Vec<Part, D> g =
              kernels::pair_gradient<K, Op::support>(x, row.inverse_supports(b)) * scale;
          return row.template gradient_form<Op>(b, x, g);
        } else {
          return Part(kernels::pair_value<K, Op::support>(x, row.inverse_supports(b)) * scale);
        }
      }();
      if constexpr (packed_combine) {
        add_packed(ops::combine<Op>(row.particles(i, js, b, volumes), part));
      } else {
        const bool block_taken = taken();
        each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE {
          if (block_taken || takes(js[l])) {
            const auto particles = eval.make_particles(i, js[l], q, volumes[l]);
            sums.add(l, ops::combine<Op>(particles, lane_of(part, l)));
          }
        });
      }
    }
  }
  if constexpr (packed_combine || term_on_packs) {
    each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE { sums.add(l, lane_of(acc, l)); });
  }
  eval.list_row(i, q, k, sums); // the row's last entries (fewer than L), one at a time
}
#endif

} // namespace sphad::pairloop
