// SPDX-License-Identifier: MIT
// A state's `fields` must be constexpr, so its list can be checked at compile time.
// expect: "declare State::fields constexpr"
#include <sphad/exec/host.hpp>
#include <sphad/sim/state.hpp>

#include <tuple>

template <class Kind>
struct Fluid {
  sphad::sim::Array<Kind, double> x, v;
  template <class Self>
  static auto fields(Self& s) {
    return std::tie(s.x, s.v);
  }
};

int main() {
  const Fluid<sphad::sim::Stored<sphad::exec::host>> state{};
  return int(sphad::sim::views(state).x.size());
}
