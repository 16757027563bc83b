// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/particles.hpp>

/// \file
/// \brief `ApplyOptions`: the knobs of an operator call.

namespace sphad {

/// Knobs of an operator call that do not change generated code.
template <class R>
struct ApplyOptions {
  OperationDirection direction = OperationDirection::AllToAll; ///< default: no Ghost sources
  /// Lattice calibration: when > 0, every kernel quantity is multiplied by
  /// `kernels::lattice_density_factor<Kernel>(n_h, D)`.
  R calibration_n_h = R(0);
};

namespace ops::detail {
template <class T>
inline constexpr bool is_options_v = false;
template <class R>
inline constexpr bool is_options_v<ApplyOptions<R>> = true;
/// Whether a call's field-value arguments are field values: the overloads for operators
/// without fields (`apply<Density>(..., options)`) take options in their place.
template <class QueryValues, class ReferenceValues>
inline constexpr bool are_field_values_v =
    !is_options_v<QueryValues> && !is_options_v<ReferenceValues>;
} // namespace ops::detail

} // namespace sphad
