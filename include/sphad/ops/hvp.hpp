// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ops/apply.hpp>
#include <sphad/ops/jvp.hpp>

#include <cstdint>

/// \file
/// \brief `density_position_hvp`: the Hessian-vector product of the density with respect to
/// positions, the Newton step of implicit particle shifting.

namespace sphad {

namespace ops::detail {

/// g_i = Σ_j m_j ∇W_ij: each particle's own-position gradient of its density.
template <class Kernel, SupportScheme Support>
struct DensityPositionGradient : OperatorBase<Kernel, Support> {
  static constexpr bool uses_grad_h = false;
  static constexpr bool needs_densities = false;
  static constexpr bool needs_values = false;
  template <int D, class T, class F>
  using output_t = Vec<T, D>;
  template <class P>
  SPHAD_HOST_DEVICE static auto term(const P& p) {
    return p.gradient() * p.m_j;
  }
};

/// Stores query i's first tangent (the primal g_i is not wanted).
template <class Out>
struct StoreFirstTangent {
  using Primal = decltype(pairloop::value_part(std::declval<Out>()));
  Primal* out;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i, const Out& value) const {
    out[i] = pairloop::tangent_part(value, 0);
  }
};

} // namespace ops::detail

/// The Density position HVP: for each query i,
///   HVP_i = Σ_j m_j H_ij (v_i^q − v_j^r),   H_ij = ∂∇W/∂x at x_ij (Hessian of the pair's
/// kernel under `Support`: the mean over h_i and h_j for averaging schemes), written to `out` [Nq].
/// It is the derivative along (v^q, v^r) of g_i = Σ_j m_j ∇W_ij, computed as its forward mode
/// (the kernel's dual gradient: one definition), with supports and masses frozen. Self pairs —
/// the same particle in both roles (`queries` and `references` view the same positions, j = i;
/// identity of the particle, not index equality) — are skipped: g_i's self term
/// m_i ∇W(0) does not depend on x_i, whatever the two role tangents. Coincident distinct
/// particles use the finite limit H(0) (defined as 0 for kernels with k'(0) ≠ 0). Kinds and
/// `options.direction` filter as in `apply`. Allocates nothing, never synchronizes; throws
/// like `apply_into` (arguments `query_tangents`, `reference_tangents`, `out`).
template <class Kernel, SupportScheme Support = SupportScheme::Gather, class Exec, int D, class T>
void density_position_hvp_into(const Exec& exec,
                               const ParticleSet<D, T>& queries,
                               const ParticleSet<D, T>& references,
                               const Domain<D, T>& domain,
                               const NeighborList<Exec>& neighbors,
                               Span<const Vec<T, D>> query_tangents,
                               Span<const Vec<T, D>> reference_tangents,
                               Span<Vec<T, D>> out,
                               const ApplyOptions<T>& options = {}) {
  constexpr const char* function = "density_position_hvp";
  SPHAD_REQUIRE(query_tangents.size() == queries.size(), function, "query_tangents",
                sphad::detail::concat("has ", query_tangents.size(), " entries for ",
                                      queries.size(), " queries"));
  SPHAD_REQUIRE(reference_tangents.size() == references.size(), function, "reference_tangents",
                sphad::detail::concat("has ", reference_tangents.size(), " entries for ",
                                      references.size(), " references"));
  SPHAD_REQUIRE(
      out.size() == queries.size(), function, "out",
      sphad::detail::concat("has ", out.size(), " entries for ", queries.size(), " queries"));
  const bool one_set = queries.positions.data() == references.positions.data() &&
                       queries.size() == references.size();
  const auto q = queries.with_positions(with_tangents(queries.positions, query_tangents));
  const auto r = references.with_positions(with_tangents(references.positions, reference_tangents));
  using Op = ops::detail::DensityPositionGradient<Kernel, Support>;
  using Out = ops::output_of_t<Op, decltype(q), decltype(r), Span<const ops::NoField>,
                               Span<const ops::NoField>, ops::Uncorrected>;
  pairloop::evaluate_all<Op>(exec, q, r, domain, neighbors, Span<const ops::NoField>{},
                             Span<const ops::NoField>{}, options, ops::Uncorrected{},
                             ops::detail::StoreFirstTangent<Out>{out.data()}, function, one_set);
}

/// `density_position_hvp_into` with the output allocated here ([Nq], stream-ordered).
template <class Kernel, SupportScheme Support = SupportScheme::Gather, class Exec, int D, class T>
Buffer<Vec<T, D>, Exec> density_position_hvp(const Exec& exec,
                                             const ParticleSet<D, T>& queries,
                                             const ParticleSet<D, T>& references,
                                             const Domain<D, T>& domain,
                                             const NeighborList<Exec>& neighbors,
                                             Span<const Vec<T, D>> query_tangents,
                                             Span<const Vec<T, D>> reference_tangents,
                                             const ApplyOptions<T>& options = {}) {
  Buffer<Vec<T, D>, Exec> out(exec,
                              pairloop::checked_size(queries, "density_position_hvp", "queries"));
  density_position_hvp_into<Kernel, Support>(exec, queries, references, domain, neighbors,
                                             query_tangents, reference_tangents,
                                             Span<Vec<T, D>>{out.data(), out.size()}, options);
  return out;
}

} // namespace sphad
