// SPDX-License-Identifier: MIT
// Reverse mode over a JVP: plain Variables next to inputs with tangents would differentiate
// half of the dual output; every Variable must have the scalar of the call's output.
// expect: "every Variable of a call must have the scalar of its output"
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include <cstdint>

int main() {
  using namespace sphad;
  Vec<double, 1> x[1] = {{0.0}}, dx[1] = {{1.0}};
  double h[1] = {1.0}, m[1] = {1.0};
  const std::int32_t kinds[1] = {0};
  const Variable<double> masses(m, 1);
  const ParticleSet<1, double> plain{{x, 1}, {h, 1}, {m, 1}, {kinds, 1}};
  const auto set = plain
                       .with_positions(with_tangents(Span<const Vec<double, 1>>{x, 1},
                                                     Span<const Vec<double, 1>>{dx, 1}))
                       .with_masses(masses);
  const Domain<1, double> domain{{-1.0}, {1.0}, {false}};
  const auto list = build_neighbor_list<SupportScheme::Gather>(exec::host{}, plain.search_points(),
                                                               plain.search_points(), domain);
  Tape<exec::host> tape;
  const auto rho = record<ops::Density<kernels::Wendland4>>(tape, set, set, domain, list);
  const Dual<double, 1> seed[1] = {1.0};
  tape.backward(rho, Span<const Dual<double, 1>>{seed, 1});
  return 0;
}
