// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/tape.hpp>
#include <sphad/domain.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/pairloop/field_maps.hpp>
#include <sphad/pairloop/launch.hpp>
#include <sphad/pairloop/reverse/direction_layout.hpp>
#include <sphad/pairloop/reverse/gradient_targets.hpp>
#include <sphad/pairloop/reverse/kernel_part_adjoint.hpp>
#include <sphad/pairloop/reverse/leaf_algebra.hpp>
#include <sphad/pairloop/reverse/pair_directions.hpp>
#include <sphad/pairloop/reverse/sweep.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/particles.hpp>
#include <sphad/search/neighbor_list.hpp>
#include <sphad/search/transpose.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `OperatorRecord`: one recorded operator launch, the views it keeps and its backward,
/// which seeds the call's `Variable`s, builds the pair's derivatives and runs the reverse
/// sweep.

namespace sphad::pairloop {

/// Stores nothing (the reverse pass handles each pair's term itself).
struct NoStore {
  template <class Out>
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t, const Out&) const {}
};

/// V_j of every reference as `Eval`'s pairs read it (`Evaluate::reference_volume`).
template <class Eval, class V>
struct ReferenceVolumes {
  Eval evaluate;
  V* out;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t j) const {
    out[j] = evaluate.reference_volume(std::int32_t(j));
  }
};

/// One recorded operator launch.
template <class Op,
          class Exec,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr,
          class OutPrimal>
struct OperatorRecord final : sphad::detail::Record<Exec> {
  using P = typename Queries::primal_scalar;
  using S = scalar_of_t<OutPrimal>; ///< the tape's scalar: plain, or dual (forward over reverse)
  static constexpr int D = Queries::dim;

  Queries queries;
  References references;
  Domain<D, P> domain;
  NeighborList<Exec> rows;      ///< a copy of the list (a rebuild in place cannot change it)
  EntryTranspose<Exec> columns; ///< the rows' entries grouped by reference
  RecordedChunks<Exec> chunks;  ///< the host's chunks of the rows, found while copying them
  QueryValues query_values;
  ReferenceValues reference_values;
  KindFilter filter;
  P factor;
  Corr corrections;
  Variable<OutPrimal> output;
  std::vector<sphad::detail::VersionSnapshot> snapshots;

  OperatorRecord(const Queries& q,
                 const References& r,
                 const Domain<D, P>& d,
                 NeighborList<Exec> list,
                 EntryTranspose<Exec> transposed,
                 RecordedChunks<Exec> recorded,
                 const QueryValues& qv,
                 const ReferenceValues& rv,
                 KindFilter f,
                 P calibration,
                 const Corr& c,
                 Variable<OutPrimal> out)
      : queries(q), references(r), domain(d), rows(std::move(list)), columns(std::move(transposed)),
        chunks(std::move(recorded)), query_values(qv), reference_values(rv), filter(f),
        factor(calibration), corrections(c), output(std::move(out)) {
    const auto snapshot = [&](const char* field, const auto& view) {
      sphad::detail::snapshot_version(snapshots, field, view);
    };
    for_each_field(queries, query_fields, snapshot);
    for_each_field(references, reference_fields, snapshot);
    snapshot("query_values", query_values);
    snapshot("reference_values", reference_values);
    for_each_correction_field(corrections, snapshot);
    snapshot("output", output);
  }

  void check_versions() const override { sphad::detail::check_snapshots(snapshots); }

  std::int64_t bytes() const override {
    return std::int64_t(sizeof(*this)) + (rows.num_queries + 1) * 8 + rows.num_pairs * 4 +
           (columns.num_references + 1) * 8 + columns.num_pairs * 8;
  }

  template <class Q, class R, class QV, class RV, class C, class Store>
  auto
  evaluator(const Q& q, const R& r, const QV& qv, const RV& rv, const C& c, Store store) const {
    return Evaluate<Op, ListNeighbors, Q, R, QV, RV, C, Store>{
        ListNeighbors{rows.offsets.data(), rows.neighbors.data()},
        q,
        r,
        domain,
        filter,
        qv,
        rv,
        factor,
        c,
        store,
        false};
  }

  /// `evaluate` whose pairs read V_j from an array made once per reference (kept in `kept`)
  /// when V_j is m_j/ρ_j in dual numbers (masses or densities tracked, volumes not given or not
  /// tracked): the same duals, bitwise, without a dual division per pair. Otherwise `evaluate`.
  template <class Eval, class Kept>
  auto with_volumes_once(const Eval& evaluate, Kept& kept, const Exec& exec) const {
    using V = typename Eval::S::volume;
    if constexpr (!std::is_same_v<V, primal_t<V>> && !std::is_same_v<V, S> &&
                  !is_variable_v<decltype(References::volumes)>) {
      const std::int64_t n = evaluate.references.size();
      kept = Buffer<V, Exec>(exec, n);
      exec::for_each_index(exec, n, ReferenceVolumes<Eval, V>{evaluate, kept.data()});
      return evaluator(
          evaluate.queries, evaluate.references.with_volumes(Span<const V>{kept.data(), n}),
          evaluate.query_values, evaluate.reference_values, evaluate.corrections, NoStore{});
    } else {
      (void)kept;
      (void)exec;
      return evaluate;
    }
  }

  void backward(Tape<Exec>& tape) const override {
    using Dirs = Directions<Op, Queries, References, QueryValues, ReferenceValues, Corr>;
    // The most gradient targets of each role: one per `Variable` among its views.
    using Roles = RoleVariables<Queries, References, QueryValues, ReferenceValues, Corr>;
    const OutPrimal* ybar = sphad::detail::TapeAccess::gradient_slot(tape, output, true).data();
    // Every variable has a gradient after the sweep, zero where it does not enter.
    const auto touch = [&](const auto& view) {
      if constexpr (is_variable_v<std::remove_cv_t<std::remove_reference_t<decltype(view)>>>) {
        sphad::detail::TapeAccess::gradient_slot(tape, view);
      }
      return view;
    };
    map_set(queries, touch);
    map_set(references, touch);
    if constexpr (Dirs::total > 0) {
      // Split terms seed the kernel inputs in Dual<S, Dirs::kernel> and the particle inputs in
      // their own duals; whole terms seed everything in one Dual<S, Dirs::total>. Gradient
      // targets index the pass's Dirs::total directions either way.
      constexpr bool split = splits_term_v<Op>;
      constexpr int KK = split ? Dirs::kernel : Dirs::total;
      // A kernel part that is a kernel quantity is evaluated in S with its hand-written
      // adjoint: its inputs are read untracked, their directions and targets assigned all the
      // same.
      constexpr bool linearized = split && kernel_part_v<Op> != KernelPart::other;
      const Untracked untracked;
      // x_i seeded (x_j plain) makes the pair vector's directions ∂/∂x_ij.
      const auto seed_positions = [&](const auto& view) {
        if constexpr (Dirs::position > 0 && !linearized) {
          return SeedView<view_element_t<std::decay_t<decltype(view)>>, KK>(view.data(),
                                                                            view.size(), 0);
        } else {
          return view;
        }
      };
      Seeder<KK, S, Exec, Roles::queries> kernel_query{tape, {}, Dirs::position};
      if constexpr (Dirs::query_positions) {
        kernel_query.targets.push(target_of<S>(tape, queries.positions, 0));
      }
      Seeder<KK, S, Exec, Roles::references> kernel_reference{
          tape, {}, Dirs::kernel_reference_begin};
      // The supports the operator reads (both, unless a split term under Gather or Scatter).
      const auto kernel_input = [&](auto& seeder, const auto& view) {
        if constexpr (linearized) {
          (void)seeder(view);
          return untracked(view);
        } else {
          return seeder(view);
        }
      };
      const auto query_supports = [&](const auto& view) {
        if constexpr (Dirs::reads_query_support) {
          return kernel_input(kernel_query, view);
        } else {
          return untracked(view);
        }
      };
      const auto reference_supports = [&](const auto& view) {
        if constexpr (Dirs::reads_reference_support) {
          return kernel_input(kernel_reference, view);
        } else {
          return untracked(view);
        }
      };
      const std::int64_t nq = queries.size(), nr = references.size();
      // One set in both roles: its indices say where in memory a reference lies.
      const bool one_set =
          primal_view(queries.positions).data() == primal_view(references.positions).data();
      const auto run = [&](const auto& pairs, const auto& particle_query,
                           const auto& particle_reference) {
        SPHAD_ASSERT(kernel_query.next == Dirs::kernel_reference_begin &&
                     kernel_reference.next == Dirs::kernel);
        GradientTargets<S, Roles::queries> query_targets{};
        GradientTargets<S, Roles::references> reference_targets{};
        if constexpr (Dirs::reference_positions) {
          reference_targets.push(target_of<S>(tape, references.positions, 0));
        }
        const auto take = [](auto& to, const auto& seeder, bool stored) {
          for (int t = 0; t < seeder.targets.count; ++t) {
            GradientTarget<S> target = seeder.targets.targets[t];
            target.offset = stored ? Dirs::stored_at(target.offset) : target.offset;
            to.push(target);
          }
        };
        take(query_targets, kernel_query, false);
        take(query_targets, particle_query, false);
        take(reference_targets, kernel_reference, true);
        take(reference_targets, particle_reference, true);
        reverse_sweep<Dirs, S>(tape, rows, columns, chunks, nq, nr, pairs, ybar, query_targets,
                               reference_targets, one_set);
      };
      if constexpr (split) {
        // In this order (the seeders number the directions as they go): the query's support,
        // the reference's, then the corrections' states, as `Directions` and
        // `KernelPartAdjoint` lay them out.
        const auto kernel_queries =
            map_query_role(queries, seed_positions, query_supports, untracked);
        const auto kernel_references =
            map_reference_role(references, reference_supports, untracked);
        const auto kernel_corrections = map_corrections(
            corrections, [&](const auto& view) { return kernel_input(kernel_query, view); },
            untracked, untracked);
        const auto kernel_eval =
            evaluator(kernel_queries, kernel_references, untracked(query_values),
                      untracked(reference_values), kernel_corrections, NoStore{});
        using Part = decltype(Op::kernel_part(kernel_eval.make_pair(0, 0, {})));
        // The particle inputs take directions [0, Dirs::particle) of Dual<S, KC> (G's scalars
        // the rest; a factored combination seeds them apart: KC = Dirs::particle), which are the
        // pass's [Dirs::kernel, Dirs::total).
        constexpr int KC =
            Dirs::particle +
            (uses_factored_v<Op, Dirs> ? 0 : leaf_count<primal_of_t<Part, Dual<S, KK>>>());
        Seeder<KC, S, Exec, Roles::queries> particle_query{tape, {}, 0, Dirs::kernel};
        Seeder<KC, S, Exec, Roles::references> particle_reference{
            tape, {}, Dirs::particle_query, Dirs::kernel};
        const auto q = map_query_role(queries, untracked, untracked, particle_query);
        const auto qv = particle_query(query_values);
        const auto r = map_reference_role(references, untracked, particle_reference);
        const auto rv = particle_reference(reference_values);
        const auto c = map_corrections(corrections, untracked, particle_query, particle_reference);
        Buffer<typename decltype(evaluator(q, r, qv, rv, c, NoStore{}))::S::volume, Exec> volumes;
        const auto particle_eval =
            with_volumes_once(evaluator(q, r, qv, rv, c, NoStore{}), volumes, tape.exec());
        using Linearized =
            std::conditional_t<linearized, KernelPartAdjoint<Op, Dirs, Corr, S>, void>;
        run(SplitTermDirections<Op, Dirs, S, OutPrimal, std::decay_t<decltype(kernel_eval)>,
                                std::decay_t<decltype(particle_eval)>, Linearized>{kernel_eval,
                                                                                   particle_eval},
            particle_query, particle_reference);
      } else {
        Seeder<KK, S, Exec, Roles::queries> particle_query{tape, {}, Dirs::kernel};
        Seeder<KK, S, Exec, Roles::references> particle_reference{
            tape, {}, Dirs::particle_reference_begin};
        const auto q = map_query_role(queries, seed_positions, query_supports, particle_query);
        const auto qv = particle_query(query_values);
        const auto r = map_reference_role(references, reference_supports, particle_reference);
        const auto rv = particle_reference(reference_values);
        const auto c =
            map_corrections(corrections, kernel_query, particle_query, particle_reference);
        Buffer<typename decltype(evaluator(q, r, qv, rv, c, NoStore{}))::S::volume, Exec> volumes;
        const auto evaluate =
            with_volumes_once(evaluator(q, r, qv, rv, c, NoStore{}), volumes, tape.exec());
        // The same pairs with every input untracked: what a term's own transpose reads.
        const auto plain =
            evaluator(map_query_role(queries, untracked, untracked, untracked),
                      map_reference_role(references, untracked, untracked), untracked(query_values),
                      untracked(reference_values),
                      map_corrections(corrections, untracked, untracked, untracked), NoStore{});
        run(WholeTermDirections<Dirs, S, OutPrimal, std::decay_t<decltype(evaluate)>,
                                std::decay_t<decltype(plain)>>{evaluate, plain},
            particle_query, particle_reference);
      }
    }
  }
};

} // namespace sphad::pairloop
