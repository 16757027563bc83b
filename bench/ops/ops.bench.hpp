// SPDX-License-Identifier: MIT
// The operator benchmarks' particle set: random points in the periodic unit box with ~50
// neighbours each (uniform supports, so a Gather list holds every pair of every scheme), unit
// total mass, densities from Density, a scalar and a vector field.
#pragma once

#include <sphad/ops.hpp>

#include "search/search.bench.hpp" // search_cloud

#include <cstdint>
#include <vector>

namespace sphad::bench {

template <int D, class T>
struct OperatorCase {
  SearchCloud<D, T, exec::host> cloud;
  std::vector<T> mass, density;
  std::vector<std::int32_t> kinds;
  std::vector<T> scalar;
  std::vector<Vec<T, D>> vector;
  NeighborList<exec::host> list;
  ParticleSet<D, T> set;

  explicit OperatorCase(std::int64_t n, Order order = Order::random)
      : cloud(search_cloud<D, T>(exec::host{}, n, order)) {
    const auto size = std::size_t(n);
    mass.assign(size, T(1.0 / double(n)));
    kinds.assign(size, 0);
    // Uniform supports: the same pairs as a Gather list, and it serves the CRK factors'
    // Scatter stages too.
    list = build_neighbor_list<SupportScheme::SuperSymmetric>(exec::host{}, cloud.points(),
                                                              cloud.points(), cloud.domain);
    set = {cloud.points().positions, cloud.points().supports, {mass.data(), n}, {kinds.data(), n}};
    const auto rho =
        apply<ops::Density<kernels::Wendland4>>(exec::host{}, set, set, cloud.domain, list);
    density.assign(rho.data(), rho.data() + n);
    set.densities = {density.data(), n};
    for (std::int64_t i = 0; i < n; ++i) {
      const auto& x = cloud.x[i];
      scalar.push_back(x[0] * x[0] + x[D - 1]);
      vector.push_back(x * T(2));
    }
  }
  Span<const T> scalars() const { return {scalar.data(), std::int64_t(scalar.size())}; }
  Span<const Vec<T, D>> vectors() const { return {vector.data(), std::int64_t(vector.size())}; }
};

} // namespace sphad::bench
