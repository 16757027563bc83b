// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

/// \file
/// \brief The axes of `io::Plot`: linear and decade ticks over any finite range, where a value
/// sits along an axis, and coordinates as SVG text.

namespace sphad::io::detail {

/// The ticks of one axis, and the range they span (the axis's extent).
struct Ticks {
  double lo = 0.0;
  double hi = 1.0;
  std::vector<double> values;
  std::vector<std::string> labels; ///< SVG text content (escaped)
};

/// About 5 ticks on [lo, hi] (finite, lo <= hi) at a step of 1, 2 or 5 times a power of ten; the
/// axis grows to the ticks around the data, as far as ±DBL_MAX. A single value widens by half its
/// magnitude each way (0 to [-0.5, 0.5]); a range narrower than a millionth of its magnitude, or
/// than 1e-300, widens to that around its middle: a quantity constant up to rounding plots as a
/// flat line, and labels need at most about 8 significant digits. At most 12 ticks.
inline Ticks linear_ticks(double lo, double hi) {
  constexpr double max = std::numeric_limits<double>::max();
  const double data_lo = lo;
  const double data_hi = hi;
  // Halves first: hi - lo overflows for data spanning ±DBL_MAX, their halves' difference cannot.
  const double magnitude = std::max(std::abs(lo), std::abs(hi));
  double half = 0.5 * hi - 0.5 * lo;
  if (!(hi > lo)) {
    half = magnitude == 0.0 ? 0.5 : 0.5 * magnitude;
  }
  half = std::max(half, std::max(0.5e-6 * magnitude, 0.5e-300));
  if (half > 0.5 * hi - 0.5 * lo) {
    const double middle = 0.5 * lo + 0.5 * hi;
    lo = std::max(middle - half, -max);
    hi = std::min(middle + half, max);
  }
  // raw in [2e-301, DBL_MAX / 2.5]: the exponent lies in [-301, 307], 10^|exponent| is finite.
  const double raw = (0.5 * hi - 0.5 * lo) / 2.5;
  const int exponent = int(std::floor(std::log10(raw)));
  const double fraction = raw / std::pow(10.0, exponent);
  const double nice = fraction < 1.5 ? 1.0 : fraction < 3.0 ? 2.0 : fraction < 7.0 ? 5.0 : 10.0;
  // k * nice / 10^e (not k * step) keeps decimal ticks exact: 3 * 2 / 10 is 0.6, 0.6000000000000001
  // is 3 * 0.2. |k| stays below 10^7 (the range is at least 1e-6 of its magnitude): k + 1 is exact.
  const double scale = std::pow(10.0, std::abs(exponent));
  const auto tick = [&](double k) { return exponent < 0 ? k * nice / scale : k * nice * scale; };
  const double step = tick(1.0);
  const double first = std::floor(lo / step + 1e-9) + 0.0; // + 0.0: no tick at -0
  const double last = std::ceil(hi / step - 1e-9);
  const int count = int(std::min(last - first, 11.0)) + 1;
  // Labels carry the digits that tell neighbouring ticks apart, 6 at least: the largest tick's
  // decimal exponent down to the step's.
  const double top = std::min(std::max(std::abs(tick(first)), std::abs(tick(last))), max);
  const int digits = std::clamp(int(std::floor(std::log10(top))) - exponent + 1, 6, 15);
  Ticks out;
  // Ticks beyond ±DBL_MAX are left out; the extent then stops there. The data stay inside it
  // even where the 1e-9 slack above moved an end tick past a value by an ulp.
  out.lo = std::min(std::max(tick(first), -max), data_lo);
  out.hi = std::max(std::min(tick(last), max), data_hi);
  for (int i = 0; i < count; ++i) {
    const double value = tick(first + double(i));
    if (!std::isfinite(value)) {
      continue;
    }
    char text[40];
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    out.values.push_back(value);
    out.labels.emplace_back(text);
  }
  return out;
}

/// Decade ticks 10^k covering [lo, hi] (0 < lo <= hi, finite), every decade up to 8 decades and
/// every n-th beyond; labels are `10` with the exponent as a superscript. The decades reach
/// from 10^-323 to 10^308 (the finite ones); data beyond them (denormals below 1e-323, values
/// above 1e308) stretch the extent to themselves.
inline Ticks decade_ticks(double lo, double hi) {
  lo = std::max(lo, std::numeric_limits<double>::denorm_min());
  hi = std::min(std::max(hi, lo), std::numeric_limits<double>::max());
  constexpr int lowest = -323;
  constexpr int highest = 308;
  int first = std::max(int(std::floor(std::log10(lo) + 1e-12)), lowest);
  const int last_decade = std::max(int(std::ceil(std::log10(hi) - 1e-12)), first + 1);
  int last = std::min(last_decade, highest);
  first = std::min(first, last - 1);
  const int stride = std::max(1, (last - first + 7) / 8);
  last = first + (last - first + stride - 1) / stride * stride;
  Ticks out;
  out.lo = std::min(std::pow(10.0, first), lo);
  out.hi = std::max(std::pow(10.0, std::min(last, highest)), hi);
  for (int k = first; k <= std::min(last, highest); k += stride) {
    out.values.push_back(std::pow(10.0, k));
    out.labels.push_back("10<tspan dy=\"-6\" font-size=\"9\">" + std::to_string(k) + "</tspan>");
  }
  return out;
}

/// Where `value` (in the extent of `ticks`) sits along the axis, from 0 at `ticks.lo` to 1 at
/// `ticks.hi`: linearly, or between the logarithms when `log`. Finite for an extent reaching
/// ±DBL_MAX, whose width overflows.
inline double axis_fraction(double value, const Ticks& ticks, bool log) {
  if (log) {
    const double lo = std::log10(ticks.lo);
    return (std::log10(value) - lo) / (std::log10(ticks.hi) - lo);
  }
  const double width = ticks.hi - ticks.lo;
  if (std::isfinite(width)) {
    return (value - ticks.lo) / width;
  }
  return (0.5 * value - 0.5 * ticks.lo) / (0.5 * ticks.hi - 0.5 * ticks.lo);
}

/// A coordinate with two decimals; beyond ±1e6 (far off the 800×500 canvas) clamped there.
inline std::string svg_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", std::clamp(value, -1e6, 1e6));
  return text;
}

} // namespace sphad::io::detail
