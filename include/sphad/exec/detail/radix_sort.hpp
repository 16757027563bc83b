// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace sphad::detail {

/// Serial least-significant-digit radix sort of (key, value) pairs by integral key, 8 bits a
/// pass; passes above `key_bits` (every key in [0, 2^key_bits) when below the key's width) and
/// passes where every key has the same digit are skipped. Stable by construction. The passes
/// alternate between the arrays and `keys_scratch`, `values_scratch` (n elements each, the
/// caller's); the digit counts live on the stack.
template <class K, class V>
void radix_sort_pairs(
    K* keys, V* values, std::int64_t n, int key_bits, K* keys_scratch, V* values_scratch) {
  using U = std::make_unsigned_t<K>;
  constexpr int bits = int(sizeof(K)) * CHAR_BIT;
  // Signed keys: flipping the sign bit maps their order onto the unsigned order.
  constexpr U bias = std::is_signed_v<K> ? U(U(1) << (bits - 1)) : U(0);
  const int passes = (std::min(key_bits, bits) + 7) / 8;
  const auto digit = [&](K key, int pass) { return int(((U(key) ^ bias) >> (8 * pass)) & 0xff); };

  std::int64_t counts[int(sizeof(K))][256] = {};
  for (std::int64_t i = 0; i < n; ++i) {
    for (int pass = 0; pass < passes; ++pass) {
      ++counts[pass][digit(keys[i], pass)];
    }
  }
  K* keys_from = keys;
  V* values_from = values;
  K* keys_to = keys_scratch;
  V* values_to = values_scratch;
  for (int pass = 0; pass < passes; ++pass) {
    std::int64_t* count = counts[pass];
    if (std::any_of(count, count + 256, [&](std::int64_t c) { return c == n; })) {
      continue; // every key shares this digit
    }
    std::int64_t start = 0;
    for (int d = 0; d < 256; ++d) {
      const std::int64_t c = count[d];
      count[d] = start;
      start += c;
    }
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t to = count[digit(keys_from[i], pass)]++;
      keys_to[to] = keys_from[i];
      values_to[to] = values_from[i];
    }
    std::swap(keys_from, keys_to);
    std::swap(values_from, values_to);
  }
  if (keys_from != keys) {
    std::copy_n(keys_from, n, keys);
    std::copy_n(values_from, n, values);
  }
}

/// `radix_sort_pairs` with scratch arrays of its own.
template <class K, class V>
void radix_sort_pairs(K* keys,
                      V* values,
                      std::int64_t n,
                      int key_bits = int(sizeof(K)) * CHAR_BIT) {
  std::vector<K> keys_scratch(static_cast<std::size_t>(n));
  std::vector<V> values_scratch(static_cast<std::size_t>(n));
  radix_sort_pairs(keys, values, n, key_bits, keys_scratch.data(), values_scratch.data());
}

} // namespace sphad::detail
