// SPDX-License-Identifier: MIT
// Kinds (and neighbour indices, grids, domains) are never differentiable: tracking
// an integer array for reverse mode does not compile.
// expect: "sphad::Variable: only arrays of float or double"
#include <sphad/ad/tape.hpp>

#include <cstdint>

int main() {
  std::int32_t kinds[2] = {0, 1};
  const sphad::Variable<std::int32_t> tracked(kinds, 2);
  return int(tracked.size());
}
