// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/corrections/detail/stage.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/kernels/evaluate.hpp>
#include <sphad/ops/record.hpp>
#include <sphad/ops/runtime.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/scalar_traits.hpp>

#include <cstdint>

/// \file
/// \brief The grad-h factor Ω, computed (and differentiated) by the library:
/// Ω_i = 1 + h_i/(D ρ_i) Σ_j m_j ∂W(x_ij, h_i)/∂h_i (Gather, self included).

namespace sphad::corrections {

namespace detail {

/// Σ_j m_j ∂W(x_ij, h_i)/∂h_i, times the lattice calibration factor when it is on.
template <class Kernel>
struct KernelDhSum : Stage<Kernel, SupportScheme::Gather, true> {
  template <int D, class T, class F>
  using output_t = T;
  template <class P>
  SPHAD_HOST_DEVICE static auto term(const P& p) {
    return p.m_j * kernels::value_dh<Kernel>(p.x_ij, p.h_i) * p.factor;
  }
};

/// Ω_i = 1 + h_i S_i/(D ρ_i); 1 where ρ_i = 0 and for masked queries (S_i = 0). On any scalars
/// (their promotion): the store below and `record_omegas` share it.
template <int D>
struct OmegaOf {
  template <class Sum, class H, class Rho>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto
  operator()(const Sum& sum, const H& support, const Rho& density) const {
    using T = promote_all_t<Sum, H, Rho>;
    const auto h = sphad::detail::convert_scalars<T>(support);
    const auto rho = sphad::detail::convert_scalars<T>(density);
    return T(1) + safe_divide(h * T(sum), T(D) * rho);
  }
};

template <int D, class T, class Supports, class Densities>
struct StoreOmega {
  T* out;
  Supports supports;
  Densities densities;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i, const T& sum) const {
    out[i] = OmegaOf<D>{}(sum, supports[i], densities[i]);
  }
};

} // namespace detail

/// Ω of every query into `omegas` ([queries]) with its sum over `references` — the queries
/// need densities (ρ from their Density). Queries other than the references: a rank's owned
/// particles against its owned particles and ghosts (the distributed layer). `options` carries
/// the direction and the calibration (which, if the densities were calibrated, must match).
/// `adjacency`: a list or grid of the queries against the references covering Gather pairs.
template <class Kernel,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          int D = Queries::dim,
          class T = ops::call_scalar_t<Queries, References>>
void grad_h_omegas_into(const Exec& exec,
                        const Queries& queries,
                        const References& references,
                        const Domain<D, typename Queries::primal_scalar>& domain,
                        const Adjacency& adjacency,
                        Span<T> omegas,
                        const ApplyOptions<typename Queries::primal_scalar>& options = {}) {
  constexpr const char* function = "corrections::grad_h_omegas";
  detail::require_output(omegas, queries.size(), function, "omegas");
  SPHAD_REQUIRE(queries.densities.size() == queries.size(), function, "particles",
                sphad::detail::concat("needs densities (got ", queries.densities.size(), " for ",
                                      queries.size(), ")"));
  pairloop::evaluate_all<detail::KernelDhSum<Kernel>>(
      exec, queries, references, domain, adjacency, Span<const ops::NoField>{},
      Span<const ops::NoField>{}, options, ops::Uncorrected{},
      detail::StoreOmega<D, T, decltype(queries.supports), decltype(queries.densities)>{
          omegas.data(), queries.supports, queries.densities},
      function);
}

/// Ω of every particle of one set into `omegas` ([N]); the particles need densities (ρ from
/// their Density). `adjacency`: a list or grid of the set against itself covering Gather pairs.
template <class Kernel,
          class Exec,
          class Set,
          class Adjacency,
          int D = Set::dim,
          class T = ops::call_scalar_t<Set>>
void grad_h_omegas_into(const Exec& exec,
                        const Set& particles,
                        const Domain<D, typename Set::primal_scalar>& domain,
                        const Adjacency& adjacency,
                        Span<T> omegas,
                        const ApplyOptions<typename Set::primal_scalar>& options = {}) {
  grad_h_omegas_into<Kernel>(exec, particles, particles, domain, adjacency, omegas, options);
}

/// `grad_h_omegas_into` with the output allocated here (stream-ordered). Use it as
/// `ops::GradH<T>{Ω, Ω}` (query = reference) or with each set's own Ω.
/// Inputs with tangents give dual Ω (their JVP), ready for a grad-h operator's JVP.
template <class Kernel,
          class Exec,
          class Set,
          class Adjacency,
          int D = Set::dim,
          class T = ops::call_scalar_t<Set>>
Buffer<T, Exec> compute_omegas(const Exec& exec,
                               const Set& particles,
                               const Domain<D, typename Set::primal_scalar>& domain,
                               const Adjacency& adjacency,
                               const ApplyOptions<typename Set::primal_scalar>& options = {}) {
  Buffer<T, Exec> omegas(
      exec, pairloop::checked_size(particles, "corrections::grad_h_omegas", "particles"));
  grad_h_omegas_into<Kernel>(exec, particles, domain, adjacency,
                             Span<T>{omegas.data(), omegas.size()}, options);
  return omegas;
}

/// Reverse mode: Ω of the queries recorded on `tape` (the sum Σ_j m_j ∂W/∂h_i over the
/// references as a `record` of its pair term, then Ω_i = 1 + h_i S_i/(D ρ_i) as a
/// `record_map`), so gradients flow from Ω to both sets' `Variable`s — positions, supports,
/// masses, the queries' densities (e.g. the output of a recorded Density). Returns Ω
/// [queries] as a tape-owned `Variable`. Throws like `compute_omegas`.
template <class Kernel,
          template <class>
          class TapeT,
          class Exec,
          class Queries,
          class References,
          std::enable_if_t<is_tape_v<TapeT<Exec>>, int> = 0>
auto record_omegas(TapeT<Exec>& tape,
                   const Queries& queries,
                   const References& references,
                   const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
                   const NeighborList<Exec>& neighbors,
                   const ApplyOptions<typename Queries::primal_scalar>& options = {}) {
  SPHAD_REQUIRE(queries.densities.size() == queries.size(), "corrections::record_omegas",
                "particles",
                sphad::detail::concat("needs densities (got ", queries.densities.size(), " for ",
                                      queries.size(), ")"));
  const auto sums = record<detail::KernelDhSum<Kernel>>(
      tape, ops::pairs(queries, references, domain, neighbors, options));
  return record_map(tape, queries.size(), detail::OmegaOf<Queries::dim>{}, sums, queries.supports,
                    queries.densities);
}

/// Reverse mode: Ω of one set (the set against itself) recorded on `tape`.
template <class Kernel,
          template <class>
          class TapeT,
          class Exec,
          class Set,
          std::enable_if_t<is_tape_v<TapeT<Exec>>, int> = 0>
auto record_omegas(TapeT<Exec>& tape,
                   const Set& particles,
                   const Domain<Set::dim, typename Set::primal_scalar>& domain,
                   const NeighborList<Exec>& neighbors,
                   const ApplyOptions<typename Set::primal_scalar>& options = {}) {
  return record_omegas<Kernel>(tape, particles, particles, domain, neighbors, options);
}

/// The same with the kernel chosen at run time, over the kernels of `Kernels`.
template <class Kernels = kernels::AllKernels,
          class Exec,
          class Set,
          class Adjacency,
          int D = Set::dim,
          class T = ops::call_scalar_t<Set>>
Buffer<T, Exec> compute_omegas(const Exec& exec,
                               KernelId kernel,
                               const Set& particles,
                               const Domain<D, typename Set::primal_scalar>& domain,
                               const Adjacency& adjacency,
                               const ApplyOptions<typename Set::primal_scalar>& options = {}) {
  return ops::dispatch_enabled_kernel(
      kernel, "corrections::compute_omegas", "kernel",
      [&](auto k) {
        return compute_omegas<decltype(k)>(exec, particles, domain, adjacency, options);
      },
      Kernels{});
}

} // namespace sphad::corrections
