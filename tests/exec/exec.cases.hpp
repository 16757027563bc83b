// SPDX-License-Identifier: MIT
// Test bodies shared by the host (exec.test.cpp) and CUDA (exec.test.cu) executables; the
// including file defines SPHAD_TEST_EXEC as the execution space.
#pragma once

#include <sphad/exec.hpp>

#include "support/space_arrays.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#ifndef SPHAD_TEST_EXEC
#error "define SPHAD_TEST_EXEC before including exec.cases.hpp"
#endif

namespace sphad::test {

using Exec = SPHAD_TEST_EXEC;

struct SquareIndex {
  std::int64_t* out;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const { out[i] = i * i; }
};

} // namespace sphad::test

using namespace sphad;
using sphad::test::download;
using sphad::test::upload;

TEST_CASE("exec::for_each_index: visits every index exactly once", "[exec]") {
  const test::Exec exec{};
  for (const std::int64_t n :
       {std::int64_t(0), std::int64_t(1), std::int64_t(1000), std::int64_t(100'003)}) {
    Buffer<std::int64_t, test::Exec> out(exec, n);
    exec::fill(exec, out.data(), n, std::int64_t(-1));
    exec::for_each_index(exec, n, test::SquareIndex{out.data()});
    const auto host = download(exec, out);
    bool all = true;
    for (std::int64_t i = 0; i < n; ++i) {
      all = all && host[std::size_t(i)] == i * i;
    }
    CHECK(all);
  }
}

TEST_CASE("exec::exclusive_scan: equals the serial prefix sum, in and out of place", "[exec]") {
  const test::Exec exec{};
  std::mt19937 rng(5);
  for (const std::int64_t n :
       {std::int64_t(0), std::int64_t(1), std::int64_t(7), std::int64_t(300'001)}) {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(n));
    for (auto& c : counts) {
      c = std::int64_t(rng() % 100);
    }
    std::vector<std::int64_t> expected(counts.size());
    std::exclusive_scan(counts.begin(), counts.end(), expected.begin(), std::int64_t(0));

    const auto in = upload(exec, counts);
    Buffer<std::int64_t, test::Exec> out(exec, n);
    exec::exclusive_scan(exec, in.data(), out.data(), n);
    CHECK(download(exec, out) == expected);

    auto in_place = upload(exec, counts);
    exec::exclusive_scan(exec, in_place.data(), in_place.data(), n);
    CHECK(download(exec, in_place) == expected);
  }
}

TEST_CASE("exec::exclusive_scan: int32 counts scan into an n+1 offsets array", "[exec]") {
  const test::Exec exec{};
  const std::vector<int> counts{3, 0, 2, 5, 0}; // last entry 0: out[n] is the total
  const auto in = upload(exec, counts);
  Buffer<int, test::Exec> offsets(exec, 5);
  exec::exclusive_scan(exec, in.data(), offsets.data(), 5);
  CHECK(download(exec, offsets) == std::vector<int>{0, 3, 3, 5, 10});
}

TEST_CASE("exec::stable_sort_by_key: sorts keys and keeps equal keys in input order", "[exec]") {
  const test::Exec exec{};
  std::mt19937 rng(9);
  for (const std::int64_t n :
       {std::int64_t(0), std::int64_t(1), std::int64_t(1000), std::int64_t(200'000)}) {
    std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
    for (auto& k : keys) {
      k = rng() % 997; // many duplicates: stability matters
    }
    std::vector<std::int32_t> index(keys.size());
    std::iota(index.begin(), index.end(), 0);
    std::vector<std::int32_t> expected = index;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::int32_t a, std::int32_t b) { return keys[a] < keys[b]; });
    std::vector<std::uint32_t> expected_keys(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      expected_keys[i] = keys[std::size_t(expected[i])];
    }

    for (const int key_bits : {32, 10}) { // every key is below 997 < 2^10
      auto k = upload(exec, keys);
      auto v = upload(exec, index);
      exec::stable_sort_by_key(exec, k.data(), v.data(), n, key_bits);
      CHECK(download(exec, k) == expected_keys);
      CHECK(download(exec, v) == expected);
    }
  }
}

TEST_CASE("exec::stable_sort_by_key: signed and 64-bit keys sort by value", "[exec]") {
  const test::Exec exec{};
  const std::vector<std::int64_t> keys{
      5, -3, 0, std::int64_t(1) << 40, -3, -(std::int64_t(1) << 50), 7, 0};
  std::vector<int> index(keys.size());
  std::iota(index.begin(), index.end(), 0);
  auto k = upload(exec, keys);
  auto v = upload(exec, index);
  exec::stable_sort_by_key(exec, k.data(), v.data(), std::int64_t(keys.size()));
  CHECK(download(exec, k) == std::vector<std::int64_t>{-(std::int64_t(1) << 50), -3, -3, 0, 0, 5, 7,
                                                       std::int64_t(1) << 40});
  CHECK(download(exec, v) == std::vector<int>{5, 1, 4, 2, 7, 0, 6, 3});
}

TEST_CASE("exec::stable_sort_by_key: two sorts of the same input are identical", "[exec]") {
  const test::Exec exec{};
  std::mt19937 rng(13);
  std::vector<std::uint64_t> keys(50'000);
  for (auto& key : keys) {
    key = rng() % 4096;
  }
  std::vector<int> index(keys.size());
  std::iota(index.begin(), index.end(), 0);
  std::vector<int> first, second;
  for (auto* result : {&first, &second}) {
    auto k = upload(exec, keys);
    auto v = upload(exec, index);
    exec::stable_sort_by_key(exec, k.data(), v.data(), std::int64_t(keys.size()));
    *result = download(exec, v);
  }
  CHECK(first == second);
}

TEST_CASE("exec::fill and exec::copy: copy what they are given", "[exec]") {
  const test::Exec exec{};
  const std::int64_t n = 12345;
  Buffer<double, test::Exec> a(exec, n), b(exec, n);
  exec::fill(exec, a.data(), n, 2.5);
  exec::copy(exec, a.data(), b.data(), n);
  const auto host = download(exec, b);
  CHECK(std::all_of(host.begin(), host.end(), [](double x) { return x == 2.5; }));
  CHECK(b.size() == n);
  Buffer<double, test::Exec> empty(exec, 0);
  CHECK(empty.size() == 0);
  CHECK(download(exec, empty).empty());
}

TEST_CASE("exec: negative sizes are rejected before any work", "[exec][errors]") {
  const test::Exec exec{};
  Buffer<int, test::Exec> a(exec, 4);
  CHECK_THROWS_AS(exec::for_each_index(exec, -1, test::SquareIndex{nullptr}),
                  sphad::InvalidArgument);
  CHECK_THROWS_WITH(exec::exclusive_scan(exec, a.data(), a.data(), -2),
                    Catch::Matchers::Contains("sphad::exclusive_scan: argument `n`: negative"));
  CHECK_THROWS_WITH(exec::stable_sort_by_key(exec, a.data(), a.data(), -1),
                    Catch::Matchers::Contains("argument `n`"));
  for (const int key_bits : {0, 33}) {
    CHECK_THROWS_WITH(exec::stable_sort_by_key(exec, a.data(), a.data(), 4, key_bits),
                      Catch::Matchers::Contains("argument `key_bits`: must be in [1, 32]"));
  }
  CHECK_THROWS_WITH(exec::fill(exec, a.data(), -1, 0), Catch::Matchers::Contains("`n`"));
  CHECK_THROWS_WITH(exec::copy(exec, a.data(), a.data(), -1), Catch::Matchers::Contains("`n`"));
  CHECK_THROWS_WITH((Buffer<int, test::Exec>(exec, -3)),
                    Catch::Matchers::Contains("sphad::Buffer: argument `n`: negative size"));
}
