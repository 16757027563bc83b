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

} // namespace sphad
