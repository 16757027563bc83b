// SPDX-License-Identifier: MIT
// What the fuzz targets share: a reader that turns the fuzzer's bytes into sizes, enum values
// (valid and not) and floating-point values (ordinary and hostile), and the rule for what a
// target may throw.
#pragma once

#include <sphad/errors.hpp>
#include <sphad/math/vec.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace sphad::fuzz {

/// Reads the input front to back; past its end every read gives zero (never fails), so every
/// input is a valid program for the target.
class Bytes {
public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  bool empty() const { return size_ == 0; }

  std::uint8_t byte() {
    if (size_ == 0) {
      return 0;
    }
    --size_;
    return *data_++;
  }

  bool flag() { return (byte() & 1) != 0; }

  /// An integer in [lo, hi] (hi − lo < 2^16).
  std::int64_t integer(std::int64_t lo, std::int64_t hi) {
    const std::uint32_t raw = std::uint32_t(byte()) | (std::uint32_t(byte()) << 8);
    return lo + std::int64_t(raw % std::uint32_t(hi - lo + 1));
  }

  /// A small integer in [lo, hi] from one byte (hi − lo < 256).
  std::int64_t small(std::int64_t lo, std::int64_t hi) {
    return lo + std::int64_t(byte() % std::uint32_t(hi - lo + 1));
  }

  /// An enum value: mostly one of `valid` (count n), sometimes any int the byte gives.
  template <class E>
  E choice(const E* valid, int n) {
    const std::uint8_t b = byte();
    if (b < 240) {
      return valid[b % n];
    }
    return static_cast<E>(std::int32_t(b) - 248); // -8 .. 7: unknown values among them
  }

  /// A value in [lo, hi] most of the time; about one in eight a hostile one (NaN, ±∞, 0, −0,
  /// huge, tiny, negative).
  double real(double lo, double hi) {
    const std::uint8_t b = byte();
    if (b >= 224) {
      static constexpr double special[] = {std::numeric_limits<double>::quiet_NaN(),
                                           std::numeric_limits<double>::infinity(),
                                           -std::numeric_limits<double>::infinity(),
                                           0.0,
                                           -0.0,
                                           1e308,
                                           -1e308,
                                           std::numeric_limits<double>::max(),
                                           -std::numeric_limits<double>::max(),
                                           std::numeric_limits<double>::denorm_min(),
                                           std::numeric_limits<double>::min(),
                                           -1.0,
                                           1e-300,
                                           1e30,
                                           -1e30,
                                           0.5};
      return special[b % 16];
    }
    const std::uint32_t raw = std::uint32_t(byte()) | (std::uint32_t(byte()) << 8);
    return lo + (hi - lo) * (double(raw) / 65535.0);
  }

  template <int D>
  Vec<double, D> point(double lo, double hi) {
    Vec<double, D> x{};
    for (int a = 0; a < D; ++a) {
      x[a] = real(lo, hi);
    }
    return x;
  }

private:
  const std::uint8_t* data_;
  std::size_t size_;
};

/// A finding: the fuzzer reports the input that reached it.
[[noreturn]] inline void finding(const char* what) {
  (void)what; // visible in the debugger and in the stack trace of the abort
  std::abort();
}

/// Runs `body`; sphad's InvalidArgument is an accepted outcome (the input was bad and said so),
/// any other exception is a finding. Returns whether `body` completed.
template <class F>
bool accepts(F&& body) {
  try {
    body();
    return true;
  } catch (const InvalidArgument&) {
    return false;
  } catch (...) {
    finding("an exception other than sphad::InvalidArgument escaped");
  }
}

/// Whether two arrays hold the same bits.
template <class E>
bool same_bits(const E* a, const E* b, std::int64_t n) {
  return n == 0 || std::memcmp(a, b, std::size_t(n) * sizeof(E)) == 0;
}

} // namespace sphad::fuzz
