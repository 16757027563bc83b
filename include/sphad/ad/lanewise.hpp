// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/simd/pack.hpp>

#include <type_traits>

/// \file
/// \brief One spelling of a cut for one scalar (a `bool` condition) and for W lanes at once (a
/// SIMD pack's `PackMask`), so that a formula with a cut — a kernel's support, a guard at r = 0
/// — is written once for both: `stops(in)` (whether the evaluation may return zero at once),
/// `cut(in, v)` (v where `in` holds, +0 elsewhere) and `when(condition, f, otherwise)` (f() where
/// the condition holds; for one scalar f is not called otherwise). With a `bool` they are the
/// branches the scalar code takes; with a mask every lane is computed and then selected, no
/// branch per lane.

namespace sphad {

/// Whether an evaluation under condition `in` may stop with zero now: one scalar outside.
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr bool stops(bool in) {
  return !in;
}

/// `v` where `in` holds, else zero (after `stops(in)` has returned, `in` holds: no code).
template <class X>
SPHAD_HOST_DEVICE SPHAD_INLINE X cut(bool in, const X& v) {
  return in ? v : X{};
}

/// f() where `condition` holds, else `otherwise`; f is not called otherwise.
template <class F, class R>
SPHAD_HOST_DEVICE SPHAD_INLINE R when(bool condition, const F& f, const R& otherwise) {
  return condition ? R(f()) : otherwise;
}

/// Both conditions.
SPHAD_HOST_DEVICE SPHAD_INLINE constexpr bool both(bool a, bool b) {
  return a && b;
}

#if SPHAD_HAS_PACKS
/// Packs never stop early: every lane is computed, `cut` keeps the ones inside.
template <class T, int W>
SPHAD_INLINE constexpr bool stops(simd::PackMask<T, W>) {
  return false;
}

/// Lane by lane `yes` where `mask` holds, else `no`: a `Dual` over packs (value and tangents), a
/// `Vec` of packs or of such duals (every component); packs themselves: `simd::select`.
template <class T, int W, int N>
SPHAD_INLINE Dual<simd::Pack<T, W>, N> select(simd::PackMask<T, W> mask,
                                              const Dual<simd::Pack<T, W>, N>& yes,
                                              const Dual<simd::Pack<T, W>, N>& no) {
  Dual<simd::Pack<T, W>, N> out;
  out.value = select(mask, yes.value, no.value);
  for (int k = 0; k < N; ++k) {
    out.tangent[k] = select(mask, yes.tangent[k], no.tangent[k]);
  }
  return out;
}
template <class T, int W, class X, int D>
SPHAD_INLINE Vec<X, D>
select(simd::PackMask<T, W> mask, const Vec<X, D>& yes, const Vec<X, D>& no) {
  Vec<X, D> out;
  for (int a = 0; a < D; ++a) {
    out[a] = select(mask, yes[a], no[a]);
  }
  return out;
}

/// The lanes of `v` that `in` holds, +0 in the others (value and tangents, every component).
template <class T, int W, class X>
SPHAD_INLINE X cut(simd::PackMask<T, W> in, const X& v) {
  return select(in, v, X{});
}

template <class T, int W>
SPHAD_INLINE simd::PackMask<T, W> both(simd::PackMask<T, W> a, simd::PackMask<T, W> b) {
  return a & b;
}

/// The larger of a and b lane by lane; on a tie, a (`max` for one scalar, the same bits).
template <class T, int W>
SPHAD_INLINE simd::Pack<T, W> max(simd::Pack<T, W> a, simd::Pack<T, W> b) {
  return select(a >= b, a, b);
}

/// |x| of every lane's vector, `safe_norm`'s bits lane by lane: the square root of the sum of
/// squares where it is positive, else 0 (a NaN component gives 0, as the scalar test does; packs
/// carry no tangents).
template <class T, int W, int D>
SPHAD_INLINE simd::Pack<T, W> safe_norm(const Vec<simd::Pack<T, W>, D>& x) {
  const simd::Pack<T, W> r2 = norm_squared(x);
  return select(r2 > simd::Pack<T, W>(T(0)), simd::sqrt(r2), simd::Pack<T, W>(T(0)));
}

/// f() in the lanes where `condition` holds, `otherwise` in the others (f runs on every lane;
/// what it gives in the others — an infinity, a NaN — is dropped).
template <class T, int W, class F, class R>
SPHAD_INLINE R when(simd::PackMask<T, W> condition, const F& f, const R& otherwise) {
  return select(condition, R(f()), otherwise);
}
#endif

} // namespace sphad
