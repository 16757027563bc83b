// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/kernels/lattice.hpp>
#include <sphad/ops/operators.hpp>
#include <sphad/ops/pairs.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pair/options.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/pairloop/launch.hpp>
#include <sphad/particles.hpp>
#include <sphad/scalar_traits.hpp>
#include <sphad/search/hash_grid.hpp>
#include <sphad/search/list_checks.hpp>
#include <sphad/search/neighbor_list.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>

/// \file
/// \brief `apply<Op>`: evaluate an operator for every query particle over a neighbour list or
/// directly over the search grid, with kind/direction filtering and validation.

namespace sphad {

namespace ops {
/// The scalar an operator call computes in: the promotion of every particle field's and
/// correction state's scalar (plain unless one carries tangents).
template <class Queries, class References = Queries, class Corr = Uncorrected>
using call_scalar_t = pairloop::call_scalar_t<Queries, References, Corr>;

/// What each query gets from operator Op called with these sets, field views and corrections.
template <class Op,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr = Uncorrected>
using output_of_t =
    pairloop::output_of_t<Op, Queries, References, QueryValues, ReferenceValues, Corr>;
namespace detail {
/// No member unless Corr is an `ops::Corrections` (so the overloads without value arguments
/// drop out of other calls).
template <class Op, class Queries, class References, class Corr, bool = is_corrections_v<Corr>>
struct FieldlessOutput {};
template <class Op, class Queries, class References, class Corr>
struct FieldlessOutput<Op, Queries, References, Corr, true> {
  using type = output_of_t<Op, Queries, References, Span<const NoField>, Span<const NoField>, Corr>;
};
} // namespace detail

/// What each query gets from an operator without fields (Density, Covariance).
template <class Op, class Queries, class References, class Corr = Uncorrected>
using fieldless_output_t = typename detail::FieldlessOutput<Op, Queries, References, Corr>::type;
} // namespace ops

namespace ops {
/// What each query gets from Op over pairs P, called with the value arguments Args.
template <class Op, class P, class... Args>
using pairs_output_t = detail::pairs_call_t<output_of_t, Op, P, Args...>;
} // namespace ops

/// Evaluates operator `Op` at every query particle of `pairs` (`ops::pairs`: the query and
/// reference sets, the domain, the adjacency and the options), writing one output per query
/// into caller memory `out` ([Nq] in the space's memory, shaped per operator). The value
/// arguments after `out`: none (Density, Covariance), one view for queries and references, or
/// the query values [Nq] then the reference values [Nr] (`Span`s of scalars, `Vec`s or `Mat`s,
/// `DualView`s of them, or — host memory — `std::vector`s); then optionally the corrections.
/// The pairs' adjacency is a neighbour list (rows in query order, reference indices; e.g. from
/// `build_neighbor_list` with a scheme at least as wide as Op's) or a `search::HashGrid` over
/// the reference positions built with `search::build_search_grid<Op::support>`, traversed
/// directly (the same pairs in the same order as the list, so bitwise equal results).
/// Allocates nothing and never synchronizes: on CUDA the call can be captured into a graph.
/// Kinds and `options.direction` filter pairs; filtered queries get 0. Self and coincident
/// pairs are summed. Throws `InvalidArgument` before any launch for size mismatches,
/// missing densities or values, a list of the wrong length, an output of the wrong length, bad
/// domains, unknown directions, bad calibration and incomplete correction states. Nq = 0
/// launches nothing; Nr = 0 gives zeros.
/// Every floating input may carry tangents (forward mode): a set or correction state with `Dual`
/// elements or `DualView`s (`with_tangents`), or dual field values; the output then carries the
/// directional derivatives (`jvp` returns them as separate arrays).
template <class Op, class Exec, class Q, class R, class Adjacency, class... Args>
void apply_into(const Exec& exec,
                const ops::Pairs<Q, R, Adjacency>& pairs,
                Span<ops::pairs_output_t<Op, ops::Pairs<Q, R, Adjacency>, Args...>> out,
                const Args&... args) {
  ops::detail::with_call_values(
      [&](const auto& qv, const auto& rv, const auto& c) {
        constexpr const char* function = "apply";
        const std::int64_t n = pairs.queries.size();
        SPHAD_REQUIRE(out.size() == n, function, "out",
                      sphad::detail::concat("has ", out.size(), " entries for ", n, " queries"));
        using Out = ops::pairs_output_t<Op, ops::Pairs<Q, R, Adjacency>, Args...>;
        pairloop::evaluate_all<Op>(exec, pairs.queries, pairs.references, pairs.domain,
                                   *pairs.adjacency, qv, rv, pairs.options, c,
                                   pairloop::StoreAt<Out>{out.data()}, function);
      },
      args...);
}

/// `apply_into` with the output allocated here: a `Buffer` of Nq outputs in the memory of
/// `Exec` (stream-ordered on CUDA: still no synchronization). `apply<Op>(exec, pairs)` for an
/// operator without fields, `apply<Op>(exec, pairs, values)`, `apply<Op>(exec, pairs,
/// query_values, reference_values)`, each optionally followed by the corrections.
template <class Op, class Exec, class Q, class R, class Adjacency, class... Args>
Buffer<ops::pairs_output_t<Op, ops::Pairs<Q, R, Adjacency>, Args...>, Exec>
apply(const Exec& exec, const ops::Pairs<Q, R, Adjacency>& pairs, const Args&... args) {
  using Out = ops::pairs_output_t<Op, ops::Pairs<Q, R, Adjacency>, Args...>;
  Buffer<Out, Exec> out(exec, pairloop::checked_size(pairs.queries, "apply", "queries"));
  apply_into<Op>(exec, pairs, Span<Out>{out.data(), out.size()}, args...);
  return out;
}

} // namespace sphad
