// SPDX-License-Identifier: MIT
// Kinds (and neighbour indices, integers too) carry no tangents: pairing an integer
// array with tangent arrays does not compile.
// expect: "sphad::DualView: only floating-point arrays carry tangents"
#include <sphad/particles.hpp>

#include <cstdint>

int main() {
  const std::int32_t kinds[2] = {0, 1};
  const std::int32_t tangents[2] = {1, 1};
  const auto view = sphad::with_tangents(sphad::Span<const std::int32_t>{kinds, 2},
                                         sphad::Span<const std::int32_t>{tangents, 2});
  return view[0].value;
}
