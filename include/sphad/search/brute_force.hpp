// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/search/neighbor_list.hpp>
#include <sphad/search/points.hpp>
#include <sphad/search/support_radius.hpp>

#include <cstdint>
#include <vector>

/// \file
/// \brief The O(Nq·Nr) search: the test oracle for every faster one.

namespace sphad::search {

/// Tests every (query, reference) pair with `is_neighbor` (the same predicate as the grid
/// search); rows in query order, each row in ascending reference index. Host memory, serial.
/// No validation beyond what the predicate needs: a reference for tests and small sets.
template <SupportScheme S, int D, class T>
NeighborList<exec::host> brute_force_neighbor_list(const SearchPoints<D, T>& queries,
                                                   const SearchPoints<D, T>& references,
                                                   const Domain<D, T>& domain,
                                                   T skin = T(0)) {
  const exec::host exec{};
  const std::int64_t nq = queries.size();
  std::vector<std::int32_t> pairs;
  NeighborList<exec::host> list{Buffer<std::int64_t, exec::host>(exec, nq + 1),
                                Buffer<std::int32_t, exec::host>(), nq, 0};
  list.offsets[0] = 0;
  for (std::int64_t i = 0; i < nq; ++i) {
    for (std::int64_t j = 0; j < references.size(); ++j) {
      if (is_neighbor<S>(domain, queries.positions[i], references.positions[j], queries.supports[i],
                         references.supports[j], skin)) {
        pairs.push_back(static_cast<std::int32_t>(j));
      }
    }
    list.offsets[i + 1] = std::int64_t(pairs.size());
  }
  list.num_pairs = std::int64_t(pairs.size());
  list.num_references = references.size();
  list.scheme = static_cast<int>(S);
  list.neighbors = Buffer<std::int32_t, exec::host>(exec, list.num_pairs);
  std::copy(pairs.begin(), pairs.end(), list.neighbors.data());
  return list;
}

} // namespace sphad::search
