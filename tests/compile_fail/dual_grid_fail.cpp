// SPDX-License-Identifier: MIT
// Search grids carry no tangents.
// expect: "sphad::search::HashGrid: a search grid is plain float or double (never dual"
#include <sphad/ad/dual.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/search/hash_grid.hpp>

int main() {
  using Grid = sphad::search::HashGrid<2, sphad::Dual<double, 1>, sphad::exec::host>;
  return sizeof(Grid) > 0 ? 0 : 1;
}
