// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ops/apply.hpp>
#include <sphad/pair/leaves.hpp>
#include <sphad/pairloop/dual_parts.hpp>

#include <cstdint>
#include <type_traits>

/// \file
/// \brief `jvp<Op>`: an operator's primal output and its directional derivatives as separate
/// arrays, from inputs whose views carry tangents.

namespace sphad {

namespace ops::detail {

/// The primal output type and tangent count of a JVP call (`jvp_into` asserts that some input
/// carries tangents; the type itself is formed for any call, so overload resolution can ask).
template <class Op, class Queries, class References, class QV, class RV, class Corr>
struct JVPTypes {
  using output = output_of_t<Op, Queries, References, QV, RV, Corr>;
  static constexpr bool has_tangents = is_dual_v<scalar_of_t<output>>;
  static constexpr int directions = tangent_count_v<scalar_of_t<output>>;
  using primal = typename pairloop::StoreSplit<output, directions>::Primal;
};

/// The primal output of a JVP of an operator without fields; no member unless Corr is an
/// `ops::Corrections` (so the overloads without value arguments drop out of other calls).
template <class Op, class Queries, class References, class Corr, bool = is_corrections_v<Corr>>
struct FieldlessJVPPrimal {};
template <class Op, class Queries, class References, class Corr>
struct FieldlessJVPPrimal<Op, Queries, References, Corr, true> {
  using type =
      typename JVPTypes<Op, Queries, References, Span<const NoField>, Span<const NoField>, Corr>::
          primal;
};

} // namespace ops::detail

namespace ops {
/// The primal output element of a JVP call of Op (its output without the tangents).
template <class Op,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr = Uncorrected>
using jvp_primal_t =
    typename detail::JVPTypes<Op, Queries, References, QueryValues, ReferenceValues, Corr>::primal;
/// The primal output element of a JVP call of an operator without fields (Density, Covariance).
template <class Op, class Queries, class References, class Corr = Uncorrected>
using fieldless_jvp_primal_t =
    typename detail::FieldlessJVPPrimal<Op, Queries, References, Corr>::type;
} // namespace ops

/// The primal output [Nq] and the N tangent outputs [N · Nq] (direction k at k · Nq) of a JVP.
template <class Out, class Exec>
struct JVPResult {
  Buffer<Out, Exec> primal;
  Buffer<Out, Exec> tangents;
};

namespace ops {
/// The primal output element of a JVP of Op over pairs P with the value arguments Args.
template <class Op, class P, class... Args>
using pairs_jvp_primal_t = detail::pairs_call_t<jvp_primal_t, Op, P, Args...>;
} // namespace ops

/// Forward mode: evaluates `Op` over `pairs` like `apply_into` (the value arguments as there)
/// and writes the primal output to `primal` ([Nq]) and the directional derivatives to
/// `tangents` ([N · Nq], direction-major). Any input view may carry tangents — a `DualView`
/// pairing a primal array with N tangent arrays (`with_tangents`; sets: `with_positions(...)`
/// etc.; correction states: `.with_tangents(...)`) or an array of `Dual` elements — and only
/// those pay; an input without tangents is an exact zero direction. Kinds, neighbour lists,
/// grids and the domain carry none (they cannot be given any). The primal equals `apply`'s
/// bitwise. Allocates nothing and never synchronizes. Throws like `apply_into` (argument names
/// `primal`, `tangents` for outputs).
template <class Op, class Exec, class Q, class R, class Adjacency, class... Args>
void jvp_into(const Exec& exec,
              const ops::Pairs<Q, R, Adjacency>& pairs,
              Span<ops::pairs_jvp_primal_t<Op, ops::Pairs<Q, R, Adjacency>, Args...>> primal,
              Span<ops::pairs_jvp_primal_t<Op, ops::Pairs<Q, R, Adjacency>, Args...>> tangents,
              const Args&... args) {
  ops::detail::with_call_values(
      [&](const auto& qv, const auto& rv, const auto& c) {
        constexpr const char* function = "jvp";
        using Types = ops::detail::JVPTypes<Op, Q, R, std::decay_t<decltype(qv)>,
                                            std::decay_t<decltype(rv)>, std::decay_t<decltype(c)>>;
        static_assert(Types::has_tangents,
                      "sphad::jvp: no input carries tangents; give at least one input a DualView "
                      "(with_tangents) or Dual elements, or call apply");
        const std::int64_t n = pairs.queries.size();
        SPHAD_REQUIRE(primal.size() == n, function, "primal",
                      sphad::detail::concat("has ", primal.size(), " entries for ", n, " queries"));
        SPHAD_REQUIRE(tangents.size() == Types::directions * n, function, "tangents",
                      sphad::detail::concat("has ", tangents.size(), " entries; ",
                                            Types::directions, " direction(s) of ", n,
                                            " queries need ", Types::directions * n));
        pairloop::evaluate_all<Op>(exec, pairs.queries, pairs.references, pairs.domain,
                                   *pairs.adjacency, qv, rv, pairs.options, c,
                                   pairloop::StoreSplit<typename Types::output, Types::directions>{
                                       primal.data(), tangents.data(), n},
                                   function);
      },
      args...);
}

/// `jvp_into` over `pairs` with both outputs allocated here (stream-ordered on CUDA, no
/// synchronization): `jvp<Op>(exec, pairs, values...[, corrections])`.
template <class Op, class Exec, class Q, class R, class Adjacency, class... Args>
JVPResult<ops::pairs_jvp_primal_t<Op, ops::Pairs<Q, R, Adjacency>, Args...>, Exec>
jvp(const Exec& exec, const ops::Pairs<Q, R, Adjacency>& pairs, const Args&... args) {
  using Primal = ops::pairs_jvp_primal_t<Op, ops::Pairs<Q, R, Adjacency>, Args...>;
  using Types = ops::detail::PairsCall<ops::detail::JVPTypes, Op, ops::Pairs<Q, R, Adjacency>,
                                       ops::detail::CallValues<Args...>>;
  const std::int64_t n = pairloop::checked_size(pairs.queries, "jvp", "queries");
  const std::int64_t directions = [] {
    if constexpr (ops::detail::CallValues<Args...>::well_formed) {
      return std::int64_t(Types::type::directions);
    } else {
      return std::int64_t(0);
    }
  }();
  JVPResult<Primal, Exec> out{Buffer<Primal, Exec>(exec, n),
                              Buffer<Primal, Exec>(exec, directions * n)};
  jvp_into<Op>(exec, pairs, Span<Primal>{out.primal.data(), out.primal.size()},
               Span<Primal>{out.tangents.data(), out.tangents.size()}, args...);
  return out;
}

} // namespace sphad
