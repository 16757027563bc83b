// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/io/detail/output.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/span.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `VtuFrame` and `PvdSeries`: particles and their point arrays as VTK XML files that
/// ParaView opens — one UnstructuredGrid `.vtu` per frame (every particle a vertex cell, data
/// arrays in base64 binary: every value's bits, NaN and infinities included) and a `.pvd`
/// collection listing the frames with their times.
///
/// Host only: every array is read on the host. Data in device memory is the caller's to copy
/// to the host first (`exec::to_host`, or a `thrust::host_vector`).

namespace sphad::io {

namespace detail {

/// VTK's name of a scalar type, and whether it is one.
template <class S>
struct VtkScalar {
  static constexpr bool supported = false;
};
template <>
struct VtkScalar<float> {
  static constexpr bool supported = true;
  static constexpr const char* name = "Float32";
};
template <>
struct VtkScalar<double> {
  static constexpr bool supported = true;
  static constexpr const char* name = "Float64";
};
template <>
struct VtkScalar<std::int32_t> {
  static constexpr bool supported = true;
  static constexpr const char* name = "Int32";
};
template <>
struct VtkScalar<std::int64_t> {
  static constexpr bool supported = true;
  static constexpr const char* name = "Int64";
};

/// An array element: a supported scalar (1 component) or a `Vec` of one, D <= 3 (written as 3
/// components, padded with zeros).
template <class E>
struct VtkElement {
  using scalar_type = E;
  static constexpr int dim = 1;
  static constexpr int components = 1;
  static const scalar_type* data(const E& e) { return &e; }
};
template <class S, int D>
struct VtkElement<Vec<S, D>> {
  using scalar_type = S;
  static constexpr int dim = D;
  static constexpr int components = 3;
  static const scalar_type* data(const Vec<S, D>& e) { return &e[0]; }
};

/// Appends the bytes of `value` to `out`, least significant first, whatever the host's order.
template <class S>
void append_little_endian(std::string& out, const S& value) {
  using Bits = std::conditional_t<sizeof(S) == 8, std::uint64_t,
                                  std::conditional_t<sizeof(S) == 4, std::uint32_t, std::uint8_t>>;
  Bits bits;
  std::memcpy(&bits, &value, sizeof bits);
  for (std::size_t b = 0; b < sizeof bits; ++b) {
    out += char((std::uint64_t(bits) >> (8 * b)) & 0xFF);
  }
}

/// The elements of `values` as a VTK data array's bytes (little-endian), components padded.
template <class E>
std::string vtk_bytes(Span<const E> values) {
  using Element = VtkElement<E>;
  using S = typename Element::scalar_type;
  std::string out;
  out.reserve(std::size_t(values.size()) * Element::components * sizeof(S));
  for (std::int64_t i = 0; i < values.size(); ++i) {
    const S* components = Element::data(values[i]);
    for (int c = 0; c < Element::components; ++c) {
      // Copied as bits, never as a value: a signalling NaN stays one.
      append_little_endian(out, c < Element::dim ? components[c] : S(0));
    }
  }
  return out;
}

/// Writes one inline binary DataArray: the attributes, then base64 of its byte count (UInt64,
/// little-endian) followed by its bytes, as one run (VTK's `header_type="UInt64"` layout).
inline void write_data_array(std::ostream& out,
                             const char* type,
                             const std::string& name,
                             int components,
                             const std::string& bytes) {
  out << "        <DataArray type=\"" << type << "\"";
  if (!name.empty()) {
    out << " Name=\"" << xml_escape(name) << "\"";
  }
  if (components > 1) {
    out << " NumberOfComponents=\"" << components << "\"";
  }
  out << " format=\"binary\">\n          ";
  std::string header;
  append_little_endian(header, std::uint64_t(bytes.size()));
  Base64Writer base64(out);
  base64.put(reinterpret_cast<const unsigned char*>(header.data()), header.size());
  base64.put(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  base64.finish();
  out << "\n        </DataArray>\n";
}

} // namespace detail

/// One frame of particles for a `.vtu` file: positions, then named point arrays.
/// `VtuFrame frame(x); frame.add("density", rho).add("velocity", v); frame.write("f.vtu");`.
/// The frame copies what it is given, so the arrays may change after `add`.
/// Positions are `Vec<T, D>`, T float or double, D = 1, 2, 3, padded to 3 components with
/// zeros; point arrays hold float, double, `std::int32_t`, `std::int64_t` or `Vec`s of them
/// (D <= 3, padded to 3 components), one element per particle. Every value is written with its
/// exact bits (NaN, ±∞ and denormals too). Host memory only.
class VtuFrame {
public:
  /// A frame of `positions.size()` particles.
  template <class T, int D>
  explicit VtuFrame(Span<const Vec<T, D>> positions) : size_(positions.size()) {
    static_assert(std::is_floating_point_v<T> && D >= 1 && D <= 3,
                  "sphad::io::VtuFrame: positions must be Vec<float or double, D>, D = 1, 2, 3");
    points_type_ = detail::VtkScalar<T>::name;
    points_ = detail::vtk_bytes(positions);
  }
  /// A frame of the particles at `positions` (a mutable view).
  template <class T, int D>
  explicit VtuFrame(Span<Vec<T, D>> positions) : VtuFrame(Span<const Vec<T, D>>(positions)) {}
  /// A frame of the particles at `positions` (a vector).
  template <class T, int D, class A>
  explicit VtuFrame(const std::vector<Vec<T, D>, A>& positions)
      : VtuFrame(Span<const Vec<T, D>>(positions)) {}

  /// Adds the point array `name`, one element per particle. Throws `sphad::InvalidArgument`
  /// when `name` is empty or already taken, or `values` has not one element per particle. A
  /// name's bytes that XML cannot carry (invalid UTF-8, control characters other than tab and
  /// line breaks) are written as U+FFFD; two names equal after that are taken.
  template <class E>
  VtuFrame& add(const std::string& name, Span<const E> values) {
    using Element = detail::VtkElement<E>;
    static_assert(detail::VtkScalar<typename Element::scalar_type>::supported && Element::dim <= 3,
                  "sphad::io::VtuFrame::add: elements must be float, double, std::int32_t, "
                  "std::int64_t or a Vec of one with D <= 3");
    SPHAD_REQUIRE(!name.empty(), "io::VtuFrame::add", "name", "empty");
    const std::string escaped = detail::xml_escape(name);
    for (const auto& array : arrays_) {
      SPHAD_REQUIRE(detail::xml_escape(array.name) != escaped, "io::VtuFrame::add", "name",
                    sphad::detail::concat("an array named `", name, "` was already added"));
    }
    SPHAD_REQUIRE(values.size() == size_, "io::VtuFrame::add", "values",
                  sphad::detail::concat("array `", name, "` needs one element per particle (got ",
                                        values.size(), ", expected ", size_, ")"));
    arrays_.push_back({name, detail::VtkScalar<typename Element::scalar_type>::name,
                       Element::components, detail::vtk_bytes(values)});
    return *this;
  }
  /// Adds the point array `name` from a mutable view.
  template <class E>
  VtuFrame& add(const std::string& name, Span<E> values) {
    return add(name, Span<const E>(values));
  }
  /// Adds the point array `name` from a vector.
  template <class E, class A>
  VtuFrame& add(const std::string& name, const std::vector<E, A>& values) {
    return add(name, Span<const E>(values));
  }

  /// The number of particles.
  std::int64_t size() const { return size_; }

  /// Writes the frame to `path` (a `.vtu` file, replaced if it exists): a VTK XML
  /// UnstructuredGrid (version 1.0, `header_type="UInt64"`) with one VTK_VERTEX cell per
  /// particle and inline base64 binary data arrays. The file is written as `<path>.partial` and
  /// renamed over `path`: a failed write leaves `path` as it was and removes the `.partial`.
  /// Throws `sphad::InvalidArgument` naming `path` when the file cannot be opened,
  /// `std::runtime_error` when writing or the rename fails.
  void write(const std::filesystem::path& path) const {
    detail::write_file(path, "io::VtuFrame::write", [&](std::ofstream& out) {
      out << "<?xml version=\"1.0\"?>\n"
          << "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
             "header_type=\"UInt64\">\n"
          << "  <UnstructuredGrid>\n"
          << "    <Piece NumberOfPoints=\"" << size_ << "\" NumberOfCells=\"" << size_ << "\">\n"
          << "      <PointData>\n";
      for (const auto& array : arrays_) {
        detail::write_data_array(out, array.type, array.name, array.components, array.bytes);
      }
      out << "      </PointData>\n"
          << "      <Points>\n";
      detail::write_data_array(out, points_type_, "", 3, points_);
      out << "      </Points>\n"
          << "      <Cells>\n";
      std::string bytes;
      bytes.reserve(std::size_t(size_) * 8);
      for (std::int64_t i = 0; i < size_; ++i) {
        detail::append_little_endian(bytes, i);
      }
      detail::write_data_array(out, "Int64", "connectivity", 1, bytes);
      bytes.clear();
      for (std::int64_t i = 0; i < size_; ++i) {
        detail::append_little_endian(bytes, i + 1);
      }
      detail::write_data_array(out, "Int64", "offsets", 1, bytes);
      bytes.assign(std::size_t(size_), char(1)); // VTK_VERTEX
      detail::write_data_array(out, "UInt8", "types", 1, bytes);
      out << "      </Cells>\n"
          << "    </Piece>\n"
          << "  </UnstructuredGrid>\n"
          << "</VTKFile>\n";
    });
  }

private:
  struct Array {
    std::string name;
    const char* type;
    int components;
    std::string bytes; // little-endian, components padded
  };

  std::int64_t size_ = 0;
  const char* points_type_ = "Float64";
  std::string points_;
  std::vector<Array> arrays_;
};

/// A time series of frames for ParaView: `write(t, frame)` writes
/// `<directory>/<basename>_<NNNNNN>.vtu` (NNNNNN = 000000, 000001, ...) and rewrites
/// `<directory>/<basename>.pvd`, the collection listing every frame written so far with its
/// time, so a run stopped part way is viewable. The `.pvd` names its frames relative to
/// itself: the directory can be moved as a whole.
class PvdSeries {
public:
  /// A series in `directory` (created, with its parents, when missing). Throws
  /// `sphad::InvalidArgument` when `basename` is empty, holds a path separator, a control
  /// character or bytes that are not UTF-8, or `directory` cannot be created.
  PvdSeries(std::filesystem::path directory, std::string basename)
      : directory_(std::move(directory)), basename_(std::move(basename)) {
    SPHAD_REQUIRE(!basename_.empty() && basename_.find_first_of("/\\") == std::string::npos,
                  "io::PvdSeries", "basename",
                  sphad::detail::concat("must be a non-empty file name without a directory (got `",
                                        basename_, "`)"));
    SPHAD_REQUIRE(detail::is_xml_text(basename_) &&
                      std::none_of(basename_.begin(), basename_.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x20; }),
                  "io::PvdSeries", "basename",
                  "must be UTF-8 text without control characters (the .pvd names its files)");
    std::error_code error;
    std::filesystem::create_directories(directory_, error);
    SPHAD_REQUIRE(!error && std::filesystem::is_directory(directory_), "io::PvdSeries", "directory",
                  sphad::detail::concat("cannot create `", directory_.string(), "` (",
                                        error ? error.message() : "not a directory", ")"));
  }

  /// Writes `frame` as the next file of the series, at time `time`, then rewrites the `.pvd`;
  /// returns the path of the `.vtu` written. Both files are written through a `.partial` file
  /// renamed over them (see `VtuFrame::write`). Throws `sphad::InvalidArgument` when `time` is
  /// not finite (before writing anything) or a file cannot be opened, `std::runtime_error` when
  /// writing one fails (a frame written before the `.pvd` failed is listed by the next write).
  std::filesystem::path write(double time, const VtuFrame& frame) {
    SPHAD_REQUIRE(std::isfinite(time), "io::PvdSeries::write", "time",
                  sphad::detail::concat("not finite (got ", time, ")"));
    std::ostringstream name;
    name << basename_ << '_' << std::setw(6) << std::setfill('0') << times_.size() << ".vtu";
    const auto path = directory_ / name.str();
    frame.write(path);
    times_.push_back(time);
    files_.push_back(name.str());
    write_collection();
    return path;
  }

  /// The number of frames written.
  std::int64_t size() const { return std::int64_t(times_.size()); }
  /// The collection file, `<directory>/<basename>.pvd`.
  std::filesystem::path pvd_path() const { return directory_ / (basename_ + ".pvd"); }

private:
  // Written beside the target and renamed over it: a viewer never reads half a collection.
  void write_collection() const {
    detail::write_file(pvd_path(), "io::PvdSeries::write", [&](std::ofstream& out) {
      out << std::setprecision(17);
      out << "<?xml version=\"1.0\"?>\n"
          << "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          << "  <Collection>\n";
      for (std::size_t i = 0; i < times_.size(); ++i) {
        out << "    <DataSet timestep=\"" << times_[i] << "\" group=\"\" part=\"0\" file=\""
            << detail::xml_escape(files_[i]) << "\"/>\n";
      }
      out << "  </Collection>\n"
          << "</VTKFile>\n";
    });
  }

  std::filesystem::path directory_;
  std::string basename_;
  std::vector<double> times_;
  std::vector<std::string> files_;
};

} // namespace sphad::io
