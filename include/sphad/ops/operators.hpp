// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/kernels/kernel_traits.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/ops/detail/field_algebra.hpp>
#include <sphad/ops/pair.hpp>
#include <sphad/ops/properties.hpp>
#include <sphad/ops/schemes.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

/// \file
/// \brief The SPH operators as compile-time specs: each holds only its pair term
/// (ref-operators.md §4); `apply` (<sphad/ops/apply.hpp>) adds validation, the loop over pairs
/// and the launch. The terms are templates over the scalar type, so dual numbers give their
/// derivatives without a second copy of the maths. Each spec states its choices as runtime
/// values in `properties` (canonical, see <sphad/ops/properties.hpp>) and which field types it
/// accepts in `accepts_field<D, F>` (what the runtime front end checks before dispatching). G is
/// the corrected kernel gradient
/// (`Pair::corrected_gradient`: CRK, then renormalization) and Ŵ the corrected value; grad-h
/// divides the field values in the operators that declare `uses_grad_h` (decision O4).

namespace sphad::ops {

namespace detail {
template <class Kernel, SupportScheme Support>
struct OperatorBase {
  static_assert(kernels::is_kernel_v<Kernel>,
                "sphad::ops: Kernel is not a smoothing kernel; use a type from sphad::kernels or "
                "give yours center, normalization<D, R>() and k, dk, d2k (docs/extending.md)");
  using kernel_type = Kernel;
  static constexpr SupportScheme support = Support;

protected:
  /// The properties of an operation of this kernel and support scheme; the fields after
  /// `operation` in OperationProperties order.
  static constexpr OperationProperties
  describe(Operation operation,
           GradientScheme gradient = GradientScheme::Naive,
           LaplacianScheme laplacian = LaplacianScheme::Brookshaw,
           DivergenceMode mode = DivergenceMode::Standard,
           bool consistent = false,
           bool positive = false) {
    return {operation, kernels::kernel_id_v<Kernel>, Support, gradient, laplacian, mode, consistent,
            positive};
  }
};

/// The pair term of an operator written in two parts (ops.md): term(p) = combine(p,
/// kernel_part(p)), `kernel_part` reading the geometry and kernel-side corrections only.
template <class Op>
struct SplitTerm {
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto term(const P& p) {
    return Op::combine(p, Op::kernel_part(p));
  }
};

/// What an operator's kernel part is: the kernel quantity W_ij (`value`, Density), Ŵ_ij
/// (`corrected_value`, CRK applied) or Ĝ_ij (`corrected_gradient`, CRK and renormalization
/// applied); a form of x_ij, the pair support and Ĝ_ij with the operator's own transpose
/// (`gradient_form`: `kernel_part_linearization`); or something else (`other`). The reverse pass
/// differentiates the first four with hand-written adjoints — the kernels', the corrections',
/// the operator's — (`KernelPartAdjoint`, ops/detail/kernel_part_adjoint.hpp) instead of in
/// dual numbers.
enum class KernelPart { value, corrected_value, corrected_gradient, gradient_form, other };

/// The kernel part of an operator that is the kernel quantity `Part` (one definition, which the
/// reverse pass reads from `kernel_part_v`).
template <KernelPart Part>
struct KernelQuantity {
  static constexpr KernelPart kernel_part_kind = Part;
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part(const P& p) {
    if constexpr (Part == KernelPart::value) {
      return p.w();
    } else if constexpr (Part == KernelPart::corrected_value) {
      return p.corrected_value();
    } else {
      static_assert(Part == KernelPart::corrected_gradient, "a kernel quantity");
      return p.corrected_gradient();
    }
  }
};

/// Op's `KernelPart` (`other` unless it derives from `KernelQuantity`).
template <class Op, class = void>
inline constexpr KernelPart kernel_part_v = KernelPart::other;
template <class Op>
inline constexpr KernelPart kernel_part_v<Op, std::void_t<decltype(Op::kernel_part_kind)>> =
    Op::kernel_part_kind;

/// An operator whose combination factors as combine(p, G) = form(particle_part(p), G): the
/// particle part is what the particle quantities make (a field-shaped coefficient), the form
/// joins it with the kernel part. The reverse pass differentiates the two apart, each in its
/// own narrow dual (the coefficient has fewer scalars than the particle inputs it reads).
template <class Op>
struct FactoredCombine {
  template <class P, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const G& g) {
    return Op::form(Op::particle_part(p), g);
  }
};

/// The base of an operator whose combination does not factor (it reads the geometry too).
struct NoFactoredCombine {};

/// Whether F is a field (anything but NoField).
template <class F>
inline constexpr bool is_field_v = !std::is_same_v<F, NoField>;

/// What Gradient, Divergence, Curl and Laplacian share: they read values and densities, and
/// grad-h divides their values (decision O4).
template <class Kernel, SupportScheme Support>
struct FieldDerivative : OperatorBase<Kernel, Support> {
  static constexpr bool uses_grad_h = true;
  static constexpr bool needs_densities = true;
  static constexpr bool needs_values = true;
};
} // namespace detail

/// ρ_i = Σ_j m_j W_ij; output [Nq]. Reads no densities, values or volumes (ref-operators §4.1).
template <class Kernel, SupportScheme Support = SupportScheme::Gather>
struct Density : detail::OperatorBase<Kernel, Support>,
                 detail::SplitTerm<Density<Kernel, Support>>,
                 detail::KernelQuantity<detail::KernelPart::value> {
  static constexpr OperationProperties properties = Density::describe(Operation::Density);
  template <int D, class F>
  static constexpr bool accepts_field = true; // values are not read
  static constexpr bool uses_grad_h = false;
  static constexpr bool needs_densities = false;
  static constexpr bool needs_values = false;
  template <int D, class T, class F>
  using output_t = T;
  template <class P, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const G& w) {
    return p.m_j * w;
  }
};

/// f̃_i = Σ_j f_j V_j W_ij; output shaped like the field (ref-operators §4.2).
template <class Kernel, SupportScheme Support = SupportScheme::Gather>
struct Interpolate : detail::OperatorBase<Kernel, Support>,
                     detail::SplitTerm<Interpolate<Kernel, Support>>,
                     detail::KernelQuantity<detail::KernelPart::corrected_value> {
  static constexpr OperationProperties properties = Interpolate::describe(Operation::Interpolate);
  template <int D, class F>
  static constexpr bool accepts_field = detail::is_field_v<F>;
  static constexpr bool uses_grad_h = false;
  static constexpr bool needs_densities = true;
  static constexpr bool needs_values = true;
  template <int D, class T, class F>
  using output_t = F;
  template <class P, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const G& w) {
    return p.f_j * (p.volume_j * w);
  }
};

/// ∇f_i = Σ_j c_ij ⊗ ∇W_ij, derivative axis last: scalar → [Nq, D], vector [K] → [Nq, K, D],
/// matrix [R, C] → [Nq, R, C, D] (ref-operators §4.3, decision O1).
template <class Kernel,
          GradientScheme Scheme = GradientScheme::Naive,
          SupportScheme Support = SupportScheme::Gather>
struct Gradient : detail::FieldDerivative<Kernel, Support>,
                  detail::SplitTerm<Gradient<Kernel, Scheme, Support>>,
                  detail::FactoredCombine<Gradient<Kernel, Scheme, Support>>,
                  detail::KernelQuantity<detail::KernelPart::corrected_gradient> {
  static constexpr OperationProperties properties = Gradient::describe(Operation::Gradient, Scheme);
  template <int D, class F>
  static constexpr bool accepts_field = detail::is_field_v<F>;
  template <int D, class T, class F>
  using output_t = decltype(detail::outer_with(std::declval<F>(), std::declval<Vec<T, D>>()));
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto particle_part(const P& p) {
    return detail::coefficient<Scheme>(p);
  }
  template <class C, class G>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto form(const C& c, const G& g) {
    return detail::outer_with(c, g);
  }
};

/// ∇·f_i = Σ_j contract(c_ij, ∇W_ij): vector [D] → scalar; matrix → vector, Standard contracting
/// the first axis, Dot the last (decision O2). `Consistent` uses V_j ρ_j/ρ_i (ref-operators §4.4).
template <class Kernel,
          GradientScheme Scheme = GradientScheme::Naive,
          SupportScheme Support = SupportScheme::Gather,
          DivergenceMode Mode = DivergenceMode::Standard,
          bool Consistent = false>
struct Divergence : detail::FieldDerivative<Kernel, Support>,
                    detail::SplitTerm<Divergence<Kernel, Scheme, Support, Mode, Consistent>>,
                    detail::FactoredCombine<Divergence<Kernel, Scheme, Support, Mode, Consistent>>,
                    detail::KernelQuantity<detail::KernelPart::corrected_gradient> {
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
/// component; a [D, m] matrix gives the curl of each column (decision O3).
template <class Kernel,
          GradientScheme Scheme = GradientScheme::Naive,
          SupportScheme Support = SupportScheme::Gather>
struct Curl : detail::FieldDerivative<Kernel, Support>,
              detail::SplitTerm<Curl<Kernel, Scheme, Support>>,
              detail::FactoredCombine<Curl<Kernel, Scheme, Support>>,
              detail::KernelQuantity<detail::KernelPart::corrected_gradient> {
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

/// ∇²f_i (ref-operators §4.6): q_ij = (f_j − f_i) V_j, or (f_j − f_i) m_j ρ_i/ρ_j² for the
/// Symmetric gradient scheme; n = x_ij/(r + 1e-8 h_ij). Naive q ∇²W; Brookshaw
/// −2q(G·n)/(r + 1e-8 h_ij); Default −2q(G·n)/(r + 1e-12 h_ij); Dot F(q_k − (D+2)(q_b·n) n_k),
/// F = (n·G)/(r + 1e-8 h_ij), per block b of D components. Zero at r = 0. With
/// `PositiveDivergence` a term counts only when x_ij·q_ij ≥ 0 (first D components), and only
/// those components are kept.
template <class Kernel,
          LaplacianScheme Scheme = LaplacianScheme::Brookshaw,
          GradientScheme Difference = GradientScheme::Naive,
          SupportScheme Support = SupportScheme::Gather,
          bool PositiveDivergence = false>
struct Laplacian
    : detail::FieldDerivative<Kernel, Support>,
      detail::SplitTerm<Laplacian<Kernel, Scheme, Difference, Support, PositiveDivergence>>,
      std::conditional_t<
          PositiveDivergence,
          detail::NoFactoredCombine,
          detail::FactoredCombine<Laplacian<Kernel, Scheme, Difference, Support, false>>> {
  static constexpr OperationProperties properties = Laplacian::describe(
      Operation::Laplacian,
      Difference == GradientScheme::Symmetric ? GradientScheme::Symmetric : GradientScheme::Naive,
      Scheme,
      DivergenceMode::Standard,
      false,
      PositiveDivergence);
  /// Dot and positiveDivergence read the field's components in blocks of D.
  template <int D, class F>
  static constexpr bool accepts_field = detail::is_field_v<F> &&
                                        (Scheme != LaplacianScheme::Dot ||
                                         (!is_mat_v<F> && detail::Components<F>::count % D == 0)) &&
                                        (!PositiveDivergence ||
                                         (!is_mat_v<F> && detail::Components<F>::count >= D));
  template <int D, class T, class F>
  using output_t = F;

  /// The kernel side of the pair term (geometry and corrections): ∇²W (Naive), −2 (G·n)/(r + ε
  /// h_ij) (Brookshaw, Default), (F, n) as a [D + 1] vector (Dot); zero at r = 0.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part(const P& p) {
    using T = typename P::scalar; // one scalar for everything (dual when any input is)
    using sphad::detail::convert_scalars;
    constexpr int D = decltype(p.x_ij)::dim;
    if constexpr (Scheme == LaplacianScheme::Naive) {
      return T(p.laplacian());
    } else {
      using G = std::conditional_t<Scheme == LaplacianScheme::Dot, Vec<T, D + 1>, T>;
      const T r = safe_norm(p.x_ij);
      if (!(value_of(r) > 0)) {
        return G{}; // the reference's explicit r = 0 guard
      }
      const T h_ij = p.support();
      // n = x_ij/d1 with d1 = r + 10⁻⁸ h_ij, by one reciprocal (its D + 1 uses multiply).
      const T inv_d1 = T(1) / (r + primal_t<T>(1e-8) * h_ij);
      const auto n = convert_scalars<Vec<T, D>>(p.x_ij) * inv_d1;
      const auto g = convert_scalars<Vec<T, D>>(p.corrected_gradient());
      if constexpr (Scheme == LaplacianScheme::Brookshaw || Scheme == LaplacianScheme::Default) {
        return G(form_value(g, n, inv_d1, r, h_ij));
      } else {
        static_assert(Scheme == LaplacianScheme::Dot, "sphad::ops::Laplacian: unknown scheme");
        G out;
        out[0] = dot(n, g) * inv_d1;
        for (int e = 0; e < D; ++e) {
          out[e + 1] = n[e];
        }
        return out;
      }
    }
  }

  static constexpr detail::KernelPart kernel_part_kind =
      Scheme == LaplacianScheme::Brookshaw || Scheme == LaplacianScheme::Default
          ? detail::KernelPart::gradient_form
          : detail::KernelPart::other;

  /// The Brookshaw and Default kernel parts from Ĝ, n = x/d1, 1/d1 (d1 = r + 10⁻⁸ h), r and h:
  /// −2 (Ĝ·n)/d1 or −2 (n·Ĝ)/(r + 10⁻¹² h).
  template <class T, int D>
  SPHAD_HOST_DEVICE SPHAD_INLINE static T
  form_value(const Vec<T, D>& g, const Vec<T, D>& n, const T& inv_d1, const T& r, const T& h_ij) {
    if constexpr (Scheme == LaplacianScheme::Brookshaw) {
      return T(-2) * dot(g, n) * inv_d1;
    } else {
      return T(-2) * dot(n, g) / (r + primal_t<T>(1e-12) * h_ij);
    }
  }

  /// The adjoints of the Brookshaw and Default kernel part's inputs Ĝ, x and h for a unit
  /// cotangent; they are linear in the cotangent L̄, and `times` scales them to it.
  template <class T, int D>
  struct FormAdjoint {
    Vec<T, D> gradient{};
    Vec<T, D> x{};
    T support{};
    SPHAD_HOST_DEVICE SPHAD_INLINE FormAdjoint times(const T& lbar) const {
      return {gradient * lbar, x * lbar, support * lbar};
    }
  };
  /// The kernel part's value with its `FormAdjoint`, evaluated once (the reverse pass).
  template <class T, int D>
  struct FormLinearization {
    T value{};
    FormAdjoint<T, D> unit{};
  };

  /// The Brookshaw and Default kernel part of pair vector x (r = |x|, from the kernel's own
  /// linearization), pair support h and Ĝ, linearized: with m = Ĝ·x, d1 = r + 10⁻⁸ h and d2 = r +
  /// 10⁻¹² h the part is −2 m/d1² (Brookshaw) or −2 m/(d1 d2) (Default), so per unit cotangent
  /// Ĝ̄ = c x and x̄ = c Ĝ + (d̄1 + d̄2) x/r with c = −2/d1² or −2/(d1 d2), d̄1 = 4 m/d1³
  /// (Brookshaw) or 2 m/(d1² d2), d̄2 = 2 m/(d1 d2²) (Default), and h̄ = 10⁻⁸ d̄1 + 10⁻¹² d̄2;
  /// all zero at r = 0.
  template <class T, int D>
  SPHAD_HOST_DEVICE SPHAD_INLINE static FormLinearization<T, D>
  kernel_part_linearization(const Vec<T, D>& x, const T& r, const T& h_ij, const Vec<T, D>& g) {
    static_assert(kernel_part_kind == detail::KernelPart::gradient_form,
                  "sphad::ops::Laplacian: the Brookshaw and Default kernel parts have a transpose");
    if (!(value_of(r) > 0)) {
      return {};
    }
    const T inv_d1 = T(1) / (r + primal_t<T>(1e-8) * h_ij);
    const T m = dot(g, x);
    FormLinearization<T, D> out;
    out.value = form_value(g, x * inv_d1, inv_d1, r, h_ij);
    T c, d1bar, d2bar(0);
    if constexpr (Scheme == LaplacianScheme::Brookshaw) {
      c = T(-2) * inv_d1 * inv_d1;
      d1bar = T(4) * m * inv_d1 * inv_d1 * inv_d1;
    } else {
      const T inv_d2 = T(1) / (r + primal_t<T>(1e-12) * h_ij);
      c = T(-2) * inv_d1 * inv_d2;
      d1bar = T(2) * m * inv_d1 * inv_d1 * inv_d2;
      d2bar = T(2) * m * inv_d1 * inv_d2 * inv_d2;
    }
    out.unit.gradient = x * c;
    out.unit.x = g * c + x * ((d1bar + d2bar) / r);
    out.unit.support = primal_t<T>(1e-8) * d1bar + primal_t<T>(1e-12) * d2bar;
    return out;
  }

  /// q_ij: the field difference scaled by the scheme's particle weights.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto particle_part(const P& p) {
    using Field = std::decay_t<decltype(p.f_j)>;
    using F = rebind_scalar_t<Field, promote_t<typename P::scalar, scalar_of_t<Field>>>;
    using sphad::detail::convert_scalars;
    return Difference == GradientScheme::Symmetric
               ? convert_scalars<F>((p.f_j - p.f_i) *
                                    safe_divide(p.m_j * p.rho_i, p.rho_j * p.rho_j))
               : convert_scalars<F>((p.f_j - p.f_i) * p.volume_j);
  }

  /// q_ij joined with the kernel side k: q_ij times k, or Price's per-block projection for Dot.
  template <class Q, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto form(const Q& q_in, const K& k) {
    using T = scalar_of_t<K>;
    using S = promote_t<T, scalar_of_t<Q>>;
    using F = rebind_scalar_t<Q, S>;
    using Parts = detail::Components<F>;
    using sphad::detail::convert_scalars;
    const F q = convert_scalars<F>(q_in);
    F out{};
    if constexpr (Scheme != LaplacianScheme::Dot) {
      out = convert_scalars<F>(q * k);
    } else {
      constexpr int D = K::dim - 1;
      static_assert(Parts::count % D == 0,
                    "sphad::ops::Laplacian: the Dot scheme needs a field whose size is a "
                    "multiple of D; use Naive, Brookshaw or Default for scalars");
      const T f = k[0];
      for (int b = 0; b < Parts::count / D; ++b) {
        S projection(0);
        for (int e = 0; e < D; ++e) {
          projection += Parts::at(q, b * D + e) * k[e + 1];
        }
        for (int e = 0; e < D; ++e) {
          Parts::at(out, b * D + e) =
              f * (Parts::at(q, b * D + e) - T(D + 2) * projection * k[e + 1]);
        }
      }
    }
    return out;
  }

  /// The pair term: form(q_ij, k); `PositiveDivergence` keeps a term when x_ij·q_ij ≥ 0.
  template <class P, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const K& k) {
    const auto q = particle_part(p);
    const auto out = form(q, k);
    if constexpr (PositiveDivergence) {
      // Only the components along the pair vector that do not point inwards survive.
      using F = std::remove_cv_t<decltype(out)>;
      using Parts = detail::Components<F>;
      constexpr int D = decltype(p.x_ij)::dim;
      static_assert(Parts::count >= D, "sphad::ops::Laplacian: positiveDivergence needs a field "
                                       "of at least D components");
      scalar_of_t<F> along(0);
      for (int e = 0; e < D; ++e) {
        along += p.x_ij[e] * Parts::at(q, e);
      }
      F kept{};
      if (value_of(along) >= 0) {
        for (int e = 0; e < D; ++e) {
          Parts::at(kept, e) = Parts::at(out, e);
        }
      }
      return kept;
    } else {
      return out;
    }
  }
};

/// C_i = Σ_j V_j (x_j − x_i) ⊗ ∇W_ij and the count of pairs with W_ij > 0 (ref-operators §4.7).
template <class T, int D>
struct CovarianceResult {
  Mat<T, D, D> matrix{};
  std::int32_t neighbors = 0;

  SPHAD_HOST_DEVICE SPHAD_INLINE CovarianceResult& operator+=(const CovarianceResult& other) {
    matrix += other.matrix;
    neighbors += other.neighbors;
    return *this;
  }
};

} // namespace sphad::ops

namespace sphad {
/// A Covariance result's scalar is its matrix's.
template <class T, int D>
struct scalar_of<ops::CovarianceResult<T, D>, void> {
  using type = T;
};
} // namespace sphad

namespace sphad::ops {

template <class Kernel, SupportScheme Support = SupportScheme::Gather>
struct Covariance : detail::OperatorBase<Kernel, Support>,
                    detail::SplitTerm<Covariance<Kernel, Support>> {
  static constexpr OperationProperties properties = Covariance::describe(Operation::Covariance);
  template <int D, class F>
  static constexpr bool accepts_field = true; // values are not read
  static constexpr bool uses_grad_h = false;
  static constexpr bool needs_densities = true;
  static constexpr bool needs_values = false;
  template <int D, class T, class F>
  using output_t = CovarianceResult<T, D>;
  /// The kernel side: −x_ij ⊗ Ĝ_ij and whether Ŵ_ij > 0.
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part(const P& p) {
    using T = typename P::scalar;
    constexpr int D = decltype(p.x_ij)::dim;
    CovarianceResult<T, D> out;
    out.matrix =
        sphad::detail::convert_scalars<Mat<T, D, D>>(outer(-p.x_ij, p.corrected_gradient()));
    out.neighbors = value_of(p.corrected_value()) > 0 ? 1 : 0;
    return out;
  }
  template <class P, class K>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto combine(const P& p, const K& k) {
    using T = promote_t<typename P::scalar, scalar_of_t<K>>;
    constexpr int D = decltype(p.x_ij)::dim;
    CovarianceResult<T, D> out;
    out.matrix = sphad::detail::convert_scalars<Mat<T, D, D>>(k.matrix * p.volume_j);
    out.neighbors = k.neighbors;
    return out;
  }
};

} // namespace sphad::ops
