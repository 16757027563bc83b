// SPDX-License-Identifier: MIT
// A split operator whose combine reads the pair vector: exact in forward mode but wrong in
// reverse mode (it would read untracked geometry), so it must not compile.
// expect: "sphad::ops: combine and particle_part see the particle inputs only"
#include <sphad/sphad.hpp>

#include <vector>

struct DirectedDensity : sphad::ops::KernelQuantity<sphad::ops::KernelPart::value> {
  using kernel_type = sphad::kernels::Wendland4;
  static constexpr sphad::SupportScheme support = sphad::SupportScheme::Gather;
  static constexpr bool needs_densities = false, needs_values = false, uses_grad_h = false;
  template <int D, class T, class F>
  using output_t = T;
  template <class P, class W>
  static auto combine(const P& p, const W& w) {
    return p.m_j * w * p.x_ij[0];
  }
};

int main() {
  using namespace sphad;
  std::vector<Vec<double, 1>> x{{0.0}, {0.1}};
  std::vector<double> h{0.2, 0.2}, m{1, 1};
  std::vector<std::int32_t> kinds{0, 0};
  const ParticleSet<1, double> set{{x.data(), 2}, {h.data(), 2}, {m.data(), 2}, {kinds.data(), 2}};
  const Domain<1, double> domain{{0.0}, {1.0}, {false}};
  const auto list = build_neighbor_list<SupportScheme::Gather>(exec::host{}, set.search_points(),
                                                               set.search_points(), domain);
  return int(apply<DirectedDensity>(exec::host{}, set, set, domain, list)[0]);
}
