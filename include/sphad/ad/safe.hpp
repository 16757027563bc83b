// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/ad/lanewise.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/scalar_traits.hpp>

#include <cmath>
#include <type_traits>

/// \file
/// \brief Primitives for the places SPH maths divides by a distance or picks between a
/// regular and a degenerate formula: they return finite values and tangents where the plain
/// formula's derivative is 0/0, and never let a NaN or Inf from a branch not taken reach the
/// result.

namespace sphad {

/// Picks `if_true` or `if_false` by `condition`, converting to their common scalar type. Both
/// arguments are already evaluated, but only the chosen one is returned, whole: a NaN or Inf
/// in the value or tangents of the other never reaches the result (unlike blending by a 0/1
/// mask, whose tangent 0·Inf is NaN). For a branch that must not even be computed, use
/// `evaluate_if`.
template <class A, class B>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr promote_t<A, B>
select(bool condition, const A& if_true, const B& if_false) {
  using R = promote_t<A, B>;
  return condition ? R(if_true) : R(if_false);
}

/// `compute()` when `condition` holds, else `fallback`; `compute` is not called at all otherwise,
/// so a degenerate input (a singular matrix, a zero distance) is never fed to it.
template <class F, class R>
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr R
evaluate_if(bool condition, F&& compute, const R& fallback) {
  if (condition) {
    return R(compute());
  }
  return fallback;
}

/// √x for x > 0 and exactly 0 (value and tangents) for x ≤ 0. The plain square root's tangent
/// x'/(2√x) is not finite at 0; pair distances of coincident particles need 0 there.
template <class T>
SPHAD_HOST_DEVICE SPHAD_INLINE T safe_sqrt(const T& x) {
  using std::sqrt;
  return value_of(x) > 0 ? T(sqrt(x)) : T(0);
}

/// |x| whose derivative at the zero vector is zero, not NaN. Away from zero it equals the plain
/// norm bitwise, value and tangents.
template <class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE T safe_norm(const Vec<T, D>& x) {
  return safe_sqrt(norm_squared(x));
}

/// x/|x| for x ≠ 0 and the zero vector (value and tangents) for x = 0.
template <class T, int D>
SPHAD_HOST_DEVICE SPHAD_INLINE Vec<T, D> safe_normalize(const Vec<T, D>& x) {
  const T r = safe_norm(x);
  return value_of(r) > 0 ? Vec<T, D>(x / r) : Vec<T, D>{};
}

/// a/b for b ≠ 0 and exactly 0 (value and tangents) for b = 0, as the zero-sum guards and the
/// quotients by a zero density need. `a` may be a scalar, `Vec` or `Mat` (every
/// component 0 then); `b` is a scalar. On SIMD packs (the host's pair blocks) lane by lane.
template <class A, class B>
SPHAD_HOST_DEVICE SPHAD_INLINE auto safe_divide(const A& a, const B& b) {
  using R = decltype(a / b);
  return when(
      value_of(b) != 0, [&] { return R(a / b); }, R{}); // lane by lane on packs
}

} // namespace sphad
