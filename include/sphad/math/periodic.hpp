// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/math/vec.hpp>
#include <sphad/scalar_traits.hpp>

#include <cmath>

/// \file
/// \brief The periodic minimum-image difference.

namespace sphad {

/// The minimum image of a difference vector: on each periodic axis a, `x_ij[a]` is shifted by a
/// whole number of periods into [−L_a/2, L_a/2); non-periodic axes pass through unchanged.
/// Positions may be unwrapped by any number of periods. The shift is a constant, so the tangent
/// of the result is the tangent of `x_ij` exactly (that of the plain difference).
/// @param x_ij      difference x_i − x_j, plain or dual scalars.
/// @param period    domain extent L per axis (max − min); read on periodic axes only, must be > 0.
/// @param periodic  which axes wrap.
template <class T, class L, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE Vec<T, D>
minimum_image(Vec<T, D> x_ij, const Vec<L, D>& period, const Vec<bool, D>& periodic) {
  using std::floor;
  SPHAD_PRAGMA_UNROLL
  for (int a = 0; a < D; ++a) {
    const auto d = value_of(x_ij[a]);
    const auto half = L(0.5) * period[a];
    // Already in [−L/2, L/2) — every pair of particles inside the box that can interact — needs
    // no shift; the floor (a library call on many targets) runs only for the others.
    if (periodic[a] && !(d >= -half && d < half)) {
      const auto periods = floor(d / period[a] + L(0.5)); // plain, integral
      x_ij[a] -= period[a] * periods;
    }
  }
  return x_ij;
}

} // namespace sphad
