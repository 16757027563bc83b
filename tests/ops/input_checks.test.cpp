// SPDX-License-Identifier: MIT
// What the operators check of the particles and neighbour structures they are handed: values in
// O(N), lists tied to the reference set and support scheme they were built for, hand-made lists.
#include <sphad/ad/tape.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "ops/derivative_matrix.hpp" // Tracked
#include "ops/ops_cases.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

using namespace sphad;
using Catch::Matchers::Contains;
using test::span;
using K2 = kernels::Wendland2;

namespace {
const Domain<2, double> domain{{-1, -1}, {1, 1}, {false, false}};

/// A list made by hand, as a user porting a solver would: rows from `rows`, no provenance.
NeighborList<exec::host> hand_made(const std::vector<std::vector<std::int32_t>>& rows) {
  const exec::host ex;
  NeighborList<exec::host> list;
  list.num_queries = std::int64_t(rows.size());
  list.offsets = Buffer<std::int64_t, exec::host>(ex, list.num_queries + 1);
  std::vector<std::int32_t> flat;
  list.offsets[0] = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    flat.insert(flat.end(), rows[i].begin(), rows[i].end());
    list.offsets[std::int64_t(i) + 1] = std::int64_t(flat.size());
  }
  list.num_pairs = std::int64_t(flat.size());
  list.neighbors = Buffer<std::int32_t, exec::host>(ex, list.num_pairs);
  std::copy(flat.begin(), flat.end(), list.neighbors.data());
  return list;
}

/// Every query's row holds every reference.
NeighborList<exec::host> all_to_all(std::int64_t nq, std::int64_t nr) {
  std::vector<std::vector<std::int32_t>> rows(static_cast<std::size_t>(nq));
  for (auto& row : rows) {
    for (std::int32_t j = 0; j < nr; ++j) {
      row.push_back(j);
    }
  }
  return hand_made(rows);
}
} // namespace

TEST_CASE("ops: particle values are checked like the search checks them", "[ops][errors]") {
  // With a list of the user's own, nothing searched the particles: apply checks them in O(N).
  const exec::host ex;
  auto p = test::lattice<2, double>(4, 10);
  const auto list = test::all_pairs_list(p, domain);
  const auto density = [&](const test::Particles<2, double>& q) {
    return apply<ops::Density<K2>>(ex, q.view(), p.view(), domain, list);
  };
  CHECK_NOTHROW(density(p));
  auto nan_position = p;
  nan_position.x[2][1] = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(density(nan_position),
                    Contains("sphad::apply: argument `queries`: has a non-finite position or "
                             "support at index 2"));
  for (const double h : {-0.1, 0.0, std::numeric_limits<double>::quiet_NaN()}) {
    auto bad_support = p;
    bad_support.h[5] = h;
    CHECK_THROWS_WITH(density(bad_support), Contains("argument `queries`: has a"));
    CHECK_THROWS_WITH(apply<ops::Density<K2>>(ex, p.view(), bad_support.view(), domain, list),
                      Contains("argument `references`: has a"));
  }
  auto negative = p;
  negative.h[5] = -0.1;
  CHECK_THROWS_WITH(density(negative), Contains("has a support <= 0 at index 5 (got -0.1)"));
  for (const std::int32_t kind : {7, 99, -1}) {
    auto bad_kind = p;
    bad_kind.kinds[3] = kind;
    CHECK_THROWS_WITH(density(bad_kind), Contains("has an unknown particle kind at index 3"));
  }
  // The same checks guard the grid traversal and the tape.
  const auto grid = search::build_search_grid<SupportScheme::Gather>(
      ex, p.view().search_points(), p.view().search_points(), domain);
  CHECK_THROWS_WITH(apply<ops::Density<K2>>(ex, negative.view(), negative.view(), domain, grid),
                    Contains("has a support <= 0 at index 5"));
  Tape<exec::host> tape(ex);
  const test::Tracked<Vec<double, 2>> x(p.x);
  CHECK_THROWS_WITH(record<ops::Density<K2>>(tape, negative.view().with_positions(x.variable),
                                             p.view(), domain, list),
                    Contains("sphad::record: argument `queries`: has a support <= 0 at index 5"));
  CHECK(tape.size() == 0);
}

TEST_CASE("ops: a list or grid serves only the reference set it was built for", "[ops][errors]") {
  const exec::host ex;
  const auto p = test::lattice<2, double>(4, 10);
  const auto list = test::all_pairs_list(p, domain);
  CHECK(list.num_references == 16);
  CHECK(list.scheme == int(SupportScheme::SuperSymmetric));
  // Particles removed after the build: the list still indexes 16 references.
  auto fewer = p;
  fewer.x.pop_back();
  fewer.h.pop_back();
  fewer.m.pop_back();
  fewer.rho.pop_back();
  fewer.kinds.pop_back();
  CHECK_THROWS_WITH(
      apply<ops::Density<K2>>(ex, p.view(), fewer.view(), domain, list),
      Contains("argument `neighbors`: was built for 16 references but the call has 15"));
  const auto grid = search::build_search_grid<SupportScheme::Gather>(
      ex, p.view().search_points(), p.view().search_points(), domain);
  CHECK_THROWS_WITH(apply<ops::Density<K2>>(ex, p.view(), fewer.view(), domain, grid),
                    Contains("argument `neighbors`: is a grid over 16 references but the call "
                             "has 15"));
  // Supports grown past the grid's cells.
  auto grown = p;
  for (auto& h : grown.h) {
    h *= 1.5;
  }
  CHECK_THROWS_WITH(apply<ops::Density<K2>>(ex, grown.view(), grown.view(), domain, grid),
                    Contains("rebuild it after supports grow"));
  Tape<exec::host> tape(ex);
  const test::Tracked<Vec<double, 2>> x(p.x);
  CHECK_THROWS_WITH(record<ops::Density<K2>>(tape, p.view().with_positions(x.variable),
                                             fewer.view(), domain, list),
                    Contains("sphad::record: argument `neighbors`: was built for 16 references"));
  // The Verlet filter and the transpose check the same.
  const auto verlet = build_verlet_list<SupportScheme::Gather>(
      ex, p.view().search_points(), p.view().search_points(), domain, 0.1);
  CHECK_THROWS_WITH(filter_verlet_list<SupportScheme::Gather>(ex, verlet, p.view().search_points(),
                                                              fewer.view().search_points(), domain),
                    Contains("argument `references`: has 15 points, the Verlet list was built "
                             "for 16"));
  CHECK_THROWS_WITH(transpose_neighbor_list(ex, list, 15),
                    Contains("argument `num_references`: is 15 but the list was built for 16"));
}

TEST_CASE("ops: a list must hold every pair the operator's support scheme needs", "[ops][errors]") {
  // A Scatter operator over a Gather list silently dropped pairs (9.7 % error seen); now the
  // call names both schemes. Lists searched with max(h_i, h_j) serve every scheme.
  const exec::host ex;
  auto p = test::lattice<2, double>(6, 10);
  for (std::size_t i = 0; i < p.h.size(); ++i) {
    p.h[i] *= 1.0 + 0.3 * std::sin(double(i));
  }
  const auto s = p.view().search_points();
  const auto gather = build_neighbor_list<SupportScheme::Gather>(ex, s, s, domain);
  const auto super = build_neighbor_list<SupportScheme::SuperSymmetric>(ex, s, s, domain);
  using ScatterDensity = ops::Density<K2, SupportScheme::Scatter>;
  using MeanDensity = ops::Density<K2, SupportScheme::MeanSymmetric>;
  CHECK_THROWS_WITH(
      apply<ScatterDensity>(ex, p.view(), p.view(), domain, gather),
      Contains("argument `neighbors`: was built for the Gather support scheme, which misses "
               "pairs the operator's Scatter scheme needs"));
  CHECK_THROWS_WITH(apply<MeanDensity>(ex, p.view(), p.view(), domain, gather),
                    Contains("MeanSymmetric"));
  CHECK_NOTHROW(
      apply<ops::Density<K2, SupportScheme::Gather>>(ex, p.view(), p.view(), domain, gather));
  const auto by_super =
      apply<ops::Density<K2, SupportScheme::Scatter>>(ex, p.view(), p.view(), domain, super);
  const auto scatter = build_neighbor_list<SupportScheme::Scatter>(ex, s, s, domain);
  const auto by_scatter =
      apply<ops::Density<K2, SupportScheme::Scatter>>(ex, p.view(), p.view(), domain, scatter);
  for (std::int64_t i = 0; i < by_super.size(); ++i) {
    CHECK(by_super[i] == Approx(by_scatter[i]).epsilon(1e-14));
  }
  // The transpose of a Gather list holds the Scatter pairs of the swapped roles.
  CHECK(transpose_neighbor_list(ex, gather, 36).scheme == int(SupportScheme::Scatter));
  const auto verlet = build_verlet_list<SupportScheme::Gather>(ex, s, s, domain, 0.05);
  CHECK_THROWS_WITH(filter_verlet_list<SupportScheme::Scatter>(ex, verlet, s, s, domain),
                    Contains("argument `verlet`: was built for the Gather support scheme"));
}

TEST_CASE("ops: hand-made lists are checked before they are read", "[ops][errors]") {
  const exec::host ex;
  const auto p = test::lattice<2, double>(2, 3); // 4 particles
  const auto density = [&](const NeighborList<exec::host>& list) {
    return apply<ops::Density<K2>>(ex, p.view(), p.view(), domain, list);
  };
  const auto good = all_to_all(4, 4);
  CHECK(good.num_references == -1);
  const auto by_hand = density(good);
  const auto searched = density(test::all_pairs_list(p, domain));
  for (std::int64_t i = 0; i < 4; ++i) {
    CHECK(by_hand[i] == Approx(searched[i]).epsilon(1e-14));
  }
  CHECK_THROWS_WITH(density(hand_made({{0, 1}, {4}, {2}, {3}})),
                    Contains("argument `neighbors`: has a neighbour index outside [0, 4)"));
  CHECK_THROWS_WITH(density(hand_made({{0, 1}, {-1}, {2}, {3}})),
                    Contains("has a neighbour index outside [0, 4)"));
  auto total_off = all_to_all(4, 4);
  total_off.num_pairs = 12; // offsets[4] = 16
  CHECK_THROWS_WITH(density(total_off),
                    Contains("has offsets that do not rise from 0 to num_pairs (12)"));
  auto decreasing = all_to_all(4, 4);
  decreasing.offsets[2] = 3; // offsets 0, 4, 3, 12, 16
  CHECK_THROWS_WITH(density(decreasing), Contains("has offsets that do not rise"));
  NeighborList<exec::host> empty_buffers;
  empty_buffers.num_queries = 4;
  CHECK_THROWS_WITH(density(empty_buffers),
                    Contains("argument `neighbors`: has 0 offsets for 4 queries"));
  auto short_neighbors = all_to_all(4, 4);
  short_neighbors.num_pairs = 20;
  CHECK_THROWS_WITH(density(short_neighbors),
                    Contains("has 16 neighbour entries but num_pairs 20"));
  auto negative_pairs = all_to_all(4, 4);
  negative_pairs.num_pairs = -1;
  CHECK_THROWS_WITH(density(negative_pairs), Contains("has a negative num_pairs (got -1)"));
  // The tape checks the list before it records (a wrong num_pairs once overflowed in backward).
  Tape<exec::host> tape(ex);
  const test::Tracked<Vec<double, 2>> x(p.x);
  CHECK_THROWS_WITH(record<ops::Density<K2>>(tape, p.view().with_positions(x.variable), p.view(),
                                             domain, total_off),
                    Contains("sphad::record: argument `neighbors`: has offsets that do not rise"));
  CHECK(tape.size() == 0);
}

TEST_CASE("ops: validate checks a hand-made list once and ties it to its references",
          "[ops][errors]") {
  const exec::host ex;
  auto list = all_to_all(3, 5);
  validate(ex, list, 5);
  CHECK(list.num_references == 5);
  CHECK(list.scheme == -1);
  auto bad = hand_made({{0}, {5}, {1}});
  CHECK_THROWS_WITH(validate(ex, bad, 5),
                    Contains("sphad::validate: argument `list`: has a neighbour index outside "
                             "[0, 5)"));
  CHECK(bad.num_references == -1); // modified only when it passes
  CHECK_THROWS_WITH(validate(ex, list, 4),
                    Contains("argument `list`: was built for 5 references but the call has 4"));
  CHECK_THROWS_WITH(validate(ex, bad, -2), Contains("argument `num_references`: must be in"));
}

TEST_CASE("ops: lists for no queries, and transposes of hand-made lists, are checked (found by "
          "fuzzing)",
          "[ops][errors][search]") {
  const exec::host ex;
  const auto p = test::lattice<2, double>(2, 3); // 4 particles
  Tape<exec::host> tape(ex);
  const test::Tracked<Vec<double, 2>> x(p.x);
  // A default list serves no queries; recording over it copied an offset from no memory.
  const ParticleSet<2, double> no_queries{{}, {}, {}, {}};
  const NeighborList<exec::host> empty;
  CHECK(apply<ops::Density<K2>>(ex, no_queries, p.view(), domain, empty).size() == 0);
  const auto out = record<ops::Density<K2>>(tape, no_queries, p.view().with_positions(x.variable),
                                            domain, empty);
  CHECK(out.size() == 0);
  const auto copy = copy_neighbor_list(ex, empty);
  REQUIRE(copy.offsets.size() == 1);
  CHECK(copy.offsets[0] == 0);
  // No rows but pairs: nothing bounds its indices (grouping them wrote out of bounds).
  NeighborList<exec::host> pairs_without_rows = hand_made({{0, 3, 9}});
  pairs_without_rows.num_queries = 0;
  CHECK_THROWS_WITH(apply<ops::Density<K2>>(ex, no_queries, p.view(), domain, pairs_without_rows),
                    Contains("argument `neighbors`: has no rows but num_pairs 3"));
  CHECK_THROWS_WITH(record<ops::Density<K2>>(tape, no_queries, p.view().with_positions(x.variable),
                                             domain, pairs_without_rows),
                    Contains("has no rows but num_pairs 3"));
  // A transpose reads every index: a hand-made list is checked first.
  const auto bad = hand_made({{0, 7}, {1}});
  CHECK_THROWS_WITH(transpose_neighbor_list(ex, bad, 4),
                    Contains("sphad::transpose_neighbor_list: argument `list`: has a neighbour "
                             "index outside [0, 4)"));
  CHECK_THROWS_WITH(transpose_entries(ex, bad, 4),
                    Contains("sphad::transpose_entries: argument `list`: has a neighbour index"));
  auto short_buffer = hand_made({{0, 1}, {1}});
  short_buffer.num_pairs = 5;
  CHECK_THROWS_WITH(copy_neighbor_list(ex, short_buffer),
                    Contains("sphad::copy_neighbor_list: argument `list`: has 3 neighbour entries "
                             "but num_pairs 5"));
  const auto good = transpose_neighbor_list(ex, hand_made({{0, 3}, {3}}), 4);
  CHECK(good.num_queries == 4);
  CHECK(good.num_pairs == 3);
  CHECK(good.offsets[4] - good.offsets[3] == 2); // reference 3 has both queries
}

TEST_CASE("ops: lattice calibration takes n_h in (0, 64] (found by fuzzing)", "[ops][errors]") {
  // n_h = 1e30 converted to an integer out of range; 1e4 allocated 10^8 shells and ran O(n_h^D).
  const exec::host ex;
  const auto p = test::lattice<2, double>(4, 10);
  const auto list = test::all_pairs_list(p, domain);
  for (const double n_h : {1e30, 65.0, std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), -1.0}) {
    ApplyOptions<double> options;
    options.calibration_n_h = n_h;
    CHECK_THROWS_WITH(apply<ops::Density<K2>>(ex, p.view(), p.view(), domain, list, options),
                      Contains("sphad::apply: argument `options.calibration_n_h`: must be 0 (off) "
                               "or in (0, 64] support radii per particle spacing"));
    CHECK_THROWS_WITH(kernels::lattice_density(KernelId::Wendland2, n_h, 2),
                      Contains("argument `n_h`: must be in (0, 64]"));
  }
  ApplyOptions<double> options;
  options.calibration_n_h = 64.0;
  CHECK(apply<ops::Density<K2>>(ex, p.view(), p.view(), domain, list, options)[0] > 0);
}
