// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <utility>

#if defined(_WIN32)
#include <io.h>
#else
#include <unistd.h>
#endif

/// \file
/// \brief `Progress`: a one-line report of a time-stepping run — step, simulated time, steps
/// per second and the time left — printed at most once per interval.

namespace sphad::io {

/// Knobs of `Progress`.
struct ProgressOptions {
  bool enabled = true;           ///< false: print nothing at all
  double interval_seconds = 1.0; ///< the least wall-clock time between two printed lines
  std::FILE* stream = stderr;    ///< where the lines go
};

namespace detail {

/// Seconds on `std::chrono::steady_clock`, from its (arbitrary) epoch.
inline double steady_seconds() {
  using seconds = std::chrono::duration<double>;
  return std::chrono::duration_cast<seconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// A simulated time with 4 decimals (`0.2400`), in scientific notation (`1.2500e-06`) when
/// `scale`, the end time, is below 1e-3 or from 1e5 on, or `t` itself from 1e9 on; `nan`, `inf`
/// and `-inf` for a time that is not finite (a run that blew up says so).
inline std::string format_sim_time(double t, double scale) {
  if (std::isnan(t)) {
    return "nan";
  }
  if (std::isinf(t)) {
    return t > 0 ? "inf" : "-inf";
  }
  const double magnitude = std::abs(scale);
  const bool fixed =
      (magnitude == 0.0 || (magnitude >= 1e-3 && magnitude < 1e5)) && std::abs(t) < 1e9;
  char text[64];
  std::snprintf(text, sizeof text, fixed ? "%.4f" : "%.4e", t);
  return text;
}

/// A wall-clock duration: `4.7 s` under a minute, `12 min 05 s` under an hour, `2 h 03 min`
/// (at most 10^9 hours); `--` when unknown (NaN, infinite or negative: a broken clock).
inline std::string format_duration(double seconds) {
  if (!(seconds >= 0.0) || !std::isfinite(seconds)) {
    return "--";
  }
  char text[64];
  if (seconds >= 60.0) {
    const auto whole = static_cast<long long>(std::llround(std::min(seconds, 3.6e12)));
    if (whole < 3600) {
      std::snprintf(text, sizeof text, "%lld min %02lld s", whole / 60, whole % 60);
    } else {
      std::snprintf(text, sizeof text, "%lld h %02lld min", whole / 3600, whole % 3600 / 60);
    }
  } else {
    std::snprintf(text, sizeof text, "%.1f s", seconds);
  }
  return text;
}

/// A rate in steps per second: one decimal (`812.3`), scientific from 1e9 on (`1.000e+18`), `--`
/// when unknown.
inline std::string format_rate(double rate) {
  if (!std::isfinite(rate)) {
    return "--";
  }
  char text[64];
  std::snprintf(text, sizeof text, std::abs(rate) < 1e9 ? "%.1f" : "%.3e", rate);
  return text;
}

/// Whether `stream` is a terminal.
inline bool is_terminal(std::FILE* stream) {
#if defined(_WIN32)
  return _isatty(_fileno(stream)) != 0;
#else
  return isatty(fileno(stream)) != 0;
#endif
}

} // namespace detail

/// Progress of a run of `total_steps` steps to the simulated time `t_end`:
/// `progress.update(step, t)` after each step prints, at most once per
/// `options.interval_seconds`, the line
/// `step 1200/5000  t = 0.2400/1.0000  812.3 steps/s  ETA 4.7 s`; `progress.finish()` prints
/// `done 5000 steps  t = 1.0000  in 6.2 s  806.5 steps/s` and a newline. Rates are means since
/// construction (`step` counts the steps done); the ETA is the steps left at that rate. A figure
/// that is unknown — no time has passed yet, or the clock gave NaN, ∞ or went backwards — prints
/// as `--`; a simulated time that is not finite as `nan`, `inf`, `-inf`. On a terminal each
/// line overwrites the last (`\r`), elsewhere (a log file) lines end with `\n`. The clock is
/// `std::chrono::steady_clock` unless another source of seconds is given (tests).
class Progress {
public:
  /// Starts the clock. Throws `sphad::InvalidArgument` when `total_steps` < 1, `t_end` is not
  /// finite, `options.interval_seconds` is negative, `options.stream` is null while enabled,
  /// or `seconds` is empty.
  Progress(std::int64_t total_steps,
           double t_end,
           ProgressOptions options = {},
           std::function<double()> seconds = detail::steady_seconds)
      : total_steps_(total_steps), t_end_(t_end), options_(options), seconds_(std::move(seconds)) {
    SPHAD_REQUIRE(total_steps >= 1, "io::Progress", "total_steps",
                  sphad::detail::concat("at least 1 (got ", total_steps, ")"));
    SPHAD_REQUIRE(std::isfinite(t_end), "io::Progress", "t_end",
                  sphad::detail::concat("not finite (got ", t_end, ")"));
    SPHAD_REQUIRE(options.interval_seconds >= 0.0, "io::Progress", "options.interval_seconds",
                  sphad::detail::concat("negative or NaN (got ", options.interval_seconds, ")"));
    SPHAD_REQUIRE(!options.enabled || options.stream != nullptr, "io::Progress", "options.stream",
                  "null while enabled");
    SPHAD_REQUIRE(bool(seconds_), "io::Progress", "seconds", "an empty function");
    start_ = seconds_();
    last_print_ = start_;
    terminal_ = options_.enabled && detail::is_terminal(options_.stream);
  }

  /// Records that `step` steps are done and the simulated time is `time`; prints a line when
  /// `options.interval_seconds` have passed since the last one (or the start).
  void update(std::int64_t step, double time) {
    step_ = step;
    time_ = time;
    if (!options_.enabled || finished_) {
      return;
    }
    const double now = seconds_();
    if (now - last_print_ < options_.interval_seconds) {
      return;
    }
    last_print_ = now;
    const double rate = rate_at(now);
    // The steps left in double: the difference of two int64 may overflow.
    const std::string eta =
        step >= total_steps_ ? detail::format_duration(0.0)
        : rate > 0.0         ? detail::format_duration((double(total_steps_) - double(step)) / rate)
                             : std::string("--");
    char text[256];
    std::snprintf(text, sizeof text, "step %lld/%lld  t = %s/%s  %s steps/s  ETA %s",
                  static_cast<long long>(step), static_cast<long long>(total_steps_),
                  detail::format_sim_time(time, t_end_).c_str(),
                  detail::format_sim_time(t_end_, t_end_).c_str(),
                  detail::format_rate(rate).c_str(), eta.c_str());
    print(text, false);
  }

  /// Prints the closing line (steps done, final time, wall-clock time, mean steps per second)
  /// and a newline; later calls, and `update`s after it, print nothing.
  void finish() {
    if (!options_.enabled || finished_) {
      return;
    }
    finished_ = true;
    const double now = seconds_();
    char text[256];
    std::snprintf(text, sizeof text, "done %lld steps  t = %s  in %s  %s steps/s",
                  static_cast<long long>(step_), detail::format_sim_time(time_, t_end_).c_str(),
                  detail::format_duration(now - start_).c_str(),
                  detail::format_rate(rate_at(now)).c_str());
    print(text, true);
  }

private:
  // NaN (unknown) unless a finite, positive time has passed.
  double rate_at(double now) const {
    const double elapsed = now - start_;
    return elapsed > 0.0 && std::isfinite(elapsed) ? double(step_) / elapsed
                                                   : std::numeric_limits<double>::quiet_NaN();
  }

  // A terminal's line is rewritten in place, padded over the longer line it replaces.
  void print(const std::string& line, bool last) {
    if (terminal_) {
      const std::size_t pad = width_ > line.size() ? width_ - line.size() : 0;
      std::fprintf(options_.stream, "\r%s%*s%s", line.c_str(), static_cast<int>(pad), "",
                   last ? "\n" : "");
      width_ = last ? 0 : line.size();
    } else {
      std::fprintf(options_.stream, "%s\n", line.c_str());
    }
    std::fflush(options_.stream);
  }

  std::int64_t total_steps_;
  double t_end_;
  ProgressOptions options_;
  std::function<double()> seconds_;
  double start_ = 0.0;
  double last_print_ = 0.0;
  std::int64_t step_ = 0;
  double time_ = 0.0;
  std::size_t width_ = 0;
  bool terminal_ = false;
  bool finished_ = false;
};

} // namespace sphad::io
