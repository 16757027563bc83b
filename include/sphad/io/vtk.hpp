// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/io/detail/output.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/span.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <locale>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `VtuFrame` and `PvdSeries`: particles and their point arrays as VTK XML files that
/// ParaView opens — one UnstructuredGrid `.vtu` per frame (ASCII, every particle a vertex cell)
/// and a `.pvd` collection listing the frames with their times.
///
/// Host only: every array is read on the host. Data in device memory is the caller's to copy
/// to the host first (`exec::to_host`, or a `thrust::host_vector`).

namespace sphad::io {

namespace detail {

/// VTK's name of a scalar type, its digits for a lossless round trip, and whether it is one.
template <class S>
struct VtkScalar {
  static constexpr bool supported = false;
};
template <>
struct VtkScalar<float> {
  static constexpr bool supported = true;
  static constexpr const char* name = "Float32";
  static constexpr int digits = 9;
};
template <>
struct VtkScalar<double> {
  static constexpr bool supported = true;
  static constexpr const char* name = "Float64";
  static constexpr int digits = 17;
};
template <>
struct VtkScalar<std::int32_t> {
  static constexpr bool supported = true;
  static constexpr const char* name = "Int32";
  static constexpr int digits = 10;
};
template <>
struct VtkScalar<std::int64_t> {
  static constexpr bool supported = true;
  static constexpr const char* name = "Int64";
  static constexpr int digits = 19;
};

/// An array element: a supported scalar (1 component) or a `Vec` of one, D <= 3 (written as 3
/// components, padded with zeros).
template <class E>
struct VtkElement {
  using scalar_type = E;
  static constexpr int dim = 1;
  static constexpr int components = 1;
  static scalar_type component(const E& e, int) { return e; }
};
template <class S, int D>
struct VtkElement<Vec<S, D>> {
  using scalar_type = S;
  static constexpr int dim = D;
  static constexpr int components = 3;
  static scalar_type component(const Vec<S, D>& e, int i) { return i < D ? e[i] : S(0); }
};

/// The elements of `values` as ASCII text, one element (its components space-separated) a line.
template <class E>
std::string vtk_ascii(Span<const E> values) {
  using Element = VtkElement<E>;
  using S = typename Element::scalar_type;
  std::ostringstream out;
  out.imbue(std::locale::classic());
  out << std::setprecision(VtkScalar<S>::digits);
  for (std::int64_t i = 0; i < values.size(); ++i) {
    for (int c = 0; c < Element::components; ++c) {
      out << (c == 0 ? "" : " ") << Element::component(values[i], c);
    }
    out << '\n';
  }
  return out.str();
}

} // namespace detail

/// One frame of particles for a `.vtu` file: positions, then named point arrays.
/// `VtuFrame frame(x); frame.add("density", rho).add("velocity", v); frame.write("f.vtu");`.
/// The frame copies what it is given (as text), so the arrays may change after `add`.
/// Positions are `Vec<T, D>`, T float or double, D = 1, 2, 3, padded to 3 components with
/// zeros; point arrays hold float, double, `std::int32_t`, `std::int64_t` or `Vec`s of them
/// (D <= 3, padded to 3 components), one element per particle. Host memory only.
class VtuFrame {
public:
  /// A frame of `positions.size()` particles.
  template <class T, int D>
  explicit VtuFrame(Span<const Vec<T, D>> positions) : size_(positions.size()) {
    static_assert(std::is_floating_point_v<T> && D >= 1 && D <= 3,
                  "sphad::io::VtuFrame: positions must be Vec<float or double, D>, D = 1, 2, 3");
    points_type_ = detail::VtkScalar<T>::name;
    points_ = detail::vtk_ascii(positions);
  }
  /// A frame of the particles at `positions` (a mutable view).
  template <class T, int D>
  explicit VtuFrame(Span<Vec<T, D>> positions) : VtuFrame(Span<const Vec<T, D>>(positions)) {}
  /// A frame of the particles at `positions` (a vector).
  template <class T, int D, class A>
  explicit VtuFrame(const std::vector<Vec<T, D>, A>& positions)
      : VtuFrame(Span<const Vec<T, D>>(positions)) {}

  /// Adds the point array `name`, one element per particle. Throws `sphad::InvalidArgument`
  /// when `name` is empty or already taken, or `values` has not one element per particle.
  template <class E>
  VtuFrame& add(const std::string& name, Span<const E> values) {
    using Element = detail::VtkElement<E>;
    static_assert(detail::VtkScalar<typename Element::scalar_type>::supported && Element::dim <= 3,
                  "sphad::io::VtuFrame::add: elements must be float, double, std::int32_t, "
                  "std::int64_t or a Vec of one with D <= 3");
    SPHAD_REQUIRE(!name.empty(), "io::VtuFrame::add", "name", "empty");
    for (const auto& array : arrays_) {
      SPHAD_REQUIRE(array.name != name, "io::VtuFrame::add", "name",
                    sphad::detail::concat("an array named `", name, "` was already added"));
    }
    SPHAD_REQUIRE(values.size() == size_, "io::VtuFrame::add", "values",
                  sphad::detail::concat("array `", name, "` needs one element per particle (got ",
                                        values.size(), ", expected ", size_, ")"));
    arrays_.push_back({name, detail::VtkScalar<typename Element::scalar_type>::name,
                       Element::components, detail::vtk_ascii(values)});
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

  /// Writes the frame to `path` (a `.vtu` file, replaced if it exists): an UnstructuredGrid
  /// with one VTK_VERTEX cell per particle, ASCII data arrays. Throws `sphad::InvalidArgument`
  /// when `path` cannot be opened, `std::runtime_error` when writing fails.
  void write(const std::filesystem::path& path) const {
    auto out = detail::open_output(path, "io::VtuFrame::write");
    out << "<?xml version=\"1.0\"?>\n"
        << "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
        << "  <UnstructuredGrid>\n"
        << "    <Piece NumberOfPoints=\"" << size_ << "\" NumberOfCells=\"" << size_ << "\">\n"
        << "      <PointData>\n";
    for (const auto& array : arrays_) {
      out << "        <DataArray type=\"" << array.type << "\" Name=\""
          << detail::xml_escape(array.name) << "\"";
      if (array.components > 1) {
        out << " NumberOfComponents=\"" << array.components << "\"";
      }
      out << " format=\"ascii\">\n" << array.text << "        </DataArray>\n";
    }
    out << "      </PointData>\n"
        << "      <Points>\n"
        << "        <DataArray type=\"" << points_type_
        << "\" NumberOfComponents=\"3\" format=\"ascii\">\n"
        << points_ << "        </DataArray>\n"
        << "      </Points>\n"
        << "      <Cells>\n";
    write_cell_array(out, "Int64", "connectivity", [](std::int64_t i) { return i; });
    write_cell_array(out, "Int64", "offsets", [](std::int64_t i) { return i + 1; });
    write_cell_array(out, "UInt8", "types", [](std::int64_t) { return 1; }); // VTK_VERTEX
    out << "      </Cells>\n"
        << "    </Piece>\n"
        << "  </UnstructuredGrid>\n"
        << "</VTKFile>\n";
    detail::check_output(out, path, "io::VtuFrame::write");
  }

private:
  struct Array {
    std::string name;
    const char* type;
    int components;
    std::string text;
  };

  template <class F>
  void write_cell_array(std::ostream& out, const char* type, const char* name, F value) const {
    out << "        <DataArray type=\"" << type << "\" Name=\"" << name << "\" format=\"ascii\">\n";
    for (std::int64_t i = 0; i < size_; ++i) {
      out << value(i) << '\n';
    }
    out << "        </DataArray>\n";
  }

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
  /// `sphad::InvalidArgument` when `basename` is empty or holds a path separator, or
  /// `directory` cannot be created.
  PvdSeries(std::filesystem::path directory, std::string basename)
      : directory_(std::move(directory)), basename_(std::move(basename)) {
    SPHAD_REQUIRE(!basename_.empty() && basename_.find_first_of("/\\") == std::string::npos,
                  "io::PvdSeries", "basename",
                  sphad::detail::concat("must be a non-empty file name without a directory (got `",
                                        basename_, "`)"));
    std::error_code error;
    std::filesystem::create_directories(directory_, error);
    SPHAD_REQUIRE(!error && std::filesystem::is_directory(directory_), "io::PvdSeries", "directory",
                  sphad::detail::concat("cannot create `", directory_.string(), "` (",
                                        error ? error.message() : "not a directory", ")"));
  }

  /// Writes `frame` as the next file of the series, at time `time`, then rewrites the `.pvd`;
  /// returns the path of the `.vtu` written. Throws `sphad::InvalidArgument` when `time` is not
  /// finite (before writing anything) or a file cannot be opened.
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
    const auto target = pvd_path();
    auto partial = target;
    partial += ".partial";
    {
      auto out = detail::open_output(partial, "io::PvdSeries::write");
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
      detail::check_output(out, partial, "io::PvdSeries::write");
    }
    std::filesystem::rename(partial, target);
  }

  std::filesystem::path directory_;
  std::string basename_;
  std::vector<double> times_;
  std::vector<std::string> files_;
};

} // namespace sphad::io
