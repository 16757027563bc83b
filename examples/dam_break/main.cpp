// SPDX-License-Identifier: MIT
// The 2D dam break of Martin & Moyce (1952) in a tank of Adami walls (wall_flows.hpp): a water
// column of width a = 1 and height 2a at rest in the corner of a tank 4a long, released at
// t = 0 under g = 9.81; Tait γ = 7, ρ₀ = 1000, c₀ = 10 sqrt(2g·2a), α = 0.02, δ-SPH δ = 0.1,
// no-slip walls (the artificial viscosity acts against Adami's extrapolated wall velocity). The
// surge front Z = x_front/a against T = t sqrt(2g/a) is compared with the experiment's table
// (Martin & Moyce Tables 2 and 6) up to Z = 3.
//   dam_break [--t-end T=3] [--tolerance X=0.05] [--out DIR] [--frames] particles-across...
//   (default 40 particles across the column; several give a resolution study)
// With --out it writes DIR/front_<n>.csv and DIR/front.svg (every resolution against the
// experiments), and with --frames a ParaView series. Exits non-zero when the finest run's
// largest relative front error up to Z = 3 exceeds the tolerance.
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

struct Options {
  double t_end = 3, tolerance = 0.05; // t_end in units of sqrt(a/(2g))
  std::string out;
  bool frames = false;
  std::vector<int> across;
};

constexpr double column = 1, g = 9.81;
// Martin & Moyce 1952, Tables 2 and 6 (a = 2¼ in), up to Z = 4.11.
const std::vector<double> mm_t{0.41, 0.84, 1.19, 1.43, 1.63, 1.83, 1.98, 2.20,
                               2.32, 2.51, 2.65, 2.83, 2.98, 3.11, 3.33};
const std::vector<double> mm_z{1.11, 1.22, 1.44, 1.67, 1.89, 2.11, 2.33, 2.56,
                               2.78, 3.00, 3.22, 3.44, 3.67, 3.89, 4.11};
// Koshizuka & Oka 1996 (column L × 2L).
const std::vector<double> ko_t{0.0, 0.381, 0.769, 1.153, 1.537, 1.935, 2.323, 2.719, 3.096};
const std::vector<double> ko_z{1.000, 1.111, 1.252, 1.505, 1.892, 2.241, 2.615, 3.003, 3.624};

Setup dam(int across) {
  Setup s;
  s.dx = column / across;
  s.fluid_upper = {column, 2 * column};
  s.tank_upper = {4 * column, 3 * column};
  s.g = g;
  s.rho0 = 1000;
  s.max_speed = std::sqrt(2 * g * 2 * column);
  s.c0 = 10 * s.max_speed;
  s.gamma = 7;
  s.alpha = 0.02;
  s.delta = 0.1;
  s.clamp_walls = true;
  s.no_slip = true;
  return s;
}

struct Result {
  int across = 0;
  std::vector<double> t, z;
  double worst = 0, steps_per_second = 0;
};

/// The simulated front at time T, linearly interpolated between samples.
double front_at(const Result& r, double t) {
  for (std::size_t k = 1; k < r.t.size(); ++k) {
    if (r.t[k] >= t) {
      const double w = (t - r.t[k - 1]) / (r.t[k] - r.t[k - 1]);
      return r.z[k - 1] + w * (r.z[k] - r.z[k - 1]);
    }
  }
  return r.z.back();
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
  plot.points({wx.data(), std::int64_t(wx.size())}, {wy.data(), std::int64_t(wy.size())}, "walls");
  plot.points({fx.data(), std::int64_t(fx.size())}, {fy.data(), std::int64_t(fy.size())}, "fluid");
  plot.write_svg(o.out + name);
}

Result run(const Options& o, int across) {
  const Setup setup = dam(across);
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
  Step<exec::host> step = c.step(dt);
  io::Progress progress(steps, t_end, {true, 5.0, stderr});
  const auto started = std::chrono::steady_clock::now();
  for (int s = 1; s <= samples; ++s) {
    step.first_step = (s - 1) * per_sample;
    sim::rollout(c.exec, per_sample, c.state, c.params, step);
    const double t = double(s * per_sample) * dt;
    double front = 0;
    for (std::int64_t i = 0; i < fluid; ++i) {
      front = std::max(front, c.state.x.data()[i][0]);
    }
    r.t.push_back(t / time_unit);
    r.z.push_back(front / column);
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
    const double z = front_at(r, mm_t[k]);
    const double error = std::abs(z - mm_z[k]) / mm_z[k];
    r.worst = std::max(r.worst, error);
    std::printf("%8.2f %10.2f %10.3f %12.3e\n", mm_t[k], mm_z[k], z, error);
  }
  std::printf("%d across: largest relative front error up to Z = 3: %.3e; %.1f steps/s (%lld "
              "rebuilds of the Verlet list)\n",
              across, r.worst, r.steps_per_second, static_cast<long long>(step.cache->rebuilds()));
  if (!o.out.empty()) {
    io::write_csv(o.out + "/front_" + std::to_string(across) + ".csv", {"T", "Z"}, {r.t, r.z});
  }
  return r;
}

Span<const double> view(const std::vector<double>& v) {
  return {v.data(), std::int64_t(v.size())};
}

void plot(const Options& o, const std::vector<Result>& results) {
  io::Plot front("Dam break: surge front", "T = t sqrt(2g/a)", "Z = x / a");
  front.points(view(mm_t), view(mm_z), "Martin & Moyce 1952");
  front.points(view(ko_t), view(ko_z), "Koshizuka & Oka 1996");
  for (const Result& r : results) {
    front.line(view(r.t), view(r.z), "SPH, " + std::to_string(r.across) + " across");
  }
  front.write_svg(o.out + "/front.svg");
}

} // namespace

int main(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const auto value = [&](const char* name) {
      if (a + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", name);
        std::exit(2);
      }
      return argv[++a];
    };
    if (!std::strcmp(argv[a], "--t-end")) {
      o.t_end = std::atof(value("--t-end"));
    } else if (!std::strcmp(argv[a], "--tolerance")) {
      o.tolerance = std::atof(value("--tolerance"));
    } else if (!std::strcmp(argv[a], "--out")) {
      o.out = value("--out");
    } else if (!std::strcmp(argv[a], "--frames")) {
      o.frames = true;
    } else {
      o.across.push_back(std::atoi(argv[a]));
    }
  }
  if (o.across.empty()) {
    o.across.push_back(40);
  }
  std::sort(o.across.begin(), o.across.end());
  std::vector<Result> results;
  for (const int n : o.across) {
    results.push_back(run(o, n));
  }
  if (!o.out.empty()) {
    plot(o, results);
  }
  const double finest = results.back().worst;
  if (o.tolerance > 0 && !(finest <= o.tolerance)) {
    std::printf("FAILED: the finest run's front error %.3e exceeds %.3e\n", finest, o.tolerance);
    return 1;
  }
  return 0;
}
