// SPDX-License-Identifier: MIT
// Particle sets for the operator tests: host arrays kept alive with their views.
#pragma once

#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include <cstdint>
#include <vector>

namespace sphad::test {

/// A read-only view of a host vector or of a buffer.
template <class T>
Span<const T> span(const std::vector<T>& v) {
  return {v.data(), std::int64_t(v.size())};
}
template <class T, class E>
Span<const T> span(const Buffer<T, E>& b) {
  return {b.data(), b.size()};
}

template <int D, class T>
struct Particles {
  std::vector<Vec<T, D>> x;
  std::vector<T> h, m, rho;
  std::vector<std::int32_t> kinds;

  ParticleSet<D, T> view() const {
    const auto size = [](const auto& v) { return std::int64_t(v.size()); };
    return {{x.data(), size(x)},
            {h.data(), size(h)},
            {m.data(), size(m)},
            {kinds.data(), size(kinds)},
            {rho.data(), size(rho)}};
  }
  void add(const Vec<T, D>& position, T support, T mass, T density = T(1), std::int32_t kind = 0) {
    x.push_back(position);
    h.push_back(support);
    m.push_back(mass);
    rho.push_back(density);
    kinds.push_back(kind);
  }
};

/// The reference's lattice fixture: nx points per axis on [−1, 1]^D, axis 0 fastest, dx = 2/nx,
/// masses dx^D, h from `neighbours` per support, densities 1.
template <int D, class T>
Particles<D, T> lattice(int nx, double neighbours) {
  Particles<D, T> p;
  const double dx = 2.0 / nx;
  const double h = kernels::support_from_volume(std::pow(dx, D), neighbours, D);
  int total = 1;
  for (int a = 0; a < D; ++a) {
    total *= nx;
  }
  for (int k = 0; k < total; ++k) {
    Vec<T, D> x{};
    int rest = k;
    for (int a = 0; a < D; ++a) {
      x[a] = T(-1 + dx / 2 + (rest % nx) * dx);
      rest /= nx;
    }
    p.add(x, T(h), T(std::pow(dx, D)));
  }
  return p;
}

template <int D, class T>
NeighborList<exec::host> all_pairs_list(const Particles<D, T>& p, const Domain<D, T>& domain) {
  return build_neighbor_list<SupportScheme::SuperSymmetric>(exec::host{}, p.view().search_points(),
                                                            p.view().search_points(), domain);
}

} // namespace sphad::test
