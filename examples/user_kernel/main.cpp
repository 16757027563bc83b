// SPDX-License-Identifier: MIT
// A user-defined smoothing kernel (cosine_kernel.hpp) used like the library's own: the lattice
// calibration makes its density exactly 1 on a periodic square lattice; then, on a jittered
// lattice, the loss L(x) = ½ Σ_i (ρ_i − 1)² is differentiated in forward mode (`jvp`), reverse
// mode (`record` + `backward`) and to second order (the tape over dual positions gives the
// Hessian-vector product), each checked against central differences. Nothing in the library
// knows this kernel; no derivative code is written for it. Exits non-zero when a check fails.
#include <sphad/sphad.hpp>

#include "cosine_kernel.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

using namespace sphad;

namespace {

using Kernel = user::CosineKernel;
using Density = ops::Density<Kernel>;
using V2 = Vec<double, 2>;
using D1 = Dual<double, 1>;

constexpr int per_axis = 24;   // particles per axis on the unit square
constexpr double n_h = 3.0;    // support radii per particle spacing
constexpr double jitter = 0.2; // of the spacing, for the derivative checks
constexpr double step = 1e-6;  // of the central differences

/// The particles of the example: positions, and the fixed supports, masses and kinds.
struct Particles {
  std::vector<V2> x;
  std::vector<double> h, m;
  std::vector<std::int32_t> kinds;
  Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};

  explicit Particles(double amount) {
    auto lattice = sampling::cubic_lattice<2>(per_axis, V2{1, 1});
    sampling::jitter(lattice, amount, 7);
    x = lattice.positions;
    const double dx = lattice.spacing;
    h.assign(x.size(), n_h * dx);
    m.assign(x.size(), dx * dx);
    kinds.assign(x.size(), 0);
  }
  std::int64_t size() const { return std::int64_t(x.size()); }
  template <class E>
  static Span<const E> view(const std::vector<E>& v) {
    return {v.data(), std::int64_t(v.size())};
  }
  ParticleSet<2, double> set() const { return {view(x), view(h), view(m), view(kinds)}; }
  ApplyOptions<double> calibrated() const {
    ApplyOptions<double> options;
    options.calibration_n_h = n_h;
    return options;
  }
};

/// L(x) = ½ Σ (ρ_i − 1)² with ρ the calibrated Density at positions `x`.
double loss(const Particles& p, const NeighborList<exec::host>& list, const std::vector<V2>& x) {
  const auto set = p.set().with_positions(Particles::view(x));
  const auto rho = apply<Density>(exec::host{}, ops::pairs(set, p.domain, list, p.calibrated()));
  double sum = 0;
  for (std::int64_t i = 0; i < rho.size(); ++i) {
    sum += 0.5 * (rho[i] - 1) * (rho[i] - 1);
  }
  return sum;
}

/// ∇L by reverse mode, with positions of element type E: plain (the gradient) or dual (value
/// ∇L, tangent H u: the tape over dual numbers gives the Hessian-vector product).
template <class E>
std::vector<Vec<E, 2>>
loss_gradient(const Particles& p, const NeighborList<exec::host>& list, std::vector<Vec<E, 2>> x) {
  Tape<exec::host> tape;
  const Variable<Vec<E, 2>> positions(x.data(), p.size());
  const auto set = p.set().with_positions(positions);
  const auto rho = record<Density>(tape, ops::pairs(set, p.domain, list, p.calibrated()));
  std::vector<E> seed(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    seed[i] = rho[std::int64_t(i)] - 1.0; // ∂L/∂ρ_i
  }
  tape.backward(rho, Span<const E>{seed.data(), p.size()});
  const auto g = tape.gradient(positions);
  return std::vector<Vec<E, 2>>(g.data(), g.data() + p.size());
}

bool report(const char* what, double error, double tolerance) {
  const bool ok = error <= tolerance;
  std::printf("%-58s %.2e (tolerance %.0e) %s\n", what, error, tolerance, ok ? "ok" : "FAILED");
  return ok;
}

} // namespace

int main() {
  bool ok = true;
  const exec::host ex;

  // 1. Calibration: on the perfect lattice the calibrated density is 1 at every particle.
  {
    const Particles p(0.0);
    const auto set = p.set();
    const auto list = build_neighbor_list<SupportScheme::Gather>(ex, set.search_points(),
                                                                 set.search_points(), p.domain);
    const auto pairs = ops::pairs(set, p.domain, list);
    const auto raw = apply<Density>(ex, pairs);
    const auto rho = apply<Density>(ex, pairs.with_options(p.calibrated()));
    double worst = 0;
    for (std::int64_t i = 0; i < rho.size(); ++i) {
      worst = std::fmax(worst, std::abs(rho[i] - 1));
    }
    std::printf("lattice density of %s at n_h = %g: raw %.12f, calibrated %.15f\n", Kernel::name,
                n_h, raw[0], rho[0]);
    ok &= report("calibrated lattice density: max |rho - 1|", worst, 1e-12);
  }

  // 2. Derivatives on a jittered lattice, along a random direction u.
  const Particles p(jitter);
  const auto set = p.set();
  const auto list = build_neighbor_list<SupportScheme::Gather>(ex, set.search_points(),
                                                               set.search_points(), p.domain);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::vector<V2> u(p.x.size()), w(p.x.size());
  for (std::size_t i = 0; i < u.size(); ++i) {
    u[i] = {unit(rng), unit(rng)};
    w[i] = {unit(rng), unit(rng)};
  }
  const auto moved = [&](double s) {
    auto x = p.x;
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] += u[i] * s;
    }
    return x;
  };
  const double fd = (loss(p, list, moved(step)) - loss(p, list, moved(-step))) / (2 * step);

  // Forward mode: ρ̇ along u, then dL = Σ (ρ_i − 1) ρ̇_i.
  const auto tangent_set =
      set.with_positions(with_tangents(Particles::view(p.x), Particles::view(u)));
  const auto rho = jvp<Density>(ex, ops::pairs(tangent_set, p.domain, list, p.calibrated()));
  double forward = 0;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    forward += (rho.primal[i] - 1) * rho.tangents[i];
  }
  // Reverse mode: ⟨∇L, u⟩.
  const auto gradient = loss_gradient<double>(p, list, p.x);
  double reverse = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    reverse += dot(gradient[i], u[i]);
  }
  std::printf("dL along u: forward %.12e, reverse %.12e, central differences %.12e\n", forward,
              reverse, fd);
  ok &= report("forward mode vs central differences (relative)",
               std::abs(forward - fd) / std::abs(fd), 1e-6);
  ok &= report("reverse vs forward mode (relative)",
               std::abs(reverse - forward) / std::abs(forward), 1e-12);

  // Second order: H u from the tape over dual positions, against central differences of ∇L,
  // and the symmetry ⟨H u, w⟩ = ⟨u, H w⟩.
  const auto dual_positions = [&](const std::vector<V2>& direction) {
    std::vector<Vec<D1, 2>> x(p.x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      for (int k = 0; k < 2; ++k) {
        x[i][k] = D1(p.x[i][k], {direction[i][k]});
      }
    }
    return x;
  };
  const auto hu = loss_gradient<D1>(p, list, dual_positions(u));
  const auto hw = loss_gradient<D1>(p, list, dual_positions(w));
  const auto plus = loss_gradient<double>(p, list, moved(step));
  const auto minus = loss_gradient<double>(p, list, moved(-step));
  double worst = 0, scale = 0, huw = 0, uhw = 0, magnitude = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    for (int k = 0; k < 2; ++k) {
      const double central = (plus[i][k] - minus[i][k]) / (2 * step);
      worst = std::fmax(worst, std::abs(hu[i][k].tangent[0] - central));
      scale = std::fmax(scale, std::abs(central));
      huw += hu[i][k].tangent[0] * w[i][k];
      uhw += u[i][k] * hw[i][k].tangent[0];
      magnitude += std::abs(hu[i][k].tangent[0] * w[i][k]);
    }
  }
  ok &= report("Hessian-vector product vs central differences of grad L", worst / scale, 1e-6);
  ok &= report("Hessian symmetry <Hu, w> = <u, Hw> (relative)", std::abs(huw - uhw) / magnitude,
               1e-12);
  std::printf(ok ? "all checks passed\n" : "a check FAILED\n");
  return ok ? 0 : 1;
}
