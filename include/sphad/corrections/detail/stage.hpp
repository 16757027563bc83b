// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ops/apply.hpp>
#include <sphad/ops/operators.hpp>
#include <sphad/pair/operator_base.hpp>

#include <cstdint>

/// \file
/// \brief What the correction pipelines share: each stage is an operator-like spec (a pair
/// term) run by the operators' own loop (`pairloop::evaluate_all`: the same traversal, kinds,
/// directions, validation and scalar templating), with a store functor that finishes each
/// query's sum (a reciprocal, a small solve) before writing it.

namespace sphad::corrections::detail {

/// A pipeline stage over kernel K with support scheme S: reads no field values, never uses
/// grad-h; `NeedsDensities` says whether the particles' densities (or volumes) are read.
template <class Kernel, SupportScheme Support, bool NeedsDensities = false>
struct Stage : ops::OperatorBase<Kernel, Support> {
  static constexpr bool uses_grad_h = false;
  static constexpr bool needs_densities = NeedsDensities;
  static constexpr bool needs_values = false;
};

/// Requires an output span of `expected` entries (or, when `optional`, also 0).
template <class S>
void require_output(const S& span,
                    std::int64_t expected,
                    const char* function,
                    const char* argument,
                    bool optional = false) {
  SPHAD_REQUIRE(span.size() == expected || (optional && span.size() == 0), function, argument,
                sphad::detail::concat("has ", span.size(), " entries for ", expected, " particles",
                                      optional ? " (or pass none)" : ""));
}

} // namespace sphad::corrections::detail
