// SPDX-License-Identifier: MIT
// Fuzz target: the output layer over arbitrary data — io::Plot (line and point series of any
// finite values, ranges of a few ulps around any value, linear and logarithmic axes, a title,
// axis titles and labels of arbitrary bytes), io::VtuFrame and io::PvdSeries (positions and
// point arrays of every element type holding any bit pattern, names of arbitrary bytes, a time
// of any value), io::write_csv and io::CsvWriter (any values, header fields of arbitrary bytes).
// Checks: no crash, leak, hang or undefined behaviour; the SVG is well-formed XML whose
// coordinates are finite numbers, every data point inside the plot area, at most 12 ticks an
// axis; the .vtu decodes (support/vtu.hpp, independent of the writer) to the bits written and
// the names given; the .pvd is well-formed and lists each time to its bits; the CSV reads back
// (RFC 4180) to the header given, each finite value to its bits, each NaN as `nan`.
#include <sphad/io.hpp>

#include "fuzz_input.hpp"
#include "support/vtu.hpp"
#include "support/xml.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

using namespace sphad;
namespace fs = std::filesystem;

namespace {

/// A directory of this process's own, removed at exit.
struct Scratch {
  fs::path path = fs::temp_directory_path() / ("sphad_fuzz_output_" + std::to_string(getpid()));
  Scratch() { fs::create_directories(path); }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

const fs::path& scratch() {
  static const Scratch dir;
  return dir.path;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Up to `most` arbitrary bytes.
std::string text(fuzz::Bytes& in, int most) {
  std::string out;
  for (std::int64_t n = in.small(0, most); n > 0; --n) {
    out += char(in.byte());
  }
  return out;
}

/// A double: ordinary or hostile (fuzz::Bytes::real), any bit pattern, or a few ulps from `base`
/// (the degenerate ranges of a conserved quantity).
double value(fuzz::Bytes& in, double base) {
  switch (in.byte() % 4) {
  case 0:
    return in.real(-10.0, 10.0);
  case 1: {
    std::uint64_t bits = 0;
    for (int b = 0; b < 8; ++b) {
      bits |= std::uint64_t(in.byte()) << (8 * b);
    }
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  case 2: {
    double v = base;
    const std::int64_t ulps = in.small(-4, 4);
    for (std::int64_t k = 0; k < std::abs(ulps); ++k) {
      v = std::nextafter(v, ulps > 0 ? HUGE_VAL : -HUGE_VAL);
    }
    return v;
  }
  default:
    return base * (1.0 + 1e-9 * double(in.small(-8, 8)));
  }
}

template <class T>
bool same_bits(const std::vector<unsigned char>& bytes, const std::vector<T>& values) {
  return bytes.size() == values.size() * sizeof(T) &&
         (values.empty() || std::memcmp(bytes.data(), values.data(), bytes.size()) == 0);
}

// ---- Plot ----------------------------------------------------------------------------------

/// Whether `v` is a finite number written as SVG writes coordinates (no `nan`, `inf`, no
/// hundreds of digits).
bool finite_number(const std::string& token, double& v) {
  char* end = nullptr;
  v = std::strtod(token.c_str(), &end);
  return !token.empty() && *end == '\0' && std::isfinite(v) && token.size() <= 12;
}

void check_svg(const std::string& svg) {
  const test::XmlDocument doc = test::parse_xml(svg);
  if (!doc.problem.empty()) {
    fuzz::finding("the SVG is not well-formed XML");
  }
  static const char* const numeric[] = {"x",  "y",  "x1", "y1",    "x2",     "y2",
                                        "cx", "cy", "r",  "width", "height", "dy"};
  int clip_group = -1;
  int x_ticks = 0;
  int y_ticks = 0;
  for (std::size_t e = 0; e < doc.elements.size(); ++e) {
    const auto& element = doc.elements[e];
    if (element.name == "g" && element.attribute("clip-path") == "url(#plot-area)") {
      clip_group = int(e);
    }
    x_ticks += element.attribute("class") == "x-tick";
    y_ticks += element.attribute("class") == "y-tick";
    const bool data = clip_group >= 0 && element.parent == clip_group;
    for (const auto& [key, raw] : element.attributes) {
      bool is_numeric = key == "points";
      for (const char* n : numeric) {
        is_numeric = is_numeric || key == n;
      }
      if (!is_numeric) {
        continue;
      }
      std::string list = raw;
      for (char& c : list) {
        c = c == ',' ? ' ' : c;
      }
      std::size_t at = 0;
      for (int index = 0; at < list.size(); ++index) {
        const std::size_t end = std::min(list.find(' ', at), list.size());
        double v = 0;
        if (end > at && !finite_number(list.substr(at, end - at), v)) {
          fuzz::finding("an SVG number is not finite or not short");
        }
        // Every data point lies in the plot area: x in [80, 610], y in [50, 430].
        const bool is_x = key == "cx" || (key == "points" && index % 2 == 0);
        const bool is_y = key == "cy" || (key == "points" && index % 2 == 1);
        if (data && end > at &&
            ((is_x && (v < 79.99 || v > 610.01)) || (is_y && (v < 49.99 || v > 430.01)))) {
          fuzz::finding("a data point lies outside the plot area");
        }
        at = end + 1;
      }
    }
  }
  if (x_ticks > 12 || y_ticks > 12 || x_ticks < 2 || y_ticks < 2) {
    fuzz::finding("an axis has fewer than 2 or more than 12 ticks");
  }
}

void plot(fuzz::Bytes& in) {
  io::Plot plot(text(in, 12), text(in, 12), text(in, 12));
  const std::int64_t series = in.small(0, 4);
  for (std::int64_t s = 0; s < series; ++s) {
    const std::int64_t n = in.small(0, 24);
    const double x_base = value(in, 1.0);
    const double y_base = value(in, 1.0);
    std::vector<double> xs, ys;
    for (std::int64_t i = 0; i < n; ++i) {
      xs.push_back(value(in, x_base));
      ys.push_back(value(in, y_base));
    }
    const bool line = in.flag();
    const std::string label = text(in, 12);
    fuzz::accepts([&] { line ? plot.line(xs, ys, label) : plot.points(xs, ys, label); });
  }
  plot.log_x(in.flag()).log_y(in.flag());
  std::string svg;
  if (fuzz::accepts([&] { svg = plot.svg(); })) {
    check_svg(svg);
  }
}

// ---- VtuFrame and PvdSeries ----------------------------------------------------------------

/// The raw bytes of a scalar of type S from the input (any bit pattern).
template <class S>
S raw(fuzz::Bytes& in, double base) {
  if constexpr (std::is_floating_point_v<S>) {
    if (in.flag()) {
      const double v = value(in, base);
      // A finite double beyond the type's range has no value there (undefined behaviour):
      // its bits come from the input instead.
      if (!(std::abs(v) > double(std::numeric_limits<S>::max())) || std::isinf(v)) {
        return S(v);
      }
    }
  }
  std::uint64_t bits = 0;
  for (std::size_t b = 0; b < sizeof(S); ++b) {
    bits |= std::uint64_t(in.byte()) << (8 * b);
  }
  S v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

/// One frame's expected arrays (name, bytes as written: components padded to 3).
struct Expected {
  std::string name;
  std::string type;
  int components;
  std::vector<unsigned char> bytes;
};

template <class S>
void append(std::vector<unsigned char>& out, S v) {
  const auto* p = reinterpret_cast<const unsigned char*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

template <class S, int D>
void add_array(fuzz::Bytes& in,
               io::VtuFrame& frame,
               std::int64_t n,
               const char* type,
               std::vector<Expected>& expected) {
  std::vector<Vec<S, D>> values(std::size_t(n + (in.small(0, 7) == 0 ? 1 : 0))); // wrong size
  const double base = value(in, 1.0);
  Expected e{text(in, 8), type, D == 1 ? 1 : 3, {}};
  for (auto& v : values) {
    for (int a = 0; a < D; ++a) {
      v[a] = raw<S>(in, base);
      if (values.size() == std::size_t(n)) {
        append(e.bytes, v[a]);
      }
    }
    for (int a = D; a < 3 && D > 1; ++a) {
      append(e.bytes, S(0));
    }
  }
  const bool added = fuzz::accepts([&] {
    if constexpr (D == 1) {
      std::vector<S> scalars;
      for (const auto& v : values) {
        scalars.push_back(v[0]);
      }
      frame.add(e.name, scalars);
    } else {
      frame.add(e.name, values);
    }
  });
  if (added) {
    expected.push_back(std::move(e));
  }
}

template <class T, int D>
void frame_of(fuzz::Bytes& in) {
  const std::int64_t n = in.small(0, 12);
  const double base = value(in, 1.0);
  std::vector<Vec<T, D>> x(static_cast<std::size_t>(n));
  std::vector<unsigned char> x_bytes;
  for (auto& p : x) {
    for (int a = 0; a < 3; ++a) {
      if (a < D) {
        p[a] = raw<T>(in, base);
      }
      append(x_bytes, a < D ? p[a] : T(0));
    }
  }
  io::VtuFrame frame(x);
  std::vector<Expected> expected;
  for (std::int64_t k = in.small(0, 4); k > 0; --k) {
    switch (in.small(0, 5)) {
    case 0:
      add_array<double, 1>(in, frame, n, "Float64", expected);
      break;
    case 1:
      add_array<float, 1>(in, frame, n, "Float32", expected);
      break;
    case 2:
      add_array<std::int32_t, 1>(in, frame, n, "Int32", expected);
      break;
    case 3:
      add_array<std::int64_t, 1>(in, frame, n, "Int64", expected);
      break;
    case 4:
      add_array<double, 2>(in, frame, n, "Float64", expected);
      break;
    default:
      add_array<float, 3>(in, frame, n, "Float32", expected);
      break;
    }
  }

  fs::path path = scratch() / "frame.vtu";
  io::PvdSeries* series = nullptr;
  std::optional<io::PvdSeries> made;
  const double time = value(in, 0.0);
  if (in.flag()) {
    fuzz::accepts([&] { made.emplace(scratch() / "series", text(in, 8)); });
    series = made ? &*made : nullptr;
  }
  bool written = false;
  if (series != nullptr) {
    written = fuzz::accepts([&] { path = series->write(time, frame); });
    if (written != std::isfinite(time)) {
      fuzz::finding("PvdSeries::write accepted a time that is not finite, or refused one that is");
    }
  } else {
    written = fuzz::accepts([&] { frame.write(path); });
  }
  if (!written) {
    return;
  }
  const test::VtuFile file = test::read_vtu(read(path));
  if (!file.problem.empty()) {
    fuzz::finding("the .vtu does not decode");
  }
  if (file.points != n || file.cells != n || file.arrays.size() != expected.size() + 4) {
    fuzz::finding("the .vtu has other sizes or arrays than written");
  }
  const test::VtuArray* points = file.find("Points", "");
  if (points == nullptr || points->type != (sizeof(T) == 8 ? "Float64" : "Float32") ||
      points->bytes != x_bytes) {
    fuzz::finding("the positions do not read back to their bits");
  }
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const test::VtuArray& array = file.arrays[k];
    const bool name_kept =
        !test::xml_text_problem(expected[k].name).empty() || array.name == expected[k].name;
    if (array.section != "PointData" || !name_kept || array.type != expected[k].type ||
        array.components != expected[k].components || array.bytes != expected[k].bytes) {
      fuzz::finding("a point array does not read back to its name and bits");
    }
  }
  std::vector<std::int64_t> ids(static_cast<std::size_t>(n)), offsets(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    ids[std::size_t(i)] = i;
    offsets[std::size_t(i)] = i + 1;
  }
  const test::VtuArray* connectivity = file.find("Cells", "connectivity");
  const test::VtuArray* offset = file.find("Cells", "offsets");
  const test::VtuArray* types = file.find("Cells", "types");
  if (connectivity == nullptr || offset == nullptr || types == nullptr ||
      !same_bits(connectivity->bytes, ids) || !same_bits(offset->bytes, offsets) ||
      types->bytes != std::vector<unsigned char>(std::size_t(n), 1)) {
    fuzz::finding("the cells are not one vertex per particle");
  }
  if (series != nullptr) {
    const test::XmlDocument pvd = test::parse_xml(read(series->pvd_path()));
    if (!pvd.problem.empty() || pvd.elements.size() != 3) {
      fuzz::finding("the .pvd is not well-formed or lists other than one frame");
    }
    const double back = std::strtod(pvd.elements[2].attribute("timestep").c_str(), nullptr);
    if (std::memcmp(&back, &time, sizeof back) != 0 ||
        pvd.elements[2].attribute("file") != path.filename().string()) {
      fuzz::finding("the .pvd does not list the frame's time to its bits and its file");
    }
    std::error_code ignored;
    fs::remove(series->pvd_path(), ignored);
    fs::remove(path, ignored);
  }
}

void frame(fuzz::Bytes& in) {
  switch (in.small(0, 3)) {
  case 0:
    frame_of<double, 1>(in);
    break;
  case 1:
    frame_of<double, 2>(in);
    break;
  case 2:
    frame_of<float, 2>(in);
    break;
  default:
    frame_of<double, 3>(in);
    break;
  }
}

// ---- CSV -----------------------------------------------------------------------------------

/// The records of RFC 4180 text whose lines end with `\n`.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  bool in_quotes = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        field += c;
      }
    } else if (c == '"' && field.empty() && !quoted) {
      in_quotes = quoted = true;
    } else if (c == ',' || c == '\n') {
      record.push_back(field);
      field.clear();
      quoted = false;
      if (c == '\n') {
        records.push_back(record);
        record.clear();
      }
    } else {
      field += c;
    }
  }
  if (!field.empty() || !record.empty() || in_quotes) {
    fuzz::finding("the CSV does not end with a line break");
  }
  return records;
}

void csv(fuzz::Bytes& in) {
  const std::int64_t columns = in.small(1, 4);
  const std::int64_t rows = in.small(0, 12);
  std::vector<std::string> header;
  std::vector<std::vector<double>> data(static_cast<std::size_t>(columns));
  for (std::int64_t j = 0; j < columns; ++j) {
    header.push_back(text(in, 8));
    const double base = value(in, 1.0);
    for (std::int64_t i = 0; i < rows; ++i) {
      data[std::size_t(j)].push_back(value(in, base));
    }
  }
  const fs::path path = scratch() / "table.csv";
  if (in.flag()) {
    io::write_csv(path, header, data);
  } else {
    io::CsvWriter writer(path, header);
    for (std::int64_t i = 0; i < rows; ++i) {
      std::vector<double> row;
      for (std::int64_t j = 0; j < columns; ++j) {
        row.push_back(data[std::size_t(j)][std::size_t(i)]);
      }
      writer.row(row);
    }
  }
  const auto records = parse_csv(read(path));
  if (records.size() != std::size_t(rows) + 1 || records[0] != header) {
    fuzz::finding("the CSV does not read back to its header and row count");
  }
  for (std::int64_t i = 0; i < rows; ++i) {
    const auto& record = records[std::size_t(i) + 1];
    if (record.size() != std::size_t(columns)) {
      fuzz::finding("a CSV row has another number of fields");
    }
    for (std::int64_t j = 0; j < columns; ++j) {
      const double expected = data[std::size_t(j)][std::size_t(i)];
      const std::string& field = record[std::size_t(j)];
      if (std::isnan(expected)) {
        if (field != "nan") {
          fuzz::finding("a NaN is not written `nan`");
        }
        continue;
      }
      char* end = nullptr;
      const double back = std::strtod(field.c_str(), &end);
      if (*end != '\0' || std::memcmp(&back, &expected, sizeof back) != 0) {
        fuzz::finding("a CSV value does not read back to its bits");
      }
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes in(data, size);
  switch (in.small(0, 2)) {
  case 0:
    plot(in);
    break;
  case 1:
    frame(in);
    break;
  default:
    csv(in);
    break;
  }
  return 0;
}
