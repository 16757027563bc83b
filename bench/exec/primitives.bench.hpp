// SPDX-License-Identifier: MIT
// Benchmarks of the execution primitives, generic over the space; exec/primitives.bench.cpp
// instantiates them for the host, exec/primitives.bench.cu for CUDA.
#pragma once

#include <sphad/exec.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

namespace sphad::bench {

/// Seconds `work` takes, waiting for the space to finish it.
template <class Exec, class F>
double timed(const Exec& exec, const F& work) {
  exec::fence(exec);
  const auto start = std::chrono::steady_clock::now();
  work();
  exec::fence(exec);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <class T, class Exec>
Buffer<T, Exec> upload(const Exec& exec, const std::vector<T>& values) {
  Buffer<T, Exec> buffer(exec, std::int64_t(values.size()));
  exec::copy_from_host(exec, values.data(), buffer.data(), buffer.size());
  return buffer;
}

template <class Exec>
void BM_exclusive_scan(benchmark::State& state) {
  const Exec exec{};
  const std::int64_t n = state.range(0);
  std::mt19937 rng(1);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n));
  for (auto& c : counts) {
    c = rng() % 64;
  }
  const auto in = upload(exec, counts);
  Buffer<std::int64_t, Exec> out(exec, n);
  for (auto _ : state) {
    state.SetIterationTime(
        timed(exec, [&] { exec::exclusive_scan(exec, in.data(), out.data(), n); }));
  }
  state.counters["elements/s"] =
      benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(double(n) * 2 * sizeof(std::int64_t),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

/// Sorting cell keys (uint32, ~n/8 distinct) with int32 original indices, as a grid build does.
template <class Exec>
void BM_stable_sort_by_key(benchmark::State& state) {
  const Exec exec{};
  const std::int64_t n = state.range(0);
  std::mt19937 rng(2);
  std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
  for (auto& k : keys) {
    k = rng() % std::uint32_t(n / 8 + 1);
  }
  std::vector<std::int32_t> index(keys.size());
  for (std::size_t i = 0; i < index.size(); ++i) {
    index[i] = std::int32_t(i);
  }
  const auto keys_in = upload(exec, keys);
  const auto index_in = upload(exec, index);
  Buffer<std::uint32_t, Exec> k(exec, n);
  Buffer<std::int32_t, Exec> v(exec, n);
  for (auto _ : state) {
    exec::copy(exec, keys_in.data(), k.data(), n); // untimed: restore the unsorted input
    exec::copy(exec, index_in.data(), v.data(), n);
    state.SetIterationTime(
        timed(exec, [&] { exec::stable_sort_by_key(exec, k.data(), v.data(), n); }));
  }
  state.counters["elements/s"] =
      benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
}

} // namespace sphad::bench
