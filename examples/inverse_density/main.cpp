// SPDX-License-Identifier: MIT
// An inverse problem solved with reverse mode: find the particle masses whose SPH density
// reproduces a target field ρ*(x) = 1 + 0.3 sin 2πx cos 2πy on a jittered periodic 2D lattice.
// The loss is L = ½ Σ_i (ρ_i − ρ*_i)²; one `record<ops::Density>` on a `Tape` and one
// `backward` seeded with ρ − ρ* give ∂L/∂m for every particle in a single sweep. The example first
// checks that gradient against central finite differences, then runs gradient descent on the masses
// (written through `Variable::write`, as a tape demands). A second, short phase keeps the masses
// equal and moves the particles instead: the same record with the positions tracked gives ∂L/∂x,
// and a step-adapting descent relaxes the lattice toward the target density. Prints the loss as it
// falls; exits non-zero when a gradient check fails or a loss does not fall far enough.
#include <sphad/sphad.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

using namespace sphad;

namespace {

using Kernel = kernels::Wendland4;
using V2 = Vec<double, 2>;
using Clock = std::chrono::steady_clock;

constexpr int lattice_n = 24;               // particles per axis on the unit square
constexpr double jitter = 0.1;              // of dx, uniform in each coordinate
constexpr double neighbours = 20;           // per support
constexpr double fd_step = 1e-6;            // of the central finite differences
constexpr double gradient_tolerance = 1e-6; // max relative error of the checks
constexpr int mass_iterations = 30;         // of the mass phase
constexpr double mass_reduction = 100;      // the mass phase must reduce L at least this much
constexpr int position_iterations = 40;     // of the position phase
constexpr double position_reduction = 10;   // the position phase must reduce L this much

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The target density ρ*(x).
double target_density(const V2& x) {
  const double k = 2 * pi_v<double>;
  return 1 + 0.3 * std::sin(k * x[0]) * std::cos(k * x[1]);
}
/// ∇ρ*(x).
V2 target_gradient(const V2& x) {
  const double k = 2 * pi_v<double>;
  return {0.3 * k * std::cos(k * x[0]) * std::cos(k * x[1]),
          -0.3 * k * std::sin(k * x[0]) * std::sin(k * x[1])};
}

/// The particles' arrays (the set's views point into them) and what stays fixed.
struct Problem {
  double dx = 1.0 / lattice_n;
  Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};
  std::vector<V2> positions;
  std::vector<double> supports, masses;
  std::vector<std::int32_t> kinds;

  std::int64_t size() const { return std::int64_t(positions.size()); }
  /// The set over the current arrays, nothing tracked.
  ParticleSet<2, double> set() const {
    const auto n = size();
    return {{positions.data(), n}, {supports.data(), n}, {masses.data(), n}, {kinds.data(), n}};
  }
  /// ρ*_i at the current positions.
  std::vector<double> target() const {
    std::vector<double> out;
    for (const auto& x : positions) {
      out.push_back(target_density(x));
    }
    return out;
  }
};

/// A lattice_n² lattice on [0, 1)², each coordinate jittered by up to ±jitter·dx/2 (fixed
/// seed), supports for ~`neighbours` neighbours and the uniform masses dx² (density 1).
Problem make_problem() {
  Problem p;
  const double h = kernels::support_from_volume(p.dx * p.dx, neighbours, 2);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> shake(-0.5 * jitter * p.dx, 0.5 * jitter * p.dx);
  for (int j = 0; j < lattice_n; ++j) {
    for (int i = 0; i < lattice_n; ++i) {
      p.positions.push_back({(i + 0.5) * p.dx + shake(rng), (j + 0.5) * p.dx + shake(rng)});
      p.supports.push_back(h);
      p.masses.push_back(p.dx * p.dx);
      p.kinds.push_back(std::int32_t(ParticleKind::Fluid));
    }
  }
  return p;
}

NeighborList<exec::host> neighbors_of(const Problem& p) {
  return build_neighbor_list<SupportScheme::Gather>(exec::host{}, p.set().search_points(),
                                                    p.set().search_points(), p.domain);
}

/// ½ Σ (ρ_i − ρ*_i)² for the current arrays, by a plain `apply` (a fresh neighbour list, so
/// moved positions are fine); the reference for the finite differences and line searches.
double loss_of(const Problem& p) {
  const auto neighbors = neighbors_of(p);
  const auto rho =
      apply<ops::Density<Kernel>>(exec::host{}, ops::pairs(p.set(), p.domain, neighbors));
  const auto target = p.target();
  double sum = 0;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    const double r = rho[i] - target[std::size_t(i)];
    sum += 0.5 * r * r;
  }
  return sum;
}

/// Records ρ = Density(set) on a cleared `tape`, seeds the backward with the residual
/// r = ρ − ρ* (kept in `residual`) and returns L. Whatever `set` tracks then has ∂L/∂· in
/// `tape.gradient(...)`, with ρ* held fixed. The neighbour list must live until the next
/// `tape.clear()`.
template <class Set>
double record_loss(Tape<exec::host>& tape,
                   const Problem& p,
                   const Set& set,
                   const NeighborList<exec::host>& neighbors,
                   std::vector<double>& residual) {
  tape.clear();
  const auto rho = record<ops::Density<Kernel>>(tape, ops::pairs(set, p.domain, neighbors));
  const auto target = p.target();
  residual.resize(target.size());
  double loss = 0;
  for (std::size_t i = 0; i < target.size(); ++i) {
    residual[i] = rho[std::int64_t(i)] - target[i];
    loss += 0.5 * residual[i] * residual[i];
  }
  tape.backward(rho, Span<const double>{residual.data(), p.size()});
  return loss;
}

/// Compares tape gradients with central differences of `loss_of` for a few particles; `value`
/// gives a reference to the perturbed scalar (entry c of particle i), `gradient` the tape's
/// ∂L/∂ of it. The error is relative to the largest tape gradient entry, so entries near zero
/// do not inflate it. The perturbed memory is tracked by the tape but restored bit for bit, so
/// its records stay valid without a `write()`. Returns the max relative error.
template <class Value, class Gradient>
double check_gradient(const char* name,
                      Problem& p,
                      const std::vector<std::int64_t>& particles,
                      int components,
                      Value value,
                      Gradient gradient,
                      double scale) {
  double worst = 0;
  for (const auto i : particles) {
    for (int c = 0; c < components; ++c) {
      double& v = value(i, c);
      const double saved = v;
      v = saved + fd_step;
      const double up = loss_of(p);
      v = saved - fd_step;
      const double down = loss_of(p);
      v = saved;
      const double fd = (up - down) / (2 * fd_step);
      const double ad = gradient(i, c);
      const double error = std::abs(ad - fd) / scale;
      worst = std::max(worst, error);
      std::printf("    dL/d%s[%4lld]%s  tape % .10e   fd % .10e   rel. err %.1e\n", name,
                  (long long)i, components > 1 ? (c == 0 ? ".x" : ".y") : "  ", ad, fd, error);
    }
  }
  return worst;
}

/// Phase 1: gradient descent on the masses with the fixed step 1 / λ_max(AᵀA), where ρ = A m
/// (A_ij = W(x_i − x_j, h), symmetric for equal supports). λ_max(A) ≤ max_i Σ_j A_ij
/// (Gershgorin, A ≥ 0), the density at unit masses, so the step is a safe 1/Lipschitz step and
/// the loss falls monotonically. Returns false when a check fails.
bool fit_masses(Problem& p) {
  const auto neighbors = neighbors_of(p);
  Variable<double> mass(Span<double>{p.masses.data(), p.size()});
  const auto tracked = p.set().with_masses(mass);

  std::vector<double> unit(std::size_t(p.size()), 1.0);
  const auto row_sums = apply<ops::Density<Kernel>>(
      exec::host{},
      ops::pairs(p.set(), p.set().with_masses(Span<const double>{unit.data(), p.size()}), p.domain,
                 neighbors));
  double lambda = 0;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    lambda = std::max(lambda, row_sums[i]);
  }
  const double step = 1 / (lambda * lambda);

  Tape<exec::host> tape;
  std::vector<double> residual;
  double loss = record_loss(tape, p, tracked, neighbors, residual);
  const double initial = loss;

  std::printf("phase 1: masses (%lld unknowns), step 1/lambda_max^2 = %.3e\n", (long long)p.size(),
              step);
  std::printf("  gradient check, central differences with step %.0e (error relative to the "
              "largest gradient entry):\n",
              fd_step);
  const auto g = tape.gradient(mass);
  double scale = 0;
  for (std::int64_t i = 0; i < g.size(); ++i) {
    scale = std::max(scale, std::abs(g[i]));
  }
  const double error = check_gradient(
      "m", p, {0, p.size() / 7, p.size() / 2, 3 * p.size() / 4, p.size() - 1}, 1,
      [&](std::int64_t i, int) -> double& { return p.masses[std::size_t(i)]; },
      [&](std::int64_t i, int) { return g[i]; }, scale);
  std::printf("  max relative error %.2e (tolerance %.0e)\n", error, gradient_tolerance);
  if (!(error <= gradient_tolerance)) {
    std::printf("GRADIENT CHECK FAILED (masses)\n");
    return false;
  }

  std::printf("  iter  loss\n  %4d  %.6e\n", 0, loss);
  for (int it = 1; it <= mass_iterations; ++it) {
    // The gradient lives in the tape until the next clear, so update, then record again.
    const auto grad = tape.gradient(mass);
    const auto m = mass.write();
    for (std::int64_t i = 0; i < p.size(); ++i) {
      m[i] -= step * grad[i];
    }
    loss = record_loss(tape, p, tracked, neighbors, residual);
    if (it % 5 == 0) {
      std::printf("  %4d  %.6e\n", it, loss);
    }
  }
  double m_min = p.masses[0], m_max = p.masses[0];
  for (const double m : p.masses) {
    m_min = std::min(m_min, m);
    m_max = std::max(m_max, m);
  }
  std::printf("  loss %.3e -> %.3e (reduced %.1fx); masses now in [%.3f, %.3f] dx^2\n", initial,
              loss, initial / loss, m_min / (p.dx * p.dx), m_max / (p.dx * p.dx));
  if (!(initial / loss >= mass_reduction)) {
    std::printf("LOSS DID NOT FALL %.0fx (masses)\n", mass_reduction);
    return false;
  }
  return true;
}

/// Phase 2: equal masses dx², the positions move instead. ρ*_i = ρ*(x_i) moves with the
/// particle, so ∂L/∂x_i is the tape's gradient (ρ* held fixed) plus the chain-rule term
/// −r_i ∇ρ*(x_i). The loss is not quadratic in x: a step is accepted only when `loss_of`
/// falls (the next trial step then grows by 1.5), else it is halved. The neighbour list is
/// rebuilt at the new positions before each record. Returns false when a check fails.
bool fit_positions(Problem& p) {
  std::fill(p.masses.begin(), p.masses.end(), p.dx * p.dx);
  const std::vector<V2> lattice(p.positions);
  Variable<V2> position(Span<V2>{p.positions.data(), p.size()});
  const auto tracked = p.set().with_positions(position);

  Tape<exec::host> tape;
  std::vector<double> residual;
  auto neighbors = neighbors_of(p);
  double loss = record_loss(tape, p, tracked, neighbors, residual);
  const double initial = loss;
  std::vector<V2> grad(std::size_t(p.size()));
  const auto total_gradient = [&] {
    const auto g = tape.gradient(position);
    for (std::size_t i = 0; i < grad.size(); ++i) {
      grad[i] = g[std::int64_t(i)] - residual[i] * target_gradient(p.positions[i]);
    }
  };
  total_gradient();

  std::printf("phase 2: positions (%lld unknowns), equal masses dx^2\n", (long long)(2 * p.size()));
  std::printf("  gradient check, central differences with step %.0e (error relative to the "
              "largest gradient entry):\n",
              fd_step);
  double scale = 0;
  for (const auto& g : grad) {
    scale = std::max(scale, std::max(std::abs(g[0]), std::abs(g[1])));
  }
  const double error = check_gradient(
      "x", p, {0, p.size() / 2, 3 * p.size() / 4}, 2,
      [&](std::int64_t i, int c) -> double& { return p.positions[std::size_t(i)][c]; },
      [&](std::int64_t i, int c) { return grad[std::size_t(i)][c]; }, scale);
  std::printf("  max relative error %.2e (tolerance %.0e)\n", error, gradient_tolerance);
  if (!(error <= gradient_tolerance)) {
    std::printf("GRADIENT CHECK FAILED (positions)\n");
    return false;
  }

  double step = 0.1 * p.dx / scale; // first trial: the fastest particle moves dx/10
  std::printf("  iter  loss          next step\n  %4d  %.6e\n", 0, loss);
  for (int it = 1; it <= position_iterations; ++it) {
    const std::vector<V2> saved(p.positions);
    bool accepted = false;
    for (int attempt = 0; attempt < 30 && !accepted; ++attempt) {
      const auto x = position.write();
      for (std::int64_t i = 0; i < p.size(); ++i) {
        x[i] = saved[std::size_t(i)] - step * grad[std::size_t(i)];
      }
      accepted = loss_of(p) < loss;
      if (!accepted) {
        step *= 0.5;
      }
    }
    if (!accepted) {
      std::copy(saved.begin(), saved.end(), position.write().data());
      std::printf("  no descent step found at iteration %d\n", it);
      break;
    }
    // The tape's record views the old list: drop it before the list is replaced, then record
    // with the pairs at the new positions.
    tape.clear();
    neighbors = neighbors_of(p);
    loss = record_loss(tape, p, tracked, neighbors, residual);
    total_gradient();
    step *= 1.5;
    if (it % 5 == 0) {
      std::printf("  %4d  %.6e  %.2e\n", it, loss, step);
    }
  }
  double moved = 0;
  for (std::size_t i = 0; i < lattice.size(); ++i) {
    moved = std::max(moved, norm(p.domain.difference(p.positions[i], lattice[i])));
  }
  std::printf("  loss %.3e -> %.3e (reduced %.1fx); particles moved up to %.2f dx\n", initial, loss,
              initial / loss, moved / p.dx);
  if (!(initial / loss >= position_reduction)) {
    std::printf("LOSS DID NOT FALL %.0fx (positions)\n", position_reduction);
    return false;
  }
  return true;
}

} // namespace

int main() {
  const auto start = Clock::now();
  Problem p = make_problem();
  std::printf("sphad %s inverse_density: %lld particles, %.0f neighbours per support (Wendland4, "
              "2D periodic), target rho* = 1 + 0.3 sin 2pi x cos 2pi y\n",
              SPHAD_VERSION_STRING, (long long)p.size(), neighbours);
  const bool ok = fit_masses(p) && fit_positions(p); // phase 2 restarts from equal masses
  std::printf("time %.2f s (host, %d threads)\n", seconds_since(start), exec::host::concurrency());
  std::printf("%s\n", ok ? "all checks passed" : "A CHECK FAILED");
  return ok ? 0 : 1;
}
