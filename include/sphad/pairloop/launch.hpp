// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/pair/options.hpp>
#include <sphad/pairloop/evaluate.hpp>
#include <sphad/pairloop/validate_call.hpp>
#include <sphad/pairloop/vocabulary.hpp>

/// \file
/// \brief The pair loop's launch: a checked call's `Evaluate` over every query
/// (`launch_all`), and the checks, the traversal and the launch in one (`evaluate_all`), which
/// the verbs (`apply`, `jvp`, the record's primal) call.

namespace sphad {

namespace pairloop {

/// Launches a call already checked (`validate_call`, `traversal`): `store(i, value)` receives
/// each query's result, `rows` (neighbours and kind filter) and `factor` are what the checks
/// returned.
template <class Op,
          class Exec,
          class Neighbors,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr,
          class Store>
void launch_all(const Exec& exec,
                const Traversal<Neighbors>& rows,
                const Queries& queries,
                const References& references,
                const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
                const QueryValues& query_values,
                const ReferenceValues& reference_values,
                typename Queries::primal_scalar factor,
                const Corr& corrections,
                Store store,
                bool skip_self_pairs = false) {
  using Launch =
      Evaluate<Op, Neighbors, Queries, References, QueryValues, ReferenceValues, Corr, Store>;
  exec::for_each_index(exec, queries.size(),
                       Launch{rows.neighbors, queries, references, domain, rows.filter,
                              query_values, reference_values, factor, corrections, store,
                              skip_self_pairs});
}

/// Validates a call whose output has already been checked and launches it: `store(i, value)`
/// receives each query's result.
template <class Op,
          class Exec,
          class Adjacency,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr,
          class Store>
void evaluate_all(const Exec& exec,
                  const Queries& queries,
                  const References& references,
                  const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
                  const Adjacency& adjacency,
                  const QueryValues& query_values,
                  const ReferenceValues& reference_values,
                  const ApplyOptions<typename Queries::primal_scalar>& options,
                  const Corr& corrections,
                  Store store,
                  const char* function,
                  bool skip_self_pairs = false) {
  const auto& qv = as_view(query_values); // a std::vector as a Span
  const auto& rv = as_view(reference_values);
  const auto factor =
      validate_call<Op>(queries, references, domain, qv, rv, options, corrections, function);
  const auto rows =
      traversal<Op::support>(exec, adjacency, queries, references, options.direction, function);
  launch_all<Op>(exec, rows, queries, references, domain, qv, rv, factor, corrections, store,
                 skip_self_pairs);
}

} // namespace pairloop

} // namespace sphad
