// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/kernels/support.hpp>
#include <sphad/math/vec.hpp>

#include <cstdint>

/// \file
/// \brief `Pair`: what an operator's pair term sees of query i and reference j.

namespace sphad::ops {

/// No field (Density, Covariance).
struct NoField {};

/// One (query i, reference j) pair of an operator evaluation. `volume_j` is the apparent
/// volume V_j = m_j/ρ_j, or the reference's volume when volumes are given (ref-operators §3.5).
/// `factor` is the lattice calibration factor (1 when off, decision K7): the pair's kernel
/// quantities (`w`, `gradient`, `laplacian`) include it. `corrected_value` and
/// `corrected_gradient` apply the call's corrections (ref-operators §3.6): CRK, then
/// renormalization.
template <class Kernel, SupportScheme Support, int D, class T, class Field, class Corrections>
struct Pair {
  std::int64_t i; ///< query index
  std::int32_t j; ///< reference index
  const Corrections& corrections;
  Vec<T, D> x_ij; ///< minimum image of x_i − x_j
  T h_i, h_j;
  T m_j;
  T rho_i, rho_j; ///< densities (0 where none are given and none are needed)
  T volume_j;
  Field f_i, f_j;
  T factor;

  SPHAD_HOST_DEVICE SPHAD_INLINE T w() const {
    return kernels::pair_value<Kernel, Support>(x_ij, h_i, h_j) * factor;
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE Vec<T, D> gradient() const {
    return kernels::pair_gradient<Kernel, Support>(x_ij, h_i, h_j) * factor;
  }
  /// Ŵ_ij: the CRK-corrected kernel value (W_ij without CRK).
  SPHAD_HOST_DEVICE SPHAD_INLINE T corrected_value() const { return corrections.crk.value(*this); }
  /// Ĝ_ij: the CRK-corrected, renormalized kernel gradient (∇W_ij without corrections).
  SPHAD_HOST_DEVICE SPHAD_INLINE Vec<T, D> corrected_gradient() const {
    return corrections.renormalization.apply(corrections.crk.gradient(*this), i);
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE T laplacian() const {
    return kernels::pair_laplacian<Kernel, Support>(x_ij, h_i, h_j) * factor;
  }
  /// The pair support h_ij of the scheme (max(h_i, h_j) for the averaging schemes), used by
  /// the Laplacian's regularizers.
  SPHAD_HOST_DEVICE SPHAD_INLINE T support() const {
    return kernels::pair_support < Support == SupportScheme::KernelMeanSymmetric ||
                   Support == SupportScheme::SuperSymmetric
               ? SupportScheme::PartialSymmetric
               : Support > (h_i, h_j);
  }
};

} // namespace sphad::ops
