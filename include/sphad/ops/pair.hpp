// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/scalar_traits.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/math/vec.hpp>

#include <cstdint>

/// \file
/// \brief `Pair`: what an operator's pair term sees of query i and reference j.

namespace sphad::ops {

/// No field (Density, Covariance).
struct NoField {};

/// The scalar type of each input a pair term reads, each plain unless that input carries
/// tangents (forward mode, architecture §3): positions X, supports H, masses M, densities Rho,
/// volumes V; `scalar` is the call's scalar (the promotion of all of them and of the
/// correction states), for terms that need one type for everything.
template <class X, class H, class M, class Rho, class V, class Scalar>
struct PairScalars {
  using position = X;
  using support = H;
  using mass = M;
  using density = Rho;
  using volume = V;
  using scalar = Scalar;
};

/// One (query i, reference j) pair of an operator evaluation. `volume_j` is the apparent
/// volume V_j = m_j/ρ_j, or the reference's volume when volumes are given (ref-operators §3.5).
/// `factor` is the lattice calibration factor (1 when off, decision K7): the pair's kernel
/// quantities (`w`, `gradient`, `laplacian`) include it. `corrected_value` and
/// `corrected_gradient` apply the call's corrections (ref-operators §3.6): CRK, then
/// renormalization. Each input keeps its own scalar type (`S`: a `PairScalars`), so an input
/// without tangents costs nothing in the pair terms: the kernel of a pair whose supports are
/// plain never computes a support derivative.
template <class Kernel, SupportScheme Support, int D, class S, class Field, class Corrections>
struct Pair {
  using scalar = typename S::scalar;
  std::int64_t i; ///< query index
  std::int32_t j; ///< reference index
  const Corrections& corrections;
  Vec<typename S::position, D> x_ij; ///< minimum image of x_i − x_j
  typename S::support h_i, h_j;
  typename S::mass m_j;
  typename S::density rho_i, rho_j; ///< densities (0 where none are given and none are needed)
  typename S::volume volume_j;
  Field f_i, f_j;
  primal_t<scalar> factor;

  SPHAD_HOST_DEVICE SPHAD_INLINE auto w() const {
    return kernels::pair_value<Kernel, Support>(x_ij, h_i, h_j) * factor;
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE auto gradient() const {
    return kernels::pair_gradient<Kernel, Support>(x_ij, h_i, h_j) * factor;
  }
  /// Ŵ_ij: the CRK-corrected kernel value (W_ij without CRK).
  SPHAD_HOST_DEVICE SPHAD_INLINE auto corrected_value() const {
    return corrections.crk.value(*this);
  }
  /// Ĝ_ij: the CRK-corrected, renormalized kernel gradient (∇W_ij without corrections).
  SPHAD_HOST_DEVICE SPHAD_INLINE auto corrected_gradient() const {
    return corrections.renormalization.apply(corrections.crk.gradient(*this), i);
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE auto laplacian() const {
    return kernels::pair_laplacian<Kernel, Support>(x_ij, h_i, h_j) * factor;
  }
  /// The scheme of the pair support: the averaging schemes use max(h_i, h_j).
  static constexpr SupportScheme support_scheme =
      Support == SupportScheme::KernelMeanSymmetric || Support == SupportScheme::SuperSymmetric
          ? SupportScheme::PartialSymmetric
          : Support;
  /// The pair support h_ij of the scheme (max(h_i, h_j) for the averaging schemes), used by
  /// the Laplacian's regularizers.
  SPHAD_HOST_DEVICE SPHAD_INLINE auto support() const {
    return kernels::pair_support<support_scheme>(h_i, h_j);
  }
};

} // namespace sphad::ops
