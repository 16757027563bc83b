// SPDX-License-Identifier: MIT
// Sampled curves for the dam-break pressure examples (pressure.cpp, trixi_check.cpp): CSV tables
// with a header line, a curve's rise through a level, its mean over a window, the normalized
// L2 distance between two curves, a moving mean; where the data lie; the case's units; and a
// run of `wall_flows::Case` read at even intervals of t sqrt(g/H).
#pragma once

#include "../common/command_line.hpp"
#include "../wall_flows/wall_flows.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef SPHAD_DAM_BREAK_DATA
#define SPHAD_DAM_BREAK_DATA "docs/validation/dam_break"
#endif

namespace dam_break {

/// The directory of the validation data: SPHAD_VALIDATION_DATA (environment), else the source
/// tree's docs/validation/dam_break.
inline std::string data_directory() {
  const char* dir = std::getenv("SPHAD_VALIDATION_DATA");
  return dir != nullptr ? dir : SPHAD_DAM_BREAK_DATA;
}

/// The units the data use: time sqrt(H/g), pressure ρ₀gH, H the height of the setup's column.
struct Units {
  double time = 1, pressure = 1;
  explicit Units(const wall_flows::Setup& s) {
    const double height = s.fluid_upper[1] - s.fluid_lower[1];
    time = std::sqrt(height / s.g);
    pressure = s.rho0 * s.g * height;
  }
};

/// Columns of a CSV file with a header line, by name.
struct Table {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;
  const std::vector<double>& operator[](const std::string& name) const {
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (names[k] == name) {
        return columns[k];
      }
    }
    throw std::runtime_error("no column " + name);
  }
};

inline Table read_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot read " + path +
                             " (set SPHAD_VALIDATION_DATA to docs/validation/dam_break)");
  }
  Table t;
  std::string line, field;
  while (std::getline(in, line) && line.rfind('#', 0) == 0) {
  } // the source's comment lines
  std::istringstream header(line);
  while (std::getline(header, field, ',')) {
    t.names.push_back(field);
  }
  t.columns.resize(t.names.size());
  while (std::getline(in, line)) {
    std::istringstream row(line);
    for (auto& column : t.columns) {
      std::getline(row, field, ',');
      column.push_back(std::atof(field.c_str()));
    }
  }
  return t;
}

using example::curve_at;

/// The first time the curve rises through `level` (linear between samples; NaN if never).
inline double
rise_time(const std::vector<double>& ts, const std::vector<double>& ys, double level) {
  for (std::size_t k = 1; k < ts.size(); ++k) {
    if (ys[k - 1] < level && ys[k] >= level) {
      return ts[k - 1] + (level - ys[k - 1]) / (ys[k] - ys[k - 1]) * (ts[k] - ts[k - 1]);
    }
  }
  return NAN;
}

constexpr int grid = 4000; ///< the points of the integrals below

/// The mean of the curve over [a, b] (trapezoids on a uniform grid).
inline double
mean(const std::vector<double>& ts, const std::vector<double>& ys, double a, double b) {
  double sum = 0;
  for (int k = 0; k <= grid; ++k) {
    sum += (k == 0 || k == grid ? 0.5 : 1.0) * curve_at(ts, ys, a + (b - a) * k / grid);
  }
  return sum / grid;
}

/// ‖y − r‖ / ‖r‖ in L2 over [a, b].
inline double l2_distance(const std::vector<double>& ts,
                          const std::vector<double>& ys,
                          const std::vector<double>& rt,
                          const std::vector<double>& rs,
                          double a,
                          double b) {
  double d = 0, r = 0;
  for (int k = 0; k <= grid; ++k) {
    const double t = a + (b - a) * k / grid, w = k == 0 || k == grid ? 0.5 : 1.0;
    const double ref = curve_at(rt, rs, t), e = curve_at(ts, ys, t) - ref;
    d += w * e * e;
    r += w * ref * ref;
  }
  return std::sqrt(d / r);
}

/// The moving mean of uniformly sampled ys over a window `width` wide centred on each sample.
inline std::vector<double>
moving_mean(const std::vector<double>& ts, const std::vector<double>& ys, double width) {
  std::vector<double> out(ys.size());
  for (std::size_t k = 0; k < ys.size(); ++k) {
    double sum = 0;
    int count = 0;
    for (std::size_t j = 0; j < ys.size(); ++j) {
      if (std::abs(ts[j] - ts[k]) <= width / 2 + 1e-9) {
        sum += ys[j];
        ++count;
      }
    }
    out[k] = sum / count;
  }
  return out;
}

/// A run of `c` to `t_end` (in sqrt(H/g), H the column's height) read every `every`:
/// `read()` at t = 0 and after each interval, the times (in sqrt(H/g)) in `t`. Δt is the
/// setup's, shortened to a whole number of steps per interval. Returns the steps per second.
template <class K, class Read>
double sampled_run(wall_flows::Case<sphad::exec::host, K>& c,
                   const wall_flows::Step<sphad::exec::host, K>& step,
                   std::int64_t per_sample,
                   int samples,
                   double time_unit,
                   std::vector<double>& t,
                   Read&& read) {
  const double dt = step.k.dt;
  t.push_back(0);
  read();
  sphad::io::Progress progress(per_sample * samples, dt * double(per_sample * samples),
                               {true, 5.0, stderr});
  const auto started = std::chrono::steady_clock::now();
  for (int s = 1; s <= samples; ++s) {
    sphad::sim::rollout(c.exec, per_sample, c.state, c.params, step, (s - 1) * per_sample);
    t.push_back(double(s * per_sample) * dt / time_unit);
    read();
    progress.update(s * per_sample, double(s * per_sample) * dt);
  }
  progress.finish();
  return double(per_sample * samples) /
         std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

/// The step count per interval and the time step of a run to `t_end` read every `every` (both
/// in sqrt(H/g)): Δt no longer than the setup's, a whole number of steps per interval.
struct Sampling {
  int samples = 0;
  std::int64_t per_sample = 0;
  double dt = 0;
  Sampling(const wall_flows::Setup& setup, double time_unit, double t_end, double every)
      : samples(static_cast<int>(std::lround(t_end / every))) {
    const double end = t_end * time_unit;
    per_sample = std::max<std::int64_t>(1, std::int64_t(std::ceil(end / samples / setup.dt())));
    dt = end / double(per_sample * samples);
  }
};

} // namespace dam_break
