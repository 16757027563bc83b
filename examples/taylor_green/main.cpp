// SPDX-License-Identifier: MIT
// The Taylor–Green vortex (taylor_green.hpp) run on the host at one or more resolutions:
// kinetic-energy decay against the analytic e^{2bt}, sampled 20 times per run.
//   taylor_green [--t-end T=1] [--tolerance X=0.01] [--out DIR] [--shift A=2] [--clumping R=1]
//                [--support H=3 (h/Δx)] [--re RE=100]
//                [--frames] side...            (default side: 50)
// With --out it writes DIR/energy_<side>.csv, DIR/energy.svg (every resolution against the
// analytic curve), DIR/error.svg (the relative error against t), DIR/convergence.svg (the largest
// error against the resolution) and, with
// --frames, a ParaView series DIR/taylor_green_<side>.pvd. Exits non-zero when the largest
// relative energy error of the finest run exceeds the tolerance (0: report only).
#include "../common/command_line.hpp"
#include "taylor_green.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace tgv;

namespace {

using Options = example::CommandLine;

struct Curve {
  int side = 0;
  std::vector<double> t, ratio, exact, error;
  double worst = 0, steps_per_second = 0;
};

Curve run(const Options& o, int side) {
  Setup setup;
  setup.side = side;
  setup.shift = o.options.at("shift");
  setup.clumping = o.options.at("clumping");
  setup.h_over_dx = o.options.at("support");
  setup.re = o.options.at("re");
  const int samples = 20;
  Case<exec::host> c{setup, exec::host{}};
  const std::int64_t n = c.n;
  const std::int64_t per_sample =
      std::max<std::int64_t>(1, std::int64_t(std::ceil(o.t_end / samples / setup.dt())));
  const std::int64_t steps = per_sample * samples;
  const double dt = o.t_end / double(steps);
  const Step<exec::host> step = c.step(dt);
  std::printf("Taylor-Green vortex, Re = %.0f: %d x %d particles, A = %g, R = %g, dt = %.3e, "
              "%lld steps to t = %.2f\n",
              setup.re, side, side, setup.shift, setup.clumping, dt, static_cast<long long>(steps),
              o.t_end);
  std::printf("%8s %14s %14s %12s\n", "t", "E/E0", "exp(2bt)", "rel. error");
  std::unique_ptr<io::PvdSeries> series;
  if (o.frames && !o.out.empty()) {
    series = std::make_unique<io::PvdSeries>(o.out, "taylor_green_" + std::to_string(side));
  }
  const auto write_frame = [&](double t) {
    if (series) {
      io::VtuFrame frame(Span<const V2>{c.state.x.data(), n});
      frame.add("velocity", Span<const V2>{c.state.v.data(), n});
      frame.add("density", Span<const double>{c.state.rho.data(), n});
      series->write(t, frame);
    }
  };
  write_frame(0);
  Curve curve{side, {0.0}, {1.0}, {1.0}, {0.0}};
  const double e0 = c.energy();
  io::Progress progress(steps, o.t_end, {true, 5.0, stderr});
  const auto started = std::chrono::steady_clock::now();
  for (int s = 1; s <= samples; ++s) {
    sim::rollout(c.exec, per_sample, c.state, c.params, step);
    const double t = double(s * per_sample) * dt;
    const double ratio = c.energy() / e0, exact = setup.energy_ratio(t);
    const double error = std::abs(ratio - exact) / exact;
    curve.worst = std::max(curve.worst, error);
    curve.t.push_back(t);
    curve.ratio.push_back(ratio);
    curve.exact.push_back(exact);
    curve.error.push_back(error);
    progress.update(s * per_sample, t);
    std::printf("%8.4f %14.8f %14.8f %12.3e\n", t, ratio, exact, error);
    if (s % 5 == 0) {
      write_frame(t);
    }
  }
  progress.finish();
  curve.steps_per_second =
      double(steps) /
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("%d x %d: largest relative energy error up to t = %.2f: %.3e; %.1f steps/s (%lld "
              "rebuilds of the Verlet list)\n",
              side, side, o.t_end, curve.worst, curve.steps_per_second,
              static_cast<long long>(step.cache->rebuilds()));
  if (!o.out.empty()) {
    io::write_csv(o.out + "/energy_" + std::to_string(side) + ".csv",
                  {"t", "E_over_E0", "analytic", "relative_error"},
                  {curve.t, curve.ratio, curve.exact, curve.error});
  }
  return curve;
}

void plot(const Options& o, const std::vector<Curve>& curves) {
  io::Plot energy("Taylor-Green vortex, Re = 100: kinetic energy", "t", "E / E0");
  std::vector<double> t, exact;
  for (int k = 0; k <= 200; ++k) {
    t.push_back(o.t_end * k / 200);
    exact.push_back(std::exp(-16 * pi_v<double> * pi_v<double> * 0.01 * t.back()));
  }
  energy.line(t, exact, "exp(-16 pi^2 nu t)");
  for (const Curve& c : curves) {
    energy.points(c.t, c.ratio, "SPH " + std::to_string(c.side) + " x " + std::to_string(c.side));
  }
  energy.write_svg(o.out + "/energy.svg");
  io::Plot error("Taylor-Green vortex, Re = 100: relative energy error", "t",
                 "|E/E0 - exp(2bt)| / exp(2bt)");
  for (const Curve& c : curves) {
    error.line(c.t, c.error, std::to_string(c.side) + " x " + std::to_string(c.side));
  }
  error.write_svg(o.out + "/error.svg");
  if (curves.size() > 1) {
    std::vector<double> sides, worst;
    for (const Curve& c : curves) {
      sides.push_back(c.side);
      worst.push_back(c.worst);
    }
    char title[96];
    std::snprintf(title, sizeof title, "Largest relative energy error up to t = %g", o.t_end);
    io::Plot convergence(title, "particles per side", "max |E/E0 - exp(2bt)| / exp(2bt)");
    convergence.log_x().log_y().line(sides, worst, "SPH, Re = 100");
    convergence.write_svg(o.out + "/convergence.svg");
  }
}

} // namespace

int main(int argc, char** argv) {
  const Options o = example::parse_command_line(
      argc, argv,
      {1.0,
       0.01,
       "",
       false,
       {{"shift", 2.0}, {"clumping", 1.0}, {"support", 3.0}, {"re", 100.0}},
       {}});
  const std::vector<int> sides = example::particle_counts(o, 50);
  std::vector<Curve> curves;
  for (const int side : sides) {
    curves.push_back(run(o, side));
  }
  if (!o.out.empty()) {
    plot(o, curves);
  }
  return example::verdict(o, curves.back().worst, "energy error");
}
