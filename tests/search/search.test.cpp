// SPDX-License-Identifier: MIT
// The search tests on the host space.
#include <sphad/exec/host.hpp>
#define SPHAD_TEST_EXEC ::sphad::exec::host
#include <sphad/exec/sort.hpp>
#include <sphad/search/hash_grid.hpp>

#include "search/search.cases.hpp"

#include <vector>

#if SPHAD_HAS_OPENMP
#include <omp.h>
#endif

TEST_CASE("search: cell keys are 64-bit, so grids past 2^32 cells keep their keys",
          "[search][errors]") {
  // A grid may have up to 8 Nr cells: past about 2^29 references a sparse domain's keys pass
  // 2^32. A 2^17 x 2^17 layout stands in for such a grid (no 2^29 points are needed).
  using namespace sphad;
  const Domain<2, double> domain{{0, 0}, {1, 1}, {false, false}};
  search::GridLayout<2, double> layout{domain, {}, {}, 0};
  layout.cells = {1 << 17, 1 << 17};
  layout.cell_width = {1.0 / (1 << 17), 1.0 / (1 << 17)};
  layout.num_cells = std::int64_t(1) << 34;
  const std::vector<Vec<double, 2>> x{{0.9999999, 0.9999999}, {0.5, 0.25}, {0.0, 0.0}};
  std::vector<std::uint64_t> keys(x.size());
  std::vector<std::int32_t> index(x.size());
  const search::detail::CellKeys<2, double> cell_keys{layout, x.data(), keys.data(), index.data()};
  for (std::int64_t i = 0; i < 3; ++i) {
    cell_keys(i);
    CHECK(keys[std::size_t(i)] == std::uint64_t(layout.key(layout.cell_of(x[std::size_t(i)]))));
  }
  CHECK(keys[0] == (std::uint64_t(1) << 34) - 1);
  CHECK(keys[1] == (std::uint64_t(1) << 33) + (std::uint64_t(1) << 15));
  CHECK(search::detail::cell_key_bits(layout) == 34);
  // The sort over those 34 bits orders keys above 2^32 (and stays stable).
  std::vector<std::uint64_t> k{(1ull << 33) + 5, 3, 1ull << 32, 1ull << 33, 3};
  std::vector<int> v{0, 1, 2, 3, 4};
  exec::stable_sort_by_key(exec::host{}, k.data(), v.data(), 5, 34);
  CHECK(k == std::vector<std::uint64_t>{3, 3, 1ull << 32, 1ull << 33, (1ull << 33) + 5});
  CHECK(v == std::vector<int>{1, 4, 2, 3, 0});
}

TEST_CASE("search: the host's one-pass list is the same on any thread count and equals the two "
          "passes",
          "[search]") {
  // The host finds each row once, every thread's rows into its own buffer: the rows must not
  // depend on how the queries are split, and must equal the count-then-write passes (which the
  // capacity variant keeps), with periodic axes whose stencils wrap and one that does not.
  // Points in random order are visited in cell order and have their rows copied into place;
  // points already in the grid's cell order have every thread's array taken as its part of the
  // list whole; points sorted by another cell key are visited in their own order when the list
  // is rebuilt over a previous one's memory (smaller or larger than it needs).
  using namespace sphad;
  const exec::host exec;
  const auto domain = test::cube<3>(2);
  auto cloud = test::random_cloud<3>(exec, domain, 1500, 21);
  constexpr SupportScheme S = SupportScheme::SuperSymmetric;
  const int order = GENERATE(0, 1, 2); // random, the grid's cell order, another cell key's
  const auto grid = search::build_search_grid<S>(exec, cloud.host(), cloud.host(), domain);
  if (order == 1) {
    INFO("the points in the grid's cell order");
    std::vector<Vec<double, 3>> x;
    std::vector<double> h;
    for (std::int64_t s = 0; s < grid.sorted_index.size(); ++s) {
      x.push_back(cloud.x[std::size_t(grid.sorted_index[s])]);
      h.push_back(cloud.h[std::size_t(grid.sorted_index[s])]);
    }
    cloud = test::Cloud<3, double>(exec, x, h);
    const auto again = search::build_search_grid<S>(exec, cloud.host(), cloud.host(), domain);
    for (std::int64_t s = 0; s < again.sorted_index.size(); ++s) {
      REQUIRE(again.sorted_index[s] == s);
    }
  } else if (order == 2) {
    INFO("the points sorted by cells of another width, the last axis slowest");
    std::vector<std::size_t> by_key(cloud.x.size());
    for (std::size_t i = 0; i < by_key.size(); ++i) {
      by_key[i] = i;
    }
    const auto key = [&](std::size_t i) {
      const auto x = search::wrap_position(domain, cloud.x[i]);
      std::int64_t k = 0;
      for (int a = 2; a >= 0; --a) {
        k = k * 64 + std::int64_t((x[a] - domain.min[a]) / 0.37);
      }
      return k;
    };
    std::stable_sort(by_key.begin(), by_key.end(),
                     [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    std::vector<Vec<double, 3>> x;
    std::vector<double> h;
    for (const std::size_t i : by_key) {
      x.push_back(cloud.x[i]);
      h.push_back(cloud.h[i]);
    }
    cloud = test::Cloud<3, double>(exec, x, h);
  }
  CHECK(search::detail::queries_are_clustered(grid.layout, cloud.host()) == (order != 0));
  const int previous = GENERATE(0, 1, 2); // none (a fresh list), a smaller one, a larger one
  const auto before = test::random_cloud<3>(exec, domain, previous == 1 ? 400 : 3000, 22);
  const auto build = [&] {
    if (previous == 0) {
      return build_neighbor_list<S>(exec, cloud.host(), cloud.host(), domain);
    }
    auto list = build_neighbor_list<S>(exec, before.host(), before.host(), domain);
    rebuild_neighbor_list<S>(exec, list, cloud.host(), cloud.host(), domain);
    return list;
  };
#if SPHAD_HAS_OPENMP
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = build();
  omp_set_num_threads(3);
  const auto three = build();
  omp_set_num_threads(threads);
#else
  const auto one = build();
  const auto three = build();
#endif
  REQUIRE(one.num_pairs > 10 * one.num_queries);
  CHECK(std::vector<std::int64_t>(one.offsets.data(), one.offsets.data() + one.num_queries + 1) ==
        std::vector<std::int64_t>(three.offsets.data(),
                                  three.offsets.data() + three.num_queries + 1));
  CHECK(
      std::vector<std::int32_t>(one.neighbors.data(), one.neighbors.data() + one.num_pairs) ==
      std::vector<std::int32_t>(three.neighbors.data(), three.neighbors.data() + three.num_pairs));
  SearchOptions<double> options;
  options.max_support = cloud.max_support();
  std::vector<std::int64_t> offsets(std::size_t(one.num_queries + 1));
  std::vector<std::int32_t> neighbors(std::size_t(one.num_pairs));
  int overflow = -1;
  build_neighbor_list_into<S>(exec, cloud.host(), cloud.host(), domain, options, offsets.data(),
                              neighbors.data(), one.num_pairs, &overflow);
  CHECK(overflow == 0);
  CHECK(offsets ==
        std::vector<std::int64_t>(one.offsets.data(), one.offsets.data() + one.num_queries + 1));
  CHECK(neighbors ==
        std::vector<std::int32_t>(one.neighbors.data(), one.neighbors.data() + one.num_pairs));
}
