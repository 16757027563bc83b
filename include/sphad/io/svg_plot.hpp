// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/io/detail/axis.hpp>
#include <sphad/io/detail/output.hpp>
#include <sphad/span.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

/// \file
/// \brief `Plot`: line and scatter plots written as self-contained SVG files (no dependency,
/// no script): axes with 1-2-5 or decade ticks, axis titles, a title and a legend.

namespace sphad::io {

/// A 2D plot of line and point series, written as an 800×500 SVG document:
/// `Plot p("Kinetic energy decay", "t", "E/E0"); p.line(t, e_exact, "analytic");
/// p.points(t, e_sph, "SPH"); p.log_y(); p.write_svg("decay.svg");`. Each series gets its own
/// colour (ten, then repeated) and a legend entry; linear axes carry about 5 ticks at 1-2-5
/// steps, logarithmic ones decade ticks. Any finite data draws: a range of one value, or one
/// narrower than a millionth of its magnitude, widens around it; ranges reach ±DBL_MAX. Text is
/// escaped for XML; labels may be UTF-8 (bytes XML cannot carry become U+FFFD).
class Plot {
public:
  /// An empty plot with a title and the axes' titles.
  Plot(std::string title, std::string x_label, std::string y_label)
      : title_(std::move(title)), x_label_(std::move(x_label)), y_label_(std::move(y_label)) {}

  /// Adds a series drawn as a line through (xs[i], ys[i]), in order. Throws
  /// `sphad::InvalidArgument` when the lengths differ or a value is not finite.
  Plot& line(Span<const double> xs, Span<const double> ys, std::string label) {
    return add(xs, ys, std::move(label), true, "io::Plot::line");
  }
  /// Adds a series drawn as a dot at each (xs[i], ys[i]); throws as `line`.
  Plot& points(Span<const double> xs, Span<const double> ys, std::string label) {
    return add(xs, ys, std::move(label), false, "io::Plot::points");
  }
  /// A logarithmic x axis (every x must then be positive).
  Plot& log_x(bool on = true) {
    log_x_ = on;
    return *this;
  }
  /// A logarithmic y axis (every y must then be positive).
  Plot& log_y(bool on = true) {
    log_y_ = on;
    return *this;
  }

  /// The SVG document. Throws `sphad::InvalidArgument` naming `xs` or `ys` when a value on a
  /// logarithmic axis is not positive.
  std::string svg() const { return render("io::Plot::svg"); }

  /// Writes the SVG document to `path`, through `<path>.partial` renamed over it (a failed write
  /// leaves `path` as it was). Throws as `svg` (writing nothing); `sphad::InvalidArgument`
  /// naming `path` when the file cannot be opened, `std::runtime_error` when writing fails.
  void write_svg(const std::filesystem::path& path) const {
    const std::string text = render("io::Plot::write_svg");
    detail::write_file(path, "io::Plot::write_svg", [&](std::ofstream& out) { out << text; });
  }

private:
  struct Series {
    std::vector<double> xs, ys;
    std::string label;
    bool line;
  };

  // The plot area, in pixels (the markup spells the same numbers): x from 80 to 610, y from 50
  // to 430; the legend starts at x = 625.
  static constexpr double area_left = 80, area_right = 610, area_top = 50, area_bottom = 430;

  Plot& add(Span<const double> xs,
            Span<const double> ys,
            std::string label,
            bool line,
            const char* function) {
    SPHAD_REQUIRE(
        xs.size() == ys.size(), function, "ys",
        sphad::detail::concat("one value per x (got ", ys.size(), ", expected ", xs.size(), ")"));
    for (std::int64_t i = 0; i < xs.size(); ++i) {
      SPHAD_REQUIRE(std::isfinite(xs[i]), function, "xs",
                    sphad::detail::concat("not finite at ", i, " (got ", xs[i], ")"));
      SPHAD_REQUIRE(std::isfinite(ys[i]), function, "ys",
                    sphad::detail::concat("not finite at ", i, " (got ", ys[i], ")"));
    }
    series_.push_back({std::vector<double>(xs.data(), xs.data() + xs.size()),
                       std::vector<double>(ys.data(), ys.data() + ys.size()), std::move(label),
                       line});
    return *this;
  }

  // The ticks of one axis over every series' values (`ys` when `y`).
  detail::Ticks axis(bool y, bool log, const char* function) const {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (const auto& s : series_) {
      const auto& values = y ? s.ys : s.xs;
      for (std::size_t i = 0; i < values.size(); ++i) {
        SPHAD_REQUIRE(!log || values[i] > 0.0, function, y ? "ys" : "xs",
                      sphad::detail::concat("series `", s.label, "`: not positive at ", i,
                                            " on a logarithmic axis (got ", values[i], ")"));
        lo = std::min(lo, values[i]);
        hi = std::max(hi, values[i]);
      }
    }
    if (lo > hi) {
      lo = log ? 1.0 : 0.0;
      hi = log ? 10.0 : 1.0;
    }
    return log ? detail::decade_ticks(lo, hi) : detail::linear_ticks(lo, hi);
  }

  std::string render(const char* function) const {
    static const char* const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    using detail::svg_number;
    using detail::xml_escape;
    const detail::Ticks xt = axis(false, log_x_, function);
    const detail::Ticks yt = axis(true, log_y_, function);
    const auto px = [&](double x) {
      return area_left + detail::axis_fraction(x, xt, log_x_) * (area_right - area_left);
    };
    const auto py = [&](double y) {
      return area_bottom - detail::axis_fraction(y, yt, log_y_) * (area_bottom - area_top);
    };

    std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"500\" "
                    "viewBox=\"0 0 800 500\" font-family=\"sans-serif\" font-size=\"12\">\n"
                    "<rect width=\"800\" height=\"500\" fill=\"white\"/>\n";
    // The clip leaves a dot's radius around the plot area: dots on its edges stay whole.
    s += "<defs><clipPath id=\"plot-area\"><rect x=\"76\" y=\"46\" width=\"538\" "
         "height=\"388\"/></clipPath></defs>\n";
    s += "<text x=\"345\" y=\"30\" text-anchor=\"middle\" font-size=\"16\">" + xml_escape(title_) +
         "</text>\n";
    // Grid lines, tick marks and tick labels.
    for (std::size_t i = 0; i < xt.values.size(); ++i) {
      const std::string x = svg_number(px(xt.values[i]));
      s += "<line x1=\"" + x + "\" y1=\"50\" x2=\"" + x + "\" y2=\"430\" stroke=\"#e5e5e5\"/>\n";
      s += "<line x1=\"" + x + "\" y1=\"430\" x2=\"" + x + "\" y2=\"435\" stroke=\"black\"/>\n";
      s += "<text class=\"x-tick\" x=\"" + x + "\" y=\"450\" text-anchor=\"middle\">" +
           xt.labels[i] + "</text>\n";
    }
    for (std::size_t i = 0; i < yt.values.size(); ++i) {
      const std::string y = svg_number(py(yt.values[i]));
      s += "<line x1=\"80\" y1=\"" + y + "\" x2=\"610\" y2=\"" + y + "\" stroke=\"#e5e5e5\"/>\n";
      s += "<line x1=\"75\" y1=\"" + y + "\" x2=\"80\" y2=\"" + y + "\" stroke=\"black\"/>\n";
      s += "<text class=\"y-tick\" x=\"71\" y=\"" + y + "\" text-anchor=\"end\" dy=\"4\">" +
           yt.labels[i] + "</text>\n";
    }
    s += "<rect x=\"80\" y=\"50\" width=\"530\" height=\"380\" fill=\"none\" stroke=\"black\"/>\n";
    s += "<text x=\"345\" y=\"480\" text-anchor=\"middle\">" + xml_escape(x_label_) + "</text>\n";
    s += "<text x=\"20\" y=\"240\" text-anchor=\"middle\" transform=\"rotate(-90 20 240)\">" +
         xml_escape(y_label_) + "</text>\n";
    // The series, clipped to the plot area, then the legend.
    s += "<g clip-path=\"url(#plot-area)\">\n";
    for (std::size_t k = 0; k < series_.size(); ++k) {
      const Series& series = series_[k];
      const std::string colour = colours[k % 10];
      if (series.line) {
        s += "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"1.5\" points=\"";
        for (std::size_t i = 0; i < series.xs.size(); ++i) {
          s += (i == 0 ? "" : " ") + svg_number(px(series.xs[i])) + "," +
               svg_number(py(series.ys[i]));
        }
        s += "\"/>\n";
      } else {
        for (std::size_t i = 0; i < series.xs.size(); ++i) {
          s += "<circle cx=\"" + svg_number(px(series.xs[i])) + "\" cy=\"" +
               svg_number(py(series.ys[i])) + "\" r=\"3\" fill=\"" + colour + "\"/>\n";
        }
      }
    }
    s += "</g>\n";
    for (std::size_t k = 0; k < series_.size(); ++k) {
      const std::string colour = colours[k % 10];
      const std::string y = svg_number(area_top + 10 + 20 * double(k));
      if (series_[k].line) {
        s += "<line x1=\"625\" y1=\"" + y + "\" x2=\"655\" y2=\"" + y + "\" stroke=\"" + colour +
             "\" stroke-width=\"1.5\"/>\n";
      } else {
        s += "<circle cx=\"640\" cy=\"" + y + "\" r=\"3\" fill=\"" + colour + "\"/>\n";
      }
      s += "<text class=\"legend\" x=\"662\" y=\"" + y + "\" dy=\"4\">" +
           xml_escape(series_[k].label) + "</text>\n";
    }
    s += "</svg>\n";
    return s;
  }

  std::string title_, x_label_, y_label_;
  std::vector<Series> series_;
  bool log_x_ = false;
  bool log_y_ = false;
};

} // namespace sphad::io
