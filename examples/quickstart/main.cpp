// SPDX-License-Identifier: MIT
// sphad's flagship example: a periodic 2D particle set, its neighbour list, and the density,
// gradient, divergence and Laplacian of analytic fields, with errors against the exact values
// and timings. Exits non-zero when an error is off.
#include <sphad/sphad.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

using namespace sphad;

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
} // namespace

int main() {
  // [snippet:quickstart]
  constexpr int n = 128; // particles per axis on the periodic unit square
  const double dx = 1.0 / n;
  const double h = kernels::support_from_volume(dx * dx, 50, 2); // ~50 neighbours
  std::vector<Vec<double, 2>> x;
  std::vector<double> support, mass, density;
  std::vector<std::int32_t> kinds;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      x.push_back({(i + 0.5) * dx, (j + 0.5) * dx});
      support.push_back(h);
      mass.push_back(dx * dx); // unit density
      kinds.push_back(std::int32_t(ParticleKind::Fluid));
    }
  }
  const auto N = std::int64_t(x.size());
  ParticleSet<2, double> fluid{
      {x.data(), N}, {support.data(), N}, {mass.data(), N}, {kinds.data(), N}};
  const Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};
  const exec::host exec; // or exec::cuda{stream} with device arrays, same calls
  using Kernel = kernels::Wendland4;

  auto start = std::chrono::steady_clock::now();
  const auto neighbors = build_neighbor_list<SupportScheme::Gather>(exec, fluid.search_points(),
                                                                    fluid.search_points(), domain);
  const double t_search = seconds_since(start);

  // Who pairs with whom: the fluid with itself over the list, in the periodic domain.
  start = std::chrono::steady_clock::now();
  const auto rho = apply<ops::Density<Kernel>>(exec, ops::pairs(fluid, domain, neighbors));
  const double t_density = seconds_since(start);
  density.assign(rho.data(), rho.data() + N);
  fluid.densities = {density.data(), N};

  // f = sin 2πx cos 2πy and v = (sin 2πx, sin 2πy), with their exact derivatives.
  const double k = 2 * pi_v<double>;
  std::vector<double> f;
  std::vector<Vec<double, 2>> v;
  for (const auto& p : x) {
    f.push_back(std::sin(k * p[0]) * std::cos(k * p[1]));
    v.push_back({std::sin(k * p[0]), std::sin(k * p[1])});
  }
  const auto pairs = ops::pairs(fluid, domain, neighbors); // now with the densities
  start = std::chrono::steady_clock::now();
  const auto grad = apply<ops::Gradient<Kernel, GradientScheme::Difference>>(exec, pairs, f);
  const auto div = apply<ops::Divergence<Kernel, GradientScheme::Difference>>(exec, pairs, v);
  const auto lap = apply<ops::Laplacian<Kernel, LaplacianScheme::Brookshaw>>(exec, pairs, f);
  const double t_fields = seconds_since(start);
  // [snippet-end]

  double e_rho = 0, e_grad = 0, e_div = 0, e_lap = 0;
  for (std::int64_t i = 0; i < N; ++i) {
    const auto& p = x[std::size_t(i)];
    const double s0 = std::sin(k * p[0]), c0 = std::cos(k * p[0]);
    const double s1 = std::sin(k * p[1]), c1 = std::cos(k * p[1]);
    e_rho = std::fmax(e_rho, std::abs(rho[i] - 1.0));
    e_grad = std::fmax(e_grad, norm(grad[i] - Vec<double, 2>{k * c0 * c1, -k * s0 * s1}) / k);
    e_div = std::fmax(e_div, std::abs(div[i] - k * (c0 + c1)) / (2 * k));
    e_lap = std::fmax(e_lap, std::abs(lap[i] + 2 * k * k * s0 * c1) / (2 * k * k));
  }
  std::printf("sphad %s quickstart: %lld particles, %.1f neighbours each (Wendland4, 2D "
              "periodic)\n",
              SPHAD_VERSION_STRING, (long long)N, double(neighbors.num_pairs) / double(N));
  std::printf("  max error, relative to the field's scale:\n");
  std::printf("    density    %.2e   (lattice value; exact 1 with calibration_n_h)\n", e_rho);
  std::printf("    gradient   %.2e\n", e_grad);
  std::printf("    divergence %.2e\n", e_div);
  std::printf("    Laplacian  %.2e   (Brookshaw)\n", e_lap);
  std::printf("  time: neighbour search %.1f ms, density %.1f ms, gradient + divergence + "
              "Laplacian %.1f ms (host, %d threads)\n",
              1e3 * t_search, 1e3 * t_density, 1e3 * t_fields, exec::host::concurrency());
  const bool ok = e_rho < 1e-2 && e_grad < 2e-2 && e_div < 2e-2 && e_lap < 5e-2;
  std::printf("%s\n", ok ? "all errors within bounds" : "ERROR OUT OF BOUNDS");
  return ok ? 0 : 1;
}
