// SPDX-License-Identifier: MIT
// Neighbour-search benchmarks, generic over the space; search.bench.cpp instantiates them for
// the host, search.bench.cu for CUDA. Random points in the periodic unit box, supports sized
// for ~50 neighbours per particle.
#pragma once

#include <sphad/kernels/properties.hpp>
#include <sphad/search.hpp>

#include "exec/primitives.bench.hpp" // timed(), upload()

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace sphad::bench {

template <int D, class T, class Exec>
struct SearchCloud {
  Buffer<Vec<T, D>, Exec> x;
  Buffer<T, Exec> h;
  Domain<D, T> domain;
  T max_support;
  SearchPoints<D, T> points() const { return {{x.data(), x.size()}, {h.data(), h.size()}}; }
};

/// Where particles sit in memory: as drawn (every neighbour anywhere in the arrays), or sorted
/// by the cell of side h that holds them (row by row), as a solver keeps them for locality.
enum class Order { random, cells };

/// n points uniform in the periodic unit box, support h for ~50 neighbours.
template <int D, class T, class Exec>
SearchCloud<D, T, Exec>
search_cloud(const Exec& exec, std::int64_t n, Order order = Order::random, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Vec<T, D>> x(static_cast<std::size_t>(n));
  for (auto& p : x) {
    for (int a = 0; a < D; ++a) {
      p[a] = T(unit(rng));
    }
  }
  const T h = T(kernels::support_from_volume(1.0 / double(n), 50.0, D));
  if (order == Order::cells) {
    const std::int64_t cells = std::int64_t(std::ceil(1 / h));
    const auto cell = [&](const Vec<T, D>& p) {
      std::int64_t c = 0;
      for (int a = D - 1; a >= 0; --a) {
        c = c * cells + std::int64_t(p[a] / h);
      }
      return c;
    };
    std::stable_sort(x.begin(), x.end(),
                     [&](const Vec<T, D>& a, const Vec<T, D>& b) { return cell(a) < cell(b); });
  }
  std::vector<T> supports(x.size(), h);
  Domain<D, T> domain{Vec<T, D>::filled(T(0)), Vec<T, D>::filled(T(1)), {}};
  for (int a = 0; a < D; ++a) {
    domain.periodic[a] = true;
  }
  return {upload(exec, x), upload(exec, supports), domain, h};
}

inline void rate_counters(benchmark::State& state, std::int64_t particles, std::int64_t pairs) {
  using benchmark::Counter;
  state.counters["pairs/s"] = Counter(double(pairs), Counter::kIsIterationInvariantRate);
  state.counters["particles/s"] = Counter(double(particles), Counter::kIsIterationInvariantRate);
  state.counters["pairs/particle"] = double(pairs) / double(particles > 0 ? particles : 1);
}

/// Building a neighbour list from scratch (grid, count, scan, one read, fill).
template <class Exec, class T, int D>
void BM_build_neighbor_list(benchmark::State& state) {
  const Exec exec{};
  const auto cloud = search_cloud<D, T>(exec, state.range(0));
  SearchOptions<T> options;
  options.max_support = cloud.max_support;
  std::int64_t pairs = 0;
  for (auto _ : state) {
    state.SetIterationTime(timed(exec, [&] {
      pairs = build_neighbor_list<SupportScheme::Gather>(exec, cloud.points(), cloud.points(),
                                                         cloud.domain, options)
                  .num_pairs;
    }));
  }
  rate_counters(state, state.range(0), pairs);
}

/// Refiltering a Verlet list (skin 10 % of h) to the exact radius: the alternative to a rebuild.
template <class Exec, class T, int D>
void BM_filter_verlet_list(benchmark::State& state) {
  const Exec exec{};
  const auto cloud = search_cloud<D, T>(exec, state.range(0));
  const auto verlet = build_verlet_list<SupportScheme::Gather>(
      exec, cloud.points(), cloud.points(), cloud.domain, T(0.1) * cloud.max_support);
  std::int64_t pairs = 0;
  for (auto _ : state) {
    state.SetIterationTime(timed(exec, [&] {
      pairs = filter_verlet_list<SupportScheme::Gather>(exec, verlet, cloud.points(),
                                                        cloud.points(), cloud.domain)
                  .num_pairs;
    }));
  }
  rate_counters(state, state.range(0), pairs);
}

} // namespace sphad::bench
