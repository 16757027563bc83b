// SPDX-License-Identifier: MIT
// An implicit SPH solver for the nonlinear wave equation u_tt = c² ∇²u − β u³ on a periodic 2D
// particle lattice: SDIRK2 steps whose stage equations are solved by Jacobian-free
// Newton–Krylov (Newton's method, GMRES for each update). The Jacobian–vector products come
// either exactly, from one evaluation of the right-hand side in dual numbers (value-only forward
// mode through the SPH Laplacian), or from a one-sided finite difference. The whole solve runs
// both ways; the example prints iterations, the cost per right-hand-side evaluation and how far
// the two final states are apart. Usage: jfnk_wave [n] (n×n particles, default 48). Exits
// non-zero when a check fails.
#include <sphad/sphad.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

using namespace sphad;

namespace {

using Vector = std::vector<double>;
using Clock = std::chrono::steady_clock;

constexpr double wave_speed = 1.0;         // c
constexpr double beta = 50.0;              // strength of the cubic term
constexpr int step_count = 10;             // of Δt = 4 dx / c
constexpr double newton_tolerance = 1e-6;  // absolute, on the RMS norm of G(k)
constexpr int max_newton_iterations = 20;  // per stage
constexpr double gmres_tolerance = 1e-8;   // relative to the norm of the right-hand side
constexpr int gmres_restart = 100;         // Krylov vectors kept before a restart
constexpr int max_gmres_iterations = 1000; // per linear solve

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double dot(const Vector& a, const Vector& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sum += a[i] * b[i];
  }
  return sum;
}
double norm(const Vector& a) {
  return std::sqrt(dot(a, a));
}
double rms(const Vector& a) {
  return norm(a) / std::sqrt(double(a.size()));
}
/// y += a x.
void axpy(double a, const Vector& x, Vector& y) {
  for (std::size_t i = 0; i < y.size(); ++i) {
    y[i] += a * x[i];
  }
}
/// max |a_i| over i in [begin, end).
double max_abs(const Vector& a, std::size_t begin, std::size_t end) {
  double m = 0;
  for (std::size_t i = begin; i < end; ++i) {
    m = std::fmax(m, std::abs(a[i]));
  }
  return m;
}

/// The SPH (Brookshaw) Laplacian L u over one particle set, for plain or dual values u.
struct SphLaplacian {
  const ParticleSet<2, double>& fluid;
  const Domain<2, double>& domain;
  const NeighborList<exec::host>& neighbors;

  template <class S>
  Buffer<S, exec::host> operator()(const S* u) const {
    const Span<const S> values{u, fluid.size()};
    return apply<ops::Laplacian<kernels::Wendland4, LaplacianScheme::Brookshaw>>(
        exec::host{}, ops::pairs(fluid, domain, neighbors), values);
  }
};

/// The semi-discrete wave equation y' = f(y) with y = (u, v) stored as one array [u | v]:
/// f(y) = (v, c² L u − β u³). Counts and times its evaluations.
class WaveRhs {
public:
  struct Counters {
    long plain_evaluations = 0; // f(y)
    long dual_evaluations = 0;  // exact JVPs: f in dual numbers, one evaluation each
    double plain_seconds = 0;
    double dual_seconds = 0;
  };
  Counters counters;

  explicit WaveRhs(SphLaplacian laplacian) : laplacian_(laplacian) {}

  /// f(y).
  void evaluate(const Vector& y, Vector& f) {
    const auto start = Clock::now();
    rhs(y, f);
    counters.plain_seconds += seconds_since(start);
    ++counters.plain_evaluations;
  }

  // [snippet:jfnk_exact_jvp]
  /// J(y) w exactly: f evaluated once on dual numbers with values y and tangents w; the
  /// tangent of the result is J(y) w (and its value f(y)).
  void exact_jvp(const Vector& y, const Vector& w, Vector& jw) {
    const auto start = Clock::now();
    y_dual_.resize(y.size());
    f_dual_.resize(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
      y_dual_[i] = Dual<double, 1>(y[i], {w[i]});
    }
    rhs(y_dual_, f_dual_);
    for (std::size_t i = 0; i < y.size(); ++i) {
      jw[i] = f_dual_[i].tangent[0];
    }
    counters.dual_seconds += seconds_since(start);
    ++counters.dual_evaluations;
  }
  // [snippet-end]

  /// J(y) w ≈ (f(y + εw) − f(y)) / ε with ε = √eps (1 + ‖y‖₂) / ‖w‖₂, reusing f_y = f(y).
  void finite_difference_jvp(const Vector& y, const Vector& f_y, const Vector& w, Vector& jw) {
    const double w_norm = norm(w);
    if (w_norm == 0) {
      std::fill(jw.begin(), jw.end(), 0.0);
      return;
    }
    const double epsilon =
        std::sqrt(std::numeric_limits<double>::epsilon()) * (1 + norm(y)) / w_norm;
    perturbed_ = y;
    axpy(epsilon, w, perturbed_);
    f_perturbed_.resize(y.size());
    evaluate(perturbed_, f_perturbed_);
    for (std::size_t i = 0; i < y.size(); ++i) {
      jw[i] = (f_perturbed_[i] - f_y[i]) / epsilon;
    }
  }

private:
  /// The one right-hand side, for S = double (f) and S = Dual<double, 1> (f and J w).
  template <class S>
  void rhs(const std::vector<S>& y, std::vector<S>& f) const {
    const std::size_t n = y.size() / 2;
    const auto laplacian_u = laplacian_(y.data());
    for (std::size_t i = 0; i < n; ++i) {
      const S& u = y[i];
      f[i] = y[n + i];
      f[n + i] = wave_speed * wave_speed * laplacian_u[std::int64_t(i)] - beta * u * u * u;
    }
  }

  SphLaplacian laplacian_;
  std::vector<Dual<double, 1>> y_dual_, f_dual_;
  Vector perturbed_, f_perturbed_;
};

/// (a, b) ← (c a + s b, −s a + c b): one Givens rotation.
void rotate(double c, double s, double& a, double& b) {
  const double rotated_a = c * a + s * b;
  b = -s * a + c * b;
  a = rotated_a;
}

/// Restarted GMRES for A x = b from x = 0: Arnoldi with modified Gram–Schmidt, the Hessenberg
/// least-squares problem kept triangular by Givens rotations as it grows, so |g_{j+1}| is the
/// residual norm at every step. Stops when that is ≤ gmres_tolerance ‖b‖, restarting from the
/// true residual every gmres_restart steps. Returns the Arnoldi steps taken.
template <class Operator>
int gmres(const Operator& apply_a, const Vector& b, Vector& x) {
  const int m = gmres_restart;
  const double target = gmres_tolerance * norm(b);
  std::vector<Vector> basis(m + 1, Vector(b.size()));
  std::vector<Vector> h(m + 1, Vector(m)); // h[i][j]: the Hessenberg matrix, then R
  Vector cosines(m), sines(m), g(m + 1), coefficients(m);
  x.assign(b.size(), 0.0);
  Vector residual = b;
  double residual_norm = norm(residual);
  int iterations = 0;
  while (residual_norm > target && iterations < max_gmres_iterations) {
    for (std::size_t i = 0; i < b.size(); ++i) {
      basis[0][i] = residual[i] / residual_norm;
    }
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = residual_norm;
    int j = 0;
    for (; j < m && std::abs(g[j]) > target && iterations < max_gmres_iterations; ++j) {
      Vector& w = basis[j + 1];
      apply_a(basis[j], w);
      ++iterations;
      for (int i = 0; i <= j; ++i) { // modified Gram–Schmidt
        h[i][j] = dot(w, basis[i]);
        axpy(-h[i][j], basis[i], w);
      }
      h[j + 1][j] = norm(w);
      if (h[j + 1][j] > 0) {
        for (double& wi : w) {
          wi /= h[j + 1][j];
        }
      }
      for (int i = 0; i < j; ++i) {
        rotate(cosines[i], sines[i], h[i][j], h[i + 1][j]);
      }
      const double radius = std::hypot(h[j][j], h[j + 1][j]);
      cosines[j] = h[j][j] / radius;
      sines[j] = h[j + 1][j] / radius;
      rotate(cosines[j], sines[j], h[j][j], h[j + 1][j]);
      rotate(cosines[j], sines[j], g[j], g[j + 1]);
    }
    for (int i = j - 1; i >= 0; --i) { // R c = g, then x += V c
      double sum = g[i];
      for (int l = i + 1; l < j; ++l) {
        sum -= h[i][l] * coefficients[l];
      }
      coefficients[i] = sum / h[i][i];
    }
    for (int i = 0; i < j; ++i) {
      axpy(coefficients[i], basis[i], x);
    }
    residual_norm = std::abs(g[j]);
    if (residual_norm > target && iterations < max_gmres_iterations) { // restart
      apply_a(x, residual);
      for (std::size_t i = 0; i < b.size(); ++i) {
        residual[i] = b[i] - residual[i];
      }
      residual_norm = norm(residual);
    }
  }
  return iterations;
}

enum class JvpMethod { Exact, FiniteDifference };

struct StageResult {
  int newton_iterations = 0;
  int gmres_iterations = 0;
  bool converged = false;
};

/// Solves the stage equation G(k) = k − f(z + hγ k) = 0 by Newton's method; k holds the guess
/// on entry. Each update δ solves (I − hγ J(Y)) δ = −G(k), Y = z + hγ k, by GMRES with
/// Jacobian-free products J(Y) w.
StageResult solve_stage(WaveRhs& f, JvpMethod method, const Vector& z, double h_gamma, Vector& k) {
  const std::size_t size = k.size();
  Vector stage(size), f_stage(size), minus_g(size), update(size);
  const auto newton_matrix = [&](const Vector& w, Vector& out) { // (I − hγ J(Y)) w
    if (method == JvpMethod::Exact) {
      f.exact_jvp(stage, w, out);
    } else {
      f.finite_difference_jvp(stage, f_stage, w, out);
    }
    for (std::size_t i = 0; i < size; ++i) {
      out[i] = w[i] - h_gamma * out[i];
    }
  };
  StageResult result;
  for (;; ++result.newton_iterations) {
    for (std::size_t i = 0; i < size; ++i) {
      stage[i] = z[i] + h_gamma * k[i];
    }
    f.evaluate(stage, f_stage);
    for (std::size_t i = 0; i < size; ++i) {
      minus_g[i] = f_stage[i] - k[i];
    }
    if (rms(minus_g) <= newton_tolerance) {
      result.converged = true;
      return result;
    }
    if (result.newton_iterations == max_newton_iterations) {
      return result;
    }
    result.gmres_iterations += gmres(newton_matrix, minus_g, update);
    axpy(1.0, update, k);
  }
}

struct StepResult {
  StageResult stage[2];
};

struct Run {
  Vector y;
  std::vector<StepResult> steps;
  WaveRhs::Counters counters;
  double seconds = 0;
  bool converged = true;
};

/// Newton and GMRES iterations summed over every stage of a run.
StageResult totals(const Run& run) {
  StageResult sum;
  for (const StepResult& step : run.steps) {
    for (const StageResult& stage : step.stage) {
      sum.newton_iterations += stage.newton_iterations;
      sum.gmres_iterations += stage.gmres_iterations;
    }
  }
  return sum;
}

/// `step_count` SDIRK2 steps from y0 (Alexander's two-stage method: L-stable, stiffly accurate,
/// γ = 1 − 1/√2): k1 = f(y + Δt γ k1), k2 = f(y + Δt (1−γ) k1 + Δt γ k2),
/// y ← y + Δt ((1−γ) k1 + γ k2). Each stage starts Newton from the latest slope.
Run integrate(WaveRhs& f, JvpMethod method, const Vector& y0, double dt) {
  const double gamma = 1 - 1 / std::sqrt(2.0);
  f.counters = {};
  Run run;
  run.y = y0;
  Vector k1(y0.size(), 0.0), k2(y0.size(), 0.0), z(y0.size());
  const auto start = Clock::now();
  for (int step = 0; step < step_count; ++step) {
    StepResult result;
    k1 = k2;
    result.stage[0] = solve_stage(f, method, run.y, dt * gamma, k1);
    z = run.y;
    axpy(dt * (1 - gamma), k1, z);
    k2 = k1;
    result.stage[1] = solve_stage(f, method, z, dt * gamma, k2);
    run.y = z;
    axpy(dt * gamma, k2, run.y);
    run.steps.push_back(result);
    run.converged = run.converged && result.stage[0].converged && result.stage[1].converged;
  }
  run.seconds = seconds_since(start);
  run.counters = f.counters;
  return run;
}

/// The exact JVP at y in a random direction w against the central difference
/// (f(y + δw) − f(y − δw)) / 2δ: the largest difference relative to max |J w|.
double check_exact_jvp(WaveRhs& f, const Vector& y) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  Vector w(y.size());
  for (double& wi : w) {
    wi = uniform(rng);
  }
  const double delta = 1e-5;
  Vector exact(y.size()), y_plus = y, y_minus = y, f_plus(y.size()), f_minus(y.size());
  axpy(delta, w, y_plus);
  axpy(-delta, w, y_minus);
  f.exact_jvp(y, w, exact);
  f.evaluate(y_plus, f_plus);
  f.evaluate(y_minus, f_minus);
  double difference = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double central = (f_plus[i] - f_minus[i]) / (2 * delta);
    difference = std::fmax(difference, std::abs(exact[i] - central));
  }
  return difference / max_abs(exact, 0, exact.size());
}

/// λ_max(−L) by power iteration (Rayleigh quotient): the fastest linear wave has angular
/// frequency c √λ_max, which bounds explicit leapfrog steps to Δt < 2 / (c √λ_max).
double largest_laplacian_eigenvalue(const SphLaplacian& laplacian, std::int64_t n) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uniform(-1, 1);
  const auto size = std::size_t(n);
  Vector u(size), minus_lu(size);
  for (double& ui : u) {
    ui = uniform(rng);
  }
  double lambda = 0;
  for (int iteration = 0; iteration < 50; ++iteration) {
    const auto lu = laplacian(u.data());
    for (std::size_t i = 0; i < u.size(); ++i) {
      minus_lu[i] = -lu[std::int64_t(i)];
    }
    lambda = dot(u, minus_lu) / dot(u, u);
    const double scale = 1 / norm(minus_lu);
    for (std::size_t i = 0; i < u.size(); ++i) {
      u[i] = scale * minus_lu[i];
    }
  }
  return lambda;
}

} // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 48; // particles per axis
  if (n < 16) {
    std::fprintf(stderr, "usage: jfnk_wave [n]   (n x n particles, n >= 16, default 48)\n");
    return 2;
  }
  const double dx = 1.0 / n;
  const double support = kernels::support_from_volume(dx * dx, 50, 2); // ~50 neighbours
  std::vector<Vec<double, 2>> x;
  std::vector<double> supports, masses, densities;
  std::vector<std::int32_t> kinds;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      x.push_back({(i + 0.5) * dx, (j + 0.5) * dx});
      supports.push_back(support);
      masses.push_back(dx * dx);
      kinds.push_back(std::int32_t(ParticleKind::Fluid));
    }
  }
  const auto N = std::int64_t(x.size());
  ParticleSet<2, double> fluid{
      {x.data(), N}, {supports.data(), N}, {masses.data(), N}, {kinds.data(), N}};
  const Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};
  const exec::host exec;
  const auto neighbors = build_neighbor_list<SupportScheme::Gather>(exec, fluid.search_points(),
                                                                    fluid.search_points(), domain);
  const auto rho =
      apply<ops::Density<kernels::Wendland4>>(exec, ops::pairs(fluid, domain, neighbors));
  densities.assign(rho.data(), rho.data() + N);
  fluid.densities = {densities.data(), N};

  const SphLaplacian laplacian{fluid, domain, neighbors};
  WaveRhs f(laplacian);
  const double k = 2 * pi_v<double>;
  Vector y0(std::size_t(2 * N), 0.0); // u = ½ sin 2πx sin 2πy, v = 0
  for (std::size_t i = 0; i < x.size(); ++i) {
    y0[i] = 0.5 * std::sin(k * x[i][0]) * std::sin(k * x[i][1]);
  }
  const double dt = 4 * dx / wave_speed;
  const double explicit_limit =
      2 / (wave_speed * std::sqrt(largest_laplacian_eigenvalue(laplacian, N)));

  std::printf("sphad %s jfnk_wave: u_tt = c^2 L u - beta u^3, c = %g, beta = %g, %d x %d "
              "periodic particles (Wendland4, Brookshaw), %d threads\n",
              SPHAD_VERSION_STRING, wave_speed, beta, n, n, exec::host::concurrency());
  std::printf("  SDIRK2 (gamma = 1 - 1/sqrt 2), %d steps of dt = 4 dx/c = %.4f = %.1f x the "
              "explicit leapfrog limit 2/(c sqrt(lambda_max(-L))) = %.4f\n",
              step_count, dt, dt / explicit_limit, explicit_limit);
  std::printf("  Newton: RMS |G| <= %.0e; GMRES(%d): |r| <= %.0e |G|\n", newton_tolerance,
              gmres_restart, gmres_tolerance);

  const double jvp_error = check_exact_jvp(f, y0);
  const bool jvp_ok = jvp_error <= 1e-6;
  std::printf("  exact JVP vs central difference at the initial state, random direction: "
              "%.1e relative (bound 1e-6)\n",
              jvp_error);

  const Run exact = integrate(f, JvpMethod::Exact, y0, dt);
  const Run fd = integrate(f, JvpMethod::FiniteDifference, y0, dt);

  std::printf("  step   Newton iterations (stage 1+2)   GMRES iterations (stage 1+2)\n"
              "         exact JVP   finite diff.        exact JVP   finite diff.\n");
  for (int s = 0; s < step_count; ++s) {
    const StageResult* e = exact.steps[std::size_t(s)].stage;
    const StageResult* d = fd.steps[std::size_t(s)].stage;
    std::printf("  %4d   %4d+%-4d   %4d+%-4d          %5d+%-5d %5d+%-5d\n", s + 1,
                e[0].newton_iterations, e[1].newton_iterations, d[0].newton_iterations,
                d[1].newton_iterations, e[0].gmres_iterations, e[1].gmres_iterations,
                d[0].gmres_iterations, d[1].gmres_iterations);
  }
  const StageResult exact_totals = totals(exact);
  const StageResult fd_totals = totals(fd);
  const WaveRhs::Counters& ec = exact.counters;
  const WaveRhs::Counters& fc = fd.counters;
  const double exact_ms_per_f = 1e3 * ec.plain_seconds / double(ec.plain_evaluations);
  const double exact_ms_per_jvp = 1e3 * ec.dual_seconds / double(ec.dual_evaluations);
  const double fd_ms_per_f = 1e3 * fc.plain_seconds / double(fc.plain_evaluations);
  std::printf("  totals          Newton   GMRES   f evals    ms/f   JVP (dual) evals   ms/JVP"
              "   solve s\n");
  std::printf("  exact JVP       %6d  %6d  %8ld  %6.3f   %16ld  %7.3f  %8.2f\n",
              exact_totals.newton_iterations, exact_totals.gmres_iterations, ec.plain_evaluations,
              exact_ms_per_f, ec.dual_evaluations, exact_ms_per_jvp, exact.seconds);
  std::printf("  finite diff.    %6d  %6d  %8ld  %6.3f   %16s  %7s  %8.2f\n",
              fd_totals.newton_iterations, fd_totals.gmres_iterations, fc.plain_evaluations,
              fd_ms_per_f, "0", "-", fd.seconds);
  std::printf("  (a finite-difference JVP is one f evaluation; f evals include the Newton "
              "residuals)\n");
  std::printf("  ms per exact JVP / ms per finite-difference f evaluation: %.2f\n",
              exact_ms_per_jvp / fd_ms_per_f);

  const std::size_t half = std::size_t(N);
  Vector difference = exact.y;
  axpy(-1.0, fd.y, difference);
  const double u_difference = max_abs(difference, 0, half) / max_abs(exact.y, 0, half);
  const double v_difference =
      max_abs(difference, half, 2 * half) / max_abs(exact.y, half, 2 * half);
  std::printf("  final states: max|u| = %.4f, max|v| = %.4f; exact vs finite diff. "
              "max|du|/max|u| = %.1e, max|dv|/max|v| = %.1e (bound 1e-4)\n",
              max_abs(exact.y, 0, half), max_abs(exact.y, half, 2 * half), u_difference,
              v_difference);

  const bool converged = exact.converged && fd.converged;
  const bool states_agree = u_difference <= 1e-4 && v_difference <= 1e-4;
  const bool ok = jvp_ok && converged && states_agree;
  if (!jvp_ok) {
    std::printf("ERROR: the exact JVP disagrees with central differences\n");
  }
  if (!converged) {
    std::printf("ERROR: Newton did not converge in some stage\n");
  }
  if (!states_agree) {
    std::printf("ERROR: the final states of the two runs differ\n");
  }
  if (ok) {
    std::printf("all checks passed\n");
  }
  return ok ? 0 : 1;
}
