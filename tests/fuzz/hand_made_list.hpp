// SPDX-License-Identifier: MIT
// A neighbour list as a user porting a solver writes one: no provenance (num_references,
// scheme and radius unknown), offsets and indices as the fuzzer's bytes say — usually a
// well-formed list over nr references, sometimes with decreasing or negative offsets, a
// num_pairs that disagrees with them, short buffers, or indices out of range.
#pragma once

#include <sphad/search.hpp>

#include "fuzz_input.hpp"

#include <algorithm>
#include <cstdint>

namespace sphad::fuzz {

inline NeighborList<exec::host> hand_made_list(Bytes& in, std::int64_t nq, std::int64_t nr) {
  const exec::host ex;
  NeighborList<exec::host> list;
  list.num_queries = in.byte() >= 240 ? in.small(-2, 14) : nq;
  const std::int64_t offsets =
      in.byte() >= 240 ? in.small(0, 16) : std::max<std::int64_t>(list.num_queries + 1, 0);
  list.offsets = Buffer<std::int64_t, exec::host>(ex, offsets);
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < offsets; ++i) {
    const std::uint8_t b = in.byte();
    if (i == 0) {
      total = b >= 248 ? std::int64_t(b) - 252 : 0;
    } else {
      total = b >= 248 ? total - (b - 247) : total + b % 6;
    }
    list.offsets[i] = total;
  }
  list.num_pairs = in.byte() >= 240 ? in.small(-2, 40) : std::max<std::int64_t>(total, 0);
  const std::int64_t entries =
      in.byte() >= 240 ? in.small(0, 40) : std::max<std::int64_t>(list.num_pairs, 0);
  list.neighbors = Buffer<std::int32_t, exec::host>(ex, entries);
  const int range = std::max<int>(int(nr), 1);
  for (std::int64_t k = 0; k < entries; ++k) {
    const std::uint8_t b = in.byte();
    list.neighbors[k] =
        b >= 240 ? std::int32_t(b) - 245 + std::int32_t(nr) : std::int32_t(b % range);
  }
  return list;
}

} // namespace sphad::fuzz
