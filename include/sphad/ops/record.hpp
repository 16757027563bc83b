// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/domain.hpp>
#include <sphad/ops/apply.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pairloop/field_maps.hpp>
#include <sphad/pairloop/reverse/direction_layout.hpp>
#include <sphad/pairloop/reverse/operator_record.hpp>
#include <sphad/search/neighbor_list.hpp>
#include <sphad/search/transpose.hpp>
#include <sphad/sim/record_map.hpp>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

/// \file
/// \brief `record<Op>`: evaluates an operator like `apply` and records it on a `Tape`; its
/// backward is derived from the operator's one pair term by local forward mode over each pair's
/// own inputs, one evaluation per pair: the queries sum their rows; on the host the references'
/// adjoints are summed per chunk of rows (a fixed number of chunks, each into its own array) and
/// then over the chunks, on CUDA each pair stores them and the references gather over the
/// entries grouped by reference. No atomics: the gradients are bitwise reproducible, on any
/// thread count. Includes `record_map` (<sphad/sim/record_map.hpp>), the row-wise functions'
/// record. The backward's parts live in the engine's <sphad/pairloop/reverse/>:
/// `operator_record.hpp` (the record and its backward), `sweep.hpp` and `policy.hpp` (the sweep
/// and its per-space constants), `pair_directions.hpp` and `kernel_part_adjoint.hpp` (a pair's
/// directions), `direction_layout.hpp`, `gradient_targets.hpp`, `row_chunks.hpp` and
/// `leaf_algebra.hpp` (and <sphad/pairloop/field_maps.hpp>).

namespace sphad {

namespace ops::detail {
/// `record` over pairs with the value arguments parsed.
template <class Op,
          class Exec,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr>
auto record_over(Tape<Exec>& tape,
                 const Pairs<Queries, References, NeighborList<Exec>>& pairs,
                 const QueryValues& query_values,
                 const ReferenceValues& reference_values,
                 const Corr& corrections) {
  using namespace pairloop;
  const Queries& queries = pairs.queries;
  const References& references = pairs.references;
  const auto& domain = pairs.domain;
  const NeighborList<Exec>& neighbors = *pairs.adjacency;
  const auto& options = pairs.options;
  static_assert(!is_std_vector_v<QueryValues> && !is_std_vector_v<ReferenceValues>,
                "sphad::record: the record keeps its field values as views until the backward; "
                "pass a Variable, or Span<const T>(vector) for values without a gradient");
  constexpr const char* function = "record";
  const auto tracks_an_array = [&](const char* field, const auto& view) {
    require_tracks_an_array(view, &tape, function, field);
  };
  for_each_field(queries, query_fields, tracks_an_array);
  for_each_field(references, reference_fields, tracks_an_array);
  tracks_an_array("query_values", query_values);
  tracks_an_array("reference_values", reference_values);
  for_each_correction_field(corrections, tracks_an_array);
  const Untracked untracked;
  const auto q = map_set(queries, untracked);
  const auto r = map_set(references, untracked);
  const auto qv = untracked(query_values);
  const auto rv = untracked(reference_values);
  const auto c = map_corrections(corrections, untracked, untracked, untracked);
  using Out = output_of_t<Op, decltype(q), decltype(r), decltype(qv), decltype(rv), decltype(c)>;
  // Everything is checked before the tape changes; the launch reuses the checks' results.
  const auto factor = validate_call<Op>(q, r, domain, qv, rv, options, c, function);
  const auto rows =
      traversal<Op::support>(tape.exec(), neighbors, q, r, options.direction, function);
  Variable<Out> out = sphad::detail::TapeAccess::make_output<Out>(tape, q.size());
  launch_all<Op>(tape.exec(), rows, q, r, domain, qv, rv, factor, c,
                 StoreAt<Out>{const_cast<Out*>(out.data())});
  using Dirs = Directions<Op, Queries, References, QueryValues, ReferenceValues, Corr>;
  if constexpr (Dirs::any) {
    // With per-pair slots (CUDA; the host on request) the references gather their pairs'
    // adjoints over the transposed entries (when any); the host's chunked sums need none.
    const bool gathers = Dirs::per_pair > 0 && tape.uses_pair_slots();
    // (the list was checked with the launch)
    auto transposed = gathers ? search::group_entries(tape.exec(), neighbors, references.size())
                              : search::group_entries(tape.exec(), NeighborList<Exec>{}, 0);
    // The list's copy; on the host, with the sweep's chunks of rows found in the same pass
    // (summing by chunks).
    auto [copy, chunks] = pairloop::copy_with_chunks(tape.exec(), neighbors, references.size(),
                                                     !tape.uses_pair_slots(), Dirs::per_pair > 0);
    sphad::detail::TapeAccess::push(
        tape,
        std::make_unique<
            OperatorRecord<Op, Exec, Queries, References, QueryValues, ReferenceValues, Corr, Out>>(
            queries, references, domain, std::move(copy), std::move(transposed), std::move(chunks),
            query_values, reference_values, rows.filter, factor, corrections, out));
  }
  return out;
}

/// `record` on a plain tape with the value arguments parsed: the same checks and launch, into
/// the plain tape's next output slot, nothing recorded.
template <class Op,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          class QueryValues,
          class ReferenceValues,
          class Corr>
auto record_plain(PlainTape<Exec>& tape,
                  const Pairs<Queries, References, Adjacency>& pairs,
                  const QueryValues& query_values,
                  const ReferenceValues& reference_values,
                  const Corr& corrections) {
  using namespace pairloop;
  constexpr const char* function = "record";
  const auto readable = [&](const char* field, const auto& view) {
    sphad::detail::require_readable(view, tape, function, field);
  };
  for_each_field(pairs.queries, query_fields, readable);
  for_each_field(pairs.references, reference_fields, readable);
  readable("query_values", query_values);
  readable("reference_values", reference_values);
  for_each_correction_field(corrections, readable);
  const Untracked untracked;
  const auto q = map_set(pairs.queries, untracked);
  const auto r = map_set(pairs.references, untracked);
  const auto qv = untracked(query_values);
  const auto rv = untracked(reference_values);
  const auto c = map_corrections(corrections, untracked, untracked, untracked);
  using Out = output_of_t<Op, decltype(q), decltype(r), decltype(qv), decltype(rv), decltype(c)>;
  const std::int64_t n = checked_size(q, function, "queries");
  const Variable<Out> out = sphad::detail::make_output<Out>(tape, n);
  evaluate_all<Op>(tape.exec(), q, r, pairs.domain, *pairs.adjacency, qv, rv, pairs.options, c,
                   StoreAt<Out>{const_cast<Out*>(out.data())}, function);
  return out;
}
} // namespace ops::detail

/// Reverse mode: `record<Op>(tape, pairs, values...[, corrections])` over `pairs` (`ops::pairs`
/// over a `NeighborList` of the tape's space; the value arguments as in `apply`) evaluates `Op`
/// like `apply` and records the launch on `tape` when any input
/// is a `Variable` (a set field, the field values, a correction state's array); returns the
/// output [Nq] as a `Variable` owned by the tape (feed it to later records, seed it in
/// `Tape::backward`). A `Variable` used in several roles (the same set as queries and
/// references, Ω of both sides) gets the sum of its roles once. The record keeps the argument
/// views as they are now (the arrays must stay alive until the backward; writing a variable
/// through `Variable::write` after recording makes the backward throw) and its own copy of
/// the pairs' list (on CUDA also its entries grouped by reference, `transpose_entries`; built here,
/// stream-ordered; rebuild the list freely). The backward is the operator's own pair term in
/// dual numbers, one direction per scalar of a pair's tracked inputs (the pair vector standing
/// for both positions), each pair evaluated once: queries sum their rows, references sum their
/// pairs' adjoints in a fixed order (host: per chunk of rows, then over the chunks; CUDA: over
/// the grouped entries) — no atomics, bitwise reproducible on any thread count. Every operator,
/// scheme and correction differentiates, in every input a `Variable` may track; kinds and
/// directions filter the pairs exactly as in the primal (a pair the primal skips adds no
/// adjoint). Throws like `apply_into` before anything is recorded.
template <class Op, class Exec, class Q, class R, class Adjacency, class... Args>
auto record(Tape<Exec>& tape, const ops::Pairs<Q, R, Adjacency>& pairs, const Args&... args) {
  static_assert(std::is_same_v<Adjacency, NeighborList<Exec>>,
                "sphad::record: the pairs must be over a neighbour list of the tape's execution "
                "space (a record keeps a copy of its list; it does not traverse a search grid)");
  return ops::detail::with_call_values(
      [&](const auto& qv, const auto& rv, const auto& c) {
        return ops::detail::record_over<Op>(tape, pairs, qv, rv, c);
      },
      args...);
}

/// `record<Op>` on a plain tape: evaluates `Op` exactly as on a `Tape` (the same checks, launch
/// and bits) into the plain tape's next output slot and records nothing; returns the output as
/// a `Variable` the plain tape owns (valid until its `reset()`). The pairs may be over a
/// neighbour list or a search grid, as for `apply`; `Variable` inputs are read as arrays.
template <class Op, class Exec, class Q, class R, class Adjacency, class... Args>
auto record(PlainTape<Exec>& tape, const ops::Pairs<Q, R, Adjacency>& pairs, const Args&... args) {
  return ops::detail::with_call_values(
      [&](const auto& qv, const auto& rv, const auto& c) {
        return ops::detail::record_plain<Op>(tape, pairs, qv, rv, c);
      },
      args...);
}

} // namespace sphad
