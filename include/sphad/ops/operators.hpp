// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/kernels/kernel_traits.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/ops/covariance.hpp>
#include <sphad/ops/detail/field_algebra.hpp>
#include <sphad/ops/detail/operator_base.hpp>
#include <sphad/ops/families.hpp>
#include <sphad/ops/laplacian.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/pair/properties.hpp>
#include <sphad/pair/schemes.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

/// \file
/// \brief The SPH operators as compile-time specs: each holds only its pair term
/// (their sums: docs/ops.md); `apply` (<sphad/ops/apply.hpp>) adds validation, the loop over pairs
/// and the launch. The terms are templates over the scalar type, so dual numbers give their
/// derivatives without a second copy of the maths. Each spec states its choices as runtime
/// values in `properties` (canonical, see <sphad/pair/properties.hpp>) and which field types it
/// accepts in `accepts_field<D, F>` (what the runtime front end checks before dispatching). G is
/// the corrected kernel gradient
/// (`Pair::corrected_gradient`: CRK, then renormalization) and Ŵ the corrected value; grad-h
/// divides the field values in the operators that declare `uses_grad_h`.

namespace sphad::ops {

/// ρ_i = Σ_j m_j W_ij; output [Nq]. Reads no densities, values or volumes.
template <class Kernel, SupportScheme Support = SupportScheme::Gather>
struct Density : OperatorBase<Kernel, Support>, KernelQuantity<KernelPart::value> {
  static constexpr OperationProperties properties = Density::describe(Operation::Density);
  template <int D, class F>
  static constexpr bool accepts_field = true; // values are not read
  static constexpr bool uses_grad_h = false;
  static constexpr bool needs_densities = false;
  static constexpr bool needs_values = false;
  template <int D, class T, class F>
  using output_t = T;
  /// `combine` is arithmetic alone (no branch): the host evaluates it on SIMD lanes.
  static constexpr bool lanewise_combine = true;
  template <class P, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const G& w) {
    return p.m_j * w;
  }
};

/// f̃_i = Σ_j f_j V_j W_ij; output shaped like the field.
template <class Kernel, SupportScheme Support = SupportScheme::Gather>
struct Interpolate : OperatorBase<Kernel, Support>, KernelQuantity<KernelPart::corrected_value> {
  static constexpr OperationProperties properties = Interpolate::describe(Operation::Interpolate);
  template <int D, class F>
  static constexpr bool accepts_field = detail::is_field_v<F>;
  static constexpr bool uses_grad_h = false;
  static constexpr bool needs_densities = true;
  static constexpr bool needs_values = true;
  template <int D, class T, class F>
  using output_t = F;
  static constexpr bool lanewise_combine = true; ///< arithmetic alone (no branch)
  template <class P, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const G& w) {
    return p.f_j * (p.volume_j * w);
  }
};

/// ∇f_i = Σ_j c_ij ⊗ ∇W_ij, derivative axis last: scalar → [Nq, D], vector [K] → [Nq, K, D],
/// matrix [R, C] → [Nq, R, C, D].
template <class Kernel,
          GradientScheme Scheme = GradientScheme::Naive,
          SupportScheme Support = SupportScheme::Gather>
struct Gradient : detail::FieldDerivative<Kernel, Support>,
                  KernelQuantity<KernelPart::corrected_gradient> {
  static constexpr OperationProperties properties = Gradient::describe(Operation::Gradient, Scheme);
  template <int D, class F>
  static constexpr bool accepts_field = detail::is_field_v<F>;
  template <int D, class T, class F>
  using output_t = decltype(detail::outer_with(std::declval<F>(), std::declval<Vec<T, D>>()));
  /// The coefficient is arithmetic alone (the Symmetric scheme's quotients by `safe_divide`,
  /// whose zero test is a lane select on packs).
  static constexpr bool lanewise_combine = true;
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto particle_part(const P& p) {
    return detail::coefficient<Scheme>(p);
  }
  template <class C, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto form(const C& c, const G& g) {
    return detail::outer_with(c, g);
  }
  /// form(particle_part(p), G) transposed by hand (reverse mode's combination, in plain
  /// scalars) for the coefficients linear in the values: c = f_j V_j, (f_j − f_i) V_j or
  /// (f_j + f_i) V_j give f̄_j = V_j c̄, f̄_i = ∓V_j c̄, V̄_j = ⟨c̄, c/V_j⟩. (Symmetric is
  /// differentiated in dual numbers.)
  static constexpr bool transposed_combine = Scheme != GradientScheme::Symmetric;
  template <class P, class G, class Y>
  SPHAD_HOST_DEVICE SPHAD_INLINE static G
  combine_adjoint(const P& p, const G& g, const Y& ybar, P& pbar) {
    static_assert(Scheme != GradientScheme::Symmetric, "no transpose for this scheme");
    const auto values = detail::volume_weighted_values<Scheme>(p);
    const auto adjoint = detail::outer_with_adjoint(values * p.volume_j, g, ybar);
    pbar.f_j += p.volume_j * adjoint.c;
    if constexpr (Scheme == GradientScheme::Difference) {
      pbar.f_i += (-p.volume_j) * adjoint.c;
    } else if constexpr (Scheme == GradientScheme::Summation) {
      pbar.f_i += p.volume_j * adjoint.c;
    }
    pbar.volume_j += detail::inner(adjoint.c, values);
    return adjoint.g;
  }
};

/// ∇·f_i = Σ_j contract(c_ij, ∇W_ij): vector [D] → scalar; matrix → vector, Standard contracting
/// the first axis, Dot the last (that axis must have extent D). `Consistent` uses V_j ρ_j/ρ_i.
template <class Kernel,
          GradientScheme Scheme = GradientScheme::Naive,
          SupportScheme Support = SupportScheme::Gather,
          DivergenceMode Mode = DivergenceMode::Standard,
          bool Consistent = false>
struct Divergence : detail::FieldDerivative<Kernel, Support>,
                    KernelQuantity<KernelPart::corrected_gradient> {
  static constexpr OperationProperties properties = Divergence::describe(
      Operation::Divergence, Scheme, LaplacianScheme::Brookshaw, Mode, Consistent);
  template <int D, class F>
  static constexpr bool accepts_field = detail::contractible<Mode, F, D>() && detail::is_field_v<F>;
  template <int D, class T, class F>
  using output_t = decltype(detail::contract<Mode>(std::declval<F>(), std::declval<Vec<T, D>>()));
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto particle_part(const P& p) {
    if constexpr (Consistent) {
      return detail::coefficient<Scheme>(p, safe_divide(p.volume_j * p.rho_j, p.rho_i));
    } else {
      return detail::coefficient<Scheme>(p);
    }
  }
  template <class C, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto form(const C& c, const G& g) {
    return detail::contract<Mode>(c, g);
  }
};

/// ∇×f_i = Σ_j ∇W_ij × c_ij on the first field axis: 3D vector → vector, 2D vector → the z
/// component; a [D, m] matrix gives the curl of each column.
template <class Kernel,
          GradientScheme Scheme = GradientScheme::Naive,
          SupportScheme Support = SupportScheme::Gather>
struct Curl : detail::FieldDerivative<Kernel, Support>,
              KernelQuantity<KernelPart::corrected_gradient> {
  static constexpr OperationProperties properties = Curl::describe(Operation::Curl, Scheme);
  template <int D, class F>
  static constexpr bool accepts_field = detail::curlable<F, D>();
  template <int D, class T, class F>
  using output_t = decltype(detail::curl_term(std::declval<F>(), std::declval<Vec<T, D>>()));
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto particle_part(const P& p) {
    return detail::coefficient<Scheme>(p);
  }
  template <class C, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto form(const C& c, const G& g) {
    return detail::curl_term(c, g);
  }
};

namespace detail {
template <>
struct OperatorFamily<Operation::Density> : KernelSupportFamily<Density> {};
template <>
struct OperatorFamily<Operation::Interpolate> : KernelSupportFamily<Interpolate> {};
template <>
struct OperatorFamily<Operation::Gradient> : GradientSchemeFamily<Gradient> {};
template <>
struct OperatorFamily<Operation::Curl> : GradientSchemeFamily<Curl> {};
template <>
struct OperatorFamily<Operation::Divergence> {
  template <class K, SupportScheme S, class F>
  static decltype(auto) with_type(const OperationProperties& c, F&& f) {
    return with_gradient_scheme(c, [&](auto g) -> decltype(auto) {
      return dispatch_value(
          c.divergence_mode, "properties.divergence_mode",
          [&](auto mode) -> decltype(auto) {
            return dispatch_value(
                c.consistent_divergence, "properties.consistent_divergence",
                [&](auto consistent) -> decltype(auto) {
                  return f(Divergence<K, decltype(g)::value, S, decltype(mode)::value,
                                      decltype(consistent)::value>{});
                },
                Flags{});
          },
          ValueList<DivergenceMode::Standard, DivergenceMode::Dot>{});
    });
  }
};
} // namespace detail

} // namespace sphad::ops
