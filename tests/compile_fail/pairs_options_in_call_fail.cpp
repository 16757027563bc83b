// SPDX-License-Identifier: MIT
// Over bound pairs, the options belong to the pairs: passing them to the call is a mistake the
// compiler names.
// expect: "sphad: the options belong to the pairs"
#include <sphad/kernels.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

int main() {
  using namespace sphad;
  const ParticleSet<2, double> set{};
  const Domain<2, double> domain{{0, 0}, {1, 1}, {}};
  const NeighborList<exec::host> list = build_neighbor_list<SupportScheme::Gather>(
      exec::host{}, set.search_points(), set.search_points(), domain);
  const ApplyOptions<double> options{};
  const auto out =
      apply<ops::Density<kernels::Wendland4>>(exec::host{}, ops::pairs(set, domain, list), options);
  return int(out.size());
}
