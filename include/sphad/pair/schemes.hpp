// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

/// \file
/// \brief The operations and their discretization schemes, with the reference's values.

namespace sphad {

/// Which operator to evaluate (the reference's WarpOperation; its `Custom` = 8 is no operator
/// here: write an operator type instead).
enum class Operation : int {
  Interpolate = 1,
  Gradient = 2,
  Divergence = 3,
  Curl = 4,
  Laplacian = 5,
  Density = 6,
  Covariance = 7,
};

/// How the field enters a gradient-like pair term.
enum class GradientScheme : int {
  Naive = 1,      ///< f_j V_j
  Symmetric = 2,  ///< m_j ρ_i (f_i/ρ_i² + f_j/ρ_j²)
  Difference = 3, ///< (f_j − f_i) V_j
  Summation = 4,  ///< (f_j + f_i) V_j
};

/// The Laplacian's pair term. Default scheme: Brookshaw.
enum class LaplacianScheme : int {
  Naive = 1,     ///< q_ij ∇²W_ij
  Brookshaw = 2, ///< −2 q_ij (G·n)/(r + 1e-8 h_ij)
  Dot = 3,       ///< Price 2012 eq. 96, per block of D components
  Default = 4,   ///< −2 q_ij (G·n)/(r + 1e-12 h_ij)
};

/// Which field axis Divergence contracts (it must have extent D): standard the first, dot the
/// last.
enum class DivergenceMode : int { Standard = 0, Dot = 1 };

} // namespace sphad
