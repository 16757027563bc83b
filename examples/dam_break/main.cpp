// SPDX-License-Identifier: MIT
// The 2D dam break of Martin & Moyce (1952) in a tank of Adami walls (wall_flows.hpp): a water
// column of width a = 1 and height 2a at rest in the corner of a tank 4a long, released at
// t = 0 under g = 9.81; Tait γ = 7, ρ₀ = 1000, c₀ = 10 sqrt(2g·2a), α = 0.02, δ-SPH δ = 0.1,
// no-slip walls (the artificial viscosity acts against Adami's extrapolated wall velocity). The
// surge front Z = x_front/a against T = t sqrt(2g/a) is compared with the experiment's table
// (Martin & Moyce Tables 2 and 6) up to Z = 3.
//   dam_break [--t-end T=3] [--tolerance X=0.05] [--out DIR] [--frames] [--hydrostatic 1]
//             particles-across...   (--hydrostatic 1: start at the hydrostatic density)
//   (default 40 particles across the column; several give a resolution study)
// With --out it writes DIR/front_<n>.csv, DIR/front.svg and DIR/height.svg (every resolution
// against the experiments), three particle snapshots per run, and with --frames a ParaView
// series. Exits non-zero when the finest run's
// largest relative front error up to Z = 3 exceeds the tolerance.
#include "../common/command_line.hpp"
#include "../wall_flows/wall_flows.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace wall_flows;

namespace {

using Options = example::CommandLine; // t_end in units of sqrt(a/(2g))

constexpr double column = 1, g = 9.81;
// Martin & Moyce 1952, Tables 2 and 6 (a = 2¼ in), up to Z = 4.11.
const std::vector<double> mm_t{0.41, 0.84, 1.19, 1.43, 1.63, 1.83, 1.98, 2.20,
                               2.32, 2.51, 2.65, 2.83, 2.98, 3.11, 3.33};
const std::vector<double> mm_z{1.11, 1.22, 1.44, 1.67, 1.89, 2.11, 2.33, 2.56,
                               2.78, 3.00, 3.22, 3.44, 3.67, 3.89, 4.11};
// Martin & Moyce 1952, Tables 2 and 6: the residual column height H* = y_max/(2a) against
// τ = t sqrt(g/a) = T/√2.
const std::vector<double> mm_tau{0.56, 0.77, 0.93, 1.08, 1.28, 1.46, 1.66, 1.84, 2.00,
                                 2.21, 2.45, 2.70, 3.06, 3.44, 4.20, 5.25, 7.40};
const std::vector<double> mm_height{0.94, 0.89, 0.83, 0.78, 0.72, 0.67, 0.61, 0.56, 0.50,
                                    0.44, 0.39, 0.33, 0.28, 0.22, 0.17, 0.11, 0.06};
// Koshizuka & Oka 1996 (column L × 2L).
const std::vector<double> ko_t{0.0, 0.381, 0.769, 1.153, 1.537, 1.935, 2.323, 2.719, 3.096};
const std::vector<double> ko_z{1.000, 1.111, 1.252, 1.505, 1.892, 2.241, 2.615, 3.003, 3.624};

struct Result {
  int across = 0;
  std::vector<double> t, z, tau, height;
  double worst = 0, worst_height = 0, steps_per_second = 0;
};

/// A simulated curve at time t, linearly interpolated between samples.
double at(const std::vector<double>& ts, const std::vector<double>& ys, double t) {
  for (std::size_t k = 1; k < ts.size(); ++k) {
    if (ts[k] >= t) {
      const double w = (t - ts[k - 1]) / (ts[k] - ts[k - 1]);
      return ys[k - 1] + w * (ys[k] - ys[k - 1]);
    }
  }
  return ys.back();
}

/// The particles at time T as an SVG scatter plot (fluid and walls).
void snapshot(const Options& o, const Case<exec::host>& c, int across, double t) {
  std::vector<double> fx, fy, wx, wy;
  for (std::int64_t i = 0; i < c.n; ++i) {
    const V2 x = c.state.x.data()[i];
    (i < c.start.fluid ? fx : wx).push_back(x[0]);
    (i < c.start.fluid ? fy : wy).push_back(x[1]);
  }
  char title[64], name[64];
  std::snprintf(title, sizeof title, "Dam break at T = %.2f", t);
  std::snprintf(name, sizeof name, "/snapshot_%d_T%.0f.svg", across, t);
  io::Plot plot(title, "x / a", "y / a");
  plot.points(wx, wy, "walls");
  plot.points(fx, fy, "fluid");
  plot.write_svg(o.out + name);
}

Result run(const Options& o, int across) {
  Setup setup = dam_break(across);
  setup.hydrostatic = o.options.at("hydrostatic") != 0;
  Case<exec::host> c{setup, exec::host{}};
  const std::int64_t fluid = c.start.fluid;
  const double time_unit = std::sqrt(column / (2 * g)); // T = t / time_unit
  const double t_end = o.t_end * time_unit;
  const int samples = 60;
  const std::int64_t per_sample =
      std::max<std::int64_t>(1, std::int64_t(std::ceil(t_end / samples / setup.dt())));
  const std::int64_t steps = per_sample * samples;
  const double dt = t_end / double(steps);
  std::printf("Dam break: %d particles across the column, %lld fluid + %lld wall particles, "
              "dt = %.3e s, %lld steps to T = %.2f\n",
              across, static_cast<long long>(fluid), static_cast<long long>(c.n - fluid), dt,
              static_cast<long long>(steps), o.t_end);
  std::unique_ptr<io::PvdSeries> series;
  if (o.frames && !o.out.empty()) {
    series = std::make_unique<io::PvdSeries>(o.out, "dam_break_" + std::to_string(across));
  }
  const auto write_frame = [&](double t) {
    if (series) {
      io::VtuFrame frame(Span<const V2>{c.state.x.data(), c.n});
      frame.add("velocity", Span<const V2>{c.state.v.data(), c.n});
      frame.add("density", Span<const double>{c.state.rho.data(), c.n});
      frame.add("kind", Span<const std::int32_t>{c.kinds.data(), c.n});
      series->write(t, frame);
    }
  };
  write_frame(0);
  Result r;
  r.across = across;
  r.t.push_back(0);
  r.z.push_back(1);
  r.tau.push_back(0);
  r.height.push_back(1);
  const Step<exec::host> step = c.step(dt);
  io::Progress progress(steps, t_end, {true, 5.0, stderr});
  const auto started = std::chrono::steady_clock::now();
  for (int s = 1; s <= samples; ++s) {
    sim::rollout(c.exec, per_sample, c.state, c.params, step, (s - 1) * per_sample);
    const double t = double(s * per_sample) * dt;
    double front = 0, top = 0;
    for (std::int64_t i = 0; i < fluid; ++i) {
      front = std::max(front, c.state.x.data()[i][0]);
      top = std::max(top, c.state.x.data()[i][1]);
    }
    r.t.push_back(t / time_unit);
    r.z.push_back(front / column);
    r.tau.push_back(r.t.back() / std::sqrt(2.0));
    r.height.push_back(top / (2 * column));
    progress.update(s * per_sample, t);
    if (s % 5 == 0) {
      write_frame(t);
    }
    if (!o.out.empty() && s % (samples / 3) == 0) {
      snapshot(o, c, across, t / time_unit);
    }
  }
  progress.finish();
  r.steps_per_second =
      double(steps) /
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("%8s %10s %10s %12s\n", "T", "Z (MM)", "Z (SPH)", "rel. error");
  for (std::size_t k = 0; k < mm_t.size() && mm_z[k] <= 3 + 1e-9; ++k) {
    if (mm_t[k] > o.t_end) {
      break;
    }
    const double z = at(r.t, r.z, mm_t[k]);
    const double error = std::abs(z - mm_z[k]) / mm_z[k];
    r.worst = std::max(r.worst, error);
    std::printf("%8.2f %10.2f %10.3f %12.3e\n", mm_t[k], mm_z[k], z, error);
  }
  std::printf("%8s %10s %10s %12s\n", "tau", "H* (MM)", "H* (SPH)", "rel. error");
  for (std::size_t k = 0; k < mm_tau.size() && mm_tau[k] <= r.tau.back(); ++k) {
    const double h = at(r.tau, r.height, mm_tau[k]);
    const double error = std::abs(h - mm_height[k]) / mm_height[k];
    r.worst_height = std::max(r.worst_height, error);
    std::printf("%8.2f %10.2f %10.3f %12.3e\n", mm_tau[k], mm_height[k], h, error);
  }
  std::printf("%d across: largest relative front error up to Z = 3: %.3e; of the column height: "
              "%.3e; %.1f steps/s (%lld rebuilds of the Verlet list)\n",
              across, r.worst, r.worst_height, r.steps_per_second,
              static_cast<long long>(step.cache->rebuilds()));
  if (!o.out.empty()) {
    io::write_csv(o.out + "/front_" + std::to_string(across) + ".csv", {"T", "Z", "tau", "H_star"},
                  {r.t, r.z, r.tau, r.height});
  }
  return r;
}

void plot(const Options& o, const std::vector<Result>& results) {
  io::Plot front("Dam break: surge front", "T = t sqrt(2g/a)", "Z = x / a");
  front.points(mm_t, mm_z, "Martin & Moyce 1952");
  front.points(ko_t, ko_z, "Koshizuka & Oka 1996");
  for (const Result& r : results) {
    front.line(r.t, r.z, "SPH, " + std::to_string(r.across) + " across");
  }
  front.write_svg(o.out + "/front.svg");
  io::Plot height("Dam break: residual column height", "tau = t sqrt(g/a)", "H* = y_max / (2a)");
  height.points(mm_tau, mm_height, "Martin & Moyce 1952");
  for (const Result& r : results) {
    height.line(r.tau, r.height, "SPH, " + std::to_string(r.across) + " across");
  }
  height.write_svg(o.out + "/height.svg");
}

} // namespace

int main(int argc, char** argv) {
  const Options o =
      example::parse_command_line(argc, argv, {3.0, 0.05, "", false, {{"hydrostatic", 0.0}}, {}});
  std::vector<int> across;
  for (const double r : o.resolutions) {
    across.push_back(int(r));
  }
  if (across.empty()) {
    across.push_back(40);
  }
  std::sort(across.begin(), across.end());
  std::vector<Result> results;
  for (const int n : across) {
    results.push_back(run(o, n));
  }
  if (!o.out.empty()) {
    plot(o, results);
  }
  return example::verdict(o, results.back().worst, "front error");
}
