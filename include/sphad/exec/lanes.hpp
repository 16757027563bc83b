// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <cstdint>

/// \file
/// \brief Sums over the lanes of a warp that share one work item (device code), and the launch
/// shape that gives each work item L lanes; on the host one lane per item.

namespace sphad::exec {

/// The sum of scalar `value` over the L consecutive threads of a warp that share a work item
/// (L a power of two ≤ 32, the group starting at a multiple of L within the warp, all L
/// active), in a fixed shuffle tree, so the result is the same bits on every run: the group's
/// first thread gets the total. Host code has one lane per item: the value itself.
template <int L, class S>
SPHAD_HOST_DEVICE SPHAD_INLINE S lane_sum(S value) {
  static_assert(L > 0 && L <= 32 && (L & (L - 1)) == 0, "lane_sum: L is a power of two <= 32");
#if defined(__CUDA_ARCH__)
  const unsigned group =
      L == 32 ? 0xffffffffu : ((1u << L) - 1u) << (threadIdx.x % 32u / unsigned(L) * unsigned(L));
  SPHAD_PRAGMA_UNROLL
  for (int d = L / 2; d > 0; d /= 2) {
    value += __shfl_down_sync(group, value, d, L);
  }
#endif
  return value;
}

/// Item t / L of `work`, lane t % L: what a launch of L · n threads runs when L consecutive
/// threads share each of n items (`work.in_lanes<L>(item, lane)`).
template <int L, class Work>
struct InLanes {
  Work work;
  SPHAD_HOST_DEVICE SPHAD_FLATTEN void operator()(std::int64_t t) const {
    work.template in_lanes<L>(t / L, int(t % L));
  }
};

} // namespace sphad::exec
