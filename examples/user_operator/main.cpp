// SPDX-License-Identifier: MIT
// A user-defined operator (xsph.hpp: XSPH velocity smoothing) used like the library's own: on a
// jittered periodic lattice with a shear velocity field, the smoothed velocities
// v̂ = v + ε Δv(x, v) give the loss L(x, v) = ½ Σ_i |v̂_i|², differentiated with respect to
// positions and velocities together in forward mode (`jvp`), reverse mode (`record` +
// `backward`) and to second order (the tape over dual inputs gives the Hessian-vector product),
// each checked against central differences. Exits non-zero when a check fails.
#include <sphad/sphad.hpp>

#include "xsph.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

using namespace sphad;

namespace {

using Kernel = kernels::Wendland4;
using XSPH = user::XSPH<Kernel>;
using V2 = Vec<double, 2>;
using D1 = Dual<double, 1>;

constexpr int per_axis = 20;    // particles per axis on the unit square
constexpr double n_h = 3.0;     // support radii per particle spacing
constexpr double epsilon = 0.5; // XSPH's ε
constexpr double step = 1e-6;   // of the central differences

/// Positions and velocities: the two inputs L depends on.
struct State {
  std::vector<V2> x, v;
  State moved(const State& direction, double s) const {
    State out = *this;
    for (std::size_t i = 0; i < x.size(); ++i) {
      out.x[i] += direction.x[i] * s;
      out.v[i] += direction.v[i] * s;
    }
    return out;
  }
};

template <class E>
Span<const E> view(const std::vector<E>& v) {
  return {v.data(), std::int64_t(v.size())};
}

/// The fixed particle data: supports, masses, densities (uniform: 1), kinds.
struct Particles {
  std::vector<double> h, m, rho;
  std::vector<std::int32_t> kinds;
  Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};
  State start;

  Particles() {
    auto lattice = sampling::cubic_lattice<2>(per_axis, V2{1, 1});
    sampling::jitter(lattice, 0.2, 11);
    const double dx = lattice.spacing;
    const std::size_t n = lattice.positions.size();
    h.assign(n, n_h * dx);
    m.assign(n, dx * dx);
    rho.assign(n, 1.0);
    kinds.assign(n, 0);
    start.x = lattice.positions;
    for (const V2& p : start.x) {
      start.v.push_back(
          {std::sin(2 * pi_v<double> * p[1]), 0.3 * std::cos(2 * pi_v<double> * p[0])});
    }
  }
  std::int64_t size() const { return std::int64_t(h.size()); }
  ParticleSet<2, double> set() const {
    return ParticleSet<2, double>{view(start.x), view(h), view(m), view(kinds)}.with_densities(
        view(rho));
  }
};

/// L at state s.
double loss(const Particles& p, const NeighborList<exec::host>& list, const State& s) {
  const auto set = p.set().with_positions(view(s.x));
  const auto dv = apply<XSPH>(exec::host{}, ops::pairs(set, p.domain, list), view(s.v));
  double sum = 0;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    const V2 smoothed = s.v[std::size_t(i)] + dv[i] * epsilon;
    sum += 0.5 * dot(smoothed, smoothed);
  }
  return sum;
}

/// (∂L/∂x, ∂L/∂v) by reverse mode, inputs of element type E: plain (the gradient) or dual
/// (value ∇L, tangent H u: the tape over dual numbers gives the Hessian-vector product).
template <class E>
std::pair<std::vector<Vec<E, 2>>, std::vector<Vec<E, 2>>>
loss_gradient(const Particles& p,
              const NeighborList<exec::host>& list,
              std::vector<Vec<E, 2>> x,
              std::vector<Vec<E, 2>> v) {
  Tape<exec::host> tape;
  const Variable<Vec<E, 2>> positions(x.data(), p.size());
  const Variable<Vec<E, 2>> velocities(v.data(), p.size());
  const auto set = p.set().with_positions(positions);
  const auto dv = record<XSPH>(tape, ops::pairs(set, p.domain, list), velocities);
  // L = ½ Σ |v̂|²: ∂L/∂Δv_i = ε v̂_i, and v̂ = v + ε Δv adds v̂_i to ∂L/∂v_i directly.
  std::vector<Vec<E, 2>> smoothed(x.size()), seed(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    smoothed[i] = v[i] + dv[std::int64_t(i)] * epsilon;
    seed[i] = smoothed[i] * epsilon;
  }
  tape.backward(dv, Span<const Vec<E, 2>>{seed.data(), p.size()});
  const auto gx = tape.gradient(positions);
  const auto gv = tape.gradient(velocities);
  std::pair<std::vector<Vec<E, 2>>, std::vector<Vec<E, 2>>> out;
  for (std::size_t i = 0; i < x.size(); ++i) {
    out.first.push_back(gx[std::int64_t(i)]);
    out.second.push_back(gv[std::int64_t(i)] + smoothed[i]);
  }
  return out;
}

/// The state with tangent `direction` as dual numbers.
std::pair<std::vector<Vec<D1, 2>>, std::vector<Vec<D1, 2>>> dual_state(const State& s,
                                                                       const State& direction) {
  std::pair<std::vector<Vec<D1, 2>>, std::vector<Vec<D1, 2>>> out;
  out.first.resize(s.x.size());
  out.second.resize(s.x.size());
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    for (int k = 0; k < 2; ++k) {
      out.first[i][k] = D1(s.x[i][k], {direction.x[i][k]});
      out.second[i][k] = D1(s.v[i][k], {direction.v[i][k]});
    }
  }
  return out;
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
  const Particles p;
  const auto set = p.set();
  const auto list = build_neighbor_list<SupportScheme::Gather>(ex, set.search_points(),
                                                               set.search_points(), p.domain);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(-1, 1);
  State u, w;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    u.x.push_back({unit(rng), unit(rng)});
    u.v.push_back({unit(rng), unit(rng)});
    w.x.push_back({unit(rng), unit(rng)});
    w.v.push_back({unit(rng), unit(rng)});
  }
  const State& s = p.start;
  const double fd =
      (loss(p, list, s.moved(u, step)) - loss(p, list, s.moved(u, -step))) / (2 * step);

  // Forward mode: Δv̇ along u, then dL = Σ v̂_i·(u_v,i + ε Δv̇_i).
  const auto tangent_set = set.with_positions(with_tangents(view(s.x), view(u.x)));
  const auto values = with_tangents(view(s.v), view(u.v));
  const auto dv = jvp<XSPH>(ex, ops::pairs(tangent_set, p.domain, list), values);
  double forward = 0;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    const auto k = std::size_t(i);
    forward += dot(s.v[k] + dv.primal[i] * epsilon, u.v[k] + dv.tangents[i] * epsilon);
  }
  // Reverse mode: ⟨∇L, u⟩.
  const auto gradient = loss_gradient<double>(p, list, s.x, s.v);
  double reverse = 0;
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    reverse += dot(gradient.first[i], u.x[i]) + dot(gradient.second[i], u.v[i]);
  }
  std::printf("dL along u: forward %.12e, reverse %.12e, central differences %.12e\n", forward,
              reverse, fd);
  ok &= report("forward mode vs central differences (relative)",
               std::abs(forward - fd) / std::abs(fd), 1e-6);
  ok &= report("reverse vs forward mode (relative)",
               std::abs(reverse - forward) / std::abs(forward), 1e-12);

  // Second order: H u from the tape over dual inputs, against central differences of ∇L, and
  // the symmetry ⟨H u, w⟩ = ⟨u, H w⟩.
  const auto along = [&](const State& direction) {
    const auto d = dual_state(s, direction);
    return loss_gradient<D1>(p, list, d.first, d.second);
  };
  const auto hu = along(u);
  const auto hw = along(w);
  const State plus_state = s.moved(u, step), minus_state = s.moved(u, -step);
  const auto plus = loss_gradient<double>(p, list, plus_state.x, plus_state.v);
  const auto minus = loss_gradient<double>(p, list, minus_state.x, minus_state.v);
  double worst = 0, scale = 0, huw = 0, uhw = 0, magnitude = 0;
  const auto accumulate = [&](const auto& hu_part, const auto& hw_part, const auto& plus_part,
                              const auto& minus_part, const std::vector<V2>& u_part,
                              const std::vector<V2>& w_part) {
    for (std::size_t i = 0; i < u_part.size(); ++i) {
      for (int k = 0; k < 2; ++k) {
        const double central = (plus_part[i][k] - minus_part[i][k]) / (2 * step);
        worst = std::fmax(worst, std::abs(hu_part[i][k].tangent[0] - central));
        scale = std::fmax(scale, std::abs(central));
        huw += hu_part[i][k].tangent[0] * w_part[i][k];
        uhw += u_part[i][k] * hw_part[i][k].tangent[0];
        magnitude += std::abs(hu_part[i][k].tangent[0] * w_part[i][k]);
      }
    }
  };
  accumulate(hu.first, hw.first, plus.first, minus.first, u.x, w.x);
  accumulate(hu.second, hw.second, plus.second, minus.second, u.v, w.v);
  ok &= report("Hessian-vector product vs central differences of grad L", worst / scale, 1e-6);
  ok &= report("Hessian symmetry <Hu, w> = <u, Hw> (relative)", std::abs(huw - uhw) / magnitude,
               1e-12);
  std::printf(ok ? "all checks passed\n" : "a check FAILED\n");
  return ok ? 0 : 1;
}
