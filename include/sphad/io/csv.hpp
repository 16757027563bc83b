// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/io/detail/output.hpp>

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

/// \file
/// \brief `CsvWriter` and `write_csv`: columns of numbers as comma-separated text, a header
/// line first, every value with 17 significant digits (a double's exact round trip; NaN as
/// `nan`, the infinities as `inf` and `-inf`).

namespace sphad::io {

namespace detail {

/// `field` as one CSV field: quoted, with inner quotes doubled, when it holds a comma, a quote
/// or a line break (RFC 4180); unchanged otherwise.
inline std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(field);
  }
  std::string out = "\"";
  for (const char c : field) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  return out + "\"";
}

/// Writes `value` as a CSV field: 17 significant digits (the stream's precision), `nan` for
/// every NaN (whatever its sign: the C library would write `-nan` for some), `inf` and `-inf`
/// for the infinities, spelled the same on every platform.
inline void write_csv_number(std::ostream& out, double value) {
  if (std::isnan(value)) {
    out << "nan";
  } else if (std::isinf(value)) {
    out << (value > 0 ? "inf" : "-inf");
  } else {
    out << value;
  }
}

/// Writes `fields` as one line.
inline void write_csv_header(std::ostream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    out << (i == 0 ? "" : ",") << csv_field(fields[i]);
  }
  out << '\n';
}

} // namespace detail

/// A CSV file written a row at a time: `CsvWriter csv("energy.csv", {"t", "E"});` writes the
/// header line, then `csv.row({t, e})` a line of values, flushed at once (a run stopped part way
/// leaves every row it wrote). Values are written with 17 significant digits, which read back
/// (`strtod`, Python's `float`) to the same bits, denormals, ±DBL_MAX and -0 included; every
/// NaN as `nan`, the infinities as `inf` and `-inf`. A header field holding a comma or a quote
/// is quoted. Lines end with `\n`. The file is closed when the writer is destroyed.
class CsvWriter {
public:
  /// Creates (or replaces) `path` and writes `header`, the column names. Throws
  /// `sphad::InvalidArgument` when `header` is empty or `path` cannot be opened.
  CsvWriter(const std::filesystem::path& path, std::vector<std::string> header)
      : path_(path), columns_(header.size()) {
    SPHAD_REQUIRE(!header.empty(), "io::CsvWriter", "header", "no columns");
    out_ = detail::open_output(path_, "io::CsvWriter");
    out_ << std::setprecision(17);
    detail::write_csv_header(out_, header);
    detail::check_output(out_, path_, "io::CsvWriter");
  }

  /// Writes one line: one value per column. Throws `sphad::InvalidArgument` (writing nothing)
  /// when `values` does not hold one value per column, `std::runtime_error` when writing fails.
  void row(const std::vector<double>& values) {
    SPHAD_REQUIRE(values.size() == columns_, "io::CsvWriter::row", "values",
                  sphad::detail::concat("one value per column (got ", values.size(), ", expected ",
                                        columns_, ")"));
    for (std::size_t i = 0; i < values.size(); ++i) {
      out_ << (i == 0 ? "" : ",");
      detail::write_csv_number(out_, values[i]);
    }
    out_ << '\n';
    detail::check_output(out_, path_, "io::CsvWriter::row");
  }

  /// The number of columns.
  std::size_t columns() const { return columns_; }

private:
  std::filesystem::path path_;
  std::size_t columns_;
  std::ofstream out_;
};

/// Writes a whole CSV file at once: the `header` line, then row i holding `columns[j][i]` for
/// every column j, values as `CsvWriter` writes them. The file is written as `<path>.partial`
/// and renamed over `path`: a failed write leaves `path` as it was. Throws
/// `sphad::InvalidArgument` (writing nothing) when `header` is empty or does not name every
/// column, when the columns' lengths differ, or when `path` cannot be opened;
/// `std::runtime_error` when writing or the rename fails.
inline void write_csv(const std::filesystem::path& path,
                      const std::vector<std::string>& header,
                      const std::vector<std::vector<double>>& columns) {
  SPHAD_REQUIRE(!header.empty(), "io::write_csv", "header", "no columns");
  SPHAD_REQUIRE(header.size() == columns.size(), "io::write_csv", "header",
                sphad::detail::concat("one name per column (got ", header.size(), " names for ",
                                      columns.size(), " columns)"));
  for (std::size_t j = 1; j < columns.size(); ++j) {
    SPHAD_REQUIRE(columns[j].size() == columns[0].size(), "io::write_csv", "columns",
                  sphad::detail::concat("lengths differ (column `", header[j], "` has ",
                                        columns[j].size(), " values, column `", header[0], "` has ",
                                        columns[0].size(), ")"));
  }
  detail::write_file(path, "io::write_csv", [&](std::ofstream& out) {
    out << std::setprecision(17);
    detail::write_csv_header(out, header);
    for (std::size_t i = 0; i < columns[0].size(); ++i) {
      for (std::size_t j = 0; j < columns.size(); ++j) {
        out << (j == 0 ? "" : ",");
        detail::write_csv_number(out, columns[j][i]);
      }
      out << '\n';
    }
  });
}

} // namespace sphad::io
