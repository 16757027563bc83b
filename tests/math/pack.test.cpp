// SPDX-License-Identifier: MIT
// simd::Pack: every lane gets the bits of the scalar operation (the host pair blocks rest on
// it), comparisons are ordered (false on NaN), select moves bits, and the lane masks read back.
#include <sphad/simd/pack.hpp>
#include <sphad/simd/pack_memory.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>

#if SPHAD_HAS_PACKS

namespace {

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T, int W>
void check_lanes() {
  using P = sphad::simd::Pack<T, W>;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> unit(-3.0, 3.0);
  bool bitwise = true;
  for (int round = 0; round < 200; ++round) {
    T a[W], b[W];
    for (int l = 0; l < W; ++l) {
      a[l] = T(unit(rng));
      b[l] = T(unit(rng)) + T(4);
    }
    const P pa = sphad::simd::pack_of(a), pb = sphad::simd::pack_of(b);
    const P sum = pa + pb, difference = pa - pb, product = pa * pb, quotient = pa / pb;
    const P root = sqrt(pb), mixed = T(1) - pa * T(3);
    for (int l = 0; l < W; ++l) {
      bitwise = bitwise && same_bits(sum[l], T(a[l] + b[l])) &&
                same_bits(difference[l], T(a[l] - b[l])) && same_bits(product[l], T(a[l] * b[l])) &&
                same_bits(quotient[l], T(a[l] / b[l])) && same_bits(root[l], T(std::sqrt(b[l]))) &&
                same_bits(mixed[l], T(T(1) - a[l] * T(3)));
    }
  }
  CHECK(bitwise);

  // Comparisons, select and the lane masks; a NaN lane compares false.
  T x[W], y[W];
  for (int l = 0; l < W; ++l) {
    x[l] = T(l);
    y[l] = T(l % 2 == 0 ? l : -1);
  }
  x[W - 1] = std::numeric_limits<T>::quiet_NaN();
  const P px = sphad::simd::pack_of(x), py = sphad::simd::pack_of(y);
  const auto equal = (px <= py) & (px >= py);
  unsigned expected = 0;
  for (int l = 0; l + 1 < W; ++l) {
    expected |= l % 2 == 0 ? 1u << l : 0u;
  }
  CHECK(sphad::simd::lane_bits(equal) == expected);
  CHECK_FALSE(sphad::simd::all(equal));
  CHECK(sphad::simd::all(P(T(1)) < P(T(2))));
  const P chosen = select(px < P(T(W)), P(T(7)), py);
  for (int l = 0; l < W; ++l) {
    CHECK(chosen[l] == (l + 1 < W ? T(7) : y[l]));
  }
}

template <int D, class T, int W>
void check_components() {
  // W vectors of D components stored one after another (x0 y0 z0 x1 ...), values that tell
  // every slot apart, and one more vector after them that must not be read into a lane.
  T flat[D * W + D];
  for (int f = 0; f < D * W + D; ++f) {
    flat[f] = T(f) + T(0.5);
  }
  sphad::simd::Pack<T, W> c[D];
  sphad::simd::load_components<D>(flat, c);
  for (int a = 0; a < D; ++a) {
    for (int l = 0; l < W; ++l) {
      INFO("D = " << D << ", W = " << W << ", component " << a << ", lane " << l);
      CHECK(c[a][l] == flat[l * D + a]);
    }
  }
}

template <class T>
void check_components_of_widths() {
  constexpr int W = sphad::simd::native_lanes<T>();
  check_components<1, T, W>();
  check_components<2, T, W>();
  check_components<3, T, W>();
}

} // namespace

TEST_CASE("simd: load_components splits consecutive vectors into one pack per component",
          "[math][simd]") {
  check_components_of_widths<double>();
  check_components_of_widths<float>();
}

TEST_CASE("simd: gather_components2 splits 2-vectors at any indices into two packs",
          "[math][simd]") {
  const auto check = [](auto scalar) {
    using T = decltype(scalar);
    constexpr int W = sphad::simd::native_lanes<T>();
    if constexpr (W == 2 || W == 4) {
      T base[2 * 10];
      for (int f = 0; f < 2 * 10; ++f) {
        base[f] = T(f) + T(0.25);
      }
      const std::int32_t js[4] = {7, 2, 9, 2}; // repeated and out of order
      sphad::simd::Pack<T, W> c[2];
      sphad::simd::gather_components2(base, js, c);
      for (int l = 0; l < W; ++l) {
        INFO("W = " << W << ", lane " << l);
        CHECK(c[0][l] == base[2 * js[l]]);
        CHECK(c[1][l] == base[2 * js[l] + 1]);
      }
    }
  };
  check(double{});
  check(float{});
}

TEST_CASE("simd: compress_store writes the marked lanes in order and counts them", "[math][simd]") {
  // Every mask of 2 and 4 lanes (4: the one-shuffle path with SSSE3 and POPCNT), appended
  // after entries already there, which it must keep.
  const auto check = [](auto w) {
    constexpr int W = decltype(w)::value;
    const std::int32_t values[4] = {11, 22, 33, 44};
    for (unsigned bits = 0; bits < (1u << W); ++bits) {
      std::int32_t out[2 + W];
      out[0] = -1;
      out[1] = -2;
      std::int64_t n = 2;
      sphad::simd::compress_store<W>(values, bits, out, n);
      INFO("W = " << W << ", bits " << bits);
      std::int64_t expected = 2;
      for (int l = 0; l < W; ++l) {
        if ((bits >> l) & 1u) {
          CHECK(out[expected] == values[l]);
          ++expected;
        }
      }
      CHECK(n == expected);
      CHECK(out[0] == -1);
      CHECK(out[1] == -2);
    }
  };
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 4>{});
}

TEST_CASE("simd: pack lanes have the scalar operations' bits", "[math][simd]") {
  // The widths the pair blocks use: one register of the build's instruction set (a wider
  // vector would be passed in memory, another ABI).
  check_lanes<double, sphad::simd::native_lanes<double>()>();
  check_lanes<float, sphad::simd::native_lanes<float>()>();
  CHECK(sphad::simd::native_lanes<double>() * 8 >= 16);
}

#endif
