// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/lanewise.hpp>
#include <sphad/kernels/kernel_traits.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/pair/pair.hpp>

#include <cmath>
#include <type_traits>

/// \file
/// \brief What an operator type provides (`check_operator`), and how the library evaluates its
/// pair term from either of its two forms.
///
/// An operator is a type with static members only:
///   - `using kernel_type = K;` (a smoothing kernel, `kernels::is_kernel_v<K>`) and
///     `static constexpr SupportScheme support`;
///   - `static constexpr bool needs_densities, needs_values, uses_grad_h`: whether it reads
///     densities (or volumes), field values, and whether grad-h divides those values;
///   - `template <int D, class T, class F> using output_t`: its per-particle result for
///     dimension D, scalar T and field element F;
///   - its pair term, in one of two forms:
///       whole: `term(pair)` reading everything of a `Pair` (geometry and particle inputs);
///       split: `kernel_part(pair)` reading the geometry, supports and kernel quantities, and
///         `combine(particles, k)` joining the kernel part's value k with the particle inputs
///         (`ParticlePair`: no geometry) — or, when the join factors, `particle_part(particles)`
///         and `form(c, k)` instead of `combine`.
/// The split form is what reverse mode differentiates fast: the two parts each in a narrow dual
/// number, and a kernel part that is a kernel quantity (derive from `KernelQuantity`) by
/// hand-written adjoints. The runtime front end (`ops::dispatch`) also reads `properties` and
/// `accepts_field<D, F>`; a user operator that is only called through the templates needs
/// neither.

namespace sphad::ops {

/// What an operator's kernel part is: the kernel quantity W_ij (`value`), Ŵ_ij
/// (`corrected_value`: CRK applied) or Ĝ_ij (`corrected_gradient`: CRK and renormalization
/// applied); a form of x_ij, the pair support and Ĝ_ij with the operator's own transpose
/// (`gradient_form`: the library's Laplacian and the solver's laminar viscosity, whose
/// `gradient_form(Ĝ, x, r, h)` and `form_linearization(x, r, h, Ĝ)` — the form and the form
/// with its transpose (a `FormLinearization`), for r > 0 — are arithmetic alone, so that the host
/// evaluates them on SIMD packs too; `gradient_form_linearization` gives the latter 0 at r = 0); or
/// something else (`other`, differentiated in dual numbers).
enum class KernelPart { value, corrected_value, corrected_gradient, gradient_form, other };

/// The adjoints of a gradient form's inputs Ĝ, x and the pair support h for a unit cotangent;
/// they are linear in the cotangent, and `times` scales them to it.
template <class T, int D>
struct FormAdjoint {
  Vec<T, D> gradient{};
  Vec<T, D> x{};
  T support{};
  SPHAD_HOST_DEVICE SPHAD_INLINE FormAdjoint times(const T& lbar) const {
    return {gradient * lbar, x * lbar, support * lbar};
  }
};
/// A gradient form's value with its `FormAdjoint`, evaluated once (the reverse pass).
template <class T, int D>
struct FormLinearization {
  T value{};
  FormAdjoint<T, D> unit{};
};

#if SPHAD_HAS_PACKS
/// Lane by lane `yes` where `mask` holds, else `no` (every member).
template <class T, int W, int D>
SPHAD_INLINE FormLinearization<simd::Pack<T, W>, D>
select(simd::PackMask<T, W> mask,
       const FormLinearization<simd::Pack<T, W>, D>& yes,
       const FormLinearization<simd::Pack<T, W>, D>& no) {
  FormLinearization<simd::Pack<T, W>, D> out;
  out.value = select(mask, yes.value, no.value);
  out.unit.gradient = select(mask, yes.unit.gradient, no.unit.gradient);
  out.unit.x = select(mask, yes.unit.x, no.unit.x);
  out.unit.support = select(mask, yes.unit.support, no.unit.support);
  return out;
}
#endif

/// The gradient form of operator Op linearized at pair vector x (r = |x|), pair support h_ij and
/// Ĝ = g (`Op::form_linearization`), and all zero at r = 0: the one guard of the transpose, for
/// one pair (a branch) and for the host's SIMD packs (a lane select).
template <class Op, class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE FormLinearization<T, D>
gradient_form_linearization(const Vec<T, D>& x, const T& r, const T& h_ij, const Vec<T, D>& g) {
  return when(
      value_of(r) > std::decay_t<decltype(value_of(r))>(0),
      [&]() SPHAD_LAMBDA_INLINE { return Op::form_linearization(x, r, h_ij, g); },
      FormLinearization<T, D>{});
}

/// The gradient form of operator Op at Ĝ = g, pair vector x and pair support h, with r = |x| from
/// r² and exactly 0 (value and tangents) where r = 0: the guard of the host's SIMD paths, a lane
/// select (one pair's `kernel_part` branches instead).
template <class Op, class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE T guarded_gradient_form(const Vec<T, D>& g,
                                                       const Vec<T, D>& x,
                                                       const T& h) {
  using std::sqrt;
  const T r2 = dot(x, x);
  return cut(value_of(r2) > std::decay_t<decltype(value_of(r2))>(0),
             T(Op::gradient_form(g, x, sqrt(r2), h)));
}

/// The kernel part of an operator that is the kernel quantity `Part`: derive from it instead of
/// writing `kernel_part`, and reverse mode differentiates the kernel part by the kernels' and the
/// corrections' hand-written adjoints.
template <KernelPart Part>
struct KernelQuantity {
  static_assert(Part == KernelPart::value || Part == KernelPart::corrected_value ||
                    Part == KernelPart::corrected_gradient,
                "sphad::ops::KernelQuantity: Part is value, corrected_value or corrected_gradient");
  static constexpr KernelPart kernel_part_kind = Part;
  template <class P>
  SPHAD_HOST_DEVICE SPHAD_INLINE static auto kernel_part(const P& p) {
    if constexpr (Part == KernelPart::value) {
      return p.w();
    } else if constexpr (Part == KernelPart::corrected_value) {
      return p.corrected_value();
    } else {
      return p.corrected_gradient();
    }
  }
};

namespace detail {

/// Member detection by name: `Probed<Op>::name` is ambiguous exactly when Op has a member
/// `name` (any kind: a function template too), without instantiating it.
struct MemberProbe {
  static void term();
  static void kernel_part();
  static void combine();
  static void particle_part();
  static void form();
};
template <class Op>
struct Probed : Op, MemberProbe {};

#define SPHAD_OPERATOR_MEMBER_TRAIT(name)                                                          \
  template <class Op, class = void>                                                                \
  inline constexpr bool has_##name##_v = true;                                                     \
  template <class Op>                                                                              \
  inline constexpr bool has_##name##_v<Op, std::void_t<decltype(&Probed<Op>::name)>> = false;
SPHAD_OPERATOR_MEMBER_TRAIT(term)
SPHAD_OPERATOR_MEMBER_TRAIT(kernel_part)
SPHAD_OPERATOR_MEMBER_TRAIT(combine)
SPHAD_OPERATOR_MEMBER_TRAIT(particle_part)
SPHAD_OPERATOR_MEMBER_TRAIT(form)
#undef SPHAD_OPERATOR_MEMBER_TRAIT

template <class Op, class = void>
inline constexpr bool has_kernel_type_v = false;
template <class Op>
inline constexpr bool has_kernel_type_v<Op, std::void_t<typename Op::kernel_type>> = true;

template <class Op, class = void>
inline constexpr bool has_support_v = false;
template <class Op>
inline constexpr bool has_support_v<Op, std::void_t<decltype(Op::support)>> =
    std::is_same_v<std::remove_cv_t<decltype(Op::support)>, SupportScheme>;

template <class Op, class = void>
inline constexpr bool has_flags_v = false;
template <class Op>
inline constexpr bool has_flags_v<Op,
                                  std::void_t<decltype(bool(Op::needs_densities)),
                                              decltype(bool(Op::needs_values)),
                                              decltype(bool(Op::uses_grad_h))>> = true;

} // namespace detail

/// Whether Op's term is split (kernel_part with combine, or with particle_part and form).
template <class Op>
inline constexpr bool splits_term_v = detail::has_kernel_part_v<Op>;

/// Whether Op's combination factors as form(particle_part(p), k) (it has those and no combine).
template <class Op>
inline constexpr bool factored_combine_v =
    splits_term_v<Op> && !detail::has_combine_v<Op> && detail::has_particle_part_v<Op> &&
    detail::has_form_v<Op>;

/// Whether Op's combination has a transpose written by hand (`static constexpr bool
/// transposed_combine = true` with `combine_adjoint(p, k, ybar, pbar)`: for the cotangent ȳ of
/// combine(p, k), adds p's adjoint into `pbar`, shaped like p, and returns k's): reverse mode
/// then differentiates the combination by it, in plain scalars, instead of in dual numbers over
/// every tracked input.
template <class Op, class = void>
inline constexpr bool transposed_combine_v = false;
template <class Op>
inline constexpr bool transposed_combine_v<Op, std::void_t<decltype(Op::transposed_combine)>> =
    Op::transposed_combine;

/// Whether Op, a whole pair term, has a transpose written by hand (`static constexpr bool
/// transposed_term = true` with `term_adjoint(p, ybar, pbar)`: for the cotangent ȳ of term(p)
/// at a pair of plain scalars with its supports held fixed, adds the particle inputs' adjoint
/// into `pbar`, shaped like p's particle inputs, and returns x_ij's): reverse mode then
/// differentiates the term by it instead of in dual numbers, where no support and no correction
/// is tracked.
template <class Op, class = void>
inline constexpr bool transposed_term_v = false;
template <class Op>
inline constexpr bool transposed_term_v<Op, std::void_t<decltype(Op::transposed_term)>> =
    Op::transposed_term;

/// Op's `KernelPart` (`other` unless it declares `kernel_part_kind`, as `KernelQuantity` does).
template <class Op, class = void>
inline constexpr KernelPart kernel_part_v = KernelPart::other;
template <class Op>
inline constexpr KernelPart kernel_part_v<Op, std::void_t<decltype(Op::kernel_part_kind)>> =
    Op::kernel_part_kind;

/// The split form's combination of the particle inputs `particles` with the kernel part's value.
template <class Op, class PP, class K>
SPHAD_HOST_DEVICE SPHAD_INLINE auto combine(const PP& particles, const K& k) {
  if constexpr (factored_combine_v<Op>) {
    return Op::form(Op::particle_part(particles), k);
  } else {
    return Op::combine(particles, k);
  }
}

/// Op's pair term: `term(p)`, or combine(p's particle inputs, kernel_part(p)) — the one
/// definition the primal, the JVP and the reverse passes all evaluate.
template <class Op, class P>
SPHAD_HOST_DEVICE SPHAD_INLINE auto pair_term(const P& p) {
  if constexpr (splits_term_v<Op>) {
    return combine<Op>(p.particles(), Op::kernel_part(p));
  } else {
    return Op::term(p);
  }
}

/// Checks that Op is an operator (see this header's description), each missing or wrong member
/// with a worded error; true when it is. `apply`, `jvp` and `record` check their operator.
template <class Op>
constexpr bool check_operator() {
  static_assert(std::is_class_v<Op>, "sphad::ops: an operator is a class type with static members "
                                     "(docs/extending.md)");
  if constexpr (std::is_class_v<Op>) {
    static_assert(detail::has_kernel_type_v<Op>,
                  "sphad::ops: the operator has no kernel_type; declare `using kernel_type = K;` "
                  "with K a smoothing kernel");
    if constexpr (detail::has_kernel_type_v<Op>) {
      static_assert(kernels::is_kernel_v<typename Op::kernel_type>,
                    "sphad::ops: the operator's kernel_type is not a smoothing kernel; use a type "
                    "from sphad::kernels or give yours center, normalization<D, R>() and k, dk, "
                    "d2k (docs/extending.md)");
    }
    static_assert(detail::has_support_v<Op>,
                  "sphad::ops: the operator has no `static constexpr SupportScheme support`");
    static_assert(detail::has_flags_v<Op>,
                  "sphad::ops: the operator does not say what it reads; declare `static constexpr "
                  "bool needs_densities, needs_values, uses_grad_h`");
    static_assert(
        detail::has_term_v<Op> || detail::has_kernel_part_v<Op>,
        "sphad::ops: the operator has no pair term; give term(pair), or kernel_part(pair) "
        "with combine(particles, k) (docs/extending.md)");
    static_assert(!(detail::has_term_v<Op> && detail::has_kernel_part_v<Op>),
                  "sphad::ops: the operator has both term and kernel_part; give one form of its "
                  "pair term");
    if constexpr (splits_term_v<Op>) {
      static_assert(detail::has_combine_v<Op> ||
                        (detail::has_particle_part_v<Op> && detail::has_form_v<Op>),
                    "sphad::ops: a split operator joins its kernel part with the particle inputs: "
                    "give combine(particles, k), or particle_part(particles) and form(c, k)");
    }
  }
  return true;
}

} // namespace sphad::ops
