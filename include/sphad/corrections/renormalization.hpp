// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/plain_tape.hpp>
#include <sphad/corrections/detail/stage.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/pinv.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/ops/operators.hpp>
#include <sphad/ops/record.hpp>
#include <sphad/ops/runtime.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/scalar_traits.hpp>

#include <cstdint>

/// \file
/// \brief Gradient renormalization matrices: the covariance C_i of the Covariance operator (the
/// caller's kernel, support scheme, volumes and corrections), the identity fallback, and
/// L_i = pinv(C_iᵀ).

namespace sphad::corrections {

/// Whether a covariance row is renormalized: at least D + 2 pairs with W > 0 and C of full
/// rank, i.e. no singular value dropped by pinv's cutoff D·eps·σ_max. Otherwise the row
/// falls back to the identity, with zero tangent.
template <int D, class T>
SPHAD_HOST_DEVICE bool renormalization_accepted(const ops::CovarianceResult<T, D>& c) {
  using R = primal_t<T>;
  if (c.neighbors < D + 2) {
    return false;
  }
  Mat<R, D, D> primal{};
  for (int a = 0; a < D; ++a) {
    for (int b = 0; b < D; ++b) {
      primal(a, b) = value_of(c.matrix(a, b));
    }
  }
  const Vec<R, D> sigma = singular_values(primal);
  R largest = sigma[0], smallest = sigma[0];
  for (int k = 1; k < D; ++k) {
    largest = max(largest, sigma[k]);
    smallest = min(smallest, sigma[k]);
  }
  return smallest > R(D) * machine_epsilon_v<R> * largest;
}

namespace detail {

/// The Covariance operator's matrix, with the neighbour count of the plain kernel (W > 0, the
/// fallback's rule) where the operator counts Ŵ > 0: CRK can make Ŵ negative for most of a
/// corner particle's pairs, and the fallback would then throw away a well-determined C.
template <class Kernel, SupportScheme Support>
struct RenormalizationCovariance : ops::Covariance<Kernel, Support> {
  template <class P>
  SPHAD_HOST_DEVICE static auto kernel_part(const P& p) {
    auto k = ops::Covariance<Kernel, Support>::kernel_part(p);
    k.neighbors = value_of(p.w()) > 0 ? 1 : 0;
    return k;
  }
};

/// L_i = pinv(C̃_iᵀ) with C̃_i = C_i, or I where the row falls back: with L = C^-T the Difference
/// gradient of a linear field is exact even where CRK makes C non-symmetric; where C is
/// symmetric (radial kernels without CRK) it is the reference's pinv(C). On any scalar: the
/// store below and `record_renormalization` share it.
struct RenormalizationOf {
  template <class T, int D>
  SPHAD_HOST_DEVICE static Mat<T, D, D> of(const ops::CovarianceResult<T, D>& c, bool accepted) {
    return accepted ? pinv(transpose(c.matrix)) : Mat<T, D, D>::identity();
  }
  template <class T, int D>
  SPHAD_HOST_DEVICE Mat<T, D, D> operator()(const ops::CovarianceResult<T, D>& c) const {
    return of(c, renormalization_accepted(c));
  }
};

/// Stores L_i and, when asked, C̃_i.
template <int D, class T>
struct StoreRenormalization {
  Mat<T, D, D>* matrices;
  Mat<T, D, D>* covariances; ///< may be null
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i,
                                                 const ops::CovarianceResult<T, D>& c) const {
    const bool accepted = renormalization_accepted(c);
    const Mat<T, D, D> kept = accepted ? c.matrix : Mat<T, D, D>::identity();
    matrices[i] = RenormalizationOf::of(c, accepted);
    if (covariances != nullptr) {
      covariances[i] = kept;
    }
  }
};

} // namespace detail

/// The renormalization matrices L_i of the queries ([Nq] into `matrices`) and, when
/// `covariances` is not empty, the covariances C̃_i after the fallback: Covariance<Kernel,
/// Support> over `adjacency` with the caller's volumes (`references.volumes`, else m_j/ρ_j),
/// directions and corrections (a CRK state, or earlier renormalization matrices, correct the
/// gradient inside C as in the reference). Rows with fewer than D + 2 pairs with W > 0, or a
/// singular C, get C̃ = L = I (with zero tangents). Nothing of the caller's is modified.
template <class Kernel,
          SupportScheme Support = SupportScheme::Gather,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          class Corr = ops::Uncorrected,
          int D = Queries::dim,
          class T = ops::call_scalar_t<Queries, References, Corr>>
void renormalization_matrices_into(
    const Exec& exec,
    const Queries& queries,
    const References& references,
    const Domain<D, typename Queries::primal_scalar>& domain,
    const Adjacency& adjacency,
    Span<Mat<T, D, D>> matrices,
    Span<Mat<T, D, D>> covariances = {},
    const ApplyOptions<typename Queries::primal_scalar>& options = {},
    const Corr& corrections = {}) {
  constexpr const char* function = "corrections::renormalization_matrices";
  detail::require_output(matrices, queries.size(), function, "matrices");
  detail::require_output(covariances, queries.size(), function, "covariances", true);
  pairloop::evaluate_all<detail::RenormalizationCovariance<Kernel, Support>>(
      exec, queries, references, domain, adjacency, Span<const ops::NoField>{},
      Span<const ops::NoField>{}, options, corrections,
      detail::StoreRenormalization<D, T>{matrices.data(),
                                         covariances.size() > 0 ? covariances.data() : nullptr},
      function);
}

/// The renormalization state and the covariances it came from, in the memory of `Exec`.
template <int D, class T, class Exec>
struct RenormalizationMatrices {
  Buffer<Mat<T, D, D>, Exec> matrices;    ///< L [Nq]
  Buffer<Mat<T, D, D>, Exec> covariances; ///< C̃ [Nq], after the fallback

  /// The state the operators read (`ops::Corrections<..., ops::Renormalization<D, T>>`).
  ops::Renormalization<D, T> state() const { return {{matrices.data(), matrices.size()}}; }
};

/// `renormalization_matrices_into` with the outputs allocated here (stream-ordered).
/// Inputs with tangents give dual matrices (their JVP), ready for a corrected operator's JVP.
template <class Kernel,
          SupportScheme Support = SupportScheme::Gather,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          class Corr = ops::Uncorrected,
          int D = Queries::dim,
          class T = ops::call_scalar_t<Queries, References, Corr>>
RenormalizationMatrices<D, T, Exec>
compute_renormalization(const Exec& exec,
                        const Queries& queries,
                        const References& references,
                        const Domain<D, typename Queries::primal_scalar>& domain,
                        const Adjacency& adjacency,
                        const ApplyOptions<typename Queries::primal_scalar>& options = {},
                        const Corr& corrections = {}) {
  const std::int64_t n =
      pairloop::checked_size(queries, "corrections::renormalization_matrices", "queries");
  RenormalizationMatrices<D, T, Exec> out{Buffer<Mat<T, D, D>, Exec>(exec, n),
                                          Buffer<Mat<T, D, D>, Exec>(exec, n)};
  renormalization_matrices_into<Kernel, Support>(
      exec, queries, references, domain, adjacency, Span<Mat<T, D, D>>{out.matrices.data(), n},
      Span<Mat<T, D, D>>{out.covariances.data(), n}, options, corrections);
  return out;
}

/// Reverse mode: the renormalization matrices recorded on `tape` (the covariance as a `record`
/// of its pair term, with the caller's volumes, directions and corrections, then L_i as a
/// `record_map` of the fallback and pinv), so gradients flow from L to every `Variable` of the
/// sets and of `corrections`. Returns L [Nq] as a tape-owned `Variable`, for
/// `ops::Renormalization<D, T, Variable<Mat<T, D, D>>>{L}`. Throws like `compute_renormalization`.
template <class Kernel,
          SupportScheme Support = SupportScheme::Gather,
          template <class>
          class TapeT,
          class Exec,
          class Queries,
          class References,
          class Corr = ops::Uncorrected,
          std::enable_if_t<is_tape_v<TapeT<Exec>>, int> = 0>
auto record_renormalization(TapeT<Exec>& tape,
                            const Queries& queries,
                            const References& references,
                            const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
                            const NeighborList<Exec>& neighbors,
                            const ApplyOptions<typename Queries::primal_scalar>& options = {},
                            const Corr& corrections = {}) {
  const auto covariances = record<detail::RenormalizationCovariance<Kernel, Support>>(
      tape, ops::pairs(queries, references, domain, neighbors, options), corrections);
  return record_map(tape, queries.size(), detail::RenormalizationOf{}, covariances);
}

/// The same with the kernel and support scheme of `properties` chosen at run time (the
/// reference's `computeRenormalizationMatrices(particles, props)`; the other fields of
/// `properties` are ignored and it is not modified), over the lists given.
template <class Kernels = kernels::AllKernels,
          class Supports = ops::AllSupportSchemes,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          class Corr = ops::Uncorrected,
          int D = Queries::dim,
          class T = ops::call_scalar_t<Queries, References, Corr>>
RenormalizationMatrices<D, T, Exec>
compute_renormalization(const Exec& exec,
                        const OperationProperties& properties,
                        const Queries& queries,
                        const References& references,
                        const Domain<D, typename Queries::primal_scalar>& domain,
                        const Adjacency& adjacency,
                        const ApplyOptions<typename Queries::primal_scalar>& options = {},
                        const Corr& corrections = {}) {
  constexpr const char* function = "corrections::compute_renormalization";
  return ops::dispatch_enabled_kernel(
      properties.kernel, function, "properties.kernel",
      [&](auto kernel) {
        return ops::dispatch_value(
            properties.support, "properties.support",
            [&](auto support) {
              return compute_renormalization<decltype(kernel), decltype(support)::value>(
                  exec, queries, references, domain, adjacency, options, corrections);
            },
            Supports{});
      },
      Kernels{});
}

} // namespace sphad::corrections
