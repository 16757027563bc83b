// SPDX-License-Identifier: MIT
// A jvp call whose inputs carry no tangents is a mistake the compiler names.
// expect: "sphad::jvp: no input carries tangents"
#include <sphad/kernels.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

int main() {
  using namespace sphad;
  const ParticleSet<2, double> set{};
  const Domain<2, double> domain{{0, 0}, {1, 1}, {}};
  const NeighborList<exec::host> list = build_neighbor_list<SupportScheme::Gather>(
      exec::host{}, set.search_points(), set.search_points(), domain);
  const auto out = jvp<ops::Density<kernels::Wendland4>>(exec::host{}, set, set, domain, list);
  return int(out.primal.size());
}
