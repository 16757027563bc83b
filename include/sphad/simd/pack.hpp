// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

/// Whether this compilation has packs: host code from GCC or clang (not nvcc, not device code).
#if !SPHAD_DEVICE_PASS && !defined(__CUDACC__) && (defined(__GNUC__) || defined(__clang__))
#define SPHAD_HAS_PACKS 1
#else
#define SPHAD_HAS_PACKS 0
#endif

#if SPHAD_HAS_PACKS
#if defined(__SSE2__)
#include <immintrin.h>
#endif
#if !defined(_CMP_LT_OQ) // the AVX compare predicates' values, as names for the other targets
#define _CMP_LT_OQ 0x11
#define _CMP_LE_OQ 0x12
#define _CMP_GT_OQ 0x1e
#define _CMP_GE_OQ 0x1d
#define _CMP_NEQ_UQ 0x04
#endif

/// \file
/// \brief `Pack<T, W>`: W plain scalars computed as one (the host pair loops' lanes), on the
/// compiler's vector extension, so the same expression evaluates W pairs with the target's SIMD
/// instructions (SSE2 two doubles, AVX four). Host code only (GCC and clang; not for nvcc).
///
/// Arithmetic is lane by lane and correctly rounded like the scalar operations, so a formula
/// written once for scalars gives every lane the scalar's bits (the kernels' shapes `k<D>(q)`
/// take packs as they are). Comparisons give a `PackMask`; `select` picks lane by lane without a
/// branch; `sqrt` is the SIMD square root (no errno path: the argument is never negative where
/// the pair loops call it).

namespace sphad::simd {

/// The lanes of T one SIMD register holds: 16 bytes with SSE2 (and on targets without it), 32
/// with AVX.
template <class T>
constexpr int native_lanes() {
#if defined(__AVX__)
  return int(32 / sizeof(T));
#else
  return int(16 / sizeof(T));
#endif
}

template <class T, int W>
struct Pack;

/// The compiler's vector of W elements of T (a typedef: the attribute does not apply to a
/// dependent alias).
template <class T, int W>
struct VectorOf {
  typedef T type __attribute__((vector_size(sizeof(T) * W)));
};

/// The lanes of a comparison: all bits set where true, as T's bit patterns (the form x86's
/// compares give, so that masks combine with `and` and test with one `movemask`).
template <class T, int W>
struct PackMask {
  using bits = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
  using vec = typename VectorOf<bits, W>::type;
  vec m;
  SPHAD_INLINE friend PackMask operator&(PackMask a, PackMask b) { return {a.m & b.m}; }
};

/// W lanes of scalar T (float or double; W · sizeof(T) a power of two).
template <class T, int W>
struct Pack {
  static_assert(std::is_floating_point_v<T>, "sphad::simd::Pack: lanes of float or double");
  using vec = typename VectorOf<T, W>::type;
  using mask = PackMask<T, W>;
  using scalar_type = T;
  static constexpr int width = W;
  vec v;

  Pack() = default;
  SPHAD_INLINE Pack(T s) : v(broadcast(s, std::make_index_sequence<std::size_t(W)>{})) {} // NOLINT
  template <std::size_t... L>
  SPHAD_INLINE static vec broadcast(T s, std::index_sequence<L...>) {
    return vec{(void(L), s)...}; // every lane s, as scalars promote in mixed arithmetic
  }
  SPHAD_INLINE explicit Pack(vec x) : v(x) {}

  SPHAD_INLINE T operator[](int l) const { return v[l]; }
  SPHAD_INLINE void set(int l, T s) { v[l] = s; }

  SPHAD_INLINE friend Pack operator+(Pack a, Pack b) { return Pack(a.v + b.v); }
  SPHAD_INLINE friend Pack operator-(Pack a, Pack b) { return Pack(a.v - b.v); }
  SPHAD_INLINE friend Pack operator*(Pack a, Pack b) { return Pack(a.v * b.v); }
  SPHAD_INLINE friend Pack operator/(Pack a, Pack b) { return Pack(a.v / b.v); }
  SPHAD_INLINE friend Pack operator-(Pack a) { return Pack(-a.v); }
  SPHAD_INLINE Pack& operator+=(Pack b) { return *this = *this + b; }
  SPHAD_INLINE Pack& operator-=(Pack b) { return *this = *this - b; }
  SPHAD_INLINE Pack& operator*=(Pack b) { return *this = *this * b; }
  SPHAD_INLINE Pack& operator/=(Pack b) { return *this = *this / b; }

  SPHAD_INLINE friend mask operator<(Pack a, Pack b) { return compare<_CMP_LT_OQ>(a, b); }
  SPHAD_INLINE friend mask operator>(Pack a, Pack b) { return compare<_CMP_GT_OQ>(a, b); }
  SPHAD_INLINE friend mask operator<=(Pack a, Pack b) { return compare<_CMP_LE_OQ>(a, b); }
  SPHAD_INLINE friend mask operator>=(Pack a, Pack b) { return compare<_CMP_GE_OQ>(a, b); }
  SPHAD_INLINE friend mask operator!=(Pack a, Pack b) { return compare<_CMP_NEQ_UQ>(a, b); }

  /// Ordered comparison `Op` (false where a lane is NaN): the target's compare instruction for
  /// one SSE or AVX register, the vector extension's lane by lane otherwise.
  template <int Op>
  SPHAD_INLINE static mask compare(Pack a, Pack b) {
    using M = typename mask::vec;
#if defined(__AVX__)
    if constexpr (std::is_same_v<T, double> && W == 4) {
      return {(M)_mm256_cmp_pd((__m256d)a.v, (__m256d)b.v, Op)};
    }
    if constexpr (std::is_same_v<T, float> && W == 8) {
      return {(M)_mm256_cmp_ps((__m256)a.v, (__m256)b.v, Op)};
    }
#endif
#if defined(__SSE2__)
    if constexpr (std::is_same_v<T, double> && W == 2) {
      if constexpr (Op == _CMP_LT_OQ) {
        return {(M)_mm_cmplt_pd((__m128d)a.v, (__m128d)b.v)};
      } else if constexpr (Op == _CMP_GT_OQ) {
        return {(M)_mm_cmpgt_pd((__m128d)a.v, (__m128d)b.v)};
      } else if constexpr (Op == _CMP_LE_OQ) {
        return {(M)_mm_cmple_pd((__m128d)a.v, (__m128d)b.v)};
      } else if constexpr (Op == _CMP_NEQ_UQ) {
        return {(M)_mm_cmpneq_pd((__m128d)a.v, (__m128d)b.v)};
      } else {
        return {(M)_mm_cmpge_pd((__m128d)a.v, (__m128d)b.v)};
      }
    }
    if constexpr (std::is_same_v<T, float> && W == 4) {
      if constexpr (Op == _CMP_LT_OQ) {
        return {(M)_mm_cmplt_ps((__m128)a.v, (__m128)b.v)};
      } else if constexpr (Op == _CMP_GT_OQ) {
        return {(M)_mm_cmpgt_ps((__m128)a.v, (__m128)b.v)};
      } else if constexpr (Op == _CMP_LE_OQ) {
        return {(M)_mm_cmple_ps((__m128)a.v, (__m128)b.v)};
      } else if constexpr (Op == _CMP_NEQ_UQ) {
        return {(M)_mm_cmpneq_ps((__m128)a.v, (__m128)b.v)};
      } else {
        return {(M)_mm_cmpge_ps((__m128)a.v, (__m128)b.v)};
      }
    }
#endif
    if constexpr (Op == _CMP_LT_OQ) {
      return {a.v < b.v};
    } else if constexpr (Op == _CMP_GT_OQ) {
      return {a.v > b.v};
    } else if constexpr (Op == _CMP_LE_OQ) {
      return {a.v <= b.v};
    } else if constexpr (Op == _CMP_NEQ_UQ) {
      return {a.v != b.v};
    } else {
      return {a.v >= b.v};
    }
  }
};

/// Lane by lane: `yes` where `mask` is set, else `no` (bits moved, nothing computed).
template <class T, int W>
SPHAD_INLINE Pack<T, W> select(PackMask<T, W> mask, Pack<T, W> yes, Pack<T, W> no) {
  using I = typename PackMask<T, W>::vec;
  using V = typename Pack<T, W>::vec;
  return Pack<T, W>((V)(((I)yes.v & mask.m) | ((I)no.v & ~mask.m)));
}

/// Whether every lane of `mask` is set (one move of the lanes' sign bits on x86).
template <class T, int W>
SPHAD_INLINE bool all(PackMask<T, W> mask) {
#if defined(__AVX__)
  if constexpr (std::is_same_v<T, double> && W == 4) {
    return _mm256_movemask_pd((__m256d)mask.m) == 15;
  }
  if constexpr (std::is_same_v<T, float> && W == 8) {
    return _mm256_movemask_ps((__m256)mask.m) == 255;
  }
#endif
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double> && W == 2) {
    return _mm_movemask_pd((__m128d)mask.m) == 3;
  }
  if constexpr (std::is_same_v<T, float> && W == 4) {
    return _mm_movemask_ps((__m128)mask.m) == 15;
  }
#endif
  typename PackMask<T, W>::bits every = mask.m[0];
  for (int l = 1; l < W; ++l) {
    every &= mask.m[l];
  }
  return every != 0;
}

/// Bit l set where lane l of `mask` is (one move of the lanes' sign bits on x86).
template <class T, int W>
SPHAD_INLINE unsigned lane_bits(PackMask<T, W> mask) {
#if defined(__AVX__)
  if constexpr (std::is_same_v<T, double> && W == 4) {
    return unsigned(_mm256_movemask_pd((__m256d)mask.m));
  }
  if constexpr (std::is_same_v<T, float> && W == 8) {
    return unsigned(_mm256_movemask_ps((__m256)mask.m));
  }
#endif
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double> && W == 2) {
    return unsigned(_mm_movemask_pd((__m128d)mask.m));
  }
  if constexpr (std::is_same_v<T, float> && W == 4) {
    return unsigned(_mm_movemask_ps((__m128)mask.m));
  }
#endif
  unsigned bits = 0;
  for (int l = 0; l < W; ++l) {
    bits |= mask.m[l] != 0 ? 1u << l : 0u;
  }
  return bits;
}

/// The mask of W flags (set where true).
template <class T, int W, std::size_t... L>
SPHAD_INLINE PackMask<T, W> mask_of_flags(const bool (&flags)[W], std::index_sequence<L...>) {
  using B = typename PackMask<T, W>::bits;
  return {typename PackMask<T, W>::vec{(flags[L] ? B(-1) : B(0))...}};
}
template <class T, int W>
SPHAD_INLINE PackMask<T, W> mask_of(const bool (&flags)[W]) {
  return mask_of_flags<T>(flags, std::make_index_sequence<std::size_t(W)>{});
}

/// The pack of the W scalars `lanes` (built in registers: a store of each lane followed by one
/// wide load would stall on the store-to-load forwarding).
template <class T, int W, std::size_t... L>
SPHAD_INLINE Pack<T, W> pack_of_lanes(const T (&lanes)[W], std::index_sequence<L...>) {
  return Pack<T, W>(typename Pack<T, W>::vec{lanes[L]...});
}
template <class T, int W>
SPHAD_INLINE Pack<T, W> pack_of(const T (&lanes)[W]) {
  return pack_of_lanes(lanes, std::make_index_sequence<std::size_t(W)>{});
}

/// The correctly rounded square root of every lane (a SIMD instruction on x86; lane by lane
/// elsewhere).
template <class T, int W>
SPHAD_INLINE Pack<T, W> sqrt(Pack<T, W> a) {
#if defined(__AVX__)
  if constexpr (std::is_same_v<T, double> && W == 4) {
    return Pack<T, W>((typename Pack<T, W>::vec)_mm256_sqrt_pd((__m256d)a.v));
  }
  if constexpr (std::is_same_v<T, float> && W == 8) {
    return Pack<T, W>((typename Pack<T, W>::vec)_mm256_sqrt_ps((__m256)a.v));
  }
#endif
#if defined(__SSE2__)
  constexpr int per = 16 / int(sizeof(T)); // lanes per 16-byte register
  if constexpr (W % per == 0) {
    alignas(16) T lanes[W];
    std::memcpy(lanes, &a.v, sizeof(lanes));
    for (int l = 0; l < W; l += per) {
      if constexpr (std::is_same_v<T, double>) {
        _mm_store_pd(lanes + l, _mm_sqrt_pd(_mm_load_pd(lanes + l)));
      } else {
        _mm_store_ps(lanes + l, _mm_sqrt_ps(_mm_load_ps(lanes + l)));
      }
    }
    Pack<T, W> out;
    std::memcpy(&out.v, lanes, sizeof(lanes));
    return out;
  }
#endif
  Pack<T, W> out;
  for (int l = 0; l < W; ++l) {
    out.v[l] = std::sqrt(a.v[l]);
  }
  return out;
}

} // namespace sphad::simd
#endif // SPHAD_HAS_PACKS
