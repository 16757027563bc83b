// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/pair/properties.hpp>
#include <sphad/pair/schemes.hpp>

#include <type_traits>

/// \file
/// \brief From runtime values to compile-time ones: `ValueList`, `dispatch_value`, and the
/// operator families (`detail::OperatorFamily<Operation>`), each specialized beside its operator
/// type, which build that type from an `OperationProperties`. `ops::dispatch`
/// (<sphad/ops/runtime.hpp>) walks the one list of operations through them.

namespace sphad::ops {

/// A compile-time list of enum values to dispatch over.
template <auto... Values>
struct ValueList {};

/// Calls `f(std::integral_constant<E, V>{})` for the V in the list equal to `value`; throws
/// naming `argument` when none is.
template <class F, auto First, auto... Rest>
decltype(auto)
dispatch_value(decltype(First) value, const char* argument, F&& f, ValueList<First, Rest...>) {
  if (value == First) {
    return f(std::integral_constant<decltype(First), First>{});
  }
  if constexpr (sizeof...(Rest) > 0) {
    return dispatch_value(value, argument, static_cast<F&&>(f), ValueList<Rest...>{});
  } else {
    sphad::detail::throw_invalid_argument(
        "ops::dispatch", argument,
        sphad::detail::concat("unknown or not enabled value ", static_cast<int>(value),
                              " (see the lists this front end was instantiated with)"));
  }
}

namespace detail {

using GradientSchemes = ValueList<GradientScheme::Naive,
                                  GradientScheme::Symmetric,
                                  GradientScheme::Difference,
                                  GradientScheme::Summation>;
using Flags = ValueList<false, true>;

/// `f(integral_constant)` for `properties.gradient_scheme` (canonical properties).
template <class F>
decltype(auto) with_gradient_scheme(const OperationProperties& properties, F&& f) {
  return dispatch_value(properties.gradient_scheme, "properties.gradient_scheme",
                        static_cast<F&&>(f), GradientSchemes{});
}

/// The operator family of one `Operation`: `with_type<K, S>(c, f)` calls `f(Op{})` with the
/// operator type that canonical properties `c` name for kernel K and support scheme S. Each
/// family is specialized beside its operator type (`ops::dispatch` checks that the type
/// describes itself with the family's operation).
template <Operation O>
struct OperatorFamily;

/// The family of an operator template over the kernel and support scheme alone.
template <template <class, SupportScheme> class Op>
struct KernelSupportFamily {
  template <class K, SupportScheme S, class F>
  static decltype(auto) with_type(const OperationProperties&, F&& f) {
    return f(Op<K, S>{});
  }
};

/// The family of an operator template over the kernel, gradient scheme and support scheme.
template <template <class, GradientScheme, SupportScheme> class Op>
struct GradientSchemeFamily {
  template <class K, SupportScheme S, class F>
  static decltype(auto) with_type(const OperationProperties& c, F&& f) {
    return with_gradient_scheme(
        c, [&](auto g) -> decltype(auto) { return f(Op<K, decltype(g)::value, S>{}); });
  }
};

} // namespace detail

} // namespace sphad::ops
