// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/simd/pack.hpp>

#include <type_traits>
#include <utility>

/// \file
/// \brief A row's sum in lanes (`LaneSums`: entry k of a row adds into lane k mod L, the lanes
/// meet in a fixed tree) and the lanes' helpers of the host's pair blocks (which calls take
/// them: plan.hpp).

namespace sphad::pairloop {

/// The lanes of a row's sum for primal scalar P: on the host as many as one SIMD register holds
/// (16 bytes with SSE2 — two doubles, four floats —, 32 with AVX), 1 on the device (a thread's
/// pairs in order). Every host path — the blocks, the pair-at-a-time loop of the dual and
/// corrected calls, grid traversal — sums a row in the same lanes, so their results are the
/// same bits.
template <class P>
SPHAD_HOST_DEVICE constexpr int row_lanes() {
#if SPHAD_DEVICE_PASS
  return 1;
#elif defined(__AVX__)
  return sizeof(P) == 4 ? 8 : 4;
#else
  return sizeof(P) == 4 ? 4 : 2;
#endif
}

/// A row's partial sums: entry k (counting every entry of the row, accepted or not) adds into
/// lane k mod L; `total` adds the lanes in a fixed tree.
template <class Out, int L>
struct LaneSums {
  Out lanes[L] = {};
  SPHAD_HOST_DEVICE SPHAD_INLINE void add(int lane, const Out& term) { lanes[lane] += term; }
  SPHAD_HOST_DEVICE SPHAD_INLINE Out total() const {
    static_assert(L == 1 || L == 2 || L == 4 || L == 8, "row lanes: 1, 2, 4 or 8");
    return pair_sum<0, L>(); // outputs offer += (CovarianceResult no +)
  }
  /// The sum of lanes [First, First + N) as a balanced tree.
  template <int First, int N>
  SPHAD_HOST_DEVICE SPHAD_INLINE Out pair_sum() const {
    if constexpr (N == 1) {
      return lanes[First];
    } else {
      Out left = pair_sum<First, N / 2>();
      left += pair_sum<First + N / 2, N / 2>();
      return left;
    }
  }
};

/// Component c of a row's lanes' sums (`lanes[l][c]`) added in `LaneSums`' tree: lanes
/// [First, First + N) as a balanced tree.
template <int First, int N, class S, int L, int K>
SPHAD_HOST_DEVICE SPHAD_INLINE S lane_tree(const S (&lanes)[L][K], int c) {
  static_assert(L == 1 || L == 2 || L == 4 || L == 8, "row lanes: 1, 2, 4 or 8");
  if constexpr (N == 1) {
    return lanes[First][c];
  } else {
    S left = lane_tree<First, N / 2>(lanes, c);
    left += lane_tree<First + N / 2, N / 2>(lanes, c);
    return left;
  }
}

/// Calls f(std::integral_constant<int, l>{}) for l = 0, ..., L − 1: each lane's code with its
/// index a constant, so that per-lane arrays (the row's sums among them) stay in registers.
template <class F, int... Lanes>
SPHAD_HOST_DEVICE SPHAD_INLINE void each_lane_of(F&& f, std::integer_sequence<int, Lanes...>) {
  (f(std::integral_constant<int, Lanes>{}), ...);
}
template <int L, class F>
SPHAD_HOST_DEVICE SPHAD_INLINE void each_lane(F&& f) {
  each_lane_of(f, std::make_integer_sequence<int, L>{});
}

#if SPHAD_HAS_PACKS
/// The pack whose lane l is f(l) (an `std::integral_constant`), built in registers.
template <class P, class F, int... Lanes>
SPHAD_INLINE P lanes_of_sequence(F&& f, std::integer_sequence<int, Lanes...>) {
  return P(typename P::vec{f(std::integral_constant<int, Lanes>{})...});
}
template <class P, class F>
SPHAD_INLINE P lanes_of(F&& f) {
  return lanes_of_sequence<P>(f, std::make_integer_sequence<int, P::width>{});
}
#endif

} // namespace sphad::pairloop
