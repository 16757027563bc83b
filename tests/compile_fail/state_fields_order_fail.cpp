// SPDX-License-Identifier: MIT
// A state's `fields` that lists its members out of declaration order would swap arrays between
// the forms the library derives: it does not compile.
// expect: "lists a member twice or out of declaration order"
#include <sphad/exec/host.hpp>
#include <sphad/sim/state.hpp>

#include <tuple>

template <class Kind>
struct Fluid {
  sphad::sim::Array<Kind, double> x, v;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.v, s.x);
  }
};

int main() {
  const Fluid<sphad::sim::Stored<sphad::exec::host>> state{};
  return int(sphad::sim::views(state).x.size());
}
