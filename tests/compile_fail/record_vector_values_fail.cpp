// SPDX-License-Identifier: MIT
// expect: "sphad::record: the record keeps its field values as views until the backward"
#include <sphad/sphad.hpp>

#include <vector>

int main() {
  using namespace sphad;
  std::vector<Vec<double, 1>> x{{0.0}, {0.1}};
  std::vector<double> h{0.2, 0.2}, m{1, 1}, rho{1, 1}, f{1, 2};
  std::vector<std::int32_t> kinds{0, 0};
  const Variable<Vec<double, 1>> positions(x.data(), 2);
  const auto set = ParticleSet<1, double>{x, h, m, kinds}
                       .with_densities(Span<const double>(rho))
                       .with_positions(positions);
  const Domain<1, double> domain{{0.0}, {1.0}, {false}};
  const auto list = build_neighbor_list<SupportScheme::Gather>(exec::host{}, set.search_points(),
                                                               set.search_points(), domain);
  Tape<exec::host> tape;
  record<ops::Interpolate<kernels::Wendland4>>(tape, set, set, domain, list, f, f);
}
