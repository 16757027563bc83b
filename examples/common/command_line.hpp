// SPDX-License-Identifier: MIT
// The command line the validation examples share:
//   [--t-end T] [--tolerance X] [--out DIR] [--frames] [--<option> value ...] resolution...
// and their verdict: the finest run's error against the tolerance (0: report only); the
// positional resolutions as whole particle counts; a sampled curve read between its samples.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace example {

struct CommandLine {
  double t_end = 1, tolerance = 0.01;
  std::string out; ///< where CSV and plots go (empty: nowhere)
  bool frames = false;
  std::map<std::string, double> options; ///< the example's own numeric options, by name
  std::vector<double> resolutions;       ///< the positional arguments
};

/// Parses argv over `defaults` (whose `options` name the numeric options the example accepts,
/// with their defaults); exits with status 2 on an option without its value or an unknown one.
inline CommandLine parse_command_line(int argc, char** argv, CommandLine defaults) {
  CommandLine c = std::move(defaults);
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const auto value = [&] {
      if (a + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return std::string(argv[++a]);
    };
    if (arg == "--t-end") {
      c.t_end = std::atof(value().c_str());
    } else if (arg == "--tolerance") {
      c.tolerance = std::atof(value().c_str());
    } else if (arg == "--out") {
      c.out = value();
    } else if (arg == "--frames") {
      c.frames = true;
    } else if (arg.rfind("--", 0) == 0) {
      const auto known = c.options.find(arg.substr(2));
      if (known == c.options.end()) {
        std::fprintf(stderr, "unknown option %s\n", arg.c_str());
        std::exit(2);
      }
      known->second = std::atof(value().c_str());
    } else {
      c.resolutions.push_back(std::atof(arg.c_str()));
    }
  }
  return c;
}

/// The positional resolutions as whole particle counts, ascending (`fallback` when none given).
inline std::vector<int> particle_counts(const CommandLine& c, int fallback) {
  std::vector<int> counts;
  for (const double r : c.resolutions) {
    counts.push_back(int(r));
  }
  if (counts.empty()) {
    counts.push_back(fallback);
  }
  std::sort(counts.begin(), counts.end());
  return counts;
}

/// A curve sampled at ascending times `ts`, at time t: linear between samples, held at its ends.
inline double curve_at(const std::vector<double>& ts, const std::vector<double>& ys, double t) {
  if (t <= ts.front()) {
    return ys.front();
  }
  for (std::size_t k = 1; k < ts.size(); ++k) {
    if (ts[k] >= t) {
      const double w = (t - ts[k - 1]) / (ts[k] - ts[k - 1]);
      return ys[k - 1] + w * (ys[k] - ys[k - 1]);
    }
  }
  return ys.back();
}

/// 0 when the finest run's `error` is within the tolerance (or the tolerance is 0), else 1 with
/// a line naming `what`.
inline int verdict(const CommandLine& c, double error, const char* what) {
  if (c.tolerance > 0 && !(error <= c.tolerance)) {
    std::printf("FAILED: the finest run's %s %.3e exceeds %.3e\n", what, error, c.tolerance);
    return 1;
  }
  return 0;
}

} // namespace example
