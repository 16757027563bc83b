// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/exec/detail/radix_sort.hpp>
#include <sphad/exec/host.hpp>

#include <climits>
#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/cuda.hpp>

#include <cub/device/device_radix_sort.cuh>
#endif

/// \file
/// \brief Stable sort of (key, value) pairs by integral key.

namespace sphad::detail {
/// What both spaces' sorts check before any work.
template <class K>
void check_sort_arguments(std::int64_t n, int key_bits) {
  static_assert(std::is_integral_v<K>, "sphad::exec::stable_sort_by_key: keys must be integral");
  SPHAD_REQUIRE(n >= 0, "stable_sort_by_key", "n", concat("negative (got ", n, ")"));
  SPHAD_REQUIRE(key_bits > 0 && key_bits <= int(sizeof(K)) * CHAR_BIT, "stable_sort_by_key",
                "key_bits",
                concat("must be in [1, ", sizeof(K) * CHAR_BIT, "] (got ", key_bits, ")"));
}
} // namespace sphad::detail

namespace sphad::exec {

/// Sorts `keys[0, n)` ascending in place and applies the same permutation to `values[0, n)`.
/// Stable (equal keys keep their order), hence deterministic. Host: a serial LSD radix sort;
/// CUDA: CUB's device radix sort on the stream, scratch allocated stream-ordered, no
/// synchronization.
/// @tparam K  an integral key type (cell keys); signed keys sort by their signed value.
/// @tparam V  a trivially copyable payload (typically the original index).
/// @param key_bits  when every key lies in [0, 2^key_bits): CUDA sorts those bits alone (fewer
///        passes); the host skips the digits every key shares by itself. The keys' width by
///        default.
template <class K, class V>
void stable_sort_by_key(
    const host&, K* keys, V* values, std::int64_t n, int key_bits = int(sizeof(K)) * CHAR_BIT) {
  detail::check_sort_arguments<K>(n, key_bits);
  detail::radix_sort_pairs(keys, values, n, key_bits);
}

/// `stable_sort_by_key` on the host over the caller's scratch: `keys_scratch` and
/// `values_scratch` (n elements each) hold the passes' second copies, so the sort allocates
/// nothing (a kept search grid's rebuild).
template <class K, class V>
void stable_sort_by_key(const host&,
                        K* keys,
                        V* values,
                        std::int64_t n,
                        int key_bits,
                        K* keys_scratch,
                        V* values_scratch) {
  detail::check_sort_arguments<K>(n, key_bits);
  detail::radix_sort_pairs(keys, values, n, key_bits, keys_scratch, values_scratch);
}

#if defined(__CUDACC__)
template <class K, class V>
void stable_sort_by_key(const cuda& exec,
                        K* keys,
                        V* values,
                        std::int64_t n,
                        int key_bits = int(sizeof(K)) * CHAR_BIT) {
  detail::check_sort_arguments<K>(n, key_bits);
  if (n == 0) {
    return;
  }
  Buffer<K, cuda> keys_alternate(exec, n);
  Buffer<V, cuda> values_alternate(exec, n);
  cub::DoubleBuffer<K> key_buffers(keys, keys_alternate.data());
  cub::DoubleBuffer<V> value_buffers(values, values_alternate.data());
  // Non-negative keys below 2^key_bits need no more bits, signed or not (CUB flips only the
  // sign bit, which is then clear for all).
  const int bits = key_bits;
  std::size_t bytes = 0;
  detail::check_cuda(cub::DeviceRadixSort::SortPairs(nullptr, bytes, key_buffers, value_buffers, n,
                                                     0, bits, exec.stream),
                     "cub::DeviceRadixSort::SortPairs (size query)");
  Buffer<unsigned char, cuda> scratch(exec, static_cast<std::int64_t>(bytes));
  detail::check_cuda(cub::DeviceRadixSort::SortPairs(scratch.data(), bytes, key_buffers,
                                                     value_buffers, n, 0, bits, exec.stream),
                     "cub::DeviceRadixSort::SortPairs");
  if (key_buffers.Current() != keys) {
    copy(exec, key_buffers.Current(), keys, n);
    copy(exec, value_buffers.Current(), values, n);
  }
}
#endif

} // namespace sphad::exec
