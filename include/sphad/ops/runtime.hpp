// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/kernels/dispatch.hpp>
#include <sphad/ops/apply.hpp>
#include <sphad/ops/detail/scalars.hpp>
#include <sphad/ops/families.hpp>
#include <sphad/ops/operators.hpp>
#include <sphad/pair/properties.hpp>

#include <cstdint>
#include <type_traits>

/// \file
/// \brief The runtime front end: `ops::dispatch` turns an `OperationProperties` into the
/// operator type it names, once, at the boundary: the kernel and support scheme here, the rest by
/// the operation's family (`detail::OperatorFamily`, beside each operator type: the operator's
/// identity is its type, and the family maps its runtime description back to it);
/// `evaluate_into` runs it with a flat scalar output, for callers that pick the operator at run
/// time (the reference's `warpOperation`).
///
/// Every combination the lists allow is instantiated: all kernels and support schemes make
/// about 3 300 operator types per (D, scalar, field) — minutes of compile time. Pass only the
/// kernels and schemes your program offers (`kernels::KernelList<...>`, `ops::SupportList<...>`).

namespace sphad::ops {

/// A list of support schemes for `dispatch`.
template <SupportScheme... Schemes>
using SupportList = ValueList<Schemes...>;
using AllSupportSchemes = SupportList<SupportScheme::Gather,
                                      SupportScheme::Scatter,
                                      SupportScheme::MeanSymmetric,
                                      SupportScheme::KernelMeanSymmetric,
                                      SupportScheme::SuperSymmetric,
                                      SupportScheme::PartialSymmetric>;

/// Calls `f(K{})` for the kernel K of the list whose id is `id`; throws from `function` naming
/// `argument` for an unknown id or one not in the list.
template <class F, class First, class... Rest>
decltype(auto) dispatch_enabled_kernel(KernelId id,
                                       const char* function,
                                       const char* argument,
                                       F&& f,
                                       kernels::KernelList<First, Rest...>) {
  if (id == First::id) {
    return f(First{});
  }
  if constexpr (sizeof...(Rest) > 0) {
    return dispatch_enabled_kernel(id, function, argument, static_cast<F&&>(f),
                                   kernels::KernelList<Rest...>{});
  } else {
    bool known = false;
    for (const KernelId k : kernels::all_kernel_ids) {
      known = known || k == id;
    }
    sphad::detail::throw_invalid_argument(
        function, argument,
        known ? sphad::detail::concat(kernels::kernel_name(id),
                                      " is not in the kernel list this front end was "
                                      "instantiated with")
              : sphad::detail::concat("unknown KernelId (got ", static_cast<int>(id), ")"));
  }
}

namespace detail {

/// The operations `dispatch` knows, each built by its family (`OperatorFamily`, beside the
/// operator's type).
using Operations = ValueList<Operation::Interpolate,
                             Operation::Gradient,
                             Operation::Divergence,
                             Operation::Curl,
                             Operation::Laplacian,
                             Operation::Density,
                             Operation::Covariance>;

/// `f(Op{})` for the operation of `p` with kernel K and support scheme S.
template <class K, SupportScheme S, class F>
decltype(auto) dispatch_operation(const OperationProperties& p, F&& f) {
  const OperationProperties c = canonical(p);
  return dispatch_value(
      c.operation, "properties.operation",
      [&](auto operation) -> decltype(auto) {
        constexpr Operation op = decltype(operation)::value;
        return OperatorFamily<op>::template with_type<K, S>(c, [&](auto type) -> decltype(auto) {
          static_assert(decltype(type)::properties.operation == op,
                        "sphad::ops::dispatch: an operator family builds a type of another "
                        "operation");
          return f(type);
        });
      },
      Operations{});
}

/// Stores query i's result as scalars at values[i · count ...]; a Covariance result's neighbour
/// count goes to `neighbor_counts[i]` when given.
template <class T>
struct StoreScalars {
  T* values;
  std::int32_t* neighbor_counts;

  template <class Out>
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i, const Out& value) const {
    store_scalars(value, values + i * scalar_count<Out>());
  }
  template <int D>
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i,
                                                 const CovarianceResult<T, D>& value) const {
    store_scalars(value.matrix, values + i * (D * D));
    if (neighbor_counts != nullptr) {
      neighbor_counts[i] = value.neighbors;
    }
  }
};

template <class X>
struct scalars_of {
  static constexpr int value = scalar_count<X>();
};
template <class T, int D>
struct scalars_of<CovarianceResult<T, D>> {
  static constexpr int value = D * D;
};

} // namespace detail

/// Calls `f(Op{})` with the operator type `properties` names (after `canonical`) and returns
/// what f returns (every call of f must return the same type). Throws `InvalidArgument` naming
/// the field (`properties.kernel`, ...) for a value that is unknown or not in the lists.
/// @tparam Kernels   the kernels to instantiate (`kernels::KernelList<...>`), default all
/// @tparam Supports  the support schemes to instantiate (`SupportList<...>`), default all
template <class Kernels = kernels::AllKernels, class Supports = AllSupportSchemes, class F>
decltype(auto) dispatch(const OperationProperties& properties, F&& f) {
  return dispatch_enabled_kernel(
      properties.kernel, "ops::dispatch", "properties.kernel",
      [&](auto kernel) -> decltype(auto) {
        return dispatch_value(
            properties.support, "properties.support",
            [&](auto support) -> decltype(auto) {
              return detail::dispatch_operation<decltype(kernel), decltype(support)::value>(
                  properties, f);
            },
            Supports{});
      },
      Kernels{});
}

/// Scalars per query that `evaluate_into` writes for `properties` on fields F in D dimensions
/// (e.g. 1 for Density, D for the gradient of a scalar, D·D for Covariance). Throws
/// `InvalidArgument` naming `query_values` when the operation does not take such a field.
template <int D, class T, class F>
std::int64_t output_scalars(const OperationProperties& properties) {
  OperationProperties any_kernel = properties; // the shape does not depend on the kernel
  any_kernel.kernel = KernelId::Wendland2;
  any_kernel.support = SupportScheme::Gather;
  return dispatch<kernels::KernelList<kernels::Wendland2>, SupportList<SupportScheme::Gather>>(
      any_kernel, [](auto op) -> std::int64_t {
        using Op = decltype(op);
        if constexpr (Op::template accepts_field<D, F>) {
          return detail::scalars_of<typename Op::template output_t<D, T, F>>::value;
        } else {
          sphad::detail::throw_invalid_argument(
              "evaluate", "query_values",
              "this operation does not take fields of this type (Divergence: a vector of extent "
              "D or a matrix with D rows (standard) or columns (dot); Curl: the same for D >= 2; "
              "the Laplacian's Dot and positiveDivergence: a scalar or vector with a multiple "
              "of D, at least D, components)");
        }
      });
}

/// Evaluates the operator `properties` names at every query: the operator's output, flattened
/// row-major with its derivative axis last, goes to `out[i · output_scalars ...]` ([Nq ·
/// output_scalars] scalars in the space's memory); for Covariance the neighbour counts go to
/// `neighbor_counts` ([Nq]) when it is not empty. Otherwise exactly `apply_into` of the
/// dispatched type (same validation, bitwise equal results; no allocation, no synchronization).
/// The reference's `operationMode` and `n_h` are in `options`; its correction states are
/// `corrections`, whose types are compile-time here.
template <class Kernels = kernels::AllKernels,
          class Supports = AllSupportSchemes,
          class Exec,
          int D,
          class T,
          class Adjacency,
          class F,
          class Corr = Uncorrected>
void evaluate_into(const Exec& exec,
                   const OperationProperties& properties,
                   const ParticleSet<D, T>& queries,
                   const ParticleSet<D, T>& references,
                   const Domain<D, primal_t<T>>& domain,
                   const Adjacency& adjacency,
                   Span<const F> query_values,
                   Span<const F> reference_values,
                   Span<T> out,
                   Span<std::int32_t> neighbor_counts = {},
                   const ApplyOptions<primal_t<T>>& options = {},
                   const Corr& corrections = {}) {
  constexpr const char* function = "evaluate";
  const std::int64_t per_query = output_scalars<D, T, F>(properties);
  SPHAD_REQUIRE(out.size() == queries.size() * per_query, function, "out",
                sphad::detail::concat("has ", out.size(), " scalars; this operation writes ",
                                      per_query, " per query, ", queries.size() * per_query,
                                      " in all"));
  SPHAD_REQUIRE(neighbor_counts.size() == 0 || (properties.operation == Operation::Covariance &&
                                                neighbor_counts.size() == queries.size()),
                function, "neighbor_counts",
                sphad::detail::concat("must be empty or, for Covariance, hold one count per query "
                                      "(got ",
                                      neighbor_counts.size(), " for ", queries.size(), ")"));
  dispatch<Kernels, Supports>(properties, [&](auto op) {
    using Op = decltype(op);
    if constexpr (Op::template accepts_field<D, F>) {
      pairloop::evaluate_all<Op>(
          exec, queries, references, domain, adjacency, query_values, reference_values, options,
          corrections, detail::StoreScalars<T>{out.data(), neighbor_counts.data()}, function);
    }
  });
}

} // namespace sphad::ops
