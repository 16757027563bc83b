// SPDX-License-Identifier: MIT
// A water column at rest in a tank of Adami walls (wall_flows.hpp), after Adami et al. 2012 §6
// as PySPH sets it up: tank 2 × 1, depth H = 0.9, g = 1, ρ₀ = 1000, c₀ = 10 sqrt(gH), the
// linear equation of state (γ = 1), α = 0.24, gravity ramped up over t_damp = 1, run to t = 2.
// The bottom pressure is the weight of the column over the tank's width, ρ₀gH (the masses
// are ρ₀Δx²): the least-squares line of the fluid's pressures against height in the tank's
// middle half, evaluated at y = 0, is compared with it. No fluid particle may cross a wall.
//   hydrostatic_tank [--t-end T=2] [--tolerance X=0.01] [--out DIR] [--frames] spacing...
//   (default spacing 0.02; several spacings give a resolution study)
// With --out it writes DIR/profile_<n>.csv (the pressures of at most 1000 fluid particles against
// height, with ρ₀g(H − y)), DIR/profile.svg and DIR/bottom_pressure.svg (its history), and with
// --frames a ParaView series. Exits non-zero when the finest run's bottom-pressure error exceeds
// the tolerance or a particle left the tank.
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

using Options = example::CommandLine;

constexpr double depth = 0.9, width = 2;

struct Result {
  double dx = 0, error = 0, steps_per_second = 0;
  bool contained = true;
  std::vector<double> t, bottom;     // history of the fitted bottom pressure / ρ₀gH
  std::vector<double> y, p, p_exact; // final profile of the fluid
};

/// The least-squares line p = a + b y over the fluid particles with |x − W/2| < W/4, at y = 0.
double bottom_pressure(const std::vector<V2>& x, const std::vector<double>& p) {
  double n = 0, sy = 0, sp = 0, syy = 0, syp = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (std::abs(x[i][0] - 0.5 * width) < 0.25 * width) {
      n += 1;
      sy += x[i][1];
      sp += p[i];
      syy += x[i][1] * x[i][1];
      syp += x[i][1] * p[i];
    }
  }
  const double b = (n * syp - sy * sp) / (n * syy - sy * sy);
  return (sp - b * sy) / n;
}

/// Whether every fluid particle is inside the tank (above its floor, between its side walls).
bool inside(const std::vector<V2>& x) {
  return std::all_of(x.begin(), x.end(),
                     [](const V2& r) { return r[0] > 0 && r[0] < width && r[1] > 0; });
}

Result run(const Options& o, double dx) {
  const Setup setup = hydrostatic_tank(dx);
  Case<exec::host> c{setup, exec::host{}};
  const std::int64_t fluid = c.start.fluid;
  const int samples = 20;
  const std::int64_t per_sample =
      std::max<std::int64_t>(1, std::int64_t(std::ceil(o.t_end / samples / setup.dt())));
  const std::int64_t steps = per_sample * samples;
  const double dt = o.t_end / double(steps);
  const double target = setup.rho0 * setup.g * depth;
  std::printf("Hydrostatic tank: dx = %g, %lld fluid + %lld wall particles, dt = %.3e, %lld "
              "steps to t = %.2f\n",
              dx, static_cast<long long>(fluid), static_cast<long long>(c.n - fluid), dt,
              static_cast<long long>(steps), o.t_end);
  std::printf("%8s %16s %12s\n", "t", "p(0)/(rho0 g H)", "max |u|");
  std::unique_ptr<io::PvdSeries> series;
  const std::string tag = std::to_string(std::lround(1 / dx));
  if (o.frames && !o.out.empty()) {
    series = std::make_unique<io::PvdSeries>(o.out, "hydrostatic_tank_" + tag);
  }
  Result r;
  r.dx = dx;
  io::Progress progress(steps, o.t_end, {true, 5.0, stderr});
  const auto started = std::chrono::steady_clock::now();
  const Step<exec::host> step = c.step(dt);
  for (int s = 1; s <= samples; ++s) {
    sim::rollout(c.exec, per_sample, c.state, c.params, step, (s - 1) * per_sample);
    const double t = double(s * per_sample) * dt;
    const std::vector<V2> x(c.state.x.data(), c.state.x.data() + fluid);
    const auto p = fluid_pressures(c);
    double speed = 0;
    for (std::int64_t i = 0; i < fluid; ++i) {
      speed = std::max(speed, norm(c.state.v.data()[i]));
    }
    r.contained = r.contained && inside(x);
    r.t.push_back(t);
    r.bottom.push_back(bottom_pressure(x, p) / target);
    progress.update(s * per_sample, t);
    std::printf("%8.4f %16.6f %12.3e\n", t, r.bottom.back(), speed);
    if (series && s % 5 == 0) {
      io::VtuFrame frame(Span<const V2>{c.state.x.data(), c.n});
      frame.add("velocity", Span<const V2>{c.state.v.data(), c.n});
      frame.add("density", Span<const double>{c.state.rho.data(), c.n});
      frame.add("kind", Span<const std::int32_t>{c.kinds.data(), c.n});
      series->write(t, frame);
    }
    if (s == samples) { // every k-th particle, at most 1000 of them (the plots stay small)
      const std::int64_t stride = (fluid + 999) / 1000;
      for (std::int64_t i = 0; i < fluid; i += stride) {
        r.y.push_back(x[std::size_t(i)][1]);
        r.p.push_back(p[std::size_t(i)] / target);
        r.p_exact.push_back((depth - x[std::size_t(i)][1]) / depth);
      }
    }
  }
  progress.finish();
  r.steps_per_second =
      double(steps) /
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  r.error = std::abs(r.bottom.back() - 1);
  std::printf("dx = %g: bottom pressure %.5f rho0 g H (error %.3e), particles %s the tank; "
              "%.1f steps/s\n",
              dx, r.bottom.back(), r.error, r.contained ? "stayed in" : "LEFT", r.steps_per_second);
  if (!o.out.empty()) {
    io::write_csv(o.out + "/profile_" + tag + ".csv", {"y", "p_over_rho0gH", "linear"},
                  {r.y, r.p, r.p_exact});
  }
  return r;
}

void plot(const Options& o, const std::vector<Result>& results) {
  io::Plot profile("Hydrostatic tank at t = 2: fluid pressure", "y", "p / (rho0 g H)");
  std::vector<double> y{0, depth}, line{1, 0};
  profile.line(y, line, "rho0 g (H - y)");
  for (const Result& r : results) {
    char label[64];
    std::snprintf(label, sizeof label, "SPH, dx = %g", r.dx);
    profile.points(r.y, r.p, label);
  }
  profile.write_svg(o.out + "/profile.svg");
  io::Plot bottom("Hydrostatic tank: bottom pressure (fitted line at y = 0)", "t",
                  "p(0) / (rho0 g H)");
  for (const Result& r : results) {
    char label[64];
    std::snprintf(label, sizeof label, "dx = %g", r.dx);
    bottom.line(r.t, r.bottom, label);
  }
  bottom.write_svg(o.out + "/bottom_pressure.svg");
}

} // namespace

int main(int argc, char** argv) {
  const Options o = example::parse_command_line(argc, argv, {2.0, 0.01, "", false, {}, {}});
  std::vector<double> spacings = o.resolutions;
  if (spacings.empty()) {
    spacings.push_back(0.02);
  }
  std::sort(spacings.rbegin(), spacings.rend()); // coarsest first
  std::vector<Result> results;
  bool contained = true;
  for (const double dx : spacings) {
    results.push_back(run(o, dx));
    contained = contained && results.back().contained;
  }
  if (!o.out.empty()) {
    plot(o, results);
  }
  if (!contained) {
    std::printf("FAILED: a fluid particle crossed a wall\n");
    return 1;
  }
  return example::verdict(o, results.back().error, "bottom-pressure error");
}
