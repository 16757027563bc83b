// SPDX-License-Identifier: MIT
// A check against another code: the Buchner dam break of pressure.cpp set up as TrixiParticles.jl
// set up its own WCSPH runs of it, which it keeps as reference data (H/40, H/80, H/320;
// docs/validation/dam_break/trixi_wcsph_P1.csv), and P1 read as that code reads it. The scheme
// is the same as pressure.cpp's (δ-SPH with Antuono's correction, δ = 0.1, α = 0.02 among the
// fluid, Adami walls, free slip, c₀ = 20 sqrt(gH)); what changes is what TrixiParticles chose:
// Wendland C² with support 3.5Δx (its smoothing length 1.75Δx), the linear equation of state
// (γ = 1), the hydrostatic start, four wall layers. Its reading of P1: 10 points on the line
// 0.5Δx from the right wall's face, from 0.151 to 0.16 m above the floor; at each, the
// Shepard-normalized interpolation over the fluid with twice the smoothing length (support 7Δx)
// of each particle's pressure clipped at 0, read as 0 where the walls' kernel-summed mass
// exceeds the fluid's; their mean. The time integrators differ (sphad's symplectic
// predictor–corrector at a quarter of the acoustic limit; TrixiParticles' five-stage
// Runge–Kutta at CFL 0.9) and are not matched.
// Reports, per resolution, the normalized L2 distance of sphad's reading (at TrixiParticles'
// sample times, every 0.02 s) to TrixiParticles' at the nearest resolution and at H/320, beside
// TrixiParticles' own distance between those two, over t sqrt(g/H) ∈ [2, 3.9] (the first impact,
// before the air cavity under the plunging wave closes) and [2, 5.7]; both codes' distance to
// Marrone et al.'s H/320; means over windows. No gate: a comparison that reports.
//   dam_break_trixi [--t-end T=6] [--every S=0.01] [--out DIR] particles-per-H...
//   (P1 read every S in t sqrt(g/H), rounded to divide 0.02 s; with --out, DIR/trixi_<n>.csv)
// The data are read from SPHAD_VALIDATION_DATA (environment; default the source tree's
// docs/validation/dam_break).
#include "curves.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace wall_flows;
using namespace dam_break;

namespace {

using Options = example::CommandLine; // t_end in units of sqrt(H/g)
using Wendland2 = kernels::Wendland2;

constexpr double reference_interval = 0.02; ///< TrixiParticles' sampling, in s
constexpr double first_impact_end = 3.9, l2_end = 5.7;

/// `marrone_dam_break` with TrixiParticles' choices (the kernel is the run's `Wendland2`).
Setup trixi_dam_break(int per_height) {
  Setup s = marrone_dam_break(per_height);
  s.h_over_dx = 3.5;
  s.gamma = 1;
  s.hydrostatic = true;
  return s;
}

/// P1 read as TrixiParticles' validation reads it (above), in pascals.
double trixi_reading(const Case<exec::host, Wendland2>& c) {
  const Setup& s = c.setup;
  const V2* x = c.state.x.data(); // host memory: read in place
  const double* rho = c.state.rho.data();
  const auto eos = s.eos();
  const double support = 2 * s.h_over_dx * s.dx, wall_x = s.tank_upper[0] - 0.5 * s.dx;
  constexpr int points = 10;
  constexpr double top = 0.16, height = 0.009;
  double sum = 0;
  for (int k = 0; k < points; ++k) {
    const V2 at{wall_x, top - height * k / (points - 1)};
    double pressure = 0, shepard = 0, fluid_mass = 0, wall_mass = 0;
    for (std::int64_t i = 0; i < c.n; ++i) {
      const double q = norm(x[i] - at) / support;
      if (q >= 1) {
        continue;
      }
      const double w = Wendland2::k<2>(q), m = c.start.m[i];
      if (i < c.start.fluid) {
        const double volume = m / rho[i];
        fluid_mass += m * w;
        shepard += volume * w;
        pressure += volume * w * std::max(0.0, eos.pressure(rho[i]));
      } else {
        wall_mass += m * w;
      }
    }
    if (wall_mass <= fluid_mass && shepard > 0) {
      sum += pressure / shepard;
    }
  }
  return sum / points;
}

struct Reference {
  std::vector<double> t;              ///< in sqrt(H/g)
  std::vector<std::vector<double>> p; ///< h40, h80, h320, in ρ₀gH
  std::vector<std::string> names{"h40", "h80", "h320"};
  std::vector<double> marrone_t, marrone; ///< Marrone et al.'s H/320
};

/// Means over windows of t sqrt(g/H), printed in a row.
void print_windows(const char* name, const std::vector<double>& t, const std::vector<double>& p) {
  std::printf("  %-34s", name);
  for (const auto& [a, b] :
       std::vector<std::pair<double, double>>{{2.5, 3}, {3, 3.5}, {3.5, 4.5}, {4.5, 5.5}}) {
    std::printf(" %6.3f", mean(t, p, a, b));
  }
  std::printf("\n");
}

void run(const Options& o, const Reference& ref, int per_height) {
  const Setup setup = trixi_dam_break(per_height);
  Case<exec::host, Wendland2> c{setup, exec::host{}};
  const Units units(setup);
  const double period = reference_interval / units.time;
  const double every = period / std::max(1.0, std::round(period / o.options.at("every")));
  const Sampling sampling(setup, units.time, o.t_end, every);
  std::printf("Dam break as TrixiParticles.jl sets it up: %d particles per H, %lld fluid + %lld "
              "wall particles, dt = %.3e s, P1 read every %.5f in t sqrt(g/H)\n",
              per_height, static_cast<long long>(c.start.fluid),
              static_cast<long long>(c.n - c.start.fluid), sampling.dt, every);
  const Step<exec::host, Wendland2> step = c.step(sampling.dt);
  std::vector<double> t, p1;
  const double speed = sampled_run(c, step, sampling.per_sample, sampling.samples, units.time, t,
                                   [&] { p1.push_back(trixi_reading(c) / units.pressure); });
  // sphad's reading at TrixiParticles' sample times.
  std::vector<double> ts, ps;
  for (std::size_t k = 0; k < t.size(); k += std::size_t(std::lround(period / every))) {
    ts.push_back(t[k]);
    ps.push_back(p1[k]);
  }
  const std::size_t same = per_height <= 56 ? 0 : per_height <= 180 ? 1 : 2;
  const auto& near = ref.p[same];
  const auto& finest = ref.p[2];
  const double end = std::min(l2_end, ts.back());
  for (const double to : {first_impact_end, end}) {
    if (!(to > 2)) {
      continue;
    }
    std::printf("over [2, %.1f]: L2 distance of sphad to TrixiParticles %s %.3f, to its h320 "
                "%.3f (TrixiParticles %s to its h320: %.3f); to Marrone et al. H/320: sphad "
                "%.3f, TrixiParticles %s %.3f\n",
                to, ref.names[same].c_str(), l2_distance(ts, ps, ref.t, near, 2, to),
                l2_distance(ts, ps, ref.t, finest, 2, to), ref.names[same].c_str(),
                l2_distance(ref.t, near, ref.t, finest, 2, to),
                l2_distance(ts, ps, ref.marrone_t, ref.marrone, 2, to), ref.names[same].c_str(),
                l2_distance(ref.t, near, ref.marrone_t, ref.marrone, 2, to));
  }
  std::printf("means of P1 over [2.5, 3], [3, 3.5], [3.5, 4.5], [4.5, 5.5]:\n");
  print_windows(("sphad, " + std::to_string(per_height) + " per H").c_str(), ts, ps);
  for (std::size_t k = 0; k < ref.p.size(); ++k) {
    print_windows(("TrixiParticles " + ref.names[k]).c_str(), ref.t, ref.p[k]);
  }
  std::printf("%d per H: %.1f steps/s\n", per_height, speed);
  if (!o.out.empty()) {
    io::write_csv(o.out + "/trixi_" + std::to_string(per_height) + ".csv",
                  {"t_sqrt_g_over_H", "P1"}, {t, p1});
  }
}

} // namespace

int main(int argc, char** argv) {
  const Options o =
      example::parse_command_line(argc, argv, {6.0, 0.0, "", false, {{"every", 0.01}}, {}});
  const std::string data_dir = data_directory();
  const Table trixi = read_table(data_dir + "/trixi_wcsph_P1.csv");
  const Table marrone = read_table(data_dir + "/marrone_2011_P1.csv");
  const Units units(trixi_dam_break(40)); // (of any resolution)
  Reference ref;
  for (const double t : trixi["time"]) {
    ref.t.push_back(t / units.time);
  }
  for (const auto& name : ref.names) {
    ref.p.emplace_back();
    for (const double p : trixi[name]) {
      ref.p.back().push_back(p / units.pressure);
    }
  }
  ref.marrone_t = marrone["time"];
  ref.marrone = marrone["h320"];
  for (const int n : example::particle_counts(o, 40)) {
    run(o, ref, n);
  }
  return 0;
}
