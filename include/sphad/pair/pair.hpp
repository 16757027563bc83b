// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/kernels/support.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/scalar_traits.hpp>

#include <cstdint>

/// \file
/// \brief `Pair`: what an operator's pair term sees of query i and reference j.

/// Why a split operator's `combine` and `particle_part` cannot read the geometry.
#define SPHAD_NO_GEOMETRY_MESSAGE                                                                  \
  "sphad::ops: combine and particle_part see the particle inputs only (ParticlePair: masses, "     \
  "densities, volumes, field values); the pair vector, supports and kernel quantities belong in "  \
  "kernel_part, where reverse mode differentiates them - pass what combine needs through the "     \
  "kernel part's value (docs/extending.md)"

namespace sphad::ops {

/// No field (Density, Covariance).
struct NoField {};

/// The scalar type of each input a pair term reads, each plain unless that input carries
/// tangents (forward mode): positions X, supports H, masses M, densities Rho,
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

namespace detail {
template <class>
inline constexpr bool no_geometry_in_combine = false;

/// What `ParticlePair` answers for the pair vector and the supports: every use fails to compile
/// with the reason.
struct NoGeometryInCombine {
  template <class A>
  constexpr auto operator[](A) const {
    static_assert(no_geometry_in_combine<A>, SPHAD_NO_GEOMETRY_MESSAGE);
    return 0.0; // the error above is the only one
  }
  template <class T>
  constexpr operator T() const {
    static_assert(no_geometry_in_combine<T>, SPHAD_NO_GEOMETRY_MESSAGE);
    return T{};
  }
};
} // namespace detail

/// What an operator's `combine` and `particle_part` see of a pair (query i, reference j): the
/// particle inputs — masses, densities, the volume V_j (m_j/ρ_j, or the reference's volume when
/// volumes are given) and the field values — and no geometry. The pair vector, the supports and the
/// kernel quantities are the kernel part's (`Pair`): reverse mode differentiates them there, so
/// reading them here (`x_ij`, `h_i`, `h_j`, `support()`, `w()`, `gradient()`, `laplacian()`,
/// `corrected_value()`, `corrected_gradient()`) fails to compile with the reason. Each input keeps
/// its own scalar type (`S`: a `PairScalars`).
template <int D, class S, class Field>
struct ParticlePair {
  using scalar = typename S::scalar;
  static constexpr int dim = D;
  std::int64_t i; ///< query index
  std::int32_t j; ///< reference index
  typename S::mass m_j;
  typename S::density rho_i, rho_j; ///< densities (0 where none are given and none are needed)
  typename S::volume volume_j;
  Field f_i, f_j;

  static constexpr detail::NoGeometryInCombine x_ij{}, h_i{}, h_j{};
#define SPHAD_NO_GEOMETRY_MEMBER(name)                                                             \
  template <class A = void>                                                                        \
  constexpr auto name() const {                                                                    \
    static_assert(detail::no_geometry_in_combine<A>, SPHAD_NO_GEOMETRY_MESSAGE);                   \
    return 0.0;                                                                                    \
  }
  SPHAD_NO_GEOMETRY_MEMBER(support)
  SPHAD_NO_GEOMETRY_MEMBER(w)
  SPHAD_NO_GEOMETRY_MEMBER(gradient)
  SPHAD_NO_GEOMETRY_MEMBER(laplacian)
  SPHAD_NO_GEOMETRY_MEMBER(corrected_value)
  SPHAD_NO_GEOMETRY_MEMBER(corrected_gradient)
#undef SPHAD_NO_GEOMETRY_MEMBER
};

/// The adjoint a transpose adds into (`combine_adjoint`, `term_adjoint`): shaped like the
/// particle inputs `p`, every scalar 0.
template <int D, class S, class Field>
SPHAD_HOST_DEVICE SPHAD_INLINE ParticlePair<D, S, Field>
zero_adjoint(const ParticlePair<D, S, Field>& p) {
  ParticlePair<D, S, Field> bar = p;
  using V = decltype(bar.m_j);
  bar.m_j = bar.rho_i = bar.rho_j = bar.volume_j = V(0);
  bar.f_i = bar.f_j = Field{};
  return bar;
}

/// One (query i, reference j) pair as an operator's `term` and `kernel_part` see it: the
/// particle inputs (`ParticlePair`, what `particles()` returns) and the geometry. `volume_j` is the
/// apparent volume V_j = m_j/ρ_j, or the reference's volume when volumes are given. `factor` is
/// the lattice calibration factor (1 when off): the pair's kernel quantities (`w`, `gradient`,
/// `laplacian`) include it. `corrected_value` and `corrected_gradient` apply the call's
/// corrections: CRK, then renormalization. Each input keeps its own scalar type (`S`: a
/// `PairScalars`), so an input without tangents costs nothing in the pair terms: the kernel of a
/// pair whose supports are plain never computes a support derivative.
template <class Kernel, SupportScheme Support, int D, class S, class Field, class Corrections>
struct Pair : ParticlePair<D, S, Field> {
  using scalar = typename S::scalar;
  const Corrections& corrections;
  Vec<typename S::position, D> x_ij; ///< minimum image of x_i − x_j
  typename S::support h_i, h_j;
  primal_t<scalar> factor;

  /// The particle inputs alone (what `combine` and `particle_part` receive).
  SPHAD_HOST_DEVICE SPHAD_INLINE const ParticlePair<D, S, Field>& particles() const {
    return *this;
  }

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
    return corrections.renormalization.apply(corrections.crk.gradient(*this), this->i);
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
