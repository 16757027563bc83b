// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/simd/pack.hpp>

#include <cstdint>
#include <cstring>
#include <utility>

/// \file
/// \brief Packs from and to memory for the host's pair loops: contiguous scalars as one pack
/// (`load`, `store`), contiguous vectors split into one pack per component (`load_components`),
/// 2-vectors gathered at indices (`gather_components2`), and the marked lanes of a pack of indices
/// stored one after another (`compress_store`).

#if SPHAD_HAS_PACKS
namespace sphad::simd {

/// W contiguous scalars at `at` as a pack, and a pack stored there (no alignment needed).
template <class T, int W>
SPHAD_INLINE Pack<T, W> load(const T* at) {
  typename Pack<T, W>::vec v;
  std::memcpy(&v, at, sizeof(v));
  return Pack<T, W>(v);
}
template <class T, int W>
SPHAD_INLINE void store(T* at, Pack<T, W> p) {
  std::memcpy(at, &p.v, sizeof(p.v));
}

/// Element `f` of D · W contiguous scalars (D packs' worth, as loaded): which of the first two
/// packs' 2W elements it is (`first_two`, when f < 2W) and where the third pack's element goes
/// in the second shuffle (`with_third`).
constexpr int first_two(int f, int w) {
  return f < 2 * w ? f : 0;
}
constexpr int with_third(int f, int w, int k) {
  return f < 2 * w ? k : w + (f - 2 * w);
}

template <int D, class T, int W, int A, class V, std::size_t... K>
SPHAD_INLINE Pack<T, W> component_of(V c0, V c1, V c2, std::index_sequence<K...>) {
  if constexpr (D == 1) {
    return Pack<T, W>(c0);
  } else if constexpr (D == 2) {
    return Pack<T, W>(__builtin_shufflevector(c0, c1, (int(K) * D + A)...));
  } else {
    const V two = __builtin_shufflevector(c0, c1, first_two(int(K) * D + A, W)...);
    return Pack<T, W>(__builtin_shufflevector(two, c2, with_third(int(K) * D + A, W, int(K))...));
  }
}
template <int D, class T, int W, std::size_t... A>
SPHAD_INLINE void
load_components_of(const T* flat, Pack<T, W> (&out)[D], std::index_sequence<A...>) {
  using V = typename Pack<T, W>::vec;
  V c[3] = {}; // D unaligned loads, each its own register
  std::memcpy(&c[0], flat, sizeof(V));
  if constexpr (D >= 2) {
    std::memcpy(&c[1], flat + W, sizeof(V));
  }
  if constexpr (D >= 3) {
    std::memcpy(&c[2], flat + 2 * W, sizeof(V));
  }
  if constexpr (D == 3 && W == 2) {
    // c0 = x0 y0, c1 = z0 x1, c2 = y1 z1: one shuffle per axis
    out[0] = Pack<T, W>(__builtin_shufflevector(c[0], c[1], 0, 3));
    out[1] = Pack<T, W>(__builtin_shufflevector(c[0], c[2], 1, 2));
    out[2] = Pack<T, W>(__builtin_shufflevector(c[1], c[2], 0, 3));
  } else if constexpr (D == 3 && W == 4) {
    // c0 = x0 y0 z0 x1, c1 = y1 z1 x2 y2, c2 = z2 x3 y3 z3: the halves regrouped (a = x0 y0 x2
    // y2, b = z0 x1 z2 x3, m = y1 z1 y3 z3), then one shuffle within the halves per axis — six
    // shuffles where the generic two per axis took 13 instructions a pack (x86-64-v3)
    const V a = __builtin_shufflevector(c[0], c[1], 0, 1, 6, 7);
    const V b = __builtin_shufflevector(c[0], c[2], 2, 3, 4, 5);
    const V m = __builtin_shufflevector(c[1], c[2], 0, 1, 6, 7);
    out[0] = Pack<T, W>(__builtin_shufflevector(a, b, 0, 5, 2, 7));
    out[1] = Pack<T, W>(__builtin_shufflevector(a, m, 1, 4, 3, 6));
    out[2] = Pack<T, W>(__builtin_shufflevector(b, m, 0, 5, 2, 7));
  } else {
    const std::make_index_sequence<std::size_t(W)> lanes;
    ((out[A] = component_of<D, T, W, int(A)>(c[0], c[1], c[2], lanes)), ...);
  }
}

/// The components of W consecutive D-vectors stored as D · W contiguous scalars (x0 y0 z0 x1
/// …), one pack per component: D wide loads and shuffles in registers, no gather and no
/// store of a lane (D ≤ 3).
template <int D, class T, int W>
SPHAD_INLINE void load_components(const T* flat, Pack<T, W> (&out)[D]) {
  static_assert(D >= 1 && D <= 3, "sphad::simd::load_components: 1 to 3 components");
  load_components_of(flat, out, std::make_index_sequence<std::size_t(D)>{});
}

/// The components of W 2-vectors gathered from `base` (x0 y0 x1 y1 …: vector j at base + 2j)
/// at the indices `js[0, W)`, one pack per component: one load of each vector whole and
/// shuffles in registers (W = 2 or 4), instead of a load and an insert per scalar.
template <class T, int W>
SPHAD_INLINE void gather_components2(const T* base, const std::int32_t* js, Pack<T, W> (&out)[2]) {
  static_assert(W == 2 || W == 4, "sphad::simd::gather_components2: 2 or 4 lanes");
  using V = typename Pack<T, W>::vec;
  if constexpr (W == 2) {
    V c0, c1; // x0 y0, x1 y1
    std::memcpy(&c0, base + 2 * std::int64_t(js[0]), sizeof(V));
    std::memcpy(&c1, base + 2 * std::int64_t(js[1]), sizeof(V));
    out[0] = Pack<T, W>(__builtin_shufflevector(c0, c1, 0, 2));
    out[1] = Pack<T, W>(__builtin_shufflevector(c0, c1, 1, 3));
  } else {
    typedef T Half __attribute__((vector_size(2 * sizeof(T))));
    Half h[4]; // x_l y_l
    for (int l = 0; l < 4; ++l) {
      std::memcpy(&h[l], base + 2 * std::int64_t(js[l]), sizeof(Half));
    }
    const V even = __builtin_shufflevector(h[0], h[2], 0, 1, 2, 3); // x0 y0 x2 y2
    const V odd = __builtin_shufflevector(h[1], h[3], 0, 1, 2, 3);  // x1 y1 x3 y3
    out[0] = Pack<T, W>(__builtin_shufflevector(even, odd, 0, 4, 2, 6));
    out[1] = Pack<T, W>(__builtin_shufflevector(even, odd, 1, 5, 3, 7));
  }
}

/// Writes the W int32 `values` whose bit is set in `bits` (lane l: bit l) to out[n, n + count)
/// in lane order and moves n past them; out[n + count, n + W) may be written too (room for W is
/// needed).
/// Four lanes with SSSE3 and POPCNT (x86-64-v2 and up): one shuffle by a table of the 16 masks
/// and one store, instead of a store and a count per lane.
template <int W>
SPHAD_INLINE void
compress_store(const std::int32_t* values, unsigned bits, std::int32_t* out, std::int64_t& n) {
#if defined(__SSSE3__) && defined(__POPCNT__)
  if constexpr (W == 4) {
    struct Table {
      alignas(16) std::uint8_t bytes[16][16];
      constexpr Table() : bytes{} {
        for (unsigned m = 0; m < 16; ++m) {
          unsigned at = 0;
          for (unsigned l = 0; l < 4; ++l) {
            if ((m >> l) & 1u) {
              for (unsigned b = 0; b < 4; ++b) {
                bytes[m][4 * at + b] = std::uint8_t(4 * l + b);
              }
              ++at;
            }
          }
          for (; at < 4; ++at) { // the rest: lane 3 again (any byte would do)
            for (unsigned b = 0; b < 4; ++b) {
              bytes[m][4 * at + b] = std::uint8_t(12 + b);
            }
          }
        }
      }
    };
    static constexpr Table table{};
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(values));
    const __m128i shuffle = _mm_load_si128(reinterpret_cast<const __m128i*>(table.bytes[bits]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + n), _mm_shuffle_epi8(v, shuffle));
    n += _mm_popcnt_u32(bits);
    return;
  }
#endif
  for (int l = 0; l < W; ++l) {
    out[n] = values[l];
    n += (bits >> l) & 1u;
  }
}

} // namespace sphad::simd
#endif
