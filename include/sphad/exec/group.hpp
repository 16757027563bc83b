// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/exec/host.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/cuda.hpp>
#include <sphad/exec/sort.hpp>
#endif

/// \file
/// \brief `group_by_key`: the positions of an array of keys grouped by key, in increasing order
/// within each group — what turns a scatter (many writers per target) into a gather (each target
/// sums its own group in a fixed order: no atomics, the same bits on every run).

namespace sphad::detail {
/// values[k] = k.
struct EntryIndex {
  std::int64_t* values;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t k) const { values[k] = k; }
};

/// offsets[j] = the first position whose sorted key is ≥ j (binary search).
struct FirstEntryOf {
  const std::int32_t* sorted_keys;
  std::int64_t n;
  std::int64_t* offsets;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t j) const {
    std::int64_t lo = 0, hi = n;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (sorted_keys[mid] < j) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    offsets[j] = lo;
  }
};
} // namespace sphad::detail

namespace sphad::exec {

/// Groups the positions k of `keys` ([n], each in [0, num_keys)) by key, keeping k increasing
/// within a group: group j is entries[offsets[j] .. offsets[j + 1]) (offsets: [num_keys + 1],
/// entries: [n]). The grouping is unique, so the result does not depend on how the work is
/// split: on the host a counting sort over at most 8 contiguous chunks of positions (in
/// parallel), on CUDA a stable radix sort; stream-ordered, no synchronization. The keys are
/// not checked (the callers check them).
inline void group_by_key(const host&,
                         const std::int32_t* keys,
                         std::int64_t n,
                         std::int64_t num_keys,
                         std::int64_t* offsets,
                         std::int64_t* entries) {
  const int chunks =
      int(std::max<std::int64_t>(1, std::min<std::int64_t>({host::concurrency(), 8, n / 65536})));
  // counts[c][j]: positions of chunk c in group j; then each chunk's cursor into group j.
  std::vector<std::int64_t> counts(std::size_t(chunks) * std::size_t(num_keys), 0);
  const auto chunk_begin = [&](int c) { return n * c / chunks; };
#if SPHAD_HAS_OPENMP
#pragma omp parallel for schedule(static, 1) num_threads(chunks) if (chunks > 1)
#endif
  for (int c = 0; c < chunks; ++c) {
    std::int64_t* count = counts.data() + std::size_t(c) * std::size_t(num_keys);
    for (std::int64_t k = chunk_begin(c); k < chunk_begin(c + 1); ++k) {
      ++count[keys[k]];
    }
  }
  std::int64_t start = 0;
  for (std::int64_t j = 0; j < num_keys; ++j) {
    offsets[j] = start;
    for (int c = 0; c < chunks; ++c) {
      std::int64_t& count = counts[std::size_t(c) * std::size_t(num_keys) + std::size_t(j)];
      const std::int64_t size = count;
      count = start;
      start += size;
    }
  }
  offsets[num_keys] = start;
#if SPHAD_HAS_OPENMP
#pragma omp parallel for schedule(static, 1) num_threads(chunks) if (chunks > 1)
#endif
  for (int c = 0; c < chunks; ++c) {
    std::int64_t* cursor = counts.data() + std::size_t(c) * std::size_t(num_keys);
    for (std::int64_t k = chunk_begin(c); k < chunk_begin(c + 1); ++k) {
      entries[cursor[keys[k]]++] = k;
    }
  }
}

#if defined(__CUDACC__)
inline void group_by_key(const cuda& exec,
                         const std::int32_t* keys,
                         std::int64_t n,
                         std::int64_t num_keys,
                         std::int64_t* offsets,
                         std::int64_t* entries) {
  Buffer<std::int32_t, cuda> sorted(exec, n);
  copy(exec, keys, sorted.data(), n);
  for_each_index(exec, n, detail::EntryIndex{entries});
  int key_bits = 1; // the keys lie below num_keys
  while (key_bits < 31 && (std::int64_t(1) << key_bits) < num_keys) {
    ++key_bits;
  }
  stable_sort_by_key(exec, sorted.data(), entries, n, key_bits);
  for_each_index(exec, num_keys + 1, detail::FirstEntryOf{sorted.data(), n, offsets});
}
#endif

} // namespace sphad::exec
