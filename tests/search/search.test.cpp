// SPDX-License-Identifier: MIT
// The search tests on the host space.
#include <sphad/exec/host.hpp>
#define SPHAD_TEST_EXEC ::sphad::exec::host
#include <sphad/exec/sort.hpp>
#include <sphad/search/hash_grid.hpp>

#include "search/search.cases.hpp"

#include <vector>

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
