// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <algorithm>
#include <cstdint>

/// \file
/// \brief The binomial checkpointing schedule (Griewank's Revolve): β(c, t) = C(c + t, c), the
/// least advances F(l, c) that reverse l steps with c checkpoints, and where the schedule puts
/// the next checkpoint. A pure host computation.

namespace sphad::sim::detail {

/// β(c, t) = C(c + t, c), 0 for negative arguments, saturated at 2⁶² (larger counts of steps
/// are not meaningful).
inline std::int64_t beta(std::int64_t c, std::int64_t t) {
  if (c < 0 || t < 0) {
    return 0;
  }
  constexpr std::int64_t cap = std::int64_t(1) << 62;
  const std::int64_t k = std::min(c, t);
  std::int64_t value = 1;
  for (std::int64_t i = 1; i <= k; ++i) {
    // value · (c + t − k + i) / i stays exact: value is C(c + t − k + i − 1, i − 1).
    const std::int64_t factor = c + t - k + i;
    if (value > cap / factor) {
      return cap;
    }
    value = value * factor / i;
  }
  return value;
}

/// The least t with β(c, t) ≥ l: how many times the schedule advances a step at most.
inline std::int64_t repetitions(std::int64_t l, std::int64_t c) {
  std::int64_t t = 0;
  while (beta(c, t) < l) {
    ++t;
  }
  return t;
}

/// The least number of plain advances that reverse l ≥ 1 steps with c ≥ 1 checkpoints (the
/// one holding the first state included), the first sweep included:
/// F(l, c) = t·l − β(c + 1, t − 1), t = `repetitions(l, c)`.
inline std::int64_t minimal_advances(std::int64_t l, std::int64_t c) {
  const std::int64_t t = repetitions(l, c);
  return t * l - beta(c + 1, t - 1);
}

/// How far the binomial schedule advances from a checkpoint before it stores the next one,
/// reversing l ≥ 2 steps with c ≥ 2 checkpoints: Revolve's rule, in [1, l − 1].
inline std::int64_t binomial_split(std::int64_t l, std::int64_t c) {
  const std::int64_t t = repetitions(l, c);
  std::int64_t m;
  if (l <= beta(c, t - 1) + beta(c - 2, t - 1)) {
    m = beta(c, t - 2);
  } else if (l >= beta(c, t) - beta(c - 3, t)) {
    m = beta(c, t - 1);
  } else {
    m = l - beta(c - 1, t - 1) - beta(c - 2, t - 1);
  }
  return std::clamp<std::int64_t>(m, 1, l - 1);
}

} // namespace sphad::sim::detail
