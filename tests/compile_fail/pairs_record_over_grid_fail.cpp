// SPDX-License-Identifier: MIT
// A record keeps a copy of its neighbour list: recording over pairs bound to a search grid is a
// mistake the compiler names.
// expect: "sphad::record: the pairs must be over a neighbour list"
#include <sphad/ad/tape.hpp>
#include <sphad/kernels.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

int main() {
  using namespace sphad;
  const ParticleSet<2, double> set{};
  const Domain<2, double> domain{{0, 0}, {1, 1}, {}};
  const auto grid = search::build_search_grid<SupportScheme::Gather>(
      exec::host{}, set.search_points(), set.search_points(), domain);
  Tape<exec::host> tape;
  const auto out = record<ops::Density<kernels::Wendland4>>(tape, ops::pairs(set, domain, grid));
  return int(out.size());
}
