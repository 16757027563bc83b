// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/corrections/crk_factors.hpp>
#include <sphad/corrections/detail/crk_stages.hpp>
#include <sphad/corrections/detail/stage.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/ops/record.hpp>
#include <sphad/ops/runtime.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/scalar_traits.hpp>

#include <cstdint>

/// \file
/// \brief The CRK factor pipeline on one particle set: apparent volumes V_i = 1/Σ_j W(x_ij, h_i)
/// (Gather), the moments of the Scatter kernel weighted by V_j and their query-position
/// derivatives, A, B, ∇A, ∇B with the scale-free limiter, and the diagnostic CRK density. Every
/// stage is an operator run by the operators' loop, so plain and dual scalars share it.

namespace sphad::corrections {

/// Stage 1: the apparent volumes V_i = 1/Σ_j W(x_ij, h_i) (Gather, self included) of the
/// queries summed over `references`, 0 for masked queries and where the sum is 0, into
/// `volumes` ([queries]). Queries other than the references: a rank's owned particles against
/// its owned particles and ghosts (the distributed layer). `adjacency`: a list or grid of the
/// queries against the references covering Gather and Scatter pairs (e.g. SuperSymmetric).
template <class Kernel, class Exec, class Queries, class References, class Adjacency>
void apparent_volumes_into(const Exec& exec,
                           const Queries& queries,
                           const References& references,
                           const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
                           const Adjacency& adjacency,
                           Span<ops::call_scalar_t<Queries, References>> volumes,
                           OperationDirection direction = OperationDirection::AllToAll) {
  constexpr const char* function = "corrections::apparent_volumes";
  using T = ops::call_scalar_t<Queries, References>;
  detail::require_output(volumes, queries.size(), function, "volumes");
  pairloop::evaluate_all<detail::KernelSum<Kernel>>(
      exec, queries, references, domain, adjacency, Span<const ops::NoField>{},
      Span<const ops::NoField>{}, ApplyOptions<typename Queries::primal_scalar>{direction, 0},
      ops::Uncorrected{}, detail::StoreReciprocal<T>{volumes.data()}, function);
}

/// Stage 1 on one set: the set against itself.
template <class Kernel, class Exec, class Set, class Adjacency>
void apparent_volumes_into(const Exec& exec,
                           const Set& particles,
                           const Domain<Set::dim, typename Set::primal_scalar>& domain,
                           const Adjacency& adjacency,
                           Span<ops::call_scalar_t<Set>> volumes,
                           OperationDirection direction = OperationDirection::AllToAll) {
  apparent_volumes_into<Kernel>(exec, particles, particles, domain, adjacency, volumes, direction);
}

/// The four CRK state arrays a pipeline writes, in the space's memory ([N] each).
template <int D, class T>
struct CRKStateSpans {
  Span<T> a;
  Span<Vec<T, D>> b;
  Span<Vec<T, D>> grad_a;
  Span<Mat<T, D, D>> grad_b;
};

/// Stages 2 and 3: the moments of the queries against the references (weights: the
/// references' volumes, normally the apparent volumes of stage 1 on the same set) and the
/// factors A, B, ∇A, ∇B of each query, with the scale-free limiter. The moments' derivatives are
/// those of the query position with x_j and V_j held (the RK shape functions' derivatives).
template <class Kernel, class Exec, class Queries, class References, class Adjacency>
void crk_factors_into(
    const Exec& exec,
    const Queries& queries,
    const References& references,
    const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
    const Adjacency& adjacency,
    const CRKStateSpans<Queries::dim, ops::call_scalar_t<Queries, References>>& out,
    const CRKOptions<typename Queries::primal_scalar>& options = {}) {
  constexpr const char* function = "corrections::crk_factors";
  constexpr int D = Queries::dim;
  using T = ops::call_scalar_t<Queries, References>;
  const std::int64_t n = queries.size();
  detail::require_output(out.a, n, function, "out.a");
  detail::require_output(out.b, n, function, "out.b");
  detail::require_output(out.grad_a, n, function, "out.grad_a");
  detail::require_output(out.grad_b, n, function, "out.grad_b");
  SPHAD_REQUIRE(references.volumes.size() == references.size(), function, "references",
                sphad::detail::concat("needs volumes (the apparent volumes; got ",
                                      references.volumes.size(), " for ", references.size(), ")"));
  SPHAD_REQUIRE(options.tau >= 0, function, "options.tau",
                sphad::detail::concat("must be >= 0 (got ", options.tau, ")"));
  pairloop::evaluate_all<detail::MomentSum<Kernel>>(
      exec, queries, references, domain, adjacency, Span<const ops::NoField>{},
      Span<const ops::NoField>{},
      ApplyOptions<typename Queries::primal_scalar>{options.direction, 0}, ops::Uncorrected{},
      detail::StoreCRKFactors<D, T>{out.a.data(), out.b.data(), out.grad_a.data(),
                                    out.grad_b.data(), options.tau},
      function);
}

/// Stage 4, the diagnostic CRK density ρ_i = Σ_j m_j V_j Ŵ_ij / Σ_j V_j² Ŵ_ij with the
/// CRK-corrected Scatter kernel of `state` (V: the particles' volumes), 0 where the
/// denominator is 0 and for masked queries.
template <class Kernel, class Exec, class Set, class Adjacency, class CRKState>
void crk_density_into(const Exec& exec,
                      const Set& particles,
                      const Domain<Set::dim, typename Set::primal_scalar>& domain,
                      const Adjacency& adjacency,
                      const CRKState& state,
                      Span<ops::call_scalar_t<Set, Set, ops::Corrections<CRKState>>> density,
                      OperationDirection direction = OperationDirection::AllToAll) {
  constexpr const char* function = "corrections::crk_density";
  using T = ops::call_scalar_t<Set, Set, ops::Corrections<CRKState>>;
  detail::require_output(density, particles.size(), function, "density");
  SPHAD_REQUIRE(particles.volumes.size() == particles.size(), function, "particles",
                sphad::detail::concat("needs volumes (the apparent volumes; got ",
                                      particles.volumes.size(), " for ", particles.size(), ")"));
  pairloop::evaluate_all<detail::CRKDensitySums<Kernel>>(
      exec, particles, particles, domain, adjacency, Span<const ops::NoField>{},
      Span<const ops::NoField>{}, ApplyOptions<typename Set::primal_scalar>{direction, 0},
      ops::Corrections<CRKState>{state, {}, {}}, detail::StoreQuotient<T>{density.data()},
      function);
}

/// Everything `compute_crk_factors` produces, in the memory of `Exec`.
template <int D, class T, class Exec>
struct CRKFactors {
  Buffer<T, Exec> volumes;           ///< apparent volumes V [N]
  Buffer<T, Exec> density;           ///< diagnostic CRK density [N]
  Buffer<T, Exec> a;                 ///< A [N]
  Buffer<Vec<T, D>, Exec> b;         ///< B [N]
  Buffer<Vec<T, D>, Exec> grad_a;    ///< ∇A [N]
  Buffer<Mat<T, D, D>, Exec> grad_b; ///< ∇B [N], derivative axis first

  /// The state the operators read (`ops::Corrections<ops::CRK<D, T>>`).
  ops::CRK<D, T> state() const {
    return {{a.data(), a.size()},
            {b.data(), b.size()},
            {grad_a.data(), grad_a.size()},
            {grad_b.data(), grad_b.size()}};
  }
  /// The apparent volumes as a span, to pass as the operators' volumes (exact reproduction
  /// needs the operator to weight with the same volumes).
  Span<const T> volume_span() const { return {volumes.data(), volumes.size()}; }
};

/// The whole pipeline on one particle set: stage 1, stages 2–3 weighted by the apparent
/// volumes, stage 4. Three launches, stream-ordered allocations, no synchronization. Like the
/// reference's `computeCRKFactors`: no lattice calibration, no other correction inside.
/// Every input view may carry tangents (`with_positions(with_tangents(x, dx))`, ...): the
/// factors are then dual numbers holding the pipeline's directional derivatives, ready to pass
/// to a JVP of a corrected operator (`state()`).
template <class Kernel,
          class Exec,
          class Set,
          class Adjacency,
          int D = Set::dim,
          class T = ops::call_scalar_t<Set>>
CRKFactors<D, T, Exec>
compute_crk_factors(const Exec& exec,
                    const Set& particles,
                    const Domain<D, typename Set::primal_scalar>& domain,
                    const Adjacency& adjacency,
                    const CRKOptions<typename Set::primal_scalar>& options = {}) {
  const std::int64_t n = pairloop::checked_size(particles, "corrections::crk_factors", "particles");
  CRKFactors<D, T, Exec> f{Buffer<T, Exec>(exec, n),         Buffer<T, Exec>(exec, n),
                           Buffer<T, Exec>(exec, n),         Buffer<Vec<T, D>, Exec>(exec, n),
                           Buffer<Vec<T, D>, Exec>(exec, n), Buffer<Mat<T, D, D>, Exec>(exec, n)};
  apparent_volumes_into<Kernel>(exec, particles, domain, adjacency, Span<T>{f.volumes.data(), n},
                                options.direction);
  const auto weighted = particles.with_volumes(f.volume_span());
  crk_factors_into<Kernel>(
      exec, weighted, weighted, domain, adjacency,
      CRKStateSpans<D, T>{
          {f.a.data(), n}, {f.b.data(), n}, {f.grad_a.data(), n}, {f.grad_b.data(), n}},
      options);
  crk_density_into<Kernel>(exec, weighted, domain, adjacency, f.state(),
                           Span<T>{f.density.data(), n}, options.direction);
  return f;
}

/// What `record_crk_factors` returns: every array of `CRKFactors` as a tape-owned `Variable`.
template <int D, class T>
struct RecordedCRKFactors {
  Variable<T> volumes;
  Variable<T> density;
  Variable<T> a;
  Variable<Vec<T, D>> b;
  Variable<Vec<T, D>> grad_a;
  Variable<Mat<T, D, D>> grad_b;

  /// The state the operators read, tracked: gradients flow back through the pipeline.
  ops::CRK<D, T, Variable<T>, Variable<Vec<T, D>>, Variable<Vec<T, D>>, Variable<Mat<T, D, D>>>
  state() const {
    return {a, b, grad_a, grad_b};
  }
};

/// Reverse mode: the whole CRK pipeline recorded on `tape` — each stage's pair sum as a `record`
/// of its term, each per-particle finish (V = 1/S; the moments solved into A, B, ∇A, ∇B with the
/// limiter; ρ = num/den) as a `record_map` of the functions the primal stores use — so
/// gradients flow from the factors, the volumes and the CRK density to the set's `Variable`s
/// (positions, supports; masses into the density). Same values as `compute_crk_factors`.
template <class Kernel,
          template <class>
          class TapeT,
          class Exec,
          class Set,
          int D = Set::dim,
          class T = typename Set::primal_scalar,
          std::enable_if_t<is_tape_v<TapeT<Exec>>, int> = 0>
RecordedCRKFactors<D, T>
record_crk_factors(TapeT<Exec>& tape,
                   const Set& particles,
                   const Domain<D, typename Set::primal_scalar>& domain,
                   const NeighborList<Exec>& neighbors,
                   const CRKOptions<typename Set::primal_scalar>& options = {}) {
  SPHAD_REQUIRE(options.tau >= 0, "corrections::record_crk_factors", "options.tau",
                sphad::detail::concat("must be >= 0 (got ", options.tau, ")"));
  const std::int64_t n = particles.size();
  const ApplyOptions<typename Set::primal_scalar> stage{options.direction, 0};
  const auto sums =
      record<detail::KernelSum<Kernel>>(tape, ops::pairs(particles, domain, neighbors, stage));
  const auto volumes = record_map(tape, n, detail::ReciprocalOf{}, sums);
  const auto weighted = ops::pairs(particles.with_volumes(volumes), domain, neighbors, stage);
  const auto moments = record<detail::MomentSum<Kernel>>(tape, weighted);
  const double tau = double(options.tau);
  RecordedCRKFactors<D, T> out{volumes,
                               {},
                               record_map(tape, n, detail::CRKPartOf<0>{tau}, moments),
                               record_map(tape, n, detail::CRKPartOf<1>{tau}, moments),
                               record_map(tape, n, detail::CRKPartOf<2>{tau}, moments),
                               record_map(tape, n, detail::CRKPartOf<3>{tau}, moments)};
  const auto density_sums = record<detail::CRKDensitySums<Kernel>>(
      tape, weighted, ops::Corrections<decltype(out.state())>{out.state(), {}, {}});
  out.density = record_map(tape, n, detail::QuotientOf{}, density_sums);
  return out;
}

/// The same with the kernel chosen at run time (the reference's `computeCRKFactors(kernel)`),
/// over the kernels of `Kernels`; throws naming `kernel` for one not in the list.
template <class Kernels = kernels::AllKernels,
          class Exec,
          class Set,
          class Adjacency,
          int D = Set::dim,
          class T = ops::call_scalar_t<Set>>
CRKFactors<D, T, Exec>
compute_crk_factors(const Exec& exec,
                    KernelId kernel,
                    const Set& particles,
                    const Domain<D, typename Set::primal_scalar>& domain,
                    const Adjacency& adjacency,
                    const CRKOptions<typename Set::primal_scalar>& options = {}) {
  return ops::dispatch_enabled_kernel(
      kernel, "corrections::compute_crk_factors", "kernel",
      [&](auto k) {
        return compute_crk_factors<decltype(k)>(exec, particles, domain, adjacency, options);
      },
      Kernels{});
}

} // namespace sphad::corrections
