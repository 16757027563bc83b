// SPDX-License-Identifier: MIT
// The pairs hold their neighbour list by reference: binding a temporary list (gone before the
// first call) does not compile.
// expect: "deleted function"
#include <sphad/kernels.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

int main() {
  using namespace sphad;
  const ParticleSet<2, double> set{};
  const Domain<2, double> domain{{0, 0}, {1, 1}, {}};
  const auto pairs =
      ops::pairs(set, domain,
                 build_neighbor_list<SupportScheme::Gather>(exec::host{}, set.search_points(),
                                                            set.search_points(), domain));
  return int(pairs.queries.size());
}
