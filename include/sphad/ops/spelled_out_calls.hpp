// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/domain.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/ops/apply.hpp>
#include <sphad/ops/jvp.hpp>
#include <sphad/ops/pairs.hpp>
#include <sphad/ops/record.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pair/options.hpp>
#include <sphad/search/neighbor_list.hpp>

#include <type_traits>

/// \file
/// \brief The verbs' deprecated overloads that take the queries, references, domain, adjacency
/// and options one by one (`apply`, `apply_into`, `jvp`, `jvp_into`, `record`): each forwards
/// to the verb over `ops::pairs` and goes in the next release, with this file (CHANGELOG.md).
/// `sphad/ops.hpp` includes it.

/// Marks a verb's overload that takes the queries, references, domain, adjacency and options
/// one by one.
#define SPHAD_DEPRECATED_SPELLED_OUT                                                               \
  [[deprecated("pass ops::pairs(queries, references, domain, adjacency, options) instead of the "  \
               "five arguments (the values and corrections follow the pairs)")]]

namespace sphad {

/// Deprecated: `apply_into<Op>(exec, ops::pairs(queries, references, domain, adjacency,
/// options), out, query_values, reference_values, corrections)`, which it forwards to.
template <class Op,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          class QueryValues,
          class ReferenceValues,
          class Corr = ops::Uncorrected,
          std::enable_if_t<ops::detail::are_field_values_v<QueryValues, ReferenceValues> &&
                               !ops::is_pairs_v<Queries>,
                           int> = 0>
SPHAD_DEPRECATED_SPELLED_OUT void
apply_into(const Exec& exec,
           const Queries& queries,
           const References& references,
           const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
           const Adjacency& adjacency,
           const QueryValues& query_values,
           const ReferenceValues& reference_values,
           Span<ops::output_of_t<Op, Queries, References, QueryValues, ReferenceValues, Corr>> out,
           const ApplyOptions<typename Queries::primal_scalar>& options = {},
           const Corr& corrections = {}) {
  apply_into<Op>(exec, ops::pairs(queries, references, domain, adjacency, options), out,
                 query_values, reference_values, corrections);
}

/// Deprecated: `apply<Op>(exec, ops::pairs(queries, references, domain, adjacency, options),
/// query_values, reference_values, corrections)`, which it forwards to.
template <class Op,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          class QueryValues = Span<const ops::NoField>,
          class ReferenceValues = QueryValues,
          class Corr = ops::Uncorrected,
          std::enable_if_t<ops::detail::are_field_values_v<QueryValues, ReferenceValues> &&
                               !ops::is_pairs_v<Queries>,
                           int> = 0>
SPHAD_DEPRECATED_SPELLED_OUT
    Buffer<ops::output_of_t<Op, Queries, References, QueryValues, ReferenceValues, Corr>, Exec>
    apply(const Exec& exec,
          const Queries& queries,
          const References& references,
          const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
          const Adjacency& adjacency,
          const QueryValues& query_values = {},
          const ReferenceValues& reference_values = {},
          const ApplyOptions<typename Queries::primal_scalar>& options = {},
          const Corr& corrections = {}) {
  return apply<Op>(exec, ops::pairs(queries, references, domain, adjacency, options), query_values,
                   reference_values, corrections);
}

/// Deprecated: `apply_into<Op>(exec, ops::pairs(queries, references, domain, adjacency,
/// options), out[, corrections])` for an operator without fields.
template <
    class Op,
    class Exec,
    class Queries,
    class References,
    class Adjacency,
    class Corr = ops::Uncorrected,
    std::enable_if_t<ops::detail::is_corrections_v<Corr> && !ops::is_pairs_v<Queries>, int> = 0>
SPHAD_DEPRECATED_SPELLED_OUT void
apply_into(const Exec& exec,
           const Queries& queries,
           const References& references,
           const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
           const Adjacency& adjacency,
           Span<ops::fieldless_output_t<Op, Queries, References, Corr>> out,
           const ApplyOptions<typename Queries::primal_scalar>& options = {},
           const Corr& corrections = {}) {
  apply_into<Op>(exec, ops::pairs(queries, references, domain, adjacency, options), out,
                 corrections);
}

/// Deprecated: `apply<Op>(exec, ops::pairs(queries, references, domain, adjacency, options)[,
/// corrections])` for an operator without fields.
template <
    class Op,
    class Exec,
    class Queries,
    class References,
    class Adjacency,
    class Corr = ops::Uncorrected,
    std::enable_if_t<ops::detail::is_corrections_v<Corr> && !ops::is_pairs_v<Queries>, int> = 0>
SPHAD_DEPRECATED_SPELLED_OUT Buffer<ops::fieldless_output_t<Op, Queries, References, Corr>, Exec>
apply(const Exec& exec,
      const Queries& queries,
      const References& references,
      const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
      const Adjacency& adjacency,
      const ApplyOptions<typename Queries::primal_scalar>& options,
      const Corr& corrections = {}) {
  return apply<Op>(exec, ops::pairs(queries, references, domain, adjacency, options), corrections);
}

/// Deprecated: `jvp_into<Op>(exec, ops::pairs(queries, references, domain, adjacency, options),
/// primal, tangents, query_values, reference_values, corrections)`, which it forwards to.
template <class Op,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          class QueryValues,
          class ReferenceValues,
          class Corr = ops::Uncorrected,
          std::enable_if_t<ops::detail::are_field_values_v<QueryValues, ReferenceValues> &&
                               !ops::is_pairs_v<Queries>,
                           int> = 0>
SPHAD_DEPRECATED_SPELLED_OUT void jvp_into(
    const Exec& exec,
    const Queries& queries,
    const References& references,
    const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
    const Adjacency& adjacency,
    const QueryValues& query_values,
    const ReferenceValues& reference_values,
    Span<ops::jvp_primal_t<Op, Queries, References, QueryValues, ReferenceValues, Corr>> primal,
    Span<ops::jvp_primal_t<Op, Queries, References, QueryValues, ReferenceValues, Corr>> tangents,
    const ApplyOptions<typename Queries::primal_scalar>& options = {},
    const Corr& corrections = {}) {
  jvp_into<Op>(exec, ops::pairs(queries, references, domain, adjacency, options), primal, tangents,
               query_values, reference_values, corrections);
}

/// Deprecated: `jvp<Op>(exec, ops::pairs(queries, references, domain, adjacency, options),
/// query_values, reference_values, corrections)`, which it forwards to.
template <class Op,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          class QueryValues = Span<const ops::NoField>,
          class ReferenceValues = QueryValues,
          class Corr = ops::Uncorrected,
          std::enable_if_t<ops::detail::are_field_values_v<QueryValues, ReferenceValues> &&
                               !ops::is_pairs_v<Queries>,
                           int> = 0>
SPHAD_DEPRECATED_SPELLED_OUT auto
jvp(const Exec& exec,
    const Queries& queries,
    const References& references,
    const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
    const Adjacency& adjacency,
    const QueryValues& query_values = {},
    const ReferenceValues& reference_values = {},
    const ApplyOptions<typename Queries::primal_scalar>& options = {},
    const Corr& corrections = {})
    -> JVPResult<ops::jvp_primal_t<Op, Queries, References, QueryValues, ReferenceValues, Corr>,
                 Exec> {
  return jvp<Op>(exec, ops::pairs(queries, references, domain, adjacency, options), query_values,
                 reference_values, corrections);
}

/// Deprecated: `jvp_into<Op>(exec, ops::pairs(queries, references, domain, adjacency, options),
/// primal, tangents[, corrections])` for an operator without fields.
template <class Op,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          class Corr = ops::Uncorrected,
          std::enable_if_t<!ops::is_pairs_v<Queries>, int> = 0>
SPHAD_DEPRECATED_SPELLED_OUT void
jvp_into(const Exec& exec,
         const Queries& queries,
         const References& references,
         const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
         const Adjacency& adjacency,
         Span<ops::fieldless_jvp_primal_t<Op, Queries, References, Corr>> primal,
         Span<ops::fieldless_jvp_primal_t<Op, Queries, References, Corr>> tangents,
         const ApplyOptions<typename Queries::primal_scalar>& options = {},
         const Corr& corrections = {}) {
  jvp_into<Op>(exec, ops::pairs(queries, references, domain, adjacency, options), primal, tangents,
               corrections);
}

/// Deprecated: `jvp<Op>(exec, ops::pairs(queries, references, domain, adjacency, options)[,
/// corrections])` for an operator without fields.
template <
    class Op,
    class Exec,
    class Queries,
    class References,
    class Adjacency,
    class Corr = ops::Uncorrected,
    std::enable_if_t<ops::detail::is_corrections_v<Corr> && !ops::is_pairs_v<Queries>, int> = 0>
SPHAD_DEPRECATED_SPELLED_OUT auto
jvp(const Exec& exec,
    const Queries& queries,
    const References& references,
    const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
    const Adjacency& adjacency,
    const ApplyOptions<typename Queries::primal_scalar>& options,
    const Corr& corrections = {}) {
  return jvp<Op>(exec, ops::pairs(queries, references, domain, adjacency, options), corrections);
}

/// Deprecated: `record<Op>(tape, ops::pairs(queries, references, domain, neighbors, options),
/// query_values, reference_values, corrections)`, which it forwards to.
template <class Op,
          template <class>
          class TapeT,
          class Exec,
          class Queries,
          class References,
          class QueryValues = Span<const ops::NoField>,
          class ReferenceValues = QueryValues,
          class Corr = ops::Uncorrected,
          std::enable_if_t<ops::detail::are_field_values_v<QueryValues, ReferenceValues> &&
                               !ops::is_pairs_v<Queries>,
                           int> = 0,
          std::enable_if_t<is_tape_v<TapeT<Exec>>, int> = 0>
SPHAD_DEPRECATED_SPELLED_OUT auto
record(TapeT<Exec>& tape,
       const Queries& queries,
       const References& references,
       const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
       const NeighborList<Exec>& neighbors,
       const QueryValues& query_values = {},
       const ReferenceValues& reference_values = {},
       const ApplyOptions<typename Queries::primal_scalar>& options = {},
       const Corr& corrections = {}) {
  return record<Op>(tape, ops::pairs(queries, references, domain, neighbors, options), query_values,
                    reference_values, corrections);
}

/// Deprecated: `record<Op>(tape, ops::pairs(queries, references, domain, neighbors, options)[,
/// corrections])` for an operator without fields.
template <
    class Op,
    template <class>
    class TapeT,
    class Exec,
    class Queries,
    class References,
    class Corr = ops::Uncorrected,
    std::enable_if_t<ops::detail::is_corrections_v<Corr> && !ops::is_pairs_v<Queries>, int> = 0,
    std::enable_if_t<is_tape_v<TapeT<Exec>>, int> = 0>
SPHAD_DEPRECATED_SPELLED_OUT auto
record(TapeT<Exec>& tape,
       const Queries& queries,
       const References& references,
       const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
       const NeighborList<Exec>& neighbors,
       const ApplyOptions<typename Queries::primal_scalar>& options,
       const Corr& corrections = {}) {
  return record<Op>(tape, ops::pairs(queries, references, domain, neighbors, options), corrections);
}

} // namespace sphad
